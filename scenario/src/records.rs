//! Decision-log records decoded for people: a record's name, the job it concerns and its
//! fields, from its tag and postcard body. `mlsched replay` uses it to say what differs
//! (record kind, job id, field, expected against found) instead of raw bytes.
//!
//! Each record layout is mirrored here with the field names and types the kernel writes (the
//! kernel's record types are write-only); `tests` decode every record of every bundled
//! scenario under every policy and re-encode it to the same bytes, so a mirror that drifts
//! from the kernel fails there.
use mlsched_kernel::log::{
    TAG_BASELINE, TAG_EVENT_ARRIVAL, TAG_EVENT_CANCEL, TAG_EVENT_CAPACITY, TAG_EVENT_FINISH,
    TAG_EVENT_HOST, TAG_EVENT_JSON, TAG_EVENT_SERVER_DOWN, TAG_EVENT_SERVER_UP, TAG_EVENT_SLOT,
    TAG_OASIS, TAG_ONLINE, TAG_PLACEMENT, TAG_PREEMPT, TAG_ROUTE,
};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A record decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Decoded {
    /// What the record is, e.g. `oasis decision`, `event arrival`.
    pub name: &'static str,
    /// The job index it concerns, if one.
    pub job: Option<u32>,
    /// Its fields by name, in the order written.
    pub fields: Map<String, Value>,
}

