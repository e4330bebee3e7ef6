//! The scratch of the fast search, [`FastScratch`], allocated once when the scheduler is
//! built: its tables, its constants, and the per-window entry points
//! ([`FastScratch::prepare`], [`FastScratch::touched`]). The machinery that fills and reads
//! the tables is in the sibling files (table in [`super`]).
use super::bounds::BlockBounds;
use super::ps::Rates;
#[cfg(doc)]
use super::ring::ring_options_max;
use super::ring::RingEnt;
use super::room::RoomSets;
use crate::model::online::TaskType;
use crate::online::common::fit;
use crate::online::{Ctx, Placement, Window};
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

    /// Worker type ty < M, else PS type ty - M.
    pub(super) fn task<'a>(&self, cx: &'a Ctx, ty: usize) -> &'a crate::model::online::TaskType {
        if ty < self.m {
            &cx.scn.worker_types[ty]
        } else {
            &cx.scn.ps_types[ty - self.m]
        }
    }

    /// `fit(free, e)` for type ty (worker type ty < M, else PS type ty - M). Computed each
    /// time: a memo per (type, server) of the last answer cost more in cache misses than the
    /// r divisions it saved (`docs/online.md`, "Contiguous block floors").
    pub(super) fn fit_type(&self, cx: &Ctx, ty: usize, free: &[f64]) -> u32 {
        fit(free, task_of(cx, self.m, ty))
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
