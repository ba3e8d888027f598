//! Sorting the positions an edit removes: dense, in no order a general sort likes, so sorted as the
//! set bits of a bitmap (see [`sort_distinct`]).

/// The most 64-bit words of [`sort_distinct`]'s bitmap per removal: past that the list is sparse, and
/// a sort costs less than the bitmap.
const BITMAP_WORDS_PER_ITEM: usize = 4;

/// Sorts `v` and drops repeats. A pass's removals are node positions, in no order a general sort
/// likes: removing the 1.8 million inserted nodes of the million-node benchmark model made explicit
/// queues 900,000 in descending order and 900,000 in ascending, which `sort_unstable` took 32 ms to
/// sort, twice (the count reported sorted a copy). Positions are dense, so they are sorted as the set bits of a bitmap instead: linear, 5 ms
/// for those.
pub(super) fn sort_distinct(v: &mut Vec<u32>) {
    if v.is_sorted_by(|a, b| a < b) {
        return;
    }
    let Some(&max) = v.iter().max() else {
        return;
    };
    let words = max as usize / 64 + 1;
    if words > v.len().saturating_mul(BITMAP_WORDS_PER_ITEM) {
        v.sort_unstable();
        v.dedup();
        return;
    }
    let mut bits = vec![0u64; words];
    for &x in v.iter() {
        bits[x as usize / 64] |= 1 << (x % 64);
    }
    v.clear();
    for (w, &word) in bits.iter().enumerate() {
        let mut rest = word;
        while rest != 0 {
            // A set bit stands for a value of `v`, so the position fits a u32.
            v.push((w * 64) as u32 + rest.trailing_zeros());
            rest &= rest - 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sort_distinct;

    /// `sort_distinct` of `v` against a plain sort and dedup.
    fn agrees(v: Vec<u32>) {
        let mut want = v.clone();
        want.sort_unstable();
        want.dedup();
        let mut got = v.clone();
        sort_distinct(&mut got);
        assert_eq!(got, want, "from {v:?}");
    }

    #[test]
    fn sort_distinct_agrees_with_a_sort_and_dedup_dense_or_sparse() {
        agrees(Vec::new());
        agrees(vec![7]);
        // Descending then ascending, as a pass's removals come; pairs swapped; scrambled.
        let mut both: Vec<u32> = (0..500u32).rev().map(|i| 3 * i + 1).collect();
        both.extend((0..500u32).map(|i| 3 * i));
        agrees(both);
        agrees((0..1000u32).map(|i| i ^ 1).collect());
        agrees(
            (0..1000u32)
                .map(|i| i.wrapping_mul(2_654_435_761) % 997)
                .collect(),
        );
        // Repeats, in order and not; the ends of a 64-bit word and of the u32 range.
        agrees(vec![3, 3, 1, 2, 2, 0, 3]);
        agrees(vec![5, 5, 5, 5]);
        agrees(vec![128, 63, 64, 0, 127, 65]);
        // Sparse: sorted by the general sort, not the bitmap.
        agrees(vec![u32::MAX, 0, u32::MAX - 1, 7, u32::MAX]);
        agrees(vec![1 << 20, 3, 1 << 19]);
    }
}
