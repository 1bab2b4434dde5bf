//! Which organizations a read is about: those the request names (checked
//! against the API key) or the key's own. Shared by the reference reads,
//! the menus and the delivery zones.

use serde_json::{Map, Value};

use crate::fixtures::ApiKeyFixture;
use crate::state::Shared;

/// A request body.
pub(crate) type Body = Map<String, Value>;

/// The organizations a request names (`organizationIds`, and
/// `organizationId`), lower-cased, each linked to the key.
pub(crate) fn requested(key: &ApiKeyFixture, body: &Body) -> Result<Vec<String>, String> {
    let mut ids: Vec<String> = body
        .get("organizationIds")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .chain(body.get("organizationId").and_then(Value::as_str))
        .map(str::to_ascii_lowercase)
        .collect();
    let mut seen = Vec::new();
    ids.retain(|id| {
        let first = !seen.contains(id);
        seen.push(id.clone());
        first
    });
    match ids.iter().find(|id| !linked(key, id)) {
        Some(bad) => Err(format!(
            "Organization {bad} is not available for this API key"
        )),
        None => Ok(ids),
    }
}

fn linked(key: &ApiKeyFixture, org: &str) -> bool {
    key.organization_ids
        .iter()
        .any(|o| o.eq_ignore_ascii_case(org))
}

/// The enabled organizations of the key, for the reads that name none.
pub(crate) fn key_organizations(shared: &Shared, key: &ApiKeyFixture) -> Vec<String> {
    key.organization_ids
        .iter()
        .filter(|id| {
            shared
                .fixtures
                .organization(id)
                .is_some_and(|o| !o.disabled)
        })
        .cloned()
        .collect()
}
