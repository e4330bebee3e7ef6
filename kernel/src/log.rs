//! Decision-log records and the running checksum behind every result's `log_hash`.
//!
//! A run is a sequence of records `(tag, body)`: `tag` is one byte naming the record type
//! (ranges below) and `body` is the record's postcard encoding (no `usize` anywhere, floats
//! canonicalised with [`crate::num::canon`]). The running checksum is FNV-1a 64 over, per record,
//! `tag`, the body bytes, then the body length as u32 little-endian. It streams: [`HashSink`]
//! never buffers a record, so hashing works without `alloc` and allocates nothing.
//!
//! Event records (tags `0x01..=0x0F`, written by [`crate::driver`] through [`LogSink::event`])
//! frame the decisions in a log file but never enter the checksum: `log_hash` fingerprints the
//! decisions; event records frame them in the log and are checked by replay. [`HashSink`]
//! ignores them, [`VecSink`] and the log file writer keep them.
//!
//! Tag ranges: `0x01..=0x0F` events fed to a scheduler, `0x10` OASiS, `0x20` Zhou et al.,
//! `0x30` placement, `0x40` preemptive, `0x50` routing, `0x60` baselines (each family owns 16).
use serde::Serialize;

/// FNV-1a 64 offset basis.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
/// FNV-1a 64 prime.
pub const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
/// Version of the log format (header and record framing); bump on any change.
pub const LOG_FORMAT_VERSION: u16 = 1;

/// Tag of a "job arrived" event record.
pub const TAG_EVENT_ARRIVAL: u8 = 0x01;
/// Tag of a "slot advanced" event record.
pub const TAG_EVENT_SLOT: u8 = 0x02;
/// Tag of a "job finished" event record.
pub const TAG_EVENT_FINISH: u8 = 0x03;
/// Tag of the "host-driven" marker: the first record of a log whose events a host chose (the
/// service `mlsched serve`, an events file) rather than the scenario's own arrivals; its body is
/// the marker's format version (`1u32`). A replay re-feeds the logged events of such a log instead
/// of re-running the scenario (`mlsched_scenario::replay`).
pub const TAG_EVENT_HOST: u8 = 0x04;
/// Tag of a "job cancelled" event record (open world), body `(t, j)`.
pub const TAG_EVENT_CANCEL: u8 = 0x05;
/// Tag of a "server down" event record (open world), body `(t, server index)`.
pub const TAG_EVENT_SERVER_DOWN: u8 = 0x06;
/// Tag of a "server up" event record (open world), body `(t, server index)`.
pub const TAG_EVENT_SERVER_UP: u8 = 0x07;
/// Tag of a "capacity" event record (open world), body `(t, server index, capacity entries)`.
pub const TAG_EVENT_CAPACITY: u8 = 0x08;
/// Tag of a host's event as its JSON text (open world), body the canonical JSON string: written
/// by the document layer before the kernel event records it causes, so a log holds what a
/// submission submitted and a replay can re-feed it (`mlsched_scenario::replay`).
pub const TAG_EVENT_JSON: u8 = 0x09;
/// First tag of OASiS records.
pub const TAG_OASIS: u8 = 0x10;
/// First tag of Zhou et al. records.
pub const TAG_ONLINE: u8 = 0x20;
/// First tag of placement (Liu et al.) records.
pub const TAG_PLACEMENT: u8 = 0x30;
/// First tag of preemptive (Wang et al.) records.
pub const TAG_PREEMPT: u8 = 0x40;
/// First tag of routing (CSRP) records.
pub const TAG_ROUTE: u8 = 0x50;
/// First tag of baseline records.
pub const TAG_BASELINE: u8 = 0x60;

/// Errors of the log codec.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogError {
    /// postcard could not encode a record.
    Encode,
    /// A record is larger than [`crate::limits::RECORD_BYTES_MAX`].
    RecordTooLarge {
        /// tag of the record
        tag: u8,
    },
}

impl core::fmt::Display for LogError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            LogError::Encode => f.write_str("a log record could not be encoded"),
            LogError::RecordTooLarge { tag } => write!(
                f,
                "log record with tag {tag:#04x} exceeds {} = {}",
                crate::error::Limit::RecordBytes.name(),
                crate::limits::RECORD_BYTES_MAX
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LogError {}

/// The running FNV-1a 64 checksum of a record stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LogHash {
    state: u64,
    records: u64,
}

impl Default for LogHash {
    fn default() -> Self {
        Self::new()
    }
}

impl LogHash {
    /// The checksum of an empty stream.
    pub const fn new() -> Self {
        LogHash {
            state: FNV_OFFSET,
            records: 0,
        }
    }

