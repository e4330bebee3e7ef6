//! The scratch of the fast search, [`FastScratch`], allocated once when the scheduler is
//! built: the dimensions, the per-(m, p) tables of the current job, one table group per idea
//! (each defined in the file that fills it: [`ServerSet`], [`Prices`], [`Minima`],
//! [`Capacity`], [`PsHosts`], [`ServerOrder`], [`RingTable`]), the constants, and the
//! per-window entry points ([`FastScratch::prepare`], [`FastScratch::touched`]). The groups are
//! plain fields (no indirection), so the hot loops index the same vectors as before.
use super::bounds::BlockBounds;
use super::capacity::{Capacity, PsHosts};
use super::minima::Minima;
use super::order::ServerOrder;
use super::prices::Prices;
use super::ps::Rates;
#[cfg(doc)]
use super::ring::ring_options_max;
use super::ring::RingEnt;
use super::ring::RingTable;
use super::room::RoomSets;
use super::servers::ServerSet;
use crate::index::NONE;
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
    /// R (resources).
    pub(super) r: usize,
    /// M (worker types).
    pub(super) m: usize,
    /// P (PS types).
    pub(super) p: usize,
    /// The longest window (in slots) the tables hold.
    pub(super) wcap: usize,
    /// The window the prefix sums describe.
    pub(super) cached: Option<(u32, u32)>,
    /// Omega_h of one worker type over one range, per server of the set (the last of
    /// [`Self::omegas`], [`Self::omegas_live`], [`Self::caps_possible`] to write it).
    pub(super) omega: Vec<u128>,
    /// Per (m, p): the rates and duration ranges of the current job.
    pub(super) rates: Vec<Rates>,
    /// Per (m, p): N of A_mincost1 (q = 0) for the current duration (NONE: none).
    pub(super) n1: Vec<u32>,
    /// Per (m, p): N of A_mincost2 (q = 1) for the current duration (NONE: none).
    pub(super) n2: Vec<u32>,
    /// Servers whose usage changed since their prices were built for the cached window.
    pub(super) dirty: Vec<bool>,
    /// The virtual server set of the cached window.
    pub(super) set: ServerSet,
    /// Prices of the cached window and their prefix sums and minima.
    pub(super) prices: Prices,
    /// Free capacities of the cached window and their window minima.
    pub(super) minima: Minima,
    /// Window capacities of the last capacity pass and the bounds kept across passes.
    pub(super) capacity: Capacity,
    /// The PS hosts of the last (L, t-) per PS type.
    pub(super) hosts: PsHosts,
    /// The server order by (Omega, index) and its prefix sums.
    pub(super) order: ServerOrder,
    /// The ring options of the current job, bucketed by duration.
    pub(super) ring: RingTable,
}

/// The longest window in which the PS search keeps sliding minima ([`FastScratch::slides`]).
pub(super) const SLIDE_WINDOW_MAX: u32 = 256;

/// The most cells (f64) of the sparse table of window minima ([`Minima::sparse`]):
/// 2^24 (128 MB). A 12,500-server set with R = 3 and 32-slot windows needs 4.8 million.
pub(super) const SPARSE_CELLS_MAX: usize = 1 << 24;

