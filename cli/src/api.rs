//! Commands that call the service: `token`, `organizations`, `stop-lists`,
//! `call`, `webhook get` and `webhook set`.

use std::time::SystemTime;

use iikocloud::api::models::integration::web_hooks_filters::WebHooksFilter;
use iikocloud::api::models::organizations::{GetOrganizationsRequest, OrganizationInfo};
use iikocloud::api::models::stop_lists::StopListsRequest;
use iikocloud::api::models::web_hooks::{GetWebHookSettingsRequest, UpdateWebHookSettingsRequest};
use iikocloud::limits::Given;
use iikocloud::{CallOptions, Client, Credentials};
use serde_json::{json, Value};

use crate::args::{
    CallArgs, ConnOpts, GlobalOpts, OrganizationsArgs, StopListsArgs, TokenArgs, WebhookGetArgs,
    WebhookSetArgs,
};
use crate::exit::Failure;
use crate::output::{self, or_dash, print_json, redact, table, REDACTED};
use crate::progress::with_spinner;

/// A client built from the connection options, with the host for the spinner.
struct Conn {
    client: Client,
    host: String,
}

impl Conn {
    fn new(opts: &ConnOpts) -> Result<Conn, Failure> {
        let mut builder = Client::builder()
            .base_url(opts.base_url.clone())
            .credentials(credentials(opts)?);
        if let Some(timeout) =
            iikocloud::limits::CLIENT_TIMEOUT.read_duration(Given::Seconds(opts.timeout))?
        {
            builder = builder.timeout(timeout);
        }
        if let Some(path) = &opts.ca_file {
            builder = builder.ca_file(path);
        }
        if opts.trust == "bundled" {
            builder = builder.trust_roots(iikocloud::TrustRoots::Bundled);
        }
        if let Some(proxy) = &opts.proxy {
            builder = builder.proxy(proxy.clone());
        }
        if let Some(hosts) = &opts.no_proxy {
            builder = builder.no_proxy(hosts.clone());
        }
        Ok(Conn {
            client: builder.build()?,
            host: host_of(&opts.base_url),
        })
    }

    /// Runs a call with a spinner naming the host.
    fn wait<T>(&self, f: impl FnOnce(&Client) -> T) -> T {
        with_spinner(&format!("waiting for {}", self.host), || f(&self.client))
    }
}

/// v2 credentials when any of them is given (then all three are required),
/// else the legacy apiLogin. Messages name the missing settings, never values.
fn credentials(opts: &ConnOpts) -> Result<Credentials, Failure> {
    let v2_given = opts.app_id.is_some() || opts.client_secret.is_some() || opts.api_key.is_some();
    if v2_given {
        let mut missing = Vec::new();
        if opts.app_id.is_none() {
            missing.push("--app-id / IIKO_APP_ID");
        }
        if opts.client_secret.is_none() {
            missing.push("--client-secret / IIKO_CLIENT_SECRET");
        }
        if opts.api_key.is_none() {
            missing.push("--api-key / IIKO_API_KEY");
        }
        return match (&opts.app_id, &opts.client_secret, &opts.api_key) {
            (Some(id), Some(secret), Some(key)) => {
                Ok(Credentials::v2(id.clone(), secret.clone(), key.clone()))
            }
            _ => Err(Failure::usage(format!(
                "incomplete v2 credentials: also set {}",
                missing.join(" and ")
            ))),
        };
    }
    match &opts.api_login {
        Some(login) => Ok(Credentials::api_login(login.clone())),
        None => Err(Failure::usage(
            "no credentials: set IIKO_APP_ID, IIKO_CLIENT_SECRET and IIKO_API_KEY \
             (or IIKO_API_LOGIN), or the matching flags; try `iikocloud emulator` \
             for a local service with test credentials",
        )),
    }
}

/// The host part of a URL, for the spinner ("api-ru.iiko.services").
fn host_of(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    // Drop user info, should a URL carry any.
    host.rsplit('@').next().unwrap_or(host).to_owned()
}

/// `token`.
pub fn token(g: &GlobalOpts, a: &TokenArgs) -> Result<(), Failure> {
    let conn = Conn::new(&a.conn)?;
    let token = conn.wait(Client::access_token)?;
    let now = SystemTime::now();
    let expires_in = token
        .expires_at()
        .duration_since(now)
        .unwrap_or_default()
        .as_secs();
    if g.json {
        let mut v = json!({
            "length": token.expose().len(),
            "obtainedAtUnix": output::unix_secs(token.obtained_at()),
            "expiresAtUnix": output::unix_secs(token.expires_at()),
            "expiresInSecs": expires_in,
        });
        if a.reveal {
            v["token"] = json!(token.expose());
        }
        print_json(&v);
    } else if a.reveal {
        // Alone on stdout, so that `$(iikocloud token --reveal)` works.
        println!("{}", token.expose());
    } else {
        println!(
            "access token obtained: {} characters, expires in {} s ({})",
            token.expose().len(),
            expires_in,
            output::format_utc(token.expires_at())
        );
        println!("(the token is not printed; use --reveal to print it)");
    }
    Ok(())
}

