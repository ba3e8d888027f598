//! A wire-level edit of a message: records inserted, replaced or edited within, by (field,
//! occurrence), one repeated field edited by a compact [`ListEdit`], and the measure of a message
//! with its edit applied, which a write makes before it writes anything (the output's length comes
//! first, and every edited sub-message's length goes in front of it).

use super::encoding::{LEN, Record, WireError, record_len, records, write_len_record};
use super::list_edit::ListEdit;
use std::ops::Range;

/// Changes to one message. Records are addressed by (field number, occurrence): the occurrence is the
/// index among that field's records, which for a repeated field is its index in the decoded list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Edit {
    /// The record edits, sorted by (field, occurrence). A sorted vector rather than a map: most edits
    /// touch one or two records of a node (a map's first node alone is a kilobyte), and the few large
    /// ones are built in key order, each edit an append.
    records: Vec<((u32, usize), RecordEdit)>,
    /// Whole records (tag and payload) added at the end of the message.
    pub append: Vec<u8>,
    /// The edit of one repeated field (a graph's nodes), kept compact: that field's records are
    /// edited by it alone (finished: see [`ListEdit::finish`]).
    pub list: Option<Box<ListEdit>>,
}

/// What happens at one record: `before` is inserted ahead of it, then `action` applies to it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordEdit {
    pub before: Vec<u8>,
    pub action: Action,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub enum Action {
    #[default]
    Keep,
    /// The record is a sub-message with changes of its own.
    Edit(Box<Edit>),
    /// The record is replaced by these bytes (whole records; empty drops it).
    Replace(Vec<u8>),
}

impl Edit {
    pub fn is_empty(&self) -> bool {
        self.append.is_empty()
            && self.records.is_empty()
            && self.list.as_ref().is_none_or(|l| l.is_empty())
    }

    /// The edit of record (field, occurrence), created empty if absent.
    pub fn at(&mut self, field: u32, occurrence: usize) -> &mut RecordEdit {
        let key = (field, occurrence);
        let at = match self.records.last() {
            // In key order: an append.
            Some((last, _)) if *last < key => self.records.len(),
            None => 0,
            _ => match self.records.binary_search_by(|(k, _)| k.cmp(&key)) {
                Ok(i) => return &mut self.records[i].1,
                Err(i) => i,
            },
        };
        if self.records.is_empty() {
            // Most edits are of one record (a node's input): no room for four.
            self.records.reserve_exact(1);
        }
        self.records.insert(at, (key, RecordEdit::default()));
        &mut self.records[at].1
    }

    /// Sets the edit of one repeated field. Records of that field that already have an edit here (the
    /// node holding a subgraph that is edited too) get the list's edits of them (records inserted
    /// before, changes, removal) as record edits, and the list leaves them to those. A node that
    /// holds a subgraph is never given a [`MadeRecord`](super::made::MadeRecord) (the writers
    /// keep to that), whose records and rewrite are made from the node's record as it is written.
    pub fn set_list(&mut self, mut list: ListEdit) {
        list.finish();
        let field = list.field;
        let taken: Vec<usize> = self
            .records
            .iter()
            .filter(|((f, _), _)| *f == field)
            .map(|((_, o), _)| *o)
            .collect();
        for at in taken {
            let o = list.occurrence(at);
            let rec = self.at(field, at);
            for bytes in o.plain_before() {
                rec.before.extend_from_slice(bytes);
            }
            if o.removed {
                rec.action = Action::Replace(Vec::new());
                continue;
            }
            let child = self.child(field, at);
            for (sub, occurrence, payload) in o.plain_changes() {
                let mut record = Vec::new();
                if let Some(p) = payload {
                    write_len_record(&mut record, sub, p);
                }
                child.at(sub, occurrence).action = Action::Replace(record);
            }
        }
        self.list = Some(Box::new(list));
    }

    /// The record edits, by (field, occurrence) in order.
    pub(super) fn records(&self) -> &[((u32, usize), RecordEdit)] {
        &self.records
    }

    /// The edit of record (field, occurrence), if there is one.
    pub fn get(&self, field: u32, occurrence: usize) -> Option<&RecordEdit> {
        let key = (field, occurrence);
        self.records
            .binary_search_by(|(k, _)| k.cmp(&key))
            .ok()
            .map(|i| &self.records[i].1)
    }

    /// The nested edit of sub-message (field, occurrence), created empty if absent.
    pub fn child(&mut self, field: u32, occurrence: usize) -> &mut Edit {
        let rec = self.at(field, occurrence);
        if !matches!(rec.action, Action::Edit(_)) {
            rec.action = Action::Edit(Box::default());
        }
        match &mut rec.action {
            Action::Edit(e) => e,
            // The arm above made it an Edit.
            _ => unreachable!("action was just set to Edit"),
        }
    }
}

