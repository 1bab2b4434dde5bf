//! `--metrics ADDR` of `webhook serve` and `consume`: the SDK's metrics
//! (`iikocloud::telemetry::METRICS`) kept in memory and served at
//! `/metrics` in the Prometheus text format, with the names converted as
//! the OpenTelemetry Prometheus exporter does
//! (`iikocloud_http_server::prometheus`, which the emulator uses too).

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::Arc;

use iikocloud::telemetry::{
    set_metric_sink, Attr, Metric, MetricKind, MetricSink, DURATION_BUCKETS, METRICS,
};
use iikocloud_http_server::prometheus::{self, Desc, Kind, Registry};
use iikocloud_http_server::{Reply, Response, Server, ServerConfig};

use crate::exit::Failure;

struct Sink(Arc<Registry>);

impl MetricSink for Sink {
    fn record(&self, metric: &'static Metric, value: f64, attributes: &[Attr<'_>]) {
        self.0.record(metric.index, value, attributes);
    }
}

/// The core's table as the text format reads it.
fn table() -> Vec<Desc> {
    METRICS
        .iter()
        .map(|m| Desc {
            name: m.name,
            unit: m.unit,
            kind: match m.kind {
                MetricKind::Counter => Kind::Counter,
                MetricKind::Histogram => Kind::Histogram,
                MetricKind::Gauge => Kind::Gauge,
            },
            description: m.description,
            // The core's advised bounds for its durations; none for the rest.
            buckets: if m.unit == "s" {
                &DURATION_BUCKETS
            } else {
                &[]
            },
        })
        .collect()
}

/// Starts recording the SDK's metrics and serving them at
/// `http://ADDR/metrics`; the server and its URL.
pub fn start(addr: &str) -> Result<(Server, String), Failure> {
    let bind: SocketAddr = addr
        .to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| {
            Failure::usage(format!(
                "--metrics {addr:?}: not an address such as 127.0.0.1:9464"
            ))
        })?;
    let registry = Arc::new(Registry::new(table()));
    set_metric_sink(Sink(registry.clone()))
        .map_err(|e| Failure::usage(format!("--metrics: {e}")))?;
    let server = Server::start(
        ServerConfig::loopback("metrics").bind(bind),
        move |rq, _ctx| {
            if rq.path() != "/metrics" {
                return Reply::Respond(Response::empty(404));
            }
            Reply::Respond(Response::with_body(
                200,
                prometheus::CONTENT_TYPE,
                registry.render(),
            ))
        },
    )
    .map_err(|e| Failure::usage(format!("--metrics {addr}: {e}")))?;
    let url = format!("http://{}/metrics", server.addr());
    Ok((server, url))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_the_exporter_converts_them() {
        let names: Vec<String> = table().iter().map(prometheus::prometheus_name).collect();
        assert!(names.contains(&"http_client_request_duration_seconds".to_string()));
        assert!(names.contains(&"iiko_webhook_events_total".to_string()));
        assert!(names.contains(&"iiko_inbox_depth".to_string()));
        assert!(names.contains(&"iiko_inbox_oldest_age_seconds".to_string()));
    }
}