macro_rules! mirrors {
    ($($(#[$m:meta])* $name:ident { $($f:ident : $t:ty),* $(,)? })*) => {
        $(
            $(#[$m])*
            #[derive(Serialize, Deserialize)]
            struct $name { $($f: $t),* }
        )*
    };
}

mirrors! {
    Arrival { slot: u32, job: u32 }
    SlotEvent { slot: u32 }
    HostMarker { version: u32 }
    ServerEvent { slot: u32, server: u32 }
    CapacityEvent { slot: u32, server: u32, capacity: Vec<f64> }
    JsonEvent { json: String }
    OasisDecision {
        job: u32, arrival: u32, admitted: bool, reason: u8, completion_slot: u32,
        utility: f64, cost: f64, payoff: f64,
    }
    OasisSlot { job: u32, slot: u32, chunks: u64, workers: Vec<[u32; 2]>, ps: Vec<[u32; 2]>, cost: f64 }
    OasisWorld {
        slot: u32, job: u32, outcome: u8, server: u32, completion_slot: u32, utility: f64,
        cost: f64, payoff: f64,
    }
    OnlineJobDecision {
        job: u32, round: u32, iota: u32, feasible: bool, scheduled: bool, colocated: bool,
        worker_type: u32, ps_type: u32, start: u32, duration: u32, workers: u32, cost: f64,
        utility: f64,
    }
    OnlinePlaced { job: u32, server: u32, workers: u32, ps: u32 }
    Category { index: u64, rank: u64, avg_jct: f64, throughput: f64, rounds: u32, unit_rounds: u64, fallback: bool }
    Greedy { step: u32, job: u32, worker: u32, key: f64 }
    Choice { method: u8, rank: u64, avg_jct: f64, fairness: f64, examined: u64 }
    Worker { worker: u32, job: u32, samples: f64 }
    Jps { from: u64, count: u64, samples: u64 }
    Exhaustive { number: u64, avg_jct: f64 }
    PlacementInterrupt { at: u32, job: u32, server: u32, cause: u8, outcome: u8, epochs_left: f64 }
    PlacementPlace { at: u32, job: u32, worker: u32, epochs: f64, finish: f64 }
    PlacementBatch { at: u32, method: u8, jobs: u32, workers: u32, examined: u64, avg_jct: f64 }
    Candidate { job: u32, server: u32, worker: u32, q: f64, t_star: u32 }
    Dispatch {
        job: u32, chunk: u32, server: u32, worker: u32, cloud: bool, zeta: bool, q: f64,
        q_next: f64, start: u32, len: u32, preempted: u32,
    }
    Ps { slot: u32, job: u32, server: u32, ps: u32, kept: bool }
    PsMiss { slot: u32, job: u32 }
    Interrupt {
        slot: u32, job: u32, chunk: u32, server: u32, worker: u32, cloud: bool,
        cause: InterruptCause, outcome: InterruptOutcome,
    }
    RoutePlaced {
        job: u32, policy: u8, start: u32, nodes: Vec<u32>, hops: u32, network_cost: f64,
        deadline_met: bool, aggregation: u32,
    }
    Pso { job: u32, cost: f64, f_part: f64, network: f64, start: u32 }
    Aggregation {
        job: u32, node: u32, weight: f64, units_plain: u32, units_aggregated: u32,
        network_plain: f64, network_aggregated: f64, applied: bool,
    }
    RouteSummary { rdv: f64, servers: u32, n_bar: f64, cost: f64 }
    BaselineSlot { slot: u32, job: u32, workers: u32, ps: u32, chunks: u64, done: bool, policy: u8 }
    BaselineStart { slot: u32, job: u32, workers: u32, ps: u32, duration: u32, policy: u8 }
    BaselinePreempt { slot: u32, job: u32, by: u32, start: u32, policy: u8 }
    RoutePreempt { job: u32, by: u32, start: u32, at: u32 }
    OnlineInterrupted {
        slot: u32, job: u32, server: u32, cause: u8, done_slots: u32, remaining: u32,
        requeued: bool,
    }
    BaselineCancel { slot: u32, job: u32, running: bool, policy: u8 }
    BaselineInterrupt { slot: u32, job: u32, server: u32, cause: u8, start: u32, policy: u8 }
    RouteInterrupt { job: u32, at: u32, server: u32, start: u32, outcome: u8, remaining: u32 }
    RouteServer { server: u32, at: u32, slots: u32, capacity: u32, down: bool, interrupted: u32 }
}

/// `mlsched_kernel::preempt::Cause`, variant for variant (postcard writes the index).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum InterruptCause {
    Cancel,
    ServerDown,
    Capacity,
    Arrival,
}

/// `mlsched_kernel::preempt::Outcome`, variant for variant.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum InterruptOutcome {
    Recovered,
    Lost,
    Cancelled,
    Rejected,
}

/// Decodes `body` as `T`, requiring every byte to be used and the value to re-encode to the
/// same bytes.
fn exact<T: Serialize + DeserializeOwned>(body: &[u8]) -> Option<Map<String, Value>> {
    let (v, rest) = postcard::take_from_bytes::<T>(body).ok()?;
    if !rest.is_empty() || postcard::to_allocvec(&v).ok()?.as_slice() != body {
        return None;
    }
    match serde_json::to_value(&v).ok()? {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// Decodes a record of a log of scenario kind `kind` (the baselines' tags are shared by kinds
/// oasis and online), or `None` for a tag or body this build does not know.
pub fn decode(kind: &str, tag: u8, body: &[u8]) -> Option<Decoded> {
    let (name, fields) = match tag {
        TAG_EVENT_ARRIVAL => ("event arrival", exact::<Arrival>(body)?),
        TAG_EVENT_SLOT => ("event slot advanced", exact::<SlotEvent>(body)?),
        TAG_EVENT_FINISH => ("event finish", exact::<Arrival>(body)?),
        TAG_EVENT_HOST => ("event host-driven", exact::<HostMarker>(body)?),
        TAG_EVENT_CANCEL => ("event cancel", exact::<Arrival>(body)?),
        TAG_EVENT_SERVER_DOWN => ("event server down", exact::<ServerEvent>(body)?),
        TAG_EVENT_SERVER_UP => ("event server up", exact::<ServerEvent>(body)?),
        TAG_EVENT_CAPACITY => ("event capacity", exact::<CapacityEvent>(body)?),
        TAG_EVENT_JSON => ("event submission", exact::<JsonEvent>(body)?),
        t if t == TAG_OASIS => ("oasis decision", exact::<OasisDecision>(body)?),
        t if t == TAG_OASIS + 1 => ("oasis slot", exact::<OasisSlot>(body)?),
        t if t == TAG_OASIS + 2 => ("oasis world", exact::<OasisWorld>(body)?),
        t if t == TAG_ONLINE + 1 => ("online decision", exact::<OnlineJobDecision>(body)?),
        t if t == TAG_ONLINE + 2 => ("online placement", exact::<OnlinePlaced>(body)?),
        t if t == TAG_ONLINE + 3 => ("online interruption", exact::<OnlineInterrupted>(body)?),
        t if t == TAG_PLACEMENT => ("placement category", exact::<Category>(body)?),
        t if t == TAG_PLACEMENT + 1 => ("placement greedy step", exact::<Greedy>(body)?),
        t if t == TAG_PLACEMENT + 2 => ("placement choice", exact::<Choice>(body)?),
        t if t == TAG_PLACEMENT + 3 => ("placement worker", exact::<Worker>(body)?),
        t if t == TAG_PLACEMENT + 4 => ("placement JPS window", exact::<Jps>(body)?),
        t if t == TAG_PLACEMENT + 5 => ("placement exhaustive step", exact::<Exhaustive>(body)?),
        t if t == TAG_PLACEMENT + 6 => {
            ("placement interruption", exact::<PlacementInterrupt>(body)?)
        }
        t if t == TAG_PLACEMENT + 7 => {
            ("placement re-placed worker", exact::<PlacementPlace>(body)?)
        }
        t if t == TAG_PLACEMENT + 8 => (
            "placement re-placement batch",
            exact::<PlacementBatch>(body)?,
        ),
        t if t == TAG_PREEMPT => ("preempt candidate", exact::<Candidate>(body)?),
        t if t == TAG_PREEMPT + 1 => ("preempt dispatch", exact::<Dispatch>(body)?),
        t if t == TAG_PREEMPT + 2 => ("preempt PS", exact::<Ps>(body)?),
        t if t == TAG_PREEMPT + 3 => ("preempt PS miss", exact::<PsMiss>(body)?),
        t if t == TAG_PREEMPT + 4 => ("preempt interruption", exact::<Interrupt>(body)?),
        t if t == TAG_ROUTE => ("route placement", exact::<RoutePlaced>(body)?),
        t if t == TAG_ROUTE + 1 => ("route PSO result", exact::<Pso>(body)?),
        t if t == TAG_ROUTE + 2 => ("route aggregation", exact::<Aggregation>(body)?),
        t if t == TAG_ROUTE + 3 => ("route summary", exact::<RouteSummary>(body)?),
        t if t == TAG_ROUTE + 4 => ("route preemption", exact::<RoutePreempt>(body)?),
        t if t == TAG_BASELINE + 0x11 => ("baseline cancel", exact::<BaselineCancel>(body)?),
        t if t == TAG_BASELINE + 0x12 => {
            ("baseline interruption", exact::<BaselineInterrupt>(body)?)
        }
        t if t == TAG_ROUTE + 5 => ("route interruption", exact::<RouteInterrupt>(body)?),
        t if t == TAG_ROUTE + 6 => ("route server event", exact::<RouteServer>(body)?),
        t if t == TAG_BASELINE + 0x10 && kind == "online" => {
            ("baseline preemption", exact::<BaselinePreempt>(body)?)
        }
        t if (TAG_BASELINE..TAG_BASELINE + 16).contains(&t) && kind == "oasis" => {
            ("baseline slot", exact::<BaselineSlot>(body)?)
        }
        t if (TAG_BASELINE..TAG_BASELINE + 16).contains(&t) && kind == "online" => {
            ("baseline start", exact::<BaselineStart>(body)?)
        }
        _ => return None,
    };
    let job = fields.get("job").and_then(Value::as_u64).map(|j| j as u32);
    Some(Decoded { name, job, fields })
}

/// `a` against `b` field by field: `field expected X, found Y` for each that differs.
pub fn field_differences(a: &Decoded, b: &Decoded) -> Vec<String> {
    a.fields
        .iter()
        .filter_map(|(k, x)| {
            let y = b.fields.get(k)?;
            (x != y).then(|| format!("`{k}` expected {x}, found {y}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::decode;
    use crate::run::{policies, run_doc, RunOptions};
    use mlsched_kernel::log::{LogSink, VecSink};

    #[test]
    fn open_world_records_of_kind_online_decode_to_their_own_bytes() {
        use mlsched_kernel::baseline::world::{CancelRec, InterruptRec as BaselineInterrupt};
        use mlsched_kernel::online::{InterruptRec, TAG_ONLINE_INTERRUPTED};
        let check = |tag: u8, body: Vec<u8>, name: &str| {
            let d = decode("online", tag, &body).expect(name);
            assert_eq!(d.name, name);
            assert_eq!(d.job, Some(3));
        };
        let online = InterruptRec {
            slot: 5,
            job: 3,
            server: 1,
            cause: 1,
            done_slots: 2,
            remaining: 7,
            requeued: true,
        };
        let cancel = CancelRec {
            slot: 5,
            job: 3,
            running: true,
            policy: 2,
        };
        let cut = BaselineInterrupt {
            slot: 5,
            job: 3,
            server: 1,
            cause: 0,
            start: 4,
            policy: 2,
        };
        check(TAG_ONLINE_INTERRUPTED, enc(&online), "online interruption");
        check(
            mlsched_kernel::baseline::world::TAG_BASELINE_CANCEL,
            enc(&cancel),
            "baseline cancel",
        );
        check(
            mlsched_kernel::baseline::world::TAG_BASELINE_INTERRUPT,
            enc(&cut),
            "baseline interruption",
        );
    }

    /// The postcard bytes of a kernel record.
    fn enc<T: serde::Serialize>(v: &T) -> Vec<u8> {
        postcard::to_allocvec(v).unwrap()
    }

    #[test]
    fn every_record_of_every_bundled_run_decodes_to_its_own_bytes() {
        let mut decoded = 0;
        for (name, text) in crate::bundled::SCENARIOS {
            let d = crate::doc::parse(text).unwrap();
            for (k, p) in policies(d.kind()).iter().enumerate() {
                let opts = RunOptions {
                    policy: (k > 0).then(|| p.to_string()),
                    all_categories: false,
                };
                let mut sink = VecSink::new();
                if run_doc(&d, &opts, &mut sink).is_err() {
                    continue;
                }
                for (tag, body) in &sink.records {
                    assert!(
                        decode(d.kind(), *tag, body).is_some(),
                        "{name} {p}: tag {tag:#04x} does not decode"
                    );
                    decoded += 1;
                }
                let _ = sink.hash();
            }
        }
        assert!(decoded > 1000, "only {decoded} records");
    }

    /// AntMan's cut record (tag 0x70) decodes to its own bytes: ring, 12 GPUs, a guarantee job
    /// arriving at slot 2 cuts the opportunistic run started at 0 (the case of
    /// `tests/tests/rrh_antman.rs`).
    #[test]
    fn antman_preemption_records_decode() {
        let job = |i: u32, a: u32, e: u32, d: u32, w: u32| {
            format!(
                r#"{{ "id": "j{i}", "arrival": {a}, "weight": {w}, "epochs": {e}, "chunks": {d},
                "minibatches_per_chunk": 10, "minibatch_time": [0.01, 0.00625],
                "update_time": [0.002], "gradient_size": 0.01 }}"#
            )
        };
        let text = format!(
            r#"{{ "kind": "online", "slots": 40, "architecture": "ring",
            "resources": ["gpu", "cpu", "bw"], "servers": [[8, 64, 25], [4, 32, 10]],
            "worker_types": [ {{ "demand": [1, 4, 1], "bw": 1.0 }}, {{ "demand": [2, 8, 2], "bw": 2.0 }} ],
            "F": 4.0, "jobs": [{}, {}, {}] }}"#,
            job(0, 0, 1, 1, 100),
            job(1, 0, 40, 8, 1),
            job(2, 2, 1, 4, 100)
        );
        let d = crate::doc::parse(&text).unwrap();
        let opts = RunOptions {
            policy: Some("antman".into()),
            all_categories: false,
        };
        let mut sink = VecSink::new();
        run_doc(&d, &opts, &mut sink).unwrap();
        let mut cuts = 0;
        for (tag, body) in &sink.records {
            let r = decode("online", *tag, body).expect("decodes");
            if r.name == "baseline preemption" {
                cuts += 1;
                assert_eq!(r.job, Some(1));
                assert_eq!(r.fields["by"], 2);
            }
        }
        assert_eq!(cuts, 1);
    }

    /// Kind preempt's open-world record (tag 0x44) decodes to its own bytes, every cause and
    /// outcome by name.
    #[test]
    fn preempt_interruption_records_decode() {
        use mlsched_kernel::preempt::{Cause, InterruptRec, Outcome, PreemptDecision};
        let causes = [
            Cause::Cancel,
            Cause::ServerDown,
            Cause::Capacity,
            Cause::Arrival,
        ];
        let outcomes = [
            Outcome::Recovered,
            Outcome::Lost,
            Outcome::Cancelled,
            Outcome::Rejected,
        ];
        let mut sink = VecSink::new();
        for (k, (&cause, &outcome)) in causes.iter().zip(&outcomes).enumerate() {
            let r = InterruptRec {
                slot: 7,
                job: k as u32,
                chunk: 1,
                server: 2,
                worker: 3,
                cloud: k == 3,
                cause,
                outcome,
            };
            PreemptDecision::Interrupt(r).log(&mut sink).unwrap();
        }
        let names: Vec<String> = sink
            .records
            .iter()
            .map(|(tag, body)| {
                let d = decode("preempt", *tag, body).expect("decodes");
                assert_eq!(d.name, "preempt interruption");
                format!("{}/{}", d.fields["cause"], d.fields["outcome"])
            })
            .collect();
        assert_eq!(
            names,
            [
                r#""cancel"/"recovered""#,
                r#""server_down"/"lost""#,
                r#""capacity"/"cancelled""#,
                r#""arrival"/"rejected""#
            ]
        );
    }
}