/// Where a write in two parts divides the output: at the first occurrence
/// from `at` on of the list `owner` edits, or at the end of `owner`'s message if it has none.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Split<'e> {
    pub owner: &'e Edit,
    pub at: usize,
    /// The length of the list's occurrences before `at` (those the list edit writes), as written.
    pub head: u64,
}

/// A split as [`measure`] follows it: the list's occurrences from `at` on are measured by `tail`
/// (on another thread), the others here, their length summed in `head`.
pub(super) struct MeasureSplit<'t> {
    pub owner: &'t Edit,
    pub at: usize,
    pub head: u64,
    pub tail: Option<Box<dyn FnOnce() -> Result<u64, WireError> + 't>>,
}

/// Visits the records of the message `src[range]` with the edit of each (if any), in order.
pub(super) fn each_record<E: From<WireError>>(
    src: &[u8],
    range: Range<usize>,
    edit: &Edit,
    mut visit: impl FnMut(Record, usize, Option<&RecordEdit>) -> Result<(), E>,
) -> Result<(), E> {
    // Per field met so far: (field, records seen, where its next edit may be in `edit.records`).
    // A message has a handful of fields, and each field's edits are met in order.
    let mut seen: Vec<(u32, usize, usize)> = Vec::new();
    for rec in records(src, range) {
        let rec = rec?;
        let i = match seen.iter().position(|(f, _, _)| *f == rec.field) {
            Some(i) => i,
            None => {
                seen.push((rec.field, 0, 0));
                seen.len() - 1
            }
        };
        let (_, count, hint) = &mut seen[i];
        let occurrence = *count;
        *count += 1;
        let key = (rec.field, occurrence);
        let found = match edit.records.get(*hint) {
            Some((k, _)) if *k == key => Some(*hint),
            _ => edit.records.binary_search_by(|(k, _)| k.cmp(&key)).ok(),
        };
        if let Some(at) = found {
            *hint = at + 1;
        }
        visit(rec, occurrence, found.map(|at| &edit.records[at].1))?;
    }
    Ok(())
}

/// The length of the message `src[range]` with `edit` applied; pushes the new payload length of each
/// edited sub-message on `lens`, in the order [`emit`] meets them.
pub(super) fn measure(
    src: &[u8],
    range: Range<usize>,
    edit: &Edit,
    lens: &mut Vec<u64>,
    mut split: Option<&mut MeasureSplit<'_>>,
) -> Result<u64, WireError> {
    if edit.is_empty() {
        return Ok(range.len() as u64);
    }
    let mut len = 0u64;
    let mut list = edit.list.as_deref().map(|l| (l.field, l.cursor()));
    let splitting = split
        .as_deref()
        .is_some_and(|s| std::ptr::eq(s.owner, edit));
    each_record(src, range, edit, |rec, occurrence, re| {
        if let Some((field, cursor)) = &mut list
            && rec.field == *field
            && re.is_none()
        {
            let head = split.as_deref_mut().filter(|_| splitting);
            if let Some(s) = &head
                && occurrence >= s.at
            {
                return Ok(());
            }
            let n = cursor.splice::<WireError>(occurrence, src, &rec, None)?;
            if let Some(s) = head {
                s.head += n;
            }
            len += n;
            return Ok(());
        }
        let Some(re) = re else {
            len += rec.span.len() as u64;
            return Ok(());
        };
        len += re.before.len() as u64;
        match &re.action {
            Action::Keep => len += rec.span.len() as u64,
            Action::Replace(bytes) => len += bytes.len() as u64,
            Action::Edit(child) => {
                if rec.wire_type != LEN {
                    return Err(WireError::NotLengthDelimited {
                        field: rec.field,
                        occurrence,
                    });
                }
                let slot = lens.len();
                lens.push(0);
                let inner = measure(src, rec.payload.clone(), child, lens, split.as_deref_mut())?;
                lens[slot] = inner;
                len += record_len(rec.field, inner);
            }
        }
        Ok(())
    })?;
    if splitting && let Some(tail) = split.and_then(|s| s.tail.take()) {
        len += tail()?;
    }
    Ok(len + edit.append.len() as u64)
}

/// The length of the occurrences from `at` on of the list `owner` edits, `src[range]` being
/// `owner`'s message: what [`measure`] leaves to another thread when it splits.
pub(super) fn measure_tail(
    src: &[u8],
    range: Range<usize>,
    owner: &Edit,
    at: usize,
) -> Result<u64, WireError> {
    let Some(list) = owner.list.as_deref() else {
        return Ok(0);
    };
    let mut cursor = list.cursor_from(at);
    let mut len = 0u64;
    each_record(src, range, owner, |rec, occurrence, re| {
        if rec.field == list.field && re.is_none() && occurrence >= at {
            len += cursor.splice::<WireError>(occurrence, src, &rec, None)?;
        }
        Ok(())
    })?;
    Ok(len)
}
