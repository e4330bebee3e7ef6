//! Snapshots of the Wang et al. scheduler ([`crate::snapshot`], kind [`TAG_PREEMPT`]): the body
//! is the whole [`PreemptScheduler`] (scenario, plans, placements, PRNGs, counters; format
//! version 2: the plan store's `usize` counts are `u32` on the wire); restoring checks it
//! against the scheduler it goes into (same scenario and policy) before use. It restores only
//! through [`Snapshot::restore_snapshot`]: it is not [`crate::snapshot::RawRestore`].
use super::PreemptScheduler;
use crate::index::NONE;
use crate::limits::PREEMPT_PLAN_SLOTS_MAX;
use crate::log::TAG_PREEMPT;
use crate::snapshot::{self, ensure, invalid_at, Snapshot, SnapshotError};
use alloc::vec::Vec;

impl PreemptScheduler {
    /// Checks a decoded scheduler `s` against `self` (built from the model): the same scenario,
    /// policy and derived index tables; plans valid ([`super::plan::Plans::check_restored`]);
    /// per-job and per-PS vectors of the model's lengths with indices in range; the arrival
    /// list consistent with the dispatched flags; windows within the plan horizon; counters
    /// that cannot overflow. Then no later event can index out of range, overflow or loop.
    pub fn check_restored(&self, s: &PreemptScheduler) -> Result<(), SnapshotError> {
        ensure(s.scn == self.scn, "scn")?;
        ensure(s.policy == self.policy, "policy")?;
        ensure(s.worker_base == self.worker_base, "worker_base")?;
        ensure(s.chunk_base == self.chunk_base, "chunk_base")?;
        ensure(s.ps_base == self.ps_base, "ps_base")?;
        ensure(s.arrival_slots == self.arrival_slots, "arrival_slots")?;
        s.plans.check_restored(&self.plans)?;
        let (nj, nc, np) = (self.zeta.len(), self.place.len(), self.ps_taken.len());
        ensure(s.place.len() == nc, "place")?;
        for (i, p) in s.place.iter().enumerate() {
            let server = self.scn.servers.get(p.server as usize);
            let wrong_server = server.is_none_or(|x| x.cloud != p.cloud);
            if p.placed && wrong_server || p.cloud && p.start > p.end {
                return Err(invalid_at("place", i));
            }
        }
        ensure(s.zeta.len() == nj, "zeta")?;
        ensure(s.dispatched.len() == nj, "dispatched")?;
        ensure(s.cloud_window.len() == nj, "cloud_window")?;
        ensure(s.cloud_end as usize <= PREEMPT_PLAN_SLOTS_MAX, "cloud_end")?;
        for (j, &(a, b)) in s.cloud_window.iter().enumerate() {
            if a > b || b > s.cloud_end {
                return Err(invalid_at("cloud_window", j));
            }
        }
        ensure(s.last_run.len() == nj, "last_run")?;
        ensure(s.last_ps.len() == nj, "last_ps")?;
        if let Some(j) = s
            .last_ps
            .iter()
            .position(|&p| p != NONE && p as usize >= np)
        {
            return Err(invalid_at("last_ps", j));
        }
        // A_ps scratch: every entry is NONE between events.
        ensure(s.cur_ps.len() == nj, "cur_ps")?;
        if let Some(j) = s.cur_ps.iter().position(|&p| p != NONE) {
            return Err(invalid_at("cur_ps", j));
        }
        ensure(s.ps_taken.len() == np, "ps_taken")?;
        ensure(
            s.cand.len() <= self.plans.workers_len() + self.scn.servers.len(),
            "cand",
        )?;
        check_arrived(&s.arrived, &s.dispatched)?;
        ensure(
            s.preemptions <= s.plans.segment_count() as u64,
            "preemptions",
        )?;
        let misses_max = nj as u64 * PREEMPT_PLAN_SLOTS_MAX as u64;
        ensure(s.ps_misses <= misses_max, "ps_misses")?;
        Ok(())
    }
}

/// `arrived` lists each dispatched job once, and nothing else.
fn check_arrived(arrived: &[u32], dispatched: &[bool]) -> Result<(), SnapshotError> {
    let mut seen: Vec<bool> = alloc::vec![false; dispatched.len()];
    for (i, &j) in arrived.iter().enumerate() {
        match (seen.get_mut(j as usize), dispatched.get(j as usize)) {
            (Some(s), Some(true)) if !*s => *s = true,
            _ => return Err(invalid_at("arrived", i)),
        }
    }
    let n = dispatched.iter().filter(|&&d| d).count();
    ensure(n == arrived.len(), "dispatched")
}

/// Snapshots of kind [`TAG_PREEMPT`]: the body is the whole [`PreemptScheduler`].
impl Snapshot for PreemptScheduler {
    const KIND: u8 = TAG_PREEMPT;

