//! The main graph of a large model rewritten by two threads: the first half of its nodes here, the
//! second half speculatively on another thread, with what this thread needs to tell its caller
//! kept aside. The output is the same as one thread's, byte for byte.
//!
//! Why it can be: where no two nodes share a label, the names the pass makes for a node are its own
//! (`<label>/expand_in<slot>...`, see `Names::distinct_with`), and an Expand whose target is the
//! `Shape` of one of the node's inputs (a recipe) touches nothing but that node's edit. The other
//! thread does only that. At the first node that needs more (a static target shared by the graph,
//! a name of the table, a Tile before opset 8, a target made by the pass, a refusal) it drops what it
//! did for that node and stops; this thread, done with its half, takes the other's edit, reports,
//! and lists as if it had made them, and goes on from where it stopped.

use super::{BroadcastError, GraphRewriter, Made, Outcome};
use crate::file::list_edit::Room;
use crate::passes::GraphPatch;
use std::collections::HashMap;

/// Graphs with fewer nodes are rewritten by one thread: a second would cost more than it saves.
/// It pays: `expand` of `synthetic_1M` 2552 ms with it, 2775 ms without (`bench/ab.py --rounds 3
/// --warm`, 2 cores), for 15 MB more peak memory.
pub(super) const SPLIT_ABOVE: usize = 1 << 16;

/// The first node of the other thread's half, of `n`. Halves: what this thread does after the
/// other's part (taking its edit, telling its reports) cannot overlap it, so the parts are best the
/// same. Timed on `synthetic_1M` (6 alternating runs), the other thread took 1.0-1.5x this one's
/// time for as many nodes; with 2/5 of the nodes here, this thread waited for it ~0.1 s.
pub(super) fn split_point(n: usize) -> usize {
    n / 2
}

/// Counts kept in 32 bits (see there).
pub(super) use crate::file::encoding::small;

/// What the other thread did: where it stopped, its edit, the inputs it made explicit as
/// (ordinal, input), and what it listed.
struct Half {
    stopped: usize,
    patch: GraphPatch,
    made: Vec<(u32, u32)>,
    out: Outcome,
}

/// Rewrites the nodes of `rw`'s graph, the second half on another thread (see the module
/// documentation).
/// `room`, if given, is the room made ahead for the other half's recipes.
pub(super) fn rewrite_in_two(
    rw: &mut GraphRewriter<'_, '_>,
    room: Option<Room>,
) -> Result<(), BroadcastError> {
    let n = rw.g.ops.len();
    let mid = split_point(n);
    let mut names = rw.names.speculative();
    let (g, infos, opts, legacy_ir, opset) = (rw.g, rw.infos, rw.opts, rw.legacy_ir, rw.opset);
    let imports = rw.imports.clone();
    std::thread::scope(|s| {
        let other = std::thread::Builder::new()
            .name("expand".to_owned())
            .spawn_scoped(s, move || {
                let mut out = Outcome::default();
                let mut untold = |_: Made<'_>| {};
                let mut w = GraphRewriter {
                    g,
                    infos,
                    patch: GraphPatch::new(g),
                    names: &mut names,
                    shape_consts: HashMap::new(),
                    in_function: false,
                    legacy_ir,
                    opset,
                    imports,
                    out: &mut out,
                    made: &mut untold,
                    opts,
                    graph_index: 0,
                    ordinal: 0,
                    name_buf: String::new(),
                    speculative: Some(Vec::new()),
                    aborted: false,
                };
                match room {
                    Some(room) => w.patch.use_room(room),
                    None => w.patch.reserve(n - mid),
                }
                let stopped = w.rewrite_speculatively(mid..n);
                let made = w.speculative.take().unwrap_or_default();
                let patch = std::mem::replace(&mut w.patch, GraphPatch::new(g));
                Half {
                    stopped,
                    patch,
                    made,
                    out,
                }
            });
        rw.rewrite(0..mid)?;
        let half = match other {
            Ok(h) => h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)),
            // No thread to be had: the second half is rewritten here.
            Err(_) => return rw.rewrite(mid..n),
        };
        if !rw.patch.append(half.patch) {
            // It only queues recipes: never happens, but the second half could then be redone.
            return rw.rewrite(mid..n);
        }
        rw.out.kept.extend(half.out.kept);
        rw.out.required.extend(half.out.required);
        rw.out.left.extend(half.out.left);
        for (ordinal, slot) in half.made {
            rw.tell(ordinal as usize, slot as usize);
        }
        rw.rewrite(half.stopped..n)
    })
}