/// The base fields of an organization, in whichever shape it came; `None`
/// for a shape this version does not know.
pub(crate) fn base_fields(o: &OrganizationInfo) -> (Option<&str>, Option<&str>, Option<&str>) {
    match o {
        OrganizationInfo::Simple(s) => (s.id.as_deref(), s.name.as_deref(), s.code.as_deref()),
        OrganizationInfo::Extended(e) => (e.id.as_deref(), e.name.as_deref(), e.code.as_deref()),
        OrganizationInfo::Unknown(v) => (v["id"].as_str(), v["name"].as_str(), v["code"].as_str()),
    }
}

/// The ids of the organizations of an answer (those that carry one).
pub(crate) fn organization_ids(orgs: &[OrganizationInfo]) -> Vec<String> {
    orgs.iter()
        .filter_map(|o| base_fields(o).0.map(str::to_owned))
        .collect()
}

/// `organizations`.
pub fn organizations(g: &GlobalOpts, a: &OrganizationsArgs) -> Result<(), Failure> {
    let conn = Conn::new(&a.conn)?;
    let request = GetOrganizationsRequest {
        organization_ids: (!a.ids.is_empty()).then(|| a.ids.clone()),
        return_additional_info: a.extended.then_some(true),
        include_disabled: a.include_disabled.then_some(true),
        ..Default::default()
    };
    let orgs = conn.wait(|c| c.api().organizations().get(&request))?;
    if g.json {
        print_json(&output::to_value(&orgs)?);
        return Ok(());
    }
    let list = orgs.organizations.as_deref().unwrap_or_default();
    println!(
        "{} organization(s) (correlationId {})",
        list.len(),
        or_dash(orgs.correlation_id.as_deref())
    );
    if list.is_empty() {
        return Ok(());
    }
    let mut headers = vec!["ID", "NAME", "CODE"];
    if a.extended {
        headers.extend(["COUNTRY", "CURRENCY", "VERSION"]);
    }
    let rows: Vec<Vec<String>> = list
        .iter()
        .map(|o| {
            let (id, name, code) = base_fields(o);
            let mut row = vec![
                id.unwrap_or_default().to_owned(),
                or_dash(name),
                or_dash(code),
            ];
            if a.extended {
                let x = match o {
                    OrganizationInfo::Extended(x) => Some(x),
                    _ => None,
                };
                row.push(or_dash(x.and_then(|x| x.country.as_deref())));
                row.push(or_dash(x.and_then(|x| x.currency_iso_name.as_deref())));
                row.push(or_dash(x.and_then(|x| x.version.as_deref())));
            }
            row
        })
        .collect();
    println!("{}", table(&headers, &rows));
    Ok(())
}

/// `stop-lists`.
pub fn stop_lists(g: &GlobalOpts, a: &StopListsArgs) -> Result<(), Failure> {
    let conn = Conn::new(&a.conn)?;
    let orgs = if a.orgs.is_empty() {
        let all = conn.wait(|c| c.api().organizations().get(&Default::default()))?;
        let ids = organization_ids(all.organizations.as_deref().unwrap_or_default());
        if ids.is_empty() {
            return Err(Failure::failed(
                "the API key sees no organization; nothing to ask stop lists for",
            ));
        }
        ids
    } else {
        a.orgs.clone()
    };
    let request = StopListsRequest {
        organization_ids: Some(orgs),
        return_size: a.sizes.then_some(true),
        terminal_groups_ids: (!a.terminal_groups.is_empty()).then(|| a.terminal_groups.clone()),
        ..Default::default()
    };
    let lists = conn.wait(|c| c.api().stop_lists().get(&request))?;
    if g.json {
        print_json(&output::to_value(&lists)?);
        return Ok(());
    }
    let per_org = lists
        .terminal_group_stop_lists
        .as_deref()
        .unwrap_or_default();
    println!(
        "stop lists of {} organization(s) (correlationId {})",
        per_org.len(),
        or_dash(lists.correlation_id.as_deref())
    );
    for org in per_org {
        println!("\norganization {}", or_dash(org.organization_id.as_deref()));
        for group in org.items.as_deref().unwrap_or_default() {
            let items = group.items.as_deref().unwrap_or_default();
            println!(
                "  terminal group {}: {} item(s) out of stock",
                or_dash(group.terminal_group_id.as_deref()),
                items.len()
            );
            if items.is_empty() {
                continue;
            }
            let rows: Vec<Vec<String>> = items
                .iter()
                .map(|i| {
                    vec![
                        or_dash(i.product_id.as_deref()),
                        or_dash(i.sku.as_deref()),
                        or_dash(i.balance),
                        or_dash(i.size_id.as_deref()),
                        or_dash(i.date_add.as_ref()),
                    ]
                })
                .collect();
            let t = table(&["PRODUCT", "SKU", "BALANCE", "SIZE", "ADDED (UTC)"], &rows);
            for line in t.lines() {
                println!("    {line}");
            }
        }
    }
    Ok(())
}