    fn byte(&mut self, b: u8) {
        self.state ^= b as u64;
        self.state = self.state.wrapping_mul(FNV_PRIME);
    }

    /// Absorbs bytes.
    pub fn bytes(&mut self, bs: &[u8]) {
        for &b in bs {
            self.byte(b);
        }
    }

    /// Absorbs one whole record `(tag, body)` already encoded.
    pub fn record(&mut self, tag: u8, body: &[u8]) {
        self.byte(tag);
        self.bytes(body);
        self.bytes(&(body.len() as u32).to_le_bytes());
        self.records += 1;
    }

    /// The checksum so far.
    pub fn value(&self) -> u64 {
        self.state
    }

    /// Records absorbed so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// `value()` as 16 lower-case hex digits (the `log_hash` of result documents).
    pub fn hex(&self) -> heapless::String<16> {
        let mut s = heapless::String::new();
        let v = self.state;
        for i in (0..16).rev() {
            let nib = ((v >> (i * 4)) & 0xf) as u8;
            let c = if nib < 10 {
                b'0' + nib
            } else {
                b'a' + nib - 10
            };
            // 16 pushes into a 16-byte string cannot fail.
            let _ = s.push(c as char);
        }
        s
    }
}

/// A postcard flavor that hashes bytes as they are produced and counts them.
struct HashFlavor<'a> {
    hash: &'a mut LogHash,
    len: u32,
}

impl postcard::ser_flavors::Flavor for HashFlavor<'_> {
    type Output = u32;
    fn try_push(&mut self, data: u8) -> postcard::Result<()> {
        self.hash.byte(data);
        self.len = self.len.wrapping_add(1);
        Ok(())
    }
    fn finalize(self) -> postcard::Result<u32> {
        Ok(self.len)
    }
}

/// Where a scheduler's records go: a hash only ([`HashSink`]) or bytes too ([`VecSink`]).
pub trait LogSink {
    /// Appends one record.
    fn record<T: Serialize + ?Sized>(&mut self, tag: u8, rec: &T) -> Result<(), LogError>;
    /// The running checksum (of the decision records only).
    fn hash(&self) -> LogHash;
    /// Appends one event record (tag `0x01..=0x0F`): kept by sinks that keep bytes (the log
    /// file, [`VecSink`]), never hashed, so `log_hash` stays the decisions' fingerprint.
    /// The default (hash-only sinks) ignores it.
    fn event<T: Serialize + ?Sized>(&mut self, tag: u8, rec: &T) -> Result<(), LogError> {
        let _ = (tag, rec);
        Ok(())
    }
}

/// Hash-only sink: streams each record through FNV-1a, no buffer, no allocation.
#[derive(Clone, Copy, Debug, Default)]
pub struct HashSink {
    hash: LogHash,
}

impl HashSink {
    /// An empty sink.
    pub const fn new() -> Self {
        HashSink {
            hash: LogHash::new(),
        }
    }
}

impl LogSink for HashSink {
    fn record<T: Serialize + ?Sized>(&mut self, tag: u8, rec: &T) -> Result<(), LogError> {
        self.hash.byte(tag);
        let len = postcard::serialize_with_flavor(
            rec,
            HashFlavor {
                hash: &mut self.hash,
                len: 0,
            },
        )
        .map_err(|_| LogError::Encode)?;
        self.hash.bytes(&len.to_le_bytes());
        self.hash.records += 1;
        Ok(())
    }
    fn hash(&self) -> LogHash {
        self.hash
    }
}

/// A sink that keeps every record's `(tag, body)` (decisions and events, in order) as well as
/// the checksum of the decision records (for log files).
#[cfg(feature = "alloc")]
#[derive(Clone, Debug, Default)]
pub struct VecSink {
    hash: LogHash,
    /// The records in order (event records included): tag and postcard body.
    pub records: alloc::vec::Vec<(u8, alloc::vec::Vec<u8>)>,
}

#[cfg(feature = "alloc")]
impl VecSink {
    /// An empty sink.
    pub fn new() -> Self {
        VecSink {
            hash: LogHash::new(),
            records: alloc::vec::Vec::new(),
        }
    }
}

