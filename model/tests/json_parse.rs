//! `json::parse` accepts exactly what `serde_json::from_str::<Value>`
//! accepts, builds the same tree (floats to the bit: the native serde_json
//! has `float_roundtrip`) and stops with the same message at the same line
//! and column: on every committed file, on every prefix of a document that
//! uses each part of the grammar, on thousands of mutations of it, and on
//! the edge cases listed here.

use pagewalk_model::json;
use serde_json::Value;

fn theirs(text: &str) -> Result<Value, String> {
    serde_json::from_str::<Value>(text).map_err(|e| e.to_string())
}

fn ours(text: &str) -> Result<Value, String> {
    json::parse(text).map_err(|e| e.to_string())
}

fn same(text: &str) {
    let (a, b) = (ours(text), theirs(text));
    match (&a, &b) {
        // The one difference, on purpose: a repeated key, which serde_json
        // reads as the last one.
        (Err(e), Ok(_)) if e.contains("is given twice") => {
            assert!(repeats_a_key(text), "{text:?}: no key is repeated")
        }
        // Bit-for-bit floats: Value's == compares them by value, which
        // would let -0.0 pass for 0.0.
        (Ok(x), Ok(y)) => assert_eq!(x.to_string(), y.to_string(), "{text:?}"),
        _ => assert_eq!(a, b, "{text:?}"),
    }
}

/// Every part of the grammar once: nesting, every escape, surrogate
/// pairs, numbers of every shape, blank space of every kind.
const KITCHEN: &str = "{\"a\": [1, -2, 0, -0, 1.5, -0.25e-3, 6.02E+23, 18446744073709551615, \
     18446744073709551616, -9223372036854775808, -9223372036854775809, 1e-400, 0.1],\r\n\
     \t\"s\": \"q\\\"b\\\\s\\/b\\bf\\fn\\nr\\rt\\t\\u00e9\\uD83D\\uDE00 \u{e9}\",\
     \"n\": null, \"t\": true, \"f\": false, \"o\": {\"\": {}, \"x\": [[], [{}]]}, \"a\": 2}";

#[test]
fn the_committed_files_read_the_same() {
    let files = pagewalk_model::committed::files();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(ours(&text).is_ok(), "{}", path.display());
        same(&text);
    }
    assert!(files.len() >= 5, "only {} files", files.len());
}

#[test]
fn every_prefix_stops_where_serde_json_stops() {
    for (i, _) in KITCHEN.char_indices() {
        same(&KITCHEN[..i]);
    }
    same(KITCHEN);
}

#[test]
fn mutated_text_is_refused_or_read_alike() {
    const PIECES: &[&str] = &[
        "{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\uD800", "\\uDC00", "0", "1", "-", ".",
        "e", "E", "+", "t", "n", "f", " ", "\n", "\u{1}", "é", "x", "1e999", "00",
    ];
    let mut rng = fastrand::Rng::with_seed(7);
    let bounds: Vec<usize> = KITCHEN
        .char_indices()
        .map(|(i, _)| i)
        .chain([KITCHEN.len()])
        .collect();
    for _ in 0..20_000 {
        let mut text = KITCHEN.to_string();
        for _ in 0..rng.usize(1..=2) {
            let bounds: Vec<usize> = (0..=text.len())
                .filter(|&i| text.is_char_boundary(i))
                .collect();
            let at = bounds[rng.usize(..bounds.len())];
            let piece = PIECES[rng.usize(..PIECES.len())];
            match rng.u8(..3) {
                0 => text.insert_str(at, piece),
                1 => {
                    let end = bounds.iter().copied().find(|&b| b > at).unwrap_or(at);
                    text.replace_range(at..end, "");
                }
                _ => {
                    let end = bounds.iter().copied().find(|&b| b > at).unwrap_or(at);
                    text.replace_range(at..end, piece);
                }
            }
        }
        same(&text);
    }
    assert!(bounds.len() > 100);
}

#[test]
fn edge_cases_read_alike() {
    let deep_ok = format!("{}{}", "[".repeat(128), "]".repeat(128));
    let too_deep = format!("{}{}", "[".repeat(129), "]".repeat(129));
    let deep_objects = "{\"a\":".repeat(130);
    for text in [
        "",
        " ",
        "1",
        "-",
        "-0",
        "-0.0",
        "0.",
        ".5",
        "01",
        "1.e5",
        "1e",
        "1e+",
        "2.5E-3",
        "123456789012345678901234567890",
        "-123456789012345678901234567890",
        "1e308",
        "1e309",
        "-1e309",
        "4.9e-324",
        "2.2250738585072011e-308",
        "0.30000000000000004",
        "\"\\u12\"",
        "\"\\uD800\"",
        "\"\\uD800\\u0041\"",
        "\"\\uDC00\"",
        "\"\\uD800\\\"",
        "\"\\x\"",
        "\"a\u{1}\"",
        "[1,]",
        "{\"a\":1,}",
        "{,}",
        "{\"a\" 1}",
        "{1:2}",
        "[1 2]",
        "nul",
        "nulx",
        "tru",
        "falsey",
        "null null",
        "[] x",
        "{\"a\":1}}",
        "\u{feff}1",
        "[\"\\u0000\"]",
        "{\"a\":1,\"a\":2}",
        &deep_ok,
        &too_deep,
        &deep_objects,
    ] {
        same(text);
    }
}

/// Whether `text` (valid JSON) repeats a key in one of its objects, by
/// serde's visitor rather than our parser: the oracle for the one place
/// the two differ on purpose.
fn repeats_a_key(text: &str) -> bool {
    use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
    struct Scan;
    impl<'de> Visitor<'de> for Scan {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("any JSON")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut keys = std::collections::HashSet::new();
            let mut repeated = false;
            while let Some(k) = map.next_key::<String>()? {
                repeated |= !keys.insert(k);
                repeated |= map.next_value::<Any>()?.0;
            }
            Ok(repeated)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
            let mut repeated = false;
            while let Some(Any(r)) = seq.next_element()? {
                repeated |= r;
            }
            Ok(repeated)
        }
        fn visit_bool<E>(self, _: bool) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_i64<E>(self, _: i64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_u64<E>(self, _: u64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_f64<E>(self, _: f64) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_str<E>(self, _: &str) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_unit<E>(self) -> Result<bool, E> {
            Ok(false)
        }
    }
    struct Any(bool);
    impl<'de> serde::Deserialize<'de> for Any {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Any, D::Error> {
            d.deserialize_any(Scan).map(Any)
        }
    }
    serde_json::from_str::<Any>(text)
        .map(|a| a.0)
        .unwrap_or(false)
}

#[test]
fn a_repeated_key_is_refused_with_its_field_where_serde_json_keeps_the_last() {
    let e = json::parse("{\"a\": {\"b\": [1, {\"c\": 1, \"c\": 2}]}}").unwrap_err();
    assert_eq!(e.field().as_deref(), Some("a.b[1].c"));
    // A syntax error still comes first, where serde_json puts it.
    same("{\"a\": 1, \"a\": 2");
    assert!(repeats_a_key(KITCHEN) && ours(KITCHEN).is_err());
}
