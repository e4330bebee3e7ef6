//! Paper-literal references (feature `reference`): plans as slot arrays y_jdsw(t), Q of
//! eq. (5) recomputed from them by scanning slots, A_greedy recomputing every candidate for
//! every chunk, and the two flow-time objectives used to check what eq. (5) claims.
use super::plan::{eq5, weight, QValue, NIL};
use super::PreemptScheduler;
use crate::model::preempt::PreemptScenario;
use crate::Slot;
use alloc::vec::Vec;

/// What the reference knows about a planned chunk.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefChunk {
    /// gamma_jd on its worker.
    pub gamma: f64,
    /// 1 / D_j.
    pub inv_d: f64,
    /// r_j.
    pub arrival: Slot,
    /// p_jdsw = E_j B_j / n_jsw (fractional slots).
    pub p: f64,
}

/// y_jdsw(t) of every edge worker: `slots[w][t]` = global chunk index or NIL.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SlotPlan {
    /// Per worker, per slot.
    pub slots: Vec<Vec<u32>>,
}

impl SlotPlan {
    /// Empty plans for `workers` workers.
    pub fn new(workers: usize) -> Self {
        SlotPlan {
            slots: alloc::vec![Vec::new(); workers],
        }
    }

    /// End (last slot + 1) of every chunk on worker `w`, indexed by chunk (0 = absent).
    fn ends(&self, w: usize, n: usize) -> Vec<Slot> {
        let mut e = alloc::vec![0; n];
        for (t, &c) in self.slots[w].iter().enumerate() {
            if c != NIL {
                e[c as usize] = t as Slot + 1;
            }
        }
        e
    }

    /// CALCULATEQ by the letter: scan y_w(t) for t >= t0; A1 = gamma' >= gamma, A2 = the rest.
    #[allow(clippy::too_many_arguments)]
    pub fn q(
        &self,
        w: usize,
        meta: &[RefChunk],
        gamma: f64,
        t0: Slot,
        p: f64,
        delta: Slot,
        d: f64,
    ) -> QValue {
        let ends = self.ends(w, meta.len());
        let (mut a1, mut a2, mut t_star) = (0u64, 0u64, t0);
        for (t, &c) in self.slots[w].iter().enumerate().skip(t0 as usize) {
            if c == NIL {
                continue;
            }
            let m = meta[c as usize];
            if m.gamma >= gamma {
                a1 += 1;
                t_star = t_star.max(t as Slot + 1);
            } else if ends[c as usize] == t as Slot + 1 {
                a2 += weight(m.inv_d);
            }
        }
        QValue {
            q: eq5(delta, d, a1, p, a2),
            t_star,
            a1_slots: a1,
            a2_weight: a2,
        }
    }

    /// UPDATEVARIABLES by the letter: y(t) for t >= t* moves to t + len; [t*, t* + len) = chunk.
    pub fn insert(&mut self, w: usize, chunk: u32, t_star: Slot, len: u32) {
        let old = core::mem::take(&mut self.slots[w]);
        let (ts, l) = (t_star as usize, len as usize);
        let mut new = alloc::vec![NIL; old.len().max(ts) + l];
        for (t, &c) in old.iter().enumerate() {
            if t < ts {
                new[t] = c;
            } else {
                new[t + l] = c;
            }
        }
        for x in &mut new[ts..ts + l] {
            *x = chunk;
        }
        self.slots[w] = new;
    }

    /// Total fractional flow time (fig. 7): sum over chunks and slots of
    /// y(t) (t - r_j) / (D_j p_jdsw), slot t counted at its start.
    pub fn fractional_flow(&self, meta: &[RefChunk]) -> f64 {
        let mut f = 0.0;
        for plan in &self.slots {
            for (t, &c) in plan.iter().enumerate() {
                if c != NIL {
                    let m = meta[c as usize];
                    f += (t as f64 - m.arrival as f64) * m.inv_d / m.p;
                }
            }
        }
        f
    }

    /// sum over planned chunks of (end - r_j) / D_j: the completion-time flow eq. (5) adds up.
    pub fn completion_flow(&self, meta: &[RefChunk]) -> f64 {
        let mut f = 0.0;
        for w in 0..self.slots.len() {
            for (c, &e) in self.ends(w, meta.len()).iter().enumerate() {
                if e > 0 {
                    f += (e as f64 - meta[c].arrival as f64) * meta[c].inv_d;
                }
            }
        }
        f
    }
}

/// One chunk's outcome: (server, worker, cloud, every slot it runs in).
pub type ChunkOutcome = (u32, u32, bool, Vec<Slot>);

