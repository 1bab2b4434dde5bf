//! `demo`: the whole SDK against an in-process emulator, step by step.
//!
//! Every step checks that what it shows really happened, so the demo is also
//! a smoke test: it exits 1 at the first step that does not go as expected.
//! Nothing secret is printed: not the credentials, not the access token, not
//! the webhook auth token.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::mpsc::{self, Receiver as Channel};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use iikocloud::api::models::deliveries::request::create_order::{
    DeliveryOrder, OrderItem, ProductOrderItem,
};
use iikocloud::api::models::deliveries::request::update_order::ConfirmDeliveryRequest;
use iikocloud::api::models::deliveries::request::{
    CloseDeliveryOrderRequest, CreateOrderRequest, OrdersByIdRequest, UpdateDeliveryStatusRequest,
};
use iikocloud::api::models::stop_lists::StopListsRequest;
use iikocloud::api::models::stop_lists::{AddProductsToStopListItem, AddProductsToStopListRequest};
use iikocloud::api::models::web_hooks::{GetWebHookSettingsRequest, UpdateWebHookSettingsRequest};
use iikocloud::api::WaitOptions;
use iikocloud::webhook::{Event, EventKind, ReceiveError, VerifyError};
use iikocloud::Client;
use iikocloud::{CommandErrorKind, Money};
use iikocloud_emulator::{
    DeliveryConfig, DeliveryOutcome, Emulator, EmulatorConfig, DEFAULT_API_KEY, DEFAULT_APP_ID,
    DEFAULT_CLIENT_SECRET, MENU_PRODUCTS,
};
use serde_json::{json, Value};

use crate::args::{DemoArgs, GlobalOpts};
use crate::exit::Failure;
use crate::hooks::{
    describe, receiver_limits, short, type_name, Delivery, Endpoint, Outcome, Verdict,
};
use iikocloud_http_server::{Reply, Response, Server, ServerConfig};

/// How long to wait for one webhook delivery before the step fails.
const EVENT_TIMEOUT: Duration = Duration::from_secs(5);
/// Lifetime of the tokens issued in the expiry step.
const SHORT_TTL: Duration = Duration::from_secs(2);
/// The statuses a delivery order goes through after `Unconfirmed`.
const LIFECYCLE: [&str; 7] = [
    "WaitCooking",
    "CookingStarted",
    "CookingCompleted",
    "Waiting",
    "OnWay",
    "Delivered",
    "Closed",
];
/// The path the receiver is told to listen on (any path would do).
const HOOK_PATH: &str = "/iiko/webhook";

/// The steps, in order; a failure names the step.
const STEPS: [&str; 9] = [
    "Start the emulator",
    "Get an access token",
    "List the organizations",
    "Point the webhook at a local receiver",
    "Create a delivery order through the API and follow it to Closed",
    "Create an order with a product the menu lacks: the command fails",
    "Put a product on the stop list, then fetch the stop lists",
    "Keep out repeats, late versions and forgeries",
    "Let a token expire: the client refreshes it unnoticed",
];

/// Prints step headings and turns failed checks into a [`Failure`].
struct Steps {
    current: usize,
}

impl Steps {
    fn next(&mut self) {
        self.current += 1;
        println!("\n{}. {}", self.current, STEPS[self.current - 1]);
    }

    fn check(&self, ok: bool, what: impl FnOnce() -> String) -> Result<(), Failure> {
        if ok {
            Ok(())
        } else {
            Err(self.fail(what()))
        }
    }

    fn fail(&self, what: impl std::fmt::Display) -> Failure {
        Failure::failed(format!(
            "demo step {} ({}) failed: {what}",
            self.current,
            STEPS[self.current.saturating_sub(1)]
        ))
    }
}

/// The in-process webhook receiver: an HTTP server whose handler hands
/// every handled request to the demo over a channel.
struct LocalReceiver {
    server: Server,
    deliveries: Channel<Delivery>,
}

