//! Sorting for the modules that ship in the page: a heap sort of a few
//! lines, in place, O(n log n), not stable. Each instantiation of the
//! standard library's sorts is several kilobytes of WebAssembly (there
//! were seven in the experiments' worker); this is a few hundred bytes.
//! Tested against the standard sort below.

/// Sorts `v` so that no element is `less` than the one before it. Equal
/// elements may change places: for keys where they are interchangeable.
pub fn heap_sort_by<T>(v: &mut [T], less: fn(&T, &T) -> bool) {
    // Moves v[root] down until neither child within v[..end] is greater.
    let sift_down = |v: &mut [T], mut root: usize, end: usize| loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && less(&v[child], &v[child + 1]) {
            child += 1;
        }
        if !less(&v[root], &v[child]) {
            return;
        }
        v.swap(root, child);
        root = child;
    };
    for root in (0..v.len() / 2).rev() {
        sift_down(v, root, v.len());
    }
    for end in (1..v.len()).rev() {
        v.swap(0, end);
        sift_down(v, 0, end);
    }
}

/// Floats in `f64::total_cmp` order (-NaN, -inf, ..., -0, 0, ..., inf, NaN).
pub fn sort_floats(v: &mut [f64]) {
    heap_sort_by(v, |a, b| a.total_cmp(b).is_lt());
}

#[cfg(test)]
mod tests {
    use super::{heap_sort_by, sort_floats};

    /// The same order as the standard library's sort, to the bit: random
    /// lengths, duplicates, signed zeros, infinities and NaNs.
    #[test]
    fn floats_sort_as_total_cmp_orders_them() {
        let mut rng = fastrand::Rng::with_seed(11);
        let specials = [
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            1.0,
        ];
        for len in (0..40).chain([257, 1000]) {
            let mut v: Vec<f64> = (0..len)
                .map(|_| match rng.u8(..4) {
                    0 => specials[rng.usize(..specials.len())],
                    1 => f64::from(rng.i32(-5..5)),
                    _ => rng.f64() * 1e6 - 5e5,
                })
                .collect();
            let mut want = v.clone();
            want.sort_by(f64::total_cmp);
            sort_floats(&mut v);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&v), bits(&want), "length {len}");
        }
    }

    #[test]
    fn whole_numbers_sort_as_sort_unstable_does() {
        let mut rng = fastrand::Rng::with_seed(5);
        for len in 0..200 {
            let mut v: Vec<u64> = (0..len).map(|_| rng.u64(..50)).collect();
            let mut want = v.clone();
            want.sort_unstable();
            heap_sort_by(&mut v, |a, b| a < b);
            assert_eq!(v, want);
        }
    }
}
