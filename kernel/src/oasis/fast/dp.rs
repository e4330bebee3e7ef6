//! [`FastDp`], the scratch of the fast DP sized once for a scenario ([`DpSize`]), and what a
//! job's DP needs: the lower bound of any schedule's cost ([`FastDp::floor_bound`]), the rows
//! the t_hat scan can reach ([`FastDp::reach`]) and the sizes ([`FastDp::size_of`]).
use super::schedule::SlotAlloc;
use super::sweep::Sweep;
use crate::index::NONE;
use crate::model::oasis::Utility;
use crate::num::greater;
use crate::oasis::market::{JobParams, Market};
use crate::ResourceVec;
use alloc::vec;
use alloc::vec::Vec;

/// Scratch of the fast DP, sized once for a scenario.
#[derive(Clone, Debug)]
pub struct FastDp {
    pub(super) slots: usize,
    pub(super) wsw: Sweep,
    pub(super) psw: Sweep,
    pub(super) pt_w: Vec<u64>,
    pub(super) pt_d: Vec<u64>,
    pub(super) pt_c: Vec<f64>,
    pub(super) f_prev: Vec<f64>,
    pub(super) f_cur: Vec<f64>,
    pub(super) choice: Vec<u32>,
    pub(super) plan_w: Vec<u64>,
    pub(super) plan_d: Vec<u64>,
    pub(super) out: Vec<SlotAlloc>,
    pub(super) out_len: usize,
    pub(super) pairs_w: Vec<[u32; 2]>,
    pub(super) pairs_p: Vec<[u32; 2]>,
    /// the listed servers of every DP row (server, fit, unit), for the reconstruction
    pub(super) list_w: Vec<(u32, u32, f64)>,
    pub(super) list_p: Vec<(u32, u32, f64)>,
    /// per DP row, where its lists start (and, at the next row, end)
    pub(super) row_w: Vec<usize>,
    pub(super) row_p: Vec<usize>,
    /// per slot x: a lower bound of the chunks the slots x..T can hold for the decision's job,
    /// from the census ([`Self::rest_covers`]), valid from `rest_from` up (`None`: not
    /// computed yet this decision)
    pub(super) rest: Vec<u64>,
    pub(super) rest_from: Option<u32>,
    /// DP cells written by the last decision (a work measure for benches and tests).
    pub cells: u64,
    /// Slots whose cheapest servers the last decision listed (a work measure: the
    /// scheduler lets only light decisions redo stale summaries, [`crate::oasis::Market`]).
    pub listed: u64,
}

/// What a fast decision needs to know of its scratch size.
#[derive(Clone, Copy, Debug, Default)]
pub struct DpSize {
    /// T.
    pub slots: usize,
    /// H.
    pub workers: usize,
    /// K.
    pub ps: usize,
    /// Largest N_i + 1 among jobs that need the DP.
    pub points: usize,
    /// Largest D_i + 1 among jobs that need the DP.
    pub row: usize,
    /// Largest reach_i (D_i + 1) among jobs that need the DP (reach_i: the rows the t_hat scan
    /// can reach, [`FastDp::reach`]).
    pub cells: usize,
    /// Largest (worker server, slot) pairs of one schedule: min(reach_i, D_i) min(N_i, H).
    pub pairs_w: usize,
    /// Largest (PS server, slot) pairs of one schedule: min(reach_i, D_i) min(Z_i, K).
    pub pairs_p: usize,
    /// Largest reach_i.
    pub rows: usize,
    /// Largest reach_i min(N_i, H): the listed worker servers of all rows.
    pub list_w: usize,
    /// Largest reach_i min(Z_i, K).
    pub list_p: usize,
}

impl DpSize {
    /// The larger of each field.
    pub fn max(self, o: DpSize) -> DpSize {
        DpSize {
            slots: self.slots.max(o.slots),
            workers: self.workers.max(o.workers),
            ps: self.ps.max(o.ps),
            points: self.points.max(o.points),
            row: self.row.max(o.row),
            cells: self.cells.max(o.cells),
            pairs_w: self.pairs_w.max(o.pairs_w),
            pairs_p: self.pairs_p.max(o.pairs_p),
            rows: self.rows.max(o.rows),
            list_w: self.list_w.max(o.list_w),
            list_p: self.list_p.max(o.list_p),
        }
    }
}

