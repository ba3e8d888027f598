//! Records a list edit makes as it writes ([`MadeRecord`]), from the record of the occurrence they
//! go before, and how the edit holds them without knowing their type: as [`Words`], with one table
//! of their functions per edit ([`Maker`]). A pass defines the records; this module knows only that
//! they are made from a node's record and how long they are.

use super::node_record::NodeRecord;

/// The lengths of a sub-record (tag, length and payload) before and after a [`MadeRecord`]
/// rewrites it.
pub type Rewrite = (usize, usize);

/// What a [`MadeRecord`] is stored as in the edit: words whose meaning is the made record's own.
/// Seven: with the edit's range of text, an entry of the edit's vector of insertions stays at 48
/// bytes, as a pass's recipe took before it was made a [`MadeRecord`].
pub type Words = [u32; 7];

/// Records an edit makes as it writes, from the record of the occurrence they are inserted before
/// (a pass's node made from the node it feeds: a rewrite of a million nodes then holds a few words
/// per node instead of its encoded records). The edit stores it as [`Words`] and calls it through
/// a table of its functions made once per edit ([`Maker`]): the edit, and the splicer that holds
/// it, stay of one type whatever records are made. The lengths it gives must be those it writes:
/// the writer checks.
pub trait MadeRecord: Copy + 'static {
    fn to_words(&self) -> Words;
    fn from_words(words: &Words) -> Self;
    /// How many records it inserts.
    fn records(&self) -> usize;
    /// The sub-record of the occurrence it rewrites, as (field, sub-occurrence, tag): its new
    /// payload is made from the occurrence's record by [`MadeRecord::put_rewired`], handed the
    /// tag.
    fn rewires(&self) -> Option<(u32, u32, u32)>;
    /// The length of what [`MadeRecord::write`] appends.
    fn len(&self, node: &NodeRecord<'_>, field: u32, text: &[u8]) -> usize;
    /// Appends the records it inserts before `node`, of the list field `field`; `text` is what was
    /// queued with it.
    fn write(&self, node: &NodeRecord<'_>, field: u32, text: &[u8], out: &mut Vec<u8>);
    /// [`MadeRecord::len`] without the record (occurrence `at`), if known; `text` bytes of text.
    fn known_len(&self, at: u32, field: u32, text: usize) -> Option<usize>;
    /// The lengths of the rewritten sub-record (tag `tag`) before and after, without the record,
    /// if known: the record's sub-records are then in their shortest encoding.
    fn known_rewire(&self, at: u32, occurrence: u32, tag: u32) -> Option<Rewrite>;
    /// The length of [`MadeRecord::put_rewired`]'s payload.
    fn rewired_len(node: &NodeRecord<'_>, field: u32, occurrence: u32, tag: u32) -> usize;
    /// Appends the new payload of sub-record (`field`, `occurrence`) of `node`.
    fn put_rewired(node: &NodeRecord<'_>, field: u32, occurrence: u32, tag: u32, out: &mut Vec<u8>);
}

/// The functions of the one [`MadeRecord`] type an edit holds, called on its [`Words`]: an
/// indirect call per made record, of one target for the whole edit (so predicted), where a type
/// parameter would have made the edit, the splicer and every writer generic.
#[derive(Clone, Copy)]
pub(super) struct Maker {
    pub(super) kind: &'static str,
    pub(super) rewires: fn(&Words) -> Option<(u32, u32, u32)>,
    pub(super) len: fn(&Words, &NodeRecord<'_>, u32, &[u8]) -> usize,
    pub(super) write: fn(&Words, &NodeRecord<'_>, u32, &[u8], &mut Vec<u8>),
    pub(super) known_len: fn(&Words, u32, u32, usize) -> Option<usize>,
    pub(super) known_rewire: fn(&Words, u32, u32, u32) -> Option<Rewrite>,
    pub(super) rewired_len: fn(&NodeRecord<'_>, u32, u32, u32) -> usize,
    pub(super) put_rewired: fn(&NodeRecord<'_>, u32, u32, u32, &mut Vec<u8>),
}

impl Maker {
    /// The maker of an edit that makes nothing.
    pub(super) const NONE: Maker = Maker {
        kind: "",
        rewires: |_| None,
        len: |_, _, _, _| 0,
        write: |_, _, _, _, _| {},
        known_len: |_, _, _, _| None,
        known_rewire: |_, _, _, _| None,
        rewired_len: |_, _, _, _| 0,
        put_rewired: |_, _, _, _, _| {},
    };

    pub(super) fn of<M: MadeRecord>() -> Maker {
        Maker {
            kind: std::any::type_name::<M>(),
            rewires: |w| M::from_words(w).rewires(),
            len: |w, node, field, text| M::from_words(w).len(node, field, text),
            write: |w, node, field, text, out| M::from_words(w).write(node, field, text, out),
            known_len: |w, at, field, text| M::from_words(w).known_len(at, field, text),
            known_rewire: |w, at, o, tag| M::from_words(w).known_rewire(at, o, tag),
            rewired_len: M::rewired_len,
            put_rewired: M::put_rewired,
        }
    }
}

impl Default for Maker {
    fn default() -> Self {
        Maker::NONE
    }
}

impl std::fmt::Debug for Maker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.kind)
    }
}

impl PartialEq for Maker {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}
