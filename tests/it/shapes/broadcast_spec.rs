//! Bounded exhaustive check of the broadcast algebra (`onnx_lint::shape::broadcast`) against the rules
//! as `docs/broadcasting.md` states them, through the public API only.
//!
//! The reference here is a direct transcription of the SONNX `Broadcast` definition (002, 0-based):
//! step 1 prepends 1s up to the largest rank, step 2 sets each axis to `dY_i` and reads elements through
//! `f(a, B, C) = a if B = C else 0`, and E1 holds when some input m and axis i have `dYm_i != dY_i` and
//! `dYm_i != 1`. The one change is `dY_i`: the drafts say "maximum", but ONNX and NumPy make a zero-size
//! axis win over 1 (and conflict with anything else), so here `dY_i` is 0 when some `dYm_i` is 0 and the
//! maximum otherwise. Written independently of the library, it is checked against `multidirectional`
//! for every pair and every triple of shapes of rank 0..=3 with sizes in {0, 1, 2, 3}; for pairs, the
//! element mapping through `f` is also checked against a naive broadcast that clamps indices of size-1
//! axes. Commutativity (001: any permutation of the inputs) and the fold into the binary form (001:
//! `Broadcast(X1, X2, X3) = Broadcast(Broadcast(X1, X2), X3)`) are checked on the same sets.
//! Symbolic and unknown dims are then checked for soundness against every substitution of small sizes.

use onnx_lint::shape::broadcast::*;
use onnx_lint::shape::dim::*;
use std::collections::{BTreeMap, BTreeSet};

const SIZES: [u64; 4] = [0, 1, 2, 3];

/// Every list of `rank` items drawn from `alphabet`, for each rank in `0..=max_rank`.
fn lists<T: Clone>(alphabet: &[T], max_rank: usize) -> Vec<Vec<T>> {
    let mut all = vec![vec![]];
    let mut last = vec![vec![]];
    for _ in 0..max_rank {
        let next: Vec<Vec<T>> = last
            .iter()
            .flat_map(|prefix: &Vec<T>| {
                alphabet.iter().map(move |x| {
                    let mut v = prefix.clone();
                    v.push(x.clone());
                    v
                })
            })
            .collect();
        all.extend(next.iter().cloned());
        last = next;
    }
    all
}

fn known(dims: &[u64]) -> Shape {
    Some(dims.iter().map(|&d| Dim::Known(d)).collect())
}

// ---- The reference: a transcription of 002 -------------------------------------------------------

/// The spec's view of a set of concrete input shapes.
struct Spec {
    /// nY: the common number of dimensions.
    ny: usize,
    /// dYm: the input shapes after step 1.
    ys: Vec<Vec<u64>>,
    /// dY: the output shape (meaningful on axes without E1).
    dy: Vec<u64>,
    /// The axes i for which E1 holds for some m.
    e1: BTreeSet<usize>,
}

fn spec(xs: &[Vec<u64>]) -> Spec {
    // Step 1: nY = max nXm; dYm_i = 1 if i < nY - nXm, else dXm_{i - nY + nXm}.
    let ny = xs.iter().map(Vec::len).max().unwrap_or(0);
    let ys: Vec<Vec<u64>> = xs
        .iter()
        .map(|x| {
            let nx = x.len();
            (0..ny)
                .map(|i| if i < ny - nx { 1 } else { x[i + nx - ny] })
                .collect()
        })
        .collect();
    // dY_i = max_m dYm_i, except that 0 wins (ONNX, NumPy).
    let dy: Vec<u64> = (0..ny)
        .map(|i| {
            if ys.iter().any(|y| y[i] == 0) {
                0
            } else {
                ys.iter().map(|y| y[i]).max().unwrap_or(1)
            }
        })
        .collect();
    // E1: exists m, i with dYm_i != dY_i and dYm_i != 1.
    let e1 = (0..ny)
        .filter(|&i| ys.iter().any(|y| y[i] != dy[i] && y[i] != 1))
        .collect();
    Spec { ny, ys, dy, e1 }
}

