//! Properties of the typed requests, over every operation of the snapshot:
//! a request that fits the schema (its free-text fields filled at random)
//! is accepted and comes back unchanged through the typed model; a request
//! broken in one place is refused before sending, naming that field.

use iikocloud::api::{call_by_name, OPERATIONS};
use iikocloud::{Client, Error};
use iikocloud_emulator::example_request;
use proptest::prelude::*;
use serde_json::{json, Value};

const SNAPSHOT: &str = include_str!("../spec/operations.json");

/// A client whose address nobody listens on: a request that passed the
/// checks would fail with a transport error, which the tests tell apart.
fn offline_client() -> Client {
    Client::builder()
        .base_url("http://127.0.0.1:9")
        .api_login("proptest")
        .retries(0)
        .build()
        .expect("client")
}

struct Snapshot {
    spec: Value,
}

/// A place in an example request where one change breaks it.
#[derive(Debug, Clone)]
struct Site {
    pointer: String,
    path: String,
    break_it: Breakage,
}

#[derive(Debug, Clone)]
enum Breakage {
    /// Remove a required, non-nullable field.
    Remove,
    /// Put a non-UUID into a UUID field.
    NotUuid,
    /// One character more than the maximum length.
    TooLong(u64),
    /// Below the minimum.
    Below(f64),
}

/// A free-text field (no format, no enum) and its length bounds.
#[derive(Debug, Clone)]
struct Text {
    pointer: String,
    min: u64,
    max: u64,
}

impl Snapshot {
    fn load() -> Snapshot {
        Snapshot {
            spec: serde_json::from_str(SNAPSHOT).expect("snapshot"),
        }
    }

    fn schema(&self, name: &str) -> &Value {
        &self.spec["schemas"][name]
    }

