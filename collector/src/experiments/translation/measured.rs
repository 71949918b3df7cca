//! CPUID is a claim; the run's own curves are the authority. This reads
//! each TLB level's reach off tlb-reach's curves
//! ([`pagewalk_analysis::reach`]), sets it against CPUID's figure, and
//! gives walk and mlp the L2 TLB reach they must size themselves past:
//! tlb-reach's when it ran earlier in the same run, else a quick probe of
//! their own (the same chase, two page counts per doubling, one sample in
//! each of two mappings), and CPUID's figure or an assumption only when
//! neither could tell, said so.

use pagewalk_analysis::measured::record;
use pagewalk_model::{
    ExperimentRecord, MeasuredGeometry, ReachSource, Results, TlbFigure, TlbReachUsed,
};

use super::chase::{Layout, Plan};
use super::sweep::{ladder, sweep};
use super::{geometry, tlb_reach};
use crate::experiments::Env;

const PAGE: u64 = 4096;
/// The probe's first page count: past every L1 dTLB, so its steps are the
/// L2 TLB's (and the L1d's, which it tells apart).
const PROBE_FROM: u64 = 256;
/// Assumed when nothing was measured and CPUID claims less: the largest L2
/// TLB for 4 KiB pages pagewalk knows of (Zen 5's 4096 entries).
pub const ASSUMED_L2_ENTRIES: u64 = 4096;

/// The L2 TLB of `m` as a reach to size from, when it was measured.
fn used(m: &MeasuredGeometry, source: ReachSource, note: String) -> Option<TlbReachUsed> {
    let t = m.tlb(2).filter(|t| t.figure.measured())?;
    Some(TlbReachUsed {
        source,
        entries_low: t.entries_low?,
        entries_high: t.entries_high,
        cpuid_entries: t.cpuid_entries,
        figure: t.figure,
        note,
    })
}

/// The L2 TLB reach `who` (walk, mlp) sizes itself from: measured by
/// tlb-reach earlier in this run, or by a probe earlier in this run, or
/// by a probe now; CPUID's figure or [`ASSUMED_L2_ENTRIES`] (the larger)
/// only when none could tell.
pub fn l2_reach(env: &Env, who: &str) -> TlbReachUsed {
    if let Some(u) = earlier(env.earlier) {
        return u;
    }
    let why = match probe(env) {
        Ok(m) => match used(
            &m,
            ReachSource::Probe,
            format!("{who}'s own probe: {}", probe_note(&m)),
        ) {
            Some(u) => return u,
            None => m
                .not_read
                .clone()
                .or(m.note.clone())
                .unwrap_or_else(|| "the probe's curve showed no L2 TLB step".into()),
        },
        Err(why) => why,
    };
    let cpuid = geometry::read().data_tlb(2, PAGE).map(|t| t.entries);
    let entries = cpuid.map_or(ASSUMED_L2_ENTRIES, |c| u64::from(c).max(ASSUMED_L2_ENTRIES));
    let (source, note) = match cpuid {
        Some(c) if u64::from(c) >= ASSUMED_L2_ENTRIES => (
            ReachSource::Cpuid,
            format!("nothing measured ({why}); CPUID's {c} entries, unconfirmed"),
        ),
        Some(c) => (
            ReachSource::Assumed,
            format!(
                "nothing measured ({why}); CPUID says {c} entries, not trusted alone: {ASSUMED_L2_ENTRIES} assumed, the largest L2 TLB pagewalk knows of"
            ),
        ),
        None => (
            ReachSource::Assumed,
            format!(
                "nothing measured ({why}) and CPUID gives no figure: {ASSUMED_L2_ENTRIES} assumed, the largest L2 TLB pagewalk knows of"
            ),
        ),
    };
    TlbReachUsed {
        source,
        entries_low: entries,
        entries_high: Some(entries),
        cpuid_entries: cpuid,
        figure: TlbFigure::judge(None, None, cpuid),
        note,
    }
}