    /// Refused ([`SnapshotError::Encode`]) once an open-world event changed the scheduler:
    /// the open-world state is not part of the format yet.
    fn snapshot_into<'b>(&self, buf: &'b mut [u8]) -> Result<&'b [u8], SnapshotError> {
        if self.ow.touched {
            return Err(SnapshotError::Encode);
        }
        snapshot::save_into(Self::KIND, self, buf)
    }

    /// Refused ([`SnapshotError::Encode`]) once an open-world event changed the scheduler.
    fn snapshot(&self) -> Result<Vec<u8>, SnapshotError> {
        if self.ow.touched {
            return Err(SnapshotError::Encode);
        }
        snapshot::save(Self::KIND, self)
    }

    fn restore_snapshot(&mut self, bytes: &[u8]) -> Result<(), SnapshotError> {
        let s: PreemptScheduler = snapshot::decode(Self::KIND, bytes)?;
        self.check_restored(&s)?;
        let restart = self.restart;
        *self = s;
        self.restart = restart;
        // A snapshot is only taken before any open-world event: everything on.
        self.ow = super::world::World::new(&self.scn, self.plans.workers_len(), self.place.len());
        // serde keeps lengths, not the build-time reservations: make them again here, once.
        self.reserve();
        debug_assert!(
            self.check_restored(self).is_ok(),
            "preempt: restored state fails its own check"
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::Policy;
    use super::*;
    use crate::api::{Event, Scheduler};
    use crate::model::preempt::{PreemptJob, PreemptScenario, PreemptServer};
    use alloc::vec;

    fn scn() -> PreemptScenario {
        let job = |arrival, chunks| PreemptJob {
            arrival,
            epochs: 2,
            chunks,
            minibatches_per_chunk: 3,
            rate: vec![vec![1.0, 2.0], vec![1.5], vec![0.5]],
            rate_colocated: vec![vec![1.0, 2.0], vec![1.5], vec![0.8]],
            upload_delay: vec![1, 2, 4],
            ps_eligible: vec![vec![true], vec![true], vec![true, true]],
        };
        let server = |workers, ps, cloud| PreemptServer { workers, ps, cloud };
        PreemptScenario {
            slots: 64,
            seed: 7,
            servers: vec![server(2, 1, false), server(1, 1, false), server(0, 2, true)],
            jobs: vec![job(0, 3), job(0, 2), job(1, 4), job(2, 3), job(2, 2)],
        }
    }

    /// A scheduler driven to slot 2 (every job dispatched, A_ps run for slots 0..=2).
    fn mid() -> PreemptScheduler {
        let scn = scn();
        let mut s = PreemptScheduler::new(&scn, Policy::Greedy).unwrap();
        for t in 0..3 {
            for j in 0..scn.jobs.len() as u32 {
                if scn.jobs[j as usize].arrival == t {
                    s.on_event(t, Event::JobArrived(j), &mut |_| {}).unwrap();
                }
            }
            s.on_event(t, Event::SlotAdvanced, &mut |_| {}).unwrap();
        }
        s
    }

    fn refused(s: &PreemptScheduler, field: &str) {
        let bytes = s.snapshot().unwrap();
        let mut fresh = PreemptScheduler::new(&scn(), Policy::Greedy).unwrap();
        match fresh.restore_snapshot(&bytes) {
            Err(SnapshotError::Invalid { field: f, .. }) => assert_eq!(f, field),
            other => panic!("expected Invalid({field}), got {other:?}"),
        }
    }

    #[test]
    fn a_valid_state_restores_and_snapshots_to_the_same_bytes() {
        let s = mid();
        let bytes = s.snapshot().unwrap();
        let mut fresh = PreemptScheduler::new(&scn(), Policy::Greedy).unwrap();
        fresh.restore_snapshot(&bytes).unwrap();
        assert_eq!(fresh.snapshot().unwrap(), bytes);
        let mut buf = vec![0u8; bytes.len() + 8];
        assert_eq!(s.snapshot_into(&mut buf).unwrap(), &bytes[..]);
    }

    #[test]
    fn inconsistent_states_are_typed_errors_naming_the_field() {
        let mut s = mid();
        s.scn.seed ^= 1;
        refused(&s, "scn");
        let mut s = mid();
        s.policy = Policy::Random;
        refused(&s, "policy");
        let mut s = mid();
        s.arrived.push(99);
        refused(&s, "arrived");
        let mut s = mid();
        s.arrived.pop();
        refused(&s, "dispatched");
        let mut s = mid();
        s.cur_ps[1] = 0;
        refused(&s, "cur_ps");
        let mut s = mid();
        s.last_ps[0] = 17;
        refused(&s, "last_ps");
        let mut s = mid();
        s.cloud_window[0] = (9, 3);
        refused(&s, "cloud_window");
        let mut s = mid();
        s.preemptions = u64::MAX;
        refused(&s, "preemptions");
        let mut s = mid();
        s.ps_misses = u64::MAX;
        refused(&s, "ps_misses");
        let mut s = mid();
        s.ps_taken.push(0);
        refused(&s, "ps_taken");
        let mut s = mid();
        s.zeta.pop();
        refused(&s, "zeta");
        let mut s = mid();
        s.place[0].server = 9;
        s.place[0].placed = true;
        refused(&s, "place");
        let mut s = mid();
        s.chunk_base[1] = 0;
        refused(&s, "chunk_base");
        let mut s = mid();
        s.plans.max_end = u32::MAX;
        refused(&s, "plans.max_end");
    }

    #[test]
    fn a_refused_restore_leaves_the_scheduler_unchanged() {
        let mut s = mid();
        s.arrived.push(99);
        let bad = s.snapshot().unwrap();
        let mut target = mid();
        let before = target.snapshot().unwrap();
        assert!(target.restore_snapshot(&bad).is_err());
        assert_eq!(target.snapshot().unwrap(), before);
    }
}