    /// Every field, inherited ones included (the snapshot resolves them).
    fn fields(&self, name: &str) -> Vec<Value> {
        self.schema(name)["fields"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Walks `value` with its type, collecting break sites and text fields.
    fn walk(
        &self,
        t: &Value,
        value: &Value,
        pointer: &str,
        path: &str,
        sites: &mut Vec<Site>,
        texts: &mut Vec<Text>,
    ) {
        if let Some(r) = t["ref"].as_str() {
            let s = self.schema(r);
            match s["kind"].as_str() {
                Some("union") => {
                    let tag = s["discriminator"].as_str().unwrap_or("type");
                    if let Some(v) = value
                        .get(tag)
                        .and_then(Value::as_str)
                        .and_then(|v| s["variants"][v].as_str())
                    {
                        self.walk(&json!({"ref": v}), value, pointer, path, sites, texts);
                    }
                }
                Some("object") => {
                    for f in self.fields(r) {
                        let name = f["name"].as_str().unwrap_or_default();
                        let Some(v) = value.get(name) else { continue };
                        let p = format!("{pointer}/{name}");
                        let fp = if path.is_empty() {
                            name.to_string()
                        } else {
                            format!("{path}.{name}")
                        };
                        let tags: Vec<String> = self.inherited_tags(r);
                        if f["required"] == true
                            && f["nullable"] != true
                            && !tags.iter().any(|t| t == name)
                        {
                            sites.push(Site {
                                pointer: p.clone(),
                                path: fp.clone(),
                                break_it: Breakage::Remove,
                            });
                        }
                        self.walk(&f["type"], v, &p, &fp, sites, texts);
                    }
                }
                _ => {}
            }
            return;
        }
        match t["type"].as_str() {
            Some("string") if value.is_string() => {
                if t["format"] == "uuid" {
                    sites.push(Site {
                        pointer: pointer.into(),
                        path: path.into(),
                        break_it: Breakage::NotUuid,
                    });
                } else if t["enum"].is_null() && t["format"].is_null() {
                    let max = t["maxLength"].as_u64();
                    if let Some(m) = max {
                        sites.push(Site {
                            pointer: pointer.into(),
                            path: path.into(),
                            break_it: Breakage::TooLong(m),
                        });
                    }
                    texts.push(Text {
                        pointer: pointer.into(),
                        min: t["minLength"].as_u64().unwrap_or(0),
                        max: max.unwrap_or(40).min(40),
                    });
                }
            }
            Some("number") | Some("integer") if value.is_number() => {
                if let Some(min) = t["minimum"].as_f64() {
                    sites.push(Site {
                        pointer: pointer.into(),
                        path: path.into(),
                        break_it: Breakage::Below(min),
                    });
                }
            }
            Some("array") => {
                for (i, item) in value.as_array().into_iter().flatten().enumerate() {
                    self.walk(
                        &t["items"],
                        item,
                        &format!("{pointer}/{i}"),
                        &format!("{path}[{i}]"),
                        sites,
                        texts,
                    );
                }
            }
            _ => {}
        }
    }

    fn inherited_tags(&self, name: &str) -> Vec<String> {
        self.schema(name)["inherited_discriminators"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t.as_str().map(str::to_string))
            .collect()
    }
}

/// An operation's name, its example request, break sites and text fields.
type Case = (&'static str, Value, Vec<Site>, Vec<Text>);

/// Operations that take a body, with their example, break sites and texts.
fn cases() -> Vec<Case> {
    let snap = Snapshot::load();
    let ops = snap.spec["operations"]
        .as_array()
        .expect("operations")
        .clone();
    OPERATIONS
        .iter()
        .filter(|o| o.method == "POST")
        .filter_map(|o| {
            let raw = ops.iter().find(|r| r["name"] == o.name)?;
            let t = raw.get("request").filter(|r| !r.is_null())?;
            let example = example_request(o.path)?;
            let (mut sites, mut texts) = (Vec::new(), Vec::new());
            snap.walk(t, &example, "", "", &mut sites, &mut texts);
            Some((o.name, example, sites, texts))
        })
        .collect()
}

fn roundtrip(name: &str, request: &Value) -> Result<(), String> {
    // Validation, then the transport: the offline address proves the
    // request got past the checks.
    match call_by_name(&offline_client(), name, request) {
        Err(Error::Transport { .. }) => Ok(()),
        Err(e) => Err(format!("{name}: refused a valid request: {e}")),
        Ok(_) => Err(format!(
            "{name}: answered from an address nobody listens on"
        )),
    }
}

#[test]
fn every_example_request_fits_its_typed_model_exactly() {
    let cases = cases();
    assert!(cases.len() > 200, "{}", cases.len());
    for (name, example, _, _) in &cases {
        roundtrip(name, example).unwrap();
        // Through the model and back: nothing lost, nothing added.
        let through = iikocloud::api::prepare_request(name, example)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(&through, example, "{name}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn free_text_within_its_bounds_is_accepted_and_kept(pick in any::<prop::sample::Index>(), which in any::<prop::sample::Index>(), text in "\\\\PC{0,40}") {
        let cases = cases_cached();
        let (name, example, _, texts) = &cases[pick.index(cases.len())];
        prop_assume!(!texts.is_empty());
        let slot = &texts[which.index(texts.len())];
        let n = text.chars().count() as u64;
        prop_assume!(n >= slot.min && n <= slot.max);
        let mut request = example.clone();
        *request.pointer_mut(&slot.pointer).unwrap() = json!(text);
        prop_assert!(roundtrip(name, &request).is_ok(), "{}", roundtrip(name, &request).unwrap_err());
        let through = iikocloud::api::prepare_request(name, &request).unwrap();
        prop_assert_eq!(through, request);
    }

    #[test]
    fn a_request_broken_in_one_place_is_refused_naming_it(pick in any::<prop::sample::Index>(), which in any::<prop::sample::Index>()) {
        let cases = cases_cached();
        let (name, example, sites, _) = &cases[pick.index(cases.len())];
        prop_assume!(!sites.is_empty());
        let site = &sites[which.index(sites.len())];
        let mut request = example.clone();
        match &site.break_it {
            Breakage::Remove => {
                let (parent, key) = site.pointer.rsplit_once('/').unwrap();
                let parent = if parent.is_empty() { &mut request } else { request.pointer_mut(parent).unwrap() };
                parent.as_object_mut().unwrap().remove(key);
            }
            Breakage::NotUuid => *request.pointer_mut(&site.pointer).unwrap() = json!("not-a-uuid"),
            Breakage::TooLong(max) => *request.pointer_mut(&site.pointer).unwrap() = json!("x".repeat(*max as usize + 1)),
            Breakage::Below(min) => *request.pointer_mut(&site.pointer).unwrap() = json!(min - 1.0),
        }
        let err = call_by_name(&offline_client(), name, &request).unwrap_err();
        prop_assert!(matches!(err, Error::InvalidInput(_)), "{name}: {err:?} for {site:?}");
        prop_assert!(err.to_string().contains(&site.path), "{name}: {err} does not name {}", site.path);
    }
}

fn cases_cached() -> &'static [Case] {
    static CASES: std::sync::OnceLock<Vec<Case>> = std::sync::OnceLock::new();
    CASES.get_or_init(cases)
}