/// f(a, B, C) of 002: a if B = C, else 0.
fn f(a: usize, b: u64, c: u64) -> usize {
    if b == c { a } else { 0 }
}

/// Row-major multi-indices of `shape`.
fn indices(shape: &[u64]) -> Vec<Vec<usize>> {
    let mut all = vec![vec![]];
    for &n in shape {
        all = all
            .into_iter()
            .flat_map(|prefix: Vec<usize>| {
                (0..n as usize).map(move |k| {
                    let mut v = prefix.clone();
                    v.push(k);
                    v
                })
            })
            .collect();
    }
    all
}

fn linear(shape: &[u64], index: &[usize]) -> usize {
    shape
        .iter()
        .zip(index)
        .fold(0, |acc, (&n, &k)| acc * n as usize + k)
}

/// Zm by the spec: Zm[i] = Ym[f(i_0, dYm_0, dY_0), ...], with Ym[1, ..., 1, i'] = Xm[i'].
fn z_by_spec(s: &Spec, m: usize, x: &[u64], data: &[u64]) -> Vec<u64> {
    indices(&s.dy)
        .iter()
        .map(|i| {
            let j: Vec<usize> = (0..s.ny).map(|k| f(i[k], s.ys[m][k], s.dy[k])).collect();
            let (prepended, i_prime) = j.split_at(s.ny - x.len());
            assert!(
                prepended.iter().all(|&k| k == 0),
                "step 1 only adds axes of size 1"
            );
            data[linear(x, i_prime)]
        })
        .collect()
}

/// Zm by a naive broadcast: for each output index, the input index right-aligned, clamped to 0 on the
/// input's axes of size 1.
fn z_naive(out: &[u64], x: &[u64], data: &[u64]) -> Vec<u64> {
    indices(out)
        .iter()
        .map(|i| {
            let offset = out.len() - x.len();
            let idx: Vec<usize> = x
                .iter()
                .enumerate()
                .map(|(t, &n)| if n == 1 { 0 } else { i[offset + t] })
                .collect();
            data[linear(x, &idx)]
        })
        .collect()
}

// ---- Checks on concrete shapes ---------------------------------------------------------------------

/// The conflicts as axis -> sorted sizes, which must not depend on the order of the inputs.
fn conflict_map(o: &Outcome) -> BTreeMap<usize, Vec<u64>> {
    o.conflicts
        .iter()
        .map(|c| {
            let mut sizes: Vec<u64> = c.sizes.iter().map(|&(_, n)| n).collect();
            sizes.sort_unstable();
            (c.axis, sizes)
        })
        .collect()
}

/// `multidirectional` agrees with the transcription of the spec on concrete shapes.
fn check_against_spec(xs: &[Vec<u64>]) -> Outcome {
    let shapes: Vec<Shape> = xs.iter().map(|x| known(x)).collect();
    let o = multidirectional(&shapes);
    let s = spec(xs);
    let ctx = || format!("inputs {xs:?}: {o:?}");
    let axes: BTreeSet<usize> = o.conflicts.iter().map(|c| c.axis).collect();
    assert_eq!(axes, s.e1, "E1 axes, {}", ctx());
    assert_eq!(
        axes.len(),
        o.conflicts.len(),
        "one conflict per axis, {}",
        ctx()
    );
    assert!(o.possible.is_empty() && o.rank_error.is_none(), "{}", ctx());
    let expected: Vec<Dim> = (0..s.ny)
        .map(|i| {
            if s.e1.contains(&i) {
                Dim::Unknown
            } else {
                Dim::Known(s.dy[i])
            }
        })
        .collect();
    assert_eq!(o.shape, Some(expected), "{}", ctx());
    for c in &o.conflicts {
        let sizes: Vec<(usize, u64)> =
            s.ys.iter()
                .enumerate()
                .filter(|(_, y)| y[c.axis] != 1)
                .map(|(m, y)| (m, y[c.axis]))
                .collect();
        assert_eq!(c.sizes, sizes, "{}", ctx());
        assert_eq!(c.axis_from_end, c.axis as i64 - s.ny as i64, "{}", ctx());
    }
    o
}

