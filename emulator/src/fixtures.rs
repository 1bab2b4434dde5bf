//! Fixture data: applications, API keys, organizations, terminal groups, stop
//! lists and each organization's dictionaries (`crate::dictionaries`).
//!
//! The file format is documented in the crate README ("Fixture file format");
//! the built-in default is `fixtures/default.json`.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::dictionaries::Dictionaries;
use crate::util::is_uuid;

/// The built-in fixture file, compiled into the crate.
pub const DEFAULT_FIXTURES_JSON: &str = include_str!("../fixtures/default.json");

/// Parsed and validated fixture data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Fixtures {
    /// Applications accepted by `POST /api/v2/access_token`.
    #[serde(default)]
    pub apps: Vec<AppFixture>,
    /// API keys (also accepted as `apiLogin` by the legacy token endpoint).
    #[serde(default)]
    pub api_keys: Vec<ApiKeyFixture>,
    /// All organizations known to the emulator.
    #[serde(default)]
    pub organizations: Vec<OrganizationFixture>,
}

/// An application registered in the developer portal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AppFixture {
    /// `appId` credential.
    pub app_id: String,
    /// `clientSecret` credential.
    pub client_secret: String,
}

/// An API key and the organizations it is linked to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ApiKeyFixture {
    /// The key value (`apiKey` in v2, `apiLogin` in the legacy endpoint).
    pub api_key: String,
    /// Login name, returned as `apiLoginName` by `/api/1/webhooks/settings`.
    #[serde(default)]
    pub name: Option<String>,
    /// Organizations this key may access (may include disabled ones).
    #[serde(default)]
    pub organization_ids: Vec<String>,
}

/// `{key, value}` pair of an organization's external data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExternalDataEntry {
    /// Key.
    pub key: String,
    /// Value.
    pub value: String,
}

/// One organization (restaurant).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OrganizationFixture {
    /// Organization id (UUID).
    pub id: String,
    /// Name (nullable on the wire).
    #[serde(default)]
    pub name: Option<String>,
    /// Code.
    #[serde(default)]
    pub code: Option<String>,
    /// Disabled organizations are listed only with `includeDisabled: true`.
    #[serde(default)]
    pub disabled: bool,
    /// External data; `null` means none.
    #[serde(default)]
    pub external_data: Option<Vec<ExternalDataEntry>>,
    /// Fields added to the `Extended` shape, copied verbatim (unknown enum
    /// values are allowed on purpose).
    #[serde(default)]
    pub extended: Map<String, Value>,
    /// Fields added to both shapes, copied verbatim (to exercise lenient parsing).
    #[serde(default)]
    pub extra_fields: Map<String, Value>,
    /// Terminal groups with their stop lists.
    #[serde(default)]
    pub terminal_groups: Vec<TerminalGroupFixture>,
    /// The organization's menu and reference data; without it the
    /// organization gets those of the built-in fixtures' first organization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dictionaries: Option<Dictionaries>,
    /// The legal entity the organization belongs to, the top of
    /// `inventory/v1/organizations/tree`; without one the organization stands
    /// for a legal entity of its own there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legal_entity: Option<LegalEntityFixture>,
}

/// A legal entity (`JurPerson` of the organization tree). Organizations that
/// name the same `id` are its children; their `name` and `code` must agree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LegalEntityFixture {
    /// Legal entity id (UUID).
    pub id: String,
    /// Display name, or null.
    #[serde(default)]
    pub name: Option<String>,
    /// The user's code of the legal entity, or null.
    #[serde(default)]
    pub code: Option<String>,
}

/// A terminal group and its stop list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TerminalGroupFixture {
    /// Terminal group id (UUID).
    pub id: String,
    /// Name (informational).
    #[serde(default)]
    pub name: Option<String>,
    /// Stop list positions.
    #[serde(default)]
    pub stop_list: Vec<StopListItem>,
}

/// One stop list position, in its exact wire shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StopListItem {
    /// Remaining balance; kept as a JSON number so `0.1` stays `0.1` on the wire.
    pub balance: serde_json::Number,
    /// Product id (UUID).
    pub product_id: String,
    /// Size id (UUID) or null.
    #[serde(default)]
    pub size_id: Option<String>,
    /// Article number.
    #[serde(default)]
    pub sku: Option<String>,
    /// `yyyy-MM-dd HH:mm:ss.fff` UTC, or null.
    #[serde(default)]
    pub date_add: Option<String>,
}

/// Keys of the organization shapes that the emulator writes itself.
const RESERVED_ORG_KEYS: [&str; 5] = ["responseType", "id", "name", "code", "externalData"];

