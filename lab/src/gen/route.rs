//! Generator of kind `"route"` scenarios following Song et al. 2023, section 5.1.
//!
//! - **Cluster**: `--nodes` compute nodes (default 1500, as in the paper) with 8 slots each
//!   (the paper's default, after its ref. [17]) on a Jupiter-like Clos fabric (the paper uses
//!   Google's Jupiter): 20 hosts per ToR, 8 ToRs and 4 middle switches per block, 16 spines
//!   ([`ClosShape::for_hosts`]); one PS node per block. Host links C = 10, fabric links C = 40,
//!   background load BW_u = C U[0, 0.6) from the seed.
//! - **Jobs** (`--jobs`, default 9000; the paper sweeps 9000-24000): arrival and duration from
//!   the Alibaba PAI GPU trace `data/alibaba-openb-gpu-2023/openb_pod_list_default.csv`
//!   (`--trace` = that file or a folder holding it; default: the data folder found by
//!   [`crate::data`]). Pods are taken in creation order, cycling through the trace when more jobs are
//!   asked for (cycle c is shifted by c trace spans). Slot = 60 s: duration = ceil((deletion -
//!   creation) / 60 s) clamped to [1, 1440] slots; arrivals keep the trace's order and relative
//!   spacing, compressed into a window of 30 slots (so more jobs = a busier cluster, the
//!   x-axis of the paper's Figs. 1-4).
//! - **Mapping of trace columns** (ours; the paper only says "resource usage and computing
//!   information from the traces"): workers = max(num_gpu, ceil(cpu_milli / 8000)) clamped to
//!   [1, 16]; bandwidth per worker path = memory_mib / 16384 clamped to [0.1, 4] (link units).
//! - **Deadlines**: section 5.1 gives no formula; we use deadline = arrival + duration +
//!   floor(duration x U[0, 0.5)) from the seed (slack up to half the duration, so a queued job
//!   can miss it), PS = uniform among the PS nodes.
//! - PSO as the paper's Algorithm 1 defaults (30 particles, 100 iterations, w 0.9 -> 0.4,
//!   c1 = c2 = 2), f = 3 and beta = 4 (section 5.1), `aggregate: true` (Aggregated CSRP).
use super::GenOptions;
use mlsched_kernel::model::route::NodeKind;
use mlsched_kernel::rng::SplitMix64;
use mlsched_kernel::route::topo::{clos, ClosShape, TopoParams};
use mlsched_scenario::error::{InputError, RunError};
use mlsched_scenario::kinds::route::doc::{
    LinkDoc, NodeDoc, NodeKindDoc, PsoDoc, RouteDoc, RouteJobDoc, TopologyDoc,
};
use std::path::{Path, PathBuf};

/// Compute nodes without `--nodes`.
pub const NODES_DEFAULT: u32 = 1500;
/// Jobs without `--jobs`.
pub const JOBS_DEFAULT: u32 = 9000;
/// Seconds per slot.
const SLOT_SECONDS: f64 = 60.0;
/// Longest duration (slots).
const DURATION_MAX: u32 = 1440;
/// Window the arrivals are compressed into (slots).
const ARRIVAL_WINDOW: f64 = 30.0;
/// The trace file's name.
const TRACE_FILE: &str = "openb_pod_list_default.csv";

/// One pod of the trace: what the generator reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pod {
    /// creation_time (s).
    pub created: f64,
    /// deletion_time - creation_time (s).
    pub seconds: f64,
    /// num_gpu.
    pub gpus: u32,
    /// cpu_milli.
    pub cpu_milli: u32,
    /// memory_mib.
    pub memory_mib: u32,
}

/// Generates a `"route"` scenario.
pub fn generate(opts: &GenOptions) -> Result<RouteDoc, RunError> {
    let nodes = opts.nodes.unwrap_or(NODES_DEFAULT);
    let jobs = opts.jobs.unwrap_or(JOBS_DEFAULT);
    if nodes == 0 {
        return Err(RunError::Input(InputError::new(
            "option",
            "nodes",
            "must be at least 1",
        )));
    }
    let pods = read_pods(&trace_file(opts.trace.as_deref())?)?;
    Ok(build(opts.seed, nodes, jobs, &pods))
}

/// The scenario for `nodes` compute nodes and `jobs` jobs drawn from `pods` (pure: tests use it
/// with a handful of pods).
pub fn build(seed: u64, nodes: u32, jobs: u32, pods: &[Pod]) -> RouteDoc {
    let mut rng = SplitMix64::new(seed);
    let shape = ClosShape::for_hosts(nodes);
    let p = TopoParams {
        hosts: nodes,
        ps: shape.blocks,
        slots: 8,
        host_capacity: 10.0,
        fabric_capacity: 40.0,
        background: (0.0, 0.6),
    };
    let topo = clos(&shape, &p, &mut rng);
    let mut counters = [0u32; 3];
    let ids: Vec<String> = topo
        .nodes
        .iter()
        .map(|n| {
            let (k, pre) = match n.kind {
                NodeKind::Switch => (0, "sw"),
                NodeKind::Compute => (1, "c"),
                NodeKind::Ps => (2, "ps"),
            };
            counters[k] += 1;
            format!("{pre}{}", counters[k] - 1)
        })
        .collect();
    let node_docs = topo
        .nodes
        .iter()
        .zip(&ids)
        .map(|(n, id)| NodeDoc {
            id: id.clone(),
            kind: match n.kind {
                NodeKind::Switch => NodeKindDoc::Switch,
                NodeKind::Compute => NodeKindDoc::Compute,
                NodeKind::Ps => NodeKindDoc::Ps,
            },
            slots: (n.kind == NodeKind::Compute).then_some(n.slots as f64),
        })
        .collect();
    let links = topo
        .links
        .iter()
        .map(|l| LinkDoc {
            a: ids[l.a as usize].clone(),
            b: ids[l.b as usize].clone(),
            capacity: l.capacity,
            used: round6(l.used),
        })
        .collect();
    let ps_ids: Vec<&String> = topo
        .nodes
        .iter()
        .zip(&ids)
        .filter(|(n, _)| n.kind == NodeKind::Ps)
        .map(|(_, id)| id)
        .collect();
    RouteDoc {
        kind: "route".into(),
        seed: Some(seed as f64),
        aggregate: true,
        topology: TopologyDoc {
            nodes: node_docs,
            links,
        },
        jobs: job_docs(&mut rng, jobs, pods, &ps_ids),
        pso: Some(PsoDoc {
            particles: 30.0,
            iterations: 100.0,
            w_max: 0.9,
            w_min: 0.4,
            c1: 2.0,
            c2: 2.0,
        }),
        load_factor: Some(3.0),
        beta: Some(4.0),
    }
}

