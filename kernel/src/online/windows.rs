//! The window machinery of the fast search ([`super::fast`]): the scratch [`FastScratch`]
//! and what it keeps per A_dual window -- free capacities and prices per (server, resource,
//! slot), rebuilt only for servers a scheduled job touched; prefix sums of every type's unit
//! price per server (Omega_h, Zeta_h as O(1) differences), built per type on demand; runs of
//! equal usage, sliding and power-of-two window minima of free capacity; fit counts;
//! the server order by Omega with its prefix sums and the greedy fill answered by binary search.
use super::bounds::BlockBounds;
use super::common::*;
use super::ps::Rates;
#[cfg(doc)]
use super::ring::ring_options_max;
use super::ring::RingEnt;
use super::room::RoomSets;
use super::{Ctx, Placement, Window};
use crate::model::online::TaskType;
use alloc::vec;
use alloc::vec::Vec;

/// Scratch of the fast search, allocated once when the scheduler is built.
#[derive(Clone, Debug)]
pub struct FastScratch {
    /// Servers in the virtual set (the search's server loops run over 0..h).
    pub(super) h: usize,
    /// Row stride of the per-server tables: H (the virtual set never exceeds it).
    pub(super) hcap: usize,
    /// Virtual server v is real server `real[v]`.
    pub(super) real: Vec<u32>,
    /// Real server h is virtual `virt[h]` (NONE when not in the set).
    pub(super) virt: Vec<u32>,
    /// Real server h has a reservation in the cached window (it is in the set).
    pub(super) busy: Vec<bool>,
    /// Shape (capacity bits) of every real server.
    pub(super) shape_of: Vec<u32>,
    /// Servers grouped by shape, index order: shape s is `members[shape_at[s]..shape_at[s + 1]]`.
    pub(super) members: Vec<u32>,
    pub(super) shape_at: Vec<u32>,
    /// Idle servers of shape s the set keeps (see [`FastScratch::init_shapes`]).
    pub(super) shape_k: Vec<u32>,
    /// Next position in `members` of shape s not yet considered for the set.
    pub(super) cursor: Vec<u32>,
    /// Idle servers of shape s in the set.
    pub(super) idle_in: Vec<u32>,
    pub(super) r: usize,
    pub(super) m: usize,
    pub(super) p: usize,
    pub(super) wcap: usize,
    /// The window the prefix sums describe.
    pub(super) cached: Option<(u32, u32)>,
    /// pre[(ty * (wcap + 1) + t) * H + h]: sum of unit prices of type ty on server h over
    /// slots [0, t). Slot-major, so a pass over the servers (Omega_h, Zeta_h of every h) reads
    /// two contiguous rows.
    pub(super) pre: Vec<u128>,
    /// free[(h * R + r) * wcap + t] = omega_h^r(t).
    pub(super) free: Vec<f64>,
    /// Window minima of `free`: ring, power-of-two levels ([`Self::levels_to`]); PS in windows
    /// of at most [`SLIDE_WINDOW_MAX`] slots, sliding minima over [t, t + L) ([`Self::mins_for`]).
    pub(super) mins: Vec<f64>,
    /// The L the PS sliding minima describe (0: none built in this search).
    pub(super) mins_len: u32,
    /// Sparse table of window minima kept across searches: level k (0..=`sparse_k`) at
    /// `sparse[((k * wcap + t) * hcap + v) * R + r]` = min of `free` over [t, t + 2^k)
    /// (level 0 is `free` itself). Rebuilt per server with its free capacities
    /// ([`Self::build_server`]), so a search reads any window minimum in O(1) instead of
    /// growing sliding minima over the whole set ([`Self::min_free`]); slot-major, so the
    /// minima of every server for one range ([`Self::window_minima`]) read two contiguous
    /// rows. Empty (`sparse_on` false) when the table would exceed [`SPARSE_CELLS_MAX`].
    pub(super) sparse: Vec<f64>,
    pub(super) sparse_k: u32,
    pub(super) sparse_on: bool,
    /// Runs of equal usage: `runs[v * wcap + k]` is the first slot of virtual server v's k-th
    /// run of slots whose R usages all have the same bits (so do their free capacities), and
    /// `run_of[v * wcap + t]` is the run holding slot t. A window minimum is a minimum over the
    /// runs it meets ([`Self::min_free`]); an idle server is one run.
    pub(super) runs: Vec<u32>,
    pub(super) run_of: Vec<u32>,
    /// delta_h^r(t) at `(h * wcap + t) * R + r`.
    pub(super) dl: Vec<f64>,
    /// `fresh[h * wcap + t]`: the prices of slot t on h differ from slot t - 1's (or t = 0).
    pub(super) fresh: Vec<bool>,
    /// `row_ok[ty * H + h]`: the prefix row of type ty on server h describes the window.
    pub(super) row_ok: Vec<bool>,
    /// `type_ok[ty]`: every row of type ty does.
    pub(super) type_ok: Vec<bool>,
    /// Slot-minimum prefix sums: `smin[ty * (wcap + 1) + t]` = sum over slots [0, t) of the
    /// smallest unit price of type ty on any server of the set in that slot
    /// ([`Self::slot_lb`]).
    pub(super) smin: Vec<u128>,
    /// `smin_ok[ty]`: the slot minima of type ty describe the current rows.
    pub(super) smin_ok: Vec<bool>,
    /// Per (type, block of [`BLOCK`] servers) the smallest unit price of the block's servers in
    /// every slot, at `bsmin[(ty * SLIDE_WINDOW_MAX + t) * blocks + b]` (a slot's blocks side
    /// by side, for the minimum over the blocks), and whether it is stale
    /// (a member's prefix row was rebuilt): after a commit only the touched servers' blocks
    /// are recomputed before the minimum over the blocks ([`Self::slot_lb`]).
    pub(super) bsmin: Vec<u128>,
    pub(super) bstale: Vec<bool>,
    /// Prefix sums over the slots of `bsmin`, at `bspre[(ty * (SLIDE_WINDOW_MAX + 1) + t) *
    /// blocks + b]` (built with it): a lower bound of every member's window sum in O(1)
    /// ([`Self::block_floor`]). A slot's blocks side by side, so that a pass over the blocks
    /// for one (t-, L) reads two contiguous rows, not two lines per block.
    pub(super) bspre: Vec<u128>,
    pub(super) omega: Vec<u128>,
    pub(super) zeta: Vec<u128>,
    /// PS capacity s-hat(0) per (PS type, server) over the (L, t-) of [`Self::zetas`].
    pub(super) pcap: Vec<u32>,
    /// The possible PS hosts of [`Self::zetas`] per PS type (set order), and how many.
    pub(super) phost: Vec<u32>,
    pub(super) phost_n: Vec<u32>,
    pub(super) zmin: Vec<u128>,
    pub(super) zdone: Vec<bool>,
    /// The `need` each PS type's host list of [`Self::zetas`] was made for.
    pub(super) zneed: Vec<u32>,
    /// The price cap each PS type's host list of [`Self::zetas`] was made for.
    pub(super) zcap: Vec<u128>,
    pub(super) caps: Vec<u32>,
    /// Servers with room for a worker per (worker type, L, t-), kept across the searches of a
    /// window ([`RoomSets`]): when few, [`Self::caps_for`] visits only these.
    pub(super) room: RoomSets,
    /// The servers with a positive `caps` after the last full capacity pass ([`Self::caps_for`],
    /// [`Self::caps_direct`], [`Self::caps_at`]; set order), and how many:
    /// [`Self::omegas_live`] and [`Self::sort_and_prefix`] without `all` visit these only, not
    /// the whole set (in a full window a few percent of it).
    pub(super) live: Vec<u32>,
    pub(super) live_n: usize,
    pub(super) order: Vec<(u128, u32)>,
    /// Window minima of free capacity of every server for the range `wmin_key`
    /// ([`Self::window_minima`]), computed block by block on demand: block b's entries (and
    /// its `bmax`) describe the range when `bgen[b]` is `wgen`.
    pub(super) wmin: Vec<f64>,
    pub(super) wmin_key: Option<(u32, u32)>,
    pub(super) wgen: u32,
    pub(super) bgen: Vec<u32>,
    /// Per block of [`BLOCK`] consecutive servers of the set, the largest of their `wmin` per
    /// resource, at `bmax[b * R + r]`: fit(bmax, type) bounds every member's window capacity
    /// from above (the fit count is non-decreasing in each free capacity), so a block whose
    /// bound is below what a pass needs is skipped without visiting its servers.
    pub(super) bmax: Vec<f64>,
    /// fit(bmax) per (type, L, t-, block) kept across the searches of a window
    /// ([`BlockBounds`]): a block recorded below what a pass needs is skipped without
    /// computing its window minima ([`Self::block_fits`]).
    pub(super) bounds: BlockBounds,
    /// The q = 1 hosts of [`Self::caps_possible`], and how many.
    pub(super) hold: Vec<u32>,
    pub(super) hold_n: usize,
    /// Servers in `order` ([`Self::sort_and_prefix`]).
    pub(super) nord: usize,
    pub(super) posof: Vec<u32>,
    pub(super) ocap: Vec<u64>,
    /// The largest window capacity of any server [`Self::sort_and_prefix`] ordered (also
    /// beyond the sorted prefix).
    pub(super) omax: u32,
    pub(super) oom: Vec<u128>,
    pub(super) pc: Vec<u64>,
    pub(super) po: Vec<u128>,
    pub(super) rates: Vec<Rates>,
    pub(super) n1: Vec<u32>,
    pub(super) n2: Vec<u32>,
    /// Ring: the (m, Phi, q) whose duration fits the window, bucketed by duration
    /// (`ring[ring_at[d]..ring_at[d + 1]]`), in (m, Phi, q = 1 first) order within a bucket.
    pub(super) ring: Vec<RingEnt>,
    /// Ring: the same entries with their durations, in (m, Phi, q) order (bucket sort input).
    pub(super) ring_tmp: Vec<(u32, RingEnt)>,
    pub(super) ring_at: Vec<u32>,
    pub(super) ring_fill: Vec<u32>,
    pub(super) phis: usize,
    /// Servers whose usage changed since their prices were built for the cached window.
    pub(super) dirty: Vec<bool>,
    /// delta_h^r at zero usage, at `h * R + r` (filled on first use).
    pub(super) price0: Vec<Option<f64>>,
    /// max over the window's slots of omega_h^r(t), at `h * R + r`.
    pub(super) maxfree: Vec<f64>,
    /// Per worker type m: (most workers one server can hold in any slot of the window, most
    /// the whole set can), computed on first use after `maxfree` changed ([`Self::worker_ub`]).
    pub(super) ub: Vec<Option<(u32, u64)>>,
    /// fit(`maxfree` of server h, worker type m) at `ubfit[m * hcap + h]`, kept while
    /// `ubfit_ok[m]` (refreshed for a server whenever its `maxfree` is rebuilt), so that after a
    /// commit [`Self::worker_ub`] recounts the touched servers only, not the whole set.
    pub(super) ubfit: Vec<u32>,
    pub(super) ubfit_ok: Vec<bool>,
    /// Per type ty (worker types, then PS types), the servers of [`Self::possible`] at
    /// `poss[ty * hcap..][..poss_n[ty]]`.
    pub(super) poss: Vec<u32>,
    pub(super) poss_n: Vec<u32>,
    pub(super) poss_ok: Vec<bool>,
}

