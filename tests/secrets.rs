//! No secret in any log line, `Debug` or `Display` string, or error message.
//!
//! The emulator runs with distinctive known secrets (every one contains
//! `S3KR1T`); a `log` logger captures every record of the process at trace
//! level (the client's and the emulator's); each scenario drives a client
//! path (success, every error class, token refresh, the 401 retry, webhook
//! verification failures) and records the `Debug` and `Display` text of
//! everything a program could print, as a CLI would. Every test then scans
//! all captured text for the secrets, for every access token the clients
//! held, and for `eyJ`, the start of any base64url JSON object, hence of
//! every JWT.
//!
//! The telemetry is captured the same way: a `tracing` layer writes every
//! span's attributes (as created and as recorded later) and every span
//! event, and a metric sink writes every metric point with its attributes,
//! into the same lines the scan reads.

use std::fmt::{Debug, Display, Write as _};
use std::sync::{Mutex, Once};
use std::time::Duration;

use iikocloud::api::models::stop_lists::StopListsRequest;
use iikocloud::api::models::web_hooks::{GetWebHookSettingsRequest, UpdateWebHookSettingsRequest};
use iikocloud::telemetry::{set_metric_sink, Attr, Metric, MetricSink};
use iikocloud::webhook::{parse_body, receive, ParseOptions, Receiver, Verifier};
use iikocloud::{CallOptions, Client, ClientBuilder, Credentials, Error};
use iikocloud_emulator::{
    Emulator, EmulatorConfig, Fault, FaultKind, Fixtures, DEFAULT_APP_ID, DEFAULT_FIXTURES_JSON,
    DEFAULT_ORGANIZATION_ID,
};
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};

const MARKER: &str = "S3KR1T";
const CLIENT_SECRET: &str = "cs-S3KR1T-0b8d4c17";
const API_KEY: &str = "ak-S3KR1T-91e2aa03";
const LEGACY_LOGIN: &str = "al-S3KR1T-5c6d7e8f";
const WEBHOOK_TOKEN: &str = "wh-S3KR1T-aa11bb22";
const WRONG_SECRET: &str = "ws-S3KR1T-deadbeef";
const TOKEN: &str = "/api/v2/access_token";
const ORGS: &str = "/api/1/organizations";

/// Every log record of the process, formatted.
static LOG_LINES: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// Every access token a client of these tests held.
static TOKENS: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Capture;

impl log::Log for Capture {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }

    fn log(&self, record: &log::Record<'_>) {
        let line = format!(
            "{} {} {}:{} {}",
            record.level(),
            record.target(),
            record.file().unwrap_or("-"),
            record.line().unwrap_or(0),
            record.args()
        );
        LOG_LINES.lock().unwrap().push(line);
    }

    fn flush(&self) {}
}

static CAPTURE: Capture = Capture;

/// A span's or an event's fields, written out.
struct Fields(String);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        let _ = write!(self.0, " {}={value:?}", field.name());
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        let _ = write!(self.0, " {}={value}", field.name());
    }
}

/// Every span and span event of the SDK, as lines of the log.
struct Spans;

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Spans {
    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        _: &tracing::span::Id,
        _: Context<'_, S>,
    ) {
        let mut f = Fields(format!("SPAN {}", attrs.metadata().name()));
        attrs.record(&mut f);
        LOG_LINES.lock().unwrap().push(f.0);
    }

    fn on_record(
        &self,
        _: &tracing::span::Id,
        values: &tracing::span::Record<'_>,
        _: Context<'_, S>,
    ) {
        let mut f = Fields("SPAN RECORD".to_owned());
        values.record(&mut f);
        LOG_LINES.lock().unwrap().push(f.0);
    }

    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        let mut f = Fields(format!("SPAN EVENT {}", event.metadata().name()));
        event.record(&mut f);
        LOG_LINES.lock().unwrap().push(f.0);
    }
}

/// Every metric point, as a line of the log.
struct Points;

impl MetricSink for Points {
    fn record(&self, metric: &'static Metric, value: f64, attributes: &[Attr<'_>]) {
        let line = format!("METRIC {} {value} {attributes:?}", metric.name);
        LOG_LINES.lock().unwrap().push(line);
    }
}

fn init_logging() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        log::set_logger(&CAPTURE).expect("the only logger of this test binary");
        log::set_max_level(log::LevelFilter::Trace);
        tracing::subscriber::set_global_default(tracing_subscriber::registry().with(Spans))
            .expect("the only subscriber of this test binary");
        set_metric_sink(Points).expect("the only metric sink of this test binary");
    });
}

