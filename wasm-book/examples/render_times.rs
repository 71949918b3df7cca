//! Where a page's rendering time goes, natively (a report, not a test):
//! `cargo run --release -p pagewalk-wasm-book --example render_times -- RUN.json`.

use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("a run file");
    let bytes = std::fs::read(&path).expect("readable");
    split(&bytes);
    let t = Instant::now();
    let book = pagewalk_wasm_book::Book::open("run.json", &bytes).expect("opens");
    let open = t.elapsed();
    let t = Instant::now();
    let page = book.render("first-touch.md").expect("renders");
    let first = t.elapsed();
    let t = Instant::now();
    book.render("first-touch.md").expect("renders");
    let again = t.elapsed();
    println!(
        "open (data set, views) {:.0} ms; first-touch.md {:.0} ms, again {:.0} ms; {} bytes of HTML",
        open.as_secs_f64() * 1e3,
        first.as_secs_f64() * 1e3,
        again.as_secs_f64() * 1e3,
        page.html.len()
    );
}

fn split(bytes: &[u8]) {
    use std::sync::Arc;
    let files = pagewalk_wasm_book::data_files("run.json", bytes);
    let t = Instant::now();
    let data = mdbook_pagewalk::DataSet::from_files(&files).unwrap();
    let parse = t.elapsed();
    let t = Instant::now();
    let _s = serde_json::to_value(mdbook_pagewalk::context::schema()).unwrap();
    println!("schema {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let _c = mdbook_pagewalk::context::build(&data);
    println!("context {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    let _r = mdbook_pagewalk::Renderer::new(Arc::new(data));
    println!(
        "data set {:.0} ms, renderer {:.0} ms",
        parse.as_secs_f64() * 1e3,
        t.elapsed().as_secs_f64() * 1e3
    );
}
