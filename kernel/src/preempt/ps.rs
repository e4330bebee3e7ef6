//! A_ps (Algorithm 5): one parameter server per running job per slot.
use super::{PreemptDecision, PreemptScheduler, PsMissRec, PsRec};
use crate::index::NONE;
use crate::Slot;

/// Marks a job as running in the current slot in the `cur_ps` scratch.
const RUNNING: u32 = NONE - 1;

impl PreemptScheduler {
    /// A_ps for slot `now` over the jobs running in it (a chunk planned in `now` on an edge
    /// worker or on the cloud), in arrival order: first every job that ran in `now - 1` keeps
    /// its PS (line 3); then each other job takes a uniformly random eligible PS that is free
    /// in `now` (line 6; each PS serves one job per slot, constraint 2f). zeta_j = 1 jobs use
    /// cloud PSs only. A job with no free eligible PS is reported ([`PsMissRec`]).
    pub(super) fn assign_ps(&mut self, now: Slot, out: &mut dyn FnMut(&PreemptDecision)) {
        self.plans.advance(now);
        self.mark_running(now);
        let stamp = now.saturating_add(1);
        // Keepers first so a newcomer never takes a PS its holder keeps.
        for i in 0..self.arrived.len() {
            let j = self.arrived[i] as usize;
            if self.cur_ps[j] != RUNNING || self.last_run[j] != now || self.last_ps[j] == NONE {
                continue;
            }
            let p = self.last_ps[j];
            let (s, local) = self.ps_coords(p);
            if !self.ow.ps_ok(s as usize, local) {
                // Open world: its server went down or its capacity dropped; line 6 instead.
                continue;
            }
            self.cur_ps[j] = p;
            if let Some(t) = self.ps_taken.get_mut(p as usize) {
                *t = stamp;
            }
            let (server, ps) = self.ps_coords(p);
            out(&PreemptDecision::Ps(PsRec {
                slot: now,
                job: j as u32,
                server,
                ps,
                kept: true,
            }));
        }
        for i in 0..self.arrived.len() {
            let j = self.arrived[i] as usize;
            if self.cur_ps[j] != RUNNING {
                continue;
            }
            let p = self.random_free_ps(j, stamp);
            self.cur_ps[j] = p;
            if p == NONE {
                self.ps_misses += 1;
                out(&PreemptDecision::PsMiss(PsMissRec {
                    slot: now,
                    job: j as u32,
                }));
                continue;
            }
            if let Some(t) = self.ps_taken.get_mut(p as usize) {
                *t = stamp;
            }
            let (server, ps) = self.ps_coords(p);
            out(&PreemptDecision::Ps(PsRec {
                slot: now,
                job: j as u32,
                server,
                ps,
                kept: false,
            }));
        }
        // Remember who ran (and with which PS) for the next slot's keep rule.
        for i in 0..self.arrived.len() {
            let j = self.arrived[i] as usize;
            let p = self.cur_ps[j];
            if p != NONE {
                self.last_run[j] = stamp;
                self.last_ps[j] = if p == RUNNING { NONE } else { p };
            }
            self.cur_ps[j] = NONE;
        }
    }

    /// Sets `cur_ps[j] = RUNNING` for every job with a chunk in slot `now`.
    fn mark_running(&mut self, now: Slot) {
        let workers = self.plans.workers_len();
        for gw in 0..workers {
            if let Some(c) = self.plans.running(gw, now) {
                let j = self
                    .chunk_base
                    .partition_point(|&b| b <= c)
                    .saturating_sub(1);
                if let Some(x) = self.cur_ps.get_mut(j) {
                    *x = RUNNING;
                }
            }
        }
        for i in 0..self.arrived.len() {
            let j = self.arrived[i] as usize;
            let (a, b) = self.cloud_window[j];
            if a <= now && now < b {
                self.cur_ps[j] = RUNNING;
            }
        }
    }

    /// A uniformly random eligible PS free in this slot (`stamp` = slot + 1), or NONE.
    fn random_free_ps(&mut self, j: usize, stamp: Slot) -> u32 {
        let zeta = self.zeta[j];
        let count = self.eligible_free(j, zeta, stamp, u32::MAX).0;
        if count == 0 {
            return NONE;
        }
        let k = self.rng.below(count as u64) as u32;
        self.eligible_free(j, zeta, stamp, k).1
    }

    /// Counts the free eligible PSs of job `j`, and returns the `k`-th of them (or NONE).
    fn eligible_free(&self, j: usize, zeta: bool, stamp: Slot, k: u32) -> (u32, u32) {
        let Some(job) = self.scn.jobs.get(j) else {
            return (0, NONE);
        };
        let mut count = 0u32;
        for (s, sv) in self.scn.servers.iter().enumerate() {
            if zeta && !sv.cloud {
                continue;
            }
            let row = job.ps_eligible.get(s).map_or(&[][..], |r| &r[..]);
            for (p, &ok) in row.iter().enumerate().take(sv.ps as usize) {
                let g = self.ps_base[s] + p as u32;
                if ok && self.ps_taken.get(g as usize) != Some(&stamp) && self.ow.ps_ok(s, p as u32)
                {
                    if count == k {
                        return (count + 1, g);
                    }
                    count += 1;
                }
            }
        }
        (count, NONE)
    }

    /// (server, PS index on it) of global PS `g`.
    fn ps_coords(&self, g: u32) -> (u32, u32) {
        let s = self.ps_base.partition_point(|&b| b <= g).saturating_sub(1);
        (s as u32, g - self.ps_base.get(s).copied().unwrap_or(0))
    }
}
