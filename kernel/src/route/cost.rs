//! The objectives: deadline violations J_v and rate R_dv (eqs. 1-2), used servers S_u (eq. 3),
//! path load degree l and network cost N = l h (eqs. 4-5), and the combined cost (eq. 11)
//! with its lexicographic tie-break ([`Fitness`]).
use super::graph::Graph;
use core::cmp::Ordering;
use serde::{Deserialize, Serialize};

/// Eq. (5) read as `docs/route.md` says: BW_b is the **used** bandwidth of the bottleneck
/// link (the link with the least remaining bandwidth C - BW_u; ties by position on the path),
/// and l = BW_b f^2 if BW_b / C > 0.9, BW_b f if 0.5 < BW_b / C <= 0.9, else BW_b.
/// Returns 0 for an empty path.
pub fn path_load_degree(g: &Graph, links: &[u32], f: f64) -> f64 {
    let mut best: Option<(f64, u32)> = None;
    for &l in links {
        let rem = g.capacity(l) - g.used(l);
        // Strictly less keeps the first bottleneck on ties: a total, positional tie-break.
        if !matches!(best, Some((r, _)) if rem >= r) {
            best = Some((rem, l));
        }
    }
    match best {
        None => 0.0,
        Some((_, l)) => load_degree(g.used(l), g.capacity(l), f),
    }
}

/// The three tiers of eq. (5) for a bottleneck with used bandwidth `bw_b` and capacity `c`.
pub fn load_degree(bw_b: f64, c: f64, f: f64) -> f64 {
    let u = bw_b / c;
    if u > 0.9 {
        bw_b * f * f
    } else if u > 0.5 {
        bw_b * f
    } else {
        bw_b
    }
}

/// Eq. (4): N = l h for a path given by its links (h = number of links).
pub fn network_cost(g: &Graph, links: &[u32], f: f64) -> f64 {
    path_load_degree(g, links, f) * links.len() as f64
}

/// Eq. (2): R_dv = J_v / J (0 for no jobs).
pub fn violation_rate(jv: u32, j: u32) -> f64 {
    if j == 0 {
        0.0
    } else {
        jv as f64 / j as f64
    }
}

/// The F_beta part of eq. (11): (1 + beta^2) N-bar S_u / (beta^2 N-bar + S_u) (0 when both are 0).
pub fn f_score(n_bar: f64, s_u: f64, beta: f64) -> f64 {
    let b2 = beta * beta;
    let den = b2 * n_bar + s_u;
    if den == 0.0 {
        0.0
    } else {
        (1.0 + b2) * n_bar * s_u / den
    }
}

/// Eq. (11): Cost = F_beta(N-bar, S_u) J_v / J.
pub fn objective(n_bar: f64, s_u: f64, jv: u32, j: u32, beta: f64) -> f64 {
    f_score(n_bar, s_u, beta) * violation_rate(jv, j)
}

/// Running totals of a partial schedule: what eq. (11) needs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    /// Jobs decided (J so far).
    pub jobs: u32,
    /// J_v so far.
    pub violations: u32,
    /// |S_u| so far.
    pub servers: u32,
    /// Sum of the jobs' network costs (N-bar = sum / jobs).
    pub network_sum: f64,
}

impl Totals {
    /// The totals after adding one job with network cost `n`, `new_servers` servers not used
    /// before, and `violated` = its deadline is missed.
    pub fn with(self, n: f64, new_servers: u32, violated: bool) -> Totals {
        Totals {
            jobs: self.jobs + 1,
            violations: self.violations + violated as u32,
            servers: self.servers + new_servers,
            network_sum: self.network_sum + n,
        }
    }

    /// The totals after taking back one job added by [`Self::with`] with the part `n` of its
    /// network cost that is refunded (a preempted run: the job is counted again by its rerun;
    /// the servers it used stay used, and the caller refunds only what was never spent).
    pub fn without(self, n: f64, violated: bool) -> Totals {
        Totals {
            jobs: self.jobs.saturating_sub(1),
            violations: self.violations.saturating_sub(violated as u32),
            servers: self.servers,
            network_sum: crate::num::canon((self.network_sum - n).max(0.0)),
        }
    }

