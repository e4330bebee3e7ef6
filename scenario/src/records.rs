//! Decision-log records decoded for people: a record's title, the job it concerns and its
//! fields, from its tag and postcard body. `mlsched replay` uses it to say what differs
//! (record kind, job id, field, expected against found) instead of raw bytes; `mlsched export`
//! reads the fields it draws.
//!
//! Nothing here restates a record: each [`RecordType`] is a kernel record type
//! ([`mlsched_kernel::record::LogRecord`]) whose tag, title and serde layout the kernel states
//! once, read back into that type and written out as JSON under its own field names. Which
//! records a log may hold is the kind's ([`crate::engine::Kind::records`]) after the driver's
//! event records ([`EVENTS`]). `tests` decode every record of every bundled scenario under
//! every policy and re-encode it to the same bytes.
use mlsched_kernel::record::event::{
    ArrivalEvent, CancelEvent, CapacityEvent, FinishEvent, HostEvent, JsonEvent, ServerDownEvent,
    ServerUpEvent, SlotEvent,
};
use mlsched_kernel::record::LogRecord;
use serde::de::DeserializeOwned;
use serde::Serialize;
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

/// Decodes a record body to its fields, `None` unless it is exactly one record of the type.
pub type Fields = fn(&[u8]) -> Option<Map<String, Value>>;

/// One record type a log may hold: the tags it is written under, its title and how its body
/// decodes, all from a kernel record type.
#[derive(Clone, Copy, Debug)]
pub struct RecordType {
    /// First tag.
    tag: u8,
    /// Consecutive tags from `tag`.
    tags: u8,
    /// [`LogRecord::TITLE`].
    title: &'static str,
    /// The body's fields.
    fields: Fields,
}

impl RecordType {
    /// Kernel record type `R`, read back as `R` and written out as its JSON.
    pub const fn of<R: LogRecord + Serialize + DeserializeOwned>() -> Self {
        Self::with::<R>(exact::<R>)
    }

    /// Kernel record type `R` with its own decoder (a record whose JSON names differ from its
    /// serde names: `mlsched_kernel::preempt::InterruptRec`'s cause and outcome).
    pub const fn with<R: LogRecord>(fields: Fields) -> Self {
        RecordType {
            tag: R::TAG,
            tags: R::TAGS,
            title: R::TITLE,
            fields,
        }
    }

    /// Is `tag` one of its tags?
    fn holds(&self, tag: u8) -> bool {
        tag.wrapping_sub(self.tag) < self.tags
    }
}

/// The event records every kind's log holds (`mlsched_kernel::driver`, the document layer's
/// host marker and submissions).
pub const EVENTS: &[RecordType] = &[
    RecordType::of::<ArrivalEvent>(),
    RecordType::of::<SlotEvent>(),
    RecordType::of::<FinishEvent>(),
    RecordType::of::<HostEvent>(),
    RecordType::of::<CancelEvent>(),
    RecordType::of::<ServerDownEvent>(),
    RecordType::of::<ServerUpEvent>(),
    RecordType::of::<CapacityEvent<Vec<f64>>>(),
    RecordType::of::<JsonEvent<String>>(),
];

/// Decodes `body` as `T`, requiring every byte to be used and the value to re-encode to the
/// same bytes.
pub fn exact_value<T: Serialize + DeserializeOwned>(body: &[u8]) -> Option<T> {
    let (v, rest) = postcard::take_from_bytes::<T>(body).ok()?;
    if !rest.is_empty() || postcard::to_allocvec(&v).ok()?.as_slice() != body {
        return None;
    }
    Some(v)
}

/// `v`'s fields as JSON (`None` unless it is an object).
pub fn json_fields<T: Serialize>(v: &T) -> Option<Map<String, Value>> {
    match serde_json::to_value(v).ok()? {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// [`exact_value`] as JSON fields.
fn exact<T: Serialize + DeserializeOwned>(body: &[u8]) -> Option<Map<String, Value>> {
    json_fields(&exact_value::<T>(body)?)
}

/// Decodes a record of a log of scenario kind `kind`, or `None` for a kind, tag or body this
/// build does not know.
pub fn decode(kind: &str, tag: u8, body: &[u8]) -> Option<Decoded> {
    decode_in(crate::run::records(kind)?, tag, body)
}

/// Decodes a record among the [`EVENTS`] and `records` (a kind's, [`crate::engine::Kind::records`]).
pub fn decode_in(records: &[RecordType], tag: u8, body: &[u8]) -> Option<Decoded> {
    let t = EVENTS.iter().chain(records).find(|r| r.holds(tag))?;
    let fields = (t.fields)(body)?;
    let job = fields.get("job").and_then(Value::as_u64).map(|j| j as u32);
    Some(Decoded {
        name: t.title,
        job,
        fields,
    })
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