/// The longest window in which the PS search keeps sliding minima ([`FastScratch::slides`]).
pub(super) const SLIDE_WINDOW_MAX: u32 = 256;

/// The most cells (f64) of the sparse table of window minima ([`FastScratch::sparse`]):
/// 2^24 (128 MB). A 12,500-server set with R = 3 and 32-slot windows needs 4.8 million.
pub(super) const SPARSE_CELLS_MAX: usize = 1 << 24;

/// Servers per block of the block bounds ([`FastScratch::bmax`]). In a full window of the
/// generated 12,500-server scenario about 3% of the servers can take a worker of a given type
/// over a range, and about 10% of 32-server blocks hold one.
pub(super) const BLOCK: usize = 32;

/// "No worker count" in the per-(m, p) tables.
pub(super) const NONE: u32 = u32::MAX;

impl FastScratch {
    /// Scratch for H servers, R resources, M worker / P PS types, windows up to `wcap` slots and
    /// up to `phis` ring worker counts per type and up to `ring_cap` ring options per job
    /// ([`ring_options_max`]).
    pub fn new(
        h: usize,
        r: usize,
        m: usize,
        p: usize,
        wcap: usize,
        phis: usize,
        ring_cap: usize,
    ) -> Self {
        let ty = m + p;
        // Levels 0..=k with 2^k <= wcap - 1, the longest duration a window holds (t- >= 1).
        let want = if wcap >= 2 {
            usize::BITS - 1 - (wcap - 1).leading_zeros()
        } else {
            0
        };
        let cells = (want as usize + 1)
            .saturating_mul(h)
            .saturating_mul(r)
            .saturating_mul(wcap);
        let sparse_on = cells <= SPARSE_CELLS_MAX;
        FastScratch {
            h: 0,
            hcap: h,
            real: vec![0; h],
            virt: vec![NONE; h],
            busy: vec![false; h],
            shape_of: vec![0; h],
            members: (0..h as u32).collect(),
            shape_at: vec![0, h as u32],
            shape_k: vec![h as u32],
            cursor: vec![0],
            idle_in: vec![0],
            r,
            m,
            p,
            wcap,
            cached: None,
            pre: vec![0; ty * h * (wcap + 1)],
            free: vec![0.0; h * r * wcap],
            // The ring search's levels, and the PS search's sliding minima in short windows
            // (long windows use `runs` only).
            mins_len: 0,
            mins: if ring_cap > 0 || wcap <= SLIDE_WINDOW_MAX as usize {
                vec![0.0; h * r * wcap]
            } else {
                Vec::new()
            },
            sparse: vec![0.0; if sparse_on { cells } else { 0 }],
            sparse_k: if sparse_on { want } else { 0 },
            sparse_on,
            runs: vec![0; h * wcap],
            run_of: vec![0; h * wcap],
            dl: vec![0.0; h * r * wcap],
            fresh: vec![false; h * wcap],
            row_ok: vec![false; (m + p) * h],
            type_ok: vec![false; m + p],
            smin: vec![0; ty * (wcap + 1)],
            smin_ok: vec![false; ty],
            bsmin: vec![0; ty * h.div_ceil(BLOCK) * SLIDE_WINDOW_MAX.min(wcap as u32) as usize],
            bspre: vec![
                0;
                ty * h.div_ceil(BLOCK) * (SLIDE_WINDOW_MAX.min(wcap as u32) as usize + 1)
            ],
            bstale: vec![true; ty * h.div_ceil(BLOCK)],
            omega: vec![0; h],
            zeta: vec![0; p * h],
            pcap: vec![0; p * h],
            phost: vec![0; p * h],
            phost_n: vec![0; p],
            zmin: vec![0; p],
            zdone: vec![false; p],
            zneed: vec![0; p],
            zcap: vec![0; p],
            caps: vec![0; h],
            room: RoomSets::new(m, wcap, h),
            live: vec![0; h],
            live_n: 0,
            order: vec![(0, 0); h],
            nord: 0,
            hold: vec![0; h],
            hold_n: 0,
            wmin: vec![0.0; h * r],
            wmin_key: None,
            wgen: 1,
            bgen: vec![0; h.div_ceil(BLOCK)],
            bmax: vec![0.0; h.div_ceil(BLOCK) * r],
            bounds: BlockBounds::new(ty, wcap, h.div_ceil(BLOCK)),
            posof: vec![0; h],
            ocap: vec![0; h],
            omax: 0,
            oom: vec![0; h],
            pc: vec![0; h + 1],
            po: vec![0; h + 1],
            rates: vec![Rates::default(); m * p],
            n1: vec![NONE; m * p],
            n2: vec![NONE; m * p],
            ring: vec![RingEnt::default(); ring_cap],
            ring_tmp: vec![(0, RingEnt::default()); ring_cap],
            ring_at: vec![0; wcap + 2],
            ring_fill: vec![0; wcap + 2],
            phis,
            maxfree: vec![0.0; h * r],
            price0: vec![None; h * r],
            dirty: vec![false; h],
            ub: vec![None; m],
            ubfit: vec![0; m * h],
            ubfit_ok: vec![false; m],
            poss: vec![0; ty * h],
            poss_n: vec![0; ty],
            poss_ok: vec![false; ty],
        }
    }

    /// Forgets the cached window (after a restore, or when prices changed elsewhere).
    pub fn invalidate(&mut self) {
        self.cached = None;
    }

