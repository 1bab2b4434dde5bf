//! The client against the emulator, over real HTTP on loopback.

use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use iikocloud::api::models::deliveries::common::DeliveryStatus;
use iikocloud::api::models::integration::web_hooks_filters::{
    DeliveryOrderWebHooksFilter, WebHooksFilter,
};
use iikocloud::api::models::organizations::{
    GetOrganizationsRequest, GetOrganizationsResponse, OrganizationInfo,
};
use iikocloud::api::models::stop_lists::StopListsRequest;
use iikocloud::api::models::web_hooks::{GetWebHookSettingsRequest, UpdateWebHookSettingsRequest};
use iikocloud::{
    ApiErrorKind, CallOptions, Client, ClientBuilder, Error, ManualClock, Money, TransportErrorKind,
};
use iikocloud_emulator::{
    Emulator, EmulatorConfig, Fault, FaultKind, DEFAULT_API_KEY, DEFAULT_APP_ID,
    DEFAULT_CLIENT_SECRET, EMPTY_API_KEY,
};
use serde_json::json;

const V2_TOKEN: &str = "/api/v2/access_token";
const ORGS: &str = "/api/1/organizations";

fn builder(emu: &Emulator) -> ClientBuilder {
    Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, DEFAULT_API_KEY)
        .retry_base_delay(Duration::from_millis(10))
}

fn client(emu: &Emulator) -> Client {
    builder(emu).build().unwrap()
}

fn first_org(client: &Client) -> String {
    org_ids(&client.organizations(&Default::default()).unwrap())[0].clone()
}

/// The ids of an answer's organizations, in either shape.
fn org_ids(answer: &GetOrganizationsResponse) -> Vec<String> {
    answer
        .organizations
        .iter()
        .flatten()
        .filter_map(|o| match o {
            OrganizationInfo::Simple(o) => o.id.clone(),
            OrganizationInfo::Extended(o) => o.id.clone(),
            OrganizationInfo::Unknown(_) => None,
        })
        .collect()
}

fn settings_of(organization_id: &str) -> GetWebHookSettingsRequest {
    GetWebHookSettingsRequest {
        organization_id: Some(organization_id.into()),
        ..Default::default()
    }
}

fn api_error(e: Error) -> iikocloud::ApiError {
    match e {
        Error::Api(a) => *a,
        other => panic!("expected an API error, got {other:?}"),
    }
}

#[test]
fn token_is_fetched_lazily_and_reused() {
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu);
    assert_eq!(
        emu.request_count(V2_TOKEN),
        0,
        "building a client makes no request"
    );
    assert!(client.cached_token().is_none());
    for _ in 0..3 {
        client.organizations(&Default::default()).unwrap();
    }
    assert_eq!(emu.request_count(V2_TOKEN), 1);
    assert_eq!(emu.request_count(ORGS), 3);
    let token = client.cached_token().expect("a cached token");
    assert_eq!(
        token.expose().split('.').count(),
        3,
        "emulator tokens are JWT-shaped"
    );
    assert!(!format!("{token:?}").contains(token.expose()));
    // Clones share the cache.
    client.clone().organizations(&Default::default()).unwrap();
    assert_eq!(emu.request_count(V2_TOKEN), 1);
}

#[test]
fn legacy_api_login_uses_the_v1_token_endpoint() {
    let emu = Emulator::start_default().unwrap();
    let client = Client::builder()
        .base_url(emu.url())
        .api_login(DEFAULT_API_KEY)
        .build()
        .unwrap();
    let orgs = client.organizations(&Default::default()).unwrap();
    assert!(!org_ids(&orgs).is_empty());
    assert_eq!(emu.request_count("/api/1/access_token"), 1);
    assert_eq!(emu.request_count(V2_TOKEN), 0);
}

