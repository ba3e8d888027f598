//! The name -> value index of a graph. Each name is stored once, in its graph's [`Values`]; the index
//! holds only value ids and finds a name by hashing it and comparing against the values it points to.
//! A graph of a million nodes has two million names, and a second copy of each was a quarter of the
//! IR's memory.
//!
//! The table is our own open addressing over one array of 8-byte slots (32 bits of the hash, the value
//! id), probed linearly and kept at most three quarters full. One probe is one cache line, and the
//! graph builder can ask for a slot's line ahead of time ([`NameIndex::prefetch`]): on a graph of a
//! million nodes every new name lands in a random place of a 16 MB table, and waiting for that line
//! was a fifth of the time of building the graph.
//!
//! The hasher is seeded per process (foldhash's `RandomState`): names come from untrusted files, and a
//! fixed seed would let a crafted model make every lookup collide.

use super::{ValueId, Values};
use hashbrown::DefaultHashBuilder;
use petgraph::stable_graph::NodeIndex;
use std::hash::BuildHasher;

#[derive(Debug, Default)]
pub struct NameIndex {
    /// 0 for a free slot; otherwise the hash's high 32 bits above the value id plus one. The length is
    /// 0 or a power of two.
    slots: Vec<u64>,
    len: usize,
    hasher: DefaultHashBuilder,
}

/// The fewest slots a table that holds anything has.
const MIN_SLOTS: usize = 16;

/// A name's hash, as the index that takes it makes it.
#[derive(Clone, Copy, Debug)]
struct NameHash(u64);

impl NameIndex {
    pub fn with_capacity(n: usize) -> Self {
        NameIndex {
            slots: vec![0; slots_for(n)],
            ..NameIndex::default()
        }
    }

    fn hash(&self, name: &str) -> NameHash {
        NameHash(self.hasher.hash_one(name))
    }

    pub fn get(&self, values: &Values, name: &str) -> Option<ValueId> {
        match self.probe(values, name, self.hash(name)) {
            Probe::Found(_, id) => Some(id),
            Probe::Free(_) => None,
        }
    }

    /// Asks the processor for the cache line where `name` is looked up first, so that a later
    /// [`NameIndex::get`] or [`NameIndex::define`] of it finds the line there. A hint: it changes
    /// nothing, and costs a hash and one instruction.
    pub fn prefetch(&self, name: &str) {
        if let Some(slot) = self.slots.get(self.home(self.hash(name))) {
            prefetch_line(slot);
        }
    }

    /// Appends a value `name` made by `producer` to `values` and indexes it, unless a value of that
    /// name is indexed already: then that one's id is the error and `values` is unchanged. One probe
    /// of the table, where a lookup followed by an insert would be two.
    pub fn define(
        &mut self,
        values: &mut Values,
        name: &str,
        producer: (NodeIndex, u32),
    ) -> Result<ValueId, ValueId> {
        let hash = self.hash(name);
        self.reserve_one(values);
        match self.probe(values, name, hash) {
            Probe::Found(_, id) => Err(id),
            Probe::Free(at) => {
                let id = values.push(name, producer);
                self.fill(at, hash, id);
                Ok(id)
            }
        }
    }

    /// Indexes `values[id]` under its name, replacing an earlier value of that name.
    pub fn insert(&mut self, values: &Values, id: ValueId) {
        self.reserve_one(values);
        let name = values.name(id);
        let hash = self.hash(name);
        match self.probe(values, name, hash) {
            Probe::Found(at, _) => self.slots[at] = slot_of(hash, id),
            Probe::Free(at) => self.fill(at, hash, id),
        }
    }

    /// Where the probe for `hash` starts.
    fn home(&self, hash: NameHash) -> usize {
        // The low bits place the name; the slot keeps the high ones to tell names apart.
        hash.0 as usize & self.slots.len().wrapping_sub(1)
    }

    /// Finds the slot of `name`, or the free slot where it would go. The table is never full (at most
    /// three quarters of its slots are taken), so the walk ends; an empty table has no slot at all.
    #[inline]
    fn probe(&self, values: &Values, name: &str, hash: NameHash) -> Probe {
        let mask = self.slots.len().wrapping_sub(1);
        let tag = hash.0 >> 32;
        let mut at = self.home(hash);
        for _ in 0..self.slots.len() {
            let slot = self.slots[at];
            if slot == 0 {
                return Probe::Free(at);
            }
            let id = id_of(slot);
            if slot >> 32 == tag && values.name(id) == name {
                return Probe::Found(at, id);
            }
            at = (at + 1) & mask;
        }
        Probe::Free(usize::MAX)
    }

