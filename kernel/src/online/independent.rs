//! An independent, paper-literal A_online (Zhou et al. 2022, Algorithms 1-7) for property tests:
//! its own A_online / A_dual driver (rounds, batches, windows), its own dense usage
//! beta_h^r(t), its own prices by eq. (11) (with delta and lambda), its own rho by eqs. (1) and
//! (14), and its own A_mincost1/2 and A_RAmincost1/2 written as the listings read in
//! `docs/online.md` ("Reconstructed listings").
//!
//! It shares nothing with the fast path but the model types (`crate::model::online`), the
//! rounding conventions of `crate::num` and `alloc`: no `super::` (no `Ctx`, `Window`,
//! `common.rs`, usage store or scheduler), no `crate::price`, `crate::resources`,
//! `crate::order` (`tests/tests/reference_independence.rs` scans this file). Where the paper is
//! silent, it implements the semantics `docs/online.md` documents, from the document:
//! - the batch of round i is every unscheduled job that arrived before tau_i = 2^(i-1), rounds
//!   run while tau_i < T (or T' below);
//! - A_dual's call iota uses the window starting at alpha tau_i + (iota - 1) tau_i, clipped to
//!   T, and stops once the batch is scheduled; a window needs at least two slots left;
//! - with `rounds_past_horizon` the clip is T' instead of T: rounds go on through the fourth
//!   round whose tau_i is at least T, and T' is where that round's last window ends;
//! - relative slots t- >= 1, a schedule covers [t-, t- + L) with t- + L <= window length;
//! - unit prices sum_r delta e^r are rounded to multiples of 2^-20 (round half up) and summed as
//!   integers, so costs and ties are exact;
//! - ties: the first schedule in enumeration order wins (strictly cheaper replaces), and the
//!   q = 0 subroutine wins only if strictly cheaper than the q = 1 one.
//!
//! Clarity over speed: per decision it tabulates the window's free capacity and unit prices, and
//! every window sum and window minimum is taken slot by slot.
use crate::model::online::{Architecture, OnlineJob, OnlineScenario, TaskType};
use crate::num::{ceil_u32, floor_eps};
use alloc::vec;
use alloc::vec::Vec;

/// Fixed-point resolution of a unit price: 2^20 steps per unit (`docs/online.md`).
const UNIT_STEPS: f64 = 1_048_576.0;

/// Why the reference refused a scenario (the fast path validates the same shapes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefError {
    /// The field that is inconsistent.
    pub field: &'static str,
    /// The job, server or type index.
    pub index: u32,
}

/// One server's share of a schedule: y_jhm workers and s_jhp PSs on server h.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RefPlaced {
    /// Server h.
    pub server: u32,
    /// y_jhm.
    pub workers: u32,
    /// s_jhp (0 for ring).
    pub ps: u32,
}

/// One A_maxweight decision about one job in one window (also when it is not scheduled).
#[derive(Clone, Debug, PartialEq)]
pub struct RefDecision {
    /// Job j.
    pub job: u32,
    /// Round i of A_online.
    pub round: u32,
    /// tau_i.
    pub tau: u32,
    /// Call iota of A_dual (1-based).
    pub iota: u32,
    /// Some schedule fits the window.
    pub feasible: bool,
    /// u_j = w_j - cost > 0: the schedule was taken.
    pub scheduled: bool,
    /// q_j.
    pub colocated: bool,
    /// Worker type m (0 when infeasible).
    pub worker_type: u32,
    /// PS type p (`None` for ring or when infeasible).
    pub ps_type: Option<u32>,
    /// Absolute start slot t_j (0 when infeasible).
    pub start: u32,
    /// d_j (0 when infeasible).
    pub duration: u32,
    /// Workers N (or Phi).
    pub workers: u32,
    /// The cost in 2^-20 units.
    pub cost_fixed: u128,
    /// u_j = w_j - cost (0 when infeasible).
    pub utility: f64,
    /// Servers of the schedule in index order (empty when infeasible).
    pub placement: Vec<RefPlaced>,
}

