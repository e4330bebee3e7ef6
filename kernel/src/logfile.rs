//! The decision-log file: a versioned header, the inputs of the run, then length-prefixed
//! records (decisions, and the events that caused them) each followed by a checksum, then an
//! end frame.
//!
//! ```text
//! header   magic "MLSCHLOG" (8) | version u16 LE | scenario_hash u64 LE | seed u64 LE   (26 bytes)
//! inputs   0x00 | len u32 LE | postcard(Inputs) | check u64 LE
//! record*  tag  | len u32 LE | postcard body    | running LogHash u64 LE   (decision, tag >= 0x10)
//! event*   tag  | len u32 LE | postcard body    | frame chain u64 LE       (event, tag 0x01..=0x0F)
//! end      0xFF | 8 u32 LE   | frames u64 LE    | running LogHash u64 LE
//! ```
//! - Event records ([`crate::driver`] writes them: arrival, slot advanced, finish) frame the
//!   decisions but are not part of `log_hash`: `log_hash` fingerprints the decisions; event
//!   records frame them in the log and are checked by replay. Their checksum is a second
//!   FNV-1a chain over every frame (decisions and events) so a flipped event byte is caught too;
//!   the end frame counts every frame, so a dropped event is caught. A log without events (as
//!   written before the driver existed) reads the same.
//! - `scenario_hash` is FNV-1a 64 of the scenario text ([`scenario_hash`]); `seed` is the
//!   scenario's seed (0 when the kind has none), stored so a reader sees it without decoding.
//! - `check` of the inputs frame is FNV-1a over the 26 header bytes and then the inputs record
//!   as [`LogHash::record`] absorbs it, so a flipped header byte is caught too.
//! - After each record the file holds [`LogHash::value`] over the decision records so far: the
//!   last one equals the run's `log_hash`. A single changed byte always changes FNV-1a (each
//!   step is a bijection of the state), so corruption is reported at the record it hits.
//! - The end frame makes truncation at a frame boundary an error too: a log without it is never
//!   a complete run. Integers are fixed-width little-endian; nothing is a `usize`.
//!
//! Decoding ([`LogReader`]) borrows the bytes, allocates nothing and never panics: every failure
//! is a [`LogFileError`] carrying the byte offset where the file stops making sense.
#[cfg(feature = "alloc")]
use crate::log::{LogError, LogSink};
use crate::log::{LogHash, LOG_FORMAT_VERSION};
use serde::{Deserialize, Serialize};

/// The 8 magic bytes that open every log file.
pub const MAGIC: [u8; 8] = *b"MLSCHLOG";
/// Bytes of the header (magic, version, scenario hash, seed).
pub const HEADER_BYTES: u64 = 26;
/// Tag of the inputs frame (reserved: never a decision record).
pub const TAG_INPUTS: u8 = 0x00;
/// Tag of the end frame (reserved: never a decision record).
pub const TAG_END: u8 = 0xFF;
/// Bytes a frame adds around its body: tag, length, checksum.
pub const FRAME_OVERHEAD: u64 = 1 + 4 + 8;

/// The fixed header of a log file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// [`LOG_FORMAT_VERSION`] of the writer.
    pub version: u16,
    /// FNV-1a 64 of the scenario text ([`scenario_hash`]).
    pub scenario_hash: u64,
    /// The scenario's PRNG seed (0 when its kind has none).
    pub seed: u64,
}

impl Header {
    /// A header of the current format version.
    pub const fn new(scenario_hash: u64, seed: u64) -> Self {
        Header {
            version: LOG_FORMAT_VERSION,
            scenario_hash,
            seed,
        }
    }

    /// The 26 header bytes.
    pub fn to_bytes(&self) -> [u8; HEADER_BYTES as usize] {
        let mut b = [0u8; HEADER_BYTES as usize];
        b[..8].copy_from_slice(&MAGIC);
        b[8..10].copy_from_slice(&self.version.to_le_bytes());
        b[10..18].copy_from_slice(&self.scenario_hash.to_le_bytes());
        b[18..26].copy_from_slice(&self.seed.to_le_bytes());
        b
    }
}

