//! The policies ([`Policy`]): CSRP's earliest-deadline queue and the paper's comparison
//! schedulers (section 5.1) -- FIFO (strict arrival order, head-of-line blocking), Fair (the PS
//! tenant holding fewest slots first), Capacity-like (guaranteed shares proportional to demand,
//! elastic beyond) and Deadline-aware (least slack first; without preemption, and with it in
//! `preempt`). Each decides the queue order and
//! which queued job is tried next; placing a job is [`RouteScheduler::try_baseline`] or
//! [`RouteScheduler::try_csrp`].
use super::records::RouteDecision;
use super::scratch::DELTAS;
use super::{RouteError, RouteScheduler};
use serde::{Deserialize, Serialize};

/// Which scheduler runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Policy {
    /// CSRP (Algorithm 1), or Aggregated CSRP when the scenario says `aggregate`.
    Csrp,
    /// FIFO: arrival order, head-of-line blocking.
    Fifo,
    /// Fair: equal share per PS tenant.
    Fair,
    /// Capacity-like: per-PS queues with guaranteed shares.
    Capacity,
    /// Deadline-aware: least slack first.
    Deadline,
    /// Deadline-aware with preemption: least slack first, and a queued job that does not fit
    /// stops running jobs of more slack ([`super::PREEMPT_RERUNS`]).
    DeadlinePreemptive,
}

impl Policy {
    /// The policy's code in decision records ([`super::DecisionRec::policy`]).
    pub(super) fn code(self) -> u8 {
        self as u8
    }
}

impl RouteScheduler {
    /// Inserts released job `j` into the queue at its policy's position.
    pub(super) fn enqueue(&mut self, j: u32) {
        let key = |r: &RouteScheduler, x: u32| -> (u64, u64, u32) {
            let jb = &r.jobs[x as usize];
            match r.policy {
                Policy::Csrp => (jb.deadline as u64, jb.release as u64, x),
                // Slack = deadline - duration - now; `now` is common to all, so order by the rest.
                Policy::Deadline | Policy::DeadlinePreemptive => r.slack_key(x),
                _ => (jb.release as u64, 0, x),
            }
        };
        let k = key(self, j);
        let pos = self.queue.partition_point(|&x| key(self, x) < k);
        // Capacity nj was reserved at build: never reallocates.
        self.queue.insert(pos, j);
    }

    /// Places what the policy can from the queue at event time `t`.
    pub(super) fn schedule(
        &mut self,
        t: u32,
        sink: &mut dyn FnMut(&RouteDecision),
    ) -> Result<(), RouteError> {
        match self.policy {
            Policy::Fifo => {
                while let Some(&j) = self.queue.first() {
                    if !self.try_baseline(j, t, sink)? {
                        break;
                    }
                    self.queue.remove(0);
                }
            }
            Policy::DeadlinePreemptive => self.schedule_preemptive(t, sink)?,
            Policy::Deadline => {
                let mut i = 0;
                while i < self.queue.len() {
                    if self.try_baseline(self.queue[i], t, sink)? {
                        self.queue.remove(i);
                    } else {
                        i += 1;
                    }
                }
            }
            Policy::Fair | Policy::Capacity => loop {
                let mut best: Option<(usize, (bool, f64, usize))> = None;
                for (i, &j) in self.queue.iter().enumerate() {
                    if self.jobs[j as usize].workers as u64 > self.lanes.free_at[0] {
                        continue;
                    }
                    let k = self.group_key(j, i);
                    if !matches!(best, Some((_, b)) if !lex_less(k, b)) {
                        best = Some((i, k));
                    }
                }
                let Some((i, _)) = best else { break };
                let j = self.queue[i];
                if self.try_baseline(j, t, sink)? {
                    self.queue.remove(i);
                } else {
                    // Not reachable now: skip it for this event by trying the others in order.
                    let mut started = false;
                    for q in 0..self.queue.len() {
                        if q != i && self.try_baseline(self.queue[q], t, sink)? {
                            self.queue.remove(q);
                            started = true;
                            break;
                        }
                    }
                    if !started {
                        break;
                    }
                }
            },
            Policy::Csrp => {
                let mut i = 0;
                while i < self.queue.len() {
                    let j = self.queue[i];
                    if self.jobs[j as usize].workers as u64 <= self.lanes.free_at[DELTAS - 1]
                        && self.try_csrp(j, t, sink)?
                    {
                        self.queue.remove(i);
                    } else {
                        i += 1;
                    }
                }
            }
        }
        Ok(())
    }

    /// Deadline-aware priority of job `x` (smaller first): slack without the common `now`,
    /// then release, then index.
    pub(super) fn slack_key(&self, x: u32) -> (u64, u64, u32) {
        let jb = &self.jobs[x as usize];
        (
            (jb.deadline as u64 + u32::MAX as u64) - jb.duration as u64,
            jb.release as u64,
            x,
        )
    }

    /// Fair / Capacity order key of queued job `j` at queue position `pos`.
    fn group_key(&self, j: u32, pos: usize) -> (bool, f64, usize) {
        let jb = &self.jobs[j as usize];
        let r = self.tables.ps_row[jb.ps as usize] as usize;
        let running = self.group_running[r] as f64;
        if self.policy == Policy::Fair {
            return (false, running, pos);
        }
        let share = self.tables.group_share[r] * self.lanes.total as f64;
        let over = running + jb.workers as f64 > share;
        (over, running / share.max(1e-300), pos)
    }
}

fn lex_less(a: (bool, f64, usize), b: (bool, f64, usize)) -> bool {
    a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)) == core::cmp::Ordering::Less
}