/// For inputs without E1, the elements of each Zm through `f` are those of a naive broadcast.
fn check_elements(xs: &[Vec<u64>], o: &Outcome) {
    let s = spec(xs);
    if !s.e1.is_empty() {
        return;
    }
    let out: Vec<u64> = o
        .shape
        .iter()
        .flatten()
        .map(|d| {
            d.known()
                .expect("a concrete broadcast has a concrete result")
        })
        .collect();
    for (m, x) in xs.iter().enumerate() {
        // Distinct values in every input, so that reading a wrong element cannot go unnoticed.
        let n: u64 = x.iter().product();
        let data: Vec<u64> = (0..n).map(|k| 1000 * m as u64 + k).collect();
        assert_eq!(
            z_by_spec(&s, m, x, &data),
            z_naive(&out, x, &data),
            "elements of Z{m}, inputs {xs:?}"
        );
    }
}

/// Every permutation of `items`.
fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut all = Vec::new();
    for k in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(k);
        for mut p in permutations(&rest) {
            p.insert(0, first.clone());
            all.push(p);
        }
    }
    all
}

/// Broadcast(X1, X2, X3) = Broadcast(Broadcast(X1, X2), X3) = Broadcast(X1, Broadcast(X2, X3)), given
/// `ab` and `bc`, the binary broadcasts, and `o`, the ternary one.
fn check_fold(abc: [&Shape; 3], ab: &Outcome, bc: &Outcome, o: &Outcome) {
    let [a, _, c] = abc;
    let left = multidirectional(&[ab.shape.clone(), c.clone()]);
    let right = multidirectional(&[a.clone(), bc.shape.clone()]);
    let ctx = || format!("{abc:?}");
    assert_eq!(o.is_error(), ab.is_error() || left.is_error(), "{}", ctx());
    assert_eq!(o.is_error(), bc.is_error() || right.is_error(), "{}", ctx());
    if !o.is_error() {
        assert_eq!(left.shape, o.shape, "{}", ctx());
        assert_eq!(right.shape, o.shape, "{}", ctx());
    }
}

/// The same outcome up to the order of the inputs.
fn assert_same_up_to_order(o: &Outcome, q: &Outcome, ctx: &dyn Fn() -> String) {
    assert_eq!(q.shape, o.shape, "{}", ctx());
    assert_eq!(conflict_map(q), conflict_map(o), "{}", ctx());
    assert_eq!(q.rank_error, o.rank_error, "{}", ctx());
    let conditions = |o: &Outcome| -> BTreeSet<(usize, String)> {
        o.possible
            .iter()
            .map(|c| (c.axis, c.condition.clone()))
            .collect()
    };
    assert_eq!(conditions(q), conditions(o), "{}", ctx());
}

fn check_commutative(shapes: &[Shape], o: &Outcome) {
    for p in permutations(shapes) {
        let q = multidirectional(&p);
        assert_same_up_to_order(o, &q, &|| format!("{shapes:?} permuted to {p:?}"));
    }
}

#[test]
fn all_pairs_match_the_spec_elements_commute() {
    let shapes = lists(&SIZES, 3);
    assert_eq!(shapes.len(), 85);
    let mut e1 = 0;
    for a in &shapes {
        for b in &shapes {
            let xs = [a.clone(), b.clone()];
            let o = check_against_spec(&xs);
            check_elements(&xs, &o);
            check_commutative(&[known(a), known(b)], &o);
            e1 += usize::from(o.is_error());
        }
    }
    // Both outcomes occur in numbers, so neither half of the check is vacuous.
    assert!(e1 > 1000 && e1 < 85 * 85 - 1000, "{e1} pairs with E1");
}

