//! String equality for the per-node look-ups (op kinds, the rule table, the opset imports), and a
//! borrowed `(domain, op_type)` key that compares that way.
//!
//! Why not `==`: `a == b` on strings of equal length calls libc's `memcmp` even when both are empty,
//! and an empty `String`, `Box<str>` or `""` points at no memory (the dangling address 1). glibc's
//! AVX-512 `memcmp` (`__memcmp_evex_movbe`, chosen on Intel CPUs that have AVX-512) reads a short
//! string with a masked 32-byte load; with every byte masked off at an unmapped address the CPU takes
//! a microcode assist, about 90 ns a call on our test host against 2 ns for a mapped one. The default
//! domain is the empty string, so every node paid it several times over: a third of `check`'s CPU
//! samples on that host were in that one instruction (see bench/HISTORY.md, issue 20, eighth session).

/// `a == b`, without a library call for empty strings.
#[inline]
pub fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && (a.is_empty() || a.as_bytes() == b.as_bytes())
}

/// A borrowed `(domain, op_type)` for looking up maps keyed by string pairs: it hashes as the
/// pair does (a derived `Hash` hashes the fields in order, as a tuple does) and compares with
/// [`same`].
#[derive(Hash, Clone, Copy)]
pub struct OpKey<'a>(pub &'a str, pub &'a str);

impl<K: AsRef<str>> hashbrown::Equivalent<(K, K)> for OpKey<'_> {
    fn equivalent(&self, key: &(K, K)) -> bool {
        same(key.1.as_ref(), self.1) && same(key.0.as_ref(), self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn same_is_string_equality() {
        let empty_box: Box<str> = String::new().into_boxed_str();
        for (a, b) in [
            ("", ""),
            (&*empty_box, ""),
            ("Add", "Add"),
            ("Add", "Sub"),
            ("Add", "Ad"),
            ("", "a"),
            ("com.microsoft", "com.microsoft"),
        ] {
            assert_eq!(same(a, b), a == b, "{a:?} vs {b:?}");
        }
    }

    /// A map keyed by `(&str, &str)` or `(Box<str>, Box<str>)` finds its entries through `OpKey`,
    /// which it could not if the hashes differed.
    #[test]
    fn op_key_finds_what_the_pair_finds() {
        let mut m: hashbrown::HashMap<(&str, &str), u8> = hashbrown::HashMap::new();
        m.insert(("", "Add"), 1);
        m.insert(("com.microsoft", "Add"), 2);
        assert_eq!(m.get(&OpKey("", "Add")), Some(&1));
        assert_eq!(m.get(&OpKey("com.microsoft", "Add")), Some(&2));
        assert_eq!(m.get(&OpKey("", "Mul")), None);
        let h = m.hasher();
        assert_eq!(h.hash_one(OpKey("a", "b")), h.hash_one(("a", "b")));
        let mut owned: hashbrown::HashMap<(Box<str>, Box<str>), u8> = hashbrown::HashMap::new();
        owned.insert(("".into(), "Relu".into()), 3);
        assert_eq!(owned.get(&OpKey("", "Relu")), Some(&3));
        assert_eq!(owned.get(&OpKey("x", "Relu")), None);
    }
}