impl RefDecision {
    /// Completion slot t_j + d_j.
    pub fn completion(&self) -> u32 {
        self.start + self.duration
    }
}

/// The reference's whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct RefRun {
    /// Every A_maxweight decision, in the order A_online makes them.
    pub decisions: Vec<RefDecision>,
    /// sum over scheduled jobs of w_j (t_j + d_j), in decision order.
    pub objective: f64,
}

/// Runs Algorithm 1 over the whole scenario.
pub fn run(scn: &OnlineScenario) -> Result<RefRun, RefError> {
    check(scn)?;
    let mut st = State::new(scn);
    let mut decisions = Vec::new();
    // Algorithm 1: rounds at tau_i = 2^(i-1) inside the horizon.
    let mut tau: u64 = 1;
    let mut round = 1u32;
    let end = horizon(scn);
    while tau < end as u64 {
        let mut batch: Vec<usize> = (0..scn.jobs.len())
            .filter(|&j| (scn.jobs[j].arrival as u64) < tau && !st.scheduled[j])
            .collect();
        batch.sort_by_key(|&j| (scn.jobs[j].arrival, j));
        if !batch.is_empty() {
            a_dual(&mut st, &batch, round, tau as u32, &mut decisions);
        }
        tau *= 2;
        round += 1;
    }
    let objective = decisions
        .iter()
        .filter(|d| d.scheduled)
        .map(|d| scn.jobs[d.job as usize].weight * d.completion() as f64)
        .sum();
    Ok(RefRun {
        decisions,
        objective,
    })
}

/// The last slot (exclusive) a schedule may use: T, or with `rounds_past_horizon` the end of
/// the last A_dual window of the fourth round with tau_i >= T (`docs/online.md`).
fn horizon(scn: &OnlineScenario) -> u32 {
    if !scn.rounds_past_horizon {
        return scn.slots;
    }
    let mut tau: u64 = 1;
    while tau < scn.slots as u64 {
        tau *= 2;
    }
    // tau is now the first round time that sees every arrival; three more doublings.
    let last = tau * 8;
    let end = scn.alpha as u64 * last + scn.alpha as u64 * last;
    end.min(u32::MAX as u64) as u32
}

/// The shapes the listings index: capacity and demand vectors of length R, times per type.
fn check(scn: &OnlineScenario) -> Result<(), RefError> {
    let r = scn.resources as usize;
    let bad = |field, index: usize| RefError {
        field,
        index: index as u32,
    };
    if let Some(h) = scn.servers.iter().position(|c| c.len() != r) {
        return Err(bad("servers", h));
    }
    let types = scn.worker_types.iter().chain(&scn.ps_types);
    if let Some(i) = types
        .clone()
        .position(|t| t.demand.len() != r || t.bw.is_nan() || t.bw <= 0.0)
    {
        return Err(bad("worker_types / ps_types", i));
    }
    let ring = scn.architecture == Architecture::Ring;
    if scn.worker_types.is_empty() || (!ring && scn.ps_types.is_empty()) || scn.alpha == 0 {
        return Err(bad("worker_types / ps_types / alpha", 0));
    }
    let updates = if ring { 1 } else { scn.ps_types.len() };
    for (j, job) in scn.jobs.iter().enumerate() {
        if job.minibatch_time.len() != scn.worker_types.len() || job.update_time.len() != updates {
            return Err(bad("jobs.minibatch_time / update_time", j));
        }
    }
    Ok(())
}

/// beta_h^r(t) over the whole horizon (dense: T x H x R) and which jobs are scheduled.
struct State<'a> {
    scn: &'a OnlineScenario,
    /// lambda = 2 T H R F + 1 of eq. (11).
    lambda: f64,
    /// beta at `(t * H + h) * R + r`.
    beta: Vec<f64>,
    scheduled: Vec<bool>,
}