impl LocalReceiver {
    fn start(token: &str) -> std::io::Result<LocalReceiver> {
        let (tx, rx) = mpsc::channel();
        let tx = Mutex::new(tx);
        let endpoint = Endpoint::new(token.into());
        let server = Server::start(
            ServerConfig::loopback("demo-receiver").limits(receiver_limits(&endpoint)),
            move |rq, _| {
                let delivery = endpoint.serve(rq);
                let status = delivery.status;
                // The demo may have finished with its receiver; answer anyway.
                let _ = tx.lock().unwrap_or_else(|p| p.into_inner()).send(delivery);
                Reply::Respond(Response::empty(status))
            },
        )?;
        Ok(LocalReceiver {
            server,
            deliveries: rx,
        })
    }

    fn url(&self) -> String {
        format!("http://{}{HOOK_PATH}", self.server.addr())
    }

    /// The next request the receiver handled.
    fn next(&self, steps: &Steps) -> Result<Delivery, Failure> {
        self.deliveries
            .recv_timeout(EVENT_TIMEOUT)
            .map_err(|_| steps.fail(format!("no webhook request within {EVENT_TIMEOUT:?}")))
    }

    /// The next request, which must hold exactly one event; prints its line.
    fn next_event(&self, steps: &Steps) -> Result<(Event, Verdict), Failure> {
        let d = self.next(steps)?;
        let status = d.status;
        match d.outcome {
            Outcome::Events(mut events) if events.len() == 1 => {
                let (event, verdict) = events.remove(0);
                println!(
                    "   <- {status} {}  {}  => {}",
                    type_name(&event),
                    describe(&event),
                    verdict.describe()
                );
                Ok((event, verdict))
            }
            Outcome::Events(events) => Err(steps.fail(format!(
                "expected one event per request, got {}",
                events.len()
            ))),
            Outcome::Refused(e) => Err(steps.fail(format!("the receiver refused a delivery: {e}"))),
            other => Err(steps.fail(format!("unexpected request: {other:?}"))),
        }
    }
}

/// A product id no menu has.
const UNKNOWN_PRODUCT: &str = "00000000-0000-4000-8000-00000000dead";

