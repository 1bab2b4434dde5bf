//! Lenient readers for event fields.
//!
//! The one rule of reading a webhook event: a value of the wrong JSON type,
//! a null or an unparseable string becomes `None` (or is left out of a list)
//! instead of failing the whole event; unknown enum values are kept. The
//! generated models read each field through it in their lenient form
//! (`crate::api::support::Fields`).
//! The readers work on the token stream directly, without building a
//! `serde_json::Value`, because a large order has tens of thousands of fields.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::secret::Secret;
use crate::time::LocalTime;

/// The `visit_*` methods of a visitor that reads one kind of container
/// into an `Option`: every scalar, and `null`, reads as `None` (an option's
/// inner value is looked at as any other value). Shared by the lenient
/// readers here and the field-by-path read of webhook events.
macro_rules! scalars_read_as_none {
    () => {
        fn visit_bool<E: ::serde::de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_i64<E: ::serde::de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_u64<E: ::serde::de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_f64<E: ::serde::de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_str<E: ::serde::de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_bytes<E: ::serde::de::Error>(self, _: &[u8]) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_unit<E: ::serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: ::serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D: ::serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
    };
}
pub(crate) use scalars_read_as_none;

/// The string a JSON value's text holds (`"a\"b"` is `a"b`), borrowed
/// when it has no escapes; `None` when the value is not a string.
pub(crate) fn string_text(json: &str) -> Option<Cow<'_, str>> {
    let inner = json.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str(json).ok().map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(inner))
    }
}

/// One JSON value reduced to what a scalar field can use.
pub(crate) enum Scalar<'de> {
    Str(Cow<'de, str>),
    I64(i64),
    U64(u64),
    F64(f64),
    Bool(bool),
    /// `null`, an array or an object (already skipped).
    Other,
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Scalar::I64(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Scalar::U64(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Scalar::F64(v))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v)))
    }
    fn visit_bytes<E: de::Error>(self, _: &[u8]) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        drain_seq(seq)?;
        Ok(Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        drain_map(map)?;
        Ok(Scalar::Other)
    }
}

/// Reads any value as a [`Scalar`]; containers are consumed and reported as
/// [`Scalar::Other`].
pub(crate) fn scalar<'de, D: Deserializer<'de>>(d: D) -> Result<Scalar<'de>, D::Error> {
    d.deserialize_any(ScalarVisitor)
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// A type that can be read leniently: `Ok(None)` for a value it cannot use.
///
/// `Err` is left for what leniency cannot mend: broken JSON syntax and
/// duplicate keys inside a modelled object.
pub(crate) trait Lenient: Sized {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error>;

    /// Reads into `slot`. A generated struct overrides it to fill itself
    /// in place: an order is kilobytes wide, and moving it out of the read
    /// and into its field took a quarter of a small event's typed read.
    fn read_into<'de, D: Deserializer<'de>>(slot: &mut Option<Self>, d: D) -> Result<(), D::Error> {
        *slot = Self::read(d)?;
        Ok(())
    }

    /// Reads into a new box (a generated struct fills the box in place).
    fn read_boxed<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Box<Self>>, D::Error> {
        Ok(Self::read(d)?.map(Box::new))
    }
}

impl Lenient for String {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
        Ok(match scalar(d)? {
            Scalar::Str(s) => Some(s.into_owned()),
            _ => None,
        })
    }
}

impl Lenient for bool {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
        Ok(match scalar(d)? {
            Scalar::Bool(b) => Some(b),
            _ => None,
        })
    }
}

/// 2^63 as f64: exact, so the range check on doubles is exact.
const I64_BOUND: f64 = 9_223_372_036_854_775_808.0;

impl Lenient for i64 {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
        Ok(match scalar(d)? {
            Scalar::I64(v) => Some(v),
            Scalar::U64(v) => i64::try_from(v).ok(),
            // An integral double within i64 range ("60.0") is kept.
            Scalar::F64(v) if v.fract() == 0.0 && (-I64_BOUND..I64_BOUND).contains(&v) =>
            {
                #[allow(clippy::cast_possible_truncation)]
                Some(v as i64)
            }
            Scalar::Str(s) => s.trim().parse().ok(),
            _ => None,
        })
    }
}

