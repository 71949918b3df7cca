//! The arithmetic of a 4-level x86-64 page walk: which bits of an address
//! index which table, and where the offset starts, for each page size.

/// The page sizes a 4-level x86-64 walk can end at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageSize {
    K4,
    M2,
    G1,
}

impl PageSize {
    /// Bits of the address that are the offset inside the page.
    pub fn offset_bits(self) -> u32 {
        match self {
            PageSize::K4 => 12,
            PageSize::M2 => 21,
            PageSize::G1 => 30,
        }
    }

    /// How many table levels the walk reads (4, 3 or 2).
    pub fn levels(self) -> usize {
        match self {
            PageSize::K4 => 4,
            PageSize::M2 => 3,
            PageSize::G1 => 2,
        }
    }
}

/// An address cut up for a walk: the index into each level that is read
/// (PML4, PDPT, then PD and PT when the page is that small) and the offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    pub indexes: Vec<u16>,
    pub offset: u64,
}

/// Cuts `va` into its indexes and offset; `None` when it is not canonical
/// (bits 63..48 must repeat bit 47), which the CPU refuses before any walk.
pub fn decode(va: u64, size: PageSize) -> Option<Decoded> {
    let top = va >> 47;
    if top != 0 && top != (1 << 17) - 1 {
        return None;
    }
    let indexes = (0..size.levels())
        .map(|level| ((va >> (39 - 9 * level)) & 0x1ff) as u16)
        .collect();
    Some(Decoded {
        indexes,
        offset: va & ((1u64 << size.offset_bits()) - 1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_known_addresses() {
        // The top of a user stack: the last user PML4 slot, the page below the top.
        assert_eq!(
            decode(0x0000_7fff_ffff_e000, PageSize::K4),
            Some(Decoded {
                indexes: vec![255, 511, 511, 510],
                offset: 0
            })
        );
        // A non-PIE program's text at 4 MiB + 4 KiB + 0x123.
        assert_eq!(
            decode(0x0000_0000_0040_1123, PageSize::K4),
            Some(Decoded {
                indexes: vec![0, 0, 2, 1],
                offset: 0x123
            })
        );
        // The kernel's text mapping on 2 MiB pages: upper half, slot 511.
        assert_eq!(
            decode(0xffff_ffff_8100_0abc, PageSize::M2),
            Some(Decoded {
                indexes: vec![511, 510, 8],
                offset: 0xabc
            })
        );
    }

    #[test]
    fn huge_pages_widen_the_offset_and_shorten_the_walk() {
        let va = 0x0000_7ffd_8a3b_2c10;
        let g = decode(va, PageSize::G1).unwrap();
        assert_eq!(g.indexes.len(), 2);
        assert_eq!(g.offset, va & 0x3fff_ffff);
        let k = decode(va, PageSize::K4).unwrap();
        // Same upper indexes whatever the page size.
        assert_eq!(k.indexes[..2], g.indexes[..]);
    }

    #[test]
    fn non_canonical_addresses_are_refused() {
        assert_eq!(decode(0x0000_8000_0000_0000, PageSize::K4), None);
        assert_eq!(decode(0xffff_7fff_ffff_ffff, PageSize::K4), None);
        assert!(decode(0xffff_8000_0000_0000, PageSize::K4).is_some());
    }
}