    /// Groups the servers by shape (identical capacity bits) and sets how many idle servers
    /// of each shape the virtual set keeps: K_s = ceil((N_max + 1) / c_s) + 1 with c_s the
    /// smallest positive fit of a worker type on the shape (1 when no type fits) and N_max the
    /// most workers any job can ask for (D_j). Idle servers of one shape are identical in every
    /// price and capacity over the whole window, so beyond the first K_s (index order) none can
    /// change a search: a greedy fill of at most N_max workers never reaches them (the first
    /// K_s - 1 of them already hold N_max + 1 > N_max workers, one possibly being the PS host),
    /// a q = 1 or PS-host candidate on one of them ties with the lowest-index idle server of the
    /// shape and loses the index tie-break, and every bound (min Omega, max fit, total fit up
    /// to N_max) is unchanged. Allocates: called once when the scheduler is built.
    pub fn init_shapes(&mut self, scn: &crate::model::online::OnlineScenario, nmax: u32) {
        let hn = self.hcap.min(scn.servers.len());
        let key = |h: usize| -> ([u64; crate::limits::RESOURCES_MAX], usize) {
            let c = &scn.servers[h];
            let mut k = [0u64; crate::limits::RESOURCES_MAX];
            for (r, x) in k.iter_mut().enumerate().take(c.len()) {
                *x = c.get(r).to_bits();
            }
            (k, c.len())
        };
        let mut ids: Vec<u32> = (0..hn as u32).collect();
        crate::order::sort_indices_by(&mut ids, &|a, b| {
            (key(a as usize), a).cmp(&(key(b as usize), b))
        });
        self.members.clear();
        self.shape_at.clear();
        self.shape_k.clear();
        for (i, &h) in ids.iter().enumerate() {
            let h = h as usize;
            if i == 0 || key(ids[i - 1] as usize) != key(h) {
                self.shape_at.push(i as u32);
                let c = &scn.servers[h];
                let cmin = scn
                    .worker_types
                    .iter()
                    .map(|e| fit(c.as_slice(), e))
                    .filter(|&f| f > 0)
                    .min();
                let k = match cmin {
                    Some(c) => (nmax as u64 + 1).div_ceil(c as u64) + 1,
                    None => 1,
                };
                self.shape_k.push(k.min(u32::MAX as u64) as u32);
            }
            self.shape_of[h] = (self.shape_at.len() - 1) as u32;
            self.members.push(h as u32);
        }
        self.shape_at.push(hn as u32);
        let g = self.shape_k.len();
        self.cursor = vec![0; g];
        self.idle_in = vec![0; g];
        self.cached = None;
    }

    /// Adds real server h to the virtual set (its rows are built by the next [`Self::prepare`]).
    fn add(&mut self, h: u32) {
        let v = self.h;
        self.h += 1;
        self.real[v] = h;
        self.virt[h as usize] = v as u32;
        self.dirty[v] = true;
        for ty in 0..self.m + self.p {
            self.row_ok[ty * self.hcap + v] = false;
            self.type_ok[ty] = false;
        }
        self.ub.iter_mut().for_each(|u| *u = None);
        // A new server joins every possible-host list (a superset stays exact).
        for ty in 0..self.m + self.p {
            if self.poss_ok[ty] {
                let n = self.poss_n[ty] as usize;
                self.poss[ty * self.hcap + n] = v as u32;
                self.poss_n[ty] += 1;
            }
        }
    }

    /// Tops shape s up to K_s idle servers in the set (lowest indices first).
    fn top_up(&mut self, s: usize) {
        let end = self.shape_at[s + 1];
        while self.idle_in[s] < self.shape_k[s] && self.shape_at[s] + self.cursor[s] < end {
            let h = self.members[(self.shape_at[s] + self.cursor[s]) as usize];
            self.cursor[s] += 1;
            if !self.busy[h as usize] {
                self.add(h);
                self.idle_in[s] += 1;
            }
        }
    }

    /// The virtual set of a new window: every server with a reservation in it, then K_s idle
    /// servers of every shape s.
    fn reset_set(&mut self, cx: &Ctx) {
        self.poss_ok.iter_mut().for_each(|u| *u = false);
        self.ubfit_ok.iter_mut().for_each(|u| *u = false);
        self.room.reset();
        self.bounds.reset();
        for v in 0..self.h {
            let h = self.real[v] as usize;
            self.virt[h] = NONE;
            self.busy[h] = false;
        }
        self.h = 0;
        for &h in &cx.win.busy {
            if let Some(b) = self.busy.get_mut(h as usize) {
                *b = true;
            }
        }
        for i in 0..cx.win.busy.len() {
            let h = cx.win.busy[i];
            if (h as usize) < self.hcap {
                self.add(h);
            }
        }
        for s in 0..self.shape_k.len() {
            self.cursor[s] = 0;
            self.idle_in[s] = 0;
            self.top_up(s);
        }
    }

    /// Rebuilds the free capacities and prices of server `h` for window `w`; its prefix rows
    /// are rebuilt on demand ([`Self::ensure`]), only for the types a search asks about.
    ///
    /// delta_h^r(t) depends only on beta_h^r(t) (and C_h^r, fixed), and a reservation covers a
    /// run of slots, so beta is piecewise constant along t: a slot whose usage bits equal the
    /// previous slot's reuses its price (same inputs to the same `pow`, hence the same bits).
    pub(super) fn build_server(&mut self, cx: &Ctx, w: &Window, v: usize) {
        let (rr, wcap) = (self.r, self.wcap);
        let len = (w.len as usize).min(wcap);
        let h = self.real[v] as usize;
        let caps = cx.scn.servers.get(h);
        for r in 0..rr {
            let cap = caps.map_or(0.0, |c| c.get(r));
            let free = &mut self.free[(v * rr + r) * wcap..][..len];
            let mut last = 0u64;
            let mut delta = 0.0;
            let mut most = f64::NEG_INFINITY;
            let busy = cx.win.is_busy(h);
            for (t, f) in free.iter_mut().enumerate() {
                let u = if busy {
                    cx.used(w.base + t as u32, h, r)
                } else {
                    0.0
                };
                *f = cap - u;
                if *f > most {
                    most = *f;
                }
                let fresh = t == 0 || u.to_bits() != last;
                if fresh {
                    last = u.to_bits();
                    delta = price(&mut self.price0, cx.lambda, h * rr + r, u, cap);
                }
                self.dl[(v * wcap + t) * rr + r] = delta;
                // A slot is fresh when any of its R prices changed.
                if r == 0 {
                    self.fresh[v * wcap + t] = fresh;
                } else if fresh {
                    self.fresh[v * wcap + t] = true;
                }
            }
            self.maxfree[v * rr + r] = most;
        }
        self.build_sparse(v, len);
        let mut k = 0;
        for t in 0..len {
            if self.fresh[v * wcap + t] {
                self.runs[v * wcap + k] = t as u32;
                k += 1;
            }
            self.run_of[v * wcap + t] = k.saturating_sub(1) as u32;
        }
        for ty in 0..self.m + self.p {
            self.row_ok[ty * self.hcap + v] = false;
            self.type_ok[ty] = false;
        }
        // The ring bounds read `maxfree`. The possible-host lists are kept as supersets: free
        // capacity only falls within a window, so a rebuilt server can only leave them.
        self.ub.iter_mut().for_each(|u| *u = None);
        for m in 0..self.m {
            if self.ubfit_ok[m] {
                self.ubfit[m * self.hcap + v] = self.max_fit(cx, m, v);
            }
        }
    }

    /// The sparse table's entries of server v over the window's `len` slots: level 0 is `free`,
    /// level k at t = min(level k - 1 at t, at t + 2^(k - 1)). Minima of the same values in
    /// any grouping, so every entry is exactly the slot-by-slot minimum.
    fn build_sparse(&mut self, v: usize, len: usize) {
        if !self.sparse_on {
            return;
        }
        let (rr, wcap, hc) = (self.r, self.wcap, self.hcap);
        let at = |k: usize, t: usize, r: usize| ((k * wcap + t) * hc + v) * rr + r;
        for r in 0..rr {
            for t in 0..len {
                self.sparse[at(0, t, r)] = self.free[(v * rr + r) * wcap + t];
            }
        }
        for k in 1..=self.sparse_k as usize {
            let half = 1usize << (k - 1);
            let Some(n) = (len + 1).checked_sub(2 * half) else {
                break;
            };
            for t in 0..n {
                for r in 0..rr {
                    let (x, y) = (
                        self.sparse[at(k - 1, t, r)],
                        self.sparse[at(k - 1, t + half, r)],
                    );
                    self.sparse[at(k, t, r)] = if y < x { y } else { x };
                }
            }
        }
    }

