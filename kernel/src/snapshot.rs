//! Snapshots of scheduler state: a control plane that restarts restores its scheduler and the
//! decisions that follow are the ones an uninterrupted run would have made.
//!
//! # Format (version [`SNAPSHOT_FORMAT_VERSION`] = 3)
//! ```text
//! magic "MLSS" (4) | version u16 LE | kind u8 | len u32 LE | postcard(state) | check u64 LE
//! ```
//! - `kind` names what the state is ([`KIND_CORE`], or the algorithm family's log tag:
//!   [`crate::log::TAG_OASIS`] 0x10, [`crate::log::TAG_ONLINE`] 0x20,
//!   [`crate::log::TAG_PLACEMENT`] 0x30, [`crate::log::TAG_PREEMPT`] 0x40,
//!   [`crate::log::TAG_ROUTE`] 0x50) so a snapshot of one scheduler is never restored as
//!   another;
//! - `len` is the byte length of the postcard body; `check` is FNV-1a 64 over every byte
//!   before it (header and body);
//! - the body is the scheduler's *state* in postcard (varints, **no `usize`**: `usize` is 32
//!   bits on wasm32 and 64 natively, so every count or index in a body is a `u32` / `u64` on
//!   the wire, through [`usize_as_u32`] where the in-memory field stays `usize`): the
//!   OASiS [`crate::oasis::OasisState`] (market usage and prices, decided flags, clock), the
//!   Zhou et al. `OnlineState` (usage, pending / arrived / scheduled jobs, next round, clock),
//!   the whole Wang et al. `PreemptScheduler` (its scenario, plans, placements, PRNGs), the whole
//!   HAS/JPS `Placer`, and the CSRP `RouteState` (link load, lanes, queue, plans, paths, PRNG,
//!   clock). Scratch that a decision rebuilds before reading is not part of a state.
//!
//! Any change of the envelope or of a state's layout bumps the version; a snapshot of another
//! version is refused ([`SnapshotError::UnsupportedVersion`]), never misread.
//!
//! ## Versions
//! - 1: first layout.
//! - 2: the last `usize` fields of the bodies are `u32` on the wire: the Wang et al. plan
//!   store's `cap` and `fresh`, and the HAS/JPS instance's `s` / `k` and the market and exact
//!   solver's `s` / `c`. Postcard writes both as the same varint while a value fits 32 bits,
//!   but a version-1 body could carry a 64-bit value that a wasm32 build cannot decode;
//!   a version-2 body decodes alike on every target, and a value beyond `u32::MAX` is an
//!   encode error, never truncated.
//! - 3: the OASiS market is sparse: each pool carries per server its usage breakpoints (slot,
//!   usage and eq. (22) price per resource) instead of dense slot x server x resource grids.
//!
//! # Restoring
//! Scheduler values implement [`Snapshot`]: build the scheduler from its model as at the first
//! start, then [`Snapshot::restore_snapshot`] the bytes into it. The envelope is checked
//! (magic, version, kind, length, checksum, no trailing bytes), the body decoded, and then the
//! decoded state is **validated against the model** of the scheduler it goes into: every
//! length, index, count and float the later decisions read (indices in range, lengths equal
//! to the model's dimensions, linked lists acyclic, usage finite and within capacity, prices
//! equal to eq. 22 of their usage, ...). A state that decodes but breaks one of these is a
//! typed [`SnapshotError::Invalid`] naming the field, and the scheduler is left unchanged —
//! so a crafted or corrupted snapshot can never make a later decision panic or loop.
//! Core values ([`crate::ledger::Ledger`], [`crate::rng::SplitMix64`]) re-check their own
//! invariants in `Deserialize` and go through [`restore`] directly; so do the scheduler
//! *states* that only enter a scheduler through its validating restore ([`RawRestore`]).
//! Whole scheduler values (`PreemptScheduler`, `Placer`) have no unvalidated public restore.
use crate::log::LogHash;
use serde::{Deserialize, Serialize};

/// The 4 magic bytes that open every snapshot.
pub const SNAPSHOT_MAGIC: [u8; 4] = *b"MLSS";
/// Version of the snapshot envelope; bump on any change of it or of a state's layout.
pub const SNAPSHOT_FORMAT_VERSION: u16 = 3;
/// Bytes before the body: magic, version, kind, length.
pub const SNAPSHOT_HEADER_BYTES: u64 = 11;
/// `kind` of a snapshot of core state (ledgers, PRNGs, log hashes; no algorithm).
pub const KIND_CORE: u8 = 0x00;

