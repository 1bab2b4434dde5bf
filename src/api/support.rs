//! Helpers the generated code calls: structs read one key at a time, unions
//! on a discriminator field, and requests and answers moved between typed
//! and JSON form.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeOwned, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A generated struct, read from a JSON object one key at a time.
///
/// serde's derive keeps unknown fields only through `#[serde(flatten)]`,
/// which buffers every field of every object before reading it: slower than
/// an untyped `Value` on large answers, and heavy to compile for a thousand
/// structs. The generator writes [`Fields::read_field`] instead (one `match`
/// on the wire name), and [`deserialize_fields`] keeps what it does not know.
///
/// One struct has two reads, picked by `LENIENT`: strict for the answers of
/// calls (a value of the wrong type fails the read), lenient for webhook
/// events (the rule of `crate::lenient`: such a value reads as
/// `None`), so the events' types are the same generated ones.
pub trait Fields: Default {
    /// The schema's name, for error messages.
    const SCHEMA: &'static str;

    /// Reads the value of the field named `key` from `map` into `self`,
    /// strictly or leniently. `Ok(false)` leaves the value unread: the
    /// struct has no such field.
    fn read_field<'de, const LENIENT: bool, A: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<bool, A::Error>;

    /// Where fields this version does not know are kept.
    fn extra_mut(&mut self) -> &mut Map<String, Value>;
}

/// The body of a generated struct's `Deserialize`.
pub fn deserialize_fields<'de, D: Deserializer<'de>, T: Fields>(d: D) -> Result<T, D::Error> {
    d.deserialize_map(Object::<T, false>(PhantomData))
}

/// The lenient read of a generated struct: a value that is not an object
/// reads as `None`, and every field is read leniently.
pub(crate) fn read_fields_lenient<'de, D: Deserializer<'de>, T: Fields>(
    d: D,
) -> Result<Option<T>, D::Error> {
    d.deserialize_any(crate::lenient::ObjectOnly(Object::<T, true>(PhantomData)))
}

/// The lenient read of a generated struct into `target`, in place; `false`
/// when the value is not an object (`target` is then as it was).
pub(crate) fn fill_fields_lenient<'de, D: Deserializer<'de>, T: Fields>(
    target: &mut T,
    d: D,
) -> Result<bool, D::Error> {
    struct Fill<'a, T>(&'a mut T);

    impl<'de, T: Fields> Visitor<'de> for Fill<'_, T> {
        type Value = ();

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            expecting_object(f, T::SCHEMA)
        }

        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
            fill_from_map::<true, T, A>(self.0, map)
        }
    }

    Ok(d.deserialize_any(crate::lenient::ObjectOnly(Fill(target)))?
        .is_some())
}

/// The `Lenient::read_into` of a generated struct: filled in place in its
/// slot, which is `None` again when the value is not an object.
pub(crate) fn read_fields_lenient_into<'de, D: Deserializer<'de>, T: Fields>(
    slot: &mut Option<T>,
    d: D,
) -> Result<(), D::Error> {
    if !fill_fields_lenient(slot.get_or_insert_with(T::default), d)? {
        *slot = None;
    }
    Ok(())
}

/// The `Lenient::read_boxed` of a generated struct: filled in its box.
pub(crate) fn read_fields_lenient_boxed<'de, D: Deserializer<'de>, T: Fields>(
    d: D,
) -> Result<Option<Box<T>>, D::Error> {
    let mut boxed = Box::<T>::default();
    Ok(fill_fields_lenient(&mut *boxed, d)?.then_some(boxed))
}

/// What a generated struct or union's reader expects, for serde's errors;
/// one function rather than one per type.
fn expecting_object(f: &mut fmt::Formatter, schema: &str) -> fmt::Result {
    write!(f, "a `{schema}` object")
}