    /// Makes the prefix rows of type `ty` (worker types first, then PS types) current: row
    /// (ty, h) at t + 1 = sum of the unit prices of slots [0, t]. A slot whose prices repeat the
    /// previous slot's repeats its unit price.
    pub(super) fn ensure(&mut self, cx: &Ctx, ty: usize) {
        if self.type_ok.get(ty) != Some(&false) {
            return;
        }
        let len = self.cached.map_or(0, |c| c.1) as usize;
        let stride = self.wcap + 1;
        let tt = if ty < self.m {
            &cx.scn.worker_types[ty]
        } else {
            &cx.scn.ps_types[ty - self.m]
        };
        for h in 0..self.h {
            if self.row_ok[ty * self.hcap + h] {
                continue;
            }
            let fresh = &self.fresh[h * self.wcap..][..len];
            let dl = &self.dl[h * self.wcap * self.r..][..len * self.r];
            let mut unit = 0u128;
            let mut acc = 0u128;
            // Column h of the slot-major table: entry t + 1 is H entries after entry t.
            let col = self.pre[(ty * stride + 1) * self.hcap + h..].iter_mut();
            for ((p, &f), d) in col
                .step_by(self.hcap)
                .zip(fresh)
                .zip(dl.chunks_exact(self.r))
            {
                if f {
                    unit = unit_price(d, tt);
                }
                acc = acc.saturating_add(unit);
                *p = acc;
            }
            self.row_ok[ty * self.hcap + h] = true;
            self.bstale[ty * self.hcap.div_ceil(BLOCK) + h / BLOCK] = true;
        }
        self.type_ok[ty] = true;
        self.smin_ok[ty] = false;
    }

    /// A lower bound of min over the set's servers of the window sum of type ty's unit price
    /// over [t-, t- + L): the sum over those slots of the smallest unit price of any server in
    /// each slot (a sum of per-slot minima is at most the minimum of the sums). O(1) once the
    /// slot minima are built (O(H x window) per type after the prices changed), so a search
    /// can drop a whole (m, p, L, t-) block before it visits a server: Omega_h >= this for
    /// every h, Zeta_h too. Exact integers (unit prices are fixed-point), so no rounding.
    pub(super) fn slot_lb(&mut self, cx: &Ctx, ty: usize, t0: u32, dur: u32) -> u128 {
        self.ensure(cx, ty);
        let stride = self.wcap + 1;
        if !self.smin_ok[ty] {
            self.build_slot_minima(ty);
        }
        let row = &self.smin[ty * stride..][..stride];
        row[(t0 + dur) as usize] - row[t0 as usize]
    }

    /// Builds `smin` for type ty from the prefix rows (a slot's unit price is the difference of
    /// two consecutive prefix sums; saturated rows only make the bound smaller).
    fn build_slot_minima(&mut self, ty: usize) {
        let len = self.cached.map_or(0, |c| c.1) as usize;
        let stride = self.wcap + 1;
        if len <= SLIDE_WINDOW_MAX.min(self.wcap as u32) as usize {
            self.build_slot_minima_blocks(ty, len);
            return;
        }
        let row = &mut self.smin[ty * stride..][..stride];
        // Per-slot minima first (row[t + 1] = min unit price in slot t), then prefix sums.
        row[1..=len].iter_mut().for_each(|x| *x = u128::MAX);
        for (t, x) in row[1..=len].iter_mut().enumerate() {
            let at = (ty * stride + t) * self.hcap;
            let (a, b) = (
                &self.pre[at..][..self.h],
                &self.pre[at + self.hcap..][..self.h],
            );
            for (lo, hi) in a.iter().zip(b) {
                let u = hi - lo;
                if u < *x {
                    *x = u;
                }
            }
        }
        if self.h == 0 {
            row[1..=len].iter_mut().for_each(|x| *x = 0);
        }
        row[0] = 0;
        for t in 1..=len {
            row[t] = row[t - 1].saturating_add(row[t]);
        }
        self.smin_ok[ty] = true;
    }

    /// [`Self::build_slot_minima`] through the per-block slot minima (`bsmin`): the stale
    /// blocks first, then per slot the minimum over the blocks (the same minimum of the same
    /// exact integers, grouped by block).
    fn build_slot_minima_blocks(&mut self, ty: usize, len: usize) {
        let (stride, bs, nb) = (
            self.wcap + 1,
            SLIDE_WINDOW_MAX.min(self.wcap as u32) as usize,
            self.hcap.div_ceil(BLOCK),
        );
        let used = self.h.div_ceil(BLOCK);
        for b in 0..used {
            if !self.bstale[ty * nb + b] {
                continue;
            }
            let (lo, hi) = (b * BLOCK, ((b + 1) * BLOCK).min(self.h));
            let mut acc = 0u128;
            self.bspre[ty * (bs + 1) * nb + b] = 0;
            for t in 0..len {
                let at = (ty * stride + t) * self.hcap;
                let (a, c) = (
                    &self.pre[at + lo..at + hi],
                    &self.pre[at + self.hcap + lo..],
                );
                let x = a.iter().zip(c).fold(u128::MAX, |m, (p, q)| m.min(q - p));
                self.bsmin[(ty * bs + t) * nb + b] = x;
                acc = acc.saturating_add(x);
                self.bspre[(ty * (bs + 1) + t + 1) * nb + b] = acc;
            }
            self.bstale[ty * nb + b] = false;
        }
        let row = &mut self.smin[ty * stride..][..stride];
        row[0] = 0;
        for t in 0..len {
            let blocks = &self.bsmin[(ty * bs + t) * nb..][..used];
            let lo = blocks.iter().fold(u128::MAX, |m, &x| m.min(x));
            // No server at all: nothing to bound (the search has no candidate anyway).
            let lo = if used == 0 { 0 } else { lo };
            row[t + 1] = row[t].saturating_add(lo);
        }
        self.smin_ok[ty] = true;
    }

    /// Whether [`Self::block_floor`] answers for type ty: the window is short enough for the
    /// per-block slot minima, which are brought up to date here (only the blocks whose members'
    /// rows changed since are recomputed).
    fn block_floors(&mut self, cx: &Ctx, ty: usize) -> bool {
        self.ensure(cx, ty);
        let len = self.cached.map_or(0, |c| c.1);
        if len > SLIDE_WINDOW_MAX.min(self.wcap as u32) {
            return false;
        }
        if !self.smin_ok[ty] {
            self.build_slot_minima(ty);
        }
        true
    }

    /// A lower bound of the window sum of type ty's unit price over [t-, t- + L) of every
    /// server of block b: the sum over those slots of the block's smallest unit price in each
    /// (exact integers; valid only after [`Self::block_floors`] returned true for ty).
    fn block_floor(&self, ty: usize, b: usize, t0: u32, dur: u32) -> u128 {
        let (bs, nb) = (
            SLIDE_WINDOW_MAX.min(self.wcap as u32) as usize,
            self.hcap.div_ceil(BLOCK),
        );
        let at = |t: u32| (ty * (bs + 1) + t as usize) * nb + b;
        self.bspre[at(t0 + dur)] - self.bspre[at(t0)]
    }

    /// Makes the scratch describe window `w` (full rebuild when the window changed).
    pub(super) fn prepare(&mut self, cx: &Ctx, w: &Window) {
        self.wmin_key = None;
        if self.cached != Some((w.base, w.len)) {
            self.reset_set(cx);
            for h in 0..self.h {
                self.build_server(cx, w, h);
                self.dirty[h] = false;
            }
            self.cached = Some((w.base, w.len));
        } else {
            for h in 0..self.h {
                if self.dirty[h] {
                    self.build_server(cx, w, h);
                    self.dirty[h] = false;
                }
            }
        }
    }

    /// Marks the servers of `placement` for a refresh after it was reserved in window `w` (done
    /// by the next search in the same window, if any).
    pub fn touched(&mut self, w: &Window, placement: &Placement) {
        if self.cached == Some((w.base, w.len)) {
            for pl in placement.iter() {
                let h = pl.server as usize;
                let Some(&v) = self.virt.get(h) else { continue };
                if v == NONE {
                    // Placements only use servers of the set: nothing else can be touched.
                    debug_assert!(false, "online: placement outside the virtual set");
                    self.cached = None;
                    return;
                }
                self.dirty[v as usize] = true;
                if !self.busy[h] {
                    self.busy[h] = true;
                    let s = self.shape_of[h] as usize;
                    self.idle_in[s] -= 1;
                    self.top_up(s);
                }
            }
        }
    }

    pub(super) fn win_sum(&self, ty: usize, h: usize, t0: u32, dur: u32) -> u128 {
        let (a, b) = self.pre_rows(ty, t0, dur);
        self.pre[b + h] - self.pre[a + h]
    }

    /// Where the prefix rows of type ty at t- and t- + L start in `pre` (a server's window
    /// sum is the difference of its entries in the two).
    fn pre_rows(&self, ty: usize, t0: u32, dur: u32) -> (usize, usize) {
        let i = ty * (self.wcap + 1);
        (
            (i + t0 as usize) * self.hcap,
            (i + (t0 + dur) as usize) * self.hcap,
        )
    }