/// The texts one scenario produced (besides the log).
#[derive(Default)]
struct Seen(Vec<String>);

impl Seen {
    /// Records what `{:?}`, `{:#?}` and `{}` print.
    fn both(&mut self, v: &(impl Debug + Display)) {
        self.0.push(format!("{v:?}"));
        self.0.push(format!("{v:#?}"));
        self.0.push(v.to_string());
    }

    fn debug(&mut self, v: &impl Debug) {
        self.0.push(format!("{v:?}"));
        self.0.push(format!("{v:#?}"));
    }

    /// An error: Display, Debug and its whole source chain.
    fn error(&mut self, e: &Error) {
        self.both(e);
        let mut source = std::error::Error::source(e);
        while let Some(s) = source {
            self.0.push(format!("{s} / {s:?}"));
            source = s.source();
        }
    }

    /// The outcome of a call: the answer's Debug or the error's texts.
    fn outcome<T: Debug>(&mut self, r: &Result<T, Error>) {
        match r {
            Ok(v) => self.debug(v),
            Err(e) => self.error(e),
        }
    }
}

/// Remembers the client's current token as one that must not be printed.
fn keep_token(client: &Client) {
    if let Some(t) = client.cached_token() {
        TOKENS.lock().unwrap().push(t.expose().to_owned());
    }
}

/// What in `text` gives a secret away.
fn leaks(text: &str, tokens: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    if text.contains(MARKER) {
        found.push(format!("the marker {MARKER}"));
    }
    if text.contains("eyJ") {
        found.push("a JWT-like eyJ".into());
    }
    for t in tokens {
        // The signature alone is enough to be worried about.
        let signature = t.rsplit('.').next().unwrap_or(t);
        if text.contains(t.as_str()) || (signature.len() >= 16 && text.contains(signature)) {
            found.push("an access token".into());
        }
    }
    found
}

/// The hex dumps of raw HTTP traffic that ureq-proto logs at TRACE (target
/// `ureq_proto::util`). They hold every credential by nature; they are left
/// out of the other scans and checked alone by
/// `http_stack_trace_dumps_do_not_carry_secrets`, which fails today.
fn is_wire_dump(line: &str) -> bool {
    line.starts_with("TRACE ureq_proto::util ")
}

/// Fails if this scenario's texts or any log line so far (but the wire dumps)
/// leak a secret.
fn assert_clean(seen: &Seen) {
    let tokens = TOKENS.lock().unwrap().clone();
    let lines: Vec<String> = LOG_LINES
        .lock()
        .unwrap()
        .iter()
        .filter(|l| !is_wire_dump(l))
        .cloned()
        .collect();
    for text in lines.iter().chain(&seen.0) {
        let found = leaks(text, &tokens);
        assert!(found.is_empty(), "{found:?} in: {text}");
    }
}

/// The emulator's fixtures with the known secrets, plus a legacy login.
fn fixtures() -> Fixtures {
    let mut v: serde_json::Value = serde_json::from_str(DEFAULT_FIXTURES_JSON).unwrap();
    v["apps"][0]["clientSecret"] = json!(CLIENT_SECRET);
    let mut legacy = v["apiKeys"][0].clone();
    v["apiKeys"][0]["apiKey"] = json!(API_KEY);
    legacy["apiKey"] = json!(LEGACY_LOGIN);
    legacy["name"] = json!("legacy-login-name");
    v["apiKeys"].as_array_mut().unwrap().push(legacy);
    Fixtures::from_json(&v.to_string()).unwrap()
}

fn emulator() -> Emulator {
    init_logging();
    Emulator::start(EmulatorConfig::default().fixtures(fixtures())).unwrap()
}

fn builder(emu: &Emulator) -> ClientBuilder {
    Client::builder()
        .base_url(emu.url())
        .v2(DEFAULT_APP_ID, CLIENT_SECRET, API_KEY)
        .retry_base_delay(Duration::from_millis(5))
}

#[test]
fn the_scanner_finds_each_kind_of_leak() {
    let tokens = vec!["eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXNpZ25hdHVyZQ".to_owned()];
    assert!(leaks("nothing here", &tokens).is_empty());
    assert!(!leaks(&format!("x {CLIENT_SECRET} y"), &tokens).is_empty());
    assert!(!leaks("Bearer eyJhbGciOiJub25lIn0.x", &[]).is_empty());
    assert!(!leaks("sig c2lnbmF0dXJlLXNpZ25hdHVyZQ end", &tokens).is_empty());
}

