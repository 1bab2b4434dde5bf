//! The command line: every command, flag and environment variable.
//!
//! Secrets are parsed straight into [`Secret`], whose `Debug` and `Display`
//! print `[redacted]`, and every argument read from the environment has
//! `hide_env_values`, so `--help` never shows a value taken from it.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use iikocloud::client::DEFAULT_BASE_URL;
use iikocloud::limits::{self, Given, Limit};
use iikocloud::Secret;

/// Command-line tool for the iikoCloud (iikoTransport) API.
#[derive(Parser, Debug)]
#[command(
    name = "iikocloud",
    version,
    about = "Command-line tool for the iikoCloud (iikoTransport) API",
    long_about = "Command-line tool for the iikoCloud (iikoTransport) API: tokens, organizations, \
                  webhook settings, stop lists and raw calls against the service; webhook \
                  debugging (parse, verify, listen); the local emulator; and a demo of the \
                  whole SDK that needs no credentials.\n\n\
                  Start with: iikocloud demo",
    after_help = "Exit codes: 0 ok, 1 API/network error or failed step, 2 usage or configuration, \
                  3 invalid input (malformed body or JSON), 4 webhook verification failed."
)]
pub struct Cli {
    /// Options of every command.
    #[command(flatten)]
    pub global: GlobalOpts,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Options accepted by every command, before or after its name.
#[derive(Args, Debug, Clone)]
pub struct GlobalOpts {
    /// Print machine-readable JSON on stdout (and errors as JSON on stderr).
    #[arg(long, global = true)]
    pub json: bool,
    /// Log to stderr: each HTTP request of the client (method, path, status,
    /// duration, correlationId; never bodies or secrets), and the emulator's
    /// requests and deliveries.
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// How log lines on stderr are written: text for a person, json for a
    /// log shipper (one object per line: time, level, target, message and
    /// the line's fields).
    #[arg(long, global = true, value_enum, default_value_t = crate::logfmt::LogFormat::Text, value_name = "FORMAT")]
    pub log_format: crate::logfmt::LogFormat,
}

/// The commands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Get an access token (checks the credentials; the token is printed only with --reveal).
    Token(TokenArgs),
    /// List the organizations the API key can see.
    Organizations(OrganizationsArgs),
    /// Show out-of-stock items (all organizations of the key unless --org is given).
    StopLists(StopListsArgs),
    /// Call an operation by name (checked before sending), or any endpoint by path.
    Call(CallArgs),
    /// List every operation of the official document: name, path, kind, restriction group.
    Ops(OpsArgs),
    /// Show the request shape of an operation (from the snapshot built in).
    Schema(SchemaArgs),
    /// Webhook settings and webhook debugging.
    Webhook {
        /// What to do with webhooks.
        #[command(subcommand)]
        command: WebhookCommand,
    },
    /// Run the local emulator of the service in the foreground (until Ctrl-C).
    Emulator(EmulatorArgs),
    /// Show the whole SDK working against an in-process emulator, with no credentials.
    Demo(DemoArgs),
}

/// The `webhook` commands.
#[derive(Subcommand, Debug)]
pub enum WebhookCommand {
    /// Show an organization's webhook settings (the auth token only with --reveal).
    Get(WebhookGetArgs),
    /// Point an organization's webhook at a URL, with an auth token.
    Set(WebhookSetArgs),
    /// Parse a webhook body from FILE (or stdin) and show its events.
    Parse(ParseArgs),
    /// Check an Authorization header value against the expected token (exit 0 or 4).
    Verify(VerifyArgs),
    /// Run a local receiver that verifies, parses and prints each delivery.
    Listen(ListenArgs),
    /// Production receiver: verify, de-duplicate, store in a durable inbox, then answer 200.
    Serve(ServeArgs),
    /// Take events from an inbox: print each as one JSON line (or run --exec), then acknowledge it.
    Consume(ConsumeArgs),
}

