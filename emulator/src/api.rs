//! The emulated service endpoints under `/api/`.
//!
//! Checks run in this order (README "Validation order"): route (404), method
//! (405), `Content-Type` (400), `Authorization` (401 missing/unknown/expired,
//! 400 malformed), body size (413), JSON syntax and object shape (400), fields (400).

use iikocloud_http_server::Request;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::catalogue::catalogue;
use crate::fixtures::{ApiKeyFixture, OrganizationFixture};
use crate::reply::{header, read_body, Auth, Reply};
use crate::state::Shared;
use crate::tokens::TokenCheck;
use crate::util::{is_absolute_http_url, is_uuid, lock};
use crate::webhooks::{filter, WebhookSettings};

#[derive(Clone, Copy)]
enum Route {
    /// Any other operation of the snapshot: checked and answered from its schema.
    Catalogue(&'static Value),
    TokenV2,
    TokenV1,
    Organizations,
    UpdateWebhookSettings,
    WebhookSettings,
    StopLists,
}

impl Route {
    fn from_path(path: &str) -> Option<Route> {
        Some(match path {
            "/api/v2/access_token" => Route::TokenV2,
            "/api/1/access_token" => Route::TokenV1,
            "/api/1/organizations" => Route::Organizations,
            "/api/1/webhooks/update_settings" => Route::UpdateWebhookSettings,
            "/api/1/webhooks/settings" => Route::WebhookSettings,
            "/api/1/stop_lists" => Route::StopLists,
            other => Route::Catalogue(catalogue().operation(other)?),
        })
    }

