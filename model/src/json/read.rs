//! What `#[derive(FromJson)]` calls: a struct's fields, an enum's variant
//! and an internally tagged enum's tag. Each function is generic over one
//! field's type at most, so its code is shared by every struct.

use std::cell::Cell;

use serde_json::{Map, Value};

use super::{FieldError, FromJson};

/// The object a struct (or a struct variant) is read from, and the first
/// error met reading its fields.
///
/// A field that does not read records its error and stands in as
/// [`FromJson::fallback`], so a struct is built with one plain call per
/// field and no branch: the error comes out of [`Fields::finish`]. (With
/// `?` after each field, every field carried its own early return and
/// the drops of the fields before it, several times the code.)
pub struct Fields<'a> {
    map: &'a Map<String, Value>,
    error: Cell<Option<FieldError>>,
}

impl<'a> Fields<'a> {
    /// `v` as an object; `expected` names the type (`struct Axis`).
    pub fn of(v: &'a Value, expected: &'static str) -> Result<Fields<'a>, FieldError> {
        match v {
            Value::Object(map) => Ok(Fields::new(map)),
            other => Err(FieldError::invalid_type(other, expected)),
        }
    }

    fn new(map: &'a Map<String, Value>) -> Fields<'a> {
        Fields {
            map,
            error: Cell::new(None),
        }
    }

    /// The value built, or the first field's error (in declaration order).
    pub fn finish<T>(self, built: T) -> Result<T, FieldError> {
        match self.error.into_inner() {
            None => Ok(built),
            Some(e) => Err(e),
        }
    }

    /// Keeps the first error; stands in for the field's value.
    #[inline(never)]
    fn fail(&self, e: FieldError) {
        let first = self.error.take().unwrap_or(e);
        self.error.set(Some(first));
    }

    /// The map lookup, once for every field of every struct rather than
    /// inlined into each.
    #[inline(never)]
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key)
    }

    /// Field `key`; absent is `missing field` (or `None` for an `Option`).
    #[inline(never)]
    pub fn req<T: FromJson>(&self, key: &'static str) -> T {
        let read = match self.get(key) {
            Some(v) => T::from_json(v).map_err(|e| e.at_key(key)),
            None => T::absent(key),
        };
        read.unwrap_or_else(|e| {
            self.fail(e);
            T::fallback()
        })
    }

    /// Field `key`, or `T::default()` when absent (`#[serde(default)]`).
    pub fn or_default<T: FromJson + Default>(&self, key: &'static str) -> T {
        self.or_else(key, T::default)
    }

    /// Field `key`, or `default()` when absent (`#[serde(default = "f")]`).
    #[inline(never)]
    pub fn or_else<T: FromJson>(&self, key: &'static str, default: fn() -> T) -> T {
        match self.get(key) {
            Some(v) => T::from_json(v).unwrap_or_else(|e| {
                self.fail(e.at_key(key));
                T::fallback()
            }),
            None => default(),
        }
    }
}

/// An externally tagged enum's variant: `"name"`, or `{"name": content}`.
/// Returns the variant's index in `names` and its content.
pub fn variant<'a>(
    v: &'a Value,
    names: &'static [&'static str],
) -> Result<(usize, Option<&'a Value>), FieldError> {
    let (name, content) = match v {
        Value::String(name) => (name, None),
        Value::Object(map) => {
            let mut entries = map.iter();
            match (entries.next(), entries.next()) {
                (Some((name, content)), None) => (name, Some(content)),
                _ => return Err(FieldError::invalid_value(v, "map with a single key")),
            }
        }
        other => return Err(FieldError::invalid_type(other, "string or map")),
    };
    let index = names
        .iter()
        .position(|n| n == name)
        .ok_or_else(|| FieldError::unknown_variant(name, names))?;
    Ok((index, content))
}

/// A unit variant's content, if it has one, must be `null`.
pub fn unit(name: &'static str, content: Option<&Value>) -> Result<(), FieldError> {
    match content {
        None => Ok(()),
        Some(c) => <()>::from_json(c).map_err(|e| e.at_key(name)),
    }
}

/// A newtype variant's content, which it must have.
pub fn newtype<T: FromJson>(name: &'static str, content: Option<&Value>) -> Result<T, FieldError> {
    match content {
        Some(c) => T::from_json(c),
        None => Err(FieldError::invalid_unit_variant("newtype variant")),
    }
    .map_err(|e| e.at_key(name))
}

/// An internally tagged enum: an object whose `tag` names the variant
/// (index in `names`), and whose other keys are the variant's fields.
pub fn tagged<'a>(
    v: &'a Value,
    tag: &'static str,
    names: &'static [&'static str],
    expected: &'static str,
) -> Result<(usize, Fields<'a>), FieldError> {
    let Value::Object(map) = v else {
        return Err(FieldError::invalid_type(v, expected));
    };
    let name = match map.get(tag) {
        None => return Err(FieldError::missing(tag)),
        Some(Value::String(name)) => name,
        Some(other) => {
            return Err(FieldError::invalid_type(other, "variant identifier").at_key(tag));
        }
    };
    let index = names
        .iter()
        .position(|n| n == name)
        .ok_or_else(|| FieldError::unknown_variant(name, names).at_key(tag))?;
    Ok((index, Fields::new(map)))
}
