//! The shape-inference driver: one walk over each graph in topological order, applying the rule the
//! registry gives each node, inferring subgraphs with their outer scope and model-local functions
//! through their bodies with the call's input types, and collecting every finding.
//!
//! A finding inside a function body is reported at the calling node (the body has no location of its
//! own in the user's graph), with the inner node named in the message and in `inner_node`.
//!
//! A call is inferred once per signature (function, what is known of its inputs, the call's
//! attributes): a later call with the same signature takes the outputs and findings of the first
//! (moved to its own call site), so functions calling each other in a fan-out cost the number of
//! distinct signatures, not of call paths. What is left (distinct signatures, deep nesting) is
//! bounded by [`MAX_FUNCTION_WORK`] and [`MAX_CALL_DEPTH`], past which inference stops following
//! calls and says so (I003).

use super::bindings::Bindings;
use super::call_body::with_call_attributes;
use super::calls::{called_functions, signature_hash};
use super::conditions::{Condition, Conditions};
use super::ctx::{NodeCtx, NodeRef, Reach};
use super::dim::{Dim, SymExpr};
use super::domains::missing_rule_findings;
use super::facts::{Fact, Facts};
use super::inputs::{in_symbols, input_symbols, name_anonymous_dims};
use super::maybe_branch;
use super::ranges::Ranges;
use super::registry::registry;
use super::value::{ValueInfo, compatible, from_tensor, from_type_proto, prefer_known};
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::ir::{Graph, Model, NodeKind, OpNode, ValueId, opset_domain};
use crate::proto::TypeProto;
use std::collections::{BTreeSet, HashMap, HashSet};

/// How deep model-local functions may call each other before inference stops following calls.
pub const MAX_CALL_DEPTH: usize = 32;

/// How many nodes of function bodies inference visits, over all calls of a model, before it stops
/// following calls (a replayed call counts one, plus its findings): seconds of work, far above what a
/// real model needs (each body once per distinct signature).
pub const MAX_FUNCTION_WORK: u64 = 10_000_000;

/// The result of inference over a model.
#[derive(Debug, Default)]
pub struct Inference {
    pub diagnostics: Vec<Diagnostic>,
    /// Every graph inferred in its own right (main graph and its subgraphs, uncalled functions), with
    /// what is known of each of its values.
    pub graphs: Vec<GraphShapes>,
    /// Ops met without a rule: (domain, op_type, opset version).
    pub missing_rules: BTreeSet<(String, String, i64)>,
    /// Conditions (W1, W2) that hold at every value of the ranges the run binds: not reported.
    pub proven: usize,
    /// What is known of the main graph's outputs, in order: their declared types merged with the
    /// inferred ones (the interface contract reads them where the model declares nothing).
    pub outputs: Vec<ValueInfo>,
    /// The errors found in a branch that may not run, each with the (innermost) If whose condition
    /// is not known: told apart under bindings ([`super::maybe_branch`]).
    maybe: HashMap<maybe_branch::Key, String>,
}

pub use super::kept::GraphShapes;

/// Infers every value of `model` and checks every broadcast.
pub fn infer(model: &Model) -> Inference {
    infer_with(model, true)
}

/// [`infer`]; with `keep` false, what is known of each value is dropped after its last reader and
/// [`Inference::graphs`] stays empty: the findings are the same.
pub fn infer_with(model: &Model, keep: bool) -> Inference {
    infer_keeping(
        model,
        if keep {
            Keep::TypesAndNames
        } else {
            Keep::Nothing
        },
    )
}

/// What inference keeps of every value in [`Inference::graphs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    /// Nothing: each value's type is dropped after its last reader.
    Nothing,
    /// The types, by value id; the names are left empty (see [`GraphShapes::unnamed`]).
    Types,
    /// The types and the values' names (the `shapes` listing).
    TypesAndNames,
}

/// [`infer`], keeping `keep` of each value; the findings are the same whatever it keeps.
pub fn infer_keeping(model: &Model, keep: Keep) -> Inference {
    infer_bound(model, keep, None)
}

/// [`infer_keeping`] with the model's input symbols bound to the values `dims` gives them (see
/// [`super::bindings`]); the caller has checked that the model has every name
/// ([`Bindings::check_names`]).
pub fn infer_bound(model: &Model, keep: Keep, dims: Option<&Bindings>) -> Inference {
    let dims = dims.filter(|b| !b.is_empty());
    let ranges = dims
        .filter(|b| b.has_ranges())
        .map(|b| Ranges::new(b.clone()));
    let out = infer_all(model, keep, dims, ranges.as_ref(), None);
    told_apart(model, dims, out)
}

