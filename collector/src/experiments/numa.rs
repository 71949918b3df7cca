//! # numa
//!
//! Premise: on a machine with several NUMA nodes, a page is placed on the
//! node of the CPU whose thread first writes it, not the thread that
//! allocated it. One thread initialising a buffer puts every page on its
//! own node (and every other node reads it remotely forever); threads
//! touching their own share, each on its node, spread it. Both are run and
//! every page's node is read back with `move_pages(2)` in query mode. On a
//! single node there is nothing to place: skipped, with the topology kept.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::ptr;
use std::time::Instant;

use pagewalk_model::{Check, NumaNode, NumaResults, Placement, PlacementResult, Results};

use super::{Env, Outcome};
use crate::affinity;
use crate::mapping::SmallPages;

const NODE_DIR: &str = "/sys/devices/system/node";
const FULL_SIZE: usize = 256 << 20;
const QUICK_SIZE: usize = 32 << 20;
/// Pages asked about per `move_pages` call.
const QUERY_CHUNK: usize = 4096;

pub fn run(env: &Env) -> Result<Outcome, String> {
    let nodes = topology(Path::new(NODE_DIR));
    let balancing = fs::read_to_string("/proc/sys/kernel/numa_balancing")
        .ok()
        .map(|s| s.trim().to_string());
    let mut results = NumaResults {
        nodes,
        balancing,
        region_bytes: 0,
        pages: 0,
        placements: Vec::new(),
    };
    if results.nodes.len() < 2 {
        let reason = match results.nodes.as_slice() {
            [] => format!("{NODE_DIR} lists no nodes (a kernel without NUMA support): first-touch placement needs two or more"),
            [n] => format!(
                "one NUMA node (node {}: CPUs {}{}): first-touch placement needs two or more",
                n.id,
                n.cpus,
                n.mem_total_kib
                    .map_or(String::new(), |k| format!(", {}", crate::guard::human(k * 1024)))
            ),
            _ => unreachable!(),
        };
        return Ok(Outcome::SkippedWith {
            reason,
            results: Results::Numa(results),
        });
    }
    let size = env.settings.size.map_or(
        if env.settings.quick {
            QUICK_SIZE
        } else {
            FULL_SIZE
        },
        |s| s as usize,
    );
    let page = env.machine.base_page_bytes as usize;
    results.region_bytes = size as u64;
    results.pages = (size / page) as u64;
    let mut checks = Vec::new();
    for placement in Placement::ALL {
        let r = place(placement, &results.nodes, size, page)?;
        checks.push(check(&r, &results.nodes, results.pages));
        results.placements.push(r);
    }
    Ok(Outcome::Done {
        results: Results::Numa(results),
        checks,
    })
}

/// Nodes from sysfs, in id order.
fn topology(dir: &Path) -> Vec<NumaNode> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut nodes: Vec<NumaNode> = entries
        .flatten()
        .filter_map(|e| {
            let id = e.file_name().to_str()?.strip_prefix("node")?.parse().ok()?;
            let cpus = fs::read_to_string(e.path().join("cpulist")).ok()?;
            let meminfo = fs::read_to_string(e.path().join("meminfo")).unwrap_or_default();
            Some(NumaNode {
                id,
                cpus: cpus.trim().to_string(),
                mem_total_kib: node_mem_total(&meminfo),
            })
        })
        .collect();
    nodes.sort_by_key(|n| n.id);
    nodes
}

/// `Node 0 MemTotal:       8039836 kB`.
fn node_mem_total(meminfo: &str) -> Option<u64> {
    meminfo.lines().find_map(|l| {
        let (_, rest) = l.split_once("MemTotal:")?;
        rest.split_whitespace().next()?.parse().ok()
    })
}

/// Maps `size` bytes, has it first touched by the placement's threads, and
/// reads back where each page landed.
fn place(
    placement: Placement,
    nodes: &[NumaNode],
    size: usize,
    page: usize,
) -> Result<PlacementResult, String> {
    // Base pages, so each page's node is its own.
    let mapping = SmallPages::map(size, 0)?;
    let base = mapping.ptr as usize;
    let workers: Vec<&NumaNode> = match placement {
        Placement::OneThread => vec![&nodes[0]],
        Placement::Parallel => nodes.iter().collect(),
    };
    let share = (size / page).div_ceil(workers.len()) * page;
    let start = Instant::now();
    let touched: Result<(), String> = std::thread::scope(|s| {
        let handles: Vec<_> = workers
            .iter()
            .enumerate()
            .map(|(i, node)| {
                s.spawn(move || {
                    let cpus = affinity::parse_list(&node.cpus).unwrap_or_default();
                    affinity::pin_this_thread(&cpus)
                        .map_err(|e| format!("pinning to node {}: {e}", node.id))?;
                    let (from, to) = (i * share, ((i + 1) * share).min(size));
                    for offset in (from..to).step_by(page) {
                        // SAFETY: inside the mapping; shares do not overlap.
                        unsafe { ptr::write_volatile((base + offset) as *mut u8, 1) };
                    }
                    Ok(())
                })
            })
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().unwrap_or(Err("a touching thread panicked".into())))
    });
    let touch_ns = start.elapsed().as_nanos() as f64;
    let located = touched.and_then(|()| locate(base, size, page));
    drop(mapping);
    let (pages_per_node, pages_unknown) = located?;
    Ok(PlacementResult {
        placement,
        threads: workers.len() as u32,
        touch_ns,
        pages_per_node,
        pages_unknown,
    })
}

