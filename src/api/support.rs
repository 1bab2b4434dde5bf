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
pub fn request_from_json<T: DeserializeOwned>(name: &str, request: &Value) -> crate::Result<T> {
    serde_json::from_value(request.clone())
        .map_err(|e| crate::Error::invalid(format!("{name}: the request does not fit: {e}")))
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
