//! The write-ahead log of one cluster: length- and checksum-framed records, appended in
//! batches and fsync'd before any of them is acknowledged; and the snapshot that compacts it.
//!
//! ```text
//! record   len u32 LE | crc32 u32 LE | payload (len bytes)
//! payload  1 | seq u64 LE | the event as JSON     (an applied event)
//!          2                                      (the cluster was finished)
//! ```
//! `crc32` (CRC-32/ISO-HDLC, `crc32fast`) covers the length bytes and the payload, so a damaged
//! length is caught as well as a damaged body. Segments are files `wal-<first seq, 20
//! digits>.log`; a snapshot (`snapshot.bin`) holds every event up to its `seq`, so the segments
//! before it can go.
use mlsched_scenario::event::HostEvent;
use serde::{Deserialize, Serialize};

/// Largest payload a record may have (an event body is far smaller: the request limit).
pub const RECORD_MAX: usize = 16 << 20;
/// Bytes a record adds around its payload.
pub const FRAME: usize = 8;

const EVENT: u8 = 1;
const FINISH: u8 = 2;

/// One record of the log.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// An applied event and its sequence number.
    Event {
        /// Its `seq` (1, 2, ... in the cluster's order).
        seq: u64,
        /// The event as JSON text ([`HostEvent::to_json`]).
        json: String,
    },
    /// `POST .../finish` was applied.
    Finish,
}

/// The bytes of one record.
pub fn encode(e: &Entry) -> Vec<u8> {
    let mut payload = Vec::new();
    match e {
        Entry::Event { seq, json } => {
            payload.push(EVENT);
            payload.extend_from_slice(&seq.to_le_bytes());
            payload.extend_from_slice(json.as_bytes());
        }
        Entry::Finish => payload.push(FINISH),
    }
    let len = (payload.len() as u32).to_le_bytes();
    let mut h = crc32fast::Hasher::new();
    h.update(&len);
    h.update(&payload);
    let mut out = Vec::with_capacity(FRAME + payload.len());
    out.extend_from_slice(&len);
    out.extend_from_slice(&h.finalize().to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

/// What [`scan`] found in a segment.
#[derive(Debug, Default)]
pub struct Scan {
    /// The intact records, in order.
    pub entries: Vec<Entry>,
    /// Bytes up to the end of the last intact record.
    pub valid_len: u64,
    /// Why the bytes after `valid_len` were not read (`None`: the file ends there).
    pub problem: Option<String>,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut x = [0u8; 4];
    x.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(x)
}

/// Reads the records of a segment, stopping at the first torn or damaged one.
pub fn scan(bytes: &[u8]) -> Scan {
    let mut s = Scan::default();
    let mut at = 0usize;
    while at < bytes.len() {
        let stop = |why: String| Some(format!("byte {at}: {why}"));
        if bytes.len() - at < FRAME {
            s.problem = stop(format!("torn record header ({} bytes)", bytes.len() - at));
            break;
        }
        let len = u32_at(bytes, at) as usize;
        let crc = u32_at(bytes, at + 4);
        if len == 0 || len > RECORD_MAX {
            s.problem = stop(format!("impossible record length {len}"));
            break;
        }
        if bytes.len() - at - FRAME < len {
            s.problem = stop(format!("torn record ({len} bytes announced)"));
            break;
        }
        let payload = &bytes[at + FRAME..at + FRAME + len];
        let mut h = crc32fast::Hasher::new();
        h.update(&bytes[at..at + 4]);
        h.update(payload);
        if h.finalize() != crc {
            s.problem = stop("checksum mismatch".into());
            break;
        }
        match decode(payload) {
            Some(e) => s.entries.push(e),
            None => {
                s.problem = stop("unreadable record".into());
                break;
            }
        }
        at += FRAME + len;
        s.valid_len = at as u64;
    }
    s
}

fn decode(p: &[u8]) -> Option<Entry> {
    match *p.first()? {
        EVENT if p.len() >= 9 => {
            let mut s = [0u8; 8];
            s.copy_from_slice(&p[1..9]);
            let json = std::str::from_utf8(&p[9..]).ok()?.to_string();
            Some(Entry::Event {
                seq: u64::from_le_bytes(s),
                json,
            })
        }
        FINISH if p.len() == 1 => Some(Entry::Finish),
        _ => None,
    }
}

/// The file name of the segment whose first record has `seq`.
pub fn segment_name(first_seq: u64) -> String {
    format!("wal-{first_seq:020}.log")
}

/// The first seq of a segment file name, if it is one.
pub fn segment_seq(name: &str) -> Option<u64> {
    name.strip_prefix("wal-")?
        .strip_suffix(".log")?
        .parse()
        .ok()
}

/// An event as kept in memory and in snapshots: compact for the events today's engine
/// applies (job as its index), JSON for any other.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Stored {
    /// `arrive` of job index `.1` at `.0`.
    Arrive(u32, u32),
    /// `finished` of job index `.1` at `.0`.
    Finished(u32, u32),
    /// `advance` to `.0`.
    Advance(u32),
    /// Any other event, as its JSON.
    Json(String),
}

impl Stored {
    /// The compact form of `ev` (`index`: a job id's index).
    pub fn of(ev: &HostEvent, index: impl Fn(&str) -> Option<u32>) -> Stored {
        let compact = match ev {
            HostEvent::Arrive { at, job } => index(job).map(|j| Stored::Arrive(*at, j)),
            HostEvent::Finished { at, job } => index(job).map(|j| Stored::Finished(*at, j)),
            HostEvent::Advance { at } => Some(Stored::Advance(*at)),
            _ => None,
        };
        compact.unwrap_or_else(|| Stored::Json(ev.to_json()))
    }

    /// The event back (`id`: a job index's id).
    pub fn event(&self, id: impl Fn(u32) -> Option<String>) -> Option<HostEvent> {
        Some(match self {
            Stored::Arrive(at, j) => HostEvent::Arrive {
                at: *at,
                job: id(*j)?,
            },
            Stored::Finished(at, j) => HostEvent::Finished {
                at: *at,
                job: id(*j)?,
            },
            Stored::Advance(at) => HostEvent::Advance { at: *at },
            Stored::Json(text) => mlsched_scenario::event::parse(text).ok()?,
        })
    }
}

const SNAP_MAGIC: [u8; 8] = *b"MLSVSNP1";

/// A snapshot: every event up to `seq` and whether the cluster was finished.
#[derive(Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Events held (`seq` of the last).
    pub seq: u64,
    /// The cluster was finished.
    pub finished: bool,
    /// The events, seq 1 first.
    pub events: Vec<Stored>,
}