/// Pages per node, and pages with no node, from `move_pages` with no
/// target nodes (query mode).
fn locate(base: usize, size: usize, page: usize) -> Result<(BTreeMap<u32, u64>, u64), String> {
    let pages: Vec<*mut libc::c_void> = (0..size / page)
        .map(|i| (base + i * page) as *mut libc::c_void)
        .collect();
    let mut per_node = BTreeMap::new();
    let mut unknown = 0;
    let mut status = vec![0 as libc::c_int; QUERY_CHUNK];
    for chunk in pages.chunks(QUERY_CHUNK) {
        // SAFETY: pid 0 = this process; `chunk` and `status` hold
        // chunk.len() entries; nodes = NULL asks where pages are.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_move_pages,
                0,
                chunk.len(),
                chunk.as_ptr(),
                ptr::null::<libc::c_int>(),
                status.as_mut_ptr(),
                0,
            )
        };
        if rc < 0 {
            return Err(format!("move_pages: {}", std::io::Error::last_os_error()));
        }
        for &s in &status[..chunk.len()] {
            match u32::try_from(s) {
                Ok(node) => *per_node.entry(node).or_insert(0) += 1,
                Err(_) => unknown += 1,
            }
        }
    }
    Ok((per_node, unknown))
}

/// One thread: (nearly) everything on its node. Parallel: no node holds
/// much more than its share.
fn check(r: &PlacementResult, nodes: &[NumaNode], pages: u64) -> Check {
    let first = nodes.first().map_or(0, |n| n.id);
    let share = pages / nodes.len().max(1) as u64;
    let most = r.pages_per_node.values().copied().max().unwrap_or(0);
    let observed = format!(
        "{:?} pages per node, {} unknown",
        r.pages_per_node, r.pages_unknown
    );
    match r.placement {
        Placement::OneThread => Check::new(
            "one-thread: pages on the toucher's node",
            r.pages_per_node.get(&first).copied().unwrap_or(0) * 10 >= pages * 9,
            format!(">= 90% of {pages} pages on node {first}"),
            observed,
        ),
        Placement::Parallel => Check::new(
            "parallel: pages spread over the nodes",
            most * 10 <= share * 11,
            format!("no node above 110% of its share ({share} pages)"),
            observed,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_memory_from_meminfo() {
        assert_eq!(
            node_mem_total("Node 0 MemTotal:       8039836 kB\nNode 0 MemFree: 1 kB\n"),
            Some(8_039_836)
        );
    }

    #[test]
    fn this_machine_has_a_topology_and_pages_have_a_node() {
        let nodes = topology(Path::new(NODE_DIR));
        assert!(!nodes.is_empty());
        // On any machine, one thread's pages land somewhere move_pages can see.
        let r = place(Placement::OneThread, &nodes, 1 << 20, 4096).unwrap();
        let placed: u64 = r.pages_per_node.values().sum();
        assert_eq!(placed + r.pages_unknown, 256);
        assert!(r.pages_per_node.contains_key(&nodes[0].id), "{r:?}");
    }

    #[test]
    fn checks_read_the_counts() {
        let two = [0, 1].map(|id| NumaNode {
            id,
            cpus: String::new(),
            mem_total_kib: None,
        });
        let r = |placement, counts: &[(u32, u64)]| PlacementResult {
            placement,
            threads: 2,
            touch_ns: 1.0,
            pages_per_node: counts.iter().copied().collect(),
            pages_unknown: 0,
        };
        assert!(check(&r(Placement::OneThread, &[(0, 1000)]), &two, 1000).passed);
        assert!(!check(&r(Placement::Parallel, &[(0, 1000)]), &two, 1000).passed);
        assert!(check(&r(Placement::Parallel, &[(0, 500), (1, 500)]), &two, 1000).passed);
    }
}