/// Why a snapshot could not be written or read. Offsets are bytes from its start.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotError {
    /// The snapshot ends early.
    Truncated {
        /// where the missing bytes start
        offset: u64,
    },
    /// The snapshot does not start with [`SNAPSHOT_MAGIC`].
    BadMagic,
    /// The header names a format version this build cannot read.
    UnsupportedVersion {
        /// version found
        version: u16,
    },
    /// The snapshot holds another kind of state than the one restoring it.
    WrongKind {
        /// kind asked for
        expected: u8,
        /// kind found
        found: u8,
    },
    /// The checksum does not match the bytes.
    Checksum {
        /// offset of the stored checksum
        offset: u64,
    },
    /// The body does not decode into the state, or the state's invariants do not hold.
    Decode {
        /// offset of the body
        offset: u64,
    },
    /// Bytes follow the checksum.
    TrailingBytes {
        /// offset of the first extra byte
        offset: u64,
    },
    /// The state could not be encoded (or does not fit the buffer given).
    Encode,
    /// The state decodes but breaks an invariant against the model it is restored into.
    Invalid {
        /// the state's field (path) that is inconsistent
        field: &'static str,
        /// the offending element of that field, when it is a sequence
        index: Option<u32>,
    },
}

impl core::fmt::Display for SnapshotError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            SnapshotError::Truncated { offset } => write!(f, "byte {offset}: snapshot truncated"),
            SnapshotError::BadMagic => f.write_str("byte 0: not an mlsched snapshot"),
            SnapshotError::UnsupportedVersion { version } => write!(
                f,
                "byte 4: snapshot version {version} is not supported (this build reads {SNAPSHOT_FORMAT_VERSION})"
            ),
            SnapshotError::WrongKind { expected, found } => write!(
                f,
                "byte 6: snapshot of kind {found:#04x}, expected {expected:#04x}"
            ),
            SnapshotError::Checksum { offset } => {
                write!(f, "byte {offset}: snapshot checksum mismatch")
            }
            SnapshotError::Decode { offset } => {
                write!(f, "byte {offset}: snapshot state does not decode or is inconsistent")
            }
            SnapshotError::TrailingBytes { offset } => {
                write!(f, "byte {offset}: bytes after the end of the snapshot")
            }
            SnapshotError::Encode => f.write_str("the state could not be encoded"),
            SnapshotError::Invalid { field, index } => match index {
                Some(i) => write!(f, "snapshot state field `{field}` [{i}] is inconsistent"),
                None => write!(f, "snapshot state field `{field}` is inconsistent"),
            },
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for SnapshotError {}

/// [`SnapshotError::Invalid`] for a scalar field.
pub const fn invalid(field: &'static str) -> SnapshotError {
    SnapshotError::Invalid { field, index: None }
}

/// [`SnapshotError::Invalid`] for element `index` of a sequence field.
pub fn invalid_at(field: &'static str, index: usize) -> SnapshotError {
    SnapshotError::Invalid {
        field,
        index: Some(u32::try_from(index).unwrap_or(u32::MAX)),
    }
}

/// `Ok` when `ok`, else [`invalid`] of `field`.
pub fn ensure(ok: bool, field: &'static str) -> Result<(), SnapshotError> {
    if ok {
        Ok(())
    } else {
        Err(invalid(field))
    }
}

/// A scheduler value whose state survives a restart through a snapshot of kind
/// [`Snapshot::KIND`]. Restoring goes into a scheduler freshly built from the same model, and
/// checks the decoded state against that model first (see the module docs).
pub trait Snapshot {
    /// The `kind` byte of its snapshots (the algorithm family's log tag).
    const KIND: u8;

    /// Writes a snapshot of the current state into `buf` (no allocation); returns the bytes.
    fn snapshot_into<'b>(&self, buf: &'b mut [u8]) -> Result<&'b [u8], SnapshotError>;

    /// A snapshot of the current state as a new vector.
    #[cfg(feature = "alloc")]
    fn snapshot(&self) -> Result<alloc::vec::Vec<u8>, SnapshotError>;

    /// Replaces the state of `self` by the snapshot's after checking the envelope and
    /// validating the state against the model `self` was built from; on any error `self` is
    /// unchanged. Decisions after it are those of the uninterrupted run.
    fn restore_snapshot(&mut self, bytes: &[u8]) -> Result<(), SnapshotError>;
}

