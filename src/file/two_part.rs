//! Writing a large edit in two parts at once. When one list edit (a graph's nodes) holds most of an
//! output's work, it is split at an occurrence that halves that work: another thread measures the
//! occurrences after the split while the splicer measures the rest, and the output is then made by
//! two threads, each writing its part of the file at its own offset (the splicer's
//! `Spliced::copy_to_in_two`, which calls on this module to measure).
//!
//! Both parts walk the same records as a whole write would, one of them only counting the bytes of
//! the other's, so the output is the same bytes; the parts' lengths are checked against the measure.

use super::edit::{Action, Edit, MeasureSplit, Split, measure, measure_tail};
use super::encoding::{WireError, records};
use std::ops::Range;

/// Below this much work (records inserted and sub-records changed) a list is written in one part:
/// a second thread would cost more than it saves.
const SPLIT_ABOVE: usize = 1 << 16;

/// The length of `src[range]` with `edit` applied, with the new payload length of every edited
/// sub-message pushed on `lens` (see [`measure`]), and where the output is split, if it is.
pub(super) fn measure_split<'e>(
    src: &[u8],
    range: Range<usize>,
    edit: &'e Edit,
    lens: &mut Vec<u64>,
) -> Result<(u64, Option<Split<'e>>), WireError> {
    measure_split_at(src, range, edit, lens, choose(edit))
}

/// [`measure_split`], split at `chosen` (the edit whose list is split, and the occurrence) if given.
pub(super) fn measure_split_at<'e>(
    src: &[u8],
    range: Range<usize>,
    edit: &'e Edit,
    lens: &mut Vec<u64>,
    chosen: Option<(&'e Edit, usize)>,
) -> Result<(u64, Option<Split<'e>>), WireError> {
    let Some((owner, at, payload)) = chosen.and_then(|(owner, at)| {
        let payload = locate(src, range.clone(), edit, owner)?;
        Some((owner, at, payload))
    }) else {
        return Ok((measure(src, range, edit, lens, None)?, None));
    };
    std::thread::scope(|s| {
        let payload_copy = payload.clone();
        let thread = std::thread::Builder::new()
            .name("measure".to_owned())
            .spawn_scoped(s, move || measure_tail(src, payload_copy, owner, at));
        let tail: Box<dyn FnOnce() -> Result<u64, WireError>> = match thread {
            Ok(t) => Box::new(move || t.join().unwrap_or_else(|p| std::panic::resume_unwind(p))),
            // No thread to be had: the tail is measured here when the walk reaches it.
            Err(_) => Box::new(move || measure_tail(src, payload, owner, at)),
        };
        let mut split = MeasureSplit {
            owner,
            at,
            head: 0,
            tail: Some(tail),
        };
        let len = measure(src, range, edit, lens, Some(&mut split))?;
        Ok((
            len,
            Some(Split {
                owner,
                at,
                head: split.head,
            }),
        ))
    })
}

/// The edit whose list holds the most work, if that is enough to split, and the occurrence that
/// halves it.
fn choose(edit: &Edit) -> Option<(&Edit, usize)> {
    fn visit<'e>(edit: &'e Edit, best: &mut Option<(&'e Edit, usize)>) {
        if let Some(list) = edit.list.as_deref()
            && best.is_none_or(|(_, w)| list.work() > w)
        {
            *best = Some((edit, list.work()));
        }
        for (_, re) in edit.records() {
            if let Action::Edit(child) = &re.action {
                visit(child, best);
            }
        }
    }
    let mut best = None;
    visit(edit, &mut best);
    let (owner, work) = best?;
    let list = owner.list.as_deref()?;
    (work >= SPLIT_ABOVE).then(|| (owner, list.middle()))
}

