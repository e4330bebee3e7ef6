//! Kind `"placement"` (Liu et al. 2024): workers k with GPU types and nodes, jobs i with rho_ik.
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

/// The method a placement scenario asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Method {
    /// HAS: every category, market assignment, least average JCT.
    Has,
    /// JPS: job prioritising + sampled categories.
    Jps,
    /// Exact max-throughput assignment per category.
    Exact,
    /// Every worker assignment (tiny inputs only).
    Exhaustive,
    /// Optimus (marginal gain, equal split).
    Optimus,
    /// Optimus-LB (proportional split).
    OptimusLb,
    /// LAS.
    Las,
}

impl Method {
    /// Its code in log records ([`crate::placement::records::ChoiceRec::method`]): 0 has,
    /// 1 jps, 2 exact, 3 exhaustive, 4 optimus, 5 optimus-lb, 6 las.
    pub fn code(self) -> u8 {
        match self {
            Method::Has => 0,
            Method::Jps => 1,
            Method::Exact => 2,
            Method::Exhaustive => 3,
            Method::Optimus => 4,
            Method::OptimusLb => 5,
            Method::Las => 6,
        }
    }

    /// The method a log record's code ([`Method::code`]) stands for, `None` for none.
    pub fn from_code(code: u8) -> Option<Method> {
        Some(match code {
            0 => Method::Has,
            1 => Method::Jps,
            2 => Method::Exact,
            3 => Method::Exhaustive,
            4 => Method::Optimus,
            5 => Method::OptimusLb,
            6 => Method::Las,
            _ => return None,
        })
    }
}

/// The per-category solver HAS and JPS use (scenario field `solver`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum CategorySolver {
    /// The tie-aware matching market (Algorithm 2); its price path is logged.
    #[default]
    Market,
    /// The warm-started transfer solver: the market's counts where it can certify them, the
    /// market itself elsewhere (`docs/placement.md`, "The transfer solver").
    Transfer,
}

/// One worker (GPU) k.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Worker {
    /// Index of its GPU type name (first-appearance order).
    pub gpu_type: u32,
    /// Node id: same node => intra-node link rate.
    pub node: u32,
}

/// One job i.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacementJob {
    /// abs(Pi_i): samples per epoch.
    pub samples: f64,
    /// T_i: epochs.
    pub epochs: f64,
    /// D_i: model bytes.
    pub model_bytes: f64,
    /// rho_ik: samples/s on worker k.
    pub throughput: Vec<f64>,
}

/// JPS parameters (N, alpha, beta).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JpsParams {
    /// N: categories sampled.
    pub samples: u32,
    /// alpha: fraction of the category order skipped.
    pub alpha: f64,
    /// beta: weight of JCT vs fairness.
    pub beta: f64,
}

impl Default for JpsParams {
    fn default() -> Self {
        JpsParams {
            samples: 20,
            alpha: 0.7,
            beta: 1.0,
        }
    }
}

/// A validated `"placement"` scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlacementScenario {
    /// Method asked for.
    pub method: Method,
    /// Workers k.
    pub workers: Vec<Worker>,
    /// Intra-node link rate (bytes/s).
    pub intra_node: f64,
    /// Inter-node link rate (bytes/s).
    pub inter_node: f64,
    /// Jobs i.
    pub jobs: Vec<PlacementJob>,
    /// Add the Ring-AllReduce term of eq. (6).
    pub include_comm: bool,
    /// JPS parameters.
    pub jps: JpsParams,
    /// PRNG seed.
    pub seed: u64,
    /// Per-category solver of HAS and JPS (other methods ignore it).
    #[serde(default)]
    pub solver: CategorySolver,
}
