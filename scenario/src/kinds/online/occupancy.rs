//! Kind `"online"`: servers `h<h>` (server h of `servers`); roles `worker` and `ps`; a scheduled
//! job holds its `placement` from `start_slot` to `completion_slot`, and each of its `cut_runs`
//! (open world) its placement from that run's `start_slot` to its `end_slot`.
use crate::kinds::online::doc::OnlineJobResult;
use crate::occupancy::{Builder, Role, Span};

/// The occupancy of an `"online"` result's jobs: each `[server, workers, ps]` of a job's
/// `placement` over `start_slot..completion_slot` (a job without both holds nothing), and each
/// cut run's placement over `start_slot..end_slot`.
pub fn spans(jobs: &[OnlineJobResult]) -> Vec<Span> {
    let mut b = Builder::default();
    for j in jobs {
        for c in &j.cut_runs {
            hold(&mut b, &j.id, &c.placement, (c.start_slot, c.end_slot));
        }
        if let (Some(a), Some(c)) = (j.start_slot, j.completion_slot) {
            hold(&mut b, &j.id, &j.placement, (a, c));
        }
    }
    b.finish()
}

fn hold(b: &mut Builder, id: &str, placement: &[[u32; 3]], (a, c): (u32, u32)) {
    let run = (a as u64, c as u64);
    for &[h, y, s] in placement {
        b.hold(id, format!("h{h}"), Role::Worker, y as u64, run);
        b.hold(id, format!("h{h}"), Role::Ps, s as u64, run);
    }
}