/// `snapshot.bin`: magic, crc32 of the body, postcard body.
pub fn encode_snapshot(s: &Snapshot) -> Vec<u8> {
    let body = postcard::to_allocvec(s).unwrap_or_default();
    let mut out = SNAP_MAGIC.to_vec();
    out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

/// Reads `snapshot.bin`; `Err` says why it is not one (it was written atomically, so this is
/// damage after the fact).
pub fn decode_snapshot(b: &[u8]) -> Result<Snapshot, String> {
    if b.len() < 12 || b[..8] != SNAP_MAGIC {
        return Err("not a snapshot of this format".into());
    }
    if crc32fast::hash(&b[12..]) != u32_at(b, 8) {
        return Err("checksum mismatch".into());
    }
    let s: Snapshot = postcard::from_bytes(&b[12..]).map_err(|e| e.to_string())?;
    if s.events.len() as u64 != s.seq {
        return Err("event count differs from its seq".into());
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(seq: u64) -> Entry {
        Entry::Event {
            seq,
            json: format!(r#"{{"at":{seq},"event":"advance"}}"#),
        }
    }

    #[test]
    fn records_round_trip_and_every_cut_or_flip_is_caught() {
        let mut bytes = Vec::new();
        for s in 1..=3 {
            bytes.extend(encode(&ev(s)));
        }
        bytes.extend(encode(&Entry::Finish));
        let all = scan(&bytes);
        assert_eq!(all.entries.len(), 4);
        assert!(all.problem.is_none());
        assert_eq!(all.valid_len, bytes.len() as u64);
        for cut in 0..bytes.len() {
            let s = scan(&bytes[..cut]);
            assert!(s.valid_len <= cut as u64);
            assert_eq!(s.problem.is_some(), s.valid_len != cut as u64);
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x40;
            let s = scan(&b);
            assert!(s.problem.is_some(), "flip at {i}");
            assert!(s.entries.len() < 4);
            assert_eq!(s.entries[..], all.entries[..s.entries.len()]);
        }
    }

    #[test]
    fn snapshots_round_trip_and_refuse_damage() {
        let s = Snapshot {
            seq: 2,
            finished: true,
            events: vec![Stored::Advance(3), Stored::Json("{}".into())],
        };
        let b = encode_snapshot(&s);
        assert_eq!(decode_snapshot(&b).unwrap(), s);
        let mut bad = b.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        assert!(decode_snapshot(&bad).is_err());
        assert!(decode_snapshot(&b[..5]).is_err());
        assert_eq!(segment_seq(&segment_name(42)), Some(42));
        assert_eq!(segment_seq("wal-x.log"), None);
    }
}