/// `out`, inferred under `dims`, with the errors that only the bound sizes make in a branch that may
/// not run turned into warnings ([`maybe_branch`]): `check` and the sizes report judge them alike.
fn told_apart(model: &Model, dims: Option<&Bindings>, mut out: Inference) -> Inference {
    if dims.is_some() && !out.maybe.is_empty() {
        let unbound = infer_all(model, Keep::Nothing, None, None, None);
        maybe_branch::tell_apart(&mut out.diagnostics, &out.maybe, &unbound.diagnostics);
    }
    out
}

/// Infers `model` with its input symbols bound as `dims` gives them, but no range judged (a symbol
/// bound to a range, a positional name among them, is a symbol like any other), recording every
/// condition the rules decide in `conditions`: what the sizes report reads
/// ([`super::sizes`]). Each value's type is freed after its last reader.
pub fn infer_recording(model: &Model, dims: &Bindings, conditions: &Conditions) -> Inference {
    let dims = Some(dims).filter(|b| !b.is_empty());
    let out = infer_all(model, Keep::Nothing, dims, None, Some(conditions));
    told_apart(model, dims, out)
}

fn infer_all(
    model: &Model,
    keep: Keep,
    dims: Option<&Bindings>,
    ranges: Option<&Ranges>,
    conditions: Option<&Conditions>,
) -> Inference {
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, f) in model.functions.iter().enumerate() {
        by_name.entry(f.name()).or_default().push(i);
    }
    let mut d = Driver {
        keep,
        model,
        out: Inference::default(),
        calls: Vec::new(),
        recorded: HashMap::new(),
        bindings: HashSet::new(),
        by_name,
        memo: HashMap::new(),
        work: 0,
        limit: None,
        facts: Vec::new(),
        input_symbols: model.graph.as_ref().map(input_symbols).unwrap_or_default(),
        dims,
        ranges,
        conditions,
    };
    if let Some(g) = &model.graph {
        let imports = model.opset_imports(None);
        let env = Env::root();
        d.out.outputs = d.infer_graph(g, &imports, None, &env, None);
    }
    // Functions nobody calls are still checked, with their inputs unknown. (The set of calls is made
    // only for a model with functions: on the 1M-node model it cost 6% of `check`, bench/ab.py.)
    let called = if model.functions.is_empty() {
        HashSet::new()
    } else {
        called_functions(model)
    };
    for (i, f) in model.functions.iter().enumerate() {
        if !called.contains(&(f.domain(), f.name())) {
            let imports = model.opset_imports(Some(i));
            d.infer_graph(&f.body, &imports, None, &Env::root(), None);
        }
    }
    if let Some(limit) = d.limit.take() {
        d.out.diagnostics.push(limit.finding());
    }
    let missing = std::mem::take(&mut d.out.missing_rules);
    d.out.diagnostics.extend(missing_rule_findings(&missing));
    d.out.missing_rules = missing;
    d.out.proven = ranges.map_or(0, Ranges::proven);
    d.out
}

/// For each value of `g`, how many reads are still to come: its edges (input slots and subgraph
/// captures), and one more for a graph output, which is never freed.
fn readers_left(g: &Graph) -> Vec<u32> {
    use petgraph::visit::IntoEdgeReferences;
    let mut left = vec![0u32; g.values.len()];
    for e in g.dag.edge_references() {
        let v = e.weight().value.index();
        left[v] = left[v].saturating_add(1);
    }
    for o in &g.header.output {
        if let Some(id) = g.lookup(o.name()) {
            left[id.index()] = u32::MAX;
        }
    }
    left
}

/// What a rule sees of an input nothing is known of.
static UNKNOWN: ValueInfo = ValueInfo::unknown();

/// What inference knows of one value while its graph is inferred.
type Info = Option<Box<ValueInfo>>;

/// Values visible from enclosing graphs, innermost first.
struct Env<'e> {
    frame: Option<(&'e Graph, &'e [Info])>,
    parent: Option<&'e Env<'e>>,
}

impl<'e> Env<'e> {
    fn root() -> Self {
        Env {
            frame: None,
            parent: None,
        }
    }

    fn get(&self, name: &str) -> Option<ValueInfo> {
        if let Some((g, infos)) = self.frame
            && let Some(id) = g.lookup(name)
        {
            return infos[id.index()].as_deref().cloned();
        }
        self.parent?.get(name)
    }
}

