//! Paper-literal references (feature `reference`): plans as slot arrays y_jdsw(t), Q of
//! eq. (5) recomputed from them by scanning slots, A_greedy recomputing every candidate for
//! every chunk, and the two flow-time objectives used to check what eq. (5) claims.
//!
//! Independent of the fast path: nothing here uses `super::plan`, `super::dispatch`,
//! `super::ps` or the scheduler; eq. (5), gamma_jd and p_jdsw are computed here from the paper's
//! text (in plain f64: sum_A2 1/D_j' is added in ascending order of the terms, so equal sets give
//! equal bits whatever the slot order), from the model types only.
use crate::model::preempt::{PreemptJob, PreemptScenario};
use crate::Slot;
use alloc::vec::Vec;

/// An empty slot of y_w(t).
pub const EMPTY: u32 = u32::MAX;
use crate::index::NONE;

/// Q of eq. (5) with the parts it is made of.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RefQ {
    /// Q.
    pub q: f64,
    /// t*: the end of the last A1 slot, at least t0.
    pub t_star: Slot,
    /// sum over A1 of p-hat (planned slots >= t0).
    pub a1_slots: u64,
    /// sum over A2 of 1/D_j'.
    pub a2_sum: f64,
}

/// Eq. (5): Q = Delta/D_j + (1/D_j) sum_{A1} p-hat + p/D_j + p sum_{A2} 1/D_j'.
pub fn q_eq5(delta: Slot, d: f64, a1_slots: u64, p: f64, a2_sum: f64) -> f64 {
    (delta as f64 + a1_slots as f64 + p) / d + p * a2_sum
}

/// sum of 1/D_j' over A2, added smallest first (order-independent).
fn a2_sum(mut inv_d: Vec<f64>) -> f64 {
    inv_d.sort_by(f64::total_cmp);
    inv_d.iter().sum()
}

/// p_jdsw = E_j B_j / n_jsw: slots a chunk takes at n_jsw mini-batches per slot.
pub fn p_of(job: &PreemptJob, n: f64) -> f64 {
    (job.epochs as f64 * job.minibatches_per_chunk as f64) / n
}

/// gamma_jd = n_jsw / (E_j D_j B_j) (fig. 12): the share of the job one slot of this chunk does.
pub fn gamma_of(job: &PreemptJob, n: f64) -> f64 {
    let edb = job.epochs as u64 * job.chunks as u64 * job.minibatches_per_chunk as u64;
    n / edb as f64
}

/// n_jsw from the scenario's tables (0 = not eligible): the colocated table for zeta_j = 1.
fn rate(job: &PreemptJob, s: usize, w: usize, cloud: bool, colocated: bool) -> f64 {
    let t = if colocated {
        &job.rate_colocated
    } else {
        &job.rate
    };
    let w = if cloud { 0 } else { w };
    match t.get(s).and_then(|row| row.get(w)) {
        Some(&n) if n.is_finite() && n > 0.0 => n,
        _ => 0.0,
    }
}

/// Delta_js.
fn delay(job: &PreemptJob, s: usize) -> Slot {
    job.upload_delay.get(s).copied().unwrap_or(0)
}

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

