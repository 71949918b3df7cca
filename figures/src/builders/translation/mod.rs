//! Address-translation charts, one module per experiment: the latency
//! staircase (`staircase`), TLB reach with the data kept in cache
//! (`tlb-reach`), and 4 KiB vs huge pages at large sizes (`thp`); what they
//! share is in `chase` (chase points and curves) and `geometry` (the
//! machine's markers, sizes in binary units).

mod chase;
#[cfg(test)]
mod fixtures;
mod geometry;
mod ratio;
mod staircase;
mod thp;
mod tlb_reach;

pub use geometry::size_label;
pub(crate) use ratio::{ratio_chart, ratio_point};
pub use staircase::{staircase, staircase_ratio};
pub use thp::thp;
pub use tlb_reach::{tlb_reach, tlb_reach_ratio};

#[cfg(test)]
mod tests {
    use super::fixtures::run;
    use super::*;
    use crate::builders::fixtures::{r2, values};
    use crate::{build, render_svg, ChartSpec, Palette};

    #[test]
    fn charts_render_marks_and_markers() {
        let (run, r2) = (run(), r2("r2-cache-02.json"));
        for name in ["staircase", "tlb-reach", "thp"] {
            let spec = build(name, &[&run, &r2]).unwrap();
            let svg = render_svg(&spec, &Palette::light(), 720, 0);
            assert_eq!(
                svg.matches("class=\"pw-mark\"").count(),
                values(&spec),
                "{name}"
            );
            let json = serde_json::to_string(&spec).unwrap();
            assert_eq!(
                ChartSpec::from_json(&json).unwrap(),
                spec,
                "{name} round-trips"
            );
        }
        assert_eq!(size_label(1280 << 10), "1.25 MiB");
        assert_eq!(size_label(1 << 30), "1 GiB");
    }
}