impl Fixtures {
    /// The built-in default data (see the README for its credentials and ids).
    pub fn default_data() -> Fixtures {
        // Checking the dictionaries against their schemas takes a while, and
        // every emulator a test starts wants these: read them once.
        static DEFAULT: std::sync::OnceLock<Fixtures> = std::sync::OnceLock::new();
        DEFAULT
            .get_or_init(|| {
                // The default file is part of the crate and covered by tests.
                Fixtures::from_json(DEFAULT_FIXTURES_JSON).expect("built-in fixtures are valid")
            })
            .clone()
    }

    /// Parses and validates a fixture document. Ids are normalised to lowercase.
    pub fn from_json(text: &str) -> Result<Fixtures, String> {
        let mut f: Fixtures =
            serde_json::from_str(text).map_err(|e| format!("fixture JSON: {e}"))?;
        f.validate()?;
        Ok(f)
    }

    /// Reads, parses and validates a fixture file.
    pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<Fixtures, String> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Fixtures::from_json(&text)
    }

    /// The organization with this id (case-insensitive).
    pub fn organization(&self, id: &str) -> Option<&OrganizationFixture> {
        self.organizations
            .iter()
            .find(|o| o.id.eq_ignore_ascii_case(id))
    }

    /// The API key record with this exact value.
    pub fn api_key(&self, key: &str) -> Option<&ApiKeyFixture> {
        self.api_keys.iter().find(|k| k.api_key == key)
    }

    fn validate(&mut self) -> Result<(), String> {
        let mut org_ids = HashSet::new();
        let mut tg_ids = HashSet::new();
        let mut legal_entities: Vec<LegalEntityFixture> = Vec::new();
        for org in &mut self.organizations {
            if !is_uuid(&org.id) {
                return Err(format!("organization id {:?} is not a UUID", org.id));
            }
            org.id.make_ascii_lowercase();
            if !org_ids.insert(org.id.clone()) {
                return Err(format!("duplicate organization id {}", org.id));
            }
            if let Some(entity) = &mut org.legal_entity {
                if !is_uuid(&entity.id) {
                    return Err(format!(
                        "organization {}: legalEntity id {:?} is not a UUID",
                        org.id, entity.id
                    ));
                }
                entity.id.make_ascii_lowercase();
                // One legal entity, one name: the tree shows it once.
                match legal_entities.iter().find(|e| e.id == entity.id) {
                    Some(seen) if seen != entity => {
                        return Err(format!(
                            "organization {}: legalEntity {} has another name or code than before",
                            org.id, entity.id
                        ));
                    }
                    Some(_) => {}
                    None => legal_entities.push(entity.clone()),
                }
            }
            for key in RESERVED_ORG_KEYS {
                if org.extended.contains_key(key) || org.extra_fields.contains_key(key) {
                    return Err(format!(
                        "organization {}: field {key:?} is set by the emulator and may not appear in extended/extraFields",
                        org.id
                    ));
                }
            }
            for tg in &mut org.terminal_groups {
                if !is_uuid(&tg.id) {
                    return Err(format!("terminal group id {:?} is not a UUID", tg.id));
                }
                tg.id.make_ascii_lowercase();
                if !tg_ids.insert(tg.id.clone()) {
                    return Err(format!("duplicate terminal group id {}", tg.id));
                }
                for item in &mut tg.stop_list {
                    if !is_uuid(&item.product_id) {
                        return Err(format!(
                            "stop list productId {:?} is not a UUID",
                            item.product_id
                        ));
                    }
                    item.product_id.make_ascii_lowercase();
                    if let Some(size) = &mut item.size_id {
                        if !is_uuid(size) {
                            return Err(format!("stop list sizeId {size:?} is not a UUID"));
                        }
                        size.make_ascii_lowercase();
                    }
                }
            }
            let groups: Vec<String> = org.terminal_groups.iter().map(|g| g.id.clone()).collect();
            if let Some(d) = &mut org.dictionaries {
                d.prepare(
                    &org.id,
                    &groups,
                    &format!("organization {}: dictionaries", org.id),
                )?;
            }
        }
        let mut keys = HashSet::new();
        for key in &mut self.api_keys {
            if key.api_key.is_empty() {
                return Err("an apiKey may not be empty".into());
            }
            if !keys.insert(key.api_key.clone()) {
                return Err("duplicate apiKey value".into());
            }
            for id in &mut key.organization_ids {
                id.make_ascii_lowercase();
                if !org_ids.contains(id.as_str()) {
                    return Err(format!("apiKey links unknown organization {id}"));
                }
            }
        }
        for app in &self.apps {
            if app.app_id.is_empty() || app.client_secret.is_empty() {
                return Err("appId and clientSecret may not be empty".into());
            }
        }
        Ok(())
    }
}

