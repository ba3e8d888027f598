//! The name -> value index of a graph. Each name is stored once, in its [`Value`]; the index holds only
//! value ids and finds a name by hashing it and comparing against the values it points to. A graph of a
//! million nodes has two million names, and a second copy of each was a quarter of the IR's memory.
//!
//! The hasher is seeded per process (foldhash's `RandomState`): names come from untrusted files, and a
//! fixed seed would let a crafted model make every lookup collide.

use super::{Value, ValueId};
use hashbrown::{DefaultHashBuilder, HashTable};
use std::hash::BuildHasher;

#[derive(Debug, Default)]
pub struct NameIndex {
    table: HashTable<ValueId>,
    hasher: DefaultHashBuilder,
}

impl NameIndex {
    pub fn with_capacity(n: usize) -> Self {
        NameIndex {
            table: HashTable::with_capacity(n),
            hasher: DefaultHashBuilder::default(),
        }
    }

    pub fn get(&self, values: &[Value], name: &str) -> Option<ValueId> {
        let hash = self.hasher.hash_one(name);
        self.table
            .find(hash, |id| name_of(values, *id) == name)
            .copied()
    }

    /// Appends `value` to `values` and indexes it, unless a value of its name is indexed already:
    /// then that one's id is the error and `values` is unchanged. One probe of the table, where a
    /// lookup followed by an insert would be two.
    pub fn define(&mut self, values: &mut Vec<Value>, value: Value) -> Result<ValueId, ValueId> {
        let hash = self.hasher.hash_one(&*value.name);
        let hasher = &self.hasher;
        let seen: &[Value] = values;
        match self.table.entry(
            hash,
            |other| name_of(seen, *other) == &*value.name,
            |other| hasher.hash_one(name_of(seen, *other)),
        ) {
            hashbrown::hash_table::Entry::Occupied(e) => Err(*e.get()),
            hashbrown::hash_table::Entry::Vacant(e) => {
                let id = ValueId(values.len() as u32);
                e.insert(id);
                values.push(value);
                Ok(id)
            }
        }
    }

    /// Indexes `values[id]` under its name, replacing an earlier value of that name.
    pub fn insert(&mut self, values: &[Value], id: ValueId) {
        let name = name_of(values, id);
        let hash = self.hasher.hash_one(name);
        let hasher = &self.hasher;
        match self.table.entry(
            hash,
            |other| name_of(values, *other) == name,
            |other| hasher.hash_one(name_of(values, *other)),
        ) {
            hashbrown::hash_table::Entry::Occupied(mut e) => *e.get_mut() = id,
            hashbrown::hash_table::Entry::Vacant(e) => {
                e.insert(id);
            }
        }
    }
}

/// Ids in the table always index `values`: values are only ever appended, and the index is built
/// alongside them.
fn name_of(values: &[Value], id: ValueId) -> &str {
    values.get(id.0 as usize).map_or("", |v| &*v.name)
}
