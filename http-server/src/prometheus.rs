//! Metrics kept in memory and written in the Prometheus text format, for
//! the servers that expose `/metrics`: the CLI's `webhook serve`/`consume`
//! (the SDK's metrics) and the emulator (its own traffic's). Names are
//! converted as the OpenTelemetry Prometheus exporter does: dots to
//! underscores, the unit as a suffix (`_seconds`; annotations such as
//! `{event}` dropped), `_total` after a counter's name; attribute names
//! likewise get underscores.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;

/// How a metric aggregates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A monotonic sum; each point is an increment.
    Counter,
    /// A distribution; each point is one measurement.
    Histogram,
    /// The current value; each point replaces the last.
    Gauge,
}

/// What the text format needs of a metric.
#[derive(Clone, Copy, Debug)]
pub struct Desc {
    /// The OpenTelemetry name (`iiko.webhook.events`).
    pub name: &'static str,
    /// The UCUM unit (`s`, `{event}`).
    pub unit: &'static str,
    /// How it aggregates.
    pub kind: Kind,
    /// The `# HELP` text.
    pub description: &'static str,
    /// A histogram's bucket upper bounds (empty for the other kinds).
    pub buckets: &'static [f64],
}

/// The exporter's name for a metric.
pub fn prometheus_name(desc: &Desc) -> String {
    let mut name = desc.name.replace('.', "_");
    match desc.unit {
        "s" => name.push_str("_seconds"),
        u if u.starts_with('{') || u.is_empty() => {}
        u => {
            name.push('_');
            name.push_str(u);
        }
    }
    if desc.kind == Kind::Counter {
        name.push_str("_total");
    }
    name
}

/// One series: a metric (its index in the table) and its label set.
type Key = (usize, Vec<(String, String)>);

enum Series {
    Value(f64),
    Histogram {
        /// Per bucket, not cumulative.
        buckets: Vec<u64>,
        sum: f64,
        count: u64,
    },
}

/// The series of a fixed table of metrics.
pub struct Registry {
    table: Vec<Desc>,
    series: Mutex<BTreeMap<Key, Series>>,
}

impl Registry {
    /// An empty registry of `table`'s metrics; a point names its metric by
    /// its index there.
    pub fn new(table: Vec<Desc>) -> Registry {
        Registry {
            table,
            series: Mutex::new(BTreeMap::new()),
        }
    }

    /// One point: an increment of a counter, a measurement of a histogram,
    /// the new value of a gauge. An index outside the table is ignored.
    pub fn record<K: AsRef<str>, V: ToString>(&self, index: usize, value: f64, labels: &[(K, V)]) {
        let Some(desc) = self.table.get(index) else {
            return;
        };
        let mut labels: Vec<(String, String)> = labels
            .iter()
            .map(|(k, v)| (k.as_ref().replace('.', "_"), v.to_string()))
            .collect();
        labels.sort();
        // A poisoned lock only means another recorder panicked; the map is
        // still consistent (each update is one statement).
        let mut series = self.series.lock().unwrap_or_else(|p| p.into_inner());
        let entry = series
            .entry((index, labels))
            .or_insert_with(|| match desc.kind {
                Kind::Counter | Kind::Gauge => Series::Value(0.0),
                Kind::Histogram => Series::Histogram {
                    buckets: vec![0; desc.buckets.len()],
                    sum: 0.0,
                    count: 0,
                },
            });
        match entry {
            Series::Value(v) if desc.kind == Kind::Counter => *v += value,
            Series::Value(v) => *v = value,
            Series::Histogram {
                buckets,
                sum,
                count,
            } => {
                if let Some(i) = desc.buckets.iter().position(|b| value <= *b) {
                    buckets[i] += 1;
                }
                *sum += value;
                *count += 1;
            }
        }
    }

    /// Forgets every series (the emulator's reset).
    pub fn clear(&self) {
        self.series
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }

    /// The text format of every metric of the table, with its series.
    pub fn render(&self) -> String {
        let series = self.series.lock().unwrap_or_else(|p| p.into_inner());
        let mut out = String::new();
        for (index, desc) in self.table.iter().enumerate() {
            let name = prometheus_name(desc);
            let kind = match desc.kind {
                Kind::Counter => "counter",
                Kind::Gauge => "gauge",
                Kind::Histogram => "histogram",
            };
            let _ = writeln!(out, "# HELP {name} {}", desc.description);
            let _ = writeln!(out, "# TYPE {name} {kind}");
            for ((i, pairs), s) in series.range((index, Vec::new())..) {
                if *i != index {
                    break;
                }
                match s {
                    Series::Value(v) => {
                        let _ = writeln!(out, "{name}{} {v}", labels(pairs, None));
                    }
                    Series::Histogram {
                        buckets,
                        sum,
                        count,
                    } => {
                        let mut cumulative = 0;
                        for (bound, n) in desc.buckets.iter().zip(buckets) {
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

/// The content type of [`Registry::render`]'s text.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

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

#[cfg(test)]
mod tests {
    use super::*;

    const EVENTS: Desc = Desc {
        name: "iiko.webhook.events",
        unit: "{event}",
        kind: Kind::Counter,
        description: "Events.",
        buckets: &[],
    };
    const LAG: Desc = Desc {
        name: "iiko.webhook.event.lag",
        unit: "s",
        kind: Kind::Histogram,
        description: "Lag.",
        buckets: &[0.1, 1.0],
    };

    #[test]
    fn names_as_the_exporter_converts_them() {
        assert_eq!(prometheus_name(&EVENTS), "iiko_webhook_events_total");
        assert_eq!(prometheus_name(&LAG), "iiko_webhook_event_lag_seconds");
    }

    #[test]
    fn renders_counters_and_cumulative_buckets() {
        let r = Registry::new(vec![EVENTS, LAG]);
        r.record(0, 1.0, &[("iiko.event.outcome", "new")]);
        r.record(0, 2.0, &[("iiko.event.outcome", "new")]);
        r.record(1, 0.05, &[] as &[(&str, &str)]);
        r.record(1, 5.0, &[] as &[(&str, &str)]);
        let text = r.render();
        assert!(
            text.contains("iiko_webhook_events_total{iiko_event_outcome=\"new\"} 3\n"),
            "{text}"
        );
        assert!(
            text.contains("iiko_webhook_event_lag_seconds_bucket{le=\"1\"} 1\n"),
            "{text}"
        );
        assert!(
            text.contains("iiko_webhook_event_lag_seconds_bucket{le=\"+Inf\"} 2\n"),
            "{text}"
        );
        assert!(
            text.contains("iiko_webhook_event_lag_seconds_count 2\n"),
            "{text}"
        );
    }
}