fn header(kind: u8, len: u32) -> [u8; SNAPSHOT_HEADER_BYTES as usize] {
    let mut h = [0u8; SNAPSHOT_HEADER_BYTES as usize];
    h[..4].copy_from_slice(&SNAPSHOT_MAGIC);
    h[4..6].copy_from_slice(&SNAPSHOT_FORMAT_VERSION.to_le_bytes());
    h[6] = kind;
    h[7..11].copy_from_slice(&len.to_le_bytes());
    h
}

fn check(bytes: &[u8]) -> u64 {
    let mut h = LogHash::new();
    h.bytes(bytes);
    h.value()
}

/// Writes a snapshot of `state` into `buf` (no allocation); returns the bytes written.
pub fn save_into<'b, T: Serialize + ?Sized>(
    kind: u8,
    state: &T,
    buf: &'b mut [u8],
) -> Result<&'b [u8], SnapshotError> {
    let head = SNAPSHOT_HEADER_BYTES as usize;
    let body_len = {
        let body_buf = buf.get_mut(head..).ok_or(SnapshotError::Encode)?;
        postcard::to_slice(state, body_buf)
            .map_err(|_| SnapshotError::Encode)?
            .len()
    };
    let len = u32::try_from(body_len).map_err(|_| SnapshotError::Encode)?;
    let end = head + body_len;
    buf.get_mut(..head)
        .ok_or(SnapshotError::Encode)?
        .copy_from_slice(&header(kind, len));
    let sum = check(buf.get(..end).ok_or(SnapshotError::Encode)?);
    buf.get_mut(end..end + 8)
        .ok_or(SnapshotError::Encode)?
        .copy_from_slice(&sum.to_le_bytes());
    buf.get(..end + 8).ok_or(SnapshotError::Encode)
}