/// What a replay needs to re-execute the run: the scenario text and the run options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Inputs<'a> {
    /// The scenario document exactly as it was run.
    pub scenario: &'a str,
    /// The policy the run was asked for by name, if any (the caller's name for it; `None`:
    /// the scenario's own algorithm).
    pub policy: Option<&'a str>,
    /// All-categories flag: the run reported every evaluated category (placement only).
    pub all_categories: bool,
}

/// FNV-1a 64 of the scenario text: the header's `scenario_hash`.
pub fn scenario_hash(text: &str) -> u64 {
    let mut h = LogHash::new();
    h.bytes(text.as_bytes());
    h.value()
}

/// Why a byte string is not a complete, intact log file. Every variant carries `offset`, the
/// byte where the problem was found.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogFileError {
    /// The file ends inside the header or a frame (or before the end frame).
    Truncated {
        /// where the missing bytes start
        offset: u64,
        /// bytes that were needed from there
        needed: u64,
    },
    /// The file does not start with [`MAGIC`].
    BadMagic {
        /// always 0
        offset: u64,
    },
    /// A format version this build cannot read.
    UnsupportedVersion {
        /// offset of the version field
        offset: u64,
        /// version found
        version: u16,
    },
    /// A frame with an unexpected tag (inputs not first, a reserved tag as a record).
    UnexpectedTag {
        /// offset of the tag
        offset: u64,
        /// tag found
        tag: u8,
    },
    /// A record body longer than [`crate::limits::RECORD_BYTES_MAX`] (or an end frame whose
    /// length is not 8).
    BadLength {
        /// offset of the length field
        offset: u64,
        /// length found
        len: u32,
    },
    /// The stored checksum differs from the one computed over the bytes read.
    Checksum {
        /// offset of the stored checksum
        offset: u64,
        /// index of the record (u64::MAX for the inputs frame)
        record: u64,
    },
    /// The inputs frame does not decode (postcard) into [`Inputs`].
    BadInputs {
        /// offset of the inputs body
        offset: u64,
    },
    /// The scenario text does not hash to the header's `scenario_hash`.
    ScenarioHash {
        /// offset of the inputs body
        offset: u64,
    },
    /// The end frame's record count differs from the records read.
    RecordCount {
        /// offset of the end frame's body
        offset: u64,
        /// count stored
        stored: u64,
        /// records read
        read: u64,
    },
    /// Bytes after the end frame.
    TrailingBytes {
        /// offset of the first extra byte
        offset: u64,
    },
    /// Writing: a record with a reserved tag, too large, or not encodable.
    Encode {
        /// offset the record would have started at
        offset: u64,
        /// its tag
        tag: u8,
    },
}

impl core::fmt::Display for LogFileError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            LogFileError::Truncated { offset, needed } => write!(
                f,
                "byte {offset}: log truncated ({needed} more bytes needed)"
            ),
            LogFileError::BadMagic { offset } => {
                write!(f, "byte {offset}: not an mlsched log (magic MLSCHLOG missing)")
            }
            LogFileError::UnsupportedVersion { offset, version } => write!(
                f,
                "byte {offset}: log format version {version} is not supported (this build reads {LOG_FORMAT_VERSION})"
            ),
            LogFileError::UnexpectedTag { offset, tag } => {
                write!(f, "byte {offset}: unexpected frame tag {tag:#04x}")
            }
            LogFileError::BadLength { offset, len } => write!(
                f,
                "byte {offset}: frame length {len} is out of range (a record body is at most \
                 {} = {} bytes, an end frame 8)",
                crate::error::Limit::RecordBytes.name(),
                crate::limits::RECORD_BYTES_MAX
            ),
            LogFileError::Checksum { offset, record } => {
                if record == u64::MAX {
                    write!(f, "byte {offset}: checksum mismatch in the header or inputs")
                } else {
                    write!(f, "byte {offset}: checksum mismatch at record {record}")
                }
            }
            LogFileError::BadInputs { offset } => {
                write!(f, "byte {offset}: the run inputs do not decode")
            }
            LogFileError::ScenarioHash { offset } => write!(
                f,
                "byte {offset}: the stored scenario does not match the header's scenario hash"
            ),
            LogFileError::RecordCount { offset, stored, read } => write!(
                f,
                "byte {offset}: end frame says {stored} records, the log holds {read}"
            ),
            LogFileError::TrailingBytes { offset } => {
                write!(f, "byte {offset}: bytes after the end of the log")
            }
            LogFileError::Encode { offset, tag } => write!(
                f,
                "byte {offset}: record with tag {tag:#04x} cannot be written (reserved tag, too large or not encodable)"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LogFileError {}

/// One record (decision or event) read back from a log file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    /// 0-based index among the records (events included).
    pub index: u64,
    /// Offset of the frame's tag byte in the file.
    pub offset: u64,
    /// The record's tag ([`crate::log`] tag ranges).
    pub tag: u8,
    /// The record's postcard body.
    pub body: &'a [u8],
}

