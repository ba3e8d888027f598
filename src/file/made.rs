//! Records a list edit makes as it writes ([`MadeRecord`]), from the record of the occurrence they
//! go before, and how the edit holds them without knowing their type: as [`Words`], with one trait
//! object per edit that reads them (`Maker`). A pass defines the records; this module knows only that
//! they are made from a node's record and how long they are.

use super::node_record::NodeRecord;
use std::marker::PhantomData;

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
/// one trait object per edit (`Maker`): the edit, and the splicer that holds
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

/// The functions of the one [`MadeRecord`] type an edit holds, called on its [`Words`] through a
/// trait object: an indirect call per made record, of one target for the whole edit (so
/// predicted), where a type parameter would have made the edit, the splicer and every writer
/// generic.
pub(super) trait Maker: Sync {
    /// The made record's type name: edits joined must make records of one type.
    fn kind(&self) -> &'static str;
    fn rewires(&self, w: &Words) -> Option<(u32, u32, u32)>;
    fn len(&self, w: &Words, node: &NodeRecord<'_>, field: u32, text: &[u8]) -> usize;
    fn write(&self, w: &Words, node: &NodeRecord<'_>, field: u32, text: &[u8], out: &mut Vec<u8>);
    fn known_len(&self, w: &Words, at: u32, field: u32, text: usize) -> Option<usize>;
    fn known_rewire(&self, w: &Words, at: u32, occurrence: u32, tag: u32) -> Option<Rewrite>;
    fn rewired_len(&self, node: &NodeRecord<'_>, field: u32, occurrence: u32, tag: u32) -> usize;
    fn put_rewired(
        &self,
        node: &NodeRecord<'_>,
        field: u32,
        occurrence: u32,
        tag: u32,
        out: &mut Vec<u8>,
    );
}

/// The [`Maker`] of made records of type `M`.
// `fn() -> M`: the maker holds no M, so it is Sync whatever M is.
struct Of<M>(PhantomData<fn() -> M>);

impl<M: MadeRecord> Of<M> {
    const MAKER: &'static dyn Maker = &Of::<M>(PhantomData);
}

/// The [`Maker`] of an edit that makes no record (it holds no words to call it on).
pub(super) const NOTHING: &dyn Maker = &Of::<Nothing>(PhantomData);

/// What an edit that makes no record holds as its made record's type: nothing to make.
#[derive(Clone, Copy)]
struct Nothing;

impl MadeRecord for Nothing {
    fn to_words(&self) -> Words {
        [0; 7]
    }
    fn from_words(_: &Words) -> Self {
        Nothing
    }
    fn records(&self) -> usize {
        0
    }
    fn rewires(&self) -> Option<(u32, u32, u32)> {
        None
    }
    fn len(&self, _: &NodeRecord<'_>, _: u32, _: &[u8]) -> usize {
        0
    }
    fn write(&self, _: &NodeRecord<'_>, _: u32, _: &[u8], _: &mut Vec<u8>) {}
    fn known_len(&self, _: u32, _: u32, _: usize) -> Option<usize> {
        Some(0)
    }
    fn known_rewire(&self, _: u32, _: u32, _: u32) -> Option<Rewrite> {
        None
    }
    fn rewired_len(_: &NodeRecord<'_>, _: u32, _: u32, _: u32) -> usize {
        0
    }
    fn put_rewired(_: &NodeRecord<'_>, _: u32, _: u32, _: u32, _: &mut Vec<u8>) {}
}

impl std::fmt::Debug for dyn Maker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.kind())
    }
}

impl PartialEq for dyn Maker {
    fn eq(&self, other: &Self) -> bool {
        self.kind() == other.kind()
    }
}

/// The [`Maker`] of made records of type `M`.
pub(super) fn maker<M: MadeRecord>() -> &'static dyn Maker {
    Of::<M>::MAKER
}

impl<M: MadeRecord> Maker for Of<M> {
    fn kind(&self) -> &'static str {
        std::any::type_name::<M>()
    }
    fn rewires(&self, w: &Words) -> Option<(u32, u32, u32)> {
        M::from_words(w).rewires()
    }
    fn len(&self, w: &Words, node: &NodeRecord<'_>, field: u32, text: &[u8]) -> usize {
        M::from_words(w).len(node, field, text)
    }
    fn write(&self, w: &Words, node: &NodeRecord<'_>, field: u32, text: &[u8], out: &mut Vec<u8>) {
        M::from_words(w).write(node, field, text, out)
    }
    fn known_len(&self, w: &Words, at: u32, field: u32, text: usize) -> Option<usize> {
        M::from_words(w).known_len(at, field, text)
    }
    fn known_rewire(&self, w: &Words, at: u32, occurrence: u32, tag: u32) -> Option<Rewrite> {
        M::from_words(w).known_rewire(at, occurrence, tag)
    }
    fn rewired_len(&self, node: &NodeRecord<'_>, field: u32, occurrence: u32, tag: u32) -> usize {
        M::rewired_len(node, field, occurrence, tag)
    }
    fn put_rewired(
        &self,
        node: &NodeRecord<'_>,
        field: u32,
        occurrence: u32,
        tag: u32,
        out: &mut Vec<u8>,
    ) {
        M::put_rewired(node, field, occurrence, tag, out)
    }
}
