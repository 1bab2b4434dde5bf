//! The figures the repository's documents state by hand (defaults, the
//! statuses a receiver answers) held to the core's values, so a document
//! cannot drift from the rule it describes. The bindings' own documents are
//! checked by their tests (bindings/c, bindings/python, bindings/php, cli).

use iikocloud::limits::{self, Limit};
use iikocloud::webhook::{
    status_for_parse, status_for_verify, ParseErrorKind, VerifyError, RECEIVE_STATUSES,
    STATUS_ACCEPTED, STATUS_BROKEN_REQUEST, STATUS_RECEIVER_FAULT, STATUS_RETRY_LATER,
    STATUS_UNAUTHORIZED, STATUS_WRONG_METHOD,
};

/// A document as one line: a phrase may be wrapped anywhere.
fn flat(path: &str) -> String {
    let text = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn says(doc: &str, name: &str, phrase: &str) {
    assert!(doc.contains(phrase), "{name} should say {phrase:?}");
}

fn text(limit: &Limit) -> String {
    limit.default_text()
}

#[test]
fn the_readmes_configuration_defaults_are_the_cores() {
    let r = flat("README.md");
    let row = |what: &str, default: String| {
        says(&r, "README.md", &format!("{what} | {default} |"));
    };
    row("then answers 408)", text(&limits::CLIENT_TIMEOUT));
    row(
        "client timeout (must be longer than `Timeout`)",
        text(&limits::CLIENT_CLIENT_TIMEOUT),
    );
    row(
        "retries of safe calls after a transport error or 5xx",
        format!(
            "{}, backoff from {} doubling with jitter",
            text(&limits::CLIENT_RETRIES),
            text(&limits::CLIENT_RETRY_BASE_DELAY)
        ),
    );
    row(
        "token refresh margin / lifetime without `exp`",
        format!(
            "{} (at most a tenth of the lifetime) / {}",
            text(&limits::CLIENT_REFRESH_MARGIN),
            text(&limits::CLIENT_FALLBACK_TOKEN_LIFETIME)
        ),
    );
    row(
        "largest response read",
        text(&limits::CLIENT_MAX_RESPONSE_BYTES),
    );
    row(
        "largest webhook body / nesting depth",
        format!(
            "{} / {}",
            text(&limits::WEBHOOK_MAX_BODY_BYTES),
            text(&limits::WEBHOOK_MAX_DEPTH)
        ),
    );
}

#[test]
fn the_receive_rule_is_stated_as_the_core_decides_it() {
    let rule = format!(
        "{STATUS_ACCEPTED} for events, {} for a failed check, {} when your expected token is \
         empty (a configuration error, so the service keeps the events), and {} for an \
         authentic body that cannot be read",
        status_for_verify(VerifyError::Mismatch),
        status_for_verify(VerifyError::EmptyExpectedToken),
        status_for_parse(ParseErrorKind::InvalidJson),
    );
    says(&flat("README.md"), "README.md", &rule);
    let module = format!(
        "`{STATUS_ACCEPTED}` for events, `{}` for a failed verification, `{}` if your expected \
         token is empty, and `{}` also for an authentic body that cannot be read",
        status_for_verify(VerifyError::MalformedHeader),
        status_for_verify(VerifyError::EmptyExpectedToken),
        status_for_parse(ParseErrorKind::TooLarge),
    );
    says(
        &flat("src/webhook/mod.rs").replace("//! ", ""),
        "src/webhook/mod.rs",
        &module,
    );
    assert_eq!(
        RECEIVE_STATUSES,
        [STATUS_ACCEPTED, STATUS_UNAUTHORIZED, STATUS_RECEIVER_FAULT]
    );
}

#[test]
fn the_inbox_guide_states_the_cores_statuses() {
    let d = flat("docs/inbox.md");
    let name = "docs/inbox.md";
    says(
        &d,
        name,
        &format!("| {STATUS_ACCEPTED} | the events are stored"),
    );
    says(
        &d,
        name,
        &format!(
            "| {} | the token does not match",
            status_for_verify(VerifyError::Mismatch)
        ),
    );
    says(
        &d,
        name,
        &format!("| {STATUS_RETRY_LATER} | the inbox or store could not be written"),
    );
    says(
        &d,
        name,
        &format!(
            "| {STATUS_WRONG_METHOD} / {STATUS_BROKEN_REQUEST} | not a `POST` / the body broke off"
        ),
    );
    says(
        &d,
        name,
        &format!(
            "`--max-body-bytes` (default {}, the parser's limit)",
            text(&limits::WEBHOOK_MAX_BODY_BYTES)
        ),
    );
    assert!(iikocloud::inbox::RECEIVE_STATUSES.contains(&STATUS_RETRY_LATER));
}