impl GraphRewriter<'_, '_> {
    /// Rewrites the nodes of `ordinals` as far as it can alone (see the module documentation);
    /// returns the ordinal it stopped at, its edits of that node dropped (the end if none).
    fn rewrite_speculatively(&mut self, ordinals: std::ops::Range<usize>) -> usize {
        for ordinal in ordinals.clone() {
            let mark = (
                self.patch.mark(),
                self.out.kept.len(),
                self.out.required.len(),
                self.out.left.len(),
                self.speculative.as_ref().map_or(0, Vec::len),
            );
            let done = self.rewrite(ordinal..ordinal + 1);
            if done.is_err() || self.aborted || self.names.blocked() {
                let (patch, kept, required, left, made) = mark;
                self.patch.rollback(patch);
                self.out.kept.truncate(kept);
                self.out.required.truncate(required);
                self.out.left.truncate(left);
                if let Some(m) = &mut self.speculative {
                    m.truncate(made);
                }
                return ordinal;
            }
        }
        ordinals.end
    }

    /// Tells the caller that input `slot` of the node at `ordinal` was made explicit, as
    /// [`GraphRewriter::report`] would have: the shapes are the input's and the output's, as
    /// inference left them (a speculative rewriter stops at nodes whose target it makes).
    fn tell(&mut self, ordinal: usize, slot: usize) {
        let g = self.g;
        let Some(op) = g.ops.get(ordinal).and_then(|&id| g.op(id)) else {
            return;
        };
        let from = self.shape_ref(self.input_id(op, slot));
        let to = self.shape_ref(g.output_ids(op).first().copied().flatten());
        self.ordinal = ordinal;
        self.report(op, &op.label(), slot, from, to);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Options, prepare_split_above, run_split_above};
    use crate::proto::tensor_shape_proto::{Dimension, dimension::Value};
    use crate::proto::{
        GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorShapeProto, TypeProto,
        ValueInfoProto, type_proto,
    };
    use prost::Message;

