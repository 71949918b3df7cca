//! `{{diagram "NAME"}}`: a mechanism drawn as inline SVG in the charts'
//! palette (`--pw-series-*`, mdBook's `--fg`/`--bg`), with real `<text>`
//! (selectable, found by the browser's find) and a text alternative.
//!
//! | NAME | what |
//! | --- | --- |
//! | `page-walk` | an address cut into its PML4/PDPT/PD/PT indexes and offset, beside the tables they select; with JavaScript (`theme/pagewalk-diagrams.js`) the reader types an address and picks 4 KiB, 2 MiB or 1 GiB pages |
//! | `page-fault` | the seven steps of a first-touch page fault, CPU and kernel |
//! | `nested-walk` | a guest's 4-level walk over a host's 4-level tables: the grid of 24 numbered references |
//! | `malloc-flow` | glibc `malloc`'s four paths (tcache, bins, top, `mmap`) and the moving threshold |
//! | `tlb-hierarchy` | where a load's translation is found: L1 dTLB, L2 TLB, walk caches, the walk; with the entries and reach CPUID gave the run (`tlb.cpuid`) |
//!
//! Each diagram is drawn in a module of its own; `address` is the
//! arithmetic of the page walk (the tested original of the decoder in
//! `theme/pagewalk-diagrams.js`).

mod address;
mod arrow;
mod malloc_flow;
mod nested_walk;
mod page_fault;
mod page_walk;
mod tlb_hierarchy;

use handlebars::{
    Context, Handlebars, Helper, HelperResult, Output, RenderContext, RenderErrorReason,
};

pub use address::{decode, Decoded, PageSize};
pub use page_walk::EXAMPLE_ADDRESS;

pub const DIAGRAMS: &[&str] = &[
    "page-walk",
    "page-fault",
    "tlb-hierarchy",
    "nested-walk",
    "malloc-flow",
];

pub fn register(hb: &mut handlebars::Handlebars<'static>) {
    hb.register_helper(
        "diagram",
        Box::new(
            |h: &Helper,
             _: &Handlebars,
             ctx: &Context,
             _: &mut RenderContext,
             out: &mut dyn Output|
             -> HelperResult {
                let name = h.param(0).and_then(|p| p.value().as_str()).ok_or_else(|| {
                    RenderErrorReason::Other(
                        "{{diagram}}: takes the diagram's name as a string".into(),
                    )
                })?;
                let html = match name {
                    "page-walk" => page_walk::draw(),
                    "page-fault" => page_fault::draw(),
                    "tlb-hierarchy" => tlb_hierarchy::draw(ctx.data()),
                    "nested-walk" => nested_walk::draw(),
                    "malloc-flow" => malloc_flow::draw(),
                    _ => {
                        return Err(RenderErrorReason::Other(format!(
                            "{{{{diagram}}}}: unknown diagram `{name}` (known: {})",
                            DIAGRAMS.join(", ")
                        ))
                        .into())
                    }
                };
                out.write(&html)?;
                Ok(())
            },
        ),
    );
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    #[test]
    fn every_diagram_has_a_text_alternative_it_points_at() {
        for html in [
            page_walk::draw(),
            page_fault::draw(),
            nested_walk::draw(),
            malloc_flow::draw(),
            tlb_hierarchy::draw(&Value::Null),
        ] {
            let ids = html
                .split("aria-labelledby=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            for id in ids.split(' ') {
                assert!(html.contains(&format!("id=\"{id}\"")), "no element {id}");
            }
            assert!(html.contains("<figcaption>"));
        }
    }
}