/// y_jdsw(t) of every edge worker: `slots[w][t]` = global chunk index or NONE.
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
            if c != NONE {
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
    ) -> RefQ {
        let ends = self.ends(w, meta.len());
        let (mut a1, mut a2, mut t_star) = (0u64, Vec::new(), t0);
        for (t, &c) in self.slots[w].iter().enumerate().skip(t0 as usize) {
            if c == NONE {
                continue;
            }
            let m = meta[c as usize];
            if m.gamma >= gamma {
                a1 += 1;
                t_star = t_star.max(t as Slot + 1);
            } else if ends[c as usize] == t as Slot + 1 {
                a2.push(m.inv_d);
            }
        }
        let a2 = a2_sum(a2);
        RefQ {
            q: q_eq5(delta, d, a1, p, a2),
            t_star,
            a1_slots: a1,
            a2_sum: a2,
        }
    }

    /// UPDATEVARIABLES by the letter: y(t) for t >= t* moves to t + len; [t*, t* + len) = chunk.
    pub fn insert(&mut self, w: usize, chunk: u32, t_star: Slot, len: u32) {
        let old = core::mem::take(&mut self.slots[w]);
        let (ts, l) = (t_star as usize, len as usize);
        let mut new = alloc::vec![NONE; old.len().max(ts) + l];
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
                if c != NONE {
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
/// every chunk Q is recomputed on every candidate from the slot arrays; the argmin, ties by
/// lowest server, then worker.
pub fn greedy(scn: &PreemptScenario) -> Vec<ChunkOutcome> {
    greedy_following(scn, None, 0.0).0
}

/// A choice to follow: (server, edge worker, cloud) of each global chunk.
pub type Choice = (u32, u32, bool);

/// [`greedy`], except that where `follow` names for a chunk a candidate whose Q is within
/// `tol` (relative) of the minimum, that candidate is taken. Q values equal as real numbers
/// can differ in the last bits between two ways of evaluating eq. (5), so another
/// implementation may break a true tie differently; following its choice among the
/// near-minimal candidates lets the two be compared decision by decision. Returns the outcome
/// and how many chunks took a followed candidate other than the plain argmin.
pub fn greedy_following(
    scn: &PreemptScenario,
    follow: Option<&[Choice]>,
    tol: f64,
) -> (Vec<ChunkOutcome>, u32) {
    let mut followed = 0u32;
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
            let mut all: Vec<(f64, usize, usize, Slot, bool)> = Vec::new();
            for (s, sv) in scn.servers.iter().enumerate() {
                let cands: Vec<(usize, f64, Slot)> = if sv.cloud {
                    let n = rate(job, s, 0, true, !first_edge);
                    if n <= 0.0 {
                        continue;
                    }
                    // Eq. (5) on a fresh cloud worker: A1 and A2 are empty.
                    let q = q_eq5(delay(job, s), d_f, 0, p_of(job, n), 0.0);
                    alloc::vec![(0, q, job.arrival + delay(job, s))]
                } else {
                    (0..sv.workers as usize)
                        .filter_map(|w| {
                            let n = rate(job, s, w, false, false);
                            (n > 0.0).then(|| {
                                let t0 = job.arrival + delay(job, s);
                                let qv = plan.q(
                                    wbase[s] + w,
                                    &meta,
                                    gamma_of(job, n),
                                    t0,
                                    p_of(job, n),
                                    delay(job, s),
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
                    all.push((q, s, w, ts, sv.cloud));
                }
            }
            if let (Some(b), Some(f)) = (best, follow.and_then(|f| f.get(cbase[j] + d))) {
                let near = |q: f64| q <= b.0 + tol * (1.0 + b.0.abs());
                let pick = all.iter().find(|c| {
                    c.1 as u32 == f.0 && c.4 == f.2 && (c.4 || c.2 as u32 == f.1) && near(c.0)
                });
                if let Some(&c) = pick {
                    if (c.1, c.2) != (b.1, b.2) {
                        followed += 1;
                    }
                    best = Some(c);
                }
            }
            let Some((_, s, w, ts, cloud)) = best else {
                return (out, followed);
            };
            if cloud {
                let n = rate(job, s, 0, true, !first_edge);
                let len = slots_of(p_of(job, n));
                for dd in d..job.chunks as usize {
                    let c = cbase[j] + dd;
                    out[c] = (s as u32, cloud_worker, true, (ts..ts + len).collect());
                    cloud_worker += 1;
                }
                break;
            }
            first_edge = true;
            let n = rate(job, s, w, false, false);
            let c = cbase[j] + d;
            meta[c] = RefChunk {
                gamma: gamma_of(job, n),
                inv_d: 1.0 / d_f,
                arrival: job.arrival,
                p: p_of(job, n),
            };
            plan.insert(wbase[s] + w, c as u32, ts, slots_of(p_of(job, n)));
            out[c].0 = s as u32;
            out[c].1 = w as u32;
        }
    }
    for ys in &plan.slots {
        for (t, &c) in ys.iter().enumerate() {
            if c != NONE {
                out[c as usize].3.push(t as Slot);
            }
        }
    }
    (out, followed)
}

/// ceil(p) whole slots (the kernel's tolerant ceiling, a plain numeric helper), at least 1.
fn slots_of(p: f64) -> u32 {
    crate::num::ceil_u32(p).unwrap_or(u32::MAX).max(1)
}
