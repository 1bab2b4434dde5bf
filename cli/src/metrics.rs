//! `--metrics ADDR` of `webhook serve` and `consume`: the SDK's metrics
//! (`iikocloud::telemetry::METRICS`) kept in memory and served at
//! `/metrics` in the Prometheus text format, with the names converted as
//! the OpenTelemetry Prometheus exporter does: dots to underscores, the
//! unit as a suffix (`_seconds`; annotations such as `{event}` dropped),
//! `_total` after a counter's name.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::{Arc, Mutex};

use iikocloud::telemetry::{
    set_metric_sink, Attr, Metric, MetricKind, MetricSink, DURATION_BUCKETS, METRICS,
};
use iikocloud_http_server::{Reply, Response, Server, ServerConfig};

use crate::exit::Failure;

/// One series: a metric and its label set.
type Key = (usize, Vec<(String, String)>);

enum Series {
    Sum(f64),
    Gauge(f64),
    Histogram {
        /// Per bucket of `DURATION_BUCKETS` (or none for other units), not cumulative.
        buckets: Vec<u64>,
        sum: f64,
        count: u64,
    },
}

#[derive(Default)]
struct Registry {
    series: Mutex<BTreeMap<Key, Series>>,
}

struct Sink(Arc<Registry>);

impl MetricSink for Sink {
    fn record(&self, metric: &'static Metric, value: f64, attributes: &[Attr<'_>]) {
        let mut labels: Vec<(String, String)> = attributes
            .iter()
            .map(|(k, v)| (k.replace('.', "_"), v.to_string()))
            .collect();
        labels.sort();
        let bounds = bounds(metric);
        // A poisoned lock only means another recorder panicked; the map is
        // still consistent (each update is one statement).
        let mut series = self.0.series.lock().unwrap_or_else(|p| p.into_inner());
        let entry = series
            .entry((metric.index, labels))
            .or_insert_with(|| match metric.kind {
                MetricKind::Counter => Series::Sum(0.0),
                MetricKind::Gauge => Series::Gauge(0.0),
                MetricKind::Histogram => Series::Histogram {
                    buckets: vec![0; bounds.len()],
                    sum: 0.0,
                    count: 0,
                },
            });
        match entry {
            Series::Sum(s) => *s += value,
            Series::Gauge(g) => *g = value,
            Series::Histogram {
                buckets,
                sum,
                count,
            } => {
                if let Some(i) = bounds.iter().position(|b| value <= *b) {
                    buckets[i] += 1;
                }
                *sum += value;
                *count += 1;
            }
        }
    }
}

fn bounds(metric: &Metric) -> &'static [f64] {
    if metric.unit == "s" {
        &DURATION_BUCKETS
    } else {
        &[]
    }
}

/// The exporter's name for a metric.
pub fn prometheus_name(metric: &Metric) -> String {
    let mut name = metric.name.replace('.', "_");
    match metric.unit {
        "s" => name.push_str("_seconds"),
        u if u.starts_with('{') || u.is_empty() => {}
        u => {
            name.push('_');
            name.push_str(u);
        }
    }
    if metric.kind == MetricKind::Counter {
        name.push_str("_total");
    }
    name
}

fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn labels(pairs: &[(String, String)], extra: Option<(&str, String)>) -> String {
    let mut all: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{k}=\"{}\"", escape(v)))
        .collect();
    if let Some((k, v)) = extra {
        all.push(format!("{k}=\"{v}\""));
    }
    if all.is_empty() {
        String::new()
    } else {
        format!("{{{}}}", all.join(","))
    }
}

impl Registry {
    fn render(&self) -> String {
        let series = self.series.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = String::new();
        for metric in METRICS {
            let name = prometheus_name(metric);
            let kind = match metric.kind {
                MetricKind::Counter => "counter",
                MetricKind::Gauge => "gauge",
                MetricKind::Histogram => "histogram",
            };
            let _ = writeln!(out, "# HELP {name} {}", metric.description);
            let _ = writeln!(out, "# TYPE {name} {kind}");
            for ((index, pairs), s) in series.iter() {
                if *index != metric.index {
                    continue;
                }
                match s {
                    Series::Sum(v) | Series::Gauge(v) => {
                        let _ = writeln!(out, "{name}{} {v}", labels(pairs, None));
                    }
                    Series::Histogram {
                        buckets,
                        sum,
                        count,
                    } => {
                        let mut cumulative = 0;
                        for (bound, n) in bounds(metric).iter().zip(buckets) {
                            cumulative += n;
                            let le = Some(("le", bound.to_string()));
                            let _ =
                                writeln!(out, "{name}_bucket{} {cumulative}", labels(pairs, le));
                        }
                        let inf = Some(("le", "+Inf".to_string()));
                        let _ = writeln!(out, "{name}_bucket{} {count}", labels(pairs, inf));
                        let _ = writeln!(out, "{name}_sum{} {sum}", labels(pairs, None));
                        let _ = writeln!(out, "{name}_count{} {count}", labels(pairs, None));
                    }
                }
            }
        }
        out
    }
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
    let registry = Arc::new(Registry::default());
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
                "text/plain; version=0.0.4; charset=utf-8",
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
        let names: Vec<String> = METRICS.iter().map(|m| prometheus_name(m)).collect();
        assert!(names.contains(&"http_client_request_duration_seconds".to_string()));
        assert!(names.contains(&"iiko_webhook_events_total".to_string()));
        assert!(names.contains(&"iiko_inbox_depth".to_string()));
        assert!(names.contains(&"iiko_inbox_oldest_age_seconds".to_string()));
    }
}