fn job_docs(rng: &mut SplitMix64, jobs: u32, pods: &[Pod], ps: &[&String]) -> Vec<RouteJobDoc> {
    if pods.is_empty() || ps.is_empty() {
        return Vec::new();
    }
    let first = pods.iter().map(|p| p.created).fold(f64::INFINITY, f64::min);
    let last = pods
        .iter()
        .map(|p| p.created)
        .fold(f64::NEG_INFINITY, f64::max);
    let span = (last - first).max(1.0);
    let cycles = (jobs as usize).div_ceil(pods.len()).max(1) as f64;
    let total = span * cycles;
    (0..jobs as usize)
        .map(|i| {
            let pod = &pods[i % pods.len()];
            let cycle = (i / pods.len()) as f64;
            let t = pod.created - first + cycle * span;
            let arrival = (t / total * ARRIVAL_WINDOW).floor() as u32;
            let duration = ((pod.seconds / SLOT_SECONDS).ceil() as u32).clamp(1, DURATION_MAX);
            let workers = pod.gpus.max(pod.cpu_milli.div_ceil(8000)).clamp(1, 16);
            let bandwidth = round6((pod.memory_mib as f64 / 16384.0).clamp(0.1, 4.0));
            let slack = (duration as f64 * 0.5 * rng.next_f64()).floor() as u32;
            let psi = rng.below(ps.len() as u64) as usize;
            RouteJobDoc {
                id: format!("j{i}"),
                ps: ps[psi].clone(),
                workers: workers as f64,
                release: arrival as f64,
                duration: duration as f64,
                deadline: (arrival + duration + slack) as f64,
                bandwidth,
            }
        })
        .collect()
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The trace file: `--trace` (file or folder), else in the data folder found by [`crate::data`].
fn trace_file(opt: Option<&Path>) -> Result<PathBuf, RunError> {
    let err = |p: &Path, why: &str| {
        RunError::Input(InputError::new(
            "option",
            "trace",
            format!("{}: {why}", p.display()),
        ))
    };
    if let Some(p) = opt {
        for c in [
            p.to_path_buf(),
            p.join(TRACE_FILE),
            p.join("alibaba-openb-gpu-2023").join(TRACE_FILE),
        ] {
            if c.is_file() {
                return Ok(c);
            }
        }
        return Err(err(p, "no openb_pod_list_default.csv there"));
    }
    let data = crate::data::locate(None, "trace", "--trace FILE")?;
    Ok(data.join("alibaba-openb-gpu-2023").join(TRACE_FILE))
}

/// Reads the openb pod list (header `name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,
/// pod_phase,creation_time,deletion_time,scheduled_time`).
pub fn read_pods(path: &Path) -> Result<Vec<Pod>, RunError> {
    let text = crate::read_trace(path).map_err(|e| {
        RunError::Input(InputError::new(
            "option",
            "trace",
            format!("{}: {e}", path.display()),
        ))
    })?;
    parse_pods(&text).map_err(|(line, why)| {
        RunError::Input(InputError::new(
            format!("file {} line {line}", path.display()),
            "",
            why,
        ))
    })
}

/// Parses the pod list text; errors carry the 1-based line.
pub fn parse_pods(text: &str) -> Result<Vec<Pod>, (usize, String)> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h.trim() == name)
            .ok_or((1, format!("missing column `{name}`")))
    };
    let (ci, cd, cg, cc, cm) = (
        col("creation_time")?,
        col("deletion_time")?,
        col("num_gpu")?,
        col("cpu_milli")?,
        col("memory_mib")?,
    );
    let mut out = Vec::new();
    for (i, l) in lines.enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split(',').collect();
        let num = |c: usize| -> Result<f64, (usize, String)> {
            f.get(c)
                .and_then(|s| s.trim().parse::<f64>().ok())
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or((i + 2, format!("bad number in column {}", c + 1)))
        };
        let created = num(ci)?;
        let deleted = num(cd)?;
        out.push(Pod {
            created,
            seconds: (deleted - created).max(0.0),
            gpus: num(cg)? as u32,
            cpu_milli: num(cc)? as u32,
            memory_mib: num(cm)? as u32,
        });
    }
    // The file is sorted by creation time; sort anyway (stable: ties keep file order).
    out.sort_by(|a, b| a.created.total_cmp(&b.created));
    Ok(out)
}