    /// N-bar.
    pub fn n_bar(&self) -> f64 {
        if self.jobs == 0 {
            0.0
        } else {
            self.network_sum / self.jobs as f64
        }
    }

    /// Eq. (11) of these totals.
    pub fn cost(&self, beta: f64) -> f64 {
        objective(
            self.n_bar(),
            self.servers as f64,
            self.violations,
            self.jobs,
            beta,
        )
    }

    /// The fitness of these totals for a candidate starting at `start`.
    pub fn fitness(&self, beta: f64, candidate_network: f64, start: u32) -> Fitness {
        Fitness {
            infeasible: false,
            cost: self.cost(beta),
            f_part: f_score(self.n_bar(), self.servers as f64, beta),
            network: candidate_network,
            start,
        }
    }
}

/// A candidate's fitness, compared lexicographically (`docs/route.md`): feasible first,
/// then eq. (11) cost, then the F-score part, then the candidate's network cost, then the
/// earlier start. Floats compare with `total_cmp` (all values are finite).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fitness {
    /// No placement exists for this position (too few free slots at its start).
    pub infeasible: bool,
    /// Eq. (11).
    pub cost: f64,
    /// F_beta(N-bar, S_u).
    pub f_part: f64,
    /// N of the candidate job.
    pub network: f64,
    /// Its start e^r.
    pub start: u32,
}

impl Fitness {
    /// The worst fitness (an infeasible position).
    pub const WORST: Fitness = Fitness {
        infeasible: true,
        cost: f64::INFINITY,
        f_part: f64::INFINITY,
        network: f64::INFINITY,
        start: u32::MAX,
    };

    /// Total lexicographic order.
    pub fn order(&self, o: &Fitness) -> Ordering {
        self.infeasible
            .cmp(&o.infeasible)
            .then(self.cost.total_cmp(&o.cost))
            .then(self.f_part.total_cmp(&o.f_part))
            .then(self.network.total_cmp(&o.network))
            .then(self.start.cmp(&o.start))
    }

    /// Strictly better than `o`.
    pub fn better(&self, o: &Fitness) -> bool {
        self.order(o) == Ordering::Less
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eq5_tiers() {
        // f = 3 (section 5.1): utilisation 0.95 -> f^2, 0.6 -> f, 0.3 -> 1.
        assert_eq!(load_degree(9.5, 10.0, 3.0), 9.5 * 9.0);
        assert_eq!(load_degree(6.0, 10.0, 3.0), 18.0);
        assert_eq!(load_degree(3.0, 10.0, 3.0), 3.0);
        // Boundaries: exactly 0.9 is the middle tier, exactly 0.5 the lowest.
        assert_eq!(load_degree(9.0, 10.0, 3.0), 27.0);
        assert_eq!(load_degree(5.0, 10.0, 3.0), 5.0);
    }

    #[test]
    fn eq11_zero_without_violations() {
        assert_eq!(objective(10.0, 5.0, 0, 10, 4.0), 0.0);
        let f = f_score(10.0, 5.0, 4.0);
        assert!((f - 17.0 * 50.0 / 165.0).abs() < 1e-12);
        assert!((objective(10.0, 5.0, 2, 10, 4.0) - f * 0.2).abs() < 1e-12);
    }

    #[test]
    fn fitness_is_lexicographic() {
        let a = Fitness {
            infeasible: false,
            cost: 0.0,
            f_part: 1.0,
            network: 5.0,
            start: 3,
        };
        let b = Fitness { f_part: 2.0, ..a };
        let c = Fitness { start: 2, ..a };
        assert!(a.better(&b) && c.better(&a) && a.better(&Fitness::WORST));
    }
}
