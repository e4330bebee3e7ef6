//! Kind `"route"`: the scenario document, its validation, and the result document.
use crate::doc::check::{self, job};
use crate::error::InputError;
use mlsched_kernel::limits::{
    COMPUTE_SLOTS_MAX, GRAPH_LINKS_MAX, GRAPH_NODES_MAX, JOBS_MAX, ROUTE_WORKERS_MAX,
};
use mlsched_kernel::model::route::{
    Link, Node, NodeKind, PsoParams, RouteJob, RouteScenario, Topology,
};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Default compute slots of a node.
pub const COMPUTE_SLOTS_DEFAULT: u32 = 8;
/// Default f of eq. (5).
pub const LOAD_FACTOR_DEFAULT: f64 = 3.0;
/// Default beta of eq. (11): 4, as in the paper's section 5.1.
pub const BETA_DEFAULT: f64 = 4.0;

/// The `"route"` scenario as written.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RouteDoc {
    /// Always "route".
    pub kind: String,
    /// PRNG seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<f64>,
    /// Aggregated CSRP.
    #[serde(default)]
    pub aggregate: bool,
    /// Topology.
    pub topology: TopologyDoc,
    /// Jobs.
    pub jobs: Vec<RouteJobDoc>,
    /// PSO parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pso: Option<PsoDoc>,
    /// f of eq. (5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load_factor: Option<f64>,
    /// beta of eq. (11).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
}

/// `topology`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TopologyDoc {
    /// Nodes.
    pub nodes: Vec<NodeDoc>,
    /// Links.
    pub links: Vec<LinkDoc>,
}

/// A node.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NodeDoc {
    /// Id.
    pub id: String,
    /// "switch" | "compute" | "ps".
    pub kind: NodeKindDoc,
    /// Compute slots.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<f64>,
}

/// Node kinds.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NodeKindDoc {
    /// Switch.
    Switch,
    /// Compute.
    Compute,
    /// PS.
    Ps,
}

/// A link.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkDoc {
    /// Endpoint id.
    pub a: String,
    /// Endpoint id.
    pub b: String,
    /// C.
    pub capacity: f64,
    /// BW_used.
    #[serde(default)]
    pub used: f64,
}

/// A job.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RouteJobDoc {
    /// Id.
    pub id: String,
    /// PS node id.
    pub ps: String,
    /// Workers.
    pub workers: f64,
    /// Release.
    pub release: f64,
    /// Duration.
    pub duration: f64,
    /// Deadline.
    pub deadline: f64,
    /// Bandwidth per path.
    pub bandwidth: f64,
}

/// `pso`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PsoDoc {
    /// Particles.
    pub particles: f64,
    /// Iterations.
    pub iterations: f64,
    /// w_max.
    pub w_max: f64,
    /// w_min.
    pub w_min: f64,
    /// c1.
    pub c1: f64,
    /// c2.
    pub c2: f64,
}

impl RouteDoc {
    /// The servers' ids in the kernel's index order (`docs/open-world.md`): each topology
    /// node's `id` (its capacity has one entry: its compute `slots`).
    pub fn server_ids(&self) -> Vec<String> {
        self.topology.nodes.iter().map(|n| n.id.clone()).collect()
    }

