//! Engine snapshots: the events fed so far, tied to the scenario and options by a fingerprint.
//!
//! Version 2 holds the open-world events (`docs/open-world.md`) and submissions as their JSON
//! text; version 1 snapshots are refused with their version named.
//!
//! Layout (postcard): magic `b"MLSE"`, format version, FNV-1a-64 fingerprint of the scenario
//! text and options, the finished flag, the events, then a FNV-1a-64 checksum of everything
//! before it.
use super::Fed;
use crate::error::{InputError, RunError};
use crate::run::RunOptions;
use serde::{Deserialize, Serialize};

const MAGIC: [u8; 4] = *b"MLSE";
/// Format version of engine snapshots.
pub const VERSION: u32 = 2;

#[derive(Serialize, Deserialize)]
struct Body {
    magic: [u8; 4],
    version: u32,
    fingerprint: u64,
    finished: bool,
    events: Vec<Fed>,
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Identifies a scenario text and the options it runs with.
pub fn fingerprint(scenario: &str, opts: &RunOptions) -> u64 {
    let mut bytes = scenario.as_bytes().to_vec();
    bytes.push(0);
    bytes.extend_from_slice(opts.policy.as_deref().unwrap_or("").as_bytes());
    bytes.push(0);
    bytes.push(opts.all_categories as u8);
    fnv(&bytes)
}

pub(crate) fn encode(fingerprint: u64, events: &[Fed], finished: bool) -> Vec<u8> {
    let body = Body {
        magic: MAGIC,
        version: VERSION,
        fingerprint,
        finished,
        events: events.to_vec(),
    };
    let mut bytes = postcard::to_allocvec(&body).unwrap_or_default();
    let sum = fnv(&bytes);
    bytes.extend_from_slice(&sum.to_le_bytes());
    bytes
}

pub(crate) fn decode(bytes: &[u8]) -> Result<(u64, Vec<Fed>, bool), RunError> {
    let bad = |why: &str| RunError::Input(InputError::new("snapshot", "bytes", why.to_string()));
    let split = bytes
        .len()
        .checked_sub(8)
        .ok_or_else(|| bad("too short to be an engine snapshot"))?;
    let (body, sum) = bytes.split_at(split);
    let mut le = [0u8; 8];
    le.copy_from_slice(sum);
    if fnv(body) != u64::from_le_bytes(le) {
        return Err(bad("checksum mismatch (truncated or corrupted)"));
    }
    let b: Body = postcard::from_bytes(body).map_err(|_| bad("not an engine snapshot"))?;
    if b.magic != MAGIC {
        return Err(bad("not an engine snapshot"));
    }
    if b.version != VERSION {
        return Err(bad(&format!(
            "format version {} (this build reads {VERSION})",
            b.version
        )));
    }
    Ok((b.fingerprint, b.events, b.finished))
}