#[test]
fn all_triples_match_the_spec_commute_and_fold() {
    // Each multiset of three shapes is taken once, and each of its orderings compared with the spec and
    // with the first ordering: every ordered triple is checked, and commutativity costs nothing more.
    let shapes = lists(&SIZES, 3);
    let known_shapes: Vec<Shape> = shapes.iter().map(|s| known(s)).collect();
    let n = shapes.len();
    let pairs: Vec<Vec<Outcome>> = known_shapes
        .iter()
        .map(|a| {
            known_shapes
                .iter()
                .map(|b| multidirectional(&[a.clone(), b.clone()]))
                .collect()
        })
        .collect();
    let mut checked = 0;
    for i in 0..n {
        for j in i..n {
            for k in j..n {
                let orders: BTreeSet<Vec<usize>> = permutations(&[i, j, k]).into_iter().collect();
                let first =
                    check_against_spec(&[shapes[i].clone(), shapes[j].clone(), shapes[k].clone()]);
                for p in &orders {
                    let (a, b, c) = (p[0], p[1], p[2]);
                    let o = check_against_spec(&[
                        shapes[a].clone(),
                        shapes[b].clone(),
                        shapes[c].clone(),
                    ]);
                    assert_same_up_to_order(&first, &o, &|| format!("{p:?} of {:?}", [i, j, k]));
                    let abc = [&known_shapes[a], &known_shapes[b], &known_shapes[c]];
                    check_fold(abc, &pairs[a][b], &pairs[b][c], &o);
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, n * n * n);
}

#[test]
fn element_mapping_of_a_worked_example() {
    // 003's (2, 1, 5) with (4, 1): every element of Z0 repeats X0 along the middle axis.
    let xs = [vec![2, 1, 5], vec![4, 1]];
    let o = check_against_spec(&xs);
    assert_eq!(o.shape, known(&[2, 4, 5]));
    check_elements(&xs, &o);
    let s = spec(&xs);
    let data: Vec<u64> = (0..10).collect();
    let z0 = z_by_spec(&s, 0, &xs[0], &data);
    assert_eq!(&z0[..10], &[0, 1, 2, 3, 4, 0, 1, 2, 3, 4]);
    assert_eq!(&z0[20..25], &[5, 6, 7, 8, 9]);
}

// ---- Symbolic and unknown dims ---------------------------------------------------------------------

/// A dim of the symbolic alphabet.
fn alphabet() -> Vec<Dim> {
    vec![
        Dim::Known(0),
        Dim::Known(1),
        Dim::Known(3),
        Dim::sym("N"),
        Dim::sym("M"),
        Dim::Unknown,
    ]
}

/// The size of `d` when the symbols take the sizes of `env`; `None` when unknown or inconsistent.
fn eval(d: &Dim, env: &BTreeMap<&str, u64>) -> Option<u64> {
    match d {
        Dim::Known(n) => Some(*n),
        Dim::Sym(e) => eval_sym(e, env),
        Dim::Unknown => None,
    }
}

fn eval_sym(e: &SymExpr, env: &BTreeMap<&str, u64>) -> Option<u64> {
    match e {
        SymExpr::Var(name) => env.get(&**name).copied(),
        SymExpr::Broadcast(parts) => {
            let sizes: Option<Vec<u64>> = parts.iter().map(|p| eval_sym(p, env)).collect();
            let big: BTreeSet<u64> = sizes?.into_iter().filter(|&n| n != 1).collect();
            match big.len() {
                0 => Some(1),
                1 => big.first().copied(),
                _ => None,
            }
        }
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// Every way of giving each unknown dim of `shapes` a size from `SIZES`.
fn fill_unknowns(shapes: &[Vec<Dim>]) -> Vec<Vec<Vec<Dim>>> {
    let mut all = vec![shapes.to_vec()];
    for (m, s) in shapes.iter().enumerate() {
        for (k, d) in s.iter().enumerate() {
            if *d == Dim::Unknown {
                all = all
                    .into_iter()
                    .flat_map(|v| {
                        SIZES.iter().map(move |&n| {
                            let mut w = v.clone();
                            w[m][k] = Dim::Known(n);
                            w
                        })
                    })
                    .collect();
            }
        }
    }
    all
}

/// Soundness of the symbolic outcome against every substitution of sizes for symbols and unknowns:
/// a definite conflict is E1 whatever they are; a concrete E1 on an axis is reported there as a
/// conflict or a condition, or the axis has an unknown dim; and whenever the concrete model is valid,
/// the result agrees with it (an unknown result dim agrees with anything).
fn check_sound(shapes: &[Vec<Dim>]) {
    let o = multidirectional(&shapes.iter().cloned().map(Some).collect::<Vec<_>>());
    let ny = shapes.iter().map(Vec::len).max().unwrap_or(0);
    let Some(out) = &o.shape else {
        panic!("known ranks give a known rank: {shapes:?}")
    };
    let has_unknown = |i: usize| {
        shapes
            .iter()
            .any(|s| s.len() + i >= ny && s[s.len() + i - ny] == Dim::Unknown)
    };
    let conflict_axes: BTreeSet<usize> = o.conflicts.iter().map(|c| c.axis).collect();
    let possible_axes: BTreeSet<usize> = o.possible.iter().map(|c| c.axis).collect();
    for filled in fill_unknowns(shapes) {
        for n in SIZES {
            for m in SIZES {
                let env = BTreeMap::from([("N", n), ("M", m)]);
                let xs: Vec<Vec<u64>> = filled
                    .iter()
                    .map(|s| {
                        s.iter()
                            .map(|d| eval(d, &env).unwrap_or(u64::MAX))
                            .collect()
                    })
                    .collect();
                let s = spec(&xs);
                let ctx = || format!("{shapes:?} with N={n}, M={m}, filled {xs:?}: {o:?}");
                assert!(conflict_axes.is_subset(&s.e1), "unsound E1, {}", ctx());
                for &i in &s.e1 {
                    assert!(
                        conflict_axes.contains(&i) || possible_axes.contains(&i) || has_unknown(i),
                        "unreported E1 on axis {i}, {}",
                        ctx()
                    );
                }
                if s.e1.is_empty() {
                    for (i, d) in out.iter().enumerate() {
                        if *d != Dim::Unknown {
                            assert_eq!(eval(d, &env), Some(s.dy[i]), "axis {i}, {}", ctx());
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn symbolic_pairs_are_sound_for_every_substitution() {
    let shapes = lists(&alphabet(), 2);
    for a in &shapes {
        for b in &shapes {
            check_sound(&[a.clone(), b.clone()]);
        }
    }
}

#[test]
fn symbolic_triples_without_unknowns_are_sound_for_every_substitution() {
    let no_unknown: Vec<Dim> = alphabet()
        .into_iter()
        .filter(|d| *d != Dim::Unknown)
        .collect();
    let shapes = lists(&no_unknown, 2);
    for a in &shapes {
        for b in &shapes {
            for c in &shapes {
                check_sound(&[a.clone(), b.clone(), c.clone()]);
            }
        }
    }
}

#[test]
fn symbolic_and_unknown_rank_inputs_commute_and_fold() {
    let mut shapes: Vec<Shape> = lists(&alphabet(), 2).into_iter().map(Some).collect();
    shapes.push(None);
    for a in &shapes {
        for b in &shapes {
            let o = multidirectional(&[a.clone(), b.clone()]);
            check_commutative(&[a.clone(), b.clone()], &o);
            for c in &shapes {
                let o = multidirectional(&[a.clone(), b.clone(), c.clone()]);
                check_commutative(&[a.clone(), b.clone(), c.clone()], &o);
                // An input of unknown rank hides the others' conflicts from a fold that meets it
                // first, so the fold is compared only on known ranks.
                if a.is_some() && b.is_some() && c.is_some() {
                    let ab = multidirectional(&[a.clone(), b.clone()]);
                    let bc = multidirectional(&[b.clone(), c.clone()]);
                    check_fold([a, b, c], &ab, &bc, &o);
                }
            }
        }
    }
}

#[test]
fn bidirectional_is_multidirectional_of_the_two() {
    let shapes: Vec<Shape> = lists(&SIZES, 3).iter().map(|s| known(s)).collect();
    for a in &shapes {
        for b in &shapes {
            assert_eq!(
                bidirectional(a, b),
                multidirectional(&[a.clone(), b.clone()])
            );
        }
    }
}

#[test]
fn unidirectional_is_multidirectional_that_keeps_a() {
    // On concrete shapes, B broadcasts to A exactly when rank(B) <= rank(A) and broadcasting both
    // gives A back.
    let shapes: Vec<Vec<u64>> = lists(&SIZES, 3);
    for a in &shapes {
        for b in &shapes {
            let o = unidirectional(&known(a), &known(b));
            let both = multidirectional(&[known(a), known(b)]);
            let expected_ok = b.len() <= a.len() && !both.is_error() && both.shape == known(a);
            assert_eq!(!o.is_error(), expected_ok, "{a:?} <- {b:?}: {o:?}");
            assert_eq!(o.shape, known(a));
            assert_eq!(o.rank_error.is_some(), b.len() > a.len());
        }
    }
}

#[test]
fn none_is_equality_of_concrete_shapes() {
    let shapes: Vec<Vec<u64>> = lists(&SIZES, 3);
    for a in &shapes {
        for b in &shapes {
            let o = none(&[known(a), known(b)]);
            assert_eq!(!o.is_error(), a == b, "{a:?} {b:?}: {o:?}");
        }
    }
}

#[test]
fn legacy_axis_is_placement_of_b_without_trailing_ones() {
    // B, without trailing 1s, laid on A from `axis`: each of its dims 1 or equal to A's.
    let shapes: Vec<Vec<u64>> = lists(&SIZES, 3);
    for a in &shapes {
        for b in &shapes {
            for axis in [None, Some(-2), Some(0), Some(1), Some(2), Some(3), Some(4)] {
                let o = legacy_axis(&known(a), &known(b), axis);
                let core = &b[..b.len() - b.iter().rev().take_while(|&&d| d == 1).count()];
                let start = match axis {
                    None => a.len().checked_sub(b.len()),
                    Some(x) => usize::try_from(x).ok(),
                };
                let expected_ok = b.len() <= a.len()
                    && start.is_some_and(|s| {
                        s + core.len() <= a.len()
                            && core
                                .iter()
                                .enumerate()
                                .all(|(j, &d)| d == 1 || d == a[s + j])
                    });
                assert_eq!(
                    !o.is_error(),
                    expected_ok,
                    "{a:?} {b:?} axis {axis:?}: {o:?}"
                );
                assert_eq!(o.shape, known(a));
            }
        }
    }
}

#[test]
fn no_rule_panics_on_odd_inputs() {
    let huge = Some(vec![Dim::Known(u64::MAX), Dim::Known(0)]);
    let odd = [
        None,
        Some(vec![]),
        huge.clone(),
        Some(vec![Dim::Unknown; 5]),
    ];
    for a in &odd {
        for b in &odd {
            let _ = multidirectional(&[a.clone(), b.clone()]);
            let _ = unidirectional(a, b);
            let _ = none(&[a.clone(), b.clone()]);
            for axis in [None, Some(i64::MIN), Some(-1), Some(i64::MAX)] {
                let _ = legacy_axis(a, b, axis);
            }
        }
    }
    assert_eq!(multidirectional(&[]).shape, Some(vec![]));
    assert_eq!(none(&[]).shape, None);
}