/// Reads the members of an object into a generated struct, one at a time;
/// unknown ones go to its `extra`.
///
/// This is compiled for every struct and reader: only the call of
/// `read_field` depends on the struct, so the key's read and the keeping of
/// an unknown member are functions of their own, compiled once per reader.
fn fill_from_map<'de, const LENIENT: bool, T: Fields, A: MapAccess<'de>>(
    out: &mut T,
    mut map: A,
) -> Result<(), A::Error> {
    while let Some(key) = next_key(&mut map)? {
        if !out.read_field::<LENIENT, A>(&key, &mut map)? {
            keep_unknown(out.extra_mut(), key, &mut map)?;
        }
    }
    Ok(())
}

/// The next key of an object, borrowed from the input where it can be.
#[inline(always)]
fn next_key<'de, A: MapAccess<'de>>(map: &mut A) -> Result<Option<Cow<'de, str>>, A::Error> {
    Ok(map.next_key::<Key<'de>>()?.map(|Key(key)| key))
}

/// Reads the value of a member the struct does not know into its `extra`.
/// A repeated unknown key keeps its last value, as `Value` would.
#[inline(never)]
fn keep_unknown<'de, A: MapAccess<'de>>(
    extra: &mut Map<String, Value>,
    key: Cow<'de, str>,
    map: &mut A,
) -> Result<(), A::Error> {
    let value: Value = map.next_value()?;
    extra.insert(key.into_owned(), value);
    Ok(())
}

/// Reads a generated struct from a JSON object.
struct Object<T, const LENIENT: bool>(PhantomData<T>);

impl<'de, T: Fields, const LENIENT: bool> Visitor<'de> for Object<T, LENIENT> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        expecting_object(f, T::SCHEMA)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
        let mut out = T::default();
        fill_from_map::<LENIENT, T, A>(&mut out, map)?;
        Ok(out)
    }
}

/// A generated union on a discriminator field, read in one pass.
///
/// The service writes the discriminator first, so a union is read straight
/// into its variant once the tag is seen; keys that come before it are kept
/// as their JSON text and read by the variant then. (Buffering every union
/// as a `serde_json::Value` and converting it afterwards took a quarter of a
/// large order's parse.)
pub trait Union: Sized {
    /// The schema's name, for error messages.
    const SCHEMA: &'static str;
    /// The discriminator's wire name.
    const TAG: &'static str;

    /// An empty variant for a discriminator value; `None` when unknown.
    fn start(tag: &str) -> Option<Self>;

    /// Reads a field of the chosen variant (see [`Fields::read_field`]).
    fn read_field<'de, const LENIENT: bool, A: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<bool, A::Error>;

    /// The chosen variant's unknown fields; `None` for an unknown variant.
    fn extra_mut(&mut self) -> Option<&mut Map<String, Value>>;

    /// A value with a discriminator this version does not know, as sent.
    fn unknown(value: Value) -> Self;
}

/// The body of a generated union's `Deserialize`. A value that is not an
/// object, or whose discriminator is missing, unknown or not a string, is
/// kept whole as the union's unknown variant.
pub fn deserialize_union<'de, D: Deserializer<'de>, T: Union>(d: D) -> Result<T, D::Error> {
    d.deserialize_any(UnionVisitor::<T, false>(PhantomData))
        .map(|read| read.unwrap_or_else(|| T::unknown(Value::Null)))
}

/// The lenient read of a generated union: as [`deserialize_union`], with
/// the variant's fields read leniently, and a value that is not an object
/// read as `None` (as for a struct) rather than kept.
pub(crate) fn read_union_lenient<'de, D: Deserializer<'de>, T: Union>(
    d: D,
) -> Result<Option<T>, D::Error> {
    d.deserialize_any(UnionVisitor::<T, true>(PhantomData))
}

/// Reads a union; `None` only in the lenient form, for a non-object.
struct UnionVisitor<T, const LENIENT: bool>(PhantomData<T>);

impl<T: Union, const LENIENT: bool> UnionVisitor<T, LENIENT> {
    /// A value that is not an object: kept whole by the strict form.
    fn other(value: impl FnOnce() -> Value) -> Option<T> {
        (!LENIENT).then(|| T::unknown(value()))
    }
}

