//! The restorable state of an [`OnlineScheduler`] and its snapshots ([`crate::snapshot`], kind
//! [`TAG_ONLINE`]): usage, pending / arrived / scheduled jobs, next round and clock. The
//! search's scratch is rebuilt from the scenario by [`OnlineScheduler::new`].
use super::scheduler::ROUNDS_MAX;
use super::usage::SparseUsage;
use super::OnlineScheduler;
use crate::log::TAG_ONLINE;
use crate::model::online::OnlineScenario;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// The mutable state of A_online (serialisable for snapshots).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OnlineState {
    /// beta_h^r(t): every reservation of every scheduled job, in commit order (sparse: memory
    /// follows the reservations, not T x H x R).
    pub usage: SparseUsage,
    /// Jobs arrived and not yet scheduled (arrival-event order).
    pub pending: Vec<u32>,
    /// Job j has arrived.
    pub arrived: Vec<bool>,
    /// Job j is scheduled.
    pub scheduled: Vec<bool>,
    /// The next round i to run.
    pub next_round: u32,
    /// Slot of the last event.
    pub last_now: u32,
}

impl OnlineScheduler<'_> {
    /// Checks a saved state against this scheduler's scenario ([`crate::snapshot`]): lengths of
    /// the model (T H R usage cells, one flag per job); every usage finite, >= 0 and within its
    /// server's capacity (1e-6 relative float dust allowed); `pending` = distinct arrived,
    /// unscheduled jobs within the reserved capacity; scheduled jobs arrived; `next_round` the
    /// first round with tau_i > `last_now` (what every event leaves).
    pub fn check_state(&self, st: &OnlineState) -> Result<(), crate::snapshot::SnapshotError> {
        use crate::snapshot::{ensure, invalid_at};
        check_usage(&self.scn, &st.usage)?;
        let n = self.state.arrived.len();
        ensure(st.arrived.len() == n, "arrived")?;
        ensure(st.scheduled.len() == n, "scheduled")?;
        if let Some(j) = (0..n).find(|&j| st.scheduled[j] && !st.arrived[j]) {
            return Err(invalid_at("scheduled", j));
        }
        ensure(st.pending.len() <= self.state.pending.capacity(), "pending")?;
        let mut seen = vec![false; n];
        for (i, &j) in st.pending.iter().enumerate() {
            let j = j as usize;
            let ok = j < n && st.arrived[j] && !st.scheduled[j] && !seen[j];
            if !ok {
                return Err(invalid_at("pending", i));
            }
            seen[j] = true;
        }
        let mut round = 1u32;
        while round <= ROUNDS_MAX && (1u64 << (round - 1)) <= st.last_now as u64 {
            round += 1;
        }
        ensure(st.next_round == round, "next_round")
    }
}

/// Checks a saved sparse usage: R finite, non-negative amounts per reservation, each on a
/// server of the scenario over a non-empty slot range inside the horizon, and beta_h^r(t)
/// within capacity (1e-6 relative float dust allowed) at every slot (checked where some
/// reservation starts: beta is piecewise constant and only rises there).
fn check_usage(
    scn: &OnlineScenario,
    u: &SparseUsage,
) -> Result<(), crate::snapshot::SnapshotError> {
    use crate::snapshot::{ensure, invalid_at};
    let (h, r) = (scn.servers.len(), scn.resources as usize);
    ensure(u.amount.len() == u.resv.len() * r, "usage")?;
    for (i, x) in u.resv.iter().enumerate() {
        let ok = (x.server as usize) < h && x.start < x.end && x.end <= scn.horizon();
        let amt = &u.amount[i * r..(i + 1) * r];
        if !(ok && amt.iter().all(|a| a.is_finite() && *a >= 0.0)) {
            return Err(invalid_at("usage", i));
        }
    }
    // Per server, in commit order.
    let mut order: Vec<u32> = (0..u.resv.len() as u32).collect();
    // The shared `&dyn` sort (wasm size): (server, index) is total, so the order is the
    // stable sort's.
    crate::order::sort_indices_by(&mut order, &|a, b| {
        (u.resv[a as usize].server, a).cmp(&(u.resv[b as usize].server, b))
    });
    for grp in order.chunk_by(|&a, &b| u.resv[a as usize].server == u.resv[b as usize].server) {
        let srv = &scn.servers[u.resv[grp[0] as usize].server as usize];
        for &i in grp {
            let t = u.resv[i as usize].start;
            for k in 0..r {
                let mut used = 0.0;
                for &q in grp {
                    let x = u.resv[q as usize];
                    if x.start <= t && t < x.end {
                        used += u.amount[q as usize * r + k];
                    }
                }
                let c = srv.get(k);
                let dust = 1e-6 * libm::fabs(c).max(1.0);
                if !(used.is_finite() && used <= c.max(0.0) + dust) {
                    return Err(invalid_at("usage", i as usize));
                }
            }
        }
    }
    Ok(())
}

/// Snapshots of kind [`TAG_ONLINE`]: the body is an [`OnlineState`].
impl crate::snapshot::Snapshot for OnlineScheduler<'_> {
    const KIND: u8 = TAG_ONLINE;

    fn snapshot_into<'b>(
        &self,
        buf: &'b mut [u8],
    ) -> Result<&'b [u8], crate::snapshot::SnapshotError> {
        // The open-world state (submitted jobs, remaining work, capacities) is not in the
        // format: refuse rather than save a state that would restore wrong.
        if self.open_world_changed() {
            return Err(crate::snapshot::invalid("open-world state"));
        }
        crate::snapshot::save_into(Self::KIND, &self.state, buf)
    }

    fn snapshot(&self) -> Result<Vec<u8>, crate::snapshot::SnapshotError> {
        if self.open_world_changed() {
            return Err(crate::snapshot::invalid("open-world state"));
        }
        crate::snapshot::save(Self::KIND, &self.state)
    }

    fn restore_snapshot(&mut self, bytes: &[u8]) -> Result<(), crate::snapshot::SnapshotError> {
        let st: OnlineState = crate::snapshot::restore(Self::KIND, bytes)?;
        self.check_state(&st)?;
        self.restore(st)
            .map_err(|_| crate::snapshot::invalid("state"))
    }
}