/// Servers per block of the block bounds ([`Minima::bmax`]). In a full window of the
/// generated 12,500-server scenario about 3% of the servers can take a worker of a given type
/// over a range, and about 10% of 32-server blocks hold one.
pub(super) const BLOCK: usize = 32;

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
            r,
            m,
            p,
            wcap,
            cached: None,
            omega: vec![0; h],
            rates: vec![Rates::default(); m * p],
            n1: vec![NONE; m * p],
            n2: vec![NONE; m * p],
            dirty: vec![false; h],
            set: ServerSet {
                real: vec![0; h],
                virt: vec![NONE; h],
                busy: vec![false; h],
                shape_of: vec![0; h],
                members: (0..h as u32).collect(),
                shape_at: vec![0, h as u32],
                shape_k: vec![h as u32],
                cursor: vec![0],
                idle_in: vec![0],
            },
            prices: Prices {
                pre: vec![0; ty * h * (wcap + 1)],
                dl: vec![0.0; h * r * wcap],
                fresh: vec![false; h * wcap],
                row_ok: vec![false; (m + p) * h],
                type_ok: vec![false; m + p],
                smin: vec![0; ty * (wcap + 1)],
                smin_ok: vec![false; ty],
                bsmin: vec![0; ty * h.div_ceil(BLOCK) * SLIDE_WINDOW_MAX.min(wcap as u32) as usize],
                bstale: vec![true; ty * h.div_ceil(BLOCK)],
                bspre: vec![
                    0;
                    ty * h.div_ceil(BLOCK)
                        * (SLIDE_WINDOW_MAX.min(wcap as u32) as usize + 1)
                ],
                price0: vec![None; h * r],
            },
            minima: Minima {
                free: vec![0.0; h * r * wcap],
                maxfree: vec![0.0; h * r],
                // The ring search's levels, and the PS search's sliding minima in short windows
                // (long windows use `runs` only).
                mins: if ring_cap > 0 || wcap <= SLIDE_WINDOW_MAX as usize {
                    vec![0.0; h * r * wcap]
                } else {
                    Vec::new()
                },
                mins_len: 0,
                sparse: vec![0.0; if sparse_on { cells } else { 0 }],
                sparse_k: if sparse_on { want } else { 0 },
                sparse_on,
                runs: vec![0; h * wcap],
                run_of: vec![0; h * wcap],
                wmin: vec![0.0; h * r],
                wmin_key: None,
                wgen: 1,
                bgen: vec![0; h.div_ceil(BLOCK)],
                bmax: vec![0.0; h.div_ceil(BLOCK) * r],
            },
            capacity: Capacity {
                caps: vec![0; h],
                live: vec![0; h],
                live_n: 0,
                hold: vec![0; h],
                hold_n: 0,
                room: RoomSets::new(m, wcap, h),
                bounds: BlockBounds::new(ty, wcap, h.div_ceil(BLOCK)),
                ub: vec![None; m],
                ubfit: vec![0; m * h],
                ubfit_ok: vec![false; m],
                poss: vec![0; ty * h],
                poss_n: vec![0; ty],
                poss_ok: vec![false; ty],
            },
            hosts: PsHosts {
                zeta: vec![0; p * h],
                pcap: vec![0; p * h],
                phost: vec![0; p * h],
                phost_n: vec![0; p],
                zmin: vec![0; p],
                zdone: vec![false; p],
                zneed: vec![0; p],
                zcap: vec![0; p],
            },
            order: ServerOrder {
                keys: vec![(0, 0); h],
                nord: 0,
                posof: vec![0; h],
                ocap: vec![0; h],
                omax: 0,
                oom: vec![0; h],
                pc: vec![0; h + 1],
                po: vec![0; h + 1],
            },
            ring: RingTable {
                ents: vec![RingEnt::default(); ring_cap],
                tmp: vec![(0, RingEnt::default()); ring_cap],
                at: vec![0; wcap + 2],
                fill: vec![0; wcap + 2],
                phis,
            },
        }
    }

    /// Forgets the cached window (after a restore, or when prices changed elsewhere).
    pub fn invalidate(&mut self) {
        self.cached = None;
    }

    /// Was this scratch built for `phis` ring worker counts and `ring_cap` ring options (the
    /// only sizes a capacity change can move; H, R, M, P and the window cap cannot)?
    pub fn sized_for(&self, phis: usize, ring_cap: usize) -> bool {
        self.ring.phis == phis && self.ring.ents.len() == ring_cap
    }

    /// Real server `h`'s capacity changed in `scn` (an open-world event; `nmax` = max D_j):
    /// what the scratch derived from capacities follows, so that it searches as a scratch
    /// built anew on `scn`. Two things are derived from them: the price of an empty cell of
    /// `h` (cached per cell, `price0`), forgotten, and the shapes of the virtual server set,
    /// grouped again ([`Self::init_shapes`]). Everything else is rebuilt from the capacities
    /// when a window is prepared, and the cached window is forgotten here. O(H log H).
    pub fn recapacity(&mut self, scn: &crate::model::online::OnlineScenario, h: usize, nmax: u32) {
        let r = self.r;
        if let Some(p) = self.prices.price0.get_mut(h * r..(h + 1) * r) {
            p.iter_mut().for_each(|x| *x = None);
        }
        self.init_shapes(scn, nmax);
        self.invalidate();
    }

    /// Makes the scratch describe window `w` (full rebuild when the window changed).
    pub(super) fn prepare(&mut self, cx: &Ctx, w: &Window) {
        self.minima.wmin_key = None;
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
                let Some(&v) = self.set.virt.get(h) else {
                    continue;
                };
                if v == NONE {
                    // Placements only use servers of the set: nothing else can be touched.
                    debug_assert!(false, "online: placement outside the virtual set");
                    self.cached = None;
                    return;
                }
                self.dirty[v as usize] = true;
                if !self.set.busy[h] {
                    self.set.busy[h] = true;
                    let s = self.set.shape_of[h] as usize;
                    self.set.idle_in[s] -= 1;
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