#[test]
fn every_request_carries_timeout_header_and_user_agent() {
    let emu = Emulator::start_default().unwrap();
    let client = builder(&emu)
        .timeout(Duration::from_secs(7))
        .build()
        .unwrap();
    client.organizations(&Default::default()).unwrap();
    client
        .with_timeout(Duration::from_millis(2500))
        .unwrap()
        .organizations(&Default::default())
        .unwrap();
    let log = emu.requests();
    let orgs: Vec<_> = log.iter().filter(|r| r.path == ORGS).collect();
    assert_eq!(orgs[0].timeout_header.as_deref(), Some("7"));
    assert_eq!(
        orgs[1].timeout_header.as_deref(),
        Some("3"),
        "rounded up to whole seconds"
    );
    for r in &log {
        let ua = r.user_agent.as_deref().unwrap_or_default();
        assert!(ua.starts_with("iikocloud/"), "{ua}");
    }
}

#[test]
fn token_is_refreshed_before_expiry_with_an_injected_clock() {
    let emu = Emulator::start_default().unwrap();
    let clock = Arc::new(ManualClock::new());
    let client = builder(&emu).clock(clock.clone()).build().unwrap();
    client.access_token().unwrap();
    clock.advance(Duration::from_secs(3600 - 120));
    client.organizations(&Default::default()).unwrap();
    assert_eq!(
        emu.request_count(V2_TOKEN),
        1,
        "still fresh two minutes before expiry"
    );
    clock.advance(Duration::from_secs(70));
    client.organizations(&Default::default()).unwrap();
    assert_eq!(
        emu.request_count(V2_TOKEN),
        2,
        "refreshed within the last minute"
    );
}

#[test]
fn short_lived_tokens_expire_and_are_replaced_without_errors() {
    let emu = Emulator::start(EmulatorConfig::default().token_ttl(Duration::from_secs(2))).unwrap();
    let client = client(&emu);
    let first = client.access_token().unwrap();
    client.organizations(&Default::default()).unwrap();
    std::thread::sleep(Duration::from_millis(2600));
    client.organizations(&Default::default()).unwrap();
    let second = client.access_token().unwrap();
    assert_ne!(first.expose(), second.expose());
    assert_eq!(emu.request_count(V2_TOKEN), 2);
    assert!(
        emu.requests().iter().all(|r| r.status != 401),
        "the client refreshed before the server refused the old token"
    );
}

#[test]
fn sixteen_threads_on_a_cold_client_make_one_token_request() {
    let emu = Emulator::start_default().unwrap();
    // Slow the token answer so every thread arrives while it is in flight.
    emu.inject(Fault::new(
        V2_TOKEN,
        FaultKind::Delay(Duration::from_millis(300)),
        1,
    ));
    let client = client(&emu);
    let barrier = Arc::new(Barrier::new(16));
    let threads: Vec<_> = (0..16)
        .map(|_| {
            let (client, barrier) = (client.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                client.organizations(&Default::default()).map(|_| ())
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap().unwrap();
    }
    assert_eq!(emu.request_count(V2_TOKEN), 1);
    assert_eq!(emu.request_count(ORGS), 16);
}

#[test]
fn failed_token_request_is_shared_by_the_waiters() {
    let emu = Emulator::start_default().unwrap();
    emu.inject(Fault::new(
        V2_TOKEN,
        FaultKind::Delay(Duration::from_millis(300)),
        1,
    ));
    let client = Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, "wrong-secret", DEFAULT_API_KEY)
        .build()
        .unwrap();
    let barrier = Arc::new(Barrier::new(8));
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (client, barrier) = (client.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                client.organizations(&Default::default())
            })
        })
        .collect();
    for t in threads {
        let e = api_error(t.join().unwrap().unwrap_err());
        assert_eq!(e.kind, ApiErrorKind::Unauthorized);
    }
    assert_eq!(emu.request_count(V2_TOKEN), 1);
    assert_eq!(emu.request_count(ORGS), 0);
}