impl Lenient for f64 {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
        #[allow(clippy::cast_precision_loss)]
        Ok(match scalar(d)? {
            Scalar::F64(v) => Some(v),
            Scalar::I64(v) => Some(v as f64),
            Scalar::U64(v) => Some(v as f64),
            Scalar::Str(s) => s.trim().parse::<f64>().ok().filter(|v| v.is_finite()),
            _ => None,
        })
    }
}

impl Lenient for Secret {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
        Ok(String::read(d)?.map(Secret::new))
    }
}

/// Untyped JSON is kept as sent; only `null` reads as `None`.
impl Lenient for serde_json::Value {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
        Ok(Some(serde_json::Value::deserialize(d)?).filter(|v| !v.is_null()))
    }
}

/// A JSON object of any values: anything else reads as `None`.
impl Lenient for serde_json::Map<String, serde_json::Value> {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
        struct MapOfValues;

        impl<'de> Visitor<'de> for MapOfValues {
            type Value = serde_json::Map<String, serde_json::Value>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Self::Value::deserialize(de::value::MapAccessDeserializer::new(map))
            }
        }

        // Straight from the tokens: a non-object is skipped, not built.
        d.deserialize_any(ObjectOnly(MapOfValues))
    }
}

/// A JSON object of typed values: anything else reads as `None`, and a
/// value that does not read is left out.
impl<T: Lenient> Lenient for std::collections::BTreeMap<String, T> {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
        struct MapVisitor<T>(PhantomData<T>);

        impl<'de, T: Lenient> Visitor<'de> for MapVisitor<T> {
            type Value = std::collections::BTreeMap<String, T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = std::collections::BTreeMap::new();
                while let Some((key, Element(value))) = map.next_entry::<String, Element<T>>()? {
                    if let Some(value) = value {
                        out.insert(key, value);
                    }
                }
                Ok(out)
            }
        }

        d.deserialize_any(ObjectOnly(MapVisitor::<T>(PhantomData)))
    }
}

/// A JSON array: anything else reads as `None`, and an element that does
/// not read (null, wrong type) is left out.
impl<T: Lenient> Lenient for Vec<T> {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
        d.deserialize_any(ListVisitor(PhantomData))
    }
}

/// The lenient read of a `T` into its slot, as a serde seed (a map's next
/// value).
pub(crate) struct IntoSlot<'a, T>(pub(crate) &'a mut Option<T>);

impl<'de, T: Lenient> de::DeserializeSeed<'de> for IntoSlot<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        T::read_into(self.0, d)
    }
}

/// Reads an object with the visitor `V`; any other value reads as `None`.
pub(crate) struct ObjectOnly<V>(pub(crate) V);

impl<'de, V: Visitor<'de>> Visitor<'de> for ObjectOnly<V> {
    type Value = Option<V::Value>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.0.visit_map(map).map(Some)
    }
    scalars_read_as_none!();
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        drain_seq(seq)?;
        Ok(None)
    }
}

impl<T: Lenient> Lenient for Box<T> {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
        T::read_boxed(d)
    }
}

impl Lenient for LocalTime {
    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
        Ok(match scalar(d)? {
            Scalar::Str(s) => Some(LocalTime::parse(&s)),
            _ => None,
        })
    }
}

/// A list: a non-array reads as `None`, and elements that cannot be read
/// (null, wrong type) are left out.
struct ListVisitor<T>(PhantomData<T>);

struct Element<T>(Option<T>);

impl<'de, T: Lenient> Deserialize<'de> for Element<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::read(d).map(Element)
    }
}

impl<'de, T: Lenient> Visitor<'de> for ListVisitor<T> {
    type Value = Option<Vec<T>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Element(item)) = seq.next_element::<Element<T>>()? {
            if let Some(item) = item {
                out.push(item);
            }
        }
        Ok(Some(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        drain_map(map)?;
        Ok(None)
    }
    scalars_read_as_none!();
}
