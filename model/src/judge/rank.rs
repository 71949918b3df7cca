//! The Mann–Whitney rank test, exact for the sample sizes a run has (three
//! to forty repetitions a side), with a normal approximation beyond.
//!
//! Its statistic `U` counts the pairs (one value from each side) where the
//! first side's value is larger, ties counting a half. With no real
//! difference every interleaving of the two sets is equally likely, so the
//! chance of a `U` at least as extreme as the one seen is a count of
//! interleavings: the coefficients of the Gaussian binomial
//! `[n + m choose n]_q` (Mann and Whitney 1947).

/// Above this many pairs the exact distribution gives way to the normal
/// approximation (with the tie correction): at 60 values a side the two
/// agree to within a percent (a test holds them to it), and the exact
/// count's cost grows with the cube of the pairs.
const EXACT_PAIRS: usize = 2_500;

/// `U` of `a` against `b`: pairs with `a`'s value larger, ties a half.
pub fn u_statistic(a: &[f64], b: &[f64]) -> f64 {
    let mut u = 0.0;
    for x in a {
        for y in b {
            if x > y {
                u += 1.0;
            } else if x == y {
                u += 0.5;
            }
        }
    }
    u
}

/// Two-sided p-value of `a` against `b`; `None` when a side is empty.
pub fn p_value(a: &[f64], b: &[f64]) -> Option<f64> {
    let (n, m) = (a.len(), b.len());
    if n == 0 || m == 0 {
        return None;
    }
    let u = u_statistic(a, b);
    if n * m > EXACT_PAIRS {
        return Some(normal_p(a, b, u));
    }
    // Ties make U a half-integer; rounding it toward the centre keeps the
    // p-value from claiming more than the untied distribution allows.
    let centre = (n * m) as f64 / 2.0;
    let u = if u < centre { u.ceil() } else { u.floor() };
    Some(exact_p(n, m, u as usize))
}

/// The exact two-sided p-value of `u` for sizes `n` and `m` (no ties).
pub fn exact_p(n: usize, m: usize, u: usize) -> f64 {
    // A book's judges ask for the same few sizes hundreds of times (every
    // figure of a run has as many repetitions as the next): the
    // distribution is built once per size and thread.
    type Tables = std::collections::HashMap<(usize, usize), std::rc::Rc<Vec<f64>>>;
    thread_local! {
        static COUNTS: std::cell::RefCell<Tables> = Default::default();
    }
    let key = (n.min(m), n.max(m));
    let counts = COUNTS.with(|c| {
        c.borrow_mut()
            .entry(key)
            .or_insert_with(|| std::rc::Rc::new(interleavings(n, m)))
            .clone()
    });
    let total: f64 = counts.iter().sum();
    let low: f64 = counts[..=u.min(n * m)].iter().sum();
    let high: f64 = counts[u.min(n * m)..].iter().sum();
    (2.0 * low.min(high) / total).min(1.0)
}

/// The p-value of complete separation (every value of one side beyond
/// every value of the other): `2 / C(n + m, n)`. It needs only the sizes,
/// so it holds where a file kept a range but not the values.
pub fn separated_p(n: usize, m: usize) -> f64 {
    if n * m <= EXACT_PAIRS {
        return exact_p(n, m, 0);
    }
    // Beyond the exact tables' sizes, the closed form: building the whole
    // distribution for 180 values a side (a noise experiment's) took
    // 400 ms to read one end of it.
    let (small, large) = (n.min(m), n.max(m));
    let choose = (1..=small).fold(1.0_f64, |c, i| c * (large + i) as f64 / i as f64);
    (2.0 / choose).min(1.0)
}

/// How many interleavings of `n` and `m` values give each `U` from 0 to
/// `n * m`: the Gaussian binomial `[n + m choose n]_q`, built row by row
/// with the q-Pascal rule `[a, k] = [a-1, k-1] + q^k [a-1, k]`. Only
/// additions, so the counts stay exact in floating point far past the
/// sizes a run has.
fn interleavings(n: usize, m: usize) -> Vec<f64> {
    let k_max = n.min(m);
    // row[k] = [a choose k]_q for the current a.
    let mut row: Vec<Vec<f64>> = vec![vec![1.0]];
    for a in 1..=n + m {
        let top = k_max.min(a);
        if row.len() <= top {
            row.push(vec![1.0]);
        }
        for k in (1..=top).rev() {
            if k == a {
                row[k] = vec![1.0];
                continue;
            }
            let len = k * (a - k) + 1;
            let mut next = vec![0.0; len];
            for (d, c) in row[k - 1].iter().enumerate() {
                next[d] += c;
            }
            for (d, c) in row[k].iter().enumerate() {
                if d + k < len {
                    next[d + k] += c;
                }
            }
            row[k] = next;
        }
    }
    row.swap_remove(k_max)
}