/// A snapshot of `state` as a new vector.
#[cfg(feature = "alloc")]
pub fn save<T: Serialize + ?Sized>(
    kind: u8,
    state: &T,
) -> Result<alloc::vec::Vec<u8>, SnapshotError> {
    let body = postcard::to_allocvec(state).map_err(|_| SnapshotError::Encode)?;
    let len = u32::try_from(body.len()).map_err(|_| SnapshotError::Encode)?;
    let mut out = alloc::vec::Vec::with_capacity(body.len() + 19);
    out.extend_from_slice(&header(kind, len));
    out.extend_from_slice(&body);
    let sum = check(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    Ok(out)
}

/// A value [`restore`] may hand out straight from a snapshot's bytes, because using it cannot
/// skip a check: its `Deserialize` re-checks every invariant its later use relies on
/// ([`crate::ledger::Ledger`], [`crate::rng::SplitMix64`]), or it is a scheduler *state* that
/// only enters a scheduler through that scheduler's validating restore
/// ([`crate::oasis::OasisState`] via `OasisScheduler::restore`, `OnlineState` via
/// `OnlineScheduler::restore`, `RouteState` via `RouteScheduler::restore`).
///
/// Whole scheduler values (the Wang et al. `PreemptScheduler`, the HAS/JPS `Placer`) are
/// deliberately not: a decoded one could make decisions without ever being checked against
/// its model, so they restore only through [`Snapshot::restore_snapshot`]. An embedder may
/// implement this for its own composite of such values (its `Deserialize` must then keep the
/// same promise).
pub trait RawRestore {}

impl RawRestore for crate::rng::SplitMix64 {}
impl<S: AsRef<[f64]> + AsMut<[f64]>> RawRestore for crate::ledger::Ledger<S> {}
#[cfg(feature = "alloc")]
impl RawRestore for crate::oasis::OasisState {}
#[cfg(feature = "alloc")]
impl RawRestore for crate::online::OnlineState {}
#[cfg(feature = "alloc")]
impl RawRestore for crate::route::RouteState {}
impl<A: RawRestore, B: RawRestore> RawRestore for (A, B) {}
impl<A: RawRestore, B: RawRestore, C: RawRestore> RawRestore for (A, B, C) {}

/// Reads a snapshot of `kind` back into a state value, checking magic, version, kind, length,
/// checksum, the state's own invariants and that nothing follows. Only for [`RawRestore`]
/// values; a scheduler restores with [`Snapshot::restore_snapshot`], which also validates the
/// state against its model.
pub fn restore<'de, T: Deserialize<'de> + RawRestore>(
    kind: u8,
    bytes: &'de [u8],
) -> Result<T, SnapshotError> {
    decode(kind, bytes)
}

/// [`restore`] without the [`RawRestore`] bound: the envelope checks and the decode only. For
/// the [`Snapshot`] implementations, which validate what it returns before using it.
pub(crate) fn decode<'de, T: Deserialize<'de>>(
    kind: u8,
    bytes: &'de [u8],
) -> Result<T, SnapshotError> {
    let head = SNAPSHOT_HEADER_BYTES as usize;
    let h = bytes.get(..head).ok_or(SnapshotError::Truncated {
        offset: bytes.len() as u64,
    })?;
    if h.get(..4) != Some(&SNAPSHOT_MAGIC[..]) {
        return Err(SnapshotError::BadMagic);
    }
    let version = u16::from_le_bytes([h[4], h[5]]);
    if version != SNAPSHOT_FORMAT_VERSION {
        return Err(SnapshotError::UnsupportedVersion { version });
    }
    if h[6] != kind {
        return Err(SnapshotError::WrongKind {
            expected: kind,
            found: h[6],
        });
    }
    let len = u32::from_le_bytes([h[7], h[8], h[9], h[10]]) as usize;
    let end = head.checked_add(len).ok_or(SnapshotError::Truncated {
        offset: bytes.len() as u64,
    })?;
    let truncated = SnapshotError::Truncated {
        offset: bytes.len() as u64,
    };
    let body = bytes.get(head..end).ok_or(truncated)?;
    let total = end.checked_add(8).ok_or(truncated)?;
    let stored = bytes.get(end..total).ok_or(truncated)?;
    let mut s = [0u8; 8];
    s.copy_from_slice(stored);
    if u64::from_le_bytes(s) != check(bytes.get(..end).ok_or(truncated)?) {
        return Err(SnapshotError::Checksum { offset: end as u64 });
    }
    if bytes.len() != total {
        return Err(SnapshotError::TrailingBytes {
            offset: total as u64,
        });
    }
    let (state, rest) = postcard::take_from_bytes(body).map_err(|_| SnapshotError::Decode {
        offset: SNAPSHOT_HEADER_BYTES,
    })?;
    if !rest.is_empty() {
        return Err(SnapshotError::Decode {
            offset: (end - rest.len()) as u64,
        });
    }
    Ok(state)
}

/// Serde adapter for a `usize` field of a snapshot body: `u32` on the wire, so the body is
/// the same on 32- and 64-bit targets (`#[serde(with = "crate::snapshot::usize_as_u32")]`).
/// A value beyond `u32::MAX` is an encode error and one beyond `usize::MAX` a decode error,
/// never a truncation.
pub mod usize_as_u32 {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Writes `v` as a `u32`, or errors if it does not fit.
    pub fn serialize<S: Serializer>(v: &usize, s: S) -> Result<S::Ok, S::Error> {
        u32::try_from(*v)
            .map_err(|_| <S::Error as serde::ser::Error>::custom("usize field exceeds u32"))?
            .serialize(s)
    }

    /// Reads a `u32` back into a `usize`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
        let v = u32::deserialize(d)?;
        usize::try_from(v)
            .map_err(|_| <D::Error as serde::de::Error>::custom("u32 field exceeds usize"))
    }
}