impl Record<'_> {
    /// An event record (tag `0x01..=0x0F`, not part of `log_hash`)?
    pub fn is_event(&self) -> bool {
        crate::log::is_event_tag(self.tag)
    }
}

/// A cursor over bytes that reports offsets and never reads past the end.
#[derive(Clone, Copy, Debug)]
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn offset(&self) -> u64 {
        self.pos as u64
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], LogFileError> {
        let rest = self.bytes.get(self.pos..).unwrap_or(&[]);
        match rest.get(..n) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(LogFileError::Truncated {
                offset: self.bytes.len() as u64,
                needed: (n - rest.len()) as u64,
            }),
        }
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], LogFileError> {
        let s = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }
    fn u8(&mut self) -> Result<u8, LogFileError> {
        Ok(self.array::<1>()?[0])
    }
    fn u16(&mut self) -> Result<u16, LogFileError> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    fn u32(&mut self) -> Result<u32, LogFileError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    fn u64(&mut self) -> Result<u64, LogFileError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
}

/// The checksum of the header plus the inputs frame.
fn inputs_check(header: &[u8], body: &[u8]) -> u64 {
    let mut h = LogHash::new();
    h.bytes(header);
    h.record(TAG_INPUTS, body);
    h.value()
}

/// Reads a log file: [`LogReader::open`] checks the header and inputs, then
/// [`LogReader::next_record`] yields every decision record until the verified end frame.
#[derive(Clone, Debug)]
pub struct LogReader<'a> {
    cur: Cursor<'a>,
    header: Header,
    inputs: Inputs<'a>,
    hash: LogHash,
    frames: LogHash,
    finished: bool,
}

impl<'a> LogReader<'a> {
    /// Checks the header and the inputs frame of `bytes`.
    pub fn open(bytes: &'a [u8]) -> Result<Self, LogFileError> {
        let mut cur = Cursor { bytes, pos: 0 };
        let magic: [u8; 8] = cur.array()?;
        if magic != MAGIC {
            return Err(LogFileError::BadMagic { offset: 0 });
        }
        let version = cur.u16()?;
        if version != LOG_FORMAT_VERSION {
            return Err(LogFileError::UnsupportedVersion { offset: 8, version });
        }
        let header = Header {
            version,
            scenario_hash: cur.u64()?,
            seed: cur.u64()?,
        };
        let header_bytes = bytes.get(..HEADER_BYTES as usize).unwrap_or(&[]);
        let tag_at = cur.offset();
        let tag = cur.u8()?;
        if tag != TAG_INPUTS {
            return Err(LogFileError::UnexpectedTag {
                offset: tag_at,
                tag,
            });
        }
        let len = cur.u32()?;
        let body_at = cur.offset();
        let body = cur.take(len as usize)?;
        let check_at = cur.offset();
        if cur.u64()? != inputs_check(header_bytes, body) {
            return Err(LogFileError::Checksum {
                offset: check_at,
                record: u64::MAX,
            });
        }
        let inputs: Inputs<'a> =
            postcard::from_bytes(body).map_err(|_| LogFileError::BadInputs { offset: body_at })?;
        if scenario_hash(inputs.scenario) != header.scenario_hash {
            return Err(LogFileError::ScenarioHash { offset: body_at });
        }
        Ok(LogReader {
            cur,
            header,
            inputs,
            hash: LogHash::new(),
            frames: LogHash::new(),
            finished: false,
        })
    }

    /// The header.
    pub fn header(&self) -> Header {
        self.header
    }