    fn needs_token(self) -> bool {
        !matches!(self, Route::TokenV2 | Route::TokenV1)
    }
}

/// True for `application/json`, optionally with parameters; a `charset`
/// parameter must be UTF-8.
pub(crate) fn is_json_content_type(value: &str) -> bool {
    let mut parts = value.split(';');
    let media = parts.next().unwrap_or("").trim();
    if !media.eq_ignore_ascii_case("application/json") {
        return false;
    }
    parts.all(|p| match p.split_once('=') {
        Some((name, v)) if name.trim().eq_ignore_ascii_case("charset") => {
            let v = v.trim().trim_matches('"');
            v.eq_ignore_ascii_case("utf-8") || v.eq_ignore_ascii_case("utf8")
        }
        _ => true,
    })
}

/// Handles one API request (no fault applied).
pub(crate) fn process(
    shared: &Arc<Shared>,
    rq: &Request,
    method: &str,
    path: &str,
    auth: &Auth,
    cid: &str,
) -> Reply {
    let Some(route) = Route::from_path(path) else {
        return Reply::error(404, "NOT_FOUND", format!("No such method: {path}"), cid);
    };
    if method != "POST" {
        return Reply::error(
            405,
            "METHOD_NOT_ALLOWED",
            format!("{path} accepts only POST"),
            cid,
        );
    }
    match header(rq, "Content-Type") {
        None => {
            return Reply::bad_request("Content-Type: application/json is required", cid);
        }
        Some(ct) if !is_json_content_type(&ct) => {
            return Reply::bad_request(
                format!("Unsupported Content-Type {ct:?}; application/json is required"),
                cid,
            );
        }
        Some(_) => {}
    }
    let key = if route.needs_token() {
        match authenticate(shared, auth, cid) {
            Ok(key) => Some(key),
            Err(reply) => return reply,
        }
    } else {
        None
    };
    let mut raw = match read_body(rq) {
        Ok(b) => b,
        Err((413, msg)) => return Reply::error(413, "PAYLOAD_TOO_LARGE", msg, cid),
        Err((_, msg)) => return Reply::bad_request(msg, cid),
    };
    // An operation the document gives no request body (`menu`, `tips_types`)
    // may be sent none.
    let no_body = matches!(route, Route::Catalogue(op) if op["request"].is_null());
    if no_body && raw.iter().all(u8::is_ascii_whitespace) {
        raw = b"{}";
    }
    let body: Value = match serde_json::from_slice(raw) {
        Ok(v) => v,
        Err(e) => return Reply::bad_request(format!("Malformed JSON: {e}"), cid),
    };
    let Value::Object(body) = body else {
        return Reply::bad_request("The request body must be a JSON object", cid);
    };
    let result = match (route, key) {
        (Route::TokenV2, _) => token_v2(shared, &body, cid),
        (Route::TokenV1, _) => token_v1(shared, &body, cid),
        (Route::Organizations, Some(key)) => organizations(shared, key, &body, cid),
        (Route::UpdateWebhookSettings, Some(key)) => update_settings(shared, key, &body, cid),
        (Route::WebhookSettings, Some(key)) => webhook_settings(shared, key, &body, cid),
        (Route::StopLists, Some(key)) => stop_lists(shared, key, &body, cid),
        (Route::Catalogue(op), Some(key)) => {
            return answer_from_schema(shared, key, op, &body, cid)
        }
        // Token-protected routes always have a key here.
        (_, None) => Err("missing API key".to_string()),
    };
    result.unwrap_or_else(|msg| Reply::bad_request(msg, cid))
}

/// An operation without a handler of its own: 400 naming the field that does
/// not fit the request schema, else an answer made up from the response schema.
fn answer_from_schema(
    shared: &Arc<Shared>,
    key: &ApiKeyFixture,
    op: &Value,
    body: &Body,
    cid: &str,
) -> Reply {
    let cat = catalogue();
    let back_office = is_back_office(op["path"].as_str().unwrap_or_default());
    if let Err(msg) = cat.check_request(op, &Value::Object(body.clone())) {
        if back_office {
            // The back-office families answer errors as {message, details}.
            let field = msg.split_once(": ").map(|(f, _)| f).unwrap_or_default();
            return Reply::json(400, json!({"message": msg, "details": {"field": field}}));
        }
        return Reply::bad_request(msg, cid);
    }
    if back_office {
        if let Some(reply) = crate::backoffice::handle(shared, key, op, body) {
            return reply;
        }
    }
    if let Some(reply) = crate::flows::handle(shared, key, op, body, cid) {
        return reply;
    }
    let body = Value::Object(body.clone());
    let status = op["success_status"]
        .as_u64()
        .and_then(|s| u16::try_from(s).ok())
        .unwrap_or(200);
    if cat.answers_nothing(op) {
        // The document gives this success no content ("200 Success" and
        // nothing else), so none is sent: a `null` or `{}` would be a body
        // the document does not have, and a client must cope with none.
        return Reply::Empty { status };
    }
    Reply::json(status, cat.answer(op, cid, &body))
}

/// Paths of the back-office families (`/api/<family>/v<N>/...`: nomenclature,
/// employees, finance, inventory, reporting, platform, terminals, licenses,
/// menu v3), which answer errors as `{message, details}`.
fn is_back_office(path: &str) -> bool {
    let mut parts = path.split('/').skip(2);
    let family = parts.next().unwrap_or_default();
    let version = parts.next().unwrap_or_default();
    !family.is_empty()
        && !family.bytes().all(|b| b.is_ascii_digit())
        && version.len() > 1
        && version.starts_with('v')
        && version[1..].bytes().all(|b| b.is_ascii_digit())
}

/// Resolves the bearer token to its API key record.
fn authenticate<'a>(
    shared: &'a Shared,
    auth: &Auth,
    cid: &str,
) -> Result<&'a ApiKeyFixture, Reply> {
    let token = match auth {
        Auth::Missing => {
            return Err(Reply::error(
                401,
                "UNAUTHORIZED",
                "Authorization header is missing",
                cid,
            ))
        }
        Auth::Malformed => {
            return Err(Reply::bad_request(
                "Malformed Authorization header; expected 'Bearer <token>'",
                cid,
            ))
        }
        Auth::Bearer(t) => t,
    };
    let check = lock(&shared.tokens).check(token);
    match check {
        TokenCheck::Valid(key) => shared.fixtures.api_key(&key).ok_or_else(|| {
            Reply::error(
                401,
                "INVALID_TOKEN",
                "The token's API key no longer exists",
                cid,
            )
        }),
        TokenCheck::Expired => Err(Reply::error(
            401,
            "TOKEN_EXPIRED",
            "The access token has expired",
            cid,
        )),
        TokenCheck::Unknown => Err(Reply::error(
            401,
            "INVALID_TOKEN",
            "The access token is not valid",
            cid,
        )),
    }
}

