//! Kind `"online"`: servers `h<h>` (server h of `servers`); roles `worker` and `ps`; a scheduled
//! job holds its `placement` from `start_slot` to `completion_slot`.
use crate::kinds::online::doc::OnlineJobResult;
use crate::occupancy::{Builder, Role, Span};

/// The occupancy of an `"online"` result's jobs: each `[server, workers, ps]` of a job's
/// `placement` over `start_slot..completion_slot` (a job without both holds nothing).
pub fn spans(jobs: &[OnlineJobResult]) -> Vec<Span> {
    let mut b = Builder::default();
    for j in jobs {
        let (Some(a), Some(c)) = (j.start_slot, j.completion_slot) else {
            continue;
        };
        let run = (a as u64, c as u64);
        for &[h, y, s] in &j.placement {
            b.hold(&j.id, format!("h{h}"), Role::Worker, y as u64, run);
            b.hold(&j.id, format!("h{h}"), Role::Ps, s as u64, run);
        }
    }
    b.finish()
}