/// The normal approximation with the tie correction of the variance.
fn normal_p(a: &[f64], b: &[f64], u: f64) -> f64 {
    let (n, m) = (a.len() as f64, b.len() as f64);
    let mut all: Vec<f64> = a.iter().chain(b).copied().collect();
    crate::sort::sort_floats(&mut all);
    let mut ties = 0.0;
    let mut i = 0;
    while i < all.len() {
        let j = all[i..].iter().take_while(|&&x| x == all[i]).count();
        let t = j as f64;
        ties += t * t * t - t;
        i += j;
    }
    let total = n + m;
    let var = n * m / 12.0 * ((total + 1.0) - ties / (total * (total - 1.0)));
    if var <= 0.0 {
        return 1.0;
    }
    let z = ((u - n * m / 2.0).abs() - 0.5).max(0.0) / var.sqrt();
    (2.0 * (1.0 - standard_normal_cdf(z))).min(1.0)
}

/// Φ(z) for z ≥ 0 (Abramowitz and Stegun 26.2.17, error below 7.5e-8).
fn standard_normal_cdf(z: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.231_641_9 * z);
    let poly = t
        * (0.319_381_530
            + t * (-0.356_563_782
                + t * (1.781_477_937 + t * (-1.821_255_978 + t * 1.330_274_429))));
    1.0 - (-z * z / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt() * poly
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binomial(n: u64, k: u64) -> f64 {
        (1..=k).fold(1.0, |acc, i| acc * (n - k + i) as f64 / i as f64)
    }

    #[test]
    fn separation_is_two_over_the_interleavings() {
        assert!((separated_p(3, 3) - 0.1).abs() < 1e-12);
        assert!((separated_p(5, 5) - 2.0 / 252.0).abs() < 1e-12);
        assert!((separated_p(9, 9) - 2.0 / binomial(18, 9)).abs() < 1e-15);
        assert!((separated_p(2, 2) - 1.0 / 3.0).abs() < 1e-12);
        // One value a side can never be told apart.
        assert_eq!(separated_p(1, 1), 1.0);
        // Past the exact tables, the closed form: it meets the table at
        // the boundary and holds 2 / C(n + m, n) far beyond it.
        let (edge, table) = (separated_p(50, 51), exact_p(50, 51, 0));
        assert!((edge - table).abs() <= 1e-12 * table, "{edge} vs {table}");
        let want = 2.0 / (1..=180).fold(1.0, |c, i| c * (180.0 + i as f64) / i as f64);
        assert!((separated_p(180, 180) - want).abs() <= 1e-12 * want);
        assert!(separated_p(180, 180) < 1e-100 && separated_p(180, 180) > 0.0);
    }

    #[test]
    fn the_counts_are_every_interleaving() {
        for (n, m) in [(1, 1), (2, 3), (3, 3), (4, 7), (9, 9), (40, 40)] {
            let c = interleavings(n, m);
            let total: f64 = c.iter().sum();
            let want = binomial((n + m) as u64, n as u64);
            assert!((total / want - 1.0).abs() < 1e-9, "{n} {m}");
            assert!(c.iter().all(|&x| x >= -1e-6), "{n} {m}: a negative count");
            // Symmetric: U and nm - U are as likely.
            let k = c.len();
            assert!((0..k).all(|i| (c[i] - c[k - 1 - i]).abs() <= 1e-9 * want));
        }
        // By hand for 2 and 2: U = 0..4 counts 1, 1, 2, 1, 1.
        assert_eq!(interleavings(2, 2), vec![1.0, 1.0, 2.0, 1.0, 1.0]);
    }

    #[test]
    fn p_values_by_hand() {
        // 3 vs 3, one pair crossed: U = 1, P(U <= 1) = 2/20, two-sided 0.2.
        let p = p_value(&[1.0, 2.0, 4.0], &[3.0, 5.0, 6.0]).unwrap();
        assert!((p - 0.2).abs() < 1e-12, "{p}");
        let p = p_value(&[4.0, 5.0, 6.0], &[1.0, 2.0, 3.0]).unwrap();
        assert!((p - 0.1).abs() < 1e-12, "{p}");
        // Identical sets: nothing at all.
        assert_eq!(p_value(&[1.0, 1.0], &[1.0, 1.0]), Some(1.0));
        assert_eq!(p_value(&[], &[1.0]), None);
    }

    #[test]
    fn the_approximation_meets_the_exact_count_where_they_hand_over() {
        // 60 vs 60 values, shifted: the exact count (past the hand-over)
        // against the normal approximation.
        let a: Vec<f64> = (0..60).map(|i| i as f64).collect();
        let b: Vec<f64> = (0..60).map(|i| i as f64 + 6.5).collect();
        let u = u_statistic(&a, &b) as usize;
        let exact = exact_p(60, 60, u);
        assert!(
            exact > 1e-3 && exact < 0.2,
            "{exact}: a p-value that matters"
        );
        let approx = normal_p(&a, &b, u as f64);
        assert!(
            (exact - approx).abs() < 0.01 * exact.max(1e-3),
            "{exact} {approx}"
        );
    }
}
