//! What a finished run returns ([`RouteOutcome`]): a [`JobPlan`] per job, the routed paths and
//! the [`RouteSummary`] (eqs. 2, 3, N-bar and 11).
use crate::index::NONE;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// What was decided for one job.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JobPlan {
    /// e^r: the start slot.
    pub start: u32,
    /// First of its `workers` paths in [`RouteOutcome::paths`].
    pub first_path: u32,
    /// Workers (= paths).
    pub workers: u32,
    /// Aggregation node ([`NONE`] without aggregation).
    pub aggregation: u32,
    /// N of the job (eq. 4 summed over its paths / aggregated segments).
    pub network_cost: f64,
    /// e^r + Delta <= e^d.
    pub deadline_met: bool,
    /// Link-bandwidth units the job puts on the network (sum over links of its flow count).
    pub bandwidth_units: u32,
    /// Units the plain CSRP paths would have used (equal to `bandwidth_units` without
    /// aggregation).
    pub bandwidth_units_plain: u32,
}

/// Eq. (2), (3), N-bar and eq. (11) of a finished run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RouteSummary {
    /// R_dv.
    pub deadline_violation_rate: f64,
    /// |S_u|.
    pub servers_used: u32,
    /// N-bar.
    pub avg_network_cost: f64,
    /// Eq. (11).
    pub cost: f64,
}

/// A whole run's decisions: per job (input order) a plan; paths as node lists.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteOutcome {
    /// Per job, input order.
    pub plans: Vec<JobPlan>,
    /// (offset, length) of each path in `path_nodes`.
    pub paths: Vec<(u32, u32)>,
    /// Node ids of all paths, PS first, compute node last.
    pub path_nodes: Vec<u32>,
    /// Totals.
    pub summary: RouteSummary,
}

impl JobPlan {
    /// The plan of a job not decided yet.
    pub const EMPTY: JobPlan = JobPlan {
        start: 0,
        first_path: 0,
        workers: 0,
        aggregation: NONE,
        network_cost: 0.0,
        deadline_met: false,
        bandwidth_units: 0,
        bandwidth_units_plain: 0,
    };
}

impl RouteOutcome {
    /// The node list of path `i`.
    pub fn path(&self, i: u32) -> &[u32] {
        match self.paths.get(i as usize) {
            Some(&(o, l)) => self
                .path_nodes
                .get(o as usize..(o + l) as usize)
                .unwrap_or(&[]),
            None => &[],
        }
    }
}
