//! What inference keeps of a graph's values for the `shapes` listing and the passes ([`GraphShapes`]),
//! in a compact form: the names in one string, and each value's type as an index into the graph's
//! distinct types.
//!
//! Why compact: a graph of a million values kept as a million `(String, ValueInfo)` pairs took ~190 MB
//! (a name copy, a 64-byte type and its shape on the heap for each), more than half of what the whole
//! `check` of that model needs. Most values of a graph share a few types (every value of a
//! `[batch, 16]` chain is the same `FLOAT[batch, 16]`), so each distinct type is stored once and a value
//! costs 4 bytes plus its name.

use super::value::{Data, ValueInfo};
use std::hash::{BuildHasher, Hash, Hasher};

/// What inference knows of every value of one graph, in value-id order.
#[derive(Clone, Debug, Default)]
pub struct GraphShapes {
    pub path: String,
    /// Every value's name, one after the other; `ends[i]` is where value `i`'s ends.
    names: String,
    ends: Vec<u32>,
    /// Per value: 0 when nothing is known of it, else 1 + its index in `distinct`.
    types: Vec<u32>,
    distinct: Vec<ValueInfo>,
    /// Index of each entry of `distinct` by its hash, to find a type already stored.
    index: hashbrown::HashTable<u32>,
    hasher: hashbrown::DefaultHashBuilder,
    /// 1 + the index in `distinct` of the type interned last, 0 for none (see
    /// [`GraphShapes::intern`]).
    last: u32,
}

impl GraphShapes {
    /// The listing of a graph at `path` whose values have these names, nothing known of any yet.
    pub fn new<'a>(path: String, names: impl ExactSizeIterator<Item = &'a str> + Clone) -> Self {
        let mut g = GraphShapes {
            path,
            ends: Vec::with_capacity(names.len()),
            // Sized first: grown by doubling, a million names were copied over and over into fresh
            // pages.
            names: String::with_capacity(names.clone().map(str::len).sum()),
            ..Default::default()
        };
        for name in names {
            g.names.push_str(name);
            // A graph's names come from one protobuf message, under 2 GiB: the total fits.
            g.ends
                .push(u32::try_from(g.names.len()).unwrap_or(u32::MAX));
        }
        g.types = vec![0; g.ends.len()];
        g
    }

    /// [`GraphShapes::new`] for `len` values without their names (each [`GraphShapes::name`] is
    /// empty): for a caller that reads the types by value id, as the passes do. A million names are
    /// ~20 ms of copying, on the way from inference to the pass.
    pub fn unnamed(path: String, len: usize) -> Self {
        GraphShapes {
            path,
            types: vec![0; len],
            ..Default::default()
        }
    }

    /// Sets what is known of value `i` (nothing happens past the end).
    pub fn set(&mut self, i: usize, info: Option<ValueInfo>) {
        if i >= self.types.len() {
            return;
        }
        self.types[i] = info.map_or(0, |v| self.intern(v));
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        self.types.len()
    }

    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// The name of value `i` (empty past the end).
    pub fn name(&self, i: usize) -> &str {
        let end = self.ends.get(i).map_or(0, |&e| e as usize);
        let start = match i.checked_sub(1) {
            Some(p) => self.ends.get(p).map_or(end, |&e| e as usize),
            None => 0,
        };
        self.names.get(start..end).unwrap_or("")
    }

    /// What is known of value `i`, if anything (`None` past the end).
    pub fn info(&self, i: usize) -> Option<&ValueInfo> {
        let t = *self.types.get(i)?;
        self.distinct.get(t.checked_sub(1)? as usize)
    }

    /// Which of the graph's distinct types value `i` has (equal for two values of equal types), if
    /// anything is known of it.
    pub fn type_id(&self, i: usize) -> Option<u32> {
        self.types.get(i)?.checked_sub(1)
    }

    /// Every value's name and what is known of it, in value-id order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, Option<&ValueInfo>)> + '_ {
        (0..self.len()).map(|i| (self.name(i), self.info(i)))
    }

    /// Replaces what is known of each value by `f(old, i)`; names stay. For a graph inferred more than
    /// once, which keeps what all its inferences agree on.
    pub fn update(&mut self, mut f: impl FnMut(Option<&ValueInfo>, usize) -> Option<ValueInfo>) {
        let old_types = std::mem::take(&mut self.types);
        let old_distinct = std::mem::take(&mut self.distinct);
        self.index.clear();
        self.last = 0;
        self.types = old_types
            .iter()
            .enumerate()
            .map(|(i, &t)| {
                let old = t.checked_sub(1).and_then(|t| old_distinct.get(t as usize));
                f(old, i).map_or(0, |v| self.intern(v))
            })
            .collect();
    }

    /// 1 + the index of `info` in `distinct`, stored there if it is new.
    fn intern(&mut self, info: ValueInfo) -> u32 {
        // Values in a row mostly share a type (a chain of `[batch, 16]`): the last one stored is
        // compared first, which costs less than hashing a shape of symbolic sizes.
        if let Some(d) = self
            .last
            .checked_sub(1)
            .and_then(|t| self.distinct.get(t as usize))
            && same(d, &info)
        {
            return self.last;
        }
        let h = hash(&self.hasher, &info);
        let distinct = &self.distinct;
        if let Some(&t) = self.index.find(h, |&t| same(&distinct[t as usize], &info)) {
            self.last = t + 1;
            return t + 1;
        }
        // At most one entry per value of a graph, which has far fewer than 2^32 values.
        let t = u32::try_from(self.distinct.len()).unwrap_or(u32::MAX);
        self.distinct.push(info);
        let (distinct, hasher) = (&self.distinct, &self.hasher);
        self.index
            .insert_unique(h, t, |&t| hash(hasher, &distinct[t as usize]));
        self.last = t + 1;
        t + 1
    }
}