/// Where findings of the graph being inferred are reported: there, or at a function call.
#[derive(Clone, Debug)]
struct CallSite {
    graph: String,
    node: String,
    op_type: String,
    function: String,
}

struct Driver<'m> {
    /// What to record of every graph's values in `out.graphs` (with [`Keep::Nothing`], each value
    /// is freed after its last reader).
    keep: Keep,
    model: &'m Model,
    out: Inference,
    /// Functions being inferred (indices in `model.functions`), outermost first (to stop recursion).
    calls: Vec<usize>,
    /// Index in `out.graphs` of each graph path recorded so far.
    recorded: HashMap<String, usize>,
    /// Symbols (or expressions, as text) bound to a size by a declared shape, reported once each.
    bindings: HashSet<(String, u64)>,
    /// The model's functions by name (indices, in model order), for the look-up at every node.
    by_name: HashMap<&'m str, Vec<usize>>,
    /// Calls inferred so far, by function, call attributes and a hash of the inputs' types.
    memo: HashMap<(usize, Vec<u8>, u64), Vec<Memo>>,
    /// Nodes of function bodies visited so far (see [`MAX_FUNCTION_WORK`]).
    work: u64,
    /// The first limit inference met, reported once (I003).
    limit: Option<Limit>,
    /// The conditions reported so far, which the nodes after may assume ([`super::facts`]).
    facts: Vec<Fact>,
    /// The symbols of the main graph's inputs: the sizes a user feeds. A declared size in other
    /// symbols is read as unknown (see [`Driver::merge_declared`]).
    input_symbols: HashSet<String>,
    /// The symbols the run binds (`--dim`): fixed ones are substituted in the main graph's inputs
    /// and in declared shapes; `None` when there are none.
    dims: Option<&'m Bindings>,
    /// The ranges among them, which the rules judge W1 and W2 over.
    ranges: Option<&'m Ranges>,
    /// Where the rules record the conditions they decide (the sizes report); `None` in a check.
    conditions: Option<&'m Conditions>,
}

/// One inferred call: its inputs, what it gave, and its findings as reported at `site`.
struct Memo {
    formal: Vec<ValueInfo>,
    outputs: Vec<ValueInfo>,
    findings: Vec<Diagnostic>,
    /// The conditions recorded in the call, as located at `site` (empty when none are recorded).
    conditions: Vec<Condition>,
    site: CallSite,
}

/// A limit inference met following function calls, and the call where it met it.
struct Limit {
    depth: bool,
    site: CallSite,
}

impl Limit {
    fn finding(&self) -> Diagnostic {
        let msg = if self.depth {
            format!(
                "function calls nest deeper than {MAX_CALL_DEPTH} (through function {}): inference does not follow calls past that depth",
                self.site.function
            )
        } else {
            format!(
                "inference visited {MAX_FUNCTION_WORK} nodes of function bodies (through function {}) and stopped following function calls",
                self.site.function
            )
        };
        let mut d = Diagnostic::new(Code::InferenceLimit, &self.site.graph, msg).note(
            "the outputs of the calls not followed are unknown: checks that need their shapes were not done",
        );
        d.node = Some(self.site.node.clone());
        d.op_type = Some(self.site.op_type.clone());
        d
    }
}

/// A finding of a memoized call, moved from the call site it was found at to `to`'s.
fn relocate(d: &Diagnostic, from: &CallSite, to: &CallSite) -> Diagnostic {
    let mut d = d.clone();
    let prefix = format!("in function {}: ", from.function);
    if let Some(rest) = d.message.strip_prefix(&prefix) {
        d.message = format!("in function {}: {rest}", to.function);
    }
    d.graph = to.graph.clone();
    d.node = Some(to.node.clone());
    d.op_type = Some(to.op_type.clone());
    d
}