impl<'de, T: Union, const LENIENT: bool> Visitor<'de> for UnionVisitor<T, LENIENT> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        expecting_object(f, T::SCHEMA)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<T>, A::Error> {
        // The text of each value before the tag, not a `Value`: an amount
        // kept as a `Value` would have gone through a double (see
        // `crate::money`), and building `Value`s was the larger cost.
        let mut before_tag: Vec<(String, Box<RawValue>)> = Vec::new();
        let mut chosen: Option<T> = None;
        // Set once the tag turned out unknown: everything is kept as JSON.
        let mut unknown = false;
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            if let Some(variant) = chosen.as_mut() {
                if key == T::TAG {
                    // A repeated discriminator cannot change the variant.
                    map.next_value::<IgnoredAny>()?;
                } else if !variant.read_field::<LENIENT, A>(&key, &mut map)? {
                    let value: Value = map.next_value()?;
                    if let Some(extra) = variant.extra_mut() {
                        extra.insert(key.into_owned(), value);
                    }
                }
                continue;
            }
            let raw: Box<RawValue> = map.next_value()?;
            if key == T::TAG && !unknown {
                if let Some(mut variant) = crate::lenient::string_text(raw.get())
                    .as_deref()
                    .and_then(T::start)
                {
                    for (k, v) in before_tag.drain(..) {
                        replay::<LENIENT, T, A::Error>(&mut variant, k, &v)?;
                    }
                    chosen = Some(variant);
                    continue;
                }
                unknown = true;
            }
            before_tag.push((key.into_owned(), raw));
        }
        if let Some(variant) = chosen {
            return Ok(Some(variant));
        }
        let mut kept = Map::new();
        for (key, raw) in before_tag {
            let value = serde_json::from_str(raw.get()).map_err(serde::de::Error::custom)?;
            kept.insert(key, value);
        }
        Ok(Some(T::unknown(Value::Object(kept))))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Option<T>, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Value>()? {
            items.push(item);
        }
        Ok(Self::other(|| Value::Array(items)))
    }

    fn visit_bool<E>(self, v: bool) -> Result<Option<T>, E> {
        Ok(Self::other(|| Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Option<T>, E> {
        Ok(Self::other(|| Value::from(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Option<T>, E> {
        Ok(Self::other(|| Value::from(v)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Option<T>, E> {
        Ok(Self::other(|| Value::from(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Option<T>, E> {
        Ok(Self::other(|| Value::from(v)))
    }
    fn visit_unit<E>(self) -> Result<Option<T>, E> {
        Ok(Self::other(|| Value::Null))
    }
    fn visit_none<E>(self) -> Result<Option<T>, E> {
        Ok(Self::other(|| Value::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        d.deserialize_any(self)
    }
}

/// Hands a field read before the discriminator to the chosen variant, its
/// value read from the text it was sent as.
fn replay<const LENIENT: bool, T: Union, E: serde::de::Error>(
    variant: &mut T,
    key: String,
    raw: &RawValue,
) -> Result<(), E> {
    /// One buffered value, offered as a map's next value.
    struct Buffered<'a>(Option<&'a str>);

    impl<'a> MapAccess<'a> for Buffered<'a> {
        type Error = serde_json::Error;

        fn next_key_seed<K: serde::de::DeserializeSeed<'a>>(
            &mut self,
            _: K,
        ) -> Result<Option<K::Value>, Self::Error> {
            Ok(None)
        }

        fn next_value_seed<V: serde::de::DeserializeSeed<'a>>(
            &mut self,
            seed: V,
        ) -> Result<V::Value, Self::Error> {
            let text = self.0.take().unwrap_or("null");
            seed.deserialize(&mut serde_json::Deserializer::from_str(text))
        }
    }

    let mut one = Buffered(Some(raw.get()));
    let known = variant
        .read_field::<LENIENT, _>(&key, &mut one)
        .map_err(|e| E::custom(without_position(&e)))?;
    if !known {
        if let Some(extra) = variant.extra_mut() {
            let value = serde_json::from_str(raw.get()).map_err(E::custom)?;
            extra.insert(key, value);
        }
    }
    Ok(())
}

/// A replayed value's error without its place in the value's own text
/// (`at line 1 column 5`): the outer reader adds the place in the body.
fn without_position(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let place = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&place) {
        Some(message) if e.line() > 0 => message.to_owned(),
        _ => text,
    }
}

/// Implements [`Fields`], `Deserialize` and `Serialize` for a generated
/// struct from its list of wire names and fields. A `required` field is
/// written even when unset (as `null`); an `optional` one only when set.
/// Unknown fields are written back after the known ones.
macro_rules! wire_fields {
    ($ty:ident = $schema:literal { $($presence:ident $wire:literal => $field:ident,)* }) => {
        impl $crate::api::support::Fields for $ty {
            const SCHEMA: &'static str = $schema;

            fn read_field<'de, const LENIENT: bool, A: serde::de::MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<bool, A::Error> {
                $(
                    if key == $wire {
                        $crate::api::support::field::<LENIENT, _, _>(&mut self.$field, $wire, map)?;
                        return Ok(true);
                    }
                )*
                let _ = (key, map);
                Ok(false)
            }

            fn extra_mut(&mut self) -> &mut serde_json::Map<String, serde_json::Value> {
                &mut self.extra
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::api::support::deserialize_fields(d)
            }
        }

        impl $crate::lenient::Lenient for $ty {
            fn read<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
                $crate::api::support::read_fields_lenient(d)
            }

            fn read_into<'de, D: serde::Deserializer<'de>>(
                slot: &mut Option<Self>,
                d: D,
            ) -> Result<(), D::Error> {
                $crate::api::support::read_fields_lenient_into(slot, d)
            }

            fn read_boxed<'de, D: serde::Deserializer<'de>>(
                d: D,
            ) -> Result<Option<Box<Self>>, D::Error> {
                $crate::api::support::read_fields_lenient_boxed(d)
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                use serde::ser::SerializeMap;
                let mut m = s.serialize_map(None)?;
                $( $crate::api::support::wire_fields!(@write $presence m $wire &self.$field); )*
                for (k, v) in &self.extra {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
        }
    };
    (@write required $m:ident $wire:literal $value:expr) => {
        $m.serialize_entry($wire, $value)?;
    };
    (@write optional $m:ident $wire:literal $value:expr) => {
        if let Some(v) = $value {
            $m.serialize_entry($wire, v)?;
        }
    };
}
pub(crate) use wire_fields;

/// Implements [`Union`] and `Deserialize` for a generated union from its
/// discriminator values and the enum variants they choose.
macro_rules! wire_union {
    ($ty:ident = $schema:literal on $tag:literal { $($value:literal => $variant:ident,)* }) => {
        impl $crate::api::support::Union for $ty {
            const SCHEMA: &'static str = $schema;
            const TAG: &'static str = $tag;

            fn start(tag: &str) -> Option<Self> {
                $(
                    if tag == $value {
                        return Some(Self::$variant(Default::default()));
                    }
                )*
                None
            }

            fn read_field<'de, const LENIENT: bool, A: serde::de::MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<bool, A::Error> {
                use $crate::api::support::Fields as _;
                match self {
                    $( Self::$variant(v) => v.read_field::<LENIENT, A>(key, map), )*
                    Self::Unknown(_) => Ok(false),
                }
            }

            fn extra_mut(&mut self) -> Option<&mut serde_json::Map<String, serde_json::Value>> {
                use $crate::api::support::Fields as _;
                match self {
                    $( Self::$variant(v) => Some(v.extra_mut()), )*
                    Self::Unknown(_) => None,
                }
            }

            fn unknown(value: serde_json::Value) -> Self {
                Self::Unknown(value)
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::api::support::deserialize_union(d)
            }
        }

        impl $crate::lenient::Lenient for $ty {
            fn read<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Self>, D::Error> {
                $crate::api::support::read_union_lenient(d)
            }
        }
    };
}
pub(crate) use wire_union;

/// Reads one known field, strictly or leniently (the one place the two
/// forms differ); a field sent twice is an error, as with serde's derive
/// (the two values cannot both be kept).
pub(crate) fn field<'de, const LENIENT: bool, A: MapAccess<'de>, T>(
    slot: &mut Option<T>,
    name: &'static str,
    map: &mut A,
) -> Result<(), A::Error>
where
    T: Deserialize<'de> + crate::lenient::Lenient,
{
    if slot.is_some() {
        return Err(serde::de::Error::duplicate_field(name));
    }
    if LENIENT {
        // Filled in place: see `Lenient::read_into`.
        map.next_value_seed(crate::lenient::IntoSlot(slot))
    } else {
        *slot = map.next_value()?;
        Ok(())
    }
}

/// An object key, borrowed from the input when the deserializer can lend it
/// (serde's own `Cow<str>` always copies).
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;

        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }

            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }

            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }

            fn visit_string<E>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }

        d.deserialize_str(KeyVisitor)
    }
}

/// Serializes a union variant: its fields, with the discriminator `tag` set
/// to `value` whatever the variant's own field says.
pub fn serialize_tagged<S: Serializer, T: Serialize>(
    s: S,
    tag: &str,
    value: &str,
    inner: &T,
) -> Result<S::Ok, S::Error> {
    let mut v = serde_json::to_value(inner).map_err(serde::ser::Error::custom)?;
    if let Value::Object(map) = &mut v {
        map.insert(tag.to_string(), Value::String(value.to_string()));
    }
    v.serialize(s)
}

/// Reads a request given as JSON into its typed form.
/// The error names the top-level field at fault when one alone is.
pub fn request_from_json<T: DeserializeOwned>(name: &str, request: &Value) -> crate::Result<T> {
    serde_json::from_value(request.clone()).map_err(|e| {
        let at = misfit_field::<T>(request)
            .map(|field| format!("{field}: "))
            .unwrap_or_default();
        crate::Error::invalid(format!("{name}: the request does not fit: {at}{e}"))
    })
}

/// The first top-level field of `request` that `T` cannot read even on its
/// own. serde's error from a `Value` has no path; every field of a generated
/// request is optional, so each one can be tried alone. Only on the error path.
fn misfit_field<T: DeserializeOwned>(request: &Value) -> Option<&str> {
    let fields = request.as_object()?;
    serde_json::from_value::<T>(Value::Object(serde_json::Map::new())).ok()?;
    fields
        .iter()
        .find(|(key, value)| {
            let alone = serde_json::Map::from_iter([((*key).clone(), (*value).clone())]);
            serde_json::from_value::<T>(Value::Object(alone)).is_err()
        })
        .map(|(key, _)| key.as_str())
}

/// Writes a typed answer back as JSON (amounts as strings inside
/// `crate::money::as_text`).
pub fn to_json<T: Serialize>(name: &str, answer: T) -> crate::Result<Value> {
    serde_json::to_value(&answer)
        .map_err(|e| crate::Error::invalid(format!("{name}: cannot write the answer as JSON: {e}")))
}

/// Reads, checks and writes back a request: the typed path by name, which
/// the test of `crate::api::wire` and the fuzz check hold the by-name rules to.
#[cfg(all(any(test, feature = "test-hooks"), feature = "operations"))]
pub(crate) fn prepare<T>(name: &str, request: &Value) -> crate::Result<Value>
where
    T: DeserializeOwned + Serialize + crate::api::Validate,
{
    let typed: T = request_from_json(name, request)?;
    typed.validate()?;
    to_json(name, typed)
}

// The tests use request types, which need the `operations` feature.
#[cfg(all(test, feature = "operations"))]
mod tests {
    use super::*;
    use crate::api::models::deliveries::request::CreateOrderRequest;
    use crate::api::models::stop_lists::StopListsRequest;

    #[test]
    fn a_request_that_does_not_fit_names_its_field() {
        let request = serde_json::json!({"returnSize": true, "organizationIds": "not-a-list"});
        let e = request_from_json::<StopListsRequest>("stop_lists", &request).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("stop_lists: the request does not fit: organizationIds: invalid type"),
            "{text}"
        );

        // Nested: the top-level field that holds the fault is named.
        let request = serde_json::json!({"order": {"items": 5}});
        let text = request_from_json::<CreateOrderRequest>("deliveries.create", &request)
            .unwrap_err()
            .to_string();
        assert!(text.contains("does not fit: order: "), "{text}");

        // Not an object: nothing to name.
        let text = request_from_json::<StopListsRequest>("stop_lists", &serde_json::json!([1]))
            .unwrap_err()
            .to_string();
        assert!(text.contains("does not fit: invalid type"), "{text}");
    }

    #[test]
    fn a_field_before_the_tag_is_read_from_its_text() {
        use crate::api::models::deliveries::response::order::OrderItem;
        use std::str::FromStr;
        // More digits than a double holds: kept, as after the tag.
        let text = r#"{"amount":12345678901234567.891,"comment":"a\"b","type":"Pro\u0064uct"}"#;
        let item: OrderItem = serde_json::from_str(text).unwrap();
        let OrderItem::Product(item) = &item else {
            panic!("{item:?}")
        };
        let exact = crate::Money::from_str("12345678901234567.891").unwrap();
        assert_eq!(item.amount, Some(exact));
        assert_eq!(item.comment.as_deref(), Some("a\"b"));

        // Read from a `Value` (a request given as JSON) as before.
        let value: Value = serde_json::from_str(text).unwrap();
        let from_value: OrderItem = serde_json::from_value(value).unwrap();
        assert!(
            matches!(from_value, OrderItem::Product(_)),
            "{from_value:?}"
        );

        // An unknown tag keeps every value as sent, nested ones too.
        let text = r#"{"amount":2.50,"product":{"id":"x","n":[1,{"a":null}]},"type":"Robot"}"#;
        let item: OrderItem = serde_json::from_str(text).unwrap();
        assert_eq!(
            item,
            OrderItem::Unknown(serde_json::from_str(text).unwrap())
        );
    }

    #[test]
    fn a_union_is_read_in_one_pass_whatever_the_tag_position() {
        use crate::api::models::deliveries::response::order::OrderItem;
        // The tag first (as the service writes it), last, and absent.
        let first: OrderItem =
            serde_json::from_str(r#"{"type":"Product","amount":2,"comment":"x","z":1}"#).unwrap();
        let last: OrderItem =
            serde_json::from_str(r#"{"amount":2,"comment":"x","z":1,"type":"Product"}"#).unwrap();
        assert_eq!(first, last);
        let OrderItem::Product(item) = &first else {
            panic!("{first:?}")
        };
        assert_eq!(item.amount, Some(crate::Money::from(2)));
        assert_eq!(item.comment.as_deref(), Some("x"));
        // The tag is the enum variant, not an unknown field; others are kept.
        assert_eq!(item.extra.keys().collect::<Vec<_>>(), ["z"]);
        assert_eq!(serde_json::to_value(&first).unwrap()["type"], "Product");

        for kept in [
            r#"{"type":"Robot","amount":2}"#,
            r#"{"amount":2}"#,
            r#"{"amount":2,"type":7}"#,
            r#""Product""#,
            r#"[1,2]"#,
        ] {
            let item: OrderItem = serde_json::from_str(kept).unwrap();
            let as_sent: Value = serde_json::from_str(kept).unwrap();
            assert_eq!(item, OrderItem::Unknown(as_sent), "{kept}");
        }

        // A field of the wrong type before the tag is still an error of the variant.
        let e = serde_json::from_str::<OrderItem>(r#"{"amount":"lots","type":"Product"}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("lots"), "{e}");
        // Only one place in the error: the body's, not the value's own.
        assert_eq!(e.matches(" at line ").count(), 1, "{e}");
        // A known field sent twice is refused, as for any struct.
        let e = serde_json::from_str::<OrderItem>(r#"{"type":"Product","amount":1,"amount":2}"#)
            .unwrap_err()
            .to_string();
        assert!(e.contains("duplicate field `amount`"), "{e}");
    }
}
