//! Helpers the generated code calls: structs read one key at a time, unions
//! on a discriminator field, and requests and answers moved between typed
//! and JSON form.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeOwned, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// A generated struct, read from a JSON object one key at a time.
///
/// serde's derive keeps unknown fields only through `#[serde(flatten)]`,
/// which buffers every field of every object before reading it: slower than
/// an untyped `Value` on large answers, and heavy to compile for a thousand
/// structs. The generator writes [`Fields::read_field`] instead (one `match`
/// on the wire name), and [`deserialize_fields`] keeps what it does not know.
pub trait Fields: Default {
    /// The schema's name, for error messages.
    const SCHEMA: &'static str;

    /// Reads the value of the field named `key` from `map` into `self`.
    /// `Ok(false)` leaves the value unread: the struct has no such field.
    fn read_field<'de, A: MapAccess<'de>>(
        &mut self,
        key: &str,
        map: &mut A,
    ) -> Result<bool, A::Error>;

    /// Where fields this version does not know are kept.
    fn extra_mut(&mut self) -> &mut Map<String, Value>;
}

/// The body of a generated struct's `Deserialize`.
pub fn deserialize_fields<'de, D: Deserializer<'de>, T: Fields>(d: D) -> Result<T, D::Error> {
    struct Object<T>(PhantomData<T>);

    impl<'de, T: Fields> Visitor<'de> for Object<T> {
        type Value = T;

        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            write!(f, "a `{}` object", T::SCHEMA)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
            let mut out = T::default();
            while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                if !out.read_field(&key, &mut map)? {
                    let value: Value = map.next_value()?;
                    // A repeated unknown key keeps its last value, as `Value` would.
                    out.extra_mut().insert(key.into_owned(), value);
                }
            }
            Ok(out)
        }
    }

    d.deserialize_map(Object(PhantomData))
}

/// Implements [`Fields`], `Deserialize` and `Serialize` for a generated
/// struct from its list of wire names and fields. A `required` field is
/// written even when unset (as `null`); an `optional` one only when set.
/// Unknown fields are written back after the known ones.
macro_rules! wire_fields {
    ($ty:ident = $schema:literal { $($presence:ident $wire:literal => $field:ident,)* }) => {
        impl $crate::api::support::Fields for $ty {
            const SCHEMA: &'static str = $schema;

            fn read_field<'de, A: serde::de::MapAccess<'de>>(
                &mut self,
                key: &str,
                map: &mut A,
            ) -> Result<bool, A::Error> {
                $(
                    if key == $wire {
                        $crate::api::support::field(&mut self.$field, $wire, map)?;
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

/// Reads one known field; a field sent twice is an error, as with serde's
/// derive (the two values cannot both be kept).
pub fn field<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    slot: &mut Option<T>,
    name: &'static str,
    map: &mut A,
) -> Result<(), A::Error> {
    if slot.is_some() {
        return Err(serde::de::Error::duplicate_field(name));
    }
    *slot = map.next_value()?;
    Ok(())
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

/// Reads a union variant from the JSON already buffered for its tag; the
/// tag itself is the enum variant, so it is taken out first.
pub fn variant<T: DeserializeOwned, E: serde::de::Error>(
    mut value: Value,
    tag: &str,
) -> Result<T, E> {
    if let Value::Object(map) = &mut value {
        map.remove(tag);
    }
    serde_json::from_value(value).map_err(E::custom)
}

/// Reads a request given as JSON into its typed form, for `call_by_name`.
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

/// Writes a typed answer back as JSON, for `call_by_name`.
pub fn to_json<T: Serialize>(name: &str, answer: T) -> crate::Result<Value> {
    let write = || serde_json::to_value(&answer);
    if answer_money_as_text() {
        crate::money::as_text(write)
    } else {
        write()
    }
    .map_err(|e| crate::Error::invalid(format!("{name}: cannot write the answer as JSON: {e}")))
}

/// Reads, checks and writes back a request, for `prepare_request`.
pub fn prepare<T>(name: &str, request: &Value) -> crate::Result<Value>
where
    T: DeserializeOwned + Serialize + crate::api::Validate,
{
    let typed: T = request_from_json(name, request)?;
    typed.validate()?;
    to_json(name, typed)
}

thread_local! {
    /// Set while `call_operation` writes an answer with text amounts; read
    /// by the answer writer ([`to_json`]) only, so the request sent on the
    /// wire keeps numbers.
    static ANSWER_MONEY_AS_TEXT: Cell<bool> = const { Cell::new(false) };
}

/// Restores the flag even if the call unwinds.
struct Scope(bool);

impl Drop for Scope {
    fn drop(&mut self) {
        ANSWER_MONEY_AS_TEXT.with(|f| f.set(self.0));
    }
}

pub(crate) fn with_answer_money_as_text<R>(on: bool, f: impl FnOnce() -> R) -> R {
    let _restore = Scope(ANSWER_MONEY_AS_TEXT.with(|flag| flag.replace(on)));
    f()
}

fn answer_money_as_text() -> bool {
    ANSWER_MONEY_AS_TEXT.with(Cell::get)
}

#[cfg(test)]
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
}
