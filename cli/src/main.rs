//! `iikocloud`: the command-line tool of the iikoCloud SDK.
//!
//! Talks to the real service (`token`, `organizations`, `webhook get|set`,
//! `stop-lists`, `call`, every operation by name: `ops`, `schema`, `call NAME`), debugs webhooks (`webhook parse|verify|listen`), runs
//! the local emulator (`emulator`) and shows the whole SDK at work with no
//! credentials (`demo`). Exit codes are in [`exit::Exit`] and cli/README.md.

mod api;
mod args;
mod demo;
mod emulator;
mod exit;
mod hooks;
mod inbox_cmd;
mod logfmt;
mod metrics;
mod ops;
mod output;
mod progress;
#[cfg(windows)]
mod service;
mod stop;

use std::process::ExitCode;

use clap::Parser;

use args::{Cli, Command, WebhookCommand};
use exit::{Exit, Failure};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help and version to stdout with exit code 0 and usage
            // errors to stderr; only the code is mapped onto ours.
            let _ = e.print();
            return if e.use_stderr() {
                Exit::Usage.into()
            } else {
                Exit::Ok.into()
            };
        }
    };
    logfmt::set(cli.global.log_format);
    logfmt::init_logging(cli.global.verbose);
    let json = cli.global.json;
    match run(cli) {
        Ok(()) => Exit::Ok.into(),
        Err(failure) => {
            failure.print(json);
            failure.code.into()
        }
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    let g = &cli.global;
    match cli.command {
        Command::Token(a) => api::token(g, &a),
        Command::Organizations(a) => api::organizations(g, &a),
        Command::StopLists(a) => api::stop_lists(g, &a),
        Command::Call(a) => api::call(g, &a),
        Command::Ops(a) => ops::list(g, &a),
        Command::Schema(a) => ops::schema(g, &a),
        Command::Webhook { command } => match command {
            WebhookCommand::Get(a) => api::webhook_get(g, &a),
            WebhookCommand::Set(a) => api::webhook_set(g, &a),
            WebhookCommand::Parse(a) => hooks::parse(g, &a),
            WebhookCommand::Verify(a) => hooks::verify(g, &a),
            WebhookCommand::Listen(a) => hooks::listen(g, &a),
            WebhookCommand::Serve(a) => inbox_cmd::serve(g, &a),
            WebhookCommand::Consume(a) => inbox_cmd::consume(g, &a),
        },
        Command::Emulator(a) => emulator::run(g, &a),
        Command::Demo(a) => demo::run(g, &a),
    }
}