impl<'m> Driver<'m> {
    /// Infers `g`; `formal` types its inputs (subgraph and function calls), else their declarations.
    /// Returns what is known of the graph's outputs, in order.
    fn infer_graph(
        &mut self,
        g: &Graph,
        imports: &crate::ir::Imports<'_>,
        formal: Option<&[ValueInfo]>,
        env: &Env<'_>,
        site: Option<&CallSite>,
    ) -> Vec<ValueInfo> {
        // All `None` (null pointers): the allocator hands out zeroed pages that are touched only
        // where a value is set, where an unboxed table of a million values was 64 MB written whole.
        let mut infos: Vec<Info> = vec![None; g.values.len()];
        self.seed_sources(g, formal, env, &mut infos);
        // Each value's type is freed after its last reader either way; when the types are kept, it
        // is first added to the graph's compact listing (which stores each distinct type once), so a
        // large graph is never held as one box per value.
        let mut readers = readers_left(g);
        let mut kept = match self.keep {
            Keep::Nothing => None,
            Keep::Types => Some(GraphShapes::unnamed(g.path.clone(), g.values.len())),
            Keep::TypesAndNames => Some(GraphShapes::new(
                g.path.clone(),
                g.values.iter().map(|v| v.name),
            )),
        };
        let graph_outputs: HashSet<ValueId> = g
            .header
            .output
            .iter()
            .filter_map(|o| g.lookup(o.name()))
            .collect();
        for (node, op) in g.ops_in_order() {
            if let Some(call) = site {
                self.work += 1;
                if self.work > MAX_FUNCTION_WORK {
                    // Past the budget: the rest of this body (and every later call) stays unknown.
                    self.limit.get_or_insert_with(|| Limit {
                        depth: false,
                        site: call.clone(),
                    });
                    break;
                }
            }
            let mut outputs = self
                .infer_node(g, op, imports, env, site, &infos)
                .into_iter();
            for value in g.output_ids(op) {
                let inferred = outputs.next();
                // None: omitted, or a duplicate definition (the first producer keeps the name).
                let Some(id) = *value else { continue };
                let v = g.value(id);
                let declared = g.declared_type(id);
                let output = declared.is_some() && graph_outputs.contains(&id);
                let merged = self.merge_declared(g, op, v.name, inferred, declared, output, site);
                infos[id.index()] = merged.map(Box::new);
            }
            for e in g.dag.edges_directed(node, petgraph::Direction::Incoming) {
                let v = e.weight().value.index();
                readers[v] = readers[v].saturating_sub(1);
                if readers[v] == 0 {
                    let info = infos[v].take();
                    if let Some(k) = &mut kept {
                        k.set(v, info.map(|b| *b));
                    }
                }
            }
        }
        let outputs = g
            .header
            .output
            .iter()
            .map(|o| {
                g.lookup(o.name())
                    .and_then(|id| infos[id.index()].as_deref().cloned())
                    .unwrap_or_else(ValueInfo::unknown)
            })
            .collect();
        if let Some(mut k) = kept {
            // What no reader freed: values read by nobody, graph outputs.
            for (v, info) in infos.into_iter().enumerate() {
                if let Some(info) = info {
                    k.set(v, Some(*info));
                }
            }
            self.record(k);
        }
        outputs
    }

    /// Keeps what is known of a graph's values. A graph inferred more than once (a function called
    /// from several places) keeps what all its inferences agree on.
    ///
    /// A function body's values keep only what holds in every call: a kind or element type the calls
    /// differ on is not kept (`annotate` writes the body's types into the function, for any call).
    fn record(&mut self, new: GraphShapes) {
        if let Some(&i) = self.recorded.get(&new.path) {
            let in_function = new.path.starts_with(crate::ir::FUNCTION_PATH);
            self.out.graphs[i].update(|old, v| match (old, new.info(v)) {
                (Some(a), Some(b)) if in_function && (a.kind != b.kind || a.elem != b.elem) => None,
                (Some(a), Some(b)) => Some(super::ops::control_flow::join(a, b)),
                _ => None,
            });
            return;
        }
        self.recorded
            .insert(new.path.clone(), self.out.graphs.len());
        self.out.graphs.push(new);
    }

    /// A call of function `index` not followed: nothing is known of its body's values in that call,
    /// so nothing is kept of them as true of every call.
    fn forget_body(&mut self, index: usize) {
        if self.keep == Keep::Nothing {
            return;
        }
        let mut graphs = Vec::new();
        self.model.functions[index]
            .body
            .walk(&mut |x| graphs.push(GraphShapes::unnamed(x.path.clone(), x.values.len())));
        for g in graphs {
            self.record(g);
        }
    }