    fn input(name: &str, dims: &[&str]) -> ValueInfoProto {
        let dim = |d: &&str| Dimension {
            value: Some(match d.parse::<i64>() {
                Ok(n) => Value::DimValue(n),
                Err(_) => Value::DimParam((*d).to_owned()),
            }),
            ..Default::default()
        };
        ValueInfoProto {
            name: Some(name.to_owned()),
            r#type: Some(TypeProto {
                value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                    elem_type: Some(1),
                    shape: Some(TensorShapeProto {
                        dim: dims.iter().map(dim).collect(),
                    }),
                })),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// What a node of a test graph is.
    #[derive(Clone, Copy, PartialEq)]
    enum Node {
        /// `Add(x [N, 4], b [1, 4])`: an Expand of b to `Shape(x)`, which the other thread makes.
        Recipe,
        /// `Add(s [3, 4], b)`: a static target, shared by the graph.
        Static,
        /// `Pow(x, e [1])`: a kernel exception, left implicit.
        Kept,
        /// `LayerNormalization(x, scale [1], bias [1])`: a target the pass makes.
        Normalized,
        /// `Add(big [3, 4, 69], u)`, u of unknown type and the output declared [3, 4, 5]: a refusal.
        Refused,
        /// `Mul(x, x)`: nothing to do.
        Plain,
    }

    /// A graph of `n` nodes, node `i` being `kind(i)`, named `n<i>` but one in five (unnamed: its
    /// label is its position).
    fn model_of(n: usize, kind: impl Fn(usize) -> Node) -> Vec<u8> {
        let mut value_info = Vec::new();
        let node = |i: usize| {
            let (op, inputs): (&str, &[&str]) = match kind(i) {
                Node::Recipe => ("Add", &["x", "b"]),
                Node::Static => ("Add", &["s", "b"]),
                Node::Kept => ("Pow", &["x", "e"]),
                Node::Normalized => ("LayerNormalization", &["x", "e", "e"]),
                Node::Refused => ("Add", &["big", "u"]),
                Node::Plain => ("Mul", &["x", "x"]),
            };
            NodeProto {
                op_type: Some(op.into()),
                name: (!i.is_multiple_of(5)).then(|| format!("n{i}")),
                input: inputs.iter().map(|s| (*s).to_owned()).collect(),
                output: vec![format!("c{i}")],
                ..Default::default()
            }
        };
        for i in (0..n).filter(|&i| kind(i) == Node::Refused) {
            value_info.push(input(&format!("c{i}"), &["3", "4", "5"]));
        }
        ModelProto {
            ir_version: Some(8),
            opset_import: vec![OperatorSetIdProto {
                domain: Some(String::new()),
                version: Some(17),
            }],
            graph: Some(GraphProto {
                node: (0..n).map(node).collect(),
                name: Some("g".into()),
                input: vec![
                    input("x", &["N", "4"]),
                    input("b", &["1", "4"]),
                    input("s", &["3", "4"]),
                    input("e", &["1"]),
                    input("big", &["3", "4", "69"]),
                    ValueInfoProto {
                        name: Some("u".into()),
                        ..Default::default()
                    },
                ],
                output: (0..n).map(|i| input(&format!("c{i}"), &[])).collect(),
                value_info,
                ..Default::default()
            }),
            ..Default::default()
        }
        .encode_to_vec()
    }

    /// The graph of the first tests: recipes, a static target at every 97th node from 7, a kernel
    /// exception at every 23rd from 11, and the refusal if asked for.
    fn model(n: usize, refusal_at: Option<usize>) -> Vec<u8> {
        model_of(n, |i| match (i % 97, i % 23) {
            _ if Some(i) == refusal_at => Node::Refused,
            (7, _) => Node::Static,
            (_, 11) => Node::Kept,
            _ => Node::Recipe,
        })
    }

    /// The output (model bytes and report lines) of the pass over `bytes`, split when the graph has
    /// at least `split_above` nodes.
    fn rewrite(
        bytes: &[u8],
        split_above: usize,
    ) -> Result<(Vec<u8>, Vec<String>), super::BroadcastError> {
        rewrite_with(bytes, split_above, false)
    }

    /// [`rewrite`]; with `prepared`, what the pass needs of the model found first (see `prepare`).
    fn rewrite_with(
        bytes: &[u8],
        split_above: usize,
        prepared: bool,
    ) -> Result<(Vec<u8>, Vec<String>), super::BroadcastError> {
        let header = ModelProto::decode(bytes).expect("the test's model decodes");
        let source = bytes::Bytes::from(bytes.to_vec());
        let (m, _) = crate::ir::Model::build(header, None, source, crate::file::Origin::Stdin);
        let inferred = crate::shape::infer::infer_with(&m, true);
        let mut lines = Vec::new();
        let out = run_split_above(
            &m,
            &inferred.graphs,
            &Options::default(),
            &mut |made| {
                lines.push(format!(
                    "{} {} {} {} {} {:?} {:?}",
                    made.graph_index,
                    made.ordinal,
                    made.node,
                    made.op_type,
                    made.slot,
                    made.from,
                    made.to
                ))
            },
            split_above,
            prepared.then(|| prepare_split_above(&m, split_above)),
        )?;
        for k in out.kept.iter().chain(&out.required) {
            lines.push(format!("kept {} {} {}", k.node, k.slot, k.reason));
        }
        lines.extend(out.left.iter().map(|l| format!("left {l}")));
        let edit = out.patch.into_edit();
        let written = crate::file::wire::splice(&m.source, 0..m.source.len(), &edit)
            .expect("the edit splices")
            .to_vec(&m.source);
        Ok((written, lines))
    }

    #[test]
    fn two_threads_rewrite_as_one_does() {
        // 100 nodes: the other thread rewrites 50 to 99; 300: it stops at the static target of
        // node 201, and the rest is rewritten here.
        for n in [100, 300] {
            let bytes = model(n, None);
            let (one, one_lines) = rewrite(&bytes, usize::MAX).expect("one thread");
            assert!(
                one_lines.iter().any(|l| l.starts_with("kept ")),
                "a Pow kept"
            );
            assert!(one_lines.len() > n * 3 / 4);
            for split_above in [2, n] {
                let (two, two_lines) = rewrite(&bytes, split_above).expect("two threads");
                assert_eq!(two_lines, one_lines, "{n} nodes, split above {split_above}");
                assert!(two == one, "{n} nodes, split above {split_above}");
            }
            for split_above in [2, usize::MAX] {
                let (p, p_lines) = rewrite_with(&bytes, split_above, true).expect("prepared");
                assert_eq!(
                    p_lines, one_lines,
                    "{n} nodes prepared, split above {split_above}"
                );
                assert!(p == one, "{n} nodes prepared, split above {split_above}");
            }
        }
    }

    #[test]
    fn a_refusal_in_either_half_is_the_refusal_of_one_thread() {
        for at in [40, 200] {
            let bytes = model(300, Some(at));
            let one = rewrite(&bytes, usize::MAX);
            let two = rewrite(&bytes, 2);
            assert!(one.is_err(), "{at}");
            assert_eq!(one, two, "{at}");
        }
    }

    #[test]
    fn two_threads_rewrite_random_graphs_as_one_does() {
        // A fixed pseudo-random sequence: the same graphs on every run.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..24 {
            let n = 40 + (next() % 260) as usize;
            // One round in four has nothing the other thread stops at: it rewrites its whole part.
            let stops = round % 4 != 1;
            let kinds: Vec<Node> = (0..n)
                .map(|_| match next() % 100 {
                    0..=74 => Node::Recipe,
                    75..=76 if stops => Node::Static,
                    77..=84 => Node::Kept,
                    85..=86 if stops => Node::Normalized,
                    87 if stops && round % 3 == 0 => Node::Refused,
                    _ => Node::Plain,
                })
                .collect();
            let bytes = model_of(n, |i| kinds[i]);
            let one = rewrite(&bytes, usize::MAX);
            assert_eq!(rewrite(&bytes, 2), one, "round {round}, {n} nodes");
            assert_eq!(
                rewrite_with(&bytes, 2, true),
                one,
                "round {round}, {n} nodes, prepared"
            );
        }
    }
}