#[test]
fn wrong_credentials_are_an_authentication_error_with_correlation_id() {
    let emu = Emulator::start_default().unwrap();
    let client = Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, "no-such-key")
        .build()
        .unwrap();
    let err = client.access_token().unwrap_err();
    let msg = err.to_string();
    let e = api_error(err);
    assert_eq!((e.status, e.kind), (401, ApiErrorKind::Unauthorized));
    assert!(e.correlation_id.is_some());
    assert!(e.error_description.is_some());
    assert!(
        msg.contains("apiKey"),
        "the message says what to check: {msg}"
    );
    assert!(!msg.contains("no-such-key") && !msg.contains(DEFAULT_CLIENT_SECRET));
    assert_eq!(
        emu.request_count(V2_TOKEN),
        1,
        "a 401 from the token endpoint is not retried"
    );
}

#[test]
fn a_revoked_token_is_replaced_once_and_the_call_retried() {
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu);
    let before = client.access_token().unwrap();
    emu.expire_tokens();
    let orgs = client.organizations(&Default::default()).unwrap();
    assert!(!org_ids(&orgs).is_empty());
    assert_ne!(client.access_token().unwrap().expose(), before.expose());
    assert_eq!(emu.request_count(V2_TOKEN), 2);
    let statuses: Vec<u16> = emu
        .requests()
        .iter()
        .filter(|r| r.path == ORGS)
        .map(|r| r.status)
        .collect();
    assert_eq!(statuses, vec![401, 200]);
}

#[test]
fn a_second_401_is_an_authentication_error() {
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu);
    emu.inject(Fault::new(ORGS, FaultKind::Unauthorized, 5));
    let e = api_error(client.organizations(&Default::default()).unwrap_err());
    assert_eq!(e.kind, ApiErrorKind::Unauthorized);
    assert!(e.correlation_id.is_some());
    assert_eq!(emu.request_count(ORGS), 2, "one retry, not a loop");
    assert_eq!(emu.request_count(V2_TOKEN), 2);
}

#[test]
fn each_error_status_maps_to_its_class_with_correlation_id() {
    let emu = Emulator::start_default().unwrap();
    let client = builder(&emu).retries(0).build().unwrap();
    client.access_token().unwrap();
    for (status, kind) in [
        (400, ApiErrorKind::BadRequest),
        (403, ApiErrorKind::Forbidden),
        (404, ApiErrorKind::NotFound),
        (408, ApiErrorKind::TerminalTimeout),
        (500, ApiErrorKind::Server),
        (502, ApiErrorKind::Server),
        (503, ApiErrorKind::Server),
    ] {
        emu.inject(Fault::new(ORGS, FaultKind::Status(status), 1));
        let err = client.organizations(&Default::default()).unwrap_err();
        assert_eq!(err.http_status(), Some(status));
        let cid = err.correlation_id().map(str::to_owned);
        let e = api_error(err);
        assert_eq!(e.kind, kind, "status {status}");
        assert!(cid.is_some(), "status {status} keeps its correlationId");
        assert!(!e.body.is_empty());
    }
}

#[test]
fn rate_limit_is_surfaced_with_retry_after_and_never_retried() {
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu);
    client.access_token().unwrap();
    emu.inject(Fault::new(
        ORGS,
        FaultKind::RateLimited {
            retry_after_secs: 7,
        },
        3,
    ));
    let e = api_error(client.organizations(&Default::default()).unwrap_err());
    assert_eq!(e.kind, ApiErrorKind::RateLimited);
    assert_eq!(e.retry_after, Some(Duration::from_secs(7)));
    assert!(e.to_string().contains("retry after 7 s"));
    assert_eq!(emu.request_count(ORGS), 1);
}

#[test]
fn server_errors_are_retried_a_bounded_number_of_times_for_safe_calls() {
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu);
    client.access_token().unwrap();
    emu.inject(Fault::new(ORGS, FaultKind::Status(503), 2));
    client.organizations(&Default::default()).unwrap();
    assert_eq!(emu.request_count(ORGS), 3, "two 503s, then success");

    emu.clear_requests();
    emu.inject(Fault::new(ORGS, FaultKind::Status(500), 10));
    let e = api_error(client.organizations(&Default::default()).unwrap_err());
    assert_eq!(e.kind, ApiErrorKind::Server);
    assert_eq!(emu.request_count(ORGS), 3, "1 + 2 retries by default");
    emu.clear_faults();
}

