//! `GET /metrics`: counters and histograms in the Prometheus text exposition format (0.0.4),
//! written by hand — a handful of series does not need a metrics framework.
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Latency bucket bounds in seconds (100 µs to 10 s; 15 and 20 ms so that the p99 target of
/// an acknowledgement, 20 ms, is a bucket bound).
const LATENCY: [f64; 17] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.015, 0.02, 0.025, 0.05, 0.1, 0.25, 0.5,
    1.0, 2.5, 10.0,
];
/// Events per fsync (group commit).
const BATCH: [f64; 10] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 1024.0];

/// A cumulative histogram with fixed buckets.
#[derive(Debug)]
pub struct Histogram {
    bounds: &'static [f64],
    counts: Vec<AtomicU64>,
    count: AtomicU64,
    /// Sum of the observations, in millionths of the unit.
    sum_micro: AtomicU64,
}

impl Histogram {
    fn new(bounds: &'static [f64]) -> Self {
        Histogram {
            bounds,
            counts: bounds.iter().map(|_| AtomicU64::new(0)).collect(),
            count: AtomicU64::new(0),
            sum_micro: AtomicU64::new(0),
        }
    }

    /// Records one observation.
    pub fn observe(&self, v: f64) {
        if let Some(i) = self.bounds.iter().position(|b| v <= *b) {
            self.counts[i].fetch_add(1, Ordering::Relaxed);
        }
        self.count.fetch_add(1, Ordering::Relaxed);
        self.sum_micro
            .fetch_add((v * 1e6) as u64, Ordering::Relaxed);
    }

    fn write(&self, out: &mut String, name: &str, labels: &str) {
        let sep = if labels.is_empty() { "" } else { "," };
        let mut acc = 0;
        for (b, c) in self.bounds.iter().zip(&self.counts) {
            acc += c.load(Ordering::Relaxed);
            let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"{b}\"}} {acc}");
        }
        let n = self.count.load(Ordering::Relaxed);
        let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {n}");
        let sum = self.sum_micro.load(Ordering::Relaxed) as f64 / 1e6;
        let braces = |s: &str| {
            if s.is_empty() {
                String::new()
            } else {
                format!("{{{s}}}")
            }
        };
        let _ = writeln!(out, "{name}_sum{} {sum}", braces(labels));
        let _ = writeln!(out, "{name}_count{} {n}", braces(labels));
    }
}

/// Per-cluster figures read when `/metrics` is rendered.
#[derive(Debug, Default)]
pub struct ClusterCounters {
    /// Events acknowledged.
    pub events: AtomicU64,
    /// Decisions handed out with them.
    pub decisions: AtomicU64,
    /// Bytes of write-ahead log on disk (every segment).
    pub wal_bytes: AtomicU64,
}

/// Every series of the service.
#[derive(Debug)]
pub struct Metrics {
    requests: Mutex<BTreeMap<String, Histogram>>,
    /// fsync latency of a WAL batch.
    pub fsync: Histogram,
    /// Events per fsync.
    pub batch: Histogram,
    /// fsyncs or writes that failed (full disk, I/O error).
    pub write_errors: AtomicU64,
    /// Clusters recovered from disk at start.
    pub recoveries: AtomicU64,
    /// Torn or damaged WAL tails cut at recovery.
    pub tails_cut: AtomicU64,
    /// Snapshots written.
    pub snapshots: AtomicU64,
    /// Seconds the last start spent recovering (in microseconds).
    pub recovery_micros: AtomicU64,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            requests: Mutex::new(BTreeMap::new()),
            fsync: Histogram::new(&LATENCY),
            batch: Histogram::new(&BATCH),
            write_errors: AtomicU64::new(0),
            recoveries: AtomicU64::new(0),
            tails_cut: AtomicU64::new(0),
            snapshots: AtomicU64::new(0),
            recovery_micros: AtomicU64::new(0),
        }
    }
}

/// A label value with `\`, `"` and newlines escaped.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

impl Metrics {
    /// Records one request's latency under its route (the path template, not the path).
    pub fn request(&self, route: &str, took: Duration) {
        let mut m = self.requests.lock().unwrap_or_else(|p| p.into_inner());
        m.entry(route.to_string())
            .or_insert_with(|| Histogram::new(&LATENCY))
            .observe(took.as_secs_f64());
    }

