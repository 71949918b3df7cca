//! Parsers for the kernel's text files. Each parser is a pure function on the
//! file's text so it can be tested on samples; the `read_*` helpers are the
//! only place that touches `/proc`.

use std::collections::BTreeMap;
use std::io;

use pagewalk_model::{BuddyZone, MemorySnapshot};

/// `/proc/vmstat`: `name value` per line.
pub fn parse_vmstat(text: &str) -> BTreeMap<String, i64> {
    text.lines()
        .filter_map(|line| {
            let (name, value) = line.split_once(' ')?;
            Some((name.to_string(), value.trim().parse().ok()?))
        })
        .collect()
}

/// `/proc/meminfo` and `/proc/self/smaps_rollup`: `Name:   1234 kB` per line.
/// Lines without a number (the rollup's address header) are left out; values
/// without a unit (`HugePages_Total`) are kept as they are.
pub fn parse_kib_fields(text: &str) -> BTreeMap<String, u64> {
    text.lines()
        .filter_map(|line| {
            let (name, rest) = line.split_once(':')?;
            // The rollup's header (`5605f7a90000-7ffd806d4000 ---p 00000000 00:00 0`)
            // also has a colon; field names never contain spaces.
            if name.contains(char::is_whitespace) {
                return None;
            }
            let value = rest.split_whitespace().next()?.parse().ok()?;
            Some((name.to_string(), value))
        })
        .collect()
}

/// `/proc/buddyinfo`: `Node 0, zone   Normal  n0 n1 ... n10`.
pub fn parse_buddyinfo(text: &str) -> Result<Vec<BuddyZone>, String> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let bad = || format!("unexpected /proc/buddyinfo line: {line:?}");
            let mut words = line.split_whitespace();
            let node = match (words.next(), words.next()) {
                (Some("Node"), Some(n)) => n.trim_end_matches(',').parse().map_err(|_| bad())?,
                _ => return Err(bad()),
            };
            let zone = match (words.next(), words.next()) {
                (Some("zone"), Some(z)) => z.to_string(),
                _ => return Err(bad()),
            };
            let free_blocks = words
                .map(|w| w.parse().map(Some).map_err(|_| bad()))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(BuddyZone {
                node,
                zone,
                free_blocks,
            })
        })
        .collect()
}

pub fn read_vmstat() -> io::Result<BTreeMap<String, i64>> {
    Ok(parse_vmstat(&std::fs::read_to_string("/proc/vmstat")?))
}

pub fn read_meminfo() -> io::Result<BTreeMap<String, u64>> {
    Ok(parse_kib_fields(&std::fs::read_to_string("/proc/meminfo")?))
}

pub fn read_smaps_rollup() -> io::Result<BTreeMap<String, u64>> {
    Ok(parse_kib_fields(&std::fs::read_to_string(
        "/proc/self/smaps_rollup",
    )?))
}

/// `/proc/self/smaps`: the `Name: value kB` fields of the mapping that
/// contains `addr` (its header reads `start-end perms ...`, hex). `None`
/// when no mapping contains it.
pub fn parse_smaps_at(text: &str, addr: usize) -> Option<BTreeMap<String, u64>> {
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if !mapping_range(line).is_some_and(|(start, end)| (start..end).contains(&addr)) {
            continue;
        }
        let body: Vec<&str> = lines
            .by_ref()
            .take_while(|l| mapping_range(l).is_none())
            .collect();
        return Some(parse_kib_fields(&body.join("\n")));
    }
    None
}

/// The address range of an smaps header line (`7f00-7f80 rw-p ...`).
fn mapping_range(line: &str) -> Option<(usize, usize)> {
    let (a, b) = line.split_whitespace().next()?.split_once('-')?;
    Some((
        usize::from_str_radix(a, 16).ok()?,
        usize::from_str_radix(b, 16).ok()?,
    ))
}

pub fn read_smaps_at(addr: usize) -> io::Result<Option<BTreeMap<String, u64>>> {
    Ok(parse_smaps_at(
        &std::fs::read_to_string("/proc/self/smaps")?,
        addr,
    ))
}

/// The physical frame of each of `pages` 4 KiB pages from `addr`, from
/// `/proc/self/pagemap` (bits 0-54 of each 8-byte entry; 0 for a page not
/// present). `None` when no frame is shown: since Linux 4.2 the kernel
/// zeroes them for readers without CAP_SYS_ADMIN.
pub fn frames(addr: usize, pages: usize) -> Option<Vec<u64>> {
    use std::os::unix::fs::FileExt;
    const PFN_MASK: u64 = (1 << 55) - 1;
    let file = std::fs::File::open("/proc/self/pagemap").ok()?;
    let mut bytes = vec![0u8; pages.checked_mul(8)?];
    file.read_exact_at(&mut bytes, (addr / 4096 * 8) as u64)
        .ok()?;
    let frames: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|e| u64::from_le_bytes(e.try_into().expect("8 bytes")) & PFN_MASK)
        .collect();
    frames.iter().any(|&f| f != 0).then_some(frames)
}

/// One row of `/proc/interrupts` (`label` is `LOC:`, `TLB:`...), by CPU
/// number; `None` when the row is missing or malformed. The header names
/// the columns (`CPU0 CPU2 ...`: an offline CPU has none).
pub fn parse_interrupt_row(text: &str, label: &str) -> Option<BTreeMap<u32, u64>> {
    let mut lines = text.lines();
    let cpus: Vec<u32> = lines
        .next()?
        .split_whitespace()
        .map(|c| c.strip_prefix("CPU")?.parse().ok())
        .collect::<Option<_>>()?;
    let row = lines.find_map(|l| l.trim_start().strip_prefix(label))?;
    let counts: Vec<u64> = row
        .split_whitespace()
        .take(cpus.len())
        .map(|n| n.parse().ok())
        .collect::<Option<_>>()?;
    (counts.len() == cpus.len()).then(|| cpus.into_iter().zip(counts).collect())
}