#[test]
fn raw_call_retries_only_when_marked_safe() {
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu);
    client.access_token().unwrap();
    emu.inject(Fault::new(ORGS, FaultKind::Status(503), 1));
    let e = client
        .call(ORGS, &json!({}), &CallOptions::default())
        .unwrap_err();
    assert!(e.is_api(ApiErrorKind::Server));
    assert_eq!(emu.request_count(ORGS), 1);

    emu.inject(Fault::new(ORGS, FaultKind::Status(503), 1));
    let v = client
        .call(ORGS, &json!({}), &CallOptions::default().idempotent())
        .unwrap();
    assert!(v["organizations"].is_array());
    assert_eq!(emu.request_count(ORGS), 3);
}

#[test]
fn raw_call_reaches_any_endpoint_with_the_same_errors() {
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu);
    let org = first_org(&client);
    let v = client
        .call(
            "/api/1/stop_lists",
            &json!({ "organizationIds": [org] }),
            &CallOptions::default(),
        )
        .unwrap();
    assert!(v["correlationId"].is_string());
    let e = api_error(
        client
            .call(
                "/api/1/no_such_endpoint",
                &json!({}),
                &CallOptions::default(),
            )
            .unwrap_err(),
    );
    assert_eq!(e.kind, ApiErrorKind::NotFound);
    assert!(e.correlation_id.is_some());
    // Checked before sending: no request made.
    let before = emu.requests().len();
    assert!(matches!(
        client.call("api/1/x", &json!({}), &CallOptions::default()),
        Err(Error::InvalidInput(_))
    ));
    assert!(matches!(
        client.call(ORGS, &json!([1]), &CallOptions::default()),
        Err(Error::InvalidInput(_))
    ));
    assert_eq!(emu.requests().len(), before);
}

#[test]
fn the_service_rejects_a_bad_request_with_400() {
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu);
    // A well-formed UUID of an organization the key cannot see.
    let req = UpdateWebHookSettingsRequest {
        organization_id: Some("00000000-0000-4000-8000-000000000000".into()),
        web_hooks_uri: Some("https://pos.example.com/hook".into()),
        auth_token: Some("token".into()),
        ..Default::default()
    };
    let e = api_error(client.update_webhook_settings(&req).unwrap_err());
    assert_eq!(e.kind, ApiErrorKind::BadRequest);
    assert!(e.error_description.is_some() && e.correlation_id.is_some());
    // Bodies the SDK cannot produce, sent raw to the emulator, also get 400.
    let agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .new_agent();
    let token = client.access_token().unwrap();
    let url = format!("{}{}", emu.url(), ORGS);
    let auth = format!("Bearer {}", token.expose());
    let r = agent
        .post(&url)
        .header("Authorization", &auth)
        .header("Content-Type", "application/json")
        .send("{not json")
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let r = agent
        .post(&url)
        .header("Authorization", &auth)
        .header("Content-Type", "text/plain")
        .send("{}")
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
    let r = agent
        .post(&url)
        .header("Authorization", "Basic abc")
        .header("Content-Type", "application/json")
        .send("{}")
        .unwrap();
    assert_eq!(r.status().as_u16(), 400);
}