type Body = Map<String, Value>;

fn required_str<'a>(body: &'a Body, name: &str) -> Result<&'a str, String> {
    body.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("Field {name} is required and must be a string"))
}

fn optional_bool(body: &Body, name: &str) -> Result<bool, String> {
    match body.get(name) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(format!("Field {name} must be a boolean")),
    }
}

fn optional_strings(body: &Body, name: &str) -> Result<Option<Vec<String>>, String> {
    match body.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect::<Option<Vec<String>>>()
            .map(Some)
            .ok_or_else(|| format!("Field {name} must be an array of strings")),
        Some(_) => Err(format!("Field {name} must be an array of strings or null")),
    }
}

fn optional_uuids(body: &Body, name: &str) -> Result<Option<Vec<String>>, String> {
    let Some(list) = optional_strings(body, name)? else {
        return Ok(None);
    };
    list.into_iter()
        .map(|s| {
            if is_uuid(&s) {
                Ok(s.to_ascii_lowercase())
            } else {
                Err(format!("Field {name} contains {s:?}, which is not a UUID"))
            }
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

fn token_v2(shared: &Shared, body: &Body, cid: &str) -> Result<Reply, String> {
    let app_id = required_str(body, "appId")?;
    let secret = required_str(body, "clientSecret")?;
    let api_key = required_str(body, "apiKey")?;
    let app_ok = shared
        .fixtures
        .apps
        .iter()
        .any(|a| a.app_id == app_id && a.client_secret == secret);
    match shared.fixtures.api_key(api_key) {
        Some(key) if app_ok => Ok(issue(shared, key, cid)),
        _ => Ok(Reply::error(
            401,
            "INVALID_CREDENTIALS",
            "Wrong appId, clientSecret or apiKey",
            cid,
        )),
    }
}

fn token_v1(shared: &Shared, body: &Body, cid: &str) -> Result<Reply, String> {
    let login = required_str(body, "apiLogin")?;
    match shared.fixtures.api_key(login) {
        Some(key) => Ok(issue(shared, key, cid)),
        None => Ok(Reply::error(
            401,
            "INVALID_CREDENTIALS",
            "Wrong apiLogin",
            cid,
        )),
    }
}

fn issue(shared: &Shared, key: &ApiKeyFixture, cid: &str) -> Reply {
    let token = lock(&shared.tokens).issue(&key.api_key, key.name.as_deref());
    shared.hub.metrics.token_issued();
    Reply::ok(cid, json!({ "token": token }))
}

fn organization_json(
    org: &OrganizationFixture,
    extended: bool,
    external_keys: Option<&[String]>,
) -> Value {
    let external = external_keys.map(|keys| {
        org.external_data
            .iter()
            .flatten()
            .filter(|e| keys.contains(&e.key))
            .map(|e| json!({"key": e.key, "value": e.value}))
            .collect::<Vec<Value>>()
    });
    let mut v = Map::new();
    v.insert(
        "responseType".into(),
        json!(if extended { "Extended" } else { "Simple" }),
    );
    v.insert("id".into(), json!(org.id));
    v.insert("name".into(), json!(org.name));
    v.insert("code".into(), json!(org.code));
    v.insert("externalData".into(), json!(external));
    if extended {
        v.extend(org.extended.clone());
    }
    v.extend(org.extra_fields.clone());
    Value::Object(v)
}

fn organizations(
    shared: &Shared,
    key: &ApiKeyFixture,
    body: &Body,
    cid: &str,
) -> Result<Reply, String> {
    let ids = optional_uuids(body, "organizationIds")?;
    let extended = optional_bool(body, "returnAdditionalInfo")?;
    let include_disabled = optional_bool(body, "includeDisabled")?;
    let external = optional_strings(body, "returnExternalData")?;
    let orgs: Vec<Value> = key
        .organization_ids
        .iter()
        .filter_map(|id| shared.fixtures.organization(id))
        .filter(|o| include_disabled || !o.disabled)
        .filter(|o| ids.as_ref().is_none_or(|ids| ids.contains(&o.id)))
        .map(|o| organization_json(o, extended, external.as_deref()))
        .collect();
    Ok(Reply::ok(cid, json!({ "organizations": orgs })))
}

/// `organizationId` of the body, checked to be a UUID the key can see.
fn visible_organization(key: &ApiKeyFixture, body: &Body) -> Result<String, String> {
    let id = required_str(body, "organizationId")?;
    if !is_uuid(id) {
        return Err(format!("organizationId {id:?} is not a UUID"));
    }
    let id = id.to_ascii_lowercase();
    if !key.organization_ids.contains(&id) {
        return Err(format!(
            "Organization {id} is not available for this API key"
        ));
    }
    Ok(id)
}

fn update_settings(
    shared: &Shared,
    key: &ApiKeyFixture,
    body: &Body,
    cid: &str,
) -> Result<Reply, String> {
    let organization_id = visible_organization(key, body)?;
    let uri = required_str(body, "webHooksUri")?;
    if !is_absolute_http_url(uri) {
        return Err(format!(
            "webHooksUri {uri:?} is not an absolute http(s) URL"
        ));
    }
    let auth_token = match body.get("authToken") {
        None | Some(Value::Null) => None,
        // It goes into an HTTP header, so it must be sendable as one.
        Some(Value::String(s)) if s.chars().any(char::is_control) => {
            return Err("Field authToken may not contain control characters".into())
        }
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err("Field authToken must be a string or null".into()),
    };
    let filter = match body.get("webHooksFilter") {
        None | Some(Value::Null) => None,
        Some(f) => {
            filter::validate(f)?;
            Some(f.clone())
        }
    };
    shared.hub.update_settings(WebhookSettings {
        organization_id,
        uri: uri.to_string(),
        auth_token,
        filter,
    });
    Ok(Reply::ok(cid, json!({})))
}

fn webhook_settings(
    shared: &Shared,
    key: &ApiKeyFixture,
    body: &Body,
    cid: &str,
) -> Result<Reply, String> {
    let organization_id = visible_organization(key, body)?;
    let settings = shared.hub.settings(&organization_id);
    Ok(Reply::ok(
        cid,
        json!({
            "apiLoginName": key.name,
            "webHooksUri": settings.as_ref().map(|s| s.uri.clone()),
            "authToken": settings.as_ref().and_then(|s| s.auth_token.clone()),
            "webHooksFilter": settings.as_ref().and_then(|s| s.filter.clone()),
        }),
    ))
}

fn stop_lists(
    shared: &Shared,
    key: &ApiKeyFixture,
    body: &Body,
    cid: &str,
) -> Result<Reply, String> {
    let Some(ids) = optional_uuids(body, "organizationIds")? else {
        return Err("Field organizationIds is required".into());
    };
    let return_size = optional_bool(body, "returnSize")?;
    let groups = optional_uuids(body, "terminalGroupsIds")?;
    let mut seen = Vec::new();
    let mut lists = Vec::new();
    for id in ids {
        if seen.contains(&id) || !key.organization_ids.contains(&id) {
            continue;
        }
        lists.push(shared.stop_list_json(&id, groups.as_deref(), return_size));
        seen.push(id);
    }
    Ok(Reply::ok(cid, json!({ "terminalGroupStopLists": lists })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types() {
        assert!(is_json_content_type("application/json"));
        assert!(is_json_content_type("Application/JSON; charset=utf-8"));
        assert!(is_json_content_type("application/json;charset=\"UTF-8\""));
        assert!(!is_json_content_type("application/json; charset=latin1"));
        assert!(!is_json_content_type("text/plain"));
        assert!(!is_json_content_type("application/jsonx"));
        assert!(!is_json_content_type(""));
    }
}