/// A create request for one product, two portions, with the order id set by
/// the caller (so a timeout can be followed by a look-up instead of a resend).
fn delivery_request(org: &str, order_id: &str, product: &str) -> CreateOrderRequest {
    CreateOrderRequest {
        organization_id: Some(org.to_string()),
        order: Some(DeliveryOrder {
            id: Some(order_id.to_string()),
            phone: Some("+79161234567".into()),
            items: Some(vec![OrderItem::Product(ProductOrderItem {
                product_id: Some(product.to_string()),
                amount: Some(Money::from(2)),
                // The menu's price, or any price for a product it lacks.
                price: MENU_PRODUCTS
                    .iter()
                    .find(|(id, _, _)| *id == product)
                    .map_or(Some(Money::from(100)), |(_, _, p)| Money::from_f64(*p)),
                ..Default::default()
            })]),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Moves the order to `status`: through the API where the service has an
/// operation for it, else as the kitchen would (the emulator plays it).
fn move_order(
    client: &Client,
    emu: &Emulator,
    org: &str,
    order_id: &str,
    status: &str,
) -> Result<&'static str, Failure> {
    let deliveries = client.api().deliveries();
    let (answer, how) = match status {
        "WaitCooking" => (
            deliveries.confirm(&ConfirmDeliveryRequest {
                organization_id: Some(org.into()),
                order_id: Some(order_id.into()),
                ..Default::default()
            })?,
            "deliveries.confirm",
        ),
        "Waiting" | "OnWay" | "Delivered" => (
            deliveries.update_order_delivery_status(&UpdateDeliveryStatusRequest {
                organization_id: Some(org.into()),
                order_id: Some(order_id.into()),
                delivery_status: Some(
                    status
                        .parse()
                        .unwrap_or_else(|e: std::convert::Infallible| match e {}),
                ),
                ..Default::default()
            })?,
            "deliveries.update_order_delivery_status",
        ),
        "Closed" => (
            deliveries.close(&CloseDeliveryOrderRequest {
                organization_id: Some(org.into()),
                order_id: Some(order_id.into()),
                ..Default::default()
            })?,
            "deliveries.close",
        ),
        _ => {
            emu.set_delivery_status(order_id, status)
                .map_err(|e| Failure::failed(e.to_string()))?;
            return Ok("the kitchen (played by the emulator)");
        }
    };
    let cid = answer.correlation_id.unwrap_or_default();
    client.wait_command(org, &cid, &WaitOptions::default())?;
    Ok(how)
}

/// A random version-4 UUID.
fn random_uuid() -> String {
    let hex = random_token();
    format!(
        "{}-{}-4{}-8{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}

/// A 128-bit random hex token from the standard library's randomly keyed
/// hasher: unguessable enough for a demo, and no dependency for it.
fn random_token() -> String {
    (0..2u64)
        .map(|i| {
            let mut h = RandomState::new().build_hasher();
            h.write_u64(i);
            format!("{:016x}", h.finish())
        })
        .collect()
}

/// POSTs `[]` with a wrong `Authorization` header over a plain socket and
/// returns the status answered.
fn post_forged(addr: SocketAddr) -> std::io::Result<u16> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(EVENT_TIMEOUT))?;
    let body = "[]";
    write!(
        s,
        "POST {HOOK_PATH} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Authorization: Bearer not-the-configured-token\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    )?;
    let mut answer = String::new();
    s.read_to_string(&mut answer)?;
    // "HTTP/1.1 401 Unauthorized"
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| std::io::Error::other("no HTTP status line in the answer"))
}

/// `demo`.
pub fn run(_g: &GlobalOpts, _a: &DemoArgs) -> Result<(), Failure> {
    let started = Instant::now();
    let mut steps = Steps { current: 0 };
    println!("iikocloud demo: the SDK against an emulator running inside this process");
    println!("(no credentials, no network; nothing secret is printed)");

    // 1. The emulator, with fast webhook retries so nothing waits long.
    steps.next();
    let emu = Emulator::start(EmulatorConfig::default().delivery(DeliveryConfig::fast()))
        .map_err(|e| steps.fail(format!("cannot start the emulator: {e}")))?;
    println!(
        "   emulator listening on {} (built-in test data)",
        emu.url()
    );
    let client = Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .build()?;
    let token_requests = || emu.request_count("/api/v2/access_token");

    // 2. A token: fetched once, then cached and shared.
    steps.next();
    let token = client.access_token()?;
    let lifetime = token
        .expires_at()
        .duration_since(token.obtained_at())
        .unwrap_or_default();
    steps.check(token_requests() == 1, || {
        format!("expected 1 token request, saw {}", token_requests())
    })?;
    println!(
        "   token obtained: {} characters, valid for {} s (the value is never printed)",
        token.expose().len(),
        lifetime.as_secs()
    );
    println!(
        "   the client caches it, shares it between threads and refreshes it before it expires"
    );
    drop(token);

    // 3. Organizations.
    steps.next();
    let orgs = organizations(&client)?;
    for o in &orgs {
        println!("   {}  {}", o.id, o.name.as_deref().unwrap_or("(no name)"));
    }
    let org = orgs
        .first()
        .ok_or_else(|| steps.fail("the emulator returned no organization"))?;
    let org_name = org.name.clone().unwrap_or_else(|| org.id.clone());
    steps.check(token_requests() == 1, || {
        "the cached token was not reused".into()
    })?;
    println!(
        "   {} organization(s); the cached token was reused (still 1 token request)",
        orgs.len()
    );

    // 4. The receiver, and the webhook pointed at it.
    steps.next();
    let auth_token = random_token();
    let receiver = LocalReceiver::start(&auth_token)
        .map_err(|e| steps.fail(format!("cannot start the receiver: {e}")))?;
    println!(
        "   receiver listening on {}, built with the SDK's Receiver (verify, then parse),",
        receiver.url()
    );
    println!("   Deduplicator (drops repeats) and OrderingGuard (skips late versions)");
    client
        .api()
        .webhooks()
        .update_settings(&UpdateWebHookSettingsRequest {
            organization_id: Some(org.id.clone()),
            web_hooks_uri: Some(receiver.url()),
            auth_token: Some(auth_token.as_str().into()),
            ..Default::default()
        })?;
    let settings = client
        .api()
        .webhooks()
        .settings(&GetWebHookSettingsRequest {
            organization_id: Some(org.id.clone()),
            ..Default::default()
        })?;
    steps.check(
        settings.web_hooks_uri.as_deref() == Some(receiver.url().as_str())
            && settings.auth_token.as_ref().map(|t| t.expose()) == Some(auth_token.as_str()),
        || "the webhook settings read back differ from those set".into(),
    )?;
    println!("   webhook of {org_name} set, read back: same URL, auth token stored (not printed)");
    println!("   each line below is one request: '<-' the status the receiver answered, the event");
    println!("   it verified and parsed, and '=>' what it decided");

    // 5. A delivery order created through the API, followed to Closed.
    steps.next();
    let order_id = random_uuid();
    let created = client.api().deliveries().create(&delivery_request(
        &org.id,
        &order_id,
        MENU_PRODUCTS[0].0,
    ))?;
    let cid = created.correlation_id.clone().unwrap_or_default();
    println!(
        "   deliveries.create: order {} accepted, creation InProgress (command {})",
        short(&order_id),
        short(&cid)
    );
    let t = Instant::now();
    client.wait_command(&org.id, &cid, &WaitOptions::default())?;
    println!(
        "   commands/status: Success after {} ms (the client polls with growing pauses)",
        t.elapsed().as_millis()
    );
    let mut expected = vec!["Unconfirmed"];
    expected.extend(LIFECYCLE);
    for (i, status) in expected.iter().enumerate() {
        if i > 0 {
            let how = move_order(&client, &emu, &org.id, &order_id, status)?;
            println!("   {status}: {how}");
        }
        let (event, verdict) = receiver.next_event(&steps)?;
        steps.check(
            event.kind() == EventKind::DeliveryOrderUpdate
                && event.order_id() == Some(order_id.as_str())
                && event.status() == Some(*status)
                && verdict == Verdict::New,
            || format!("expected a new DeliveryOrderUpdate with status {status}"),
        )?;
        if i == 0 {
            steps.check(event.is_new_delivery_order(), || {
                "the first event was not recognised as a new order".into()
            })?;
        }
    }
    let read_back = client
        .api()
        .deliveries()
        .by_id(&OrdersByIdRequest {
            organization_id: Some(org.id.clone()),
            order_ids: Some(vec![order_id.clone()]),
            ..Default::default()
        })?
        .orders
        .unwrap_or_default();
    let final_status = read_back
        .first()
        .and_then(|o| o.order.as_ref())
        .and_then(|o| o.status.as_ref())
        .map(|s| s.as_str().to_string());
    steps.check(final_status.as_deref() == Some("Closed"), || {
        format!("deliveries.by_id read the order back as {final_status:?}, not Closed")
    })?;
    println!("   deliveries.by_id reads it back: Closed");

    // 6. An order error: a product the menu does not have.
    steps.next();
    let failed = client.api().deliveries().create(&delivery_request(
        &org.id,
        &random_uuid(),
        UNKNOWN_PRODUCT,
    ))?;
    let outcome = client.wait_command(
        &org.id,
        failed.correlation_id.as_deref().unwrap_or_default(),
        &WaitOptions::default(),
    );
    let reason = match &outcome {
        Err(iikocloud::Error::Command(c)) if c.kind == CommandErrorKind::Failed => {
            c.reason.clone().unwrap_or_default()
        }
        other => return Err(steps.fail(format!("expected the command to fail, got {other:?}"))),
    };
    println!("   an order with a product the menu lacks: the command fails ({reason})");
    let (event, verdict) = receiver.next_event(&steps)?;
    steps.check(
        event.kind() == EventKind::DeliveryOrderError
            && event.error_code() == Some("ProductNotFound")
            && verdict == Verdict::New,
        || "expected a DeliveryOrderError with code ProductNotFound".into(),
    )?;

    // 7. A stop-list change: the event names the terminal group only, so the
    // stop lists are fetched after it.
    steps.next();
    let count_items = |client: &Client| -> Result<(usize, Vec<String>), Failure> {
        let lists = client.api().stop_lists().get(&StopListsRequest {
            organization_ids: Some(vec![org.id.clone()]),
            ..Default::default()
        })?;
        let products: Vec<String> = lists
            .terminal_group_stop_lists
            .iter()
            .flatten()
            .flat_map(|o| o.items.iter().flatten())
            .flat_map(|g| g.items.iter().flatten())
            .filter_map(|i| i.product_id.clone())
            .collect();
        Ok((products.len(), products))
    };
    let (before, before_products) = count_items(&client)?;
    let terminal_group = emu
        .fixtures()
        .organization(&org.id)
        .and_then(|o| o.terminal_groups.first())
        .map(|g| g.id.clone())
        .ok_or_else(|| steps.fail("the organization has no terminal group"))?;
    let added = client
        .api()
        .stop_lists()
        .add(&AddProductsToStopListRequest {
            organization_id: Some(org.id.clone()),
            terminal_group_id: Some(terminal_group),
            items: Some(vec![AddProductsToStopListItem {
                product_id: Some(MENU_PRODUCTS[2].0.to_string()),
                balance: Some(Money::from(0)),
                ..Default::default()
            }]),
            ..Default::default()
        })?;
    client.wait_command(
        &org.id,
        added.correlation_id.as_deref().unwrap_or_default(),
        &WaitOptions::default(),
    )?;
    println!("   stop_lists.add: {} is out of stock", MENU_PRODUCTS[2].1);
    let (event, verdict) = receiver.next_event(&steps)?;
    steps.check(
        event.kind() == EventKind::StopListUpdate && verdict == Verdict::New,
        || "expected a StopListUpdate".into(),
    )?;
    let (after, after_products) = count_items(&client)?;
    let added: Vec<&String> = after_products
        .iter()
        .filter(|p| !before_products.contains(p))
        .collect();
    steps.check(after == before + 1 && added.len() == 1, || {
        format!("expected one new stop-list item, had {before}, now {after}")
    })?;
    println!(
        "   the event carries no items, so /api/1/stop_lists is asked: {after} item(s) out of stock \
         (was {before}), new: product {}",
        short(added[0])
    );

    // 8. Repeats, late versions, forgeries.
    steps.next();
    let first_body = emu
        .deliveries()
        .into_iter()
        .find(|r| r.outcome == DeliveryOutcome::Delivered && r.body.contains(&order_id))
        .map(|r| r.body_json())
        .ok_or_else(|| steps.fail("the emulator logged no delivery of the order"))?;
    println!(
        "   the first order event is delivered again, as the service does when a 200 is lost:"
    );
    emu.send_raw(&org.id, first_body.clone())
        .map_err(|e| steps.fail(e))?;
    let (_, verdict) = receiver.next_event(&steps)?;
    steps.check(verdict == Verdict::Duplicate, || {
        "the repeated event was not dropped".into()
    })?;

    println!("   an older version of the order (lower eventInfo.timestamp) arrives late:");
    let mut late = first_body
        .get(0)
        .cloned()
        .ok_or_else(|| steps.fail("the order has no event"))?;
    let first_ts = late["eventInfo"]["timestamp"]
        .as_i64()
        .ok_or_else(|| steps.fail("the order event has no timestamp"))?;
    late["eventInfo"]["timestamp"] = json!(first_ts - 1);
    emu.send_raw(&org.id, Value::Array(vec![late]))
        .map_err(|e| steps.fail(e))?;
    let (_, verdict) = receiver.next_event(&steps)?;
    steps.check(matches!(verdict, Verdict::Stale { .. }), || {
        "the late version was not skipped".into()
    })?;

    println!("   a request with a wrong Authorization header:");
    let status = post_forged(receiver.server.addr()).map_err(|e| steps.fail(e))?;
    let d = receiver.next(&steps)?;
    let rejected = matches!(
        d.outcome,
        Outcome::Refused(ReceiveError::Unauthorized(VerifyError::Mismatch))
    );
    steps.check(status == 401 && d.status == 401 && rejected, || {
        format!("expected 401 for the forged request, got {status}")
    })?;
    if let Outcome::Refused(e) = &d.outcome {
        println!("   <- {status} rejected before parsing: {e}");
    }

    // 9. Token expiry, twice: revoked early by the service (a 401 on a call),
    // and run out by the clock (refreshed before the call).
    steps.next();
    emu.set_token_ttl(SHORT_TTL);
    emu.expire_tokens();
    println!(
        "   the emulator ends every token now and issues new ones for {} s only",
        SHORT_TTL.as_secs()
    );
    let (n0, mark) = (token_requests(), emu.requests().len());
    let orgs = organizations(&client)?;
    let n1 = token_requests();
    let log: Vec<_> = emu.requests().into_iter().skip(mark).collect();
    let saw_401 = log
        .iter()
        .any(|r| r.path == "/api/1/organizations" && r.status == 401);
    steps.check(n1 == n0 + 1 && saw_401, || {
        format!("expected a 401 and one new token, saw token requests {n0} -> {n1}")
    })?;
    println!(
        "   organizations call: OK ({} organizations); inside the client: 401, a new token, one retry \
         (token requests {n0} -> {n1})",
        orgs.len()
    );
    let wait_start = Instant::now();
    while client.cached_token().is_some() {
        if wait_start.elapsed() > SHORT_TTL * 2 {
            return Err(steps.fail("the short-lived token did not expire"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    println!(
        "   {:.1} s later the new token has run out",
        wait_start.elapsed().as_secs_f64()
    );
    let mark = emu.requests().len();
    let orgs = organizations(&client)?;
    let n2 = token_requests();
    let log: Vec<_> = emu.requests().into_iter().skip(mark).collect();
    let no_401 = !log.iter().any(|r| r.status == 401);
    steps.check(n2 == n1 + 1 && no_401, || {
        format!("expected one new token and no 401, saw token requests {n1} -> {n2}")
    })?;
    println!(
        "   organizations call: OK ({} organizations); the client fetched a new token first, \
         no 401 (token requests {n1} -> {n2})",
        orgs.len()
    );

    let delivered = emu
        .deliveries()
        .iter()
        .filter(|r| r.outcome == DeliveryOutcome::Delivered)
        .count();
    println!(
        "\nAll {} steps passed in {:.1} s: {} API requests served, {} webhook deliveries received.",
        STEPS.len(),
        started.elapsed().as_secs_f64(),
        emu.requests().len(),
        delivered
    );
    drop(receiver);
    Ok(())
}

/// An organization as the demo shows it: the base fields of whichever shape
/// the generated answer holds.
struct Org {
    id: String,
    name: Option<String>,
}

/// `organizations` through the generated operation.
fn organizations(client: &Client) -> Result<Vec<Org>, Failure> {
    let answer = client.api().organizations().get(&Default::default())?;
    Ok(answer
        .organizations
        .iter()
        .flatten()
        .map(|o| {
            let (id, name, _) = crate::api::base_fields(o);
            Org {
                id: id.unwrap_or_default().to_owned(),
                name: name.map(str::to_owned),
            }
        })
        .collect())
}