    /// Checks every value and builds the kernel model.
    pub fn validate(&self) -> Result<RouteScenario, InputError> {
        let s = "scenario";
        let t = &self.topology;
        check::count_limit(
            s,
            "topology.nodes",
            t.nodes.len(),
            1,
            GRAPH_NODES_MAX,
            "GRAPH_NODES_MAX",
        )?;
        check::ids(
            "node",
            "topology.nodes",
            t.nodes.iter().map(|n| n.id.as_str()),
        )?;
        // Inserted one by one rather than collected: `collect` into a BTreeMap compiles a
        // stable sort of its own for the pair type (wasm size); ids are unique (checked above).
        let mut index: BTreeMap<&str, u32> = BTreeMap::new();
        for (i, n) in t.nodes.iter().enumerate() {
            index.insert(n.id.as_str(), i as u32);
        }
        let mut nodes = Vec::with_capacity(t.nodes.len());
        for (i, n) in t.nodes.iter().enumerate() {
            let ns = format!("node `{}`", n.id);
            let (kind, slots) = match (n.kind, n.slots) {
                (NodeKindDoc::Compute, None) => (NodeKind::Compute, COMPUTE_SLOTS_DEFAULT),
                (NodeKindDoc::Compute, Some(x)) => (
                    NodeKind::Compute,
                    check::int_limit(
                        &ns,
                        "slots",
                        x,
                        1,
                        COMPUTE_SLOTS_MAX as u64,
                        "COMPUTE_SLOTS_MAX",
                    )
                    .map_err(|e| check::locate(e, "topology.nodes", i))?,
                ),
                (_, Some(_)) => {
                    return Err(InputError::new(
                        ns,
                        "slots",
                        "only compute nodes have slots",
                    ))
                }
                (NodeKindDoc::Switch, None) => (NodeKind::Switch, 0),
                (NodeKindDoc::Ps, None) => (NodeKind::Ps, 0),
            };
            nodes.push(Node { kind, slots });
        }
        check::count_limit(
            s,
            "topology.links",
            t.links.len(),
            0,
            GRAPH_LINKS_MAX,
            "GRAPH_LINKS_MAX",
        )?;
        let mut links = Vec::with_capacity(t.links.len());
        let mut seen = BTreeSet::new();
        for (i, l) in t.links.iter().enumerate() {
            let ls = format!("link {i} ({}-{})", l.a, l.b);
            let a = *index
                .get(l.a.as_str())
                .ok_or_else(|| InputError::new(&ls, "a", format!("unknown node `{}`", l.a)))?;
            let b = *index
                .get(l.b.as_str())
                .ok_or_else(|| InputError::new(&ls, "b", format!("unknown node `{}`", l.b)))?;
            if a == b {
                return Err(InputError::new(
                    &ls,
                    "b",
                    "a link must join two different nodes",
                ));
            }
            if !seen.insert((a.min(b), a.max(b))) {
                return Err(InputError::new(
                    &ls,
                    "b",
                    format!("duplicate link between `{}` and `{}`", l.a, l.b),
                ));
            }
            let capacity = check::positive(&ls, "capacity", l.capacity)?;
            let used = check::non_negative(&ls, "used", l.used)?;
            if used > capacity {
                return Err(InputError::new(
                    &ls,
                    "used",
                    format!("{used} exceeds the capacity {capacity}"),
                ));
            }
            links.push(Link {
                a,
                b,
                capacity,
                used,
            });
        }
        check::count_limit(s, "jobs", self.jobs.len(), 0, JOBS_MAX, "JOBS_MAX")?;
        check::ids("job", "jobs", self.jobs.iter().map(|j| j.id.as_str()))?;
        let mut jobs = Vec::with_capacity(self.jobs.len());
        for (i, j) in self.jobs.iter().enumerate() {
            let node = |id: &str| index.get(id).copied();
            jobs.push(
                j.validate(&node, &nodes)
                    .map_err(|e| check::locate(e, "jobs", i))?,
            );
        }
        let pso = match &self.pso {
            None => PsoParams::default(),
            Some(p) => {
                let w_min = check::non_negative("pso", "w_min", p.w_min)?;
                let w_max = check::non_negative("pso", "w_max", p.w_max)?;
                if w_max < w_min {
                    return Err(InputError::new(
                        "pso",
                        "w_max",
                        format!("must be >= w_min {w_min}, got {w_max}"),
                    ));
                }
                let particles = check::int("pso", "particles", p.particles, 1, 10_000)?;
                let iterations = check::int("pso", "iterations", p.iterations, 1, 1_000_000)?;
                let work = mlsched_kernel::route::pso_work(particles, iterations, self.jobs.len());
                let max = mlsched_kernel::limits::PSO_WORK_MAX;
                if work > max {
                    return Err(InputError::new(
                        s,
                        "pso.iterations",
                        format!(
                            "particles x iterations x jobs = {particles} x {iterations} x {} = {work} exceeds {} PSO_WORK_MAX = {max} (it bounds a run's time)",
                            self.jobs.len(),
                            check::LIMIT_WORDS
                        ),
                    ));
                }
                PsoParams {
                    particles,
                    iterations,
                    w_max,
                    w_min,
                    c1: check::non_negative("pso", "c1", p.c1)?,
                    c2: check::non_negative("pso", "c2", p.c2)?,
                }
            }
        };
        let load_factor = match self.load_factor {
            None => LOAD_FACTOR_DEFAULT,
            Some(f) => check::positive(s, "load_factor", f)?,
        };
        let beta = match self.beta {
            None => BETA_DEFAULT,
            Some(b) => check::non_negative(s, "beta", b)?,
        };
        Ok(RouteScenario {
            seed: check::seed(s, "seed", self.seed)?,
            aggregate: self.aggregate,
            topology: Topology { nodes, links },
            jobs,
            pso,
            load_factor,
            beta,
        })
    }
}