#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use crate::ledger::Ledger;
    use crate::resources::ResourceVec;
    use crate::rng::SplitMix64;
    use alloc::vec::Vec;

    type Core = (Ledger<Vec<f64>>, SplitMix64);

    fn core() -> Core {
        let caps = [
            ResourceVec::from_slice(&[4.0, 8.0]).unwrap(),
            ResourceVec::from_slice(&[2.0, 16.0]).unwrap(),
        ];
        let mut l = Ledger::with_capacities(3, &caps).unwrap();
        let d = ResourceVec::from_slice(&[1.0, 2.5]).unwrap();
        l.reserve(0, 2, 1, &d, 2).unwrap();
        (l, SplitMix64::new(5))
    }

    #[test]
    fn golden_bytes_of_a_small_rng_snapshot() {
        let b = save(KIND_CORE, &SplitMix64::new(1)).unwrap();
        // magic, version 2, kind 0, len 1, postcard varint 1, FNV-1a of the 12 bytes before.
        assert_eq!(&b[..12], b"MLSS\x03\x00\x00\x01\x00\x00\x00\x01");
        assert_eq!(b.len(), 20);
        assert_eq!(&b[12..], &check(&b[..12]).to_le_bytes());
        let r: SplitMix64 = restore(KIND_CORE, &b).unwrap();
        assert_eq!(r, SplitMix64::new(1));
    }

    #[test]
    fn ledger_and_rng_round_trip_and_continue_identically() {
        let (mut l, mut r) = core();
        let bytes = save(KIND_CORE, &(&l, &r)).unwrap();
        let mut buf = [0u8; 512];
        assert_eq!(
            save_into(KIND_CORE, &(&l, &r), &mut buf).unwrap(),
            &bytes[..]
        );
        let (mut l2, mut r2): Core = restore(KIND_CORE, &bytes).unwrap();
        let d = ResourceVec::from_slice(&[1.0, 1.0]).unwrap();
        for _ in 0..20 {
            let s = r.below(3) as u32;
            assert_eq!(s, r2.below(3) as u32);
            assert_eq!(l.reserve(s, 3, 0, &d, 1), l2.reserve(s, 3, 0, &d, 1));
        }
        assert_eq!(l.usage_cells(), l2.usage_cells());
    }

    #[test]
    fn corrupt_snapshots_are_typed_errors() {
        let (l, r) = core();
        let b = save(KIND_CORE, &(&l, &r)).unwrap();
        for cut in 0..b.len() {
            assert!(restore::<Core>(KIND_CORE, &b[..cut]).is_err(), "cut {cut}");
        }
        for i in 0..b.len() {
            let mut c = b.clone();
            c[i] ^= 0x40;
            assert!(restore::<Core>(KIND_CORE, &c).is_err(), "flip {i}");
        }
        assert_eq!(
            restore::<Core>(0x10, &b).unwrap_err(),
            SnapshotError::WrongKind {
                expected: 0x10,
                found: 0
            }
        );
        let mut small = [0u8; 8];
        assert_eq!(
            save_into(KIND_CORE, &(&l, &r), &mut small).unwrap_err(),
            SnapshotError::Encode
        );
    }

    #[test]
    fn usize_fields_are_u32_on_the_wire() {
        #[derive(Debug, PartialEq, Serialize, Deserialize)]
        struct S {
            #[serde(with = "usize_as_u32")]
            n: usize,
        }
        let b = postcard::to_allocvec(&S { n: 300 }).unwrap();
        assert_eq!(b, postcard::to_allocvec(&300u32).unwrap());
        assert_eq!(postcard::from_bytes::<S>(&b).unwrap(), S { n: 300 });
        // More than 32 bits on the wire is refused, not truncated.
        let big = postcard::to_allocvec(&(u64::from(u32::MAX) + 1)).unwrap();
        assert!(postcard::from_bytes::<S>(&big).is_err());
        #[cfg(target_pointer_width = "64")]
        {
            let n = usize::try_from(u64::from(u32::MAX) + 1).unwrap();
            assert_eq!(save(KIND_CORE, &S { n }), Err(SnapshotError::Encode));
            let mut buf = [0u8; 64];
            assert_eq!(
                save_into(KIND_CORE, &S { n }, &mut buf).unwrap_err(),
                SnapshotError::Encode
            );
        }
    }

    #[test]
    fn invalid_names_the_field() {
        let e = invalid_at("plans.segs", 3);
        assert_eq!(
            e,
            SnapshotError::Invalid {
                field: "plans.segs",
                index: Some(3)
            }
        );
        assert_eq!(
            alloc::format!("{e}"),
            "snapshot state field `plans.segs` [3] is inconsistent"
        );
        assert_eq!(
            alloc::format!("{}", invalid("totals")),
            "snapshot state field `totals` is inconsistent"
        );
        assert_eq!(ensure(true, "x"), Ok(()));
        assert_eq!(ensure(false, "x"), Err(invalid("x")));
    }

    #[test]
    fn inconsistent_ledger_state_is_refused() {
        // A well-formed snapshot (good checksum) of a ledger whose usage is shorter than its
        // shape: Deserialize must refuse it instead of indexing out of range later.
        #[derive(Serialize)]
        struct Bad {
            slots: u32,
            servers: u32,
            resources: u32,
            capacity: Vec<f64>,
            usage: Vec<f64>,
        }
        let bad = Bad {
            slots: 3,
            servers: 1,
            resources: 2,
            capacity: alloc::vec![1.0, 1.0],
            usage: alloc::vec![0.0],
        };
        let b = save(KIND_CORE, &bad).unwrap();
        assert_eq!(
            restore::<Ledger<Vec<f64>>>(KIND_CORE, &b).unwrap_err(),
            SnapshotError::Decode { offset: 11 }
        );
        let neg = Bad {
            usage: alloc::vec![-1.0; 6],
            ..bad
        };
        let b = save(KIND_CORE, &neg).unwrap();
        assert!(restore::<Ledger<Vec<f64>>>(KIND_CORE, &b).is_err());
    }
}
