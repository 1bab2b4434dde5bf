//! One member of an event's JSON by its dotted path (`eventInfo.order.sum`),
//! read in one pass over the text: the rule every binding's field-by-path
//! read uses (the C `iiko_events_field`, and PHP and Python through it).

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The value at `path` (object keys separated by `.`) inside the JSON
/// object `json`, as text: a string unescaped, any other value (a number,
/// `true`, an object) exactly as written, so an amount keeps every digit.
/// `None` when a step is missing or not an object, when the value is `null`,
/// or when `json` is not JSON. Of a key written twice, the last counts, as
/// in every JSON reader of the SDK.
pub fn field_text(json: &str, path: &str) -> Option<String> {
    let steps: Vec<&str> = path.split('.').collect();
    let mut de = serde_json::Deserializer::from_str(json);
    let raw = At(&steps).deserialize(&mut de).ok()??;
    let text = raw.get().trim();
    match text.as_bytes().first()? {
        b'"' => serde_json::from_str::<String>(text).ok(),
        b'n' => None,
        _ => Some(text.to_owned()),
    }
}

/// The value at the remaining `steps` of the path, if there is one.
struct At<'p>(&'p [&'p str]);

impl<'de> DeserializeSeed<'de> for At<'_> {
    type Value = Option<&'de RawValue>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        match self.0 {
            [] => <&RawValue>::deserialize(d).map(Some),
            steps => d.deserialize_any(Step(steps)),
        }
    }
}

/// Looks for the first of `steps` among an object's keys; any other value
/// has no members.
struct Step<'p>(&'p [&'p str]);

impl<'de> Visitor<'de> for Step<'_> {
    type Value = Option<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let (first, rest) = self.0.split_first().expect("At hands over a step");
        let mut found = None;
        while let Some(hit) = map.next_key_seed(KeyIs(first))? {
            if hit {
                found = map.next_value_seed(At(rest))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    crate::lenient::scalars_read_as_none!();
}

/// Whether an object key is `self.0` (escapes decoded before comparing).
struct KeyIs<'p>(&'p str);

impl<'de> DeserializeSeed<'de> for KeyIs<'_> {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for KeyIs<'_> {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<bool, E> {
        Ok(key == self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::field_text;

    #[test]
    fn values_keep_their_text() {
        let raw = r#"{"eventType":"DeliveryOrderUpdate","eventInfo":{"order":{"sum":0.30000000000000004,"phone":"+7 \"9\"","x":null,"ok":true,"items":[1,{"a":2}]}}}"#;
        let at = |path| field_text(raw, path);
        assert_eq!(
            at("eventInfo.order.sum").as_deref(),
            Some("0.30000000000000004")
        );
        assert_eq!(at("eventInfo.order.phone").as_deref(), Some("+7 \"9\""));
        assert_eq!(at("eventInfo.order.x"), None);
        assert_eq!(at("eventInfo.order.ok").as_deref(), Some("true"));
        assert_eq!(
            at("eventInfo.order.items").as_deref(),
            Some(r#"[1,{"a":2}]"#)
        );
        assert_eq!(at("eventInfo.nothing.sum"), None);
        assert_eq!(at("eventInfo.order.phone.more"), None);
        assert_eq!(at("eventType").as_deref(), Some("DeliveryOrderUpdate"));
        assert_eq!(field_text("[1]", "eventInfo"), None);
        assert_eq!(field_text("{not json", "eventInfo"), None);
        assert_eq!(
            field_text(r#"{"a":{"b":1}}"#, "a").as_deref(),
            Some(r#"{"b":1}"#)
        );
    }

    #[test]
    fn escaped_keys_and_repeated_keys_read_as_json_readers_do() {
        // "\u0073um" is "sum"; of a key written twice the last counts.
        let raw = r#"{"o":{"\u0073um":1,"sum":2.50}}"#;
        assert_eq!(field_text(raw, "o.sum").as_deref(), Some("2.50"));
        let via_value: serde_json::Value = serde_json::from_str(raw).unwrap();
        assert_eq!(via_value["o"]["sum"].as_f64(), Some(2.5));
    }
}