/// `webhook serve`.
#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    /// Address to listen on, HOST:PORT (port 0 picks a free one; the first stdout line says which).
    #[arg(long, value_name = "ADDR")]
    pub listen: String,
    /// The expected auth token (the one set with `webhook set`). Prefer the environment variable.
    #[arg(long, env = "IIKO_WEBHOOK_TOKEN", hide_env_values = true, value_name = "TOKEN", value_parser = secret, allow_hyphen_values = true)]
    pub auth_token: Secret,
    /// The inbox: sqlite:///path or redis://[:PASSWORD@]HOST:PORT/DB. The password is never printed.
    #[arg(long, env = "IIKO_INBOX", hide_env_values = true, value_name = "URL", value_parser = secret)]
    pub inbox: Secret,
    /// A store shared with receivers that write to other inboxes (sqlite:///path or redis://...), so a resend reaching any of them is stored once.
    #[arg(long, env = "IIKO_STORE", hide_env_values = true, value_name = "URL", value_parser = secret)]
    pub store: Option<Secret>,
    /// Largest body accepted, in bytes; an authentic larger one is answered as an unreadable body is and noted in the dead letters.
    #[arg(long, value_name = "BYTES", default_value_t = default_count(&limits::WEBHOOK_MAX_BODY_BYTES), value_parser = count(&limits::WEBHOOK_MAX_BODY_BYTES))]
    pub max_body_bytes: u64,
    /// How long a repeated event is recognised, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = default_secs(&limits::INBOX_DEDUP_TTL), value_parser = secs(&limits::INBOX_DEDUP_TTL))]
    pub dedup_ttl: f64,
    /// Serve the SDK's metrics at http://ADDR/metrics in the Prometheus text format (off by default).
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<String>,
    #[cfg(windows)]
    #[command(flatten)]
    pub service: ServiceOpts,
}

/// Running as a Windows service (`webhook serve`, `webhook consume`).
#[cfg(windows)]
#[derive(Args, Debug, Clone)]
pub struct ServiceOpts {
    /// Run as the Windows service NAME, started and stopped by the service control manager (install with sc.exe create; see cli/README.md).
    #[arg(long = "service", value_name = "NAME")]
    pub name: Option<String>,
    /// Where the service writes its log lines (it has no console). Default: %ProgramData%\iikocloud\NAME.log.
    #[arg(long, value_name = "FILE", requires = "name")]
    pub log_file: Option<PathBuf>,
}

/// `webhook consume`.
#[derive(Args, Debug, Clone)]
pub struct ConsumeArgs {
    /// The inbox: sqlite:///path or redis://[:PASSWORD@]HOST:PORT/DB.
    #[arg(long, env = "IIKO_INBOX", hide_env_values = true, value_name = "URL", value_parser = secret)]
    pub inbox: Secret,
    /// Exit when the inbox has nothing left to take (default: wait for more).
    #[arg(long)]
    pub drain: bool,
    /// Hand each event to this command on stdin (run by sh -c; on Windows by cmd /c); acknowledge on exit status 0.
    #[arg(long, value_name = "CMD")]
    pub exec: Option<String>,
    /// Seconds a taken event stays hidden from other consumers before it is handed out again.
    #[arg(long, value_name = "SECS", default_value_t = default_secs(&limits::INBOX_VISIBILITY_TIMEOUT), value_parser = secs(&limits::INBOX_VISIBILITY_TIMEOUT))]
    pub visibility_timeout: f64,
    /// Deliveries of one event before it goes to the dead letters.
    #[arg(long, value_name = "N", default_value_t = default_count(&limits::INBOX_MAX_ATTEMPTS), value_parser = count(&limits::INBOX_MAX_ATTEMPTS))]
    pub max_attempts: u64,
    /// Stop after N events.
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// Serve the SDK's metrics at http://ADDR/metrics in the Prometheus text format (off by default).
    #[arg(long, value_name = "ADDR")]
    pub metrics: Option<String>,
    #[cfg(windows)]
    #[command(flatten)]
    pub service: ServiceOpts,
}

/// Where the service is and who we are.
#[derive(Args, Debug, Clone)]
#[command(next_help_heading = "Connection (flags or environment; values are never printed)")]
pub struct ConnOpts {
    /// Service address (a region's API host, or the emulator's URL).
    #[arg(
        long,
        help = "Service address, e.g. https://api-eu.iiko.services or the emulator's URL",
        env = "IIKO_BASE_URL",
        hide_env_values = true,
        default_value = DEFAULT_BASE_URL,
        value_name = "URL"
    )]
    pub base_url: String,
    /// Application id (v2 credentials, with --client-secret and --api-key).
    #[arg(long, env = "IIKO_APP_ID", hide_env_values = true, value_name = "ID")]
    pub app_id: Option<String>,
    /// Application secret (v2). Prefer the environment variable: flags show in `ps`.
    #[arg(long, env = "IIKO_CLIENT_SECRET", hide_env_values = true, value_name = "SECRET", value_parser = secret, allow_hyphen_values = true)]
    pub client_secret: Option<Secret>,
    /// API key (v2). Prefer the environment variable: flags show in `ps`.
    #[arg(long, env = "IIKO_API_KEY", hide_env_values = true, value_name = "KEY", value_parser = secret, allow_hyphen_values = true)]
    pub api_key: Option<Secret>,
    /// Legacy apiLogin, used when no v2 credential is given.
    #[arg(long, env = "IIKO_API_LOGIN", hide_env_values = true, value_name = "LOGIN", value_parser = secret, allow_hyphen_values = true)]
    pub api_login: Option<Secret>,
    /// Timeout header in seconds: how long the service waits for the restaurant terminal.
    #[arg(long, value_name = "SECS", default_value_t = default_secs(&limits::CLIENT_TIMEOUT), value_parser = secs(&limits::CLIENT_TIMEOUT))]
    pub timeout: f64,
    /// Also trust the root certificates in this PEM file (a corporate or private CA), on top of the system store.
    #[arg(
        long,
        env = "IIKO_CA_FILE",
        hide_env_values = true,
        value_name = "FILE"
    )]
    pub ca_file: Option<PathBuf>,
    /// Roots that verify the service: the operating system's store (default; honours SSL_CERT_FILE and SSL_CERT_DIR) or only the bundled Mozilla roots.
    #[arg(long, env = "IIKO_TRUST", hide_env_values = true, value_name = "WHICH", default_value = "system", value_parser = ["system", "bundled"])]
    pub trust: String,
    /// Proxy, http://[USER:PASSWORD@]HOST:PORT (or https://); default: HTTPS_PROXY/ALL_PROXY/HTTP_PROXY. The password is never printed.
    #[arg(long, env = "IIKO_PROXY", hide_env_values = true, value_name = "URL", value_parser = secret)]
    pub proxy: Option<Secret>,
    /// Hosts reached without the proxy, comma-separated (host, .domain or *); replaces NO_PROXY.
    #[arg(
        long,
        env = "IIKO_NO_PROXY",
        hide_env_values = true,
        value_name = "HOSTS"
    )]
    pub no_proxy: Option<String>,
}