/// A_greedy over a whole scenario, paper-literal: jobs in arrival order (ties: index), and for
/// every chunk Q is recomputed on every candidate from the slot arrays.
pub fn greedy(scn: &PreemptScenario) -> Vec<ChunkOutcome> {
    let mut wbase = Vec::new();
    let mut nw = 0usize;
    for s in &scn.servers {
        wbase.push(nw);
        nw += if s.cloud { 0 } else { s.workers as usize };
    }
    let mut cbase = Vec::new();
    let mut nc = 0usize;
    for j in &scn.jobs {
        cbase.push(nc);
        nc += j.chunks as usize;
    }
    let mut meta = alloc::vec![RefChunk { gamma: 0.0, inv_d: 0.0, arrival: 0, p: 1.0 }; nc];
    let mut out: Vec<ChunkOutcome> = alloc::vec![(0, 0, false, Vec::new()); nc];
    let mut plan = SlotPlan::new(nw);
    let mut order: Vec<usize> = (0..scn.jobs.len()).collect();
    order.sort_by_key(|&j| (scn.jobs[j].arrival, j));
    let mut cloud_worker = 0u32;
    for j in order {
        let job = &scn.jobs[j];
        let d_f = job.chunks as f64;
        let mut first_edge = false;
        for d in 0..job.chunks as usize {
            // Every candidate, recomputed.
            let mut best: Option<(f64, usize, usize, Slot, bool)> = None;
            for (s, sv) in scn.servers.iter().enumerate() {
                let cands: Vec<(usize, f64, Slot)> = if sv.cloud {
                    let n = job.rate_of(s, 0, true, !first_edge);
                    if n <= 0.0 {
                        continue;
                    }
                    let q = job.delay(s) as f64 / d_f + job.processing(n) / d_f;
                    alloc::vec![(0, q, job.arrival + job.delay(s))]
                } else {
                    (0..sv.workers as usize)
                        .filter_map(|w| {
                            let n = job.rate_of(s, w, false, false);
                            (n > 0.0).then(|| {
                                let t0 = job.arrival + job.delay(s);
                                let qv = plan.q(
                                    wbase[s] + w,
                                    &meta,
                                    job.gamma(n),
                                    t0,
                                    job.processing(n),
                                    job.delay(s),
                                    d_f,
                                );
                                (w, qv.q, qv.t_star)
                            })
                        })
                        .collect()
                };
                for (w, q, ts) in cands {
                    if best.is_none_or(|b| q < b.0) {
                        best = Some((q, s, w, ts, sv.cloud));
                    }
                }
            }
            let Some((_, s, w, ts, cloud)) = best else {
                return out;
            };
            if cloud {
                let n = job.rate_of(s, 0, true, !first_edge);
                let len = slots_of(job.processing(n));
                for dd in d..job.chunks as usize {
                    let c = cbase[j] + dd;
                    out[c] = (s as u32, cloud_worker, true, (ts..ts + len).collect());
                    cloud_worker += 1;
                }
                break;
            }
            first_edge = true;
            let n = job.rate_of(s, w, false, false);
            let c = cbase[j] + d;
            meta[c] = RefChunk {
                gamma: job.gamma(n),
                inv_d: 1.0 / d_f,
                arrival: job.arrival,
                p: job.processing(n),
            };
            plan.insert(wbase[s] + w, c as u32, ts, slots_of(job.processing(n)));
            out[c].0 = s as u32;
            out[c].1 = w as u32;
        }
    }
    for ys in &plan.slots {
        for (t, &c) in ys.iter().enumerate() {
            if c != NIL {
                out[c as usize].3.push(t as Slot);
            }
        }
    }
    out
}

fn slots_of(p: f64) -> u32 {
    crate::num::ceil_u32(p).unwrap_or(u32::MAX).max(1)
}

/// The same outcome shape read from the fast scheduler (after [`super::run_all`]).
pub fn outcome(s: &PreemptScheduler) -> Vec<ChunkOutcome> {
    let scn = s.scenario();
    let nc: usize = scn.jobs.iter().map(|j| j.chunks as usize).sum();
    let mut out: Vec<ChunkOutcome> = alloc::vec![(0, 0, false, Vec::new()); nc];
    for (c, o) in out.iter_mut().enumerate() {
        if let Some(p) = s.placement(c as u32) {
            *o = (p.server, p.worker, p.cloud, Vec::new());
            if p.cloud {
                o.3 = (p.start..p.end).collect();
            }
        }
    }
    for w in 0..s.plans().workers_len() {
        for seg in s.plans().segments(w) {
            out[seg.chunk as usize].3.extend(seg.start..seg.end);
        }
    }
    out
}
