//! Enums and object keys: a variant named by a string or by an object's
//! one key, and keys read as strings or, for maps keyed by numbers, as the
//! numbers they spell.

use serde::de::{self, DeserializeSeed, Unexpected, Visitor};
use serde_json::{Number, Value};

use super::error::Segment;
use super::node::{invalid, visit_array, visit_number, visit_object, Node};
use super::FieldError;

/// An enum: a variant name as a string, or an object with one key, the
/// variant, holding its content.
pub(super) struct Enum<'de> {
    pub(super) variant: &'de str,
    pub(super) content: Option<&'de Value>,
}

impl<'de> Enum<'de> {
    pub(super) fn of(value: &'de Value) -> Result<Enum<'de>, FieldError> {
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
pub(super) struct Key<'de>(pub(super) &'de str);

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
