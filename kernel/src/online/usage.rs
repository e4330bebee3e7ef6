//! The sparse usage store of A_online: beta_h^r(t) as the list of reservations, one per (job,
//! server) of every scheduled job, in commit order. Memory follows the number of changes (a
//! reservation is two breakpoints of the piecewise-constant usage of one server), not T x H x R.
//!
//! beta_h^r(t) is the sum, in commit order and starting from 0.0, of the amounts of the
//! reservations on h covering t: the same floating-point additions in the same order as the
//! dense grid `usage[t][h][r] += amount` the scheduler used to keep, hence the same bits.
//!
//! A_dual's windows never overlap in time (`docs/online.md`), so a search only ever reads the
//! reservations of its own window: [`WindowIndex`] chains them per server (oldest first), and
//! every other server is idle over the whole window.
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// One reservation: `amount[r]` of every resource r on `server` over slots [start, end).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resv {
    /// Server h.
    pub server: u32,
    /// First slot.
    pub start: u32,
    /// One past the last slot.
    pub end: u32,
}

/// Every reservation in commit order; `amount[i * R..(i + 1) * R]` is reservation i's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SparseUsage {
    /// Reservations in commit order.
    pub resv: Vec<Resv>,
    /// R amounts per reservation.
    pub amount: Vec<f64>,
}

impl SparseUsage {
    /// An empty store with room for `n` reservations of `r` resources (the only allocation;
    /// untouched capacity is not committed memory on the usual allocators).
    pub fn with_capacity(n: usize, r: usize) -> Self {
        SparseUsage {
            resv: Vec::with_capacity(n),
            amount: Vec::with_capacity(n.saturating_mul(r)),
        }
    }

    /// Reservations held.
    pub fn len(&self) -> usize {
        self.resv.len()
    }

    /// No reservation yet.
    pub fn is_empty(&self) -> bool {
        self.resv.is_empty()
    }

    /// Room left without growing.
    pub fn room(&self) -> usize {
        self.resv.capacity() - self.resv.len()
    }

    /// Appends a reservation (callers check [`Self::room`] first: no allocation then).
    pub fn push(&mut self, r: Resv, amount: &[f64]) {
        self.resv.push(r);
        self.amount.extend_from_slice(amount);
    }

    /// beta_h^r(t), summed over every reservation in commit order (O(reservations): for
    /// checks, traces and tests; searches use a [`WindowIndex`]).
    pub fn at(&self, r_n: usize, t: u32, h: u32, r: usize) -> f64 {
        let mut u = 0.0;
        for (i, x) in self.resv.iter().enumerate() {
            if x.server == h && x.start <= t && t < x.end {
                u += self.amount[i * r_n + r];
            }
        }
        u
    }

    /// The dense grid `(t * H + h) * R + r` (allocates T x H x R: traces and tests only).
    pub fn dense(&self, t_n: usize, h_n: usize, r_n: usize) -> Vec<f64> {
        let mut g = alloc::vec![0.0; t_n * h_n * r_n];
        for (i, x) in self.resv.iter().enumerate() {
            for t in x.start as usize..(x.end as usize).min(t_n) {
                for r in 0..r_n {
                    if let Some(c) = g.get_mut((t * h_n + x.server as usize) * r_n + r) {
                        *c += self.amount[i * r_n + r];
                    }
                }
            }
        }
        g
    }
}

/// "No reservation" in the chains.
const END: u32 = u32::MAX;

/// Per-server chains (oldest first) of the reservations overlapping one window.
#[derive(Clone, Debug)]
pub struct WindowIndex {
    /// The window [base, base + len) the chains describe.
    pub window: Option<(u32, u32)>,
    head: Vec<u32>,
    tail: Vec<u32>,
    next: Vec<u32>,
    /// Servers with a non-empty chain, in the order they got one.
    pub busy: Vec<u32>,
    /// Reservations before this index all end at or before the window (skipped by rebuilds).
    scan_from: usize,
    /// Reservations indexed so far.
    seen: usize,
}

impl WindowIndex {
    /// Chains for `h` servers and up to `n` reservations.
    pub fn new(h: usize, n: usize) -> Self {
        WindowIndex {
            window: None,
            head: alloc::vec![END; h],
            tail: alloc::vec![END; h],
            next: Vec::with_capacity(n),
            busy: Vec::with_capacity(h),
            scan_from: 0,
            seen: 0,
        }
    }

    /// Room for `n` reservations in all (submitted or re-planned jobs'; an event path, never
    /// a decision).
    pub fn reserve(&mut self, n: usize) {
        self.next.reserve_exact(n.saturating_sub(self.next.len()));
    }

    /// Forgets everything (after a restore, or an open-world event shortened reservations).
    pub fn invalidate(&mut self) {
        self.window = None;
        self.scan_from = 0;
    }

    /// Makes the chains describe window [base, base + len) of `u` (rebuilt when the window
    /// changed; otherwise the reservations added since are appended).
    pub fn sync(&mut self, u: &SparseUsage, base: u32, len: u32) {
        if self.window != Some((base, len)) {
            for &h in &self.busy {
                self.head[h as usize] = END;
                self.tail[h as usize] = END;
            }
            self.busy.clear();
            self.next.clear();
            // Reservations are committed window after window, and windows only move forward:
            // skip the prefix that ends before this window.
            while self.scan_from < u.resv.len() && u.resv[self.scan_from].end <= base {
                self.scan_from += 1;
            }
            self.next.resize(self.scan_from, END);
            self.seen = self.scan_from;
            self.window = Some((base, len));
        }
        let hi = base.saturating_add(len);
        while self.seen < u.resv.len() {
            let i = self.seen;
            let x = u.resv[i];
            self.next.push(END);
            if x.start < hi && x.end > base {
                let h = x.server as usize;
                if let Some(t) = self.tail.get(h).copied() {
                    if t == END {
                        self.head[h] = i as u32;
                        self.busy.push(x.server);
                    } else {
                        self.next[t as usize] = i as u32;
                    }
                    self.tail[h] = i as u32;
                }
            }
            self.seen += 1;
        }
    }

    /// The reservations of server h overlapping the window, oldest first.
    pub fn chain<'a>(&'a self, h: usize) -> impl Iterator<Item = usize> + 'a {
        let mut at = self.head.get(h).copied().unwrap_or(END);
        core::iter::from_fn(move || {
            if at == END {
                return None;
            }
            let i = at as usize;
            at = self.next.get(i).copied().unwrap_or(END);
            Some(i)
        })
    }

    /// Whether server h has a reservation overlapping the window.
    pub fn is_busy(&self, h: usize) -> bool {
        self.head.get(h).is_some_and(|&x| x != END)
    }

    /// beta_h^r(t) for a slot t of the window (commit-order sum over h's chain).
    pub fn at(&self, u: &SparseUsage, r_n: usize, t: u32, h: usize, r: usize) -> f64 {
        let mut s = 0.0;
        for i in self.chain(h) {
            let x = u.resv[i];
            if x.start <= t && t < x.end {
                s += u.amount[i * r_n + r];
            }
        }
        s
    }
}
