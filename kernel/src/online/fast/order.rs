//! The server order by (Omega_h, index) with prefix sums of capacities and capacity x Omega,
//! the greedy fill of x workers answered by binary search over them, and the rebuild of a
//! q = 0 winner's placement along the order ([`place_q0`]).
use super::scratch::FastScratch;
use crate::index::NONE;
use crate::online::common::{ps_fit, ps_needed, Cand};
use crate::online::{Ctx, Placed, Placement};
use alloc::vec::Vec;

/// The server order by (Omega, index) and its prefix sums.
#[derive(Clone, Debug)]
pub(super) struct ServerOrder {
    /// (Omega_h, real server) of the ordered servers, the first `nord` sorted.
    pub(super) keys: Vec<(u128, u32)>,
    /// Servers in the order ([`FastScratch::sort_and_prefix`]).
    pub(super) nord: usize,
    /// Position in the order of each server of the set (NONE beyond the sorted prefix).
    pub(super) posof: Vec<u32>,
    /// Window capacity per position.
    pub(super) ocap: Vec<u64>,
    /// The largest window capacity of any server [`FastScratch::sort_and_prefix`] ordered (also
    /// beyond the sorted prefix).
    pub(super) omax: u32,
    /// Omega_h per position.
    pub(super) oom: Vec<u128>,
    /// Prefix sums of `ocap`: `pc[i]` over the positions before i.
    pub(super) pc: Vec<u64>,
    /// Prefix sums of capacity x Omega_h, likewise.
    pub(super) po: Vec<u128>,
}

impl FastScratch {
    /// Orders servers by (Omega, index) and builds the prefix sums of caps and cap x Omega.
    /// Unless `all`, only servers with a positive window capacity are ordered, the `live` list
    /// of the last full capacity pass (`posof` of the others is stale, and read only for
    /// servers with a positive capacity): a greedy fill never places a worker on the others, so they
    /// change no prefix sum the fill reads, and in a full window they are most of the set.
    ///
    /// Only a prefix of the order is sorted when fills ask for at most `fill_max` workers: the
    /// shortest prefix tried (64, 128, ... servers) whose capacity is at least `fill_max` plus
    /// the largest capacity [`ServerOrder::omax`] (all of it when the total is less). A fill of
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
                self.order.posof[v] = NONE;
                self.order.keys[k] = (self.omega[v], self.set.real[v]);
                k += 1;
                most = most.max(self.capacity.caps[v]);
            }
        } else {
            // The `live` list of the last full capacity pass (caps_for, caps_direct, caps_at):
            // the servers with caps > 0. `posof` of the
            // others is stale; it is only read for servers with caps > 0.
            for i in 0..self.capacity.live_n {
                let v = self.capacity.live[i] as usize;
                self.order.posof[v] = NONE;
                self.order.keys[k] = (self.omega[v], self.set.real[v]);
                k += 1;
                most = most.max(self.capacity.caps[v]);
            }
        }
        self.order.omax = most;
        let upto = fill_max.saturating_add(most as u64);
        let mut g = k.min(64);
        loop {
            if g < k {
                self.order.keys[..k].select_nth_unstable(g);
            }
            self.order.keys[..g].sort_unstable();
            let held = self.order.keys[..g].iter().fold(0u64, |a, &(_, h)| {
                a.saturating_add(self.capacity.caps[self.set.virt[h as usize] as usize] as u64)
            });
            if held >= upto || g == k {
                break;
            }
            g = (2 * g).min(k);
        }
        let k = g;
        self.order.nord = k;
        for (i, &(om, h)) in self.order.keys[..k].iter().enumerate() {
            let v = self.set.virt[h as usize] as usize;
            self.order.posof[v] = i as u32;
            let c = self.capacity.caps[v] as u64;
            self.order.ocap[i] = c;
            self.order.oom[i] = om;
            self.order.pc[i + 1] = self.order.pc[i] + c;
            self.order.po[i + 1] = self.order.po[i].saturating_add((c as u128).saturating_mul(om));
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
                self.order.ocap[q],
                (self.order.ocap[q] as u128).saturating_mul(self.order.oom[q]),
            ),
            None => (0, 0),
        };
        let before = |i: usize| excl.is_some_and(|q| q < i);
        let pcx = |i: usize| self.order.pc[i] - if before(i) { qc } else { 0 };
        if pcx(self.order.nord) < x {
            return None;
        }
        let (mut lo, mut hi) = (1usize, self.order.nord);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if pcx(mid) >= x {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let j = lo - 1;
        let pox = self.order.po[j] - if before(j) { qo } else { 0 };
        Some(pox.saturating_add(((x - pcx(j)) as u128).saturating_mul(self.order.oom[j])))
    }
}

/// Rebuilds the greedy placement of a q = 0 winner (literal inner loop over the order).
pub(super) fn place_q0(cx: &Ctx, s: &mut FastScratch, c: &Cand, out: &mut Placement) {
    let (m, t0, dur) = (c.m as usize, c.tminus, c.dur);
    s.omegas(cx, m, t0, dur);
    s.caps_for(cx, m, t0, dur);
    // Every server, so the PS host is visited even with no room for a worker.
    s.sort_and_prefix(true, u64::MAX);
    let mut free = [0.0; crate::limits::RESOURCES_MAX];
    let mut left = c.workers;
    let mut ps_on_host = 0;
    let mut y_host = 0;
    out.clear();
    let host = if c.p != NONE {
        s.set.virt.get(c.host as usize).copied().unwrap_or(NONE)
    } else {
        NONE
    } as usize;
    for i in 0..s.h {
        let k = s.set.virt[s.order.keys[i].1 as usize] as usize;
        let yk = s.capacity.caps[k].min(left);
        let mut y = yk;
        if k == host {
            let (wt, pt) = (&cx.scn.worker_types[m], &cx.scn.ps_types[c.p as usize]);
            s.min_free(k, t0, dur, &mut free[..s.r]);
            let mut g = yk.min(c.workers - 1);
            loop {
                let need = ps_needed(c.workers - g, wt, pt);
                if ps_fit(&free[..s.r], g, wt, pt) >= need {
                    ps_on_host = need;
                    break;
                }
                if g == 0 {
                    break;
                }
                g -= 1;
            }
            y = g;
            y_host = g;
        }
        left -= y;
        s.capacity.caps[k] = y; // reuse as the per-server worker count
    }
    for h in 0..s.h {
        let ps = if h == host { ps_on_host } else { 0 };
        let y = if h == host {
            y_host
        } else {
            s.capacity.caps[h]
        };
        if y > 0 || ps > 0 {
            out.push(Placed {
                server: s.set.real[h],
                workers: y,
                ps,
            });
        }
    }
    // Servers in index order (the virtual set is in insertion order).
    out.sort_unstable_by_key(|p| p.server);
}