#[test]
fn success_paths_and_what_a_cli_prints() {
    let emu = emulator();
    let mut seen = Seen::default();
    let b = builder(&emu);
    seen.debug(&b);
    let client = b.build().unwrap();
    seen.debug(&client);
    seen.debug(&Credentials::v2(DEFAULT_APP_ID, CLIENT_SECRET, API_KEY));
    seen.debug(&Credentials::api_login(LEGACY_LOGIN));

    let token = client.access_token().unwrap();
    keep_token(&client);
    seen.debug(&token);
    seen.debug(token.secret());
    seen.0.push(token.secret().to_string());
    seen.outcome(&client.organizations(&Default::default()));
    seen.outcome(&client.stop_lists(&StopListsRequest {
        organization_ids: Some(vec![DEFAULT_ORGANIZATION_ID.into()]),
        ..Default::default()
    }));
    let request = UpdateWebHookSettingsRequest {
        organization_id: Some(DEFAULT_ORGANIZATION_ID.into()),
        web_hooks_uri: Some("https://pos.example.com/hook".into()),
        auth_token: Some(WEBHOOK_TOKEN.into()),
        ..Default::default()
    };
    seen.debug(&request);
    seen.outcome(&client.update_webhook_settings(&request));
    let settings = client
        .webhook_settings(&GetWebHookSettingsRequest {
            organization_id: Some(DEFAULT_ORGANIZATION_ID.into()),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(
        settings.auth_token.as_ref().map(|t| t.expose()),
        Some(WEBHOOK_TOKEN),
        "the settings really carry the secret being looked for"
    );
    seen.debug(&settings);
    seen.outcome(
        &client
            .call(
                "/api/1/webhooks/settings",
                &json!({ "organizationId": DEFAULT_ORGANIZATION_ID }),
                &CallOptions::default(),
            )
            .map(|_| "raw answer not printed: it holds authToken by design"),
    );

    let legacy = Client::builder()
        .base_url(emu.url())
        .api_login(LEGACY_LOGIN)
        .build()
        .unwrap();
    seen.debug(&legacy);
    seen.outcome(&legacy.organizations(&Default::default()));
    keep_token(&legacy);
    assert_clean(&seen);
    let lines = LOG_LINES.lock().unwrap().clone();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("POST /api/v2/access_token -> 200")),
        "the client's debug lines are captured: {lines:?}"
    );
    assert!(lines
        .iter()
        .any(|l| l.contains("POST /api/1/access_token -> 200")));
}

#[test]
fn every_error_class() {
    let emu = emulator();
    let mut seen = Seen::default();
    // Refused credentials, each field wrong in turn.
    for (secret, key) in [(WRONG_SECRET, API_KEY), (CLIENT_SECRET, WRONG_SECRET)] {
        let c = Client::builder()
            .base_url(emu.url())
            .v2(DEFAULT_APP_ID, secret, key)
            .build()
            .unwrap();
        seen.debug(&c);
        let r = c.access_token();
        assert!(r.is_err());
        seen.outcome(&r);
    }
    let c = Client::builder()
        .base_url(emu.url())
        .api_login(WRONG_SECRET)
        .build()
        .unwrap();
    seen.outcome(&c.organizations(&Default::default()));
    // Configuration errors name the field, not its value.
    for b in [
        Client::builder().v2("", CLIENT_SECRET, API_KEY),
        Client::builder()
            .v2(DEFAULT_APP_ID, CLIENT_SECRET, API_KEY)
            .base_url("ftp://pos.example.com"),
        Client::builder()
            .v2(DEFAULT_APP_ID, CLIENT_SECRET, API_KEY)
            .timeout(Duration::from_millis(1)),
    ] {
        seen.debug(&b);
        seen.outcome(&b.build().map(|_| ()));
    }

    // Every injected fault, on the call and on the token endpoint.
    let client = builder(&emu)
        .timeout(Duration::from_secs(1))
        .client_timeout(Duration::from_millis(1200))
        .build()
        .unwrap();
    let kinds = [
        FaultKind::Status(500),
        FaultKind::Status(503),
        FaultKind::RateLimited {
            retry_after_secs: 3,
        },
        FaultKind::ConnectionReset,
        FaultKind::MalformedBody,
        FaultKind::WrongContentType,
        FaultKind::Unauthorized,
        FaultKind::Delay(Duration::from_millis(1600)),
    ];
    for path in [ORGS, TOKEN] {
        for kind in &kinds {
            if path == TOKEN {
                emu.expire_tokens();
            }
            emu.inject(Fault::new(path, kind.clone(), 3));
            let r = client.organizations(&Default::default());
            seen.outcome(&r);
            keep_token(&client);
            emu.clear_faults();
        }
    }
    // Bad input is refused before sending; an authToken that cannot be a
    // header value is refused without quoting it.
    let mut bad = UpdateWebHookSettingsRequest {
        organization_id: Some(DEFAULT_ORGANIZATION_ID.into()),
        web_hooks_uri: Some("https://pos.example.com/hook".into()),
        auth_token: Some(format!("{WEBHOOK_TOKEN}\u{7}").into()),
        ..Default::default()
    };
    seen.debug(&bad);
    seen.outcome(&client.update_webhook_settings(&bad));
    bad.auth_token = Some(format!(" {WEBHOOK_TOKEN}\n").into());
    seen.outcome(&client.update_webhook_settings(&bad));
    assert_clean(&seen);
}