fn secret(s: &str) -> Result<Secret, String> {
    Ok(Secret::new(s))
}

/// `token`.
#[derive(Args, Debug)]
pub struct TokenArgs {
    /// Print the token itself (alone on stdout, for scripts); it is a credential, handle it so.
    #[arg(long)]
    pub reveal: bool,
    #[command(flatten)]
    pub conn: ConnOpts,
}

/// `organizations`.
#[derive(Args, Debug)]
pub struct OrganizationsArgs {
    /// Only this organization (UUID); repeat for several.
    #[arg(long = "id", value_name = "UUID")]
    pub ids: Vec<String>,
    /// Include disabled organizations.
    #[arg(long)]
    pub include_disabled: bool,
    /// Ask for the extended shape (country, address, currency, version...).
    #[arg(long)]
    pub extended: bool,
    #[command(flatten)]
    pub conn: ConnOpts,
}

/// `stop-lists`.
#[derive(Args, Debug)]
pub struct StopListsArgs {
    /// Organization (UUID); repeat for several. Default: every organization of the key.
    #[arg(long = "org", value_name = "UUID")]
    pub orgs: Vec<String>,
    /// Only this terminal group (UUID); repeat for several.
    #[arg(long = "terminal-group", value_name = "UUID")]
    pub terminal_groups: Vec<String>,
    /// Return the sizes of the dishes.
    #[arg(long)]
    pub sizes: bool,
    #[command(flatten)]
    pub conn: ConnOpts,
}

/// `call`.
#[derive(Args, Debug)]
pub struct CallArgs {
    /// An operation name (`deliveries.create`; see `iikocloud ops`): the request is
    /// checked against the document before sending and the operation's retry rule
    /// applies. Or an endpoint path (`/api/1/nomenclature`) for a raw call.
    #[arg(value_name = "NAME|PATH")]
    pub path: String,
    /// The request: JSON text, `@FILE` or a file's path, or `-` for stdin. Default: {}.
    #[arg(value_name = "REQUEST")]
    pub body: Option<String>,
    /// Wait for the command to end (operations that are commands only); a failed
    /// command exits 1 with the service's reason.
    #[arg(long)]
    pub wait: bool,
    /// With --wait: give up after this many seconds (the command may still finish).
    #[arg(long, value_name = "SECS", default_value_t = default_secs(&limits::WAIT_TIMEOUT), value_parser = secs(&limits::WAIT_TIMEOUT))]
    pub wait_timeout: f64,
    /// With an operation name: send keys of the request that are no field of the
    /// document as given (a field newer than this SDK). Without it such a key
    /// exits 3 naming its path and the nearest field, and nothing is sent.
    #[arg(long)]
    pub allow_unknown_fields: bool,
    /// The call is safe to repeat: retry it after a network error or a 5xx.
    #[arg(long)]
    pub idempotent: bool,
    /// Do not hide `token`/`authToken` fields of the answer.
    #[arg(long)]
    pub reveal: bool,
    #[command(flatten)]
    pub conn: ConnOpts,
}

/// `ops`.
#[derive(Args, Debug)]
pub struct OpsArgs {
    /// Only operations whose name or path contains this text.
    #[arg(value_name = "FILTER")]
    pub filter: Option<String>,
    /// Add what each operation is for, as a last column (`--json` always has it).
    #[arg(long, short = 'l')]
    pub long: bool,
}

