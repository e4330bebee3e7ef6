//! Kind `"oasis"`: servers `w<h>` (worker server h of `worker_servers`) and `ps<k>` (parameter
//! server server k of `ps_servers`); roles `worker` and `ps`; one slot per `placements` entry.
use crate::kinds::oasis::doc::OasisJobResult;
use crate::occupancy::{Builder, Role, Span};

/// The occupancy of an `"oasis"` result's jobs: every `placements` entry holds its workers and
/// parameter servers for that one slot (elastic counts: consecutive equal slots merge).
pub fn spans(jobs: &[OasisJobResult]) -> Vec<Span> {
    let mut b = Builder::default();
    for j in jobs {
        for p in &j.placements {
            let slot = (p.slot as u64, p.slot as u64 + 1);
            for &[h, n] in &p.workers {
                b.hold(&j.id, format!("w{h}"), Role::Worker, n as u64, slot);
            }
            for &[k, n] in &p.ps {
                b.hold(&j.id, format!("ps{k}"), Role::Ps, n as u64, slot);
            }
        }
    }
    b.finish()
}