    /// The run's inputs.
    pub fn inputs(&self) -> Inputs<'a> {
        self.inputs
    }

    /// The checksum of the decision records read so far (after the end: the run's `log_hash`).
    pub fn hash(&self) -> LogHash {
        self.hash
    }

    /// Records (decisions and events) read so far.
    pub fn frames(&self) -> u64 {
        self.frames.records()
    }

    /// The next record (decision or event), `Ok(None)` once the end frame has been verified (count,
    /// checksum, no trailing bytes), or the first problem found.
    pub fn next_record(&mut self) -> Result<Option<Record<'a>>, LogFileError> {
        if self.finished {
            return Ok(None);
        }
        let offset = self.cur.offset();
        let tag = self.cur.u8()?;
        let len_at = self.cur.offset();
        let len = self.cur.u32()?;
        if tag == TAG_END {
            return self.finish(len_at, len).map(|()| None);
        }
        if tag == TAG_INPUTS {
            return Err(LogFileError::UnexpectedTag { offset, tag });
        }
        if len as u64 > crate::limits::RECORD_BYTES_MAX as u64 {
            return Err(LogFileError::BadLength {
                offset: len_at,
                len,
            });
        }
        let body = self.cur.take(len as usize)?;
        let sum_at = self.cur.offset();
        let stored = self.cur.u64()?;
        let index = self.frames.records();
        self.frames.record(tag, body);
        let expect = if crate::log::is_event_tag(tag) {
            self.frames.value()
        } else {
            self.hash.record(tag, body);
            self.hash.value()
        };
        if stored != expect {
            return Err(LogFileError::Checksum {
                offset: sum_at,
                record: index,
            });
        }
        Ok(Some(Record {
            index,
            offset,
            tag,
            body,
        }))
    }

    fn finish(&mut self, len_at: u64, len: u32) -> Result<(), LogFileError> {
        if len != 8 {
            return Err(LogFileError::BadLength {
                offset: len_at,
                len,
            });
        }
        let count_at = self.cur.offset();
        let stored = self.cur.u64()?;
        let sum_at = self.cur.offset();
        let sum = self.cur.u64()?;
        if stored != self.frames.records() {
            return Err(LogFileError::RecordCount {
                offset: count_at,
                stored,
                read: self.frames.records(),
            });
        }
        if sum != self.hash.value() {
            return Err(LogFileError::Checksum {
                offset: sum_at,
                record: stored,
            });
        }
        if self.cur.offset() != self.cur.bytes.len() as u64 {
            return Err(LogFileError::TrailingBytes {
                offset: self.cur.offset(),
            });
        }
        self.finished = true;
        Ok(())
    }
}

/// Checks a whole log file without keeping its records: header, inputs, every record's
/// checksum, the end frame. Returns the header and the final checksum (`log_hash`).
pub fn verify(bytes: &[u8]) -> Result<(Header, LogHash), LogFileError> {
    let mut r = LogReader::open(bytes)?;
    // Each record consumes at least FRAME_OVERHEAD bytes, so this loop is bounded by the length.
    while r.next_record()?.is_some() {}
    Ok((r.header(), r.hash()))
}

/// A [`LogSink`] that writes the log file as the run goes: header and inputs first, one frame
/// per record, and the end frame on [`LogFileWriter::finish`].
#[cfg(feature = "alloc")]
#[derive(Clone, Debug)]
pub struct LogFileWriter {
    bytes: alloc::vec::Vec<u8>,
    hash: LogHash,
    frames: LogHash,
}

#[cfg(feature = "alloc")]
impl LogFileWriter {
    /// Starts a log: writes the header for `inputs` (`seed` = the scenario's seed) and the
    /// inputs frame.
    pub fn new(inputs: &Inputs<'_>, seed: u64) -> Result<Self, LogFileError> {
        let header = Header::new(scenario_hash(inputs.scenario), seed).to_bytes();
        let body = postcard::to_allocvec(inputs).map_err(|_| LogFileError::Encode {
            offset: HEADER_BYTES,
            tag: TAG_INPUTS,
        })?;
        let len = u32::try_from(body.len()).map_err(|_| LogFileError::Encode {
            offset: HEADER_BYTES,
            tag: TAG_INPUTS,
        })?;
        let mut bytes = alloc::vec::Vec::with_capacity(body.len() + 64);
        bytes.extend_from_slice(&header);
        bytes.push(TAG_INPUTS);
        bytes.extend_from_slice(&len.to_le_bytes());
        bytes.extend_from_slice(&body);
        bytes.extend_from_slice(&inputs_check(&header, &body).to_le_bytes());
        Ok(LogFileWriter {
            bytes,
            hash: LogHash::new(),
            frames: LogHash::new(),
        })
    }