/// The payload of the message `owner` edits, within the message `src[range]` that `edit` edits.
fn locate(src: &[u8], range: Range<usize>, edit: &Edit, owner: &Edit) -> Option<Range<usize>> {
    if std::ptr::eq(edit, owner) {
        return Some(range);
    }
    // The (field, occurrence) of the child holding `owner`, then that record's payload.
    let (key, child) = edit
        .records()
        .iter()
        .find_map(|(key, re)| match &re.action {
            Action::Edit(child) if holds(child, owner) => Some((*key, child)),
            _ => None,
        })?;
    let mut seen = 0usize;
    for rec in records(src, range) {
        let rec = rec.ok()?;
        if rec.field != key.0 {
            continue;
        }
        if seen == key.1 {
            return locate(src, rec.payload, child, owner);
        }
        seen += 1;
    }
    None
}

/// True when `owner` is `edit` or one of the edits nested in it.
fn holds(edit: &Edit, owner: &Edit) -> bool {
    std::ptr::eq(edit, owner)
        || edit.records().iter().any(|(_, re)| match &re.action {
            Action::Edit(child) => holds(child, owner),
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use super::super::atomic::write_atomic_durable;
    use super::super::encoding::{digits, field_len, put_u32};
    use super::super::list_edit::ListEdit;
    use super::super::made::{MadeRecord, Words};
    use super::super::node_record::{NewNode, NodeRecord, Text, node_record_len};
    use super::super::wire::{Edit, Spliced, splice_at, write_len_record};
    use crate::proto::{GraphProto, ModelProto, NodeProto, TensorProto};
    use prost::Message;

    const NODES: usize = 40;

    /// A record made for the tests: an `Identity` reading input `slot` of the node it is inserted
    /// before (and the text queued with it, if any), named and writing `<label>/tee<slot>_<k>`
    /// (`<label>`: the node's name, or `#<position>`), the node's input `slot` rewired to it; and
    /// when `twice`, a second `Identity` reading the first (named as it, with `x` after). With
    /// `known`, the lengths of the node's name and of its input `slot`, as a pass knows them.
    #[derive(Clone, Copy)]
    struct Tee {
        slot: u32,
        k: u32,
        twice: bool,
        known: Option<(u32, u32)>,
    }

    fn label_len(name: usize, at: u32) -> usize {
        if name == 0 { 1 + digits(at) } else { name }
    }

    fn tee_len(label: usize, slot: u32, k: u32) -> usize {
        label + "/tee".len() + digits(slot) + 1 + digits(k)
    }

    fn put_tee(node: &NodeRecord<'_>, slot: u32, k: u32, out: &mut Vec<u8>) {
        if node.name().is_empty() {
            out.push(b'#');
            put_u32(out, node.at());
        } else {
            out.extend_from_slice(node.name());
        }
        out.extend_from_slice(b"/tee");
        put_u32(out, slot);
        out.push(b'_');
        put_u32(out, k);
    }

    impl MadeRecord for Tee {
        fn to_words(&self) -> Words {
            let (name, input) = self.known.unwrap_or_default();
            let known = u32::from(self.known.is_some());
            [
                self.slot,
                self.k,
                u32::from(self.twice),
                known,
                name,
                input,
                0,
            ]
        }

        fn from_words(w: &Words) -> Self {
            Tee {
                slot: w[0],
                k: w[1],
                twice: w[2] != 0,
                known: (w[3] != 0).then_some((w[4], w[5])),
            }
        }

        fn records(&self) -> usize {
            1 + usize::from(self.twice)
        }

        fn rewires(&self) -> Option<(u32, u32, u32)> {
            Some((1, self.slot, self.k))
        }

        fn len(&self, node: &NodeRecord<'_>, field: u32, text: &[u8]) -> usize {
            let mut out = Vec::new();
            self.write(node, field, text, &mut out);
            out.len()
        }

        fn write(&self, node: &NodeRecord<'_>, field: u32, text: &[u8], out: &mut Vec<u8>) {
            let mut name = Vec::new();
            put_tee(node, self.slot, self.k, &mut name);
            let mut inputs = vec![Text::Bytes(node.input(self.slot))];
            if !text.is_empty() {
                inputs.push(Text::Bytes(text));
            }
            let tee = |inputs: &[Text<'_>], name: &[u8], out: &mut Vec<u8>| {
                NewNode {
                    inputs,
                    outputs: &[Text::Bytes(name)],
                    name: Text::Bytes(name),
                    op_type: b"Identity",
                    attributes: &[],
                }
                .put_record(field, out);
            };
            tee(&inputs, &name, out);
            if self.twice {
                let second = [name.as_slice(), b"x"].concat();
                tee(&[Text::Bytes(&name)], &second, out);
            }
        }

        fn known_len(&self, at: u32, field: u32, text: usize) -> Option<usize> {
            let (name, input) = self.known?;
            let tee = tee_len(label_len(name as usize, at), self.slot, self.k);
            let inputs = if text > 0 {
                vec![input as usize, text]
            } else {
                vec![input as usize]
            };
            let node = |inputs: &[usize], name: usize| {
                let strings: usize = inputs.iter().map(|&n| field_len(n)).sum();
                let payload = strings + 2 * field_len(name) + field_len("Identity".len());
                node_record_len(field, payload)
            };
            let second = if self.twice { node(&[tee], tee + 1) } else { 0 };
            Some(node(&inputs, tee) + second)
        }

        fn known_rewire(&self, at: u32, slot: u32, k: u32) -> Option<(usize, usize)> {
            let (name, input) = self.known?;
            let tee = tee_len(label_len(name as usize, at), slot, k);
            Some((field_len(input as usize), field_len(tee)))
        }

        fn rewired_len(node: &NodeRecord<'_>, _field: u32, slot: u32, k: u32) -> usize {
            tee_len(label_len(node.name().len(), node.at()), slot, k)
        }

        fn put_rewired(node: &NodeRecord<'_>, _field: u32, slot: u32, k: u32, out: &mut Vec<u8>) {
            put_tee(node, slot, k, out);
        }
    }

    fn model() -> Vec<u8> {
        // Nodes 5 (changed) and 10 (left as it is) are records over `SPAN_ABOVE`, written as
        // spans of the source.
        let node = |i: usize| NodeProto {
            op_type: Some("Add".into()),
            name: Some(format!("n{i}")),
            input: vec![format!("a{i}"), format!("b{i}")],
            output: vec![format!("c{i}")],
            doc_string: [5, 10].contains(&i).then(|| "d".repeat(70_000)),
            ..Default::default()
        };
        let model = ModelProto {
            ir_version: Some(9),
            graph: Some(GraphProto {
                node: (0..NODES).map(node).collect(),
                name: Some("g".into()),
                initializer: vec![TensorProto {
                    name: Some("w".into()),
                    raw_data: Some(vec![3u8; 100].into()),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            producer_name: Some("test".into()),
            ..Default::default()
        };
        model.encode_to_vec()
    }

    /// An edit of every kind the node list knows: records inserted, made records (one and two
    /// nodes, with text and without), a rewire, a dropped input, removals, and a node edited as a record (a spilled
    /// one), some of them on the same node.
    fn edit() -> Edit {
        edit_in_parts(&[&|_| true])
    }

    /// The list's part of [`edit`] for the occurrences `keep` says, in `list`.
    fn queue(list: &mut ListEdit, keep: &dyn Fn(usize) -> bool) {
        let extra = NodeProto {
            op_type: Some("Identity".into()),
            input: vec!["x".into()],
            output: vec!["y".into()],
            ..Default::default()
        }
        .encode_to_vec();
        for at in [0, 3, 3, 17, 39].into_iter().filter(|&a| keep(a)) {
            list.queue_record(at, extra.len()).extend_from_slice(&extra);
        }
        let tee = |slot, twice| Tee {
            slot,
            k: 0,
            twice,
            known: None,
        };
        for at in [1, 5, 6, 20, 21, 38].into_iter().filter(|&a| keep(a)) {
            list.queue_made(at, tee(1, true), b"");
        }
        for at in [2, 9, 30].into_iter().filter(|&a| keep(a)) {
            list.queue_made(at, tee(0, false), b"shape_const");
        }
        if keep(4) {
            list.replace(4, 1, 0, b"renamed");
        }
        if keep(7) {
            list.drop_sub(7, 1, 1);
        }
        for at in [8, 17, 25, 39].into_iter().filter(|&a| keep(a)) {
            list.remove(at);
        }
    }

    /// [`edit`], its list made of one edit per `parts` (each queuing the occurrences it keeps),
    /// appended to the first in order.
    fn edit_in_parts(parts: &[&dyn Fn(usize) -> bool]) -> Edit {
        let mut list = ListEdit::new(1);
        for (i, keep) in parts.iter().enumerate() {
            if i == 0 {
                queue(&mut list, keep);
            } else {
                let mut other = ListEdit::new(1);
                queue(&mut other, keep);
                list.append(other);
            }
        }
        let mut edit = Edit::default();
        let graph = edit.child(7, 0);
        // Node 12 holds an edit of its own: the list leaves it to the record edit.
        let mut input = Vec::new();
        write_len_record(&mut input, 1, b"spilled");
        graph.child(1, 12).at(1, 0).action = super::Action::Replace(input);
        graph.set_list(list);
        edit
    }

    #[test]
    fn an_edit_taken_in_parts_writes_what_one_edit_writes() {
        let src = model();
        let one_edit = edit();
        let whole = splice_at(&src, 0..src.len(), &one_edit, None).expect("splice");
        let expected = whole.to_vec(&src);
        // Parts of later occurrences (kept as parts), and parts that interleave (put together).
        let ordered: [&dyn Fn(usize) -> bool; 3] =
            [&|a| a < 6, &|a| (6..21).contains(&a), &|a| a >= 21];
        let interleaved: [&dyn Fn(usize) -> bool; 2] = [&|a| a % 2 == 0, &|a| a % 2 == 1];
        let empty_first: [&dyn Fn(usize) -> bool; 2] = [&|_| false, &|_| true];
        for (name, parts) in [
            ("ordered", &ordered[..]),
            ("interleaved", &interleaved[..]),
            ("empty first", &empty_first[..]),
        ] {
            let edit = edit_in_parts(parts);
            for at in 0..NODES + 2 {
                let split = splice_at(&src, 0..src.len(), &edit, Some((graph_edit(&edit), at)))
                    .expect("splice");
                assert_eq!(split.len, whole.len, "{name}, split at {at}");
                assert!(
                    written(&split, &src, false) == expected,
                    "{name}, split at {at}"
                );
            }
            let one = splice_at(&src, 0..src.len(), &edit, None).expect("splice");
            assert_eq!(one.to_vec(&src), expected, "{name}");
        }
    }

    fn graph_edit(edit: &Edit) -> &Edit {
        match edit.get(7, 0).map(|r| &r.action) {
            Some(super::Action::Edit(g)) => g,
            _ => panic!("the test's edit has a graph edit"),
        }
    }

    /// Writes `out` to a file as `write_model` does, in two parts when it was split.
    fn written(out: &Spliced<'_>, src: &[u8], durable: bool) -> Vec<u8> {
        let mut input = tempfile::tempfile().expect("temp");
        std::io::Write::write_all(&mut input, src).expect("write");
        let dir = tempfile::tempdir().expect("dir");
        let dest = dir.path().join("out.onnx");
        write_atomic_durable(&dest, durable, |w, filling| {
            out.copy_to_in_two(&input, src, w, filling)
        })
        .expect("written");
        std::fs::read(&dest).expect("read back")
    }

    #[test]
    fn an_output_written_in_two_parts_is_the_output_written_in_one() {
        let src = model();
        let edit = edit();
        let whole = splice_at(&src, 0..src.len(), &edit, None).expect("splice");
        let expected = whole.to_vec(&src);
        assert_eq!(expected.len() as u64, whole.len);
        ModelProto::decode(expected.as_slice()).expect("the edit makes a model");
        assert_eq!(written(&whole, &src, false), expected);
        // Every split point, past the last node too (the split is then at the end of the graph).
        for at in 0..NODES + 2 {
            let split = splice_at(&src, 0..src.len(), &edit, Some((graph_edit(&edit), at)))
                .expect("splice");
            assert_eq!(split.len, whole.len, "at {at}");
            for durable in [false, true] {
                assert!(
                    written(&split, &src, durable) == expected,
                    "split at {at}, durable {durable}"
                );
            }
            // Written in one part, a split output is the same too.
            assert_eq!(split.to_vec(&src), expected, "at {at}");
        }
    }

    /// Made records for every node, of slot 1 twice or of slot 0 with text, with the lengths of
    /// the node's name and input given when `known` (as a pass gives them), and the name's
    /// changed by `wrong` bytes.
    fn made(known: bool, wrong: u32) -> Edit {
        let mut list = ListEdit::new(1);
        for at in 0..NODES {
            let n = format!("{at}").len() as u32;
            let with_text = at % 3 == 0;
            let tee = Tee {
                slot: if with_text { 0 } else { 1 },
                k: (at % 5) as u32 * 7,
                twice: !with_text,
                known: known.then_some((1 + n + wrong, 1 + n)),
            };
            let text: &[u8] = if with_text { b"shape_const" } else { b"" };
            list.queue_made(at, tee, text);
        }
        let mut edit = Edit::default();
        edit.child(7, 0).set_list(list);
        edit
    }

    #[test]
    fn a_measure_from_known_lengths_is_the_measure_from_the_records() {
        let src = model();
        let (read, known) = (made(false, 0), made(true, 0));
        let expected = splice_at(&src, 0..src.len(), &read, None).expect("splice");
        let bytes = expected.to_vec(&src);
        assert_eq!(expected.len, bytes.len() as u64);
        for at in [None, Some(0), Some(NODES / 2)] {
            let chosen = at.map(|at| (graph_edit(&known), at));
            let out = splice_at(&src, 0..src.len(), &known, chosen).expect("splice");
            assert_eq!(out.len, expected.len, "split at {at:?}");
            assert!(written(&out, &src, false) == bytes, "split at {at:?}");
        }
    }

    #[test]
    fn a_known_length_that_is_wrong_is_an_error_not_a_file() {
        let src = model();
        let wrong = made(true, 1);
        let out = splice_at(&src, 0..src.len(), &wrong, None).expect("splice");
        let mut input = tempfile::tempfile().expect("temp");
        std::io::Write::write_all(&mut input, &src).expect("write");
        let dir = tempfile::tempdir().expect("dir");
        let dest = dir.path().join("out.onnx");
        let err = write_atomic_durable(&dest, false, |w, filling| {
            out.copy_to_in_two(&input, &src, w, filling)
        })
        .expect_err("the lengths disagree");
        assert!(format!("{err:#}").contains("measured at"), "{err:#}");
        assert!(!dest.exists());
    }

    #[test]
    fn only_a_large_list_edit_is_split() {
        let edit = edit();
        assert!(super::choose(&edit).is_none());
        let mut big = ListEdit::new(1);
        for at in 0..super::SPLIT_ABOVE {
            big.replace(at, 1, 0, b"x");
        }
        let mut large = Edit::default();
        large.child(7, 0).set_list(big);
        let (owner, _) = super::choose(&large).expect("a large list is split");
        assert!(std::ptr::eq(owner, graph_edit(&large)));
    }
}