#[cfg(feature = "alloc")]
impl LogSink for VecSink {
    fn record<T: Serialize + ?Sized>(&mut self, tag: u8, rec: &T) -> Result<(), LogError> {
        let body = postcard::to_allocvec(rec).map_err(|_| LogError::Encode)?;
        if body.len() > crate::limits::RECORD_BYTES_MAX {
            return Err(LogError::RecordTooLarge { tag });
        }
        self.hash.record(tag, &body);
        self.records.push((tag, body));
        Ok(())
    }
    fn hash(&self) -> LogHash {
        self.hash
    }
    fn event<T: Serialize + ?Sized>(&mut self, tag: u8, rec: &T) -> Result<(), LogError> {
        let body = postcard::to_allocvec(rec).map_err(|_| LogError::Encode)?;
        if body.len() > crate::limits::RECORD_BYTES_MAX {
            return Err(LogError::RecordTooLarge { tag });
        }
        self.records.push((tag, body));
        Ok(())
    }
}

/// A record already encoded: its tag and postcard body, borrowed from a scratch buffer. A
/// scheduler whose algorithm writes records to a [`LogSink`] hands them to the driver as
/// decisions through [`ForwardSink`]; [`Encoded::log`] writes the same bytes again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Encoded<'a> {
    /// The record's tag.
    pub tag: u8,
    /// The record's postcard body.
    pub body: &'a [u8],
}

impl Encoded<'_> {
    /// Writes the record to `sink`: the same tag and body bytes, so the same hash.
    pub fn log<S: LogSink>(&self, sink: &mut S) -> Result<(), LogError> {
        sink.record(self.tag, &Raw(self.body))
    }
}

/// Bytes serialised verbatim: postcard writes a tuple of `u8`s as the bytes themselves (no
/// length prefix), so `Raw(postcard(x))` encodes exactly as `x`.
struct Raw<'a>(&'a [u8]);

impl Serialize for Raw<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let mut t = s.serialize_tuple(self.0.len())?;
        for b in self.0 {
            t.serialize_element(b)?;
        }
        t.end()
    }
}

/// A sink that encodes each record into a caller's scratch buffer (no allocation) and passes
/// it on as an [`Encoded`] record: how a scheduler turns an algorithm's records into decisions.
pub struct ForwardSink<'b, F: FnMut(Encoded<'_>)> {
    buf: &'b mut [u8],
    out: F,
    hash: LogHash,
}

impl<'b, F: FnMut(Encoded<'_>)> ForwardSink<'b, F> {
    /// Records are encoded into `buf` (at most [`crate::limits::RECORD_BYTES_MAX`] bytes each
    /// are ever needed) and passed to `out`.
    pub fn new(buf: &'b mut [u8], out: F) -> Self {
        ForwardSink {
            buf,
            out,
            hash: LogHash::new(),
        }
    }
}

impl<F: FnMut(Encoded<'_>)> LogSink for ForwardSink<'_, F> {
    fn record<T: Serialize + ?Sized>(&mut self, tag: u8, rec: &T) -> Result<(), LogError> {
        let body: &[u8] =
            postcard::to_slice(rec, self.buf).map_err(|_| LogError::RecordTooLarge { tag })?;
        self.hash.record(tag, body);
        (self.out)(Encoded { tag, body });
        Ok(())
    }
    fn hash(&self) -> LogHash {
        self.hash
    }
}

/// `true` for the tags of event records (`0x01..=0x0F`): framed in log files, never hashed.
pub const fn is_event_tag(tag: u8) -> bool {
    tag >= TAG_EVENT_ARRIVAL && tag < TAG_OASIS
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    #[derive(Serialize)]
    struct Rec {
        job: u32,
        cost: f64,
        slots: [u16; 3],
    }
    #[test]
    fn hash_sink_equals_vec_sink() {
        let mut h = HashSink::new();
        let mut v = VecSink::new();
        for i in 0..10u32 {
            let r = Rec {
                job: i,
                cost: i as f64 * 0.5,
                slots: [1, 2, i as u16],
            };
            h.record(TAG_OASIS, &r).unwrap();
            v.record(TAG_OASIS, &r).unwrap();
        }
        assert_eq!(h.hash(), v.hash());
        assert_eq!(h.hash().records(), 10);
        assert_eq!(LogHash::new().hex().as_str(), "cbf29ce484222325");
    }

    #[test]
    fn forwarded_records_are_byte_identical() {
        let mut direct = VecSink::new();
        let mut again = VecSink::new();
        let mut buf = [0u8; 256];
        let mut fwd = ForwardSink::new(&mut buf, |e: Encoded<'_>| e.log(&mut again).unwrap());
        for i in 0..5u32 {
            let r = Rec {
                job: i,
                cost: i as f64 / 3.0,
                slots: [i as u16, 300, 7],
            };
            direct.record(TAG_OASIS, &r).unwrap();
            fwd.record(TAG_OASIS, &r).unwrap();
        }
        assert_eq!(fwd.hash(), direct.hash());
        assert_eq!(again.records, direct.records);
        assert_eq!(again.hash(), direct.hash());
    }
}
