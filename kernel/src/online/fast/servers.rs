//! The virtual server set of a window: every server with a reservation in it, plus the first
//! K_s idle servers of every shape s (identical capacities), topped up when a commit makes one
//! busy. Idle servers of one shape are identical over the whole window, so the others cannot
//! change a search ([`FastScratch::init_shapes`] says why).
use super::scratch::FastScratch;
use crate::index::NONE;
use crate::online::common::fit;
use crate::online::Ctx;
use alloc::vec;
use alloc::vec::Vec;

/// The virtual server set of the cached window.
#[derive(Clone, Debug)]
pub(super) struct ServerSet {
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
}

impl FastScratch {
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
        self.set.members.clear();
        self.set.shape_at.clear();
        self.set.shape_k.clear();
        for (i, &h) in ids.iter().enumerate() {
            let h = h as usize;
            if i == 0 || key(ids[i - 1] as usize) != key(h) {
                self.set.shape_at.push(i as u32);
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
                self.set.shape_k.push(k.min(u32::MAX as u64) as u32);
            }
            self.set.shape_of[h] = (self.set.shape_at.len() - 1) as u32;
            self.set.members.push(h as u32);
        }
        self.set.shape_at.push(hn as u32);
        let g = self.set.shape_k.len();
        self.set.cursor = vec![0; g];
        self.set.idle_in = vec![0; g];
        self.cached = None;
    }

    /// Adds real server h to the virtual set (its rows are built by the next [`Self::prepare`]).
    pub(super) fn add(&mut self, h: u32) {
        let v = self.h;
        self.h += 1;
        self.set.real[v] = h;
        self.set.virt[h as usize] = v as u32;
        self.dirty[v] = true;
        for ty in 0..self.m + self.p {
            self.prices.row_ok[ty * self.hcap + v] = false;
            self.prices.type_ok[ty] = false;
        }
        self.capacity.ub.iter_mut().for_each(|u| *u = None);
        // A new server joins every possible-host list (a superset stays exact).
        for ty in 0..self.m + self.p {
            if self.capacity.poss_ok[ty] {
                let n = self.capacity.poss_n[ty] as usize;
                self.capacity.poss[ty * self.hcap + n] = v as u32;
                self.capacity.poss_n[ty] += 1;
            }
        }
    }

    /// Tops shape s up to K_s idle servers in the set (lowest indices first).
    pub(super) fn top_up(&mut self, s: usize) {
        let end = self.set.shape_at[s + 1];
        while self.set.idle_in[s] < self.set.shape_k[s]
            && self.set.shape_at[s] + self.set.cursor[s] < end
        {
            let h = self.set.members[(self.set.shape_at[s] + self.set.cursor[s]) as usize];
            self.set.cursor[s] += 1;
            if !self.set.busy[h as usize] {
                self.add(h);
                self.set.idle_in[s] += 1;
            }
        }
    }

    /// The virtual set of a new window: every server with a reservation in it, then K_s idle
    /// servers of every shape s.
    pub(super) fn reset_set(&mut self, cx: &Ctx) {
        self.capacity.poss_ok.iter_mut().for_each(|u| *u = false);
        self.capacity.ubfit_ok.iter_mut().for_each(|u| *u = false);
        self.capacity.room.reset();
        self.capacity.bounds.reset();
        for v in 0..self.h {
            let h = self.set.real[v] as usize;
            self.set.virt[h] = NONE;
            self.set.busy[h] = false;
        }
        self.h = 0;
        for &h in &cx.win.busy {
            if let Some(b) = self.set.busy.get_mut(h as usize) {
                *b = true;
            }
        }
        for i in 0..cx.win.busy.len() {
            let h = cx.win.busy[i];
            if (h as usize) < self.hcap {
                self.add(h);
            }
        }
        for s in 0..self.set.shape_k.len() {
            self.set.cursor[s] = 0;
            self.set.idle_in[s] = 0;
            self.top_up(s);
        }
    }
}
