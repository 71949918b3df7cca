//! Where a one-load-per-page chase puts each page's line, so that the
//! lines fall in every cache set whatever the pages' physical placement.
//!
//! A set-associative cache takes a line's set from the physical address
//! bits just above the line offset (bit 6 up). Within a 4 KiB page only
//! bits 6..12 are the program's to choose; the bits above come from the
//! frame. On 4 KiB pages the kernel's frames scatter them. On memory that
//! is physically contiguous (a huge page, where the host backs it with one
//! too) they are the page number's own bits, and a line offset that
//! follows the page number's low bits only, `(i * 13) mod 64`, repeats
//! every 64 pages, as those bits do: on a 2 MiB, 16-way L2 (2048 sets, bits
//! 6..17) pages `i` and `i + 64` share a set, so the lines use 64 sets,
//! which hold 64 x 16 = 1024 of them. Past 1024 pages they spill to L3 with
//! the data far smaller than L2: the Xeon run's huge-page curve jumped from
//! 8 to 30 ns between 1024 and 1280 pages with 80 KiB touched.
//!
//! [`line`] folds the page number's higher bits in: bit `p` of the offset
//! (before the odd multiplier) is `i[p] ^ i[p + 6] ^ i[p + 12]`. Any six
//! consecutive bits `i[m..m + 6]`, `m <= 12`, hold exactly one of those
//! three for every `p`, so with the page number's other bits held the
//! offset is a bijection of those six: pages `2^m` apart (the ones that
//! share the low set bits on contiguous memory) take 64 different offsets.
//! On contiguous memory every aligned run of `2^k` pages then puts one line
//! in each set of a cache of `2^k` sets, for any `k <= 18`.

/// Bytes per cache line.
pub const LINE: u64 = 64;
/// Lines per 4 KiB page.
const LINES_PER_PAGE: u64 = 64;

/// The line (0..64) page `i` holds its one load in: the folded page number
/// times `step` (odd, so still a bijection), mod 64.
pub fn line(i: u64, step: u64) -> u64 {
    debug_assert!(step % 2 == 1, "an odd step keeps the offsets a bijection");
    let folded = (i ^ (i >> 6) ^ (i >> 12)) % LINES_PER_PAGE;
    folded.wrapping_mul(step) % LINES_PER_PAGE
}

/// The line before schema 6: `(i * step) mod 64`, a function of the page
/// number's low six bits only.
pub fn line_unfolded(i: u64, step: u64) -> u64 {
    i.wrapping_mul(step) % LINES_PER_PAGE
}

/// The most lines any one set of a cache with `sets` sets (a power of two)
/// receives when the lines at `lines` (indices of 64-byte lines in a
/// physically contiguous range: byte address / 64) are all loaded.
pub fn most_in_one_set(lines: impl Iterator<Item = u64>, sets: u64) -> u64 {
    assert!(sets.is_power_of_two(), "set counts are powers of two");
    let mut count = vec![0u64; sets as usize];
    for l in lines {
        count[(l % sets) as usize] += 1;
    }
    count.into_iter().max().unwrap_or(0)
}

/// The lines a chase of `pages` pages at 4 KiB apart loads, on physically
/// contiguous memory starting at a set boundary: page `i`'s line is
/// `i * 64 + line(i)`.
pub fn contiguous_lines(pages: u64, line_of: impl Fn(u64) -> u64) -> impl Iterator<Item = u64> {
    (0..pages).map(move |i| i * LINES_PER_PAGE + line_of(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fewest lines the fullest set can hold: an even share.
    fn even(lines: u64, sets: u64) -> u64 {
        lines.div_ceil(sets)
    }

    #[test]
    fn folded_offsets_fill_every_set_of_every_cache_on_contiguous_memory() {
        // Set counts from an L1d's 64 to 2^15, page counts from a few to
        // 32768 (a huge page is 512 pages, tlb-reach's largest point is
        // 16384 on a 2 MiB L2).
        for sets in (6..=15).map(|k| 1u64 << k) {
            for pages in [7, 64, 100, 513, 1024, 1280, 2048, 5000, 16384, 32768] {
                let most = most_in_one_set(contiguous_lines(pages, |i| line(i, 13)), sets);
                assert!(
                    most <= even(pages, sets),
                    "{pages} pages, {sets} sets: {most} lines in one set, even is {}",
                    even(pages, sets)
                );
            }
        }
    }

    #[test]
    fn the_old_offsets_used_64_sets_of_a_2048_set_l2() {
        // The Xeon run's L2: 2 MiB, 16-way, 64-byte lines = 2048 sets.
        let sets = (2 << 20) / (16 * 64);
        assert_eq!(sets, 2048);
        let used = |pages: u64, line_of: fn(u64, u64) -> u64| {
            let mut seen: Vec<u64> = contiguous_lines(pages, |i| line_of(i, 13))
                .map(|l| l % sets)
                .collect();
            seen.sort_unstable();
            seen.dedup();
            seen.len() as u64
        };
        // Old: set bits 6..17 are (i mod 32, 13i mod 64), both fixed by
        // i mod 64: 64 sets whatever the page count.
        assert_eq!(used(1024, line_unfolded), 64);
        assert_eq!(used(16384, line_unfolded), 64);
        // 64 sets x 16 ways hold 1024 lines: the 1025th page spills.
        let old_most = most_in_one_set(contiguous_lines(1280, |i| line_unfolded(i, 13)), sets);
        assert_eq!(old_most, 20, "1280 lines over 64 sets");
        assert!(old_most > 16);
        // Folded: one set per page up to 2048 pages.
        assert_eq!(used(1024, line), 1024);
        assert_eq!(used(2048, line), 2048);
        // The L1d (48 KiB, 12-way: 64 sets, bits 6..12) was never the
        // problem: the old offsets filled it evenly too.
        assert_eq!(
            most_in_one_set(contiguous_lines(768, |i| line_unfolded(i, 13)), 64),
            12
        );
    }

    #[test]
    fn any_aligned_64_pages_take_every_offset_once() {
        // On 4 KiB frames (any placement) the offset alone picks an L1d
        // set: every aligned block of 64 pages fills all 64.
        for start in [0u64, 64, 4032, 4096, 1 << 20, (1 << 20) + 4160] {
            let mut lines: Vec<u64> = (start..start + 64).map(|i| line(i, 13)).collect();
            lines.sort_unstable();
            lines.dedup();
            assert_eq!(lines.len(), 64, "from page {start}");
        }
    }
}