    /// Whether the PS search keeps sliding minima in window `w`: short windows, where a few
    /// passes over every row cost less than walking the runs of many busy servers per start.
    pub(super) fn slides(&self, w: &Window) -> bool {
        w.len <= SLIDE_WINDOW_MAX && !self.mins.is_empty()
    }

    /// Brings the sliding minima to windows of `dur` slots, growing them one duration at a time
    /// from the last (or from `free` when `mins_len` is 0 or above `dur`). A no-op when the
    /// sparse table answers `dur` ([`Self::min_free`] reads it first).
    pub(super) fn mins_for(&mut self, len: u32, dur: u32) {
        if self.sparse_on && 31 - dur.leading_zeros() <= self.sparse_k {
            return;
        }
        if self.mins_len == 0 || self.mins_len > dur {
            let n = self.h * self.r * self.wcap;
            self.mins[..n].copy_from_slice(&self.free[..n]);
            self.mins_len = 1;
        }
        while self.mins_len < dur {
            self.mins_len += 1;
            let (last, d) = ((len - self.mins_len) as usize, self.mins_len as usize);
            for hr in 0..self.h * self.r {
                let b = hr * self.wcap;
                for t in 0..=last {
                    let f = self.free[b + t + d - 1];
                    if f < self.mins[b + t] {
                        self.mins[b + t] = f;
                    }
                }
            }
        }
    }

    /// Level 0 of the power-of-two window minima: `mins` = `free` over the window's `len` slots.
    pub(super) fn level_reset(&mut self, len: u32) {
        for hr in 0..self.h * self.r {
            let b = hr * self.wcap;
            let n = len as usize;
            self.mins[b..b + n].copy_from_slice(&self.free[b..b + n]);
        }
    }

    /// Level k to k + 1 in place: min over [t, t + 2^(k+1)) = min(level k at t, at t + 2^k), for
    /// every t whose range stays in the window (ascending t reads t + 2^k before overwriting it).
    pub(super) fn level_up(&mut self, len: u32, k: u32) {
        let half = 1usize << k;
        let Some(n) = (len as usize + 1).checked_sub(2 * half) else {
            return;
        };
        for hr in 0..self.h * self.r {
            let row = &mut self.mins[hr * self.wcap..][..n + half];
            for t in 0..n {
                let f = row[t + half];
                if f < row[t] {
                    row[t] = f;
                }
            }
        }
    }

    /// Brings the window minima to level `k` (`have`: the level they are at, `None` before
    /// level 0 was copied in).
    pub(super) fn levels_to(&mut self, len: u32, have: &mut Option<u32>, k: u32) {
        let mut at = match *have {
            Some(at) => at,
            None => {
                self.level_reset(len);
                0
            }
        };
        while at < k {
            self.level_up(len, at);
            at += 1;
        }
        *have = Some(at);
    }

    /// Window capacities for (m, t-, L) by [`Self::caps_direct`] while the scan budget lasts,
    /// then from the power-of-two levels (`lv`: the level reached, the budget left).
    pub(super) fn caps_any(
        &mut self,
        cx: &Ctx,
        m: usize,
        t0: u32,
        dur: u32,
        lv: (&mut Option<u32>, &mut u64),
    ) {
        let (have, budget) = lv;
        let len = self.cached.map_or(0, |c| c.1);
        if have.is_none() && *budget >= dur as u64 {
            *budget -= dur as u64;
            self.caps_direct(cx, m, t0, dur);
            return;
        }
        let k = 31 - dur.leading_zeros();
        self.levels_to(len, have, k);
        self.caps_at(cx, m, t0, dur, k);
    }

    /// The same capacities as [`Self::caps_at`], each window minimum taken slot by slot from
    /// `free` (cheaper than building the levels when a search needs few of them).
    pub(super) fn caps_direct(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32) {
        let mut free = [0.0; crate::limits::RESOURCES_MAX];
        self.live_n = 0;
        let (a, n) = (t0 as usize, dur as usize);
        for h in 0..self.h {
            for (r, f) in free.iter_mut().enumerate().take(self.r) {
                let row = &self.free[(h * self.r + r) * self.wcap + a..][..n];
                let mut lo = f64::INFINITY;
                for &x in row {
                    if x < lo {
                        lo = x;
                    }
                }
                *f = lo;
            }
            let c = self.fit_type(cx, m, &free[..self.r]);
            self.set_cap(h, c);
        }
    }

    /// Window capacity of every server for worker type m over [t-, t- + L), with `mins` at level
    /// k = floor(log2 L): min over [t-, t- + L) = min(level k at t-, at t- + L - 2^k) (the two
    /// ranges cover it; min is idempotent). Equals the literal min over slots of the fit count,
    /// because the fit count is non-decreasing in each free capacity.
    pub(super) fn caps_at(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32, k: u32) {
        let mut free = [0.0; crate::limits::RESOURCES_MAX];
        let (a, b) = (t0 as usize, (t0 + dur - (1 << k)) as usize);
        self.live_n = 0;
        for h in 0..self.h {
            for (r, f) in free.iter_mut().enumerate().take(self.r) {
                let row = (h * self.r + r) * self.wcap;
                let (x, y) = (self.mins[row + a], self.mins[row + b]);
                *f = if y < x { y } else { x };
            }
            let c = self.fit_type(cx, m, &free[..self.r]);
            self.set_cap(h, c);
        }
    }

    /// The minima over [t-, t- + L) of server h's free capacities, one per resource: the
    /// minimum over the runs of equal usage the range meets (every slot of a run has the same
    /// free capacities, so this is the slot-by-slot minimum). An idle server is one run.
    pub(super) fn min_free(&self, h: usize, t0: u32, dur: u32, out: &mut [f64]) {
        let k = 31 - dur.leading_zeros();
        if self.sparse_on && k <= self.sparse_k {
            // Two overlapping 2^k ranges cover [t-, t- + L); min is idempotent.
            let row = |t: u32| ((k as usize * self.wcap + t as usize) * self.hcap + h) * self.r;
            let (a, b) = (row(t0), row(t0 + dur - (1 << k)));
            for (r, o) in out.iter_mut().enumerate() {
                let (x, y) = (self.sparse[a + r], self.sparse[b + r]);
                *o = if y < x { y } else { x };
            }
            return;
        }
        if dur == 1 {
            for (r, o) in out.iter_mut().enumerate() {
                *o = self.free[(h * self.r + r) * self.wcap + t0 as usize];
            }
            return;
        }
        if self.mins_len == dur {
            // The sliding minima of this search describe L (short windows).
            for (r, o) in out.iter_mut().enumerate() {
                *o = self.mins[(h * self.r + r) * self.wcap + t0 as usize];
            }
            return;
        }
        let at = h * self.wcap;
        let first = self.run_of[at + t0 as usize] as usize;
        let last = self.run_of[at + (t0 + dur) as usize - 1] as usize;
        let starts = &self.runs[at + first..=at + last];
        for (r, o) in out.iter_mut().enumerate() {
            let row = &self.free[(h * self.r + r) * self.wcap..];
            let mut lo = f64::INFINITY;
            for &t in starts {
                let f = row[t as usize];
                if f < lo {
                    lo = f;
                }
            }
            *o = lo;
        }
    }

    /// Omega_h (type m) for every server; returns min_h Omega_h.
    pub(super) fn omegas(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32) -> u128 {
        self.ensure(cx, m);
        let mut lo = u128::MAX;
        for h in 0..self.h {
            let o = self.win_sum(m, h, t0, dur);
            self.omega[h] = o;
            lo = lo.min(o);
        }
        lo
    }

    /// min over every server of the set of Omega_h (type m) over [t-, t- + L): a lower bound of
    /// the cost of any N >= 1 workers, with or without room (two reads of the prefix rows per
    /// server, against window minima and fit tests for the capacities).
    /// Blocks whose floor ([`Self::block_floor`]) is not below the minimum so far are skipped:
    /// none of their members can lower it (the same minimum).
    pub(super) fn omega_floor(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32) -> u128 {
        let floors = self.block_floors(cx, m);
        let (a, b) = self.pre_rows(m, t0, dur);
        let (lo, hi) = (&self.pre[a..a + self.h], &self.pre[b..b + self.h]);
        let mut best = u128::MAX;
        for (blk, (x, y)) in lo.chunks(BLOCK).zip(hi.chunks(BLOCK)).enumerate() {
            if floors && self.block_floor(m, blk, t0, dur) >= best {
                continue;
            }
            best = x.iter().zip(y).fold(best, |o, (x, y)| o.min(y - x));
        }
        best
    }

