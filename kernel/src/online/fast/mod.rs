//! The default, exact and fast search of A_maxweight's per-job choice.
//!
//! It finds the same schedule as [`crate::online::reference`] (same cost, same enumeration-order tie-break)
//! because costs are exact integers (see [`super::common::quantize`]): the winner is the
//! lexicographic minimum of (cost, enumeration index), whatever order candidates are visited in.
//! What makes it fast:
//! - window prefix sums of every type's unit price per server (`pre`), so Omega_h and Zeta_h are
//!   O(1) differences; built per type only when a search asks for it, and refreshed only for the
//!   servers a scheduled job touched (lazily, by the next search in the same window); prices
//!   are computed once per run of equal usage (beta is piecewise constant along t);
//! - PS: window minima of free capacity per (server, resource): in windows of at most 256 slots
//!   sliding minima grown by one slot per duration L (min over [t-, t- + L) =
//!   min(min over [t-, t- + L - 1), omega(t- + L - 1))), in longer ones the minimum over the runs
//!   of equal usage the range meets; both loops stop once nothing of cost >= 0 can win, and
//!   worker counts no server (q = 1) or the whole set (q = 0) can hold are dropped;
//! - Ring-AllReduce: only the Phi whose d-hat can fit the window are evaluated (a bound from
//!   rho_jm <= 1 / v_jm), bucketed by duration; q = 1 and q = 0 in one pass over the durations
//!   that occur; window minima from power-of-two levels (min over [t, t + L) = min of two
//!   overlapping 2^k windows) or a direct scan when few are needed; whole-window capacity
//!   bounds (fit of the maximum free capacity) skip Phi no server / the whole cluster can hold;
//! - fit counts with a cast for the floor (no `floor` call), computed where asked;
//! - one server order (by Omega, then index) per (L, t-, m), shared by every PS type p and every
//!   PS host n; greedy fills answered from prefix sums over that order by binary search;
//! - the q = 1 subroutine runs first and bounds the q = 0 one (which only matters when strictly
//!   cheaper), and lower bounds (greedy fill of N >= any placement of N; one PS >= the cheapest
//!   PS slot) skip candidates that cannot beat the best so far;
//! - full windows (every server busy, no cost-0 schedule): per-slot minima of the unit prices
//!   bound a whole (m, p, L, t-) block in O(1); PS hosts are only the servers with room for
//!   the PSs every host needs over the range; the server order and the q = 1 loop hold only
//!   servers with window capacity; window minima are shared by every type of one (L, t-);
//! - many servers: a sparse table of window minima kept across searches; per 32-server block
//!   the largest free capacities of a range and the per-slot price minima, so passes over the
//!   set skip blocks that cannot hold what they need; the server order is sorted only as far
//!   as the greedy fills reach.
//!
//! | file | what |
//! |---|---|
//! | `scratch` | [`FastScratch`]: every table of the search, allocated once; the per-window entry (`prepare`, [`FastScratch::touched`]) |
//! | `servers` | the virtual server set: busy servers plus K_s idle servers per shape |
//! | `prices` | delta_h^r(t) of eq. (11) per run of equal usage; prefix sums of unit prices (Omega_h, Zeta_h); per-slot and per-block price minima (lower bounds) |
//! | `minima` | window minima of free capacity: sparse table, sliding minima, power-of-two levels, runs of equal usage, per-block minima |
//! | `capacity` | window capacities (fit counts of the minima) of worker and PS types; block, room-set and whole-window bounds |
//! | `bounds` | `BlockBounds`: fit(bmax) per (type, L, t-, block) kept across the searches of a window |
//! | `room` | `RoomSets`: servers with room per (type, L, t-) kept across the searches of a window |
//! | `order` | the server order by Omega_h, prefix sums, the greedy fill by binary search, a q = 0 winner's placement |
//! | `ps` | the parameter-server path: A_mincost2 (q = 1) and A_mincost1 (q = 0), rho of eq. (1) |
//! | `ring` | the Ring-AllReduce path: A_RAmincost1/2, rho of eq. (14) |
//! | here | the per-job entry [`search`] (A_maxweight's choice, Algorithm 3) |
mod bounds;
mod capacity;
mod minima;
mod order;
mod prices;
mod ps;
mod ring;
mod room;
mod scratch;
mod servers;

use super::common::*;
use super::{Ctx, Placed, Placement, Window};
use crate::model::online::OnlineJob;
use order::place_q0;
use ps::{job_rates, ps_q0, ps_q1};
use ring::{ring_search, ring_table};

pub use ring::{ring_options_max, ring_options_of};
pub use scratch::FastScratch;

/// A_maxweight's choice for one job: the q = 1 subroutine, then the q = 0 one if strictly
/// cheaper. Writes the placement of the choice.
pub fn search(
    cx: &Ctx,
    job: &OnlineJob,
    w: &Window,
    s: &mut FastScratch,
    out: &mut Placement,
) -> Option<Cand> {
    out.clear();
    if w.len < 2 || w.len as usize > s.wcap {
        return None;
    }
    let top = if cx.ring() {
        ring_table(cx, job, s, w.len)
    } else {
        job_rates(cx, job, s, w.len)
    };
    if top == 0 {
        // No duration fits the window: nothing to price.
        return None;
    }
    s.prepare(cx, w);
    let (two, one) = if cx.ring() {
        let [two, one] = ring_search(cx, w, s, top);
        (two, one)
    } else {
        let two = ps_q1(cx, job, w, s, top);
        let bound = two.map_or(u128::MAX, |c| c.cost);
        (two, ps_q0(cx, job, w, s, bound, top))
    };
    let pick = match (two, one) {
        (Some(a), Some(b)) => Some(if b.cost < a.cost { b } else { a }),
        (a, b) => a.or(b),
    }?;
    if pick.colocated {
        let ps = if cx.ring() { 0 } else { 1 };
        out.push(Placed {
            server: pick.host,
            workers: pick.workers,
            ps,
        });
    } else {
        place_q0(cx, s, &pick, out);
    }
    Some(pick)
}

/// Whether a q = 0 candidate with lower bound `lb` and index >= `idx` still matters: it must be
/// strictly cheaper than the q = 1 choice (`bound`) and beat the best q = 0 so far.
pub(super) fn useful(lb: u128, idx: [u32; 5], bound: u128, best: &Option<Cand>) -> bool {
    lb < bound && may_beat(lb, idx, best)
}