impl<'a> State<'a> {
    fn new(scn: &'a OnlineScenario) -> Self {
        let (t, h, r) = (
            scn.slots as usize,
            scn.servers.len(),
            scn.resources as usize,
        );
        // beta covers every slot a schedule may use; lambda keeps the paper's T.
        let cells = horizon(scn) as usize;
        State {
            scn,
            lambda: 2.0 * t as f64 * h as f64 * r as f64 * scn.f + 1.0,
            beta: vec![0.0; cells * h * r],
            scheduled: vec![false; scn.jobs.len()],
        }
    }

    fn beta_at(&self, t: u32, h: usize, r: usize) -> f64 {
        let (hn, rn) = (self.scn.servers.len(), self.scn.resources as usize);
        self.beta[(t as usize * hn + h) * rn + r]
    }
}

/// Algorithm 2: A_maxweight up to alpha times on what is left of the batch.
fn a_dual(st: &mut State, batch: &[usize], round: u32, tau: u32, out: &mut Vec<RefDecision>) {
    let (alpha, slots) = (st.scn.alpha as u64, horizon(st.scn) as u64);
    for iota in 1..=st.scn.alpha {
        // The batch's schedule runs from alpha tau_i on; call iota takes the iota-th window of
        // tau_i slots, clipped to the horizon. Fewer than two slots hold no schedule (t- >= 1).
        let base = alpha * tau as u64 + (iota as u64 - 1) * tau as u64;
        if base + 2 > slots {
            break;
        }
        let len = (tau as u64).min(slots - base) as u32;
        let mut unscheduled = 0;
        for &j in batch {
            if st.scheduled[j] {
                continue;
            }
            let d = a_maxweight(st, j, round, tau, iota, base as u32, len);
            unscheduled += usize::from(!d.scheduled);
            out.push(d);
        }
        if unscheduled == 0 {
            break;
        }
    }
}

/// Algorithm 3 for one job: the cheapest schedule, taken when u_j = w_j - cost > 0, then beta
/// grows on its slots and servers (and with it the prices of eq. 11).
fn a_maxweight(
    st: &mut State,
    j: usize,
    round: u32,
    tau: u32,
    iota: u32,
    base: u32,
    len: u32,
) -> RefDecision {
    let scn = st.scn;
    let job = &scn.jobs[j];
    let win = WindowView::new(st, base, len);
    let best = if scn.architecture == Architecture::Ring {
        choose(ra_mincost1(&win, job), ra_mincost2(&win, job))
    } else {
        choose(mincost2(&win, job), mincost1(&win, job))
    };
    let mut d = RefDecision {
        job: j as u32,
        round,
        tau,
        iota,
        feasible: best.is_some(),
        scheduled: false,
        colocated: false,
        worker_type: 0,
        ps_type: None,
        start: 0,
        duration: 0,
        workers: 0,
        cost_fixed: 0,
        utility: 0.0,
        placement: Vec::new(),
    };
    let Some(s) = best else {
        return d;
    };
    d.colocated = s.colocated;
    d.worker_type = s.m as u32;
    d.ps_type = s.p.map(|p| p as u32);
    d.start = base + s.tminus;
    d.duration = s.dur;
    d.workers = s.y.iter().sum();
    d.cost_fixed = s.cost;
    d.utility = job.weight - s.cost as f64 / UNIT_STEPS;
    d.scheduled = d.utility > 0.0;
    d.placement = (0..s.y.len())
        .filter(|&h| s.y[h] > 0 || s.s[h] > 0)
        .map(|h| RefPlaced {
            server: h as u32,
            workers: s.y[h],
            ps: s.s[h],
        })
        .collect();
    if d.scheduled {
        book(st, &d);
        st.scheduled[j] = true;
    }
    d
}

/// beta_h^r(t) += e_m^r y_jhm + z_p^r s_jhp for every slot of the schedule and server of it.
fn book(st: &mut State, d: &RefDecision) {
    let scn = st.scn;
    let (hn, rn) = (scn.servers.len(), scn.resources as usize);
    let e = &scn.worker_types[d.worker_type as usize];
    let z = d.ps_type.map(|p| &scn.ps_types[p as usize]);
    for pl in &d.placement {
        for t in d.start..d.completion() {
            for r in 0..rn {
                let add = e.demand.get(r) * pl.workers as f64
                    + z.map_or(0.0, |z| z.demand.get(r) * pl.ps as f64);
                st.beta[(t as usize * hn + pl.server as usize) * rn + r] += add;
            }
        }
    }
}