/// tlb-reach's measured L2 TLB from an earlier record of this run, else a
/// probe's that walk or mlp recorded.
fn earlier(records: &[ExperimentRecord]) -> Option<TlbReachUsed> {
    let reach = records.iter().rev().find_map(|r| match &r.results {
        Some(Results::TlbReach(t)) => used(
            t.measured.as_ref()?,
            ReachSource::TlbReach,
            "measured by tlb-reach earlier in this run".into(),
        ),
        _ => None,
    });
    reach.or_else(|| {
        records.iter().rev().find_map(|r| {
            let u = match &r.results {
                Some(Results::Walk(w)) => w.l2_tlb.as_ref(),
                Some(Results::Mlp(m)) => m.l2_tlb.as_ref(),
                _ => None,
            }?;
            (u.source == ReachSource::Probe).then(|| TlbReachUsed {
                note: format!("{}'s probe earlier in this run: {}", r.name, u.note),
                ..u.clone()
            })
        })
    })
}

fn probe_note(m: &MeasuredGeometry) -> String {
    let t = m.tlb(2);
    match (
        t.and_then(|t| t.entries_low),
        t.and_then(|t| t.entries_high),
    ) {
        (Some(l), Some(h)) => format!("the 4 KiB curve rose between {l} and {h} pages"),
        (Some(l), None) => format!("no L2 TLB step by {l} pages"),
        _ => "no L2 TLB step".into(),
    }
}