    /// The exposition text; `clusters` gives each cluster's name and counters.
    pub fn render(&self, clusters: &[(String, &ClusterCounters)]) -> String {
        let mut o = String::new();
        let counter = |o: &mut String, name: &str, help: &str, kind: &str| {
            let _ = writeln!(o, "# HELP {name} {help}\n# TYPE {name} {kind}");
        };
        counter(
            &mut o,
            "mlsched_serve_events_total",
            "Events acknowledged (durable).",
            "counter",
        );
        for (n, c) in clusters {
            let v = c.events.load(Ordering::Relaxed);
            let _ = writeln!(
                o,
                "mlsched_serve_events_total{{cluster=\"{}\"}} {v}",
                escape(n)
            );
        }
        counter(
            &mut o,
            "mlsched_serve_decisions_total",
            "Decisions handed out with acknowledged events.",
            "counter",
        );
        for (n, c) in clusters {
            let v = c.decisions.load(Ordering::Relaxed);
            let _ = writeln!(
                o,
                "mlsched_serve_decisions_total{{cluster=\"{}\"}} {v}",
                escape(n)
            );
        }
        counter(
            &mut o,
            "mlsched_serve_wal_bytes",
            "Bytes of write-ahead log on disk.",
            "gauge",
        );
        for (n, c) in clusters {
            let v = c.wal_bytes.load(Ordering::Relaxed);
            let _ = writeln!(
                o,
                "mlsched_serve_wal_bytes{{cluster=\"{}\"}} {v}",
                escape(n)
            );
        }
        counter(
            &mut o,
            "mlsched_serve_request_duration_seconds",
            "HTTP request latency by route.",
            "histogram",
        );
        {
            let m = self.requests.lock().unwrap_or_else(|p| p.into_inner());
            for (route, h) in m.iter() {
                let labels = format!("route=\"{}\"", escape(route));
                h.write(&mut o, "mlsched_serve_request_duration_seconds", &labels);
            }
        }
        counter(
            &mut o,
            "mlsched_serve_fsync_duration_seconds",
            "Write + fsync latency of one WAL batch.",
            "histogram",
        );
        self.fsync
            .write(&mut o, "mlsched_serve_fsync_duration_seconds", "");
        counter(
            &mut o,
            "mlsched_serve_commit_batch_events",
            "Events made durable by one fsync (group commit).",
            "histogram",
        );
        self.batch
            .write(&mut o, "mlsched_serve_commit_batch_events", "");
        let plain = [
            (
                "mlsched_serve_write_errors_total",
                "WAL writes or fsyncs that failed (nothing acknowledged).",
                "counter",
                &self.write_errors,
            ),
            (
                "mlsched_serve_recoveries_total",
                "Clusters recovered from disk at start.",
                "counter",
                &self.recoveries,
            ),
            (
                "mlsched_serve_wal_tails_cut_total",
                "Torn or damaged WAL tails cut at recovery.",
                "counter",
                &self.tails_cut,
            ),
            (
                "mlsched_serve_snapshots_total",
                "Snapshots written.",
                "counter",
                &self.snapshots,
            ),
        ];
        for (name, help, kind, v) in plain {
            counter(&mut o, name, help, kind);
            let _ = writeln!(o, "{name} {}", v.load(Ordering::Relaxed));
        }
        counter(
            &mut o,
            "mlsched_serve_recovery_seconds",
            "Time the last start spent recovering every cluster.",
            "gauge",
        );
        let secs = self.recovery_micros.load(Ordering::Relaxed) as f64 / 1e6;
        let _ = writeln!(o, "mlsched_serve_recovery_seconds {secs}");
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histograms_are_cumulative_and_labels_escaped() {
        let m = Metrics::default();
        m.request("/v1/health", Duration::from_micros(50));
        m.request("/v1/health", Duration::from_millis(3));
        m.fsync.observe(0.002);
        let c = ClusterCounters::default();
        c.events.store(7, Ordering::Relaxed);
        let text = m.render(&[("a\"b".into(), &c)]);
        assert!(text.contains("mlsched_serve_events_total{cluster=\"a\\\"b\"} 7"));
        assert!(text.contains(
            "mlsched_serve_request_duration_seconds_bucket{route=\"/v1/health\",le=\"0.0001\"} 1"
        ));
        assert!(text.contains(
            "mlsched_serve_request_duration_seconds_bucket{route=\"/v1/health\",le=\"+Inf\"} 2"
        ));
        assert!(text.contains("mlsched_serve_fsync_duration_seconds_count 1"));
        assert!(text.contains("mlsched_serve_fsync_duration_seconds_bucket{le=\"0.0025\"} 1"));
    }
}
