//! `render_markdown` must give, byte for byte, the chapter content that the
//! real `mdbook build` (the pinned v0.5.4 binary on PATH) writes.
//!
//! The test writes a tiny book into a temporary directory, builds it with
//! `mdbook`, cuts each chapter's content out of the built page (the default
//! theme's `index.hbs` puts `{{{ content }}}` alone inside `<main>`) and
//! compares it with `render_markdown` of the chapter's source, using the config
//! that `config_from_book_toml` reads from the same `book.toml`.
//!
//! Without `mdbook` on PATH the test prints why and returns.

use pagewalk_book_html::{config_from_book_toml, render_markdown};
use std::path::Path;
use std::process::Command;

const BOOK_TOML: &str = r#"[book]
title = "Tiny"
authors = ["pagewalk"]
language = "en"

[rust]
edition = "2021"

[output.html.playground]
runnable = false

[output.html.code.hidelines]
c = "~"
"#;

const SUMMARY: &str = "\
# Summary

- [Prose](prose.md)
- [Code](code.md)
- [Raw HTML](html.md)
    - [Other](sub/other.md)
";

const PROSE: &str = r#"# Prose

## Setup

Some "quoted" text -- with dashes --- and an ellipsis... it's 'single' too.

## Setup

The same title again, so the id must become unique.[^note] A numbered
footnote[^1] and the named one again.[^note]

[^1]: The numbered footnote, defined after its use; referenced twice.[^1]

### Setup

~~Struck~~ text, *emphasis*, **strong** and `code`.

See [the other chapter](sub/other.md#anchor), [a fragment](#setup-1),
[an external link](https://example.com/a.md) and <https://example.org>.

[^early]: Defined before its use.

Using the early footnote.[^early]

[^note]: The named footnote,
    with a second line.

| Left | Center | Right | None |
|:-----|:------:|------:|------|
| a    | b      | c     | d    |
| `e`  | **f**  | [g](code.md) | h \| i |

Term
: Its definition.

Another term
: First definition.
: Second definition.

> [!NOTE]
> An admonition with *markup*.

> [!WARNING]
> A warning.

> A plain quote.

- [x] done
- [ ] not done
  - [ ] nested

1. one
2. two

3. three, loose

---

Hard break at line end\
and a soft one
here.

![An *image*](img/pic.png "Title")
"#;

const CODE: &str = r#"# Code

```rust
# use std::collections::HashMap;
#[derive(Debug)]
struct S;
## not hidden
    # indented hidden
fn main() {
    let _m: HashMap<u8, u8> = HashMap::new();
    println!("{:?}", S);
}
```

```rust,mdbook-runnable
# #![allow(dead_code)]
let x = 1;
# let y = 2;
```

```rust,editable,mdbook-runnable,edition2018
fn helper() {}
```

```c
~#include <stdio.h>
int main(void) {
~    puts("hidden");
    return 0;
}
```

```c,hidelines=!!
!!hidden
shown
```

```sh
echo "<not a tag>" && true
```

    indented code block
    with <angle> & ampersand

Inline `<code>` and `&amp;`.
"#;

const HTML: &str = r#"# Raw HTML

<div class="x">

Markdown *inside* the div.

</div>

<figure>
<img src="../img/a.png" alt="A">
<figcaption>A <em>caption</em> with <a href="code.md#code">a link</a>.</figcaption>
</figure>

<svg viewBox="0 0 10 10" width="10" height="10" xmlns="http://www.w3.org/2000/svg" aria-hidden="true">
<rect x="1" y="1" width="8" height="8" fill="none" stroke="currentColor" stroke-width="1"/>
<path d="M1 1L9 9" />
</svg>

<details>
<summary>More</summary>

Hidden *details* with a [link](prose.md#setup).

</details>

Text with <span class="inline" data-k='v"q'>inline html</span> and <kbd>Ctrl</kbd>+<kbd>C</kbd>.

An icon: <i class="fa fa-github"></i> and <i class="fas fa-check custom"></i>.

<!-- a comment -->

<h2>Raw heading</h2>

## Heading with `code` and <em>html</em>

<script>
if (1 < 2 && 3 > 2) { console.log("<b>"); }
</script>
"#;

const OTHER: &str = r#"# Other

<a id="anchor"></a>

## Anchor {#anchor-2 .cls data-x=y}

Back to [prose](../prose.md#setup) and [code](../code.md).

## Über Ünïcode 中文 & symbols!
"#;

/// The chapter content mdBook put into the page: what sits between the
/// default theme's `<main>` … `</main>` around `{{{ content }}}`.
fn content_of_page(page: &str) -> &str {
    const START: &str = "<div id=\"mdbook-content\" class=\"content\">\n                    <main>\n                        ";
    const END: &str =
        "\n                    </main>\n\n                    <nav class=\"nav-wrapper\"";
    let start = page.find(START).expect("start marker of the content") + START.len();
    let end = page.rfind(END).expect("end marker of the content");
    &page[start..end]
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

#[test]
fn chapters_render_exactly_like_mdbook_build() {
    if !on_path("mdbook") {
        println!("skipped: `mdbook` is not on PATH");
        return;
    }
    let version = Command::new("mdbook")
        .arg("--version")
        .output()
        .expect("mdbook --version");
    let version = String::from_utf8_lossy(&version.stdout);
    assert!(
        version.trim() == "mdbook v0.5.4",
        "this crate vendors mdBook 0.5.4's renderer, but PATH has {version:?}"
    );

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let chapters = [
        ("prose.md", PROSE),
        ("code.md", CODE),
        ("html.md", HTML),
        ("sub/other.md", OTHER),
    ];
    std::fs::create_dir_all(root.join("src/sub")).unwrap();
    std::fs::write(root.join("book.toml"), BOOK_TOML).unwrap();
    std::fs::write(root.join("src/SUMMARY.md"), SUMMARY).unwrap();
    for (path, text) in chapters {
        std::fs::write(root.join("src").join(path), text).unwrap();
    }

    let mut build = Command::new("mdbook");
    build
        .arg("build")
        .arg(root)
        .arg("--dest-dir")
        .arg(root.join("out"));
    // `mdbook` reads `MDBOOK_*` variables as config overrides; the config
    // given to `render_markdown` is the book.toml alone.
    for (name, _) in std::env::vars_os() {
        if name
            .to_string_lossy()
            .to_ascii_uppercase()
            .starts_with("MDBOOK_")
        {
            build.env_remove(name);
        }
    }
    let output = build.output().expect("run mdbook build");
    assert!(
        output.status.success(),
        "mdbook build failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let (html_config, edition) = config_from_book_toml(BOOK_TOML).unwrap();
    assert!(!html_config.playground.runnable);
    assert_eq!(
        html_config.code.hidelines.get("c").map(String::as_str),
        Some("~")
    );
    assert!(edition.is_some());

    for (path, text) in chapters {
        let page_path = root
            .join("out")
            .join(Path::new(path).with_extension("html"));
        let page = std::fs::read_to_string(&page_path).unwrap();
        let expected = content_of_page(&page);
        let actual = render_markdown(text, Path::new(path), &html_config, edition);
        assert!(
            actual == expected,
            "`{path}` differs from mdbook's output\n--- mdbook build ---\n{expected}\n--- render_markdown ---\n{actual}"
        );
        println!(
            "{path}: {} bytes of HTML identical to `mdbook build`",
            actual.len()
        );
    }
}