    fn seed_sources(
        &self,
        g: &Graph,
        formal: Option<&[ValueInfo]>,
        env: &Env<'_>,
        infos: &mut [Info],
    ) {
        let defaults: HashMap<&str, &crate::proto::TensorProto> = if g.header.input.is_empty() {
            HashMap::new()
        } else {
            g.header.initializer.iter().map(|t| (t.name(), t)).collect()
        };
        for (i, v) in g.values.iter().enumerate() {
            let info = match &g.dag[v.producer.0].kind {
                NodeKind::Input(k) => {
                    let proto = g.declared_type(ValueId::new(i));
                    let mut declared = proto.map(from_type_proto);
                    if formal.is_none()
                        && let (Some(p), Some(d)) = (proto, declared.as_mut())
                    {
                        name_anonymous_dims(v.name, p, d);
                        // The deployment's sizes apply to the model's own inputs only.
                        if let Some(b) = self.dims
                            && self
                                .model
                                .graph
                                .as_ref()
                                .is_some_and(|m| std::ptr::eq(m, g))
                        {
                            b.bind_input(v.name, d);
                        }
                    }
                    let given = formal.and_then(|f| f.get(*k as usize)).cloned();
                    if given.is_some() {
                        prefer_known(given, declared)
                    } else {
                        // An input with an initializer of its name (all inputs, in models before IR 4)
                        // holds the initializer unless fed: keep its shape and values when they agree
                        // with the declaration.
                        let init = defaults.get(v.name).map(|t| from_tensor(t));
                        match (init, declared) {
                            (Some(i), Some(d)) if compatible(&i, &d) => Some(i),
                            (i, d) => d.or(i),
                        }
                    }
                }
                NodeKind::Initializer(k) => g.header.initializer.get(*k as usize).map(from_tensor),
                NodeKind::SparseInitializer(k) => {
                    g.header.sparse_initializer.get(*k as usize).map(|s| {
                        let mut v = ValueInfo::tensor(
                            s.values.as_ref().map(|t| t.data_type()),
                            Some(
                                s.dims
                                    .iter()
                                    .map(|&d| Dim::Known(d.max(0) as u64))
                                    .collect(),
                            ),
                        );
                        v.kind = super::value::Kind::Tensor;
                        v
                    })
                }
                NodeKind::Outer => env.get(v.name),
                NodeKind::Op(_) => continue,
            };
            infos[i] = info.map(Box::new);
        }
    }

    fn infer_node(
        &mut self,
        g: &Graph,
        op: &OpNode,
        imports: &crate::ir::Imports<'_>,
        env: &Env<'_>,
        site: Option<&CallSite>,
        infos: &[Info],
    ) -> Vec<ValueInfo> {
        // Borrowed, not cloned: a rule reads its inputs' shapes, and most make new ones. Inline: one
        // allocation less per node, of the seven inference made per node of a million-node graph.
        let inputs: smallvec::SmallVec<[Option<&ValueInfo>; 4]> = g
            .input_ids(op)
            .iter()
            .enumerate()
            .map(|(slot, value)| match value {
                Some(id) => Some(infos[id.index()].as_deref().unwrap_or(&UNKNOWN)),
                // Omitted, or a name defined nowhere (reported by the structural checks).
                None if g.input_name(op, slot).is_empty() => None,
                None => Some(&UNKNOWN),
            })
            .collect();
        let domain = opset_domain(op.domain());
        let label = op.label();
        if let Some(index) = self.function(op) {
            return self.infer_call(g, op, &label, index, &inputs, site);
        }
        let Some(&opset) = imports.get(domain) else {
            return Vec::new(); // the domain check reports it
        };
        let Some(rule) = registry().lookup(domain, op.op_type(), opset) else {
            self.out
                .missing_rules
                .insert((domain.to_owned(), op.op_type().to_owned(), opset));
            return Vec::new();
        };
        let frame = Env {
            frame: Some((g, infos)),
            parent: Some(env),
        };
        let mut sub_findings: Vec<Diagnostic> = Vec::new();
        // Moved out for the rule, since the subgraph closure holds the driver; what a subgraph's
        // nodes learn is dropped with what they leave in `self.facts`.
        let facts = Facts::new(std::mem::take(&mut self.facts));
        let conditions = self.conditions;
        let mark = conditions.map_or(0, Conditions::len);
        let (outputs, findings) = {
            let ranges = self.ranges;
            let this = &mut *self;
            let mut subgraph = |name: &str, formal: &[ValueInfo], reach: Reach| {
                let sub = op.subgraphs().iter().find(|s| {
                    op.attributes()
                        .get(s.attribute)
                        .is_some_and(|a| a.name() == name)
                })?;
                let before = this.out.diagnostics.len();
                let recorded = conditions.map_or(0, Conditions::len);
                let outputs = this.infer_graph(&sub.graph, imports, Some(formal), &frame, site);
                let found = this.out.diagnostics.drain(before..);
                match reach {
                    Reach::Runs => sub_findings.extend(found),
                    Reach::Maybe => {
                        for d in found {
                            // An inner If's branch was marked first: it names the If closest.
                            if let Some(k) = maybe_branch::key(&d) {
                                this.out.maybe.entry(k).or_insert_with(|| label.to_string());
                            }
                            sub_findings.push(d);
                        }
                    }
                    Reach::Never => {
                        drop(found);
                        if let Some(c) = conditions {
                            c.truncate(recorded);
                        }
                    }
                }
                Some(outputs)
            };
            let mut ctx = NodeCtx {
                node: NodeRef::Ir(g, op),
                label: &label,
                opset,
                inputs: &inputs,
                findings: Vec::new(),
                facts: &facts,
                ranges,
                conditions,
                subgraph: &mut subgraph,
            };
            let outputs = rule(&mut ctx);
            (outputs, ctx.findings)
        };
        self.facts = facts.into_inner();
        if let Some(c) = conditions {
            // Where a finding is ([`locate`]): at the node, or at the call, inside a function body.
            c.locate_since(mark, |c| match site {
                None => c.at(&g.path, &label, op.op_type(), None),
                Some(s) => c.at(&s.graph, &s.node, &s.op_type, Some(&label)),
            });
        }
        // One root cause, one finding: past a broken contract the runtime makes no output at all, so
        // nothing downstream is checked against a shape the rule made up.
        let outputs = if findings.iter().any(super::contract::breaks_node) {
            outputs.into_iter().map(ValueInfo::shapeless).collect()
        } else {
            outputs
        };
        self.out.diagnostics.extend(sub_findings);
        for d in findings {
            // A binding is reported once per model, wherever it recurs.
            if let Some(b) = &d.binding
                && !self.bindings.insert(b.clone())
            {
                continue;
            }
            let d = locate(d, &g.path, &label, op.op_type(), site);
            self.out.diagnostics.push(d);
        }
        outputs
    }

