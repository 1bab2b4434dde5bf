//! Helpers the generated code calls: unions on a discriminator field, and
//! requests and answers moved between typed and JSON form.

use std::cell::Cell;

use serde::de::DeserializeOwned;
use serde::{Serialize, Serializer};
use serde_json::Value;

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