#[test]
fn token_refresh_the_401_retry_and_the_shared_token_file() {
    let emu = emulator();
    let mut seen = Seen::default();
    let dir = std::env::temp_dir().join(format!("iikocloud-secrets-{}", std::process::id()));
    let client = builder(&emu).token_cache_dir(&dir).build().unwrap();
    seen.debug(&client);
    seen.outcome(&client.organizations(&Default::default()));
    keep_token(&client);
    // Revoked under the client's feet: one 401, one new token, one retry.
    emu.expire_tokens();
    seen.outcome(&client.organizations(&Default::default()));
    keep_token(&client);
    // A second client sharing the file; then a token refused twice.
    let other = builder(&emu).token_cache_dir(&dir).build().unwrap();
    seen.outcome(&other.organizations(&Default::default()));
    keep_token(&other);
    emu.inject(Fault::new(ORGS, FaultKind::Unauthorized, 2));
    seen.outcome(&other.organizations(&Default::default()));
    keep_token(&other);
    // Short-lived tokens renewed on time.
    emu.set_token_ttl(Duration::from_secs(1));
    for _ in 0..3 {
        seen.outcome(&client.organizations(&Default::default()));
        keep_token(&client);
        std::thread::sleep(Duration::from_millis(600));
    }
    // An unreadable token file is reported, not printed.
    if let Some(path) = client.token_cache_file() {
        std::fs::write(path, format!("garbage {API_KEY}")).unwrap();
        emu.expire_tokens();
        seen.outcome(&client.organizations(&Default::default()));
        keep_token(&client);
    }
    let _ = std::fs::remove_dir_all(&dir);
    let lines = LOG_LINES.lock().unwrap().clone();
    assert!(
        lines
            .iter()
            .any(|l| l.contains("401, refreshing the token once")),
        "the 401 path ran and logged"
    );
    // The telemetry of that path was captured, so the scan below covers it.
    for want in [
        "SPAN RECORD otel.name=organizations",
        "SPAN RECORD otel.name=access_token",
        "METRIC iiko.client.retries",
    ] {
        assert!(lines.iter().any(|l| l.starts_with(want)), "no {want} line");
    }
    assert!(
        lines.iter().any(|l| l.contains("token_refused")),
        "no retry cause"
    );
    assert_clean(&seen);
}

#[test]
fn webhook_verification_failures() {
    init_logging();
    let mut seen = Seen::default();
    let verifier = Verifier::new(WEBHOOK_TOKEN);
    let receiver = Receiver::new(WEBHOOK_TOKEN);
    seen.debug(&verifier);
    seen.debug(&receiver);
    let body = br#"[{"eventType":"PersonalShift","eventInfo":{"opened":true}}]"#;
    let near = format!("{WEBHOOK_TOKEN}x");
    let control = format!("Bearer {WEBHOOK_TOKEN}\r\n");
    let spaced = format!(" {WEBHOOK_TOKEN}");
    let wrong = format!("Bearer {WRONG_SECRET}");
    for header in [
        Some(wrong.as_str()),
        Some(near.as_str()),
        Some(control.as_str()),
        Some(spaced.as_str()),
        Some("Bearer"),
        None,
    ] {
        let r = verifier.verify(header.map(str::as_bytes));
        if let Err(e) = &r {
            seen.both(e);
        }
        let headers: Vec<(&str, &str)> = header.map(|h| ("Authorization", h)).into_iter().collect();
        match receiver.receive(headers, body) {
            Ok(p) => seen.debug(&p),
            Err(e) => seen.both(&e),
        }
    }
    let twice = [
        ("authorization", WEBHOOK_TOKEN),
        ("Authorization", WRONG_SECRET),
    ];
    if let Err(e) = receive(twice, body, WEBHOOK_TOKEN, &ParseOptions::new()) {
        seen.both(&e);
    }
    // Bodies that hold a secret-looking value: errors never quote the body.
    for bad in [
        format!("[{{\"authToken\":\"{WEBHOOK_TOKEN}\""),
        format!("\"{WEBHOOK_TOKEN}\""),
        format!("{{\"authToken\":\"{WEBHOOK_TOKEN}\"}} trailing"),
    ] {
        match parse_body(bad.as_bytes()) {
            Ok(p) => seen.debug(&p.len()),
            Err(e) => seen.both(&e),
        }
    }
    assert!(!seen.0.is_empty());
    let lines = LOG_LINES.lock().unwrap().clone();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("METRIC iiko.webhook.requests")),
        "no webhook request counted"
    );
    assert_clean(&seen);
}