impl Default for Fixtures {
    fn default() -> Self {
        Fixtures::default_data()
    }
}

/// Three products of the default organization's nomenclature (the built-in
/// dictionaries, which also hold sized pizzas, drinks, desserts and
/// modifiers): id, name and the price of their only size. A product outside
/// the organization's nomenclature fails an order with `ProductNotFound`.
pub const MENU_PRODUCTS: [(&str, &str, f64); 3] = [
    (
        "b1e604c4-586f-4a06-b3d0-ff67e6c542a2",
        "Pizza Margherita 32 cm",
        590.0,
    ),
    (
        "91e69af5-c0e2-4057-a34b-2e98edbed03e",
        "Cranberry mors 0.5 l",
        99.9,
    ),
    (
        "0c3f7a1e-6d52-4b8e-9f0a-3d2c1b4a5e6f",
        "Pizza Pepperoni 32 cm",
        690.0,
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::*;

    #[test]
    fn default_fixtures_match_constants() {
        let f = Fixtures::default_data();
        assert!(f
            .apps
            .iter()
            .any(|a| a.app_id == DEFAULT_APP_ID && a.client_secret == DEFAULT_CLIENT_SECRET));
        let key = f.api_key(DEFAULT_API_KEY).expect("default key");
        assert_eq!(
            key.organization_ids,
            vec![
                DEFAULT_ORGANIZATION_ID.to_string(),
                SECOND_ORGANIZATION_ID.to_string(),
                DISABLED_ORGANIZATION_ID.to_string()
            ]
        );
        assert!(f
            .api_key(EMPTY_API_KEY)
            .expect("empty key")
            .organization_ids
            .is_empty());
        assert!(
            f.organization(DISABLED_ORGANIZATION_ID)
                .expect("org")
                .disabled
        );
        let first = f.organization(DEFAULT_ORGANIZATION_ID).expect("org");
        assert_eq!(first.terminal_groups[0].id, DEFAULT_TERMINAL_GROUP_ID);
        let second = f.organization(SECOND_ORGANIZATION_ID).expect("org");
        assert_eq!(second.terminal_groups[0].id, SECOND_TERMINAL_GROUP_ID);
    }

    #[test]
    fn balance_keeps_exact_text() {
        let f = Fixtures::default_data();
        let item = &f.organizations[0].terminal_groups[0].stop_list[0];
        assert_eq!(serde_json::to_string(&item.balance).unwrap(), "0.1");
    }

    #[test]
    fn rejects_bad_fixtures() {
        assert!(Fixtures::from_json("{").is_err());
        assert!(Fixtures::from_json(r#"{"organizations":[{"id":"x"}]}"#).is_err());
        assert!(Fixtures::from_json(r#"{"apiKeys":[{"apiKey":"k","organizationIds":["441e1320-3f58-4702-9f9e-aa34cdef9c04"]}]}"#).is_err());
        assert!(Fixtures::from_json(r#"{"unknown":1}"#).is_err());
        assert!(Fixtures::from_json(r#"{}"#).is_ok());
    }

    #[test]
    fn legal_entities_need_a_uuid_and_one_name() {
        let org = |id: &str, entity: &str| format!(r#"{{"id": "{id}", "legalEntity": {entity}}}"#);
        let file = |a: &str, b: &str| {
            format!(
                r#"{{"organizations": [{}, {}]}}"#,
                org("441e1320-3f58-4702-9f9e-aa34cdef9c04", a),
                org("a0c4696d-b51f-48b3-83c1-586ddfaf4a42", b)
            )
        };
        let le = r#"{"id": "5B0C2F1E-7D3A-4E8B-9C6F-1A2B3C4D5E01", "name": "A LLC"}"#;
        let f = Fixtures::from_json(&file(le, le)).expect("the same entity twice");
        let entity = f.organizations[1].legal_entity.as_ref().expect("kept");
        assert_eq!(entity.id, DEFAULT_LEGAL_ENTITY_ID, "lower-cased");
        let renamed = r#"{"id": "5b0c2f1e-7d3a-4e8b-9c6f-1a2b3c4d5e01", "name": "B LLC"}"#;
        let e = Fixtures::from_json(&file(le, renamed)).unwrap_err();
        assert!(e.contains("another name or code"), "{e}");
        let e = Fixtures::from_json(&file(r#"{"id": "x"}"#, le)).unwrap_err();
        assert!(e.contains("legalEntity id"), "{e}");
        let e = Fixtures::from_json(&file(r#"{"id": "x", "inn": 1}"#, le)).unwrap_err();
        assert!(e.contains("unknown field"), "{e}");
    }
}
