//! Reading JSON into the model's types (and the chart specs and the
//! worker's parameters), with the path of the field that does not fit
//! (`experiments[0].results.first-touch.pages`).
//!
//! The text is parsed into a [`serde_json::Value`] first (the run files'
//! limits are checked on that tree), then read from the tree here. This
//! does what serde_json's `&Value` deserializer wrapped in
//! `serde_path_to_error` did, with the same messages, in a fraction of the
//! code: the page's worker reads run files with it, and there that pair was
//! over half the wasm. What keeps it small: a struct is read from a JSON
//! object only (serde would also compile every struct's read-from-an-array
//! path, which the collector never writes), the path is added to an error
//! on its way out rather than tracked on the way in (no wrapper around
//! every visitor), and the generic methods only match and call the
//! visitor. Its messages are written here too, so that serde's own (which
//! formats floats with core's float code) never links into the page.

use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Expected, Unexpected, Visitor};
use serde_json::{Map, Number, Value};

/// Parses `text` and reads a `T` from it.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, FieldError> {
    let value: Value = serde_json::from_str(text).map_err(|e| FieldError::new(e.to_string()))?;
    from_value(&value)
}

/// Reads a `T` from a parsed tree.
pub fn from_value<'de, T: de::Deserialize<'de>>(value: &'de Value) -> Result<T, FieldError> {
    T::deserialize(Node(value))
}

/// What does not fit, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
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
    fn new(message: String) -> FieldError {
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
    fn at_key(mut self, key: &str) -> FieldError {
        self.path.push(Segment::Key(key.to_string()));
        self
    }

    #[inline(never)]
    fn at_index(mut self, index: usize) -> FieldError {
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
fn invalid(value: &Value, exp: &dyn Expected) -> FieldError {
    de::Error::invalid_type(unexpected(value), exp)
}

fn visit_number<'de, V: Visitor<'de>>(n: &Number, visitor: V) -> Result<V::Value, FieldError> {
    match (n.as_u64(), n.as_i64()) {
        (Some(u), _) => visitor.visit_u64(u),
        (None, Some(i)) => visitor.visit_i64(i),
        _ => visitor.visit_f64(n.as_f64().unwrap_or_default()),
    }
}

fn visit_array<'de, V: Visitor<'de>>(
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

fn visit_object<'de, V: Visitor<'de>>(
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
struct Node<'de>(&'de Value);

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

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.0 {
            Value::Bool(b) => visitor.visit_bool(*b),
            other => Err(invalid(other, &visitor)),
        }
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.0 {
            Value::Number(n) => visit_number(n, visitor),
            other => Err(invalid(other, &visitor)),
        }
    }

    serde::forward_to_deserialize_any! { i128 u128 }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.0 {
            Value::String(s) => visitor.visit_borrowed_str(s),
            other => Err(invalid(other, &visitor)),
        }
    }

    fn deserialize_char<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.deserialize_any(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            other => Err(invalid(other, &visitor)),
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

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.0 {
            Value::Array(items) => visit_array(items, visitor),
            other => Err(invalid(other, &visitor)),
        }
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

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.0 {
            Value::Object(map) => visit_object(map, visitor),
            other => Err(invalid(other, &visitor)),
        }
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

/// An enum: a variant name as a string, or an object with one key, the
/// variant, holding its content.
struct Enum<'de> {
    variant: &'de str,
    content: Option<&'de Value>,
}

impl<'de> Enum<'de> {
    fn of(value: &'de Value) -> Result<Enum<'de>, FieldError> {
        match value {
            Value::String(variant) => Ok(Enum {
                variant,
                content: None,
            }),
            Value::Object(map) => {
                let mut entries = map.iter();
                match (entries.next(), entries.next()) {
                    (Some((variant, content)), None) => Ok(Enum {
                        variant,
                        content: Some(content),
                    }),
                    _ => Err(de::Error::invalid_value(
                        Unexpected::Map,
                        &"map with a single key",
                    )),
                }
            }
            other => Err(invalid(other, &"string or map")),
        }
    }

    /// The content, or the error of a variant that needs one.
    fn content(&self, expected: &'static str) -> Result<&'de Value, FieldError> {
        self.content
            .ok_or_else(|| de::Error::invalid_type(Unexpected::UnitVariant, &expected))
            .map_err(|e: FieldError| e.at_key(self.variant))
    }
}

impl<'de> de::EnumAccess<'de> for Enum<'de> {
    type Error = FieldError;
    type Variant = Self;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self), FieldError> {
        let variant = seed.deserialize(Key(self.variant))?;
        Ok((variant, self))
    }
}

impl<'de> de::VariantAccess<'de> for Enum<'de> {
    type Error = FieldError;

    fn unit_variant(self) -> Result<(), FieldError> {
        match self.content {
            Some(content) => de::Deserialize::deserialize(Node(content))
                .map_err(|e: FieldError| e.at_key(self.variant)),
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<T::Value, FieldError> {
        let content = self.content("newtype variant")?;
        seed.deserialize(Node(content))
            .map_err(|e| e.at_key(self.variant))
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        match self.content("tuple variant")? {
            Value::Array(items) => visit_array(items, visitor),
            other => Err(invalid(other, &"tuple variant")),
        }
        .map_err(|e| e.at_key(self.variant))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        match self.content("struct variant")? {
            Value::Object(map) => visit_object(map, visitor),
            other => Err(invalid(other, &"struct variant")),
        }
        .map_err(|e| e.at_key(self.variant))
    }
}

/// An object's key (or a variant's name). Maps keyed by numbers read them
/// from the key's text, as serde_json does.
struct Key<'de>(&'de str);

impl<'de> Key<'de> {
    fn visit_number<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match numeric_key(self.0) {
            Some(n) => visit_number(&n, visitor),
            None => Err(FieldError {
                path: vec![Segment::Unknown],
                message: "invalid value: expected key to be a number in quotes".to_string(),
            }),
        }
    }
}

/// The key as a whole number, if it is one (the model's maps are keyed
/// by CPU and node numbers).
fn numeric_key(key: &str) -> Option<Number> {
    if let Ok(u) = key.parse::<u64>() {
        Some(u.into())
    } else {
        key.parse::<i64>().ok().map(Number::from)
    }
    .filter(|_| key.starts_with(|c: char| c.is_ascii_digit() || c == '-'))
}

impl<'de> de::Deserializer<'de> for Key<'de> {
    type Error = FieldError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        visitor.visit_borrowed_str(self.0)
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        match self.0 {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            other => Err(de::Error::invalid_type(Unexpected::Str(other), &visitor)),
        }
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.visit_number(visitor)
    }

    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.visit_number(visitor)
    }

    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.visit_number(visitor)
    }

    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.visit_number(visitor)
    }

    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.visit_number(visitor)
    }

    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.visit_number(visitor)
    }

    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.visit_number(visitor)
    }

    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.visit_number(visitor)
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.visit_number(visitor)
    }

    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        self.visit_number(visitor)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, FieldError> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, FieldError> {
        visitor.visit_enum(Enum {
            variant: self.0,
            content: None,
        })
    }

    serde::forward_to_deserialize_any! {
        i128 u128 char str string bytes byte_buf unit unit_struct seq tuple
        tuple_struct map struct identifier ignored_any
    }
}