/// The "TLB shootdowns" row (x86): interrupts since boot, by CPU.
pub fn read_tlb_shootdowns() -> Option<BTreeMap<u32, u64>> {
    parse_interrupt_row(&std::fs::read_to_string("/proc/interrupts").ok()?, "TLB:")
}

/// Steal time by CPU (`/proc/stat`'s eighth column, in clock ticks): time
/// the hypervisor ran something else while this vCPU had work.
pub fn parse_cpu_steal(text: &str) -> BTreeMap<u32, u64> {
    text.lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let cpu: u32 = f.next()?.strip_prefix("cpu")?.parse().ok()?;
            Some((cpu, f.nth(7)?.parse().ok()?))
        })
        .collect()
}

/// [`parse_cpu_steal`] of this machine now; `None` when unreadable.
pub fn read_cpu_steal() -> Option<BTreeMap<u32, u64>> {
    Some(parse_cpu_steal(
        &std::fs::read_to_string("/proc/stat").ok()?,
    ))
}

/// Free memory and fragmentation right now: what decides whether the kernel
/// can hand out 2 MiB pages at all.
pub fn memory_snapshot() -> Result<MemorySnapshot, String> {
    let meminfo = read_meminfo().map_err(|e| format!("/proc/meminfo: {e}"))?;
    let field = |name: &str| {
        meminfo
            .get(name)
            .copied()
            .ok_or_else(|| format!("/proc/meminfo has no {name}"))
    };
    let buddy =
        std::fs::read_to_string("/proc/buddyinfo").map_err(|e| format!("/proc/buddyinfo: {e}"))?;
    Ok(MemorySnapshot {
        mem_free_kib: field("MemFree")?,
        mem_available_kib: field("MemAvailable")?,
        swap_free_kib: meminfo.get("SwapFree").copied(),
        buddyinfo: parse_buddyinfo(&buddy)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vmstat_counters() {
        let v = parse_vmstat(
            "nr_free_pages 5818263\nthp_fault_alloc 12\nthp_fault_fallback 510\nbogus\n",
        );
        assert_eq!(v["thp_fault_alloc"], 12);
        assert_eq!(v["thp_fault_fallback"], 510);
        assert_eq!(v.len(), 3);
    }

    #[test]
    fn meminfo_fields() {
        let m = parse_kib_fields(
            "MemTotal:       24683652 kB\nMemAvailable:   24313232 kB\nHugePages_Total:       0\n",
        );
        assert_eq!(m["MemTotal"], 24_683_652);
        assert_eq!(m["MemAvailable"], 24_313_232);
        assert_eq!(m["HugePages_Total"], 0);
    }

    #[test]
    fn the_tlb_row_by_cpu_number() {
        let text = "           CPU0       CPU2       \n  0:         10          0   IO-APIC   2-edge      timer\nTLB:    1271096    1252683   TLB shootdowns\n";
        let row = parse_interrupt_row(text, "TLB:").unwrap();
        assert_eq!(row.get(&0), Some(&1271096));
        assert_eq!(row.get(&2), Some(&1252683));
        assert_eq!(row.get(&1), None);
        assert_eq!(
            parse_interrupt_row("           CPU0\n  0: 1 timer\n", "TLB:"),
            None
        );
    }

    #[test]
    fn smaps_rollup_skips_the_address_header() {
        let m = parse_kib_fields(
            "5605f7a90000-7ffd806d4000 ---p 00000000 00:00 0                          [rollup]\n\
             Rss:             1050292 kB\n\
             AnonHugePages:    102400 kB\n",
        );
        assert_eq!(m["Rss"], 1_050_292);
        assert_eq!(m["AnonHugePages"], 102_400);
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn smaps_fields_of_one_mapping() {
        let text = "7f0000000000-7f0000200000 rw-p 00000000 00:00 0 \n\
             Size:               2048 kB\n\
             AnonHugePages:         0 kB\n\
             7f0000200000-7f0040200000 rw-p 00000000 00:00 0 \n\
             Size:            1048576 kB\n\
             AnonHugePages:    348160 kB\n\
             VmFlags: rd wr mr mw me ac hg\n";
        let m = parse_smaps_at(text, 0x7f00_1000_0000).unwrap();
        assert_eq!(m["AnonHugePages"], 348_160);
        assert_eq!(m["Size"], 1_048_576);
        assert_eq!(
            parse_smaps_at(text, 0x7f00_0000_0010).unwrap()["Size"],
            2048
        );
        assert!(parse_smaps_at(text, 0x1000).is_none());
    }

    #[test]
    fn buddyinfo_zones() {
        let zones = parse_buddyinfo(
            "Node 0, zone      DMA      0      0      0      0      0      0      0      0      1      1      3 \n\
             Node 0, zone   Normal  22765  17362   8983   4475   2005   1007    519    316    157    101     73 \n",
        )
        .unwrap();
        assert_eq!(zones.len(), 2);
        assert_eq!(zones[1].zone, "Normal");
        assert_eq!(zones[1].node, 0);
        assert_eq!(zones[1].free_blocks.len(), 11);
        assert_eq!(zones[1].free_blocks[9], Some(101));
    }

    #[test]
    fn buddyinfo_rejects_garbage() {
        assert!(parse_buddyinfo("Node 0, zone Normal 1 x 3").is_err());
        assert!(parse_buddyinfo("hello").is_err());
    }
}
