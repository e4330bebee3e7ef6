//! Per-decision scratch of a [`super::RouteScheduler`], sized once at build so a decision allocates
//! nothing: candidate lists per start offset, the decoded workers' nodes, paths and costs.
use super::{NODE_CHOICES, PATH_NODES_MAX, START_BITS};
use crate::limits::ROUTE_WORKERS_MAX;
use alloc::vec::Vec;

/// Start offsets a CSRP particle can choose (2^[`START_BITS`]).
pub(super) const DELTAS: usize = 1 << START_BITS;
/// Candidate compute nodes listed per start offset: the choices plus enough for every worker.
pub(super) const CAND_MAX: usize = NODE_CHOICES + ROUTE_WORKERS_MAX;
/// Used servers put first in a candidate list (energy: eq. 3), before the nearest unused ones.
pub(super) const USED_FIRST: usize = NODE_CHOICES / 2;

/// Per-decision scratch (all sized at build).
#[derive(Clone, Debug)]
pub(super) struct Scratch {
    /// Reachable compute nodes of the job's PS, sorted on the light-load tree.
    pub(super) sorted: Vec<u32>,
    /// Per start offset d: candidate nodes at `d * CAND_MAX ..`.
    pub(super) cand: Vec<u32>,
    /// Free lanes of each candidate at its start.
    pub(super) cand_free: Vec<u32>,
    /// Candidates listed per start offset.
    pub(super) cand_len: [usize; DELTAS],
    /// Workers a decoded particle put on each candidate.
    pub(super) taken: Vec<u32>,
    /// Per node: generation it was last marked in.
    pub(super) stamp: Vec<u32>,
    /// Current marking generation.
    pub(super) gen: u32,
    /// Compute node of each worker.
    pub(super) wnodes: Vec<u32>,
    /// Path of each worker, [`PATH_NODES_MAX`] wide.
    pub(super) wpath: Vec<u32>,
    /// Length of each worker's path.
    pub(super) wlen: Vec<u32>,
    /// N (eq. 4) of each worker's path.
    pub(super) wcost: Vec<f64>,
    /// Links of the paths (or the distinct links of an aggregated structure).
    pub(super) links: Vec<u32>,
}

impl Scratch {
    /// Scratch for `n` nodes, `computes` compute nodes and jobs of at most `max_w` workers.
    pub(super) fn new(n: usize, computes: usize, max_w: usize) -> Self {
        Scratch {
            sorted: alloc::vec![0; computes],
            cand: alloc::vec![0; DELTAS * CAND_MAX],
            cand_free: alloc::vec![0; DELTAS * CAND_MAX],
            cand_len: [0; DELTAS],
            taken: alloc::vec![0; CAND_MAX],
            stamp: alloc::vec![0; n],
            gen: 0,
            wnodes: alloc::vec![0; max_w],
            wpath: alloc::vec![0; max_w * PATH_NODES_MAX],
            wlen: alloc::vec![0; max_w],
            wcost: alloc::vec![0.0; max_w],
            links: alloc::vec![0; (max_w + 1) * PATH_NODES_MAX],
        }
    }
}
