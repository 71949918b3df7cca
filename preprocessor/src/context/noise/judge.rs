//! `noise.verdict` from [`pagewalk_model::judge::order`], and the levers'
//! rows in words.

use pagewalk_model::judge::{self, Repeated};

use super::{Batch, LeverRow, Levers, Noise, NoiseVerdict};

impl Noise {
    /// Files `verdict`: unpinned against pinned, medians and spreads, held
    /// against the A-vs-A floor of the comparison itself; and the levers'
    /// rows.
    pub fn judge(&mut self) {
        let floor = self
            .comparisons
            .pinned_vs_unpinned
            .as_ref()
            .map(|c| c.noise);
        let (pinned, unpinned) = (self.batches.pinned.as_ref(), self.batches.unpinned.as_ref());
        // Each run of a batch is a repetition: its time, and for the spread,
        // how far it sits from its batch's median (a rank test on those is a
        // test of scatter).
        let times =
            |b: &Batch| Repeated::of(&b.samples_ns).or_else(|| Some(Repeated::single(b.ms?)));
        let scatter = |b: &Batch| match Repeated::of(&b.samples_ns) {
            Some(all) => {
                let off: Vec<f64> = b
                    .samples_ns
                    .iter()
                    .map(|x| (x - all.median).abs())
                    .collect();
                Repeated::of(&off)
            }
            None => Some(Repeated::single(b.spread?)),
        };
        let compare = |key: &dyn Fn(&Batch) -> Option<Repeated>, floor: Option<f64>| {
            let a = unpinned.and_then(key)?;
            let b = pinned.and_then(key)?;
            Some(judge::order(&a, &b, floor).order)
        };
        self.verdict = Some(NoiseVerdict {
            unpinned: compare(&times, floor),
            // The floor is a fraction of a run's time, not of its scatter:
            // the rank test alone judges the scatter.
            unpinned_spread: compare(&scatter, None),
        });
        self.levers.rows = lever_rows(&self.levers);
    }
}

/// `noise.levers.rows`, one per lever in the chapter's order: the value
/// read, or else the lever's state in words; both null when the source
/// recorded no levers (no cgroup detail).
fn lever_rows(levers: &Levers) -> Vec<LeverRow> {
    let recorded = levers
        .cpuset_detail
        .as_deref()
        .is_some_and(|d| !d.is_empty());
    let text = |v: &Option<String>| v.clone().filter(|v| !v.is_empty());
    let flag = |on: Option<bool>, yes: &'static str, no: &'static str| {
        recorded.then_some(if on == Some(true) { yes } else { no })
    };
    let param = |v: &Option<String>| {
        let state = if text(v).is_some() { "set" } else { "not set" };
        (text(v), recorded.then_some(state))
    };
    let row =
        |lever: &'static str, (value, state): (Option<String>, Option<&'static str>)| LeverRow {
            lever,
            value,
            state,
        };
    let fifo = flag(levers.sched_fifo_permitted, "permitted", "not permitted");
    let partitions = flag(levers.cpuset_partitions, "available", "not available");
    let mask = text(&levers.irq_default_affinity).filter(|_| recorded);
    vec![
        row("taskset", (text(&levers.allowed_cpus), None)),
        row("SCHED_FIFO", (None, fifo)),
        row("isolcpus=", param(&levers.isolcpus)),
        row("nohz_full=", param(&levers.nohz_full)),
        row("rcu_nocbs=", param(&levers.rcu_nocbs)),
        row("/proc/irq/default_smp_affinity", (mask, None)),
        row("irqaffinity=", param(&levers.irqaffinity)),
        row("cpuset partitions", (None, partitions)),
    ]
}

#[cfg(test)]
mod tests {
    use pagewalk_model::judge::Order;

    use super::lever_rows;
    use crate::context::noise::{Batch, Batches, ComparisonView, Comparisons, Levers, Noise};

    #[test]
    fn the_unpinned_runs_are_held_against_the_comparisons_own_floor() {
        let judge = |floor: f64, pinned: &[f64], unpinned: &[f64]| {
            let mut noise = Noise {
                comparisons: Comparisons {
                    pinned_vs_unpinned: Some(ComparisonView {
                        difference: 0.0,
                        noise: floor,
                        inside_noise: false,
                    }),
                    ..Comparisons::default()
                },
                batches: Batches {
                    pinned: Some(Batch::of_runs(10.0, 1.0, pinned)),
                    unpinned: Some(Batch::of_runs(10.5, 1.0, unpinned)),
                    ..Batches::default()
                },
                ..Noise::default()
            };
            noise.judge();
            noise.verdict.unwrap().unpinned
        };
        let pinned = [9.9e6, 10.0e6, 10.1e6];
        let apart = [10.4e6, 10.5e6, 10.6e6];
        // 5% apart, every unpinned run slower than every pinned one: slower
        // beyond a 1% floor, within a 10% one.
        assert_eq!(judge(0.01, &pinned, &apart), Some(Order::Slower));
        assert_eq!(judge(0.10, &pinned, &apart), Some(Order::WithinNoise));
        // The same medians with the runs interleaved: beyond the floor, but
        // the rank test cannot tell.
        let crossed = [9.95e6, 10.5e6, 10.6e6];
        assert_eq!(judge(0.01, &pinned, &crossed), Some(Order::Unstable));
        // No runs kept: the batches' medians alone, one figure a side.
        assert_eq!(judge(0.10, &[], &[]), Some(Order::WithinNoise));
        assert_eq!(judge(0.01, &[], &[]), Some(Order::Unrepeated));
    }

    #[test]
    fn lever_rows_say_set_not_set_or_nothing_recorded() {
        let levers = Levers {
            cpuset_detail: Some("no cpuset controller".into()),
            allowed_cpus: Some("0-3".into()),
            isolcpus: Some("2-3".into()),
            rcu_nocbs: Some(String::new()),
            irq_default_affinity: Some("f".into()),
            sched_fifo_permitted: Some(false),
            cpuset_partitions: Some(true),
            ..Levers::default()
        };
        let rows = lever_rows(&levers);
        let cell = |i: usize| (rows[i].value.as_deref(), rows[i].state);
        assert_eq!(cell(0), (Some("0-3"), None));
        assert_eq!(cell(1), (None, Some("not permitted")));
        assert_eq!(cell(2), (Some("2-3"), Some("set")));
        assert_eq!(cell(3), (None, Some("not set")));
        assert_eq!(cell(4), (None, Some("not set")));
        assert_eq!(cell(5), (Some("f"), None));
        assert_eq!(cell(7), (None, Some("available")));
        // Nothing recorded (R2, a skipped experiment): no state is claimed.
        for row in lever_rows(&Levers::default()) {
            assert!(row.value.is_none() && row.state.is_none(), "{}", row.lever);
        }
    }
}