impl RouteJobDoc {
    /// Checks the job as an entry of the scenario's `jobs` (and of a `submit` event: the same
    /// checks and messages) and builds the kernel's job; `node` maps a node id to its index in
    /// `nodes`. Its id's uniqueness is the caller's check.
    pub fn validate(
        &self,
        node: &dyn Fn(&str) -> Option<u32>,
        nodes: &[Node],
    ) -> Result<RouteJob, InputError> {
        let js = &job(&self.id);
        let ps = node(&self.ps)
            .ok_or_else(|| InputError::new(js, "ps", format!("unknown node `{}`", self.ps)))?;
        if nodes.get(ps as usize).map(|n| n.kind) != Some(NodeKind::Ps) {
            return Err(InputError::new(
                js,
                "ps",
                format!("node `{}` is not a ps node", self.ps),
            ));
        }
        let release = check::int(js, "release", self.release, 0, u32::MAX as u64)?;
        let deadline = check::int(js, "deadline", self.deadline, 0, u32::MAX as u64)?;
        if deadline < release {
            return Err(InputError::new(
                js,
                "deadline",
                format!("{deadline} is before the release {release}"),
            ));
        }
        Ok(RouteJob {
            ps,
            workers: check::int_limit(
                js,
                "workers",
                self.workers,
                1,
                ROUTE_WORKERS_MAX as u64,
                "ROUTE_WORKERS_MAX",
            )?,
            release,
            duration: check::int(js, "duration", self.duration, 1, u32::MAX as u64)?,
            deadline,
            bandwidth: check::positive(js, "bandwidth", self.bandwidth)?,
        })
    }
}

/// The result document of kind `"route"`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RouteResult {
    /// "route".
    pub kind: String,
    /// Policy.
    pub policy: String,
    /// Totals.
    pub summary: RouteSummary,
    /// Per job, input order.
    pub jobs: Vec<RouteJobResult>,
    /// Who holds which server when, sorted and merged (`docs/formats.md`, "Occupancy";
    /// [`crate::occupancy`]).
    #[serde(default)]
    pub occupancy: Vec<crate::occupancy::Span>,
    /// Hash of the decision records.
    pub log_hash: String,
}

/// `summary`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RouteSummary {
    /// How many jobs ended with each status.
    #[serde(default)]
    pub statuses: crate::status::StatusCounts,
    /// J_v / J.
    pub deadline_violation_rate: f64,
    /// S_u.
    pub servers_used: u32,
    /// N-bar.
    pub avg_network_cost: f64,
    /// Eq. (11).
    pub cost: f64,
    /// Compute nodes never used (the paper's Fig. 2 "energy saving": servers that can sleep).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inactive_servers: Option<u32>,
    /// Jobs whose paths were aggregated (Algorithm 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aggregated_jobs: Option<u32>,
    /// Link-bandwidth units used (sum over jobs and links of the flows a link carries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_units: Option<u64>,
    /// The units the unaggregated CSRP paths would have used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_units_plain: Option<u64>,
}

/// One job.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RouteJobResult {
    /// Id.
    pub id: String,
    /// How the job ended (`docs/open-world.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<crate::status::JobStatus>,
    /// Start time.
    pub start: u32,
    /// Compute node ids (one per worker).
    pub compute_nodes: Vec<String>,
    /// Paths PS -> compute node, as node ids.
    pub paths: Vec<Vec<String>>,
    /// Aggregation node id (null without aggregation).
    pub aggregation_node: Option<String>,
    /// Finished by the deadline?
    pub deadline_met: bool,
    /// Network cost N.
    pub network_cost: f64,
    /// Link-bandwidth units this job uses (links carrying its flows, counted per flow).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_units: Option<u32>,
    /// Open world: the length of the run this row shows when it is not the job's `duration`
    /// (CSRP's re-planned rest after an interruption, `docs/open-world.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_length: Option<u32>,
    /// Open world: the runs an event cut before this row's run (or its last run, when the job
    /// was cancelled, lost, or never placed again), oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cut_runs: Vec<RouteCutRun>,
}

/// A run an open-world event cut (`route.interrupted`): the job held its compute nodes (one
/// per worker) and its PS node from `start` to `end`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RouteCutRun {
    /// Start of the run.
    pub start: u32,
    /// The event's time (the run held its slots until then).
    pub end: u32,
    /// Compute node ids (one per worker).
    pub compute_nodes: Vec<String>,
}