    /// Omega_h (type m) of the servers whose window capacity `caps` of the last
    /// [`Self::caps_for`] (which must be the last to write `caps`) is positive, its `live`
    /// list; returns their minimum (u128::MAX when there is none). The other servers' `omega`
    /// is left as it was: [`Self::sort_and_prefix`] without `all` never reads it, and a PS
    /// host without worker capacity takes no worker.
    pub(super) fn omegas_live(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32) -> u128 {
        self.ensure(cx, m);
        let mut lo = u128::MAX;
        for i in 0..self.live_n {
            let h = self.live[i] as usize;
            let o = self.win_sum(m, h, t0, dur);
            self.omega[h] = o;
            lo = lo.min(o);
        }
        lo
    }

    /// Zeta_h (PS type p) of the servers that can host at least `need` type-p PSs over
    /// [t-, t- + L), cached per (L, t-): their PS capacity s-hat(0) = fit(window minima, p)
    /// goes to `pcap` (A_mincost1 needs at least one PS on its host, and s-hat(g) <= s-hat(0)),
    /// the servers with s-hat(0) >= `need` to `phost[p * hcap..][..phost_n[p]]` (set order).
    /// Returns their min Zeta (u128::MAX when there is none: then no q = 0 schedule uses
    /// p here). Only servers with Zeta_h <= `cap` are listed (the caller's price cap: a host
    /// above it cannot be useful), priced before their PS capacity is computed. A list made
    /// for a smaller `need` and a larger `cap` is kept (a superset whose minimum is a lower
    /// bound); blocks whose bound holds fewer than `need` are skipped.
    pub(super) fn zetas(
        &mut self,
        cx: &Ctx,
        (p, t0, dur): (usize, u32, u32),
        need: u32,
        cap: u128,
    ) -> u128 {
        let need = need.max(1);
        let mut cap = cap;
        if self.zdone[p] && self.zneed[p] <= need && self.zcap[p] < cap {
            // A list made for a smaller cap (a cheaper fill of another worker type): made
            // again without a cap, so one (L, t-) makes at most two lists per PS type
            // (rebuilding for every larger cap cost 12,500 servers / 5,000 jobs 14.2-15.5 s
            // user against 13.9-14.3 s this way; `docs/online.md`, "Priced passes").
            cap = u128::MAX;
        }
        if !self.zdone[p] || self.zneed[p] > need || self.zcap[p] < cap {
            let ty = self.m + p;
            self.ensure(cx, ty);
            let mut lo = u128::MAX;
            let mut n = 0;
            self.window_minima(t0, dur);
            let floors = self.block_floors(cx, ty);
            // Block by block over the whole set: a block whose bound holds fewer than `need`
            // PSs is skipped as a whole.
            // A block's bound (and window minima) only when a member is under the price cap.
            // (The floor only: a scan of the block's prices before its members' would read
            // them twice where most blocks hold a member under the cap.)
            for b in 0..self.h.div_ceil(BLOCK) {
                if floors && self.block_floor(ty, b, t0, dur) > cap {
                    continue;
                }
                let mut fits = None;
                if self.block_bound_known(ty, b, need) {
                    // Its capacity bound costs no window minima: cheaper than the prices.
                    if !self.block_fits(cx, ty, b, need) {
                        continue;
                    }
                    fits = Some(true);
                }
                for h in b * BLOCK..((b + 1) * BLOCK).min(self.h) {
                    let z = self.win_sum(ty, h, t0, dur);
                    if z > cap {
                        continue;
                    }
                    if !*fits.get_or_insert_with(|| self.block_fits(cx, ty, b, need)) {
                        break;
                    }
                    if !self.wmin_fits(cx, ty, h, need) {
                        continue;
                    }
                    let c = self.fit_wmin(cx, ty, h);
                    if c < need {
                        continue;
                    }
                    self.pcap[p * self.hcap + h] = c;
                    self.phost[p * self.hcap + n] = h as u32;
                    n += 1;
                    self.zeta[p * self.hcap + h] = z;
                    lo = lo.min(z);
                }
            }
            // Set order, unsorted: every listed host can hold `need` PSs, and the host loop
            // skips the few below a larger `need` of a reused list.
            self.phost_n[p] = n as u32;
            self.zmin[p] = lo;
            self.zdone[p] = true;
            self.zneed[p] = need;
            self.zcap[p] = cap;
        }
        self.zmin[p]
    }

    /// The next server at or after `from` with room for one task of type ty over
    /// [t-, t- + L) by room set `key` ([`RoomSets`]), its window minima in `wmin`; the servers
    /// visited without room leave the set, and the set is complete once this returns `None`.
    fn next_room(
        &mut self,
        cx: &Ctx,
        key: usize,
        ty: usize,
        (t0, dur): (u32, u32),
        from: usize,
    ) -> Option<usize> {
        let mut v = from;
        while let Some(h) = self.room.next(key, v, self.h) {
            self.wmin_at(h, t0, dur);
            let ok = self.wmin_fits(cx, ty, h, 1);
            self.room.set(key, h, ok);
            if ok {
                return Some(h);
            }
            v = h + 1;
        }
        self.room.done(key, self.h);
        None
    }

    /// Server h's entry of `wmin` for [t-, t- + L) (already there when `wmin` describes that
    /// range; else `wmin` no longer describes one range as a whole).
    fn wmin_at(&mut self, h: usize, t0: u32, dur: u32) {
        let same = self.wmin_key == Some((t0, dur));
        if same && self.bgen[h / BLOCK] == self.wgen {
            return;
        }
        if !same {
            self.wmin_key = None;
        }
        let mut free = [0.0; crate::limits::RESOURCES_MAX];
        let r = self.r;
        self.min_free(h, t0, dur, &mut free[..r]);
        self.wmin[h * r..][..r].copy_from_slice(&free[..r]);
    }

    /// Bounds of worker type m over the window (cached in [`Self::ub`]): (most workers one
    /// server can hold, most the whole set can). A server's window capacity
    /// floor(min over t of omega / e) is at most fit(max over t of omega), the fit count being
    /// non-decreasing in each free capacity. So a q = 1 schedule of more workers than the first
    /// is infeasible (Ring Phi, PS N), and so is a q = 0 schedule of more than the second (the
    /// greedy fill places at most the sum of the capacities).
    pub(super) fn worker_ub(&mut self, cx: &Ctx, m: usize) -> (u32, u64) {
        if let Some(Some(u)) = self.ub.get(m) {
            return *u;
        }
        // Every server of the set is built (a search runs after `prepare`), so `maxfree` and
        // the kept fits describe the window.
        debug_assert!(!self.dirty[..self.h].contains(&true));
        let at = m * self.hcap;
        if !self.ubfit_ok[m] {
            for h in 0..self.h {
                self.ubfit[at + h] = self.max_fit(cx, m, h);
            }
            self.ubfit_ok[m] = true;
        }
        // The kept counts are those of the current `maxfree` (the recount they replace).
        debug_assert!((0..self.h).all(|h| self.ubfit[at + h] == self.max_fit(cx, m, h)));
        let fits = &self.ubfit[at..][..self.h];
        let (mut one, mut all) = (0u32, 0u64);
        for &c in fits.iter() {
            one = one.max(c);
            all = all.saturating_add(c as u64);
        }
        if let Some(u) = self.ub.get_mut(m) {
            *u = Some((one, all));
        }
        (one, all)
    }

    /// The servers of the set that can hold one task of type ty (worker type ty < M, else PS
    /// type ty - M) in some slot of the window: fit(max over the window of omega) >= 1 (the
    /// window capacity, a fit of the minima, is at most that, the fit count being
    /// non-decreasing in each free capacity), or a superset of them (servers added to the set
    /// later are appended; a server whose capacity fell stays), in set order: ascending, as
    /// a server joins the set with the next index. For a PS type these are the
    /// only possible PS hosts of A_mincost1: s-hat(g) <= s-hat(0) = fit of the window minima.
    pub(super) fn possible(&mut self, cx: &Ctx, ty: usize) {
        if self.poss_ok[ty] {
            return;
        }
        let task = if ty < self.m {
            &cx.scn.worker_types[ty]
        } else {
            &cx.scn.ps_types[ty - self.m]
        };
        let mut n = 0;
        for v in 0..self.h {
            if fit(&self.maxfree[v * self.r..(v + 1) * self.r], task) >= 1 {
                self.poss[ty * self.hcap + n] = v as u32;
                n += 1;
            }
        }
        self.poss_n[ty] = n as u32;
        self.poss_ok[ty] = true;
    }