impl FastDp {
    /// Scratch for decisions of the given size (allocated here, never in a decision).
    pub fn new(size: DpSize) -> Self {
        let t = size.slots;
        FastDp {
            slots: t,
            wsw: Sweep::new(size.workers, size.slots),
            psw: Sweep::new(size.ps, size.slots),
            pt_w: vec![0; size.points],
            pt_d: vec![0; size.points],
            pt_c: vec![0.0; size.points],
            f_prev: vec![f64::INFINITY; size.row],
            f_cur: vec![f64::INFINITY; size.row],
            choice: vec![NONE; size.cells],
            plan_w: vec![0; t],
            plan_d: vec![0; t],
            out: vec![SlotAlloc::default(); t],
            out_len: 0,
            pairs_w: vec![[0, 0]; size.pairs_w],
            pairs_p: vec![[0, 0]; size.pairs_p],
            list_w: vec![(0, 0, 0.0); size.list_w],
            list_p: vec![(0, 0, 0.0); size.list_p],
            row_w: vec![0; size.rows + 1],
            row_p: vec![0; size.rows + 1],
            rest: vec![0; t + 1],
            rest_from: None,
            cells: 0,
            listed: 0,
        }
    }

    /// A lower bound on the cost of any schedule of `job`: at least D m_i worker-slots (less
    /// the rounding slack), each at least the idle unit price sum_r L w_i^r (every price of eq.
    /// (22) is >= L; the factor 1 - 1e-9 absorbs the rounding of the log-domain form), likewise
    /// ceil(y b / B) parameter servers; the factor 0.999 keeps it strict against float noise.
    /// It is below the old bound (the cheapest unit price with room in the window), so the t_hat
    /// scan it stops may only go further; no slot it adds can pay more (see `docs/oasis.md`).
    pub fn floor_bound(m: &Market, job: &JobParams) -> f64 {
        let t = m.slots() as f64;
        let w = (job.workload as f64 * job.chunk_time - t * 1e-9).max(0.0);
        let z = (w * job.worker_bw / job.ps_bw - t * 1e-9).max(0.0);
        let b = m.bounds();
        let floor = |l: f64, dem: &ResourceVec| {
            let mut acc = 0.0;
            for &d in dem.as_slice() {
                acc += l * d;
            }
            acc * (1.0 - 1e-9)
        };
        let (cw, cp) = (
            floor(b.l_worker, &job.worker_demand),
            floor(b.l_ps, &job.ps_demand),
        );
        let lw = if w > 0.0 { 0.999 * w * cw } else { 0.0 };
        let lp = if z > 0.0 { 0.999 * z * cp } else { 0.0 };
        lw + lp
    }

    /// The rows (slots from a_i) the t_hat scan can reach: the first k with
    /// f_i(k) - floor_bound <= 0 (the scan stops there whatever payoff it has), at most T - a_i.
    /// f_i is non-increasing, so bisect.
    pub fn reach(m: &Market, job: &JobParams, f: &Utility) -> u32 {
        let window = m.slots().saturating_sub(job.arrival);
        let lb = Self::floor_bound(m, job);
        let stops = |k: u32| !greater(f.at(k) - lb, 0.0);
        let (mut lo, mut hi) = (0u32, window);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if stops(mid) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// Does `job` need the DP at all, and how big is it? `None` when even the full capacity of
    /// an empty cluster cannot cover D_i before T (the job is rejected without a DP).
    pub fn size_of(m: &Market, job: &JobParams, f: &Utility) -> Option<DpSize> {
        let window = m.slots().checked_sub(job.arrival)? as u64;
        let per_slot = job.chunks_for(job.max_workers as u64);
        if per_slot.saturating_mul(window) < job.workload {
            return None;
        }
        let row = usize::try_from(job.workload).ok()?.checked_add(1)?;
        let reach = Self::reach(m, job, f) as usize;
        let cells = row.checked_mul(reach)?;
        let used = reach.min(usize::try_from(job.workload).unwrap_or(usize::MAX));
        let nw = (job.max_workers as usize).min(m.workers.servers() as usize);
        let z = usize::try_from(job.ps_for(job.max_workers as u64)).unwrap_or(usize::MAX);
        let nz = z.min(m.ps.servers() as usize);
        Some(DpSize {
            slots: m.slots() as usize,
            workers: m.workers.servers() as usize,
            ps: m.ps.servers() as usize,
            points: job.max_workers as usize + 1,
            row,
            cells,
            pairs_w: used.saturating_mul(nw),
            pairs_p: used.saturating_mul(nz),
            rows: reach,
            list_w: reach.saturating_mul(nw),
            list_p: reach.saturating_mul(nz),
        })
    }
}