    /// Appends one already-encoded record: a decision, or an event if `tag` is `0x01..=0x0F`.
    pub fn push(&mut self, tag: u8, body: &[u8]) -> Result<(), LogFileError> {
        let err = LogFileError::Encode {
            offset: self.bytes.len() as u64,
            tag,
        };
        if tag == TAG_INPUTS || tag == TAG_END || body.len() > crate::limits::RECORD_BYTES_MAX {
            return Err(err);
        }
        let len = u32::try_from(body.len()).map_err(|_| err)?;
        self.frames.record(tag, body);
        let check = if crate::log::is_event_tag(tag) {
            self.frames.value()
        } else {
            self.hash.record(tag, body);
            self.hash.value()
        };
        self.bytes.push(tag);
        self.bytes.extend_from_slice(&len.to_le_bytes());
        self.bytes.extend_from_slice(body);
        self.bytes.extend_from_slice(&check.to_le_bytes());
        Ok(())
    }

    /// Writes the end frame and returns the file's bytes.
    pub fn finish(mut self) -> alloc::vec::Vec<u8> {
        self.bytes.push(TAG_END);
        self.bytes.extend_from_slice(&8u32.to_le_bytes());
        self.bytes
            .extend_from_slice(&self.frames.records().to_le_bytes());
        self.bytes
            .extend_from_slice(&self.hash.value().to_le_bytes());
        self.bytes
    }
}

#[cfg(feature = "alloc")]
impl LogSink for LogFileWriter {
    fn record<T: Serialize + ?Sized>(&mut self, tag: u8, rec: &T) -> Result<(), LogError> {
        let body = postcard::to_allocvec(rec).map_err(|_| LogError::Encode)?;
        if body.len() > crate::limits::RECORD_BYTES_MAX {
            return Err(LogError::RecordTooLarge { tag });
        }
        self.push(tag, &body).map_err(|_| LogError::Encode)
    }
    fn hash(&self) -> LogHash {
        self.hash
    }
    fn event<T: Serialize + ?Sized>(&mut self, tag: u8, rec: &T) -> Result<(), LogError> {
        self.record(tag, rec)
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use crate::log::{HashSink, TAG_OASIS};
    use alloc::vec::Vec;

    const INPUTS: Inputs<'static> = Inputs {
        scenario: "{}",
        policy: None,
        all_categories: false,
    };

    fn sample() -> Vec<u8> {
        let mut w = LogFileWriter::new(&INPUTS, 7).unwrap();
        w.record(TAG_OASIS, &(1u32, true)).unwrap();
        w.record(TAG_OASIS + 1, &2.5f64).unwrap();
        w.finish()
    }

    fn hex(b: &[u8]) -> alloc::string::String {
        use core::fmt::Write;
        let mut s = alloc::string::String::new();
        for x in b {
            let _ = write!(s, "{x:02x}");
        }
        s
    }

    /// The format is a contract: these bytes only change with LOG_FORMAT_VERSION.
    #[test]
    fn golden_bytes() {
        let b = sample();
        let expect = concat!(
            "4d4c5343484c4f47", // magic MLSCHLOG
            "0100",             // version 1
            "251a90b5074bf408", // FNV-1a of "{}"
            "0700000000000000", // seed 7
            "00",
            "05000000",
            "027b7d0000",       // inputs: len 5, str "{}", None, false
            "b709a4986a3b3869", // header+inputs check
            "10",
            "02000000",
            "0101",             // record 0: (1u32, true)
            "a3b58d0fc2a9c03c", // running hash
            "11",
            "08000000",
            "0000000000000440", // record 1: 2.5f64
            "fa3205ba74439dd4", // running hash = log_hash
            "ff",
            "08000000",
            "0200000000000000", // end: 2 records
            "fa3205ba74439dd4",
        );
        assert_eq!(hex(&b), expect);
        let (h, hash) = verify(&b).unwrap();
        assert_eq!(h, Header::new(scenario_hash("{}"), 7));
        assert_eq!(hash.hex().as_str(), "d49d4374ba0532fa");
    }