    /// [`Self::caps_for`] for the servers of [`Self::possible`] only; the servers whose window
    /// capacity is at least `least` go to `hold[..hold_n]` (index order of the set), their
    /// Omega_h (type m) to `omega`: the only q = 1 hosts of a worker count >= `least`. A
    /// server is first priced: when `worth(least x Omega_h)` is false (its `least` workers
    /// alone cannot beat the incumbent, see [`super::ps::ps_q1`]) it is no host worth listing,
    /// and neither its capacity nor its block's window minima are computed for it.
    pub(super) fn caps_possible(
        &mut self,
        cx: &Ctx,
        (m, t0, dur): (usize, u32, u32),
        least: u32,
        worth: impl Fn(u128) -> bool,
    ) {
        self.possible(cx, m);
        self.ensure(cx, m);
        self.hold_n = 0;
        let Some(cap) = price_cap(|om| worth((least as u128).saturating_mul(om))) else {
            return;
        };
        // Most of the set: the shared window minima (one pass for every worker type).
        let shared = 2 * self.poss_n[m] as usize >= self.h;
        if shared {
            self.window_minima(t0, dur);
        }
        let mut free = [0.0; crate::limits::RESOURCES_MAX];
        let (at, n) = (m * self.hcap, self.poss_n[m] as usize);
        let mut blk = (usize::MAX, true);
        let mut cheap = (usize::MAX, true);
        let floors = self.block_floors(cx, m);
        let mut i = 0;
        while i < n {
            let h = self.poss[at + i] as usize;
            // Price first, a block at a time: contiguous reads of the prefix rows, against the
            // window minima and fit tests of a capacity (in the late rounds' full windows
            // about 1% of the servers with room for `least` workers are worth listing).
            if cheap.0 != h / BLOCK {
                cheap = (
                    h / BLOCK,
                    self.block_under((m, h / BLOCK), (t0, dur), cap, floors),
                );
            }
            if !cheap.1 {
                let next = (h / BLOCK + 1) * BLOCK;
                i += self.poss[at + i..at + n].partition_point(|&x| (x as usize) < next);
                continue;
            }
            i += 1;
            let om = self.win_sum(m, h, t0, dur);
            if om > cap {
                continue;
            }
            let c = if shared {
                // A block whose bound holds fewer than `least` cannot hold a q = 1 host (its
                // servers' `caps` are left as they were: only `hold` servers' are read). The
                // list is in set order, so its members in the block are skipped at once.
                if blk.0 != h / BLOCK {
                    blk = (h / BLOCK, self.block_fits(cx, m, h / BLOCK, least.max(1)));
                }
                if !blk.1 {
                    let next = (h / BLOCK + 1) * BLOCK;
                    i += self.poss[at + i..at + n].partition_point(|&x| (x as usize) < next);
                    continue;
                }
                if !self.wmin_fits(cx, m, h, least.max(1)) {
                    continue;
                }
                self.fit_wmin(cx, m, h)
            } else {
                self.min_free(h, t0, dur, &mut free[..self.r]);
                self.fit_type(cx, m, &free[..self.r])
            };
            self.caps[h] = c;
            if c >= least {
                self.omega[h] = om;
                self.hold[self.hold_n] = h as u32;
                self.hold_n += 1;
            }
        }
    }

    /// Whether some server of block b has a window sum of type ty's unit price over
    /// [t-, t- + L) of at most `cap` (one contiguous pass over the block's prefix rows, unless
    /// the block's floor, when `floors` ([`Self::block_floors`]), is already above the cap).
    fn block_under(
        &self,
        (ty, b): (usize, usize),
        (t0, dur): (u32, u32),
        cap: u128,
        floors: bool,
    ) -> bool {
        if floors && self.block_floor(ty, b, t0, dur) > cap {
            return false;
        }
        let (lo, hi) = (b * BLOCK, ((b + 1) * BLOCK).min(self.h));
        let (a, c) = self.pre_rows(ty, t0, dur);
        self.pre[a + lo..a + hi]
            .iter()
            .zip(&self.pre[c + lo..c + hi])
            .any(|(x, y)| y - x <= cap)
    }

    /// Window capacity of every server of the set for worker type m over [t-, t- + L).
    /// Blocks whose bound fits no worker get 0 without a visit ([`Self::bmax`]).
    pub(super) fn caps_for(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32) {
        self.live_n = 0;
        let key = self.room.key(m, dur, t0);
        if let Some(key) = key.filter(|&k| self.room.sparse(k, self.h)) {
            // Only the servers with room get a positive capacity (fits_at_least(1) holds
            // exactly when the fit is at least 1).
            self.caps[..self.h].iter_mut().for_each(|c| *c = 0);
            let mut v = 0;
            while let Some(h) = self.next_room(cx, key, m, (t0, dur), v) {
                v = h + 1;
                let c = self.fit_wmin(cx, m, h);
                self.set_cap(h, c);
            }
            return;
        }
        self.caps_for_blocks(cx, m, t0, dur);
        if let Some(key) = key {
            // The servers with room are the live ones: the room set of the next pass.
            self.room.record(key, &self.live[..self.live_n], self.h);
        }
    }

    /// [`Self::caps_for`] over the whole set, block by block.
    fn caps_for_blocks(&mut self, cx: &Ctx, m: usize, t0: u32, dur: u32) {
        self.window_minima(t0, dur);
        for b in 0..self.h.div_ceil(BLOCK) {
            let (lo, hi) = (b * BLOCK, ((b + 1) * BLOCK).min(self.h));
            if !self.block_fits(cx, m, b, 1) {
                self.caps[lo..hi].iter_mut().for_each(|c| *c = 0);
                continue;
            }
            for h in lo..hi {
                let c = if self.wmin_fits(cx, m, h, 1) {
                    self.fit_wmin(cx, m, h)
                } else {
                    0
                };
                self.set_cap(h, c);
            }
        }
    }

    /// Sets server h's window capacity and lists it in `live` when positive (the full passes
    /// [`Self::caps_for`], [`Self::caps_direct`] and [`Self::caps_at`] visit servers in set
    /// order after emptying `live`).
    fn set_cap(&mut self, h: usize, c: u32) {
        self.caps[h] = c;
        if c > 0 {
            self.live[self.live_n] = h as u32;
            self.live_n += 1;
        }
    }

    /// Whether fit(`bmax` of block b, type ty) >= `need` (`need` >= 1) for the range of
    /// [`Self::window_minima`]: when not, no server of the block has window capacity `need`
    /// (worker type ty < M, else PS type ty - M). When true, the block's window minima are
    /// in `wmin`. A bound recorded by an earlier search of the window ([`BlockBounds`])
    /// answers false without computing them; a full block's fit(bmax) is recorded.
    fn block_fits(&mut self, cx: &Ctx, ty: usize, b: usize, need: u32) -> bool {
        let key = self
            .wmin_key
            .and_then(|(t0, dur)| self.bounds.key(ty, dur, t0));
        if key.is_some_and(|k| !self.bounds.may_hold(k, b, need)) {
            return false;
        }
        self.block_minima(b);
        // fit >= need exactly when fits_at_least(need) for need >= 1 ([`fits_at_least`]).
        let f = fit(&self.bmax[b * self.r..][..self.r], self.task(cx, ty));
        if let Some(k) = key.filter(|_| (b + 1) * BLOCK <= self.h) {
            self.bounds.record(k, b, f);
        }
        f >= need
    }

    /// Whether [`Self::block_fits`] answers for block b without computing window minima: a
    /// bound recorded for (ty, range) says no, or the block's minima describe the range
    /// already (an earlier capacity pass of this range made them).
    fn block_bound_known(&self, ty: usize, b: usize, need: u32) -> bool {
        if self.bgen[b] == self.wgen {
            return true;
        }
        self.wmin_key
            .and_then(|(t0, dur)| self.bounds.key(ty, dur, t0))
            .is_some_and(|k| !self.bounds.may_hold(k, b, need))
    }

    /// Whether server h's window capacity for type ty over the range of `wmin` is at least
    /// `need` ([`fits_at_least`]: no floors).
    fn wmin_fits(&self, cx: &Ctx, ty: usize, h: usize, need: u32) -> bool {
        fits_at_least(&self.wmin[h * self.r..][..self.r], self.task(cx, ty), need)
    }