/// `schema`.
#[derive(Args, Debug)]
pub struct SchemaArgs {
    /// The operation, e.g. deliveries.create.
    #[arg(value_name = "NAME")]
    pub name: String,
}

/// `webhook get`.
#[derive(Args, Debug)]
pub struct WebhookGetArgs {
    /// Organization (UUID).
    #[arg(long, value_name = "UUID")]
    pub org: String,
    /// Print the stored auth token too.
    #[arg(long)]
    pub reveal: bool,
    #[command(flatten)]
    pub conn: ConnOpts,
}

/// `webhook set`.
#[derive(Args, Debug)]
pub struct WebhookSetArgs {
    /// Organization (UUID).
    #[arg(long, value_name = "UUID")]
    pub org: String,
    /// Absolute http(s) URL of your receiver.
    #[arg(long, value_name = "URL")]
    pub url: String,
    /// Auth token the service sends back in the Authorization header; use a long random one.
    #[arg(long, env = "IIKO_WEBHOOK_TOKEN", hide_env_values = true, value_name = "TOKEN", value_parser = secret, allow_hyphen_values = true)]
    pub token: Option<Secret>,
    /// webHooksFilter as a JSON object, e.g. '{"deliveryOrderFilter":{"errors":true}}'. Default: none.
    #[arg(long, value_name = "JSON")]
    pub filter: Option<String>,
    #[command(flatten)]
    pub conn: ConnOpts,
}

/// `webhook parse`.
#[derive(Args, Debug)]
pub struct ParseArgs {
    /// File with the webhook body; stdin when absent or `-`.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Also exit 3 when any single event cannot be read.
    #[arg(long)]
    pub strict: bool,
}

/// `webhook verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The Authorization header value as received (e.g. "Bearer abc" or "abc").
    #[arg(long, value_name = "VALUE", value_parser = secret, allow_hyphen_values = true)]
    pub header: Secret,
    /// The expected auth token (the one set with `webhook set`).
    #[arg(long, env = "IIKO_WEBHOOK_TOKEN", hide_env_values = true, value_name = "TOKEN", value_parser = secret, allow_hyphen_values = true)]
    pub token: Secret,
}

/// `webhook listen`.
#[derive(Args, Debug)]
pub struct ListenArgs {
    /// Address to listen on (use 0.0.0.0 to accept requests from other machines).
    #[arg(long, default_value = "127.0.0.1", value_name = "HOST")]
    pub host: String,
    /// Port to listen on; 0 picks a free one (printed on the first line).
    #[arg(long, value_name = "PORT")]
    pub port: u16,
    /// The expected auth token (the one set with `webhook set`).
    #[arg(long, env = "IIKO_WEBHOOK_TOKEN", hide_env_values = true, value_name = "TOKEN", value_parser = secret, allow_hyphen_values = true)]
    pub token: Secret,
    /// Exit after answering N requests (default: run until Ctrl-C).
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
}

/// `emulator`: the options of the `iikocloud-emulator` binary (the
/// emulator crate's own, so both take the same flags).
#[derive(Args, Debug)]
pub struct EmulatorArgs {
    #[command(flatten)]
    pub serve: iikocloud_emulator::cli::ServeArgs,
}

/// `demo`.
#[derive(Args, Debug)]
pub struct DemoArgs {}

/// The default of a limit counted in milliseconds, in seconds (the core's;
/// `--help` shows it).
fn default_secs(limit: &Limit) -> f64 {
    limit.fixed_default().unwrap_or_default() as f64 / 1000.0
}

/// The default of a limit counted in bytes or things (the core's).
fn default_count(limit: &Limit) -> u64 {
    limit.fixed_default().unwrap_or_default()
}

/// A parser of seconds for a duration limit: the core reads the value (and
/// refuses it with its message), so no flag restates a range or a meaning of 0.
pub fn secs(limit: &'static Limit) -> impl Fn(&str) -> Result<f64, String> + Clone + Send + Sync {
    move |s: &str| {
        let v: f64 = s.trim().parse().map_err(|e| format!("{s:?}: {e}"))?;
        limit.read(Given::Seconds(v)).map_err(|e| e.to_string())?;
        Ok(v)
    }
}

/// A parser of a whole number for a size or count limit, read by the core.
pub fn count(limit: &'static Limit) -> impl Fn(&str) -> Result<u64, String> + Clone + Send + Sync {
    move |s: &str| {
        let v: i128 = s.trim().parse().map_err(|e| format!("{s:?}: {e}"))?;
        let read = limit.read(Given::Int(v)).map_err(|e| e.to_string())?;
        Ok(read.unwrap_or_default())
    }
}