/// One schedule found by a subroutine.
struct Sched {
    cost: u128,
    colocated: bool,
    m: usize,
    p: Option<usize>,
    dur: u32,
    tminus: u32,
    /// y_jhm per server.
    y: Vec<u32>,
    /// s_jhp per server.
    s: Vec<u32>,
}

/// A_maxweight lines 3-5: the q = 1 schedule unless the q = 0 one is strictly cheaper.
fn choose(q1: Option<Sched>, q0: Option<Sched>) -> Option<Sched> {
    match (q1, q0) {
        (Some(a), Some(b)) => Some(if b.cost < a.cost { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// The listings' `if cost < cost_m`: a later schedule replaces the kept one only when strictly
/// cheaper, so the first found in enumeration order wins ties.
fn keep(best: &mut Option<Sched>, s: Sched) {
    if best.as_ref().is_none_or(|b| s.cost < b.cost) {
        *best = Some(s);
    }
}

/// What the listings read in one window: omega_h^r(t) and the fixed-point unit prices
/// sum_r delta_h^r(t) e^r of every worker and PS type, at relative slots 0..len.
struct WindowView<'a> {
    scn: &'a OnlineScenario,
    len: u32,
    /// omega at `(h * len + t) * R + r`.
    free: Vec<f64>,
    /// Unit price of worker type m at `(m * H + h) * len + t`.
    unit_w: Vec<u128>,
    /// Unit price of PS type p at `(p * H + h) * len + t`.
    unit_p: Vec<u128>,
}

impl<'a> WindowView<'a> {
    fn new(st: &State<'a>, base: u32, len: u32) -> Self {
        let scn = st.scn;
        let (hn, rn, l) = (scn.servers.len(), scn.resources as usize, len as usize);
        let mut free = vec![0.0; hn * l * rn];
        let mut delta = vec![0.0; hn * l * rn];
        for h in 0..hn {
            for t in 0..l {
                for r in 0..rn {
                    let cap = scn.servers[h].get(r);
                    let used = st.beta_at(base + t as u32, h, r);
                    free[(h * l + t) * rn + r] = cap - used;
                    delta[(h * l + t) * rn + r] = eq11(st.lambda, used, cap);
                }
            }
        }
        let units = |types: &[TaskType]| -> Vec<u128> {
            let mut u = vec![0u128; types.len() * hn * l];
            for (k, ty) in types.iter().enumerate() {
                for h in 0..hn {
                    for t in 0..l {
                        let d = &delta[(h * l + t) * rn..(h * l + t + 1) * rn];
                        u[(k * hn + h) * l + t] = unit_price(d, ty);
                    }
                }
            }
            u
        };
        WindowView {
            scn,
            len,
            unit_w: units(&scn.worker_types),
            unit_p: units(&scn.ps_types),
            free,
        }
    }

    fn servers(&self) -> usize {
        self.scn.servers.len()
    }

    fn omega(&self, h: usize, t: u32) -> &[f64] {
        let rn = self.scn.resources as usize;
        let i = (h * self.len as usize + t as usize) * rn;
        &self.free[i..i + rn]
    }

    /// min over the slots [t0, t0 + dur) of floor(omega_h^r(t) / e_m^r) over r with e_m^r > 0.
    fn room(&self, h: usize, m: usize, t0: u32, dur: u32) -> u32 {
        let e = &self.scn.worker_types[m];
        (t0..t0 + dur)
            .map(|t| copies(self.omega(h, t), 0, e, e))
            .min()
            .unwrap_or(0)
    }

    /// s-hat: min over the slots of floor((omega_h^r(t) - g e_m^r) / z_p^r) over r with z^r > 0.
    fn ps_room(&self, h: usize, g: u32, m: usize, p: usize, t0: u32, dur: u32) -> u32 {
        let (e, z) = (&self.scn.worker_types[m], &self.scn.ps_types[p]);
        (t0..t0 + dur)
            .map(|t| copies(self.omega(h, t), g, e, z))
            .min()
            .unwrap_or(0)
    }

    /// Omega_h = sum over the slots of the unit price of one type-m worker on h.
    fn omega_sum(&self, h: usize, m: usize, t0: u32, dur: u32) -> u128 {
        let hn = self.servers();
        let l = self.len as usize;
        (t0..t0 + dur).fold(0u128, |a, t| {
            a.saturating_add(self.unit_w[(m * hn + h) * l + t as usize])
        })
    }

    /// Servers in non-decreasing Omega_h (ties: lower index first).
    fn by_omega(&self, m: usize, t0: u32, dur: u32) -> Vec<usize> {
        let mut order: Vec<(u128, usize)> = (0..self.servers())
            .map(|h| (self.omega_sum(h, m, t0, dur), h))
            .collect();
        order.sort();
        order.into_iter().map(|(_, h)| h).collect()
    }

    /// sum over the slots [t0, t0 + dur), servers h and resources r of
    /// delta_h^r(t) (e_m^r y_h + z_p^r s_h), as integer unit prices.
    fn cost(&self, m: usize, p: Option<usize>, t0: u32, dur: u32, y: &[u32], s: &[u32]) -> u128 {
        let (hn, l) = (self.servers(), self.len as usize);
        let mut c = 0u128;
        for t in t0..t0 + dur {
            let t = t as usize;
            for h in 0..hn {
                let w = self.unit_w[(m * hn + h) * l + t].saturating_mul(y[h] as u128);
                c = c.saturating_add(w);
                if let Some(p) = p {
                    let x = self.unit_p[(p * hn + h) * l + t].saturating_mul(s[h] as u128);
                    c = c.saturating_add(x);
                }
            }
        }
        c
    }
}

/// Eq. (11): delta = lambda^(beta / C) - 1 (a zero capacity is full: lambda - 1).
fn eq11(lambda: f64, beta: f64, cap: f64) -> f64 {
    let share = if cap > 0.0 { beta / cap } else { 1.0 };
    libm::pow(lambda, share) - 1.0
}

/// sum_r delta^r d^r (r in index order), rounded half up to a multiple of 2^-20, in 2^-20 units.
fn unit_price(delta: &[f64], ty: &TaskType) -> u128 {
    let mut x = 0.0;
    for (r, &d) in delta.iter().enumerate() {
        x += d * ty.demand.get(r);
    }
    let steps = libm::floor(x * UNIT_STEPS + 0.5);
    if steps > 0.0 {
        steps as u128
    } else {
        0
    }
}

/// How many copies of `z` fit into `free` after `g` copies of `e` are taken:
/// min over r with z^r > 0 of floor((free^r - g e^r) / z^r) (u32::MAX if z demands nothing).
fn copies(free: &[f64], g: u32, e: &TaskType, z: &TaskType) -> u32 {
    let mut most = u32::MAX;
    for (r, &f) in free.iter().enumerate() {
        let zr = z.demand.get(r);
        if zr > 0.0 {
            let n = floor_eps((f - g as f64 * e.demand.get(r)) / zr);
            let n = if n <= 0.0 {
                0
            } else if n >= u32::MAX as f64 {
                u32::MAX
            } else {
                n as u32
            };
            most = most.min(n);
        }
    }
    most
}

/// Eq. (1): rho = 1 / (v_jm + U_j^p) when workers and PS share one server (q = 1), else
/// 1 / (v_jm + U_j^p + 2 pi_j / b_m).
fn rho_eq1(job: &OnlineJob, m: usize, p: usize, b_m: f64, q1: bool) -> f64 {
    let (v, u) = (job.minibatch_time[m], job.update_time[p]);
    if q1 {
        1.0 / (v + u)
    } else {
        1.0 / (v + u + 2.0 * job.gradient_size / b_m)
    }
}

/// Eq. (14) with Phi workers: 1 / (v_jm + U_j (Phi - 1) / Phi) when on one server (q = 1),
/// else 1 / (v_jm + U_j (Phi - 1) / Phi + 2 pi_j (Phi - 1) / (Phi b_m)).
fn rho_eq14(job: &OnlineJob, m: usize, phi: u32, b_m: f64, q1: bool) -> f64 {
    let (v, u, phi) = (job.minibatch_time[m], job.update_time[0], phi as f64);
    let sync = u * (phi - 1.0) / phi;
    if q1 {
        1.0 / (v + sync)
    } else {
        1.0 / (v + sync + 2.0 * job.gradient_size * (phi - 1.0) / (phi * b_m))
    }
}

/// E_j D_j K_j: mini-batches of the whole job.
fn work(job: &OnlineJob) -> f64 {
    job.epochs as f64 * job.chunks as f64 * job.minibatches_per_chunk as f64
}

/// ceil with the project's 1e-9 slack, at least 1, u32::MAX when out of range.
fn ceil_at_least_1(x: f64) -> u32 {
    ceil_u32(x).unwrap_or(u32::MAX).max(1)
}

/// A_mincost1/2 lines 5-6 for one (m, p): the durations L from ceil(E K / rho) (D_j workers) to
/// ceil(E D K / rho) (one worker) that leave t- >= 1 in the window, each with its
/// N = ceil(E D K / (L rho)) <= D_j.
fn durations(job: &OnlineJob, rho: f64, len: u32) -> Vec<(u32, u32)> {
    let ek = job.epochs as f64 * job.minibatches_per_chunk as f64;
    let (lo, hi) = (ceil_at_least_1(ek / rho), ceil_at_least_1(work(job) / rho));
    (lo..=hi.min(len.saturating_sub(1)))
        .filter_map(|dur| {
            let n = ceil_u32(work(job) / (dur as f64 * rho))?.max(1);
            (n <= job.chunks).then_some((dur, n))
        })
        .collect()
}

/// (13d): ceil(rest b_m / B_p) PSs for `rest` workers away from the PS server.
fn ps_for(rest: u32, e: &TaskType, z: &TaskType) -> u32 {
    ceil_u32(rest as f64 * e.bw / z.bw).unwrap_or(u32::MAX)
}

/// A_mincost2 (q_j = 1): all N workers and one PS on one server.
fn mincost2(win: &WindowView, job: &OnlineJob) -> Option<Sched> {
    let scn = win.scn;
    let hn = win.servers();
    let mut best = None;
    for m in 0..scn.worker_types.len() {
        for p in 0..scn.ps_types.len() {
            let rho = rho_eq1(job, m, p, scn.worker_types[m].bw, true);
            for (dur, n) in durations(job, rho, win.len) {
                for t0 in 1..=win.len - dur {
                    for h in 0..hn {
                        if win.room(h, m, t0, dur) < n || win.ps_room(h, n, m, p, t0, dur) < 1 {
                            continue;
                        }
                        let (mut y, mut s) = (vec![0; hn], vec![0; hn]);
                        y[h] = n;
                        s[h] = 1;
                        let cost = win.cost(m, Some(p), t0, dur, &y, &s);
                        let sched = Sched {
                            cost,
                            colocated: true,
                            m,
                            p: Some(p),
                            dur,
                            tminus: t0,
                            y,
                            s,
                        };
                        keep(&mut best, sched);
                    }
                }
            }
        }
    }
    best
}

/// A_mincost1 (q_j = 0): for every PS host n, workers greedily along the Omega order; on n
/// only the most workers g that leave one worker elsewhere and room for the PSs they need.
fn mincost1(win: &WindowView, job: &OnlineJob) -> Option<Sched> {
    let scn = win.scn;
    let hn = win.servers();
    let mut best = None;
    for m in 0..scn.worker_types.len() {
        for p in 0..scn.ps_types.len() {
            let (e, z) = (&scn.worker_types[m], &scn.ps_types[p]);
            let rho = rho_eq1(job, m, p, e.bw, false);
            for (dur, nn) in durations(job, rho, win.len) {
                for t0 in 1..=win.len - dur {
                    let order = win.by_omega(m, t0, dur);
                    for n in 0..hn {
                        let (mut y, mut s) = (vec![0; hn], vec![0; hn]);
                        let mut left = nn;
                        for &k in &order {
                            let yk = win.room(k, m, t0, dur).min(left);
                            y[k] = yk;
                            if k == n {
                                // g* = the largest g with N - g >= 1 and room for the PSs.
                                let gstar = (0..=yk).rev().find(|&g| {
                                    nn - g >= 1
                                        && win.ps_room(n, g, m, p, t0, dur) >= ps_for(nn - g, e, z)
                                });
                                if let Some(g) = gstar {
                                    y[n] = g;
                                    s[n] = ps_for(nn - g, e, z);
                                }
                            }
                            left -= y[k];
                        }
                        if left > 0 || s[n] < 1 {
                            continue;
                        }
                        let cost = win.cost(m, Some(p), t0, dur, &y, &s);
                        let sched = Sched {
                            cost,
                            colocated: false,
                            m,
                            p: Some(p),
                            dur,
                            tminus: t0,
                            y,
                            s,
                        };
                        keep(&mut best, sched);
                    }
                }
            }
        }
    }
    best
}

/// d-hat = ceil(E D K / (Phi rho)) of A_RAmincost1/2.
fn ring_duration(job: &OnlineJob, phi: u32, rho: f64) -> u32 {
    ceil_at_least_1(work(job) / (phi as f64 * rho))
}

/// A_RAmincost (q_j = 1): all Phi workers on one server.
fn ra_mincost1(win: &WindowView, job: &OnlineJob) -> Option<Sched> {
    let scn = win.scn;
    let hn = win.servers();
    let mut best = None;
    for m in 0..scn.worker_types.len() {
        for phi in 1..=job.chunks {
            let dur = ring_duration(
                job,
                phi,
                rho_eq14(job, m, phi, scn.worker_types[m].bw, true),
            );
            if dur >= win.len {
                continue;
            }
            for t0 in 1..=win.len - dur {
                for h in 0..hn {
                    if win.room(h, m, t0, dur) < phi {
                        continue;
                    }
                    let mut y = vec![0; hn];
                    y[h] = phi;
                    let s = vec![0; hn];
                    let cost = win.cost(m, None, t0, dur, &y, &s);
                    let sched = Sched {
                        cost,
                        colocated: true,
                        m,
                        p: None,
                        dur,
                        tminus: t0,
                        y,
                        s,
                    };
                    keep(&mut best, sched);
                }
            }
        }
    }
    best
}

/// A_RAmincost (q_j = 0): Phi workers greedily along the Omega order ("N = d" read as
/// N = Phi').
fn ra_mincost2(win: &WindowView, job: &OnlineJob) -> Option<Sched> {
    let scn = win.scn;
    let hn = win.servers();
    let mut best = None;
    for m in 0..scn.worker_types.len() {
        for phi in 1..=job.chunks {
            let dur = ring_duration(
                job,
                phi,
                rho_eq14(job, m, phi, scn.worker_types[m].bw, false),
            );
            if dur >= win.len {
                continue;
            }
            for t0 in 1..=win.len - dur {
                let mut y = vec![0; hn];
                let mut left = phi;
                for k in win.by_omega(m, t0, dur) {
                    y[k] = win.room(k, m, t0, dur).min(left);
                    left -= y[k];
                }
                if left > 0 {
                    continue;
                }
                let s = vec![0; hn];
                let cost = win.cost(m, None, t0, dur, &y, &s);
                let sched = Sched {
                    cost,
                    colocated: false,
                    m,
                    p: None,
                    dur,
                    tminus: t0,
                    y,
                    s,
                };
                keep(&mut best, sched);
            }
        }
    }
    best
}