/// tlb-reach's chase at two page counts per doubling from
/// [`PROBE_FROM`], one sample in each of two mappings, 4 KiB and huge
/// pages (no 1 GiB page: the probe reserves nothing).
fn probe(env: &Env) -> Result<MeasuredGeometry, String> {
    let geometry = geometry::read();
    let plan = Plan {
        mappings: 2,
        repetitions: 1,
        sample_ns: 1e6,
    };
    let size = tlb_reach::pages(&geometry, plan.mappings)??;
    if size.max_pages < PROBE_FROM * 2 {
        return Err(format!(
            "the memory guard left room for {} pages, too few for an L2 TLB",
            size.max_pages
        ));
    }
    let counts = ladder(PROBE_FROM, size.max_pages, 0, 1);
    let swept = sweep(
        env,
        "L2 TLB probe",
        &plan,
        Layout::LinePerPage {
            step: tlb_reach::LINE_STEP as usize,
        },
        &counts,
        |pages| pages as usize,
        |pages| format!("{pages} pages"),
        false,
    )?;
    Ok(record(&swept.curves, &geometry, None, &size.limit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pagewalk_analysis::measured::tlb;
    use pagewalk_analysis::reach::{self, Basis, Estimate};
    use pagewalk_model::{read_run, Geometry, Regime};
    use std::path::Path;

    fn fixture(name: &str) -> pagewalk_model::RunFile {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../preprocessor/tests/fixtures/matrix")
            .join(name);
        read_run(&path).unwrap_or_else(|e| panic!("{e}"))
    }

    fn tlb_reach_of(run: &pagewalk_model::RunFile) -> &pagewalk_model::TlbReachResults {
        run.experiments
            .iter()
            .find_map(|e| match &e.results {
                Some(Results::TlbReach(t)) => Some(t),
                _ => None,
            })
            .unwrap()
    }

    #[test]
    fn the_silent_xeon_measures_both_levels() {
        let run = fixture("intel-xeon-emr-16vcpu-kvm.json");
        let t = tlb_reach_of(&run);
        let m = record(&t.curves, &t.geometry, None, "half of the L2 cache");
        assert_eq!(m.control, Some(Regime::Huge));
        let l1 = m.tlb(1).unwrap();
        assert_eq!((l1.entries_low, l1.entries_high), (Some(80), Some(112)));
        assert_eq!(l1.figure, TlbFigure::CpuidSilent);
        assert!(
            l1.why.contains("CPUID gives no L1 dTLB figure"),
            "{}",
            l1.why
        );
        let l2 = m.tlb(2).unwrap();
        assert_eq!((l2.entries_low, l2.entries_high), (Some(1280), Some(1792)));
        assert_eq!(l2.figure, TlbFigure::CpuidSilent);
        assert!(m.past_last_level);
        // What walk and mlp take from it.
        let u = used(&m, ReachSource::TlbReach, "x".into()).unwrap();
        assert_eq!((u.entries_low, u.past()), (1280, 1792));
    }

    #[test]
    fn the_example_contradicts_cpuid_s_l2_and_agrees_on_l1() {
        // The example run of 2026-12-02 (now a fixture): CPUID 64 and 2048.
        let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../preprocessor/tests/fixtures/matrix/example-20261202T032133Z-823fcb.json");
        let run = read_run(&example).unwrap();
        let t = tlb_reach_of(&run);
        let m = record(&t.curves, &t.geometry, None, "half of the L2 cache");
        // CPUID: 64 and 2048 entries.
        assert_eq!(m.tlb(1).unwrap().figure, TlbFigure::Agree);
        let l2 = m.tlb(2).unwrap();
        assert_eq!((l2.entries_low, l2.entries_high), (Some(1280), Some(1536)));
        assert_eq!(l2.cpuid_entries, Some(2048));
        assert_eq!(l2.figure, TlbFigure::CpuidContradicted);
        assert!(
            l2.why
                .contains("CPUID says 2048, but the curve had risen by 1536 pages"),
            "{}",
            l2.why
        );
    }

    #[test]
    fn a_claim_of_too_few_entries_is_named_as_such() {
        // The Zen 5 guest: CPUID 0x80000006 EBX 0x60804040, 128 entries;
        // a curve still flat at 4096 pages and risen by 4608 (its 4096).
        let g = Geometry {
            tlb_source: "test".into(),
            tlbs: vec![pagewalk_model::TlbLevel {
                level: 2,
                kind: pagewalk_model::TlbKind::Data,
                page_bytes: PAGE,
                entries: (0x6080_4040u32 >> 16) & 0xfff,
                associativity: None,
            }],
            caches: Vec::new(),
        };
        assert_eq!(g.tlbs[0].entries, 128);
        let e = Estimate {
            levels: vec![reach::Reach {
                level: 2,
                low: 4096.0,
                high: Some(4608.0),
                at: Some(4300.0),
                basis: Some(Basis::Control),
                ns_before: 3.0,
                ns_after: 30.0,
                noise: 0.03,
            }],
            beyond: Vec::new(),
            min_rise: 0.2,
            small_noise: 0.03,
            extra_noise: Some(0.03),
        };
        let t = tlb(2, Some(&e), Some(Regime::Huge), &g);
        assert_eq!(t.figure, TlbFigure::CpuidContradicted);
        assert!(
            t.why.contains("CPUID says 128, but 4096 pages still fit"),
            "{}",
            t.why
        );
    }

    #[test]
    fn an_earlier_tlb_reach_is_taken_before_any_probe() {
        let run = fixture("intel-xeon-emr-16vcpu-kvm.json");
        let mut records = run.experiments.clone();
        // As a schema-6 run records it.
        for r in &mut records {
            if let Some(Results::TlbReach(t)) = &mut r.results {
                t.measured = Some(record(&t.curves, &t.geometry, None, "half of the L2 cache"));
            }
        }
        let u = earlier(&records).unwrap();
        assert_eq!(u.source, ReachSource::TlbReach);
        assert_eq!((u.entries_low, u.entries_high), (1280, Some(1792)));
        // Without it, nothing earlier: the walk and mlp of a schema-5
        // file recorded no probe.
        assert!(earlier(&run.experiments).is_none());
    }
}
