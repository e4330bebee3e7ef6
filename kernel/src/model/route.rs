//! Kind `"route"` (Song et al. 2023): a topology of switches, compute and PS nodes, and jobs.
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// What a node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum NodeKind {
    /// A switch (forwards only).
    Switch,
    /// A compute node with `slots` worker slots.
    Compute,
    /// A parameter-server node.
    Ps,
}

/// One node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    /// Kind.
    pub kind: NodeKind,
    /// Worker slots (compute nodes; 0 otherwise).
    pub slots: u32,
}

/// One undirected link.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// Endpoint a (node index).
    pub a: u32,
    /// Endpoint b (node index).
    pub b: u32,
    /// C: capacity.
    pub capacity: f64,
    /// BW_used: background load.
    pub used: f64,
}

/// A topology.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Topology {
    /// Nodes.
    pub nodes: Vec<Node>,
    /// Links.
    pub links: Vec<Link>,
}

/// One job.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RouteJob {
    /// Its PS node index.
    pub ps: u32,
    /// Workers (compute slots) wanted.
    pub workers: u32,
    /// Release time.
    pub release: u32,
    /// Duration.
    pub duration: u32,
    /// Deadline.
    pub deadline: u32,
    /// Bandwidth per worker path.
    pub bandwidth: f64,
}

/// PSO parameters (eqs. 12-16).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PsoParams {
    /// Particles.
    pub particles: u32,
    /// Iterations.
    pub iterations: u32,
    /// w_max.
    pub w_max: f64,
    /// w_min.
    pub w_min: f64,
    /// c1.
    pub c1: f64,
    /// c2.
    pub c2: f64,
}

impl Default for PsoParams {
    fn default() -> Self {
        PsoParams {
            particles: 30,
            iterations: 100,
            w_max: 0.9,
            w_min: 0.4,
            c1: 2.0,
            c2: 2.0,
        }
    }
}

/// A validated `"route"` scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RouteScenario {
    /// PRNG seed.
    pub seed: u64,
    /// Aggregated CSRP.
    pub aggregate: bool,
    /// Topology.
    pub topology: Topology,
    /// Jobs.
    pub jobs: Vec<RouteJob>,
    /// PSO parameters.
    pub pso: PsoParams,
    /// f of eq. (5) (default 3).
    pub load_factor: f64,
    /// beta of eq. (11).
    pub beta: f64,
}
