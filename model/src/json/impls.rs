//! [`FromJson`] for the standard types the model's fields use, and
//! [`FromKey`] for the keys of its maps (strings, and CPU and node numbers
//! written as strings).

use std::collections::BTreeMap;

use serde_json::{Number, Value};

use super::shape::Shape;
use super::{FieldError, FromJson};

impl FromJson for bool {
    fn shape() -> Shape {
        Shape::Bool
    }

    fn fallback() -> bool {
        false
    }

    fn from_json(v: &Value) -> Result<bool, FieldError> {
        v.as_bool()
            .ok_or_else(|| FieldError::invalid_type(v, "a boolean"))
    }
}

impl FromJson for String {
    fn shape() -> Shape {
        Shape::Text
    }

    fn fallback() -> String {
        String::new()
    }

    fn from_json(v: &Value) -> Result<String, FieldError> {
        match v {
            Value::String(s) => Ok(s.clone()),
            other => Err(FieldError::invalid_type(other, "a string")),
        }
    }
}

impl FromJson for () {
    fn fallback() {}

    fn from_json(v: &Value) -> Result<(), FieldError> {
        match v {
            Value::Null => Ok(()),
            other => Err(FieldError::invalid_type(other, "unit")),
        }
    }
}

impl FromJson for f64 {
    fn shape() -> Shape {
        Shape::Number
    }

    fn fallback() -> f64 {
        0.0
    }

    fn from_json(v: &Value) -> Result<f64, FieldError> {
        v.as_f64().ok_or_else(|| FieldError::invalid_type(v, "f64"))
    }
}

impl FromJson for f32 {
    fn shape() -> Shape {
        Shape::Number
    }

    fn fallback() -> f32 {
        0.0
    }

    fn from_json(v: &Value) -> Result<f32, FieldError> {
        v.as_f64()
            .map(|f| f as f32)
            .ok_or_else(|| FieldError::invalid_type(v, "f32"))
    }
}

/// A whole number of type `T`: anything but a whole number is the wrong
/// type, one out of `T`'s range the wrong value (serde's two messages).
fn whole<T: TryFrom<u64> + TryFrom<i64>>(
    v: &Value,
    expected: &'static str,
) -> Result<T, FieldError> {
    let Value::Number(n) = v else {
        return Err(FieldError::invalid_type(v, expected));
    };
    let fits = if let Some(u) = n.as_u64() {
        T::try_from(u).ok()
    } else if let Some(i) = n.as_i64() {
        T::try_from(i).ok()
    } else {
        return Err(FieldError::invalid_type(v, expected));
    };
    fits.ok_or_else(|| FieldError::invalid_value(v, expected))
}

macro_rules! whole_numbers {
    ($($t:ident)*) => {$(
        impl FromJson for $t {
            fn shape() -> Shape {
                Shape::Number
            }

            fn fallback() -> $t {
                0
            }

            fn from_json(v: &Value) -> Result<$t, FieldError> {
                whole(v, stringify!($t))
            }
        }

        impl FromKey for $t {
            fn from_key(key: &str) -> Result<$t, FieldError> {
                let n = numeric_key(key).ok_or_else(FieldError::key_not_a_number)?;
                whole(&Value::Number(n), stringify!($t)).map_err(|e| e.at_key(key))
            }
        }
    )*};
}

whole_numbers! { u8 u16 u32 u64 usize i8 i16 i32 i64 isize }

impl<T: FromJson> FromJson for Option<T> {
    fn shape() -> Shape {
        Shape::Optional(T::shape)
    }

    fn fallback() -> Option<T> {
        None
    }

    fn from_json(v: &Value) -> Result<Option<T>, FieldError> {
        match v {
            Value::Null => Ok(None),
            some => T::from_json(some).map(Some),
        }
    }

    fn absent(_field: &'static str) -> Result<Option<T>, FieldError> {
        Ok(None)
    }
}

impl<T: FromJson> FromJson for Vec<T> {
    fn shape() -> Shape {
        Shape::List(T::shape)
    }

    fn fallback() -> Vec<T> {
        Vec::new()
    }

    fn from_json(v: &Value) -> Result<Vec<T>, FieldError> {
        let Value::Array(items) = v else {
            return Err(FieldError::invalid_type(v, "a sequence"));
        };
        // A loop, not `collect::<Result<_, _>>()`, whose adapter would be
        // compiled again around every element type.
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            out.push(T::from_json(item).map_err(|e| e.at_index(i))?);
        }
        Ok(out)
    }
}

impl<T: FromJson> FromJson for Box<T> {
    fn shape() -> Shape {
        T::shape()
    }

    fn fallback() -> Box<T> {
        Box::new(T::fallback())
    }

    fn from_json(v: &Value) -> Result<Box<T>, FieldError> {
        T::from_json(v).map(Box::new)
    }
}

/// A map's key, read from the key's text.
pub trait FromKey: Sized + Ord {
    fn from_key(key: &str) -> Result<Self, FieldError>;

    /// `Text` or `Number`: what a key of this type may say.
    fn key_shape() -> Shape {
        Shape::Number
    }
}

impl FromKey for String {
    fn key_shape() -> Shape {
        Shape::Text
    }

    fn from_key(key: &str) -> Result<String, FieldError> {
        Ok(key.to_string())
    }
}

/// The key as a whole number, if it is one (the model's maps are keyed
/// by CPU and node numbers), as serde_json reads a number key.
fn numeric_key(key: &str) -> Option<Number> {
    if !key.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
        return None;
    }
    match key.parse::<u64>() {
        Ok(u) => Some(u.into()),
        Err(_) => key.parse::<i64>().ok().map(Number::from),
    }
}

impl<K: FromKey, V: FromJson> FromJson for BTreeMap<K, V> {
    fn shape() -> Shape {
        Shape::Map(K::key_shape, V::shape)
    }

    fn fallback() -> BTreeMap<K, V> {
        BTreeMap::new()
    }

    fn from_json(v: &Value) -> Result<BTreeMap<K, V>, FieldError> {
        let Value::Object(map) = v else {
            return Err(FieldError::invalid_type(v, "a map"));
        };
        let mut out = BTreeMap::new();
        for (k, item) in map {
            let key = K::from_key(k)?;
            out.insert(key, V::from_json(item).map_err(|e| e.at_key(k))?);
        }
        Ok(out)
    }
}
