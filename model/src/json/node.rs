//! The tree as a serde deserializer: [`Node`] for a value, [`Seq`] and
//! [`Object`] for what arrays and objects hold.

use serde::de::{self, DeserializeSeed, Expected, Unexpected, Visitor};
use serde_json::{Map, Number, Value};

use super::key::{Enum, Key};
use super::FieldError;

/// `deserialize_*` methods that read one kind of JSON value and refuse
/// anything else by its type (`$v` names the visitor in `$read`).
macro_rules! read_as {
    ($v:ident: $pattern:pat => $read:expr; $($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, $v: V) -> Result<V::Value, FieldError> {
            match self.0 {
                $pattern => $read,
                other => Err(invalid(other, &$v)),
            }
        }
    )*};
}

fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            _ => Unexpected::Float(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

#[inline(never)]
pub(super) fn invalid(value: &Value, exp: &dyn Expected) -> FieldError {
    de::Error::invalid_type(unexpected(value), exp)
}

pub(super) fn visit_number<'de, V: Visitor<'de>>(
    n: &Number,
    visitor: V,
) -> Result<V::Value, FieldError> {
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => visitor.visit_u64(u),
        (None, Some(i)) => visitor.visit_i64(i),
        _ => visitor.visit_f64(n.as_f64().unwrap_or_default()),
    }
}

pub(super) fn visit_array<'de, V: Visitor<'de>>(
    items: &'de [Value],
    visitor: V,
) -> Result<V::Value, FieldError> {
    let mut seq = Seq {
        items: items.iter(),
        index: 0,
    };
    let out = visitor.visit_seq(&mut seq)?;
    all_read(seq.items.len(), items.len(), "fewer elements in array")?;
    Ok(out)
}

pub(super) fn visit_object<'de, V: Visitor<'de>>(
    map: &'de Map<String, Value>,
    visitor: V,
) -> Result<V::Value, FieldError> {
    let mut access = Object {
        entries: map.iter(),
        value: None,
    };
    let out = visitor.visit_map(&mut access)?;
    all_read(access.entries.len(), map.len(), "fewer elements in map")?;
    Ok(out)
}

fn all_read(left: usize, len: usize, expected: &'static str) -> Result<(), FieldError> {
    if left == 0 {
        Ok(())
    } else {
        Err(de::Error::invalid_length(len, &expected))
    }
}

/// A value in the tree, as a serde deserializer.
#[derive(Clone, Copy)]
pub(super) struct Node<'de>(pub(super) &'de Value);

impl<'de> de::Deserializer<'de> for Node<'de> {
    type Error = FieldError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => visit_number(n, visitor),
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => visit_array(items, visitor),
            Value::Object(map) => visit_object(map, visitor),
        }
    }

    serde::forward_to_deserialize_any! { i128 u128 bytes byte_buf }

    read_as! { visitor: Value::Number(n) => visit_number(n, visitor);
    deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_u8
    deserialize_u16 deserialize_u32 deserialize_u64 deserialize_f32 deserialize_f64 }
    read_as! { visitor: Value::String(s) => visitor.visit_borrowed_str(s);
    deserialize_str deserialize_char deserialize_string deserialize_identifier }
    read_as! { visitor: Value::Bool(b) => visitor.visit_bool(*b); deserialize_bool }
    read_as! { visitor: Value::Null => visitor.visit_unit(); deserialize_unit }
    read_as! { visitor: Value::Array(items) => visit_array(items, visitor);
    deserialize_seq }
    read_as! { visitor: Value::Object(map) => visit_object(map, visitor); deserialize_map }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        self.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        self.deserialize_seq(visitor)
    }

    /// From an object only: the model writes structs as objects, and
    /// reading one from an array would compile every struct's fields twice.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        self.deserialize_map(visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        visitor.visit_enum(Enum::of(self.0)?)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        visitor.visit_unit()
    }
}

struct Seq<'de> {
    items: std::slice::Iter<'de, Value>,
    index: usize,
}

impl<'de> de::SeqAccess<'de> for Seq<'de> {
    type Error = FieldError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, FieldError> {
        let Some(item) = self.items.next() else {
            return Ok(None);
        };
        let index = self.index;
        self.index += 1;
        seed.deserialize(Node(item))
            .map(Some)
            .map_err(|e| e.at_index(index))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct Object<'de> {
    entries: serde_json::map::Iter<'de>,
    value: Option<(&'de str, &'de Value)>,
}

impl<'de> de::MapAccess<'de> for Object<'de> {
    type Error = FieldError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, FieldError> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some((key, value));
        // A key that could not be read is already marked `?`.
        seed.deserialize(Key(key)).map(Some).map_err(|e| {
            if e.path.is_empty() {
                e.at_key(key)
            } else {
                e
            }
        })
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, FieldError> {
        let Some((key, value)) = self.value.take() else {
            return Err(de::Error::custom("value is missing"));
        };
        seed.deserialize(Node(value)).map_err(|e| e.at_key(key))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}