/// Equal as far as anyone can tell: floats compared by their bits, so `-0.0` and `0.0` (or two NaN
/// payloads) are never merged.
fn same(a: &ValueInfo, b: &ValueInfo) -> bool {
    a.kind == b.kind
        && a.elem == b.elem
        && a.shape == b.shape
        && match (&a.data, &b.data) {
            (None, None) => true,
            (Some(Data::Ints(x)), Some(Data::Ints(y))) => x == y,
            (Some(Data::Floats(x)), Some(Data::Floats(y))) => {
                x.len() == y.len()
                    && x.iter()
                        .zip(y.iter())
                        .all(|(p, q)| p.to_bits() == q.to_bits())
            }
            _ => false,
        }
}

fn hash(hasher: &hashbrown::DefaultHashBuilder, v: &ValueInfo) -> u64 {
    let mut h = hasher.build_hasher();
    (v.kind as u8).hash(&mut h);
    v.elem.hash(&mut h);
    v.shape.hash(&mut h);
    match &v.data {
        None => 0u8.hash(&mut h),
        Some(Data::Ints(x)) => {
            1u8.hash(&mut h);
            x.hash(&mut h);
        }
        Some(Data::Floats(x)) => {
            2u8.hash(&mut h);
            for f in x.iter() {
                f.to_bits().hash(&mut h);
            }
        }
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::dim::Dim;
    use crate::shape::value::Kind;

    fn t(dims: &[u64], data: Option<Data>) -> ValueInfo {
        ValueInfo {
            kind: Kind::Tensor,
            elem: Some(1),
            shape: Some(dims.iter().map(|&d| Dim::Known(d)).collect()),
            data,
        }
    }

    #[test]
    fn values_keep_their_names_and_types_and_equal_types_are_stored_once() {
        let mut g = GraphShapes::new("main".into(), ["a", "", "c", "d", "e"].into_iter());
        g.set(0, Some(t(&[2, 3], None)));
        g.set(2, Some(t(&[2, 3], None)));
        g.set(3, Some(t(&[1], Some(Data::Floats(vec![-0.0].into())))));
        g.set(4, Some(t(&[1], Some(Data::Floats(vec![0.0].into())))));
        g.set(9, Some(t(&[1], None)));
        let got: Vec<_> = g.iter().map(|(n, i)| (n.to_owned(), i.cloned())).collect();
        assert_eq!(got[0], ("a".into(), Some(t(&[2, 3], None))));
        assert_eq!(got[1], ("".into(), None));
        assert_eq!(got[2], ("c".into(), Some(t(&[2, 3], None))));
        assert_eq!(g.distinct.len(), 3, "-0.0 and 0.0 are two types");
        assert_eq!(g.name(9), "");
        assert!(g.info(9).is_none());
        g.update(|old, i| old.filter(|_| i != 0).cloned());
        assert!(g.info(0).is_none());
        assert_eq!(g.name(0), "a");
        assert_eq!(g.info(2), Some(&t(&[2, 3], None)));
    }

    #[test]
    fn the_type_set_last_is_found_again_and_a_different_one_is_not_taken_for_it() {
        let names = ["a", "b", "c", "d", "e", "f"];
        let mut g = GraphShapes::new("main".into(), names.into_iter());
        let (x, y) = (t(&[4, 16], None), t(&[1, 16], None));
        for (i, info) in [&x, &x, &y, &x, &y, &y].into_iter().enumerate() {
            g.set(i, Some(info.clone()));
        }
        assert_eq!(g.distinct.len(), 2);
        let got: Vec<_> = (0..6).map(|i| g.info(i).cloned()).collect();
        let want: Vec<_> = [&x, &x, &y, &x, &y, &y].map(|v| Some(v.clone())).to_vec();
        assert_eq!(got, want);
        // After an update the types are stored anew: the last one must be of the new table.
        g.update(|old, i| {
            if i == 0 {
                Some(y.clone())
            } else {
                old.cloned()
            }
        });
        g.set(5, Some(y.clone()));
        g.set(4, Some(x.clone()));
        assert_eq!(g.distinct.len(), 2);
        assert_eq!(g.info(0), Some(&y));
        assert_eq!(g.info(4), Some(&x));
        assert_eq!(g.info(5), Some(&y));
    }
}
