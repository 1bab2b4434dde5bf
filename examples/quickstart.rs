//! The whole flow against the embedded emulator, with no credentials and no
//! network: token, organizations, webhook settings and stop lists.
//!
//! Run with `cargo run --example quickstart`.

use std::error::Error;

use iikocloud::api::models::organizations::OrganizationInfo;
use iikocloud::api::models::stop_lists::StopListsRequest;
use iikocloud::api::models::web_hooks::{GetWebHookSettingsRequest, UpdateWebHookSettingsRequest};
use iikocloud::Client;
use iikocloud_emulator::{Emulator, DEFAULT_API_KEY, DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET};

fn main() -> Result<(), Box<dyn Error>> {
    let emulator = Emulator::start_default()?;
    println!("emulator listening on {}", emulator.url());

    let client = Client::builder()
        .base_url(emulator.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .build()?;

    let token = client.access_token()?;
    let lifetime = token
        .expires_at()
        .duration_since(token.obtained_at())
        .unwrap_or_default();
    println!(
        "\n1. access token: {} characters, valid for {} s (the value itself is never printed)",
        token.expose().len(),
        lifetime.as_secs()
    );

    let answer = client.organizations(&Default::default())?;
    // Organizations come in the Simple shape unless returnAdditionalInfo asks
    // for the Extended one; both carry id and name.
    let orgs: Vec<(String, Option<String>)> = answer
        .organizations
        .unwrap_or_default()
        .into_iter()
        .filter_map(|o| match o {
            OrganizationInfo::Simple(o) => Some((o.id?, o.name)),
            OrganizationInfo::Extended(o) => Some((o.id?, o.name)),
            OrganizationInfo::Unknown(_) => None,
        })
        .collect();
    println!(
        "\n2. organizations ({}), correlationId {}",
        orgs.len(),
        answer.correlation_id.as_deref().unwrap_or("-")
    );
    for (id, name) in &orgs {
        println!("   {id}  {}", name.as_deref().unwrap_or("(no name)"));
    }
    let (org_id, org_name) = orgs
        .first()
        .ok_or("the emulator returned no organization")?;

    let hook = "https://pos.example.com/iiko/webhook";
    client.update_webhook_settings(&UpdateWebHookSettingsRequest {
        organization_id: Some(org_id.clone()),
        web_hooks_uri: Some(hook.into()),
        auth_token: Some("demo-webhook-token".into()),
        ..Default::default()
    })?;
    let settings = client.webhook_settings(&GetWebHookSettingsRequest {
        organization_id: Some(org_id.clone()),
        ..Default::default()
    })?;
    println!(
        "\n3. webhook of {}: {} (auth token stored: {})",
        org_name.as_deref().unwrap_or(org_id),
        settings.web_hooks_uri.as_deref().unwrap_or("(none)"),
        settings.auth_token.is_some()
    );

    let stop_lists = client.stop_lists(&StopListsRequest {
        organization_ids: Some(orgs.iter().map(|(id, _)| id.clone()).collect()),
        ..Default::default()
    })?;
    println!("\n4. stop lists");
    for org_lists in stop_lists.terminal_group_stop_lists.iter().flatten() {
        for group in org_lists.items.iter().flatten() {
            let items = group.items.as_deref().unwrap_or_default();
            println!(
                "   terminal group {}: {} item(s) out of stock",
                group.terminal_group_id.as_deref().unwrap_or("?"),
                items.len()
            );
            for item in items {
                println!(
                    "     product {}  balance {}",
                    item.product_id.as_deref().unwrap_or("?"),
                    item.balance.map(|b| b.to_string()).unwrap_or_default()
                );
            }
        }
    }

    println!(
        "\n{} requests served by the emulator, {} token request(s)",
        emulator.requests().len(),
        emulator.request_count("/api/v2/access_token")
    );
    Ok(())
}