    /// The model-local function `op` calls, if any: the first of its name, domain and overload.
    fn function(&self, op: &OpNode) -> Option<usize> {
        let candidates = self.by_name.get(op.op_type())?;
        candidates.iter().copied().find(|&i| {
            let f = &self.model.functions[i];
            crate::text::same(f.domain(), op.domain())
                && crate::text::same(f.header.overload(), op.overload())
        })
    }

    fn infer_call(
        &mut self,
        g: &Graph,
        op: &OpNode,
        label: &str,
        index: usize,
        inputs: &[Option<&ValueInfo>],
        site: Option<&CallSite>,
    ) -> Vec<ValueInfo> {
        let model = self.model;
        let f = &model.functions[index];
        if self.calls.contains(&index) {
            self.forget_body(index);
            return Vec::new(); // recursion: the structural check reports it; shapes stay unknown
        }
        let call = site.cloned().unwrap_or_else(|| CallSite {
            graph: g.path.clone(),
            node: label.to_owned(),
            op_type: op.op_type().to_owned(),
            function: format!("{}.{}", f.domain(), f.name()),
        });
        if self.calls.len() >= MAX_CALL_DEPTH {
            self.limit.get_or_insert(Limit {
                depth: true,
                site: call,
            });
            self.forget_body(index);
            return Vec::new();
        }
        if self.work > MAX_FUNCTION_WORK {
            self.forget_body(index);
            return Vec::new(); // the budget is spent (reported once)
        }
        let formal: Vec<ValueInfo> = (0..f.header.input.len())
            .map(|k| {
                inputs
                    .get(k)
                    .copied()
                    .flatten()
                    .cloned()
                    .unwrap_or_else(ValueInfo::unknown)
            })
            .collect();
        // The call's attributes matter to the body only through `ref_attr_name`; keyed whole, as
        // they are few, and most calls have none.
        let attributes: Vec<u8> = op
            .attributes()
            .iter()
            .flat_map(|a| {
                use prost::Message;
                a.encode_length_delimited_to_vec()
            })
            .collect();
        let key = (index, attributes, signature_hash(&formal));
        if let Some(m) = self
            .memo
            .get(&key)
            .and_then(|ms| ms.iter().find(|m| m.formal == formal))
        {
            self.work += 1 + m.findings.len() as u64;
            let replayed: Vec<Diagnostic> = m
                .findings
                .iter()
                // A binding is reported once per model: the first call reported it.
                .filter(|d| d.binding.is_none() && d.code != Code::SymbolBinding)
                .map(|d| relocate(d, &m.site, &call))
                .collect();
            let outputs = m.outputs.clone();
            self.out.diagnostics.extend(replayed);
            if let Some(c) = self.conditions {
                c.extend(m.conditions.iter().cloned().map(|mut c| {
                    let inner = c.inner_node.take();
                    c.at(&call.graph, &call.node, &call.op_type, inner.as_deref());
                    c
                }));
            }
            return outputs;
        }
        let imports = model.opset_imports(Some(index));
        self.calls.push(index);
        let body = with_call_attributes(f, op);
        let graph = body.as_ref().unwrap_or(&f.body);
        let before = self.out.diagnostics.len();
        let recorded = self.conditions.map_or(0, Conditions::len);
        let outputs = self.infer_graph(graph, &imports, Some(&formal), &Env::root(), Some(&call));
        self.calls.pop();
        self.memo.entry(key).or_default().push(Memo {
            formal,
            outputs: outputs.clone(),
            findings: self.out.diagnostics[before..].to_vec(),
            conditions: self.conditions.map_or_else(Vec::new, |c| c.since(recorded)),
            site: call,
        });
        outputs
    }