#[test]
fn invalid_input_is_refused_before_any_request() {
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu);
    let check = |r: iikocloud::Result<()>, needle: &str| match r {
        Err(Error::InvalidInput(m)) => assert!(m.contains(needle), "{m}"),
        other => panic!("expected invalid input, got {other:?}"),
    };
    check(
        client
            .webhook_settings(&settings_of("not-a-uuid"))
            .map(|_| ()),
        "organizationId",
    );
    let mut req = UpdateWebHookSettingsRequest {
        organization_id: Some("0ae7e972-848d-53c5-8a8f-3a120fa115ba".into()),
        web_hooks_uri: Some("/relative/hook".into()),
        auth_token: Some("t".into()),
        ..Default::default()
    };
    check(
        client.update_webhook_settings(&req).map(|_| ()),
        "webHooksUri",
    );
    req.web_hooks_uri = Some("https://pos.example.com/hook".into());
    req.auth_token = Some("  ".into());
    check(
        client.update_webhook_settings(&req).map(|_| ()),
        "authToken",
    );
    check(
        client.stop_lists(&StopListsRequest::default()).map(|_| ()),
        "organizationIds: is required",
    );
    check(
        client
            .stop_lists(&StopListsRequest {
                organization_ids: Some(vec![]),
                ..Default::default()
            })
            .map(|_| ()),
        "organizationIds",
    );
    check(
        client
            .stop_lists(&StopListsRequest {
                organization_ids: Some(vec!["x".into()]),
                ..Default::default()
            })
            .map(|_| ()),
        "UUID",
    );
    let req = GetOrganizationsRequest {
        organization_ids: Some(vec!["1".into()]),
        ..Default::default()
    };
    check(client.organizations(&req).map(|_| ()), "organizationIds");
    assert!(client.with_timeout(Duration::ZERO).is_err());
    assert_eq!(emu.requests().len(), 0);
}

#[test]
fn a_slow_answer_ends_in_a_timeout_error_within_the_bound() {
    let emu = Emulator::start_default().unwrap();
    let client = builder(&emu)
        .timeout(Duration::from_secs(1))
        .client_timeout(Duration::from_millis(1500))
        .retries(0)
        .build()
        .unwrap();
    client.access_token().unwrap();
    emu.inject(Fault::new(
        ORGS,
        FaultKind::Delay(Duration::from_secs(5)),
        1,
    ));
    let started = Instant::now();
    let err = client.organizations(&Default::default()).unwrap_err();
    let took = started.elapsed();
    assert!(err.is_timeout(), "{err:?}");
    assert!(
        took >= Duration::from_millis(1400) && took < Duration::from_millis(3000),
        "{took:?}"
    );
}

#[test]
fn connection_resets_are_transport_errors_and_retried_for_safe_calls() {
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu);
    client.access_token().unwrap();
    emu.inject(Fault::new(ORGS, FaultKind::ConnectionReset, 1));
    client.organizations(&Default::default()).unwrap();
    emu.inject(Fault::new(ORGS, FaultKind::ConnectionReset, 10));
    match client.organizations(&Default::default()).unwrap_err() {
        Error::Transport { kind, .. } => assert_eq!(kind, TransportErrorKind::Io),
        other => panic!("{other:?}"),
    }
    emu.clear_faults();
}

