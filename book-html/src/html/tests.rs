// Copied from mdBook 0.5.4: crate `mdbook-html` 0.5.4, file `src/html/tests.rs`
// (https://github.com/rust-lang/mdBook), under the Mozilla Public License 2.0.
//
// This Source Code Form is subject to the terms of the Mozilla Public
// License, v. 2.0. If a copy of the MPL was not distributed with this
// file, You can obtain one at https://mozilla.org/MPL/2.0/.
//
// Changes from the original:
// - added a file-level `#![allow(...)]` for clippy lints this workspace's `-D warnings`
//   rejects (mdbook-html itself allows `clippy::all`); the code is unchanged.

#![allow(clippy::collapsible_match)]

use crate::html::tokenizer::parse_html;
use html5ever::tokenizer::{Tag, TagKind, Token};

// Basic tokenizer behavior of a script.
#[test]
fn parse_html_script() {
    let script = r#"
if (3 < 5 > 10)
{
    alert("The sky is falling!");
}
"#;
    let t = format!("<script>{script}</script>");
    let ts = parse_html(&t);
    eprintln!("{ts:#?}",);
    let mut output = String::new();
    let mut in_script = false;
    for t in ts {
        match t {
            Token::ParseError(e) => panic!("{e:?}"),
            Token::CharacterTokens(s) => {
                if in_script {
                    output.push_str(&s)
                }
            }
            Token::TagToken(Tag {
                kind: TagKind::StartTag,
                ..
            }) => in_script = true,
            Token::TagToken(Tag {
                kind: TagKind::EndTag,
                ..
            }) => in_script = false,
            _ => {}
        }
    }
    assert_eq!(output, script);
}

// What happens if a script doesn't end.
#[test]
fn parse_html_script_unclosed() {
    let t = r#"<script>
// Test
"#;
    let ts = parse_html(t);
    eprintln!("{ts:#?}",);
    for t in ts {
        if let Token::ParseError(e) = t {
            panic!("{e:?}",);
        }
    }
}
