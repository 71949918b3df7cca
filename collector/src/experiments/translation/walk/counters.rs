//! The walk's counters: the generic dTLB-miss event, and the CPU's own
//! page-walk events where pagewalk knows their codes. In a VM without a
//! virtual PMU none opens, and the points say so.

use super::super::region::errno_name;
use crate::experiments::Env;
use crate::machine::pmu::{self, Counter};
use pagewalk_model::WalkCounters;

/// A CPU's own page-walk events, as raw `PERFEVTSEL` codes: the event, and
/// `(name, unit mask, counter mask)` for walks completed, cycles with a
/// walk active, and walks pending summed over cycles. From Linux's
/// `tools/perf/pmu-events/arch/x86/{skylake,sapphirerapids}/virtual-memory.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkEvents {
    pub family: &'static str,
    pub event: u64,
}

/// `(name, umask, cmask)` of the three walk events, in the order the
/// points store them.
pub const WALK_EVENTS: [(&str, u64, u64); 3] = [
    ("DTLB_LOAD_MISSES.WALK_COMPLETED", 0x0e, 0),
    ("DTLB_LOAD_MISSES.WALK_ACTIVE", 0x10, 1),
    ("DTLB_LOAD_MISSES.WALK_PENDING", 0x10, 0),
];

impl WalkEvents {
    /// The events for this CPU, where pagewalk knows them: Intel Skylake
    /// and its client successors (event 0x08), Sapphire and Emerald Rapids
    /// (event 0x12). AMD Zen counts walks with the generic event only.
    pub fn of(vendor: &str, family: u32, model: u32) -> Option<WalkEvents> {
        if vendor != "GenuineIntel" || family != 6 {
            return None;
        }
        match model {
            0x4e | 0x5e | 0x8e | 0x9e | 0xa5 | 0xa6 | 0x55 => Some(WalkEvents {
                family: "Skylake",
                event: 0x08,
            }),
            0x8f | 0xcf => Some(WalkEvents {
                family: "Sapphire Rapids",
                event: 0x12,
            }),
            _ => None,
        }
    }

    /// `PERF_TYPE_RAW` config: event, unit mask << 8, counter mask << 24.
    pub fn config(&self, umask: u64, cmask: u64) -> u64 {
        self.event | umask << 8 | cmask << 24
    }
}

const PERF_TYPE_RAW: u32 = 4;

/// The counters of every point, opened once.
pub struct Counters {
    pub dtlb: Option<Counter>,
    pub walk: [Option<Counter>; 3],
    pub status: WalkCounters,
}

impl Counters {
    pub fn open(env: &Env) -> Counters {
        let none = || [None, None, None];
        let pmu = &env.machine.pmu;
        if !pmu.hardware_counters {
            return Counters {
                dtlb: None,
                walk: none(),
                status: WalkCounters {
                    detail: format!("skipped: no PMU ({})", pmu.detail),
                    dtlb_misses: false,
                    walk_events: Vec::new(),
                },
            };
        }
        let (kind, config) = pmu::DTLB_READ_MISS;
        let dtlb = Counter::open(kind, config, true);
        let mut detail = match &dtlb {
            Ok(_) => "dTLB read misses (PERF_TYPE_HW_CACHE) opened".to_string(),
            Err(e) => format!("dTLB read misses failed: {} ({e})", errno_name(e)),
        };
        let cpu = &env.machine.cpu;
        let mut walk = none();
        let mut names = Vec::new();
        match WalkEvents::of(&cpu.vendor, cpu.family, cpu.model) {
            Some(events) => {
                for (slot, (name, umask, cmask)) in walk.iter_mut().zip(WALK_EVENTS) {
                    match Counter::open(PERF_TYPE_RAW, events.config(umask, cmask), true) {
                        Ok(c) => {
                            *slot = Some(c);
                            names.push(name.to_string());
                        }
                        Err(e) => detail.push_str(&format!("; {name} failed: {}", errno_name(&e))),
                    }
                }
                detail.push_str(&format!("; {} walk events: {}", events.family, names.join(", ")));
            }
            None => detail.push_str(&format!(
                "; walk cycles skipped: no walk events known to pagewalk for {} family {} model {:#x}",
                cpu.vendor, cpu.family, cpu.model
            )),
        }
        Counters {
            status: WalkCounters {
                detail,
                dtlb_misses: dtlb.is_ok(),
                walk_events: names,
            },
            dtlb: dtlb.ok(),
            walk,
        }
    }

    fn all(&self) -> [Option<&Counter>; 4] {
        [
            self.dtlb.as_ref(),
            self.walk[0].as_ref(),
            self.walk[1].as_ref(),
            self.walk[2].as_ref(),
        ]
    }

    pub fn start(&self) {
        self.all().into_iter().flatten().for_each(Counter::start);
    }

    pub fn stop(&self) -> [Option<u64>; 4] {
        self.all().map(|c| c.and_then(Counter::stop))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_events_are_known_for_two_intel_families_only() {
        let skl = WalkEvents::of("GenuineIntel", 6, 0x55).unwrap();
        assert_eq!(skl.config(0x10, 1), 0x0100_1008);
        let spr = WalkEvents::of("GenuineIntel", 6, 0x8f).unwrap();
        assert_eq!(spr.config(0x0e, 0), 0x0e12);
        assert_eq!(WalkEvents::of("AuthenticAMD", 25, 1), None);
        assert_eq!(WalkEvents::of("GenuineIntel", 6, 0x3c), None);
    }
}
