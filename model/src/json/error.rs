//! [`FieldError`]: what does not fit and where, in serde_json's words.

use std::fmt;

use serde::de::{self, Expected, Unexpected};
use serde_json::Number;

/// What does not fit, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// Innermost first: each level adds its own key or index as the error
    /// passes through it.
    pub(super) path: Vec<Segment>,
    pub(super) message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Segment {
    Index(usize),
    Key(String),
    /// A map key that is not what the map is keyed by (`?`).
    Unknown,
}

impl FieldError {
    pub(super) fn new(message: String) -> FieldError {
        FieldError {
            path: Vec::new(),
            message,
        }
    }

    /// The field, as `serde_path_to_error` wrote it (`a.b[2].c`); `None`
    /// for the whole document.
    pub fn field(&self) -> Option<String> {
        if self.path.is_empty() {
            return None;
        }
        let mut out = String::new();
        for segment in self.path.iter().rev() {
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
        &self.message
    }

    #[inline(never)]
    pub(super) fn at_key(mut self, key: &str) -> FieldError {
        self.path.push(Segment::Key(key.to_string()));
        self
    }

    #[inline(never)]
    pub(super) fn at_index(mut self, index: usize) -> FieldError {
        self.path.push(Segment::Index(index));
        self
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.field() {
            Some(field) => write!(f, "field `{field}`: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for FieldError {}

impl de::Error for FieldError {
    fn custom<T: fmt::Display>(msg: T) -> FieldError {
        FieldError::new(msg.to_string())
    }

    fn invalid_type(unexp: Unexpected, exp: &dyn Expected) -> FieldError {
        FieldError::new(format!("invalid type: {}, expected {exp}", found(unexp)))
    }

    fn invalid_value(unexp: Unexpected, exp: &dyn Expected) -> FieldError {
        FieldError::new(format!("invalid value: {}, expected {exp}", found(unexp)))
    }
}

/// What was found, in serde_json's words (`null`, ``floating point `1.5` ``).
fn found(unexp: Unexpected) -> String {
    use Unexpected::*;
    match unexp {
        Bool(b) => format!("boolean `{b}`"),
        Unsigned(i) => format!("integer `{i}`"),
        Signed(i) => format!("integer `{i}`"),
        Float(f) => format!("floating point `{}`", json_float(f)),
        Char(c) => format!("character `{c}`"),
        Str(s) => format!("string {s:?}"),
        Bytes(_) => "byte array".to_string(),
        Unit => "null".to_string(),
        Option => "Option value".to_string(),
        NewtypeStruct => "newtype struct".to_string(),
        Seq => "sequence".to_string(),
        Map => "map".to_string(),
        Enum => "enum".to_string(),
        UnitVariant => "unit variant".to_string(),
        NewtypeVariant => "newtype variant".to_string(),
        TupleVariant => "tuple variant".to_string(),
        StructVariant => "struct variant".to_string(),
        Other(other) => other.to_string(),
    }
}

/// A float as serde_json writes it (`1.5`, `1e300`).
fn json_float(f: f64) -> String {
    match Number::from_f64(f) {
        Some(n) => n.to_string(),
        None => crate::decimal::shortest(f),
    }
}