    /// Combines an inferred type with the declared one: unknown parts are taken from the declaration;
    /// a known size that contradicts it is reported. Where one side has a symbol (or expression) and the
    /// other a number, the number is kept (sizes downstream are then known) and the binding reported
    /// once per model as an info finding (I002) — unless the expression cannot take that value
    /// (`seq*12` declared as 100, `seq+2` as 1), which is a contradiction like two unequal sizes.
    /// A graph output (`output`) keeps its symbol: onnxruntime computes the output's size and only
    /// warns where the declaration differs (a converter's `label: [1]` is 17 rows at batch 17), so
    /// the declaration is a T004 that holds for one value of the symbol, not a fact of the model.
    #[allow(clippy::too_many_arguments)]
    fn merge_declared(
        &mut self,
        g: &Graph,
        op: &OpNode,
        name: &str,
        inferred: Option<ValueInfo>,
        declared: Option<&TypeProto>,
        output: bool,
        site: Option<&CallSite>,
    ) -> Option<ValueInfo> {
        let proto = declared;
        let mut declared = declared.map(from_type_proto);
        if let (Some(b), Some(d)) = (self.dims, declared.as_mut()) {
            b.bind_declared(d);
        }
        let declared = declared.map(|d| self.in_input_symbols(d));
        let (mut inf, dec) = match (inferred, declared) {
            (Some(i), Some(d)) => (i, d),
            (i, d) => return i.or(d),
        };
        if inf.elem.is_none() {
            inf.elem = dec.elem;
        }
        match (&mut inf.shape, &dec.shape) {
            (None, s) => inf.shape = s.clone(),
            (Some(a), Some(b)) if a.len() != b.len() => {
                let msg = format!(
                    "value '{name}' is declared with rank {} but inferred as {}",
                    b.len(),
                    super::dim::format_shape(&Some(a.clone()))
                );
                self.report_declared(g, op, msg, site);
            }
            (Some(a), Some(b)) => {
                let mut conflict = None;
                let mut bound = Vec::new();
                let mut narrower = Vec::new();
                for (i, (x, y)) in a.iter_mut().zip(b).enumerate() {
                    match (&*x, y) {
                        (Dim::Known(p), Dim::Known(q)) if p != q => {
                            conflict = Some((i, p.to_string(), *q));
                        }
                        (Dim::Unknown, _) => *x = y.clone(),
                        (Dim::Sym(s), Dim::Known(q)) if !s.can_equal(*q) => {
                            conflict = Some((i, s.to_string(), *q));
                        }
                        (Dim::Sym(s), Dim::Known(q)) if output => {
                            narrower.push((i, s.to_string(), *q));
                        }
                        (Dim::Sym(s), Dim::Known(q)) => {
                            bound.push(Binding::Declared(s.clone(), *q));
                            *x = y.clone();
                        }
                        (Dim::Known(p), Dim::Sym(s)) => {
                            let text = proto.and_then(|t| declared_text(t, i));
                            bound.push(Binding::Inferred(s.clone(), *p, text))
                        }
                        _ => {}
                    }
                }
                if let Some((i, p, q)) = conflict {
                    let msg = format!(
                        "value '{name}' is declared with size {q} on axis {i}, but inference gives {p}"
                    );
                    self.report_declared(g, op, msg, site);
                }
                for b in bound {
                    self.report_binding(g, op, name, b, site);
                }
                for (i, s, q) in narrower {
                    let msg = format!(
                        "graph output '{name}' is declared with size {q} on axis {i}, but inference \
                         gives {s}: the declaration holds only where {s} = {q} (onnxruntime computes \
                         {s} and warns at run time)"
                    );
                    self.report_declared(g, op, msg, site);
                }
            }
            _ => {}
        }
        Some(inf)
    }