/// `call PATH [JSON]`.
pub fn call(g: &GlobalOpts, a: &CallArgs) -> Result<(), Failure> {
    let text = crate::ops::read_request(a.body.as_deref())?;
    let mut answer = if a.path.starts_with('/') {
        if a.wait {
            return Err(Failure::new(
                crate::exit::Exit::Usage,
                "--wait needs an operation name (a raw call by path cannot be followed)",
            ));
        }
        if a.allow_unknown_fields {
            return Err(Failure::new(
                crate::exit::Exit::Usage,
                "--allow-unknown-fields is for operation names; a raw call by path sends its JSON as given",
            ));
        }
        // The body is not quoted in the message: it may hold personal data.
        let body: Value = serde_json::from_str(&text)
            .map_err(|e| Failure::input(format!("the JSON body is not valid JSON: {e}")))?;
        if !body.is_object() {
            return Err(Failure::input("the JSON body must be an object ({...})"));
        }
        let conn = Conn::new(&a.conn)?;
        let mut options = CallOptions::default();
        if a.idempotent {
            options = options.idempotent();
        }
        conn.wait(|c| c.call(&a.path, &body, &options))?
    } else {
        if a.idempotent {
            return Err(Failure::new(
                crate::exit::Exit::Usage,
                "--idempotent is for raw calls by path; an operation has its own retry rule",
            ));
        }
        let conn = Conn::new(&a.conn)?;
        conn.wait(|c| crate::ops::call(c, a, &text))?
    };
    if !a.reveal {
        redact(&mut answer);
    }
    if g.json {
        println!("{answer}");
    } else {
        print_json(&answer);
    }
    Ok(())
}

/// `webhook get`.
pub fn webhook_get(g: &GlobalOpts, a: &WebhookGetArgs) -> Result<(), Failure> {
    let conn = Conn::new(&a.conn)?;
    let request = GetWebHookSettingsRequest {
        organization_id: Some(a.org.clone()),
        ..Default::default()
    };
    let settings = conn.wait(|c| c.api().webhooks().settings(&request))?;
    if g.json {
        let mut v = output::to_value(&settings)?;
        if !a.reveal {
            if let Some(t) = v.get_mut("authToken").filter(|t| t.is_string()) {
                *t = json!(REDACTED);
            }
        }
        print_json(&v);
        return Ok(());
    }
    let token = match (&settings.auth_token, a.reveal) {
        (None, _) => "not set".to_owned(),
        (Some(t), true) => t.expose().to_owned(),
        (Some(_), false) => "set (hidden; --reveal prints it)".to_owned(),
    };
    let filter = match &settings.web_hooks_filter {
        Some(f) => output::to_value(f)?.to_string(),
        None => "none".to_owned(),
    };
    let rows = vec![
        vec!["organization".into(), a.org.clone()],
        vec![
            "webHooksUri".into(),
            settings
                .web_hooks_uri
                .clone()
                .unwrap_or_else(|| "(not set)".into()),
        ],
        vec!["authToken".into(), token],
        vec!["webHooksFilter".into(), filter],
        vec![
            "apiLoginName".into(),
            or_dash(settings.api_login_name.as_deref()),
        ],
        vec![
            "correlationId".into(),
            or_dash(settings.correlation_id.as_deref()),
        ],
    ];
    // A key/value list: the table without its header line.
    let t = table(&["", ""], &rows);
    for line in t.lines().skip(1) {
        println!("{line}");
    }
    Ok(())
}

/// `webhook set`.
pub fn webhook_set(g: &GlobalOpts, a: &WebhookSetArgs) -> Result<(), Failure> {
    let Some(token) = a.token.clone() else {
        return Err(Failure::usage(
            "no auth token: set --token or IIKO_WEBHOOK_TOKEN (without one, anyone who \
             knows the URL can post events to it)",
        ));
    };
    let filter = match &a.filter {
        Some(text) => Some(
            serde_json::from_str::<WebHooksFilter>(text)
                .map_err(|e| Failure::input(format!("--filter is not a webHooksFilter: {e}")))?,
        ),
        None => None,
    };
    let conn = Conn::new(&a.conn)?;
    let request = UpdateWebHookSettingsRequest {
        organization_id: Some(a.org.clone()),
        web_hooks_uri: Some(a.url.clone()),
        auth_token: Some(token),
        web_hooks_filter: filter,
        ..Default::default()
    };
    let answer = conn.wait(|c| c.api().webhooks().update_settings(&request))?;
    if g.json {
        print_json(&output::to_value(&answer)?);
    } else {
        println!(
            "webhook of {} set to {} (auth token stored; correlationId {})",
            a.org,
            a.url,
            or_dash(answer.correlation_id.as_deref())
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_of_urls() {
        assert_eq!(
            host_of("https://api-ru.iiko.services"),
            "api-ru.iiko.services"
        );
        assert_eq!(host_of("http://127.0.0.1:8787/x?y"), "127.0.0.1:8787");
        assert_eq!(host_of("http://user:pw@h:1/"), "h:1");
    }
}
