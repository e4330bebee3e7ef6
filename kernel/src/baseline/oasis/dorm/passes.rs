//! The passes of one event: the fairness bound doubled until an allocation meets it, the
//! shared node budget, and what an event that reaches it applies ([`stop_at_budget`]).
use super::greedy::{greedy, Greedy};
use super::search::{branch_and_bound, Pass};
use super::{Ctx, DormState, DormStats, EPS};
use crate::baseline::DORM_FAIRNESS_LOSS_MAX;

/// The solves of one event, leaving the allocation in `d.best` (by depth): the fairness bound
/// [`DORM_FAIRNESS_LOSS_MAX`] doubled until an allocation meets it with the adjustment bound
/// (once it exceeds the sum of the fair shares every allocation meets it, and the kept
/// allocation meets the adjustment bound if it still packs), then, should even that fail, both
/// bounds lifted. All passes share the event's node budget. A pass the greedy allocation does
/// not meet may use a quarter of what is left before it has found an allocation; if it has
/// not by then, the bound is left undecided and doubled (the event then counts as stopped at
/// the budget), so a hard infeasibility proof cannot starve the bounds that can be met. A pass
/// that reaches the budget otherwise ends the event ([`stop_at_budget`]).
pub(super) fn solve_passes(d: &mut DormState, ctx: &mut Ctx<'_>, m: usize, nodes: &mut u64) {
    let g = greedy(d, ctx, m);
    let total_fair: f64 = (0..m).map(|k| d.fair[d.pack[k] as usize]).sum();
    let mut theta = DORM_FAIRNESS_LOSS_MAX;
    let mut amax = d.adjust_max;
    // A smaller fairness bound was left undecided.
    let mut undecided = false;
    loop {
        let seed = g.meets(theta, amax).then_some(g.obj);
        let before = *nodes;
        let left = d.budget.saturating_sub(before);
        let soft = if seed.is_some() { left } else { left / 4 };
        let limits = (before.saturating_add(soft), d.budget);
        let pass = branch_and_bound(d, ctx, m, (theta, amax), seed, limits, nodes);
        let open = pass.stopped.is_some() && pass.found.is_none() && seed.is_none();
        if pass.stopped.is_some() && !open {
            d.stats.nodes_proof = d.stats.nodes_proof.saturating_add(*nodes - pass.last);
            stop_at_budget(d, &g, theta, &pass, seed);
            return;
        }
        if !open && (pass.found.is_some() || seed.is_some()) {
            if pass.found.is_none() {
                // Nothing beat the greedy allocation by more than the tolerance.
                d.best[..m].copy_from_slice(&d.inc[..m]);
            }
            d.stats.nodes_proof = d.stats.nodes_proof.saturating_add(*nodes - pass.last);
            if undecided {
                // Optimal at this bound, but a smaller one was not ruled out.
                d.stats.budget_stops += 1;
            } else {
                d.stats.optimal += 1;
            }
            used_theta(&mut d.stats, theta);
            return;
        }
        d.stats.nodes_infeasible = d.stats.nodes_infeasible.saturating_add(*nodes - before);
        undecided |= open;
        if theta > total_fair + EPS {
            // Not even the kept allocation meets the adjustment bound: lift both bounds (the
            // greedy seed meets them, so this pass always decides).
            theta = f64::INFINITY;
            amax = u32::MAX;
        } else {
            theta *= 2.0;
        }
    }
}

/// Records the fairness bound an event used.
fn used_theta(st: &mut DormStats, theta: f64) {
    if theta.is_infinite() {
        st.relaxed_all += 1;
    } else if theta > DORM_FAIRNESS_LOSS_MAX {
        st.relaxed_fair += 1;
    }
    st.theta_max = st.theta_max.max(theta);
    st.theta_last = theta;
}

/// Ends an event whose pass at fairness bound `theta` reached the node budget. `found` is the
/// objective of the pass's best leaf (in `d.best`), `seed` the greedy allocation's if it meets
/// the pass's bounds, `bound` an upper bound on the pass's open subtrees; the better of the two
/// is applied. With neither, the greedy allocation is applied at the least doubled fairness
/// bound it meets, and the gap is measured against the relaxation's bound at the root (any
/// bound Dorm would reach may allow more).
fn stop_at_budget(d: &mut DormState, g: &Greedy, theta: f64, pass: &Pass, seed: Option<f64>) {
    let m = d.pack_len;
    let bound = pass.stopped.unwrap_or(f64::INFINITY);
    let (inc, upper, used) = match (pass.found, seed) {
        (Some(f), s) if s.is_none_or(|greedy| f > greedy + EPS) => (f, bound.max(f), theta),
        (_, Some(_)) => {
            d.best[..m].copy_from_slice(&d.inc[..m]);
            (g.obj, bound.max(g.obj), theta)
        }
        // No allocation meeting the pass's bounds (`(Some, None)` is the first arm's; this
        // is not reached from `solve_passes`, which doubles the bound instead).
        (_, None) => {
            d.best[..m].copy_from_slice(&d.inc[..m]);
            (g.obj, g.root.max(g.obj), g.ladder(d.adjust_max).max(theta))
        }
    };
    let gap = if upper > EPS {
        ((upper - inc) / upper).max(0.0)
    } else {
        0.0
    };
    d.stats.budget_stops += 1;
    d.stats.gap_max = d.stats.gap_max.max(gap);
    used_theta(&mut d.stats, used);
}
