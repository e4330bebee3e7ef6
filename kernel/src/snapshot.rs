//! Snapshots of scheduler state: a control plane that restarts restores its scheduler and the
//! decisions that follow are the ones an uninterrupted run would have made.
//!
//! ```text
//! magic "MLSS" (4) | version u16 LE | kind u8 | len u32 LE | postcard(state) | check u64 LE
//! ```
//! `kind` names what the state is ([`KIND_CORE`], or the algorithm family's log tag such as
//! [`crate::log::TAG_OASIS`]) so a snapshot of one scheduler is never restored as another;
//! `check` is FNV-1a 64 over every byte before it. The state is any `Serialize` value whose
//! `Deserialize` re-checks its invariants (the [`crate::ledger::Ledger`] does), so a corrupted
//! snapshot is a typed [`SnapshotError`] with the byte offset, never a panic later.
use crate::log::LogHash;
use serde::{Deserialize, Serialize};

/// The 4 magic bytes that open every snapshot.
pub const SNAPSHOT_MAGIC: [u8; 4] = *b"MLSS";
/// Version of the snapshot envelope; bump on any change of it or of a state's layout.
pub const SNAPSHOT_FORMAT_VERSION: u16 = 1;
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
    /// A version this build cannot read.
    UnsupportedVersion {
        /// version found
        version: u16,
    },
    /// A snapshot of another kind of state.
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
    /// Bytes after the checksum.
    TrailingBytes {
        /// offset of the first extra byte
        offset: u64,
    },
    /// The state could not be encoded (or does not fit the buffer given).
    Encode,
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
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for SnapshotError {}

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

/// Reads a snapshot of `kind` back into a state value, checking magic, version, kind, length,
/// checksum, the state's own invariants and that nothing follows.
pub fn restore<'de, T: Deserialize<'de>>(kind: u8, bytes: &'de [u8]) -> Result<T, SnapshotError> {
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
        // magic, version 1, kind 0, len 1, postcard varint 1, FNV-1a of the 12 bytes before.
        assert_eq!(&b[..12], b"MLSS\x01\x00\x00\x01\x00\x00\x00\x01");
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