// ---- answers only a raw socket can give ---------------------------------

/// A loopback server for answers the emulator cannot give: the token
/// endpoint gets `token_answer`, any other path gets `answer` (both raw HTTP).
/// Bounded: 8 connections or 10 s.
fn stub(token_answer: String, answer: String) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    listener.set_nonblocking(true).unwrap();
    std::thread::spawn(move || {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let mut served = 0;
        while std::time::Instant::now() < deadline && served < 8 {
            let Ok((mut s, _)) = listener.accept() else {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            };
            served += 1;
            s.set_nonblocking(false).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
            // One request per connection ("Connection: close" answers); the
            // request head and body arrive well within one read on loopback
            // for these small bodies, but read until the head is complete.
            let mut buf = Vec::new();
            let mut chunk = [0u8; 8192];
            while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
                match s.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
            let head = String::from_utf8_lossy(&buf);
            let reply = if head.starts_with(&format!("POST {TOKEN} ")) {
                token_answer.clone()
            } else {
                answer.clone()
            };
            let _ = s.write_all(reply.as_bytes());
        }
    });
    url
}

fn json_200(body: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

#[test]
fn a_token_answer_that_fails_to_decode_does_not_print_the_token() {
    init_logging();
    let token = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.S3KR1T-signature-0123456789";
    // Well-formed up to the token, then cut off.
    let cut = format!(
        "{{\"token\":\"{token}\",\"correlationId\":\"00000000-0000-4000-8000-0000000000aa\""
    );
    let url = stub(json_200(&cut), String::new());
    let client = Client::builder()
        .base_url(url)
        .v2(DEFAULT_APP_ID, CLIENT_SECRET, API_KEY)
        .retries(0)
        .build()
        .unwrap();
    let err = client.access_token().unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err:?}");
    let mut seen = Seen::default();
    seen.error(&err);
    TOKENS.lock().unwrap().push(token.to_owned());
    assert_clean(&seen);
}

#[test]
fn a_settings_answer_that_fails_to_decode_does_not_print_the_auth_token() {
    init_logging();
    // The token is fine; the settings answer stops after authToken.
    let settings = format!(
        "{{\"correlationId\":\"c\",\"apiLoginName\":\"n\",\"webHooksUri\":\"https://x/h\",\
         \"authToken\":\"{WEBHOOK_TOKEN}\",\"webHooksFilter\":"
    );
    let url = stub(
        json_200(r#"{"correlationId":"c","token":"plain-stub-token"}"#),
        json_200(&settings),
    );
    let stub = Client::builder()
        .base_url(url)
        .v2(DEFAULT_APP_ID, CLIENT_SECRET, API_KEY)
        .retries(0)
        .build()
        .unwrap();
    let err = stub
        .webhook_settings(&GetWebHookSettingsRequest {
            organization_id: Some(DEFAULT_ORGANIZATION_ID.into()),
            ..Default::default()
        })
        .unwrap_err();
    let mut seen = Seen::default();
    seen.error(&err);
    assert_clean(&seen);
}

#[test]
#[ignore = "not fixable inside the SDK: ureq-proto (the HTTP stack) logs a hex dump of every \
            request and response at TRACE (target ureq_proto::util) through the shared log facade, \
            with no switch to turn it off; the README tells Rust users to keep the ureq targets at \
            DEBUG or above (the Python, C and PHP bindings never forward them)"]
fn http_stack_trace_dumps_do_not_carry_secrets() {
    let emu = emulator();
    let client = builder(&emu).build().unwrap();
    client.access_token().unwrap();
    keep_token(&client);
    let tokens = TOKENS.lock().unwrap().clone();
    let dumps: Vec<String> = LOG_LINES
        .lock()
        .unwrap()
        .iter()
        .filter(|l| is_wire_dump(l))
        .cloned()
        .collect();
    assert!(
        !dumps.is_empty(),
        "trace logging of the HTTP stack was captured"
    );
    for line in &dumps {
        let found = leaks(line, &tokens);
        assert!(found.is_empty(), "{found:?} in: {line}");
    }
}