    /// Reports a symbol bound to a size, the first time that symbol meets that size in the model.
    fn report_binding(
        &mut self,
        g: &Graph,
        op: &OpNode,
        name: &str,
        binding: Binding,
        site: Option<&CallSite>,
    ) {
        let (sym, size) = match &binding {
            Binding::Declared(s, n) | Binding::Inferred(s, n, _) => (s.to_string(), *n),
        };
        if !self.bindings.insert((sym.clone(), size)) {
            return;
        }
        let label = op.label().into_owned();
        let msg = match binding {
            Binding::Declared(..) => format!(
                "symbol {sym} is bound to {size} by the declared shape of value '{name}' (node '{label}')"
            ),
            Binding::Inferred(_, _, text) => {
                // The exporter's own spelling beside ours where they differ (`((h - 1)//2) + 1`
                // is read as `floor((h - 1)/2) + 1`), so the user finds the name in the file.
                let spelled = match text {
                    Some(t) if t != sym => format!(" (declared as '{t}')"),
                    _ => String::new(),
                };
                format!(
                    "symbol {sym}{spelled} of the declared shape of value '{name}' is bound to {size} by inference (node '{label}')"
                )
            }
        };
        let d = Diagnostic::new(Code::SymbolBinding, "", msg)
            .note(format!("inference continues with {size} for this value"));
        let d = locate(d, &g.path, &label, op.op_type(), site);
        self.out.diagnostics.push(d);
    }

    /// A declared type with its sizes in symbols no graph input has read as unknown. Such a name
    /// (an exporter's `unk__3`, a symbol of an input since fixed to a number, onnxslim's
    /// `floor(...)` text over one) is no size a user feeds: a condition on it would name values
    /// nobody can set, and after a broken node it would bring back the sizes the break leaves unknown.
    /// A name that spells an input's symbol in text the parser does not read as an expression
    /// (`((32*Min(64, sequence))//sequence)`) stays: it is a size of what the user feeds.
    fn in_input_symbols(&self, mut info: ValueInfo) -> ValueInfo {
        if let Some(dims) = info.shape.as_mut() {
            for d in dims {
                if let Dim::Sym(e) = d
                    && !in_symbols(e, &self.input_symbols)
                {
                    *d = Dim::Unknown;
                }
            }
        }
        info
    }

    fn report_declared(&mut self, g: &Graph, op: &OpNode, msg: String, site: Option<&CallSite>) {
        let label = op.label().into_owned();
        let d = Diagnostic::new(Code::DeclaredShape, "", msg);
        let d = locate(d, &g.path, &label, op.op_type(), site);
        self.out.diagnostics.push(d);
    }
}

/// A symbolic size met with a number when merging a declared shape: the declaration gives the number
/// (`Declared`) or the symbol (`Inferred`: inference knows the number).
enum Binding {
    Declared(SymExpr, u64),
    Inferred(SymExpr, u64, Option<String>),
}

/// The `dim_param` text a declared type gives axis `axis`, as the file spells it.
fn declared_text(t: &TypeProto, axis: usize) -> Option<String> {
    use crate::proto::tensor_shape_proto::dimension::Value as DimValue;
    use crate::proto::type_proto::Value as V;
    let Some(V::TensorType(t)) = &t.value else {
        return None;
    };
    match &t.shape.as_ref()?.dim.get(axis)?.value {
        Some(DimValue::DimParam(p)) => Some(p.clone()),
        _ => None,
    }
}

/// Fills in where a finding is: at the node, or at the call when inferring a function body.
fn locate(
    mut d: Diagnostic,
    graph: &str,
    label: &str,
    op_type: &str,
    site: Option<&CallSite>,
) -> Diagnostic {
    match site {
        None => {
            d.graph = graph.to_owned();
            d.node = Some(label.to_owned());
            d.op_type = Some(op_type.to_owned());
        }
        Some(c) => {
            d.message = format!("in function {}: {}", c.function, d.message);
            d.graph = c.graph.clone();
            d.node = Some(c.node.clone());
            d.op_type = Some(c.op_type.clone());
            d.inner_node = Some(label.to_owned());
        }
    }
    if d.severity == Severity::Info {
        d.severity = d.code.severity();
    }
    d
}
