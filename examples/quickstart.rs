//! The whole flow against the embedded emulator, with no credentials and no
//! network: token, organizations, webhook settings and stop lists.
//!
//! Run with `cargo run --example quickstart`.

use std::error::Error;

use iikocloud::models::{OrganizationsRequest, StopListsRequest, UpdateWebhookSettingsRequest};
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

    let orgs = client.organizations(&OrganizationsRequest::default())?;
    println!(
        "\n2. organizations ({}), correlationId {}",
        orgs.organizations.len(),
        orgs.correlation_id.as_deref().unwrap_or("-")
    );
    for org in &orgs.organizations {
        println!(
            "   {}  {}",
            org.id,
            org.name.as_deref().unwrap_or("(no name)")
        );
    }
    let org = orgs
        .organizations
        .first()
        .ok_or("the emulator returned no organization")?;

    let hook = "https://pos.example.com/iiko/webhook";
    client.update_webhook_settings(&UpdateWebhookSettingsRequest::new(
        &org.id,
        hook,
        "demo-webhook-token",
    ))?;
    let settings = client.webhook_settings(&org.id)?;
    println!(
        "\n3. webhook of {}: {} (auth token stored: {})",
        org.name.as_deref().unwrap_or(&org.id),
        settings.web_hooks_uri.as_deref().unwrap_or("(none)"),
        settings.auth_token.is_some()
    );

    let ids: Vec<String> = orgs.organizations.iter().map(|o| o.id.clone()).collect();
    let stop_lists = client.stop_lists(&StopListsRequest::new(ids))?;
    println!("\n4. stop lists");
    for org_lists in &stop_lists.terminal_group_stop_lists {
        for group in &org_lists.items {
            println!(
                "   terminal group {}: {} item(s) out of stock",
                group.terminal_group_id.as_deref().unwrap_or("?"),
                group.items.len()
            );
            for item in &group.items {
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