    fn fill(&mut self, at: usize, hash: NameHash, id: ValueId) {
        if let Some(slot) = self.slots.get_mut(at) {
            *slot = slot_of(hash, id);
            self.len += 1;
        }
    }

    /// Makes room for one more name, doubling the table when it would be more than three quarters
    /// full.
    fn reserve_one(&mut self, values: &Values) {
        if (self.len + 1).saturating_mul(4) <= self.slots.len().saturating_mul(3) {
            return;
        }
        let old = std::mem::replace(&mut self.slots, vec![0; slots_for(self.len + 1)]);
        let mask = self.slots.len() - 1;
        for slot in old.into_iter().filter(|&s| s != 0) {
            let id = id_of(slot);
            let mut at = self.hash(values.name(id)).0 as usize & mask;
            while self.slots[at] != 0 {
                at = (at + 1) & mask;
            }
            self.slots[at] = slot;
        }
    }
}

enum Probe {
    Found(usize, ValueId),
    Free(usize),
}

/// Slots for `n` names: a power of two, at least four thirds of `n`. A fuller table costs longer probes
/// (at three quarters full, about two slots for a name that is there and six for one that is not, most
/// on the same cache line); an emptier one costs memory the kernel has to zero: at half full, the
/// index of a 2.8M-node graph took 64 MB.
fn slots_for(n: usize) -> usize {
    n.saturating_add(n / 3 + 1)
        .max(MIN_SLOTS)
        .checked_next_power_of_two()
        .unwrap_or(1 << (usize::BITS - 1))
}

fn slot_of(hash: NameHash, id: ValueId) -> u64 {
    // Value indices are below u32::MAX (see `ValueId::new`): index + 1 fits the low half, never 0.
    ((hash.0 >> 32) << 32) | (id.index() as u64 + 1)
}

fn id_of(slot: u64) -> ValueId {
    ValueId::new((slot as u32).wrapping_sub(1) as usize)
}

#[cfg(target_arch = "x86_64")]
fn prefetch_line<T>(at: &T) {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: a prefetch has no architectural effect (it cannot fault, and the pointer comes from a
    // reference anyway); SSE, which the intrinsic needs, is part of x86-64.
    unsafe { _mm_prefetch::<_MM_HINT_T0>((at as *const T).cast::<i8>()) }
}

#[cfg(not(target_arch = "x86_64"))]
fn prefetch_line<T>(_at: &T) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn made() -> (NodeIndex, u32) {
        (NodeIndex::new(0), 0)
    }

    #[test]
    fn defines_finds_and_refuses_a_second_definition_while_growing() {
        let mut index = NameIndex::default();
        let mut values = Values::default();
        for i in 0..10_000 {
            let id = index.define(&mut values, &format!("v{i}"), made());
            assert_eq!(id, Ok(ValueId::new(i as usize)));
        }
        assert!(
            index.slots.len() * 3 >= 10_000 * 4,
            "kept at most three quarters full"
        );
        for i in (0..10_000).step_by(7) {
            assert_eq!(
                index.get(&values, &format!("v{i}")),
                Some(ValueId::new(i as usize))
            );
        }
        assert_eq!(index.get(&values, "v10000"), None);
        assert_eq!(index.get(&values, ""), None);
        assert_eq!(
            index.define(&mut values, "v42", made()),
            Err(ValueId::new(42))
        );
        assert_eq!(values.len(), 10_000, "a refused definition adds no value");
    }

    #[test]
    fn insert_replaces_the_value_of_a_name() {
        let mut index = NameIndex::with_capacity(2);
        let mut values = Values::default();
        for name in ["x", "y", "x"] {
            values.push(name, made());
        }
        index.insert(&values, ValueId::new(0));
        index.insert(&values, ValueId::new(1));
        index.insert(&values, ValueId::new(2));
        assert_eq!(index.get(&values, "x"), Some(ValueId::new(2)));
        assert_eq!(index.get(&values, "y"), Some(ValueId::new(1)));
    }

    #[test]
    fn an_empty_index_finds_nothing_and_prefetch_is_harmless() {
        let index = NameIndex::default();
        index.prefetch("x");
        assert_eq!(index.get(&Values::default(), "x"), None);
    }

    #[test]
    fn names_that_share_a_home_slot_are_told_apart() {
        // Sixteen slots and a hundred names: many share a home slot and the upper hash bits.
        let mut index = NameIndex::with_capacity(1);
        let mut values = Values::default();
        for i in 0..100 {
            assert!(index.define(&mut values, &i.to_string(), made()).is_ok());
        }
        for i in 0..100usize {
            assert_eq!(index.get(&values, &i.to_string()), Some(ValueId::new(i)));
        }
    }
}