#[test]
fn connection_refused_is_a_connect_error() {
    let client = Client::builder()
        .base_url("http://127.0.0.1:9")
        .api_login("x")
        .retries(1)
        .retry_base_delay(Duration::from_millis(1))
        .build()
        .unwrap();
    match client.access_token().unwrap_err() {
        e @ Error::Transport { .. } => {
            assert!(
                matches!(
                    e,
                    Error::Transport {
                        kind: TransportErrorKind::Connect,
                        ..
                    }
                ),
                "{e:?}"
            );
            assert!(e.to_string().contains("check the base URL"), "{e}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unknown_host_is_a_dns_error() {
    let client = Client::builder()
        .base_url("http://no-such-host.invalid")
        .api_login("x")
        .retries(0)
        .build()
        .unwrap();
    let e = client.access_token().unwrap_err();
    assert!(
        matches!(
            e,
            Error::Transport {
                kind: TransportErrorKind::Dns,
                ..
            }
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("could not resolve the host"), "{e}");
}

#[test]
fn malformed_or_mistyped_success_bodies_are_decode_errors() {
    let emu = Emulator::start_default().unwrap();
    let client = builder(&emu).retries(0).build().unwrap();
    client.access_token().unwrap();
    emu.inject(Fault::new(ORGS, FaultKind::MalformedBody, 1));
    match client.organizations(&Default::default()).unwrap_err() {
        Error::Decode { status, body, .. } => {
            assert_eq!(status, 200);
            assert!(!body.is_empty());
        }
        other => panic!("{other:?}"),
    }
    emu.inject(Fault::new(ORGS, FaultKind::WrongContentType, 1));
    match client.organizations(&Default::default()) {
        // A JSON body behind a wrong Content-Type is still read; anything else
        // is a decode error that names the content type.
        Ok(_) => {}
        Err(Error::Decode { message, .. }) => {
            assert!(message.contains("Content-Type"), "{message}")
        }
        Err(other) => panic!("{other:?}"),
    }
}

#[test]
fn a_success_without_content_reads_as_null_typed_raw_and_as_text() {
    // The document gives deliveries/update_tracking_link's 200 no content,
    // and the emulator sends none.
    use iikocloud::api::models::deliveries::request::UpdateTrackingLinkRequest;
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu);
    let org = iikocloud_emulator::DEFAULT_ORGANIZATION_ID;
    let order = "7a0e1d2c-3b4a-4c5d-8e6f-708192a3b4c5";
    let typed = client
        .api()
        .deliveries()
        .update_tracking_link(&UpdateTrackingLinkRequest {
            organization_id: Some(org.into()),
            order_id: Some(order.into()),
            tracking_link: Some("https://track.example/1".into()),
            ..Default::default()
        })
        .expect("no body is an answer");
    assert_eq!(typed, serde_json::Value::Null);
    let body = json!({"organizationId": org, "orderId": order});
    let path = "/api/1/deliveries/update_tracking_link";
    let raw = client.call(path, &body, &CallOptions::default()).unwrap();
    assert_eq!(raw, serde_json::Value::Null);
    let text = client
        .call_text(path, &body.to_string(), &CallOptions::default())
        .unwrap();
    assert_eq!(text, "null", "bindings parse the text: it must be JSON");
    // An answer that must hold fields still fails without a body.
    let e = client
        .call_as::<GetOrganizationsResponse>(path, &body, &CallOptions::default())
        .unwrap_err();
    assert!(matches!(e, Error::Decode { status: 200, .. }), "{e:?}");
}

#[test]
fn organizations_simple_extended_empty_and_lenient() {
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu);
    let simple = client.organizations(&Default::default()).unwrap();
    assert!(simple.correlation_id.is_some());
    let simple_list = simple.organizations.as_deref().unwrap_or_default();
    assert!(simple_list.len() >= 2);
    assert!(simple_list
        .iter()
        .all(|o| matches!(o, OrganizationInfo::Simple(o) if o.id.as_ref().is_some_and(|id| !id.is_empty()))));

    let extended = client
        .organizations(&GetOrganizationsRequest {
            return_additional_info: Some(true),
            include_disabled: Some(true),
            ..Default::default()
        })
        .unwrap();
    let extended: Vec<_> = extended
        .organizations
        .unwrap_or_default()
        .into_iter()
        .map(|o| match o {
            OrganizationInfo::Extended(o) => o,
            other => panic!("not the Extended shape: {other:?}"),
        })
        .collect();
    assert!(extended.len() > simple_list.len(), "disabled ones included");
    let unknown_enum = extended
        .iter()
        .filter_map(|o| o.delivery_service_type.as_ref())
        .any(|t| !t.is_known());
    assert!(
        unknown_enum,
        "an unknown deliveryServiceType is kept, not an error"
    );
    assert!(
        extended.iter().any(|o| !o.extra.is_empty()),
        "unknown fields are kept in extra"
    );

    let only = client
        .organizations(&GetOrganizationsRequest {
            organization_ids: Some(vec![org_ids(&simple)[0].clone()]),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(org_ids(&only).len(), 1);

    let empty = Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, DEFAULT_CLIENT_SECRET, EMPTY_API_KEY)
        .build()
        .unwrap()
        .organizations(&Default::default())
        .unwrap();
    assert!(org_ids(&empty).is_empty());
}

#[test]
fn webhook_settings_round_trip_with_a_typed_filter() {
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu);
    let org = first_org(&client);
    let before = client.webhook_settings(&settings_of(&org)).unwrap();
    assert!(before.correlation_id.is_some());
    let mut req = UpdateWebHookSettingsRequest {
        organization_id: Some(org.clone()),
        web_hooks_uri: Some("https://pos.example.com/iiko".into()),
        auth_token: Some("s3cret-token".into()),
        ..Default::default()
    };
    req.web_hooks_filter = Some(WebHooksFilter {
        delivery_order_filter: Some(DeliveryOrderWebHooksFilter {
            order_statuses: Some(vec![DeliveryStatus::Unconfirmed, DeliveryStatus::Cancelled]),
            errors: Some(true),
            ..Default::default()
        }),
        ..Default::default()
    });
    let answer = client.update_webhook_settings(&req).unwrap();
    assert!(answer.correlation_id.is_some());
    let after = client.webhook_settings(&settings_of(&org)).unwrap();
    assert_eq!(
        after.web_hooks_uri.as_deref(),
        Some("https://pos.example.com/iiko")
    );
    assert_eq!(
        after.auth_token.as_ref().map(|t| t.expose()),
        Some("s3cret-token")
    );
    assert!(!format!("{after:?}").contains("s3cret-token"));
    let filter = after
        .web_hooks_filter
        .unwrap()
        .delivery_order_filter
        .unwrap();
    assert_eq!(
        filter.order_statuses.unwrap(),
        vec![DeliveryStatus::Unconfirmed, DeliveryStatus::Cancelled]
    );
}

#[test]
fn stop_lists_nest_and_keep_exact_balances() {
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu);
    let orgs = org_ids(&client.organizations(&Default::default()).unwrap());
    let lists = client
        .stop_lists(&StopListsRequest {
            organization_ids: Some(orgs.clone()),
            ..Default::default()
        })
        .unwrap();
    assert!(lists.correlation_id.is_some());
    let groups: Vec<_> = lists
        .terminal_group_stop_lists
        .iter()
        .flatten()
        .flat_map(|o| o.items.iter().flatten())
        .collect();
    let items: Vec<_> = groups
        .iter()
        .flat_map(|g| g.items.iter().flatten())
        .collect();
    assert!(!items.is_empty());
    let balances: Vec<Money> = items.iter().filter_map(|i| i.balance).collect();
    assert!(
        balances.iter().any(|b| b.to_string().contains('.')),
        "fixture has fractional balances, read exactly: {balances:?}"
    );
    for b in &balances {
        assert!(b.to_string().len() < 12, "no binary float noise: {b}");
    }
    let group = groups[0].terminal_group_id.clone().unwrap();
    let filtered = client
        .stop_lists(&StopListsRequest {
            organization_ids: Some(orgs),
            terminal_groups_ids: Some(vec![group.clone()]),
            ..Default::default()
        })
        .unwrap();
    for org in filtered.terminal_group_stop_lists.iter().flatten() {
        for g in org.items.iter().flatten() {
            assert_eq!(g.terminal_group_id.as_deref(), Some(group.as_str()));
        }
    }
}

#[test]
fn raw_text_answers_keep_the_status_they_came_with() {
    let emu = Emulator::start_default().unwrap();
    let client = client(&emu);
    let org = first_org(&client);
    let create = json!({
        "organizationId": org,
        "store": "3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f",
        "date": "2025-09-16",
        "items": [],
        "itemsFirstStep": [],
    });
    let created = client
        .call_text_answer(
            "/api/inventory/v1/incoming_inventory/create",
            &create.to_string(),
            &CallOptions::default(),
        )
        .unwrap();
    assert_eq!(created.status, 201, "{}", created.text);
    let answer: serde_json::Value = serde_json::from_str(&created.text).unwrap();
    assert!(answer["documentId"].is_string(), "{answer}");
    let read = client
        .call_text_answer(ORGS, "{}", &CallOptions::default())
        .unwrap();
    assert_eq!(read.status, 200);
    assert!(read.text.contains(&org), "{}", read.text);
    // An answer may carry a token: Debug shows its size only.
    let debug = format!("{read:?}");
    assert!(
        debug.contains("status: 200") && !debug.contains(&org),
        "{debug}"
    );
}
