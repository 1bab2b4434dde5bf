//! The figures cli/README.md states by hand (defaults, ranges, the statuses
//! the receivers answer) held to the core's values, so the README cannot
//! drift from the rule: the flags themselves read every value through the
//! core (`iikocloud::limits`), and `--help` shows the core's defaults.

use iikocloud::limits::{self, Limit};
use iikocloud::webhook::{
    status_for_parse, status_for_verify, ParseErrorKind, VerifyError, STATUS_ACCEPTED,
    STATUS_RETRY_LATER, STATUS_UNAUTHORIZED, STATUS_WRONG_METHOD,
};

fn readme() -> String {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    // One line: a phrase may be wrapped anywhere.
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn secs(limit: &Limit) -> u64 {
    limit.fixed_default().unwrap() / 1000
}

fn says(readme: &str, phrase: &str) {
    assert!(
        readme.contains(phrase),
        "cli/README.md should say {phrase:?}"
    );
}

#[test]
fn the_flags_defaults_and_ranges_are_the_cores() {
    let r = readme();
    let t = &limits::CLIENT_TIMEOUT;
    says(
        &r,
        &format!(
            "| `--timeout SECS` | | `{}` | `Timeout` header: how long the service waits for the \
             restaurant terminal ({} to {})",
            secs(t),
            t.min / 1000,
            t.max / 1000
        ),
    );
    says(
        &r,
        &format!(
            "`--wait-timeout SECS` (default {})",
            secs(&limits::WAIT_TIMEOUT)
        ),
    );
    says(
        &r,
        &format!(
            "`--max-attempts` ({})",
            limits::INBOX_MAX_ATTEMPTS.fixed_default().unwrap()
        ),
    );
    says(
        &r,
        &format!(
            "`--visibility-timeout` ({})",
            limits::INBOX_VISIBILITY_TIMEOUT.default_text()
        ),
    );
}

#[test]
fn the_receivers_statuses_are_the_cores() {
    let r = readme();
    for (status, when) in [
        (STATUS_ACCEPTED, "the events were verified and parsed"),
        (
            status_for_parse(ParseErrorKind::InvalidJson),
            "the request is authentic but its body is unreadable",
        ),
        (
            status_for_verify(VerifyError::Mismatch),
            "the `Authorization` header is wrong or missing",
        ),
        (STATUS_WRONG_METHOD, "the request is not a POST"),
    ] {
        says(&r, &format!("| `{status}` | {when}"));
    }
    says(
        &r,
        &format!(
            "answering as the SDK says: {STATUS_ACCEPTED} for events (and for unreadable bodies), \
             {STATUS_UNAUTHORIZED} for a wrong token"
        ),
    );
    says(
        &r,
        &format!("requests past N that arrive meanwhile get `{STATUS_RETRY_LATER}`"),
    );
    says(
        &r,
        &format!(
            "only then answers {STATUS_ACCEPTED}; {STATUS_UNAUTHORIZED} for a wrong token, \
             {STATUS_RETRY_LATER} when the inbox cannot be written"
        ),
    );
    assert!(iikocloud::inbox::RECEIVE_STATUSES.contains(&STATUS_RETRY_LATER));
}
