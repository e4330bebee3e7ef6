//! The exact fast DP of Alg. 2 (the default path).
//!
//! Per slot t, COST_t(t, d) depends on d only through w = ceil(d m_i) (Alg. 2 line 26) and is
//! non-decreasing in w, so slot t offers the choices "w workers cover chunks_for(w) chunks" for
//! w = 0..=Wcap(t) (Wcap: the most workers both pools can host; feasibility is a prefix in w),
//! of which only the smallest w per distinct chunk count matters. The DP over "at least x chunks
//! covered in slots a_i..t" then has at most N_i + 1 transitions per cell instead of x + 1, and
//! its value equals the literal exact-split DP (COST_t is monotone, so covering more than d in a
//! slot never costs less than covering d with the same workers).
//!
//! COST_t(t, w) reproduces the literal greedy bit for bit: workers fill servers in price order
//! (prefix sums of unit price x fit, summed in the same order as the greedy), then parameter
//! servers likewise for z = ceil(w b_i / B_i).
//!
//! Scale (`docs/oasis.md`): the slots are swept forward from a_i, one at a time and only as far
//! as the DP goes; per slot only the servers whose usage changes are touched
//! ([`Sweep`](sweep::Sweep)), and only the cheapest servers covering Wcap workers (and their
//! parameter servers) are listed.
//! The DP's lower cut `lo` uses an upper bound of the chunks the later slots can cover, the
//! t_hat scan stops on the idle-price lower bound of any schedule's cost, and the choice table
//! holds only the rows that bound lets the scan reach. Each of these computes a superset of the
//! cells the full-window DP computes, with the same values: the decision is the same.
//!
//! | module | what |
//! |---|---|
//! | `dp` | [`FastDp`] (the scratch, sized once) and [`DpSize`]; the price-floor bound and the rows the t_hat scan can reach |
//! | `decide` | [`FastDp::decide`]: the t_hat scan over the swept slots, each slot's Wcap, the census bounds that end a rejection early |
//! | `choices` | one slot's choices (fewest workers per chunk count) and one DP row over them, `LANES` choices at a time |
//! | `schedule` | the chosen schedule: rebuilt from the choice table and the saved lists, its greedy fills, [`Schedule`] and [`SlotPlacement`] |
//! | `sweep` | `Sweep`: one pool's unit prices and fits swept forward in time for the decided job, and its start at the arrival slot |
//! | `step` | the sweep moved one slot on by the time-major copy's changed groups, read at once or queued unread under a bound |
//! | `list` | the cheapest servers of the sweep's slot listed until their fits cover a count; greedy-fill costs from the list |
//! | `tree` | the same listing as a best-first search of the pool's slot tree (nodes, leaves, idle streams) |
//! | `tests` | (tests) the change queue and the slot trees give the same decisions |

mod choices;
mod decide;
mod dp;
mod list;
mod schedule;
mod step;
mod sweep;
mod tree;

pub use dp::{DpSize, FastDp};
pub use schedule::{Schedule, SlotPlacement};

#[cfg(test)]
mod tests;
