//! [`FieldError`]: what does not fit and where, in serde's words.

use std::fmt;

use serde_json::Value;

/// What does not fit, and where.
///
/// One pointer wide: every field read returns a `Result` with it, and a
/// wide error would be copied out at each of them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError(Box<Inner>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Inner {
    /// Innermost first: each level adds its own key or index as the error
    /// passes through it.
    path: Vec<Segment>,
    message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Index(usize),
    Key(String),
    /// A map key that is not what the map is keyed by (`?`).
    Unknown,
}

impl FieldError {
    pub(super) fn new(message: String) -> FieldError {
        FieldError(Box::new(Inner {
            path: Vec::new(),
            message,
        }))
    }

    /// `invalid type: string "x", expected u32`.
    #[inline(never)]
    pub(super) fn invalid_type(found: &Value, expected: &str) -> FieldError {
        FieldError::new(format!(
            "invalid type: {}, expected {expected}",
            describe(found)
        ))
    }

    /// `invalid value: integer `-2`, expected u32`.
    #[inline(never)]
    pub(super) fn invalid_value(found: &Value, expected: &str) -> FieldError {
        FieldError::new(format!(
            "invalid value: {}, expected {expected}",
            describe(found)
        ))
    }

    /// A variant with content written as its bare name.
    pub(super) fn invalid_unit_variant(expected: &str) -> FieldError {
        FieldError::new(format!("invalid type: unit variant, expected {expected}"))
    }

    #[inline(never)]
    pub(super) fn missing(field: &str) -> FieldError {
        FieldError::new(format!("missing field `{field}`"))
    }

    #[inline(never)]
    pub(super) fn unknown_variant(name: &str, names: &[&str]) -> FieldError {
        let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
        let expected = match quoted.as_slice() {
            [] => {
                return FieldError::new(format!("unknown variant `{name}`, there are no variants"))
            }
            [one] => one.clone(),
            [a, b] => format!("{a} or {b}"),
            all => format!("one of {}", all.join(", ")),
        };
        FieldError::new(format!("unknown variant `{name}`, expected {expected}"))
    }

    /// A map keyed by numbers with a key that is not one (field `?`).
    pub(super) fn key_not_a_number() -> FieldError {
        FieldError(Box::new(Inner {
            path: vec![Segment::Unknown],
            message: "invalid value: expected key to be a number in quotes".to_string(),
        }))
    }

    /// The field, as `serde_path_to_error` wrote it (`a.b[2].c`); `None`
    /// for the whole document.
    pub fn field(&self) -> Option<String> {
        if self.0.path.is_empty() {
            return None;
        }
        let mut out = String::new();
        for segment in self.0.path.iter().rev() {
            match segment {
                Segment::Index(i) => {
                    out.push('[');
                    out.push_str(&i.to_string());
                    out.push(']');
                }
                Segment::Key(k) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(k);
                }
                Segment::Unknown => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push('?');
                }
            }
        }
        Some(out)
    }

    /// What is wrong, without the field.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    #[inline(never)]
    pub(super) fn at_key(mut self, key: &str) -> FieldError {
        self.0.path.push(Segment::Key(key.to_string()));
        self
    }

    /// While parsing: the key an error inside a value sits under, for the
    /// errors that name a field (a repeated key); a syntax error names a
    /// line and column instead, as serde_json's does.
    pub(super) fn within_key(self, key: &str) -> FieldError {
        if self.0.path.is_empty() {
            self
        } else {
            self.at_key(key)
        }
    }

    /// [`FieldError::within_key`] for an array's entry.
    pub(super) fn within_index(self, index: usize) -> FieldError {
        if self.0.path.is_empty() {
            self
        } else {
            self.at_index(index)
        }
    }

    #[inline(never)]
    pub(super) fn at_index(mut self, index: usize) -> FieldError {
        self.0.path.push(Segment::Index(index));
        self
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.field() {
            Some(field) => write!(f, "field `{field}`: {}", self.0.message),
            None => f.write_str(&self.0.message),
        }
    }
}

impl std::error::Error for FieldError {}

/// What was found, in serde's words (`null`, ``floating point `1.5` ``,
/// `string "x"`): a value named without writing it out as JSON, whose
/// writer would bring `Debug` formatting into the page.
pub fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("boolean `{b}`"),
        // serde_json writes a float the shortest way that reads back
        // (`1e300`), as serde's message does.
        Value::Number(n) if n.is_f64() => format!("floating point `{n}`"),
        Value::Number(n) => format!("integer `{n}`"),
        Value::String(s) => format!("string {}", quoted(s)),
        Value::Array(_) => "sequence".to_string(),
        Value::Object(_) => "map".to_string(),
    }
}

/// `s` in double quotes, escaped as Rust's `{:?}` escapes it for every
/// character a run file is likely to hold: quotes, backslashes, control
/// characters and the invisible ones (zero-width, bidirectional
/// overrides, byte order mark) as `\u{..}`. Written out rather than
/// `{:?}`, whose Unicode tables would be the larger part of this module
/// in the page.
pub fn quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() || invisible(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn invisible(c: char) -> bool {
    matches!(c as u32, 0xad | 0x200b..=0x200f | 0x2028..=0x202e | 0x2060..=0x2069 | 0xfeff)
}

#[cfg(test)]
mod tests {
    use super::quoted;

    #[test]
    fn strings_are_quoted_as_debug_quotes_them() {
        for s in [
            "x",
            "a\"b",
            "back\\slash",
            "tab\there",
            "nul\0",
            "bell\u{7}",
            "rtl\u{202e}x",
            "zw\u{200b}",
            "bom\u{feff}",
            "é ü 中",
        ] {
            assert_eq!(quoted(s), format!("{s:?}"), "{s:?}");
        }
    }
}