    #[test]
    fn writer_hash_equals_hash_sink() {
        let mut w = LogFileWriter::new(&INPUTS, 0).unwrap();
        let mut h = HashSink::new();
        for i in 0..50u32 {
            w.record(TAG_OASIS, &(i, i as f64 / 3.0)).unwrap();
            h.record(TAG_OASIS, &(i, i as f64 / 3.0)).unwrap();
        }
        assert_eq!(w.hash(), h.hash());
        let bytes = w.finish();
        let mut r = LogReader::open(&bytes).unwrap();
        assert_eq!(r.inputs(), INPUTS);
        let mut n = 0;
        while let Some(rec) = r.next_record().unwrap() {
            assert_eq!(rec.index, n);
            n += 1;
        }
        assert_eq!(n, 50);
        assert_eq!(r.hash(), h.hash());
    }

    /// Event records (tags 0x01..=0x0F) are framed and checked but stay out of `log_hash`.
    #[test]
    fn event_frames_are_kept_checked_and_not_hashed() {
        use crate::log::{TAG_EVENT_ARRIVAL, TAG_EVENT_SLOT};
        let mut w = LogFileWriter::new(&INPUTS, 7).unwrap();
        w.event(TAG_EVENT_ARRIVAL, &(0u32, 1u32)).unwrap();
        w.record(TAG_OASIS, &(1u32, true)).unwrap();
        w.event(TAG_EVENT_SLOT, &0u32).unwrap();
        w.record(TAG_OASIS + 1, &2.5f64).unwrap();
        let b = w.finish();
        // The same decisions without events: the same log_hash as the golden sample.
        let (_, hash) = verify(&b).unwrap();
        assert_eq!(hash, verify(&sample()).unwrap().1);
        let mut r = LogReader::open(&b).unwrap();
        let mut kinds = Vec::new();
        while let Some(rec) = r.next_record().unwrap() {
            kinds.push((rec.index, rec.is_event()));
        }
        assert_eq!(kinds, [(0, true), (1, false), (2, true), (3, false)]);
        assert_eq!(r.frames(), 4);
        for i in 0..b.len() {
            let mut c = b.clone();
            c[i] ^= 0x10;
            assert!(verify(&c).is_err(), "flip byte {i} accepted");
        }
        // Dropping the slot event (its 1 + 4 + 1 + 8 bytes) breaks the frame count.
        let at = b.len() - (1 + 4 + 8 + 8) - (1 + 4 + 8 + 8) - (1 + 4 + 1 + 8);
        let mut d = b[..at].to_vec();
        d.extend_from_slice(&b[at + 14..]);
        assert!(matches!(
            verify(&d).unwrap_err(),
            LogFileError::RecordCount {
                stored: 4,
                read: 3,
                ..
            }
        ));
    }

    #[test]
    fn every_truncation_is_an_error() {
        let b = sample();
        for cut in 0..b.len() {
            let e = verify(&b[..cut]).unwrap_err();
            assert!(
                matches!(
                    e,
                    LogFileError::Truncated { .. } | LogFileError::BadLength { .. }
                ),
                "cut {cut}: {e}"
            );
        }
    }

    #[test]
    fn every_byte_flip_is_an_error() {
        let b = sample();
        for i in 0..b.len() {
            for bit in 0..8 {
                let mut c = b.clone();
                c[i] ^= 1 << bit;
                assert!(verify(&c).is_err(), "flip byte {i} bit {bit} accepted");
            }
        }
    }

    #[test]
    fn errors_name_offsets() {
        let mut b = sample();
        b.push(0);
        assert_eq!(
            verify(&b).unwrap_err(),
            LogFileError::TrailingBytes {
                offset: b.len() as u64 - 1
            }
        );
        let mut c = sample();
        c[8] = 9;
        assert_eq!(
            verify(&c).unwrap_err(),
            LogFileError::UnsupportedVersion {
                offset: 8,
                version: 9
            }
        );
        assert_eq!(
            verify(b"MLSCHLOX").unwrap_err(),
            LogFileError::BadMagic { offset: 0 }
        );
        let mut w = LogFileWriter::new(&INPUTS, 0).unwrap();
        assert!(w.push(TAG_END, &[]).is_err());
        assert!(w.push(TAG_INPUTS, &[]).is_err());
    }
}