    /// Worker type ty < M, else PS type ty - M.
    fn task<'a>(&self, cx: &'a Ctx, ty: usize) -> &'a crate::model::online::TaskType {
        if ty < self.m {
            &cx.scn.worker_types[ty]
        } else {
            &cx.scn.ps_types[ty - self.m]
        }
    }

    /// [`Self::fit_type`] of server h's window minima in `wmin`, read in place.
    fn fit_wmin(&mut self, cx: &Ctx, ty: usize, h: usize) -> u32 {
        self.fit_type(cx, ty, &self.wmin[h * self.r..][..self.r])
    }

    /// fit(`maxfree` of server h, worker type m): at least its window capacity for m.
    fn max_fit(&self, cx: &Ctx, m: usize, h: usize) -> u32 {
        fit(
            &self.maxfree[h * self.r..][..self.r],
            &cx.scn.worker_types[m],
        )
    }

    /// Makes `wmin` describe [t-, t- + L): [`Self::min_free`] of every server of the set,
    /// server-major and contiguous, computed block by block when a pass first asks about a
    /// block ([`Self::block_minima`], from [`Self::block_fits`]) and kept while the search
    /// asks about the same range: the q = 0 search needs them for every worker type
    /// (capacities) and PS type (PS capacities) of one (L, t-). Free capacities only change
    /// between searches ([`Self::prepare`] forgets them).
    pub(super) fn window_minima(&mut self, t0: u32, dur: u32) {
        if self.wmin_key == Some((t0, dur)) {
            return;
        }
        self.wmin_key = Some((t0, dur));
        self.wgen = self.wgen.wrapping_add(1);
        if self.wgen == 0 {
            // After 2^32 ranges: clear for real so that no stale block matches.
            self.bgen.iter_mut().for_each(|g| *g = 0);
            self.wgen = 1;
        }
    }

    /// Block b's entries of `wmin` and its `bmax` for the range of [`Self::window_minima`]
    /// (a no-op when they describe it already).
    fn block_minima(&mut self, b: usize) {
        let Some((t0, dur)) = self.wmin_key else {
            return;
        };
        if self.bgen[b] == self.wgen {
            return;
        }
        let mut free = [0.0; crate::limits::RESOURCES_MAX];
        let r = self.r;
        let mut most = [f64::NEG_INFINITY; crate::limits::RESOURCES_MAX];
        for h in b * BLOCK..((b + 1) * BLOCK).min(self.h) {
            self.min_free(h, t0, dur, &mut free[..r]);
            for k in 0..r {
                self.wmin[h * r + k] = free[k];
                if free[k] > most[k] {
                    most[k] = free[k];
                }
            }
        }
        self.bmax[b * r..][..r].copy_from_slice(&most[..r]);
        self.bgen[b] = self.wgen;
    }

    /// `fit(free, e)` for type ty (worker type ty < M, else PS type ty - M). Computed each
    /// time: a memo per (type, server) of the last answer cost more in cache misses than the
    /// r divisions it saved (`docs/online.md`, "Contiguous block floors").
    pub(super) fn fit_type(&self, cx: &Ctx, ty: usize, free: &[f64]) -> u32 {
        fit(free, task_of(cx, self.m, ty))
    }

    /// Orders servers by (Omega, index) and builds the prefix sums of caps and cap x Omega.
    /// Unless `all`, only servers with a positive window capacity are ordered, the `live` list
    /// of the last full capacity pass (`posof` of the others is stale, and read only for
    /// servers with a positive capacity): a greedy fill never places a worker on the others, so they
    /// change no prefix sum the fill reads, and in a full window they are most of the set.
    ///
    /// Only a prefix of the order is sorted when fills ask for at most `fill_max` workers: the
    /// shortest prefix tried (64, 128, ... servers) whose capacity is at least `fill_max` plus
    /// the largest capacity [`Self::omax`] (all of it when the total is less). A fill of
    /// x <= `fill_max` workers, skipping any one position of the prefix, ends inside it, so
    /// it reads the same prefix sums; a server beyond the prefix (`posof` NONE) has at least
    /// `fill_max` workers' capacity before it, so as a PS host it takes y_k = 0 workers and
    /// skipping it changes no fill. The (Omega, index) keys are distinct, so the sorted
    /// prefix is exactly the start of the whole order.
    pub(super) fn sort_and_prefix(&mut self, all: bool, fill_max: u64) {
        let mut k = 0;
        let mut most = 0;
        if all {
            for v in 0..self.h {
                self.posof[v] = NONE;
                self.order[k] = (self.omega[v], self.real[v]);
                k += 1;
                most = most.max(self.caps[v]);
            }
        } else {
            // The `live` list of the last full capacity pass (caps_for, caps_direct, caps_at):
            // the servers with caps > 0. `posof` of the
            // others is stale; it is only read for servers with caps > 0.
            for i in 0..self.live_n {
                let v = self.live[i] as usize;
                self.posof[v] = NONE;
                self.order[k] = (self.omega[v], self.real[v]);
                k += 1;
                most = most.max(self.caps[v]);
            }
        }
        self.omax = most;
        let upto = fill_max.saturating_add(most as u64);
        let mut g = k.min(64);
        loop {
            if g < k {
                self.order[..k].select_nth_unstable(g);
            }
            self.order[..g].sort_unstable();
            let held = self.order[..g].iter().fold(0u64, |a, &(_, h)| {
                a.saturating_add(self.caps[self.virt[h as usize] as usize] as u64)
            });
            if held >= upto || g == k {
                break;
            }
            g = (2 * g).min(k);
        }
        let k = g;
        self.nord = k;
        for (i, &(om, h)) in self.order[..k].iter().enumerate() {
            let v = self.virt[h as usize] as usize;
            self.posof[v] = i as u32;
            let c = self.caps[v] as u64;
            self.ocap[i] = c;
            self.oom[i] = om;
            self.pc[i + 1] = self.pc[i] + c;
            self.po[i + 1] = self.po[i].saturating_add((c as u128).saturating_mul(om));
        }
    }

    /// Cost of the greedy fill of `x` workers along the order, skipping position `excl`;
    /// `None` when the servers cannot hold them.
    pub(super) fn fill(&self, x: u64, excl: Option<usize>) -> Option<u128> {
        if x == 0 {
            return Some(0);
        }
        let (qc, qo) = match excl {
            Some(q) => (
                self.ocap[q],
                (self.ocap[q] as u128).saturating_mul(self.oom[q]),
            ),
            None => (0, 0),
        };
        let before = |i: usize| excl.is_some_and(|q| q < i);
        let pcx = |i: usize| self.pc[i] - if before(i) { qc } else { 0 };
        if pcx(self.nord) < x {
            return None;
        }
        let (mut lo, mut hi) = (1usize, self.nord);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if pcx(mid) >= x {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let j = lo - 1;
        let pox = self.po[j] - if before(j) { qo } else { 0 };
        Some(pox.saturating_add(((x - pcx(j)) as u128).saturating_mul(self.oom[j])))
    }
}

/// The largest x with `ok(x)` for a predicate `ok` that is non-increasing in x (true up to
/// some x, false beyond), `None` when `ok(0)` is false: by binary search over u128, so a pass
/// testing `ok(x)` for many x compares each with the answer instead (the same answers).
pub(super) fn price_cap(ok: impl Fn(u128) -> bool) -> Option<u128> {
    ok(0).then(|| crate::num::last_true(0, u128::MAX, ok))
}

/// delta of eq. (11) for usage `u` of cell `hr` (capacity `cap`); the price of an empty cell
/// is computed once per cell (the same `pow` of the same inputs, so the same bits).
fn price(price0: &mut [Option<f64>], lambda: f64, hr: usize, u: f64, cap: f64) -> f64 {
    if u.to_bits() != 0 {
        return crate::price::zhou_price(lambda, u, cap);
    }
    match price0.get(hr) {
        Some(Some(d)) => *d,
        _ => {
            let d = crate::price::zhou_price(lambda, u, cap);
            if let Some(slot) = price0.get_mut(hr) {
                *slot = Some(d);
            }
            d
        }
    }
}

/// Task type ty of the search's type list: worker type ty < M, else PS type ty - M.
fn task_of<'a>(cx: &Ctx<'a>, m: usize, ty: usize) -> &'a TaskType {
    if ty < m {
        &cx.scn.worker_types[ty]
    } else {
        &cx.scn.ps_types[ty - m]
    }
}

#[cfg(test)]
mod tests {
    use super::price_cap;

    #[test]
    fn price_cap_is_the_largest_value_a_monotone_test_accepts() {
        assert_eq!(price_cap(|x| x <= 41), Some(41));
        assert_eq!(price_cap(|_| true), Some(u128::MAX));
        assert_eq!(price_cap(|x| x == 0), Some(0));
        assert_eq!(price_cap(|_| false), None);
        // The q = 1 use: least x Omega (saturating) below an incumbent cost of 100.
        let cap = price_cap(|om| 7u128.saturating_mul(om) < 100).expect("0 passes");
        assert_eq!(cap, 14);
        // 2^128 - 1 = 3 x (u128::MAX / 3): that product saturates to the cost itself.
        let huge = price_cap(|om| 3u128.saturating_mul(om) < u128::MAX).expect("0 passes");
        assert_eq!(huge, u128::MAX / 3 - 1);
    }
}
