//! `mlsched import pollux --workload FILE.csv`: a workload in the Pollux simulator's format
//! (`name,time,application,num_replicas,batch_size`, its `simulator/workloads/*.csv`) as a
//! scenario of kind `oasis` under the peer's physics (`docs/throughput.md`, "The peer's
//! physics"; `docs/peer.md`):
//!
//! - each distinct (application, global batch) is a model family whose speed-up table is
//!   s(g, n) = T(1, 1) / T(g, n), T the seconds per step of the global batch on g GPUs over n
//!   machines: the batch split into local batches, gradient accumulation above the largest
//!   measured local batch, step and sync times from the bundled measurements
//!   (`data/pollux-throughput/`) interpolated in the local batch (the peer's
//!   `Job.update_local_bsz` and `Application.get_throughput`);
//! - a job's work is the steps its application needs at that batch
//!   (`data/pollux-workloads/steps.csv`, derived from the peer's validation traces) x T(1, 1),
//!   in worker-slots; its requested GPUs are the scenario's `workers`;
//! - 60 s slots, the peer's 30 s restart charged on every start (the first included), and a
//!   horizon every job finishes in.
use super::read::{num, read_text, rows};
use super::{bad, Horizon, ImportReport};
use mlsched_scenario::doc::throughput::{ModelSpeedupDoc, ThroughputDoc};
use mlsched_scenario::error::{InputError, RunError};
use mlsched_scenario::kinds::oasis::doc::{OasisDoc, OasisJobDoc, SigmoidDoc, UtilityDoc};
use std::collections::BTreeMap;
use std::path::Path;

/// Header of a peer workload file.
pub const HEADER: &str = "name,time,application,num_replicas,batch_size";
/// Header of `data/pollux-workloads/steps.csv`.
pub const STEPS_HEADER: &str =
    "application,batch_size,steps,init_batch_size,max_batch_size,min_local_bsz,max_local_bsz";
/// G and N of the tables: the peer's cluster (16 machines of 4 GPUs) at most.
const TABLE_GPUS: u32 = 64;
const TABLE_NODES: u32 = 16;
/// Chunks per worker-slot: a job's progress is counted in 1/1000 of a GPU-slot (60 ms at
/// 60 s slots), fine against the peer's one-second completion times.
const CHUNKS_PER_SLOT: f64 = 1000.0;

/// The knobs of a workload import.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadOptions {
    /// Machines (default 16, the peer's).
    pub servers: usize,
    /// GPUs per machine (default 4, the peer's and the measurements').
    pub gpus_per_server: u32,
    /// Seconds per slot (default 60, the peer's scheduling interval).
    pub slot_seconds: f64,
    /// Restart time in seconds, charged on every start (default 30, the peer's).
    pub restart_seconds: f64,
}

impl Default for WorkloadOptions {
    fn default() -> Self {
        WorkloadOptions {
            servers: 16,
            gpus_per_server: 4,
            slot_seconds: 60.0,
            restart_seconds: 30.0,
        }
    }
}

/// One workload row.
#[derive(Clone, Debug, PartialEq)]
pub struct WorkloadJob {
    /// `name`.
    pub name: String,
    /// `time`: submission, seconds from the start.
    pub time: f64,
    /// `application`.
    pub app: String,
    /// `num_replicas`: the GPUs the job asks for.
    pub replicas: u32,
    /// `batch_size`: the fixed global batch.
    pub batch: u32,
}

/// Reads a workload file; a bad row is an error naming the row and the column.
pub fn read_workload(path: &Path) -> Result<Vec<WorkloadJob>, InputError> {
    let text = read_text(path)?;
    let mut out = Vec::new();
    for (row, f) in rows(path, &text, Some(HEADER))? {
        let name = f.first().map(|s| s.trim()).unwrap_or("");
        if name.is_empty() {
            return Err(bad(path, row, "name", "must not be empty"));
        }
        let app = f.get(2).map(|s| s.trim()).unwrap_or("");
        if !super::pollux::MODELS.contains(&app) {
            let known = super::pollux::MODELS.join(", ");
            return Err(bad(
                path,
                row,
                "application",
                format!("unknown application `{app}`; expected one of {known}"),
            ));
        }
        let whole = |col: usize, field: &str| -> Result<u32, InputError> {
            let v = num(path, row, &f, col, field)?;
            if v.fract() != 0.0 || v < 1.0 || v > u32::MAX as f64 {
                return Err(bad(
                    path,
                    row,
                    field,
                    format!("must be a whole number >= 1, got {v}"),
                ));
            }
            Ok(v as u32)
        };
        out.push(WorkloadJob {
            name: name.to_string(),
            time: num(path, row, &f, 1, "time")?,
            app: app.to_string(),
            replicas: whole(3, "num_replicas")?,
            batch: whole(4, "batch_size")?,
        });
    }
    Ok(out)
}

/// An application's batch limits (the peer's `Application` attributes).
#[derive(Clone, Copy, Debug, PartialEq)]
struct AppLimits {
    init: f64,
    max_batch: f64,
    min_local: f64,
    max_local: f64,
}

/// Steps to completion per (application, batch) and each application's limits.
type Steps = (BTreeMap<(String, u32), f64>, BTreeMap<String, AppLimits>);

fn read_steps(path: &Path) -> Result<Steps, InputError> {
    let text = read_text(path)?;
    let (mut steps, mut apps) = (BTreeMap::new(), BTreeMap::new());
    for (row, f) in rows(path, &text, Some(STEPS_HEADER))? {
        let app = f.first().map(|s| s.trim().to_string()).unwrap_or_default();
        let v = |c: usize, n: &str| num(path, row, &f, c, n);
        steps.insert((app.clone(), v(1, "batch_size")? as u32), v(2, "steps")?);
        let lim = AppLimits {
            init: v(3, "init_batch_size")?,
            max_batch: v(4, "max_batch_size")?,
            min_local: v(5, "min_local_bsz")?.max(1.0),
            max_local: v(6, "max_local_bsz")?.max(1.0),
        };
        apps.insert(app, lim);
    }
    Ok((steps, apps))
}

/// Steps of `app` at global batch `b`: the row, or linear between the batches around it
/// (the peer interpolates its validation traces between validated batch sizes).
fn steps_at(s: &Steps, app: &str, b: u32) -> Option<f64> {
    if let Some(v) = s.0.get(&(app.to_string(), b)) {
        return Some(*v);
    }
    let below = s.0.range(..(app.to_string(), b)).next_back();
    let above = s.0.range((app.to_string(), b)..).next();
    match (below, above) {
        (Some(((a1, b1), v1)), Some(((a2, b2), v2))) if a1 == app && a2 == app => {
            let w = (b - b1) as f64 / (b2 - b1) as f64;
            Some(v1 + (v2 - v1) * w)
        }
        _ => None,
    }
}

/// One measured point: (local batch, step seconds, sync seconds).
type Point = (f64, f64, f64);

/// Measured points per (machines, GPUs), means over placements of that shape.
#[derive(Clone, Debug, Default)]
struct Points(BTreeMap<(u32, u32), Vec<Point>>);

fn read_points(dir: &Path) -> Result<Points, InputError> {
    let mut acc: BTreeMap<(u32, u32, u64), (f64, f64, f64)> = BTreeMap::new();
    let mut add = |n: u32, g: u32, b: f64, st: f64, sy: f64| {
        let e = acc.entry((n, g, b.to_bits())).or_insert((0.0, 0.0, 0.0));
        *e = (e.0 + st, e.1 + sy, e.2 + 1.0);
    };
    let p = dir.join("placements.csv");
    let text = read_text(&p)?;
    for (row, f) in rows(&p, &text, Some("placement,local_bsz,step_time,sync_time"))? {
        let digits = f.first().map(|s| s.trim()).unwrap_or("");
        let per: Vec<u32> = digits.chars().filter_map(|c| c.to_digit(10)).collect();
        if per.is_empty() || per.len() != digits.len() || per.contains(&0) {
            return Err(bad(
                &p,
                row,
                "placement",
                format!("expected digits 1-9, got `{digits}`"),
            ));
        }
        let (b, st, sy) = (
            num(&p, row, &f, 1, "local_bsz")?,
            num(&p, row, &f, 2, "step_time")?,
            num(&p, row, &f, 3, "sync_time")?,
        );
        add(per.len() as u32, per.iter().sum(), b, st, sy);
    }
    let s = dir.join("scalability.csv");
    let text = read_text(&s)?;
    let h = "num_nodes,num_replicas,local_bsz,step_time,sync_time";
    for (row, f) in rows(&s, &text, Some(h))? {
        let v = |c: usize, n: &str| num(&s, row, &f, c, n);
        add(
            v(0, "num_nodes")? as u32,
            v(1, "num_replicas")? as u32,
            v(2, "local_bsz")?,
            v(3, "step_time")?,
            v(4, "sync_time")?,
        );
    }
    let mut pts = Points::default();
    for ((n, g, b), (st, sy, k)) in acc {
        pts.0
            .entry((n, g))
            .or_default()
            .push((f64::from_bits(b), st / k, sy / k));
    }
    for v in pts.0.values_mut() {
        v.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    Ok(pts)
}

/// Linear interpolation of (x, y) pairs at x, clamped to the ends.
fn lerp<const K: usize>(pts: &[(f64, [f64; K])], x: f64) -> [f64; K] {
    let (first, last) = (pts[0], pts[pts.len() - 1]);
    if x <= first.0 {
        return first.1;
    }
    if x >= last.0 {
        return last.1;
    }
    let k = pts.partition_point(|p| p.0 <= x);
    let (a, b) = (pts[k - 1], pts[k]);
    let w = (x - a.0) / (b.0 - a.0);
    core::array::from_fn(|i| a.1[i] + (b.1[i] - a.1[i]) * w)
}

impl Points {
    /// (step, sync) seconds on g GPUs over n machines at local batch b: the measured (n, g)
    /// interpolated in b; an unmeasured g linear between the measured GPU counts of row n; an
    /// unmeasured n linear between the measured rows around it (ends clamped). The peer
    /// interpolates the same points with scipy's `LinearNDInterpolator` (`docs/peer.md`).
    fn at(&self, n: u32, g: u32, b: f64) -> [f64; 2] {
        let rows: Vec<u32> = {
            let mut r: Vec<u32> = self.0.keys().map(|k| k.0).collect();
            r.dedup();
            r
        };
        let row = |n: u32| -> [f64; 2] {
            let pts: Vec<(f64, [f64; 2])> = self
                .0
                .range((n, 0)..=(n, u32::MAX))
                .map(|(k, v)| (k.1 as f64, self.in_batch(v, b)))
                .collect();
            lerp(&pts, g as f64)
        };
        if rows.contains(&n) {
            return row(n);
        }
        let pts: Vec<(f64, [f64; 2])> = rows.iter().map(|&r| (r as f64, row(r))).collect();
        lerp(&pts, n as f64)
    }

    fn in_batch(&self, v: &[Point], b: f64) -> [f64; 2] {
        let pts: Vec<(f64, [f64; 2])> = v.iter().map(|p| (p.0, [p.1, p.2])).collect();
        lerp(&pts, b)
    }
}

/// Seconds per step of global batch `batch` on g GPUs over n machines (the peer's
/// `update_local_bsz`: local batch ceil(B / g), accumulation steps above the largest local
/// batch, at least one on a single GPU above the initial batch, the atomic batch capped by
/// the largest batch; a step is step + accum x (step - sync)).
fn step_seconds(p: &Points, lim: &AppLimits, batch: f64, g: u32, n: u32) -> f64 {
    let local = (batch / g as f64 - 1e-8).ceil();
    let mut accum = (local / lim.max_local - 1e-8).ceil() - 1.0;
    if g == 1 && batch > lim.init {
        accum = accum.max(1.0);
    }
    let accum = accum.max(0.0);
    let atomic = (local / (accum + 1.0) - 1e-8).ceil();
    let count = g as f64 * (accum + 1.0);
    let atomic = atomic.min((lim.max_batch / count).floor()).max(1.0);
    let [st, sy] = p.at(n, g, atomic);
    st + accum * (st - sy)
}

/// One family: (application, batch), its table and T(1, 1).
struct Family {
    name: String,
    speedup: Vec<Vec<f64>>,
    t1: f64,
}

fn family(p: &Points, lim: &AppLimits, app: &str, batch: u32) -> Family {
    let b = batch as f64;
    let t1 = step_seconds(p, lim, b, 1, 1);
    let speedup = (1..=TABLE_NODES)
        .map(|n| {
            (1..=TABLE_GPUS)
                .map(|g| {
                    if g < n {
                        0.0
                    } else {
                        round6(t1 / step_seconds(p, lim, b, g, n))
                    }
                })
                .collect()
        })
        .collect();
    Family {
        name: format!("{app}-{batch}"),
        speedup,
        t1,
    }
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// The scenario of `jobs` under the peer's physics, and what the import chose.
pub fn to_scenario(
    jobs: &[WorkloadJob],
    data_dir: &Path,
    o: &WorkloadOptions,
) -> Result<(OasisDoc, ImportReport), RunError> {
    let opt = |f: &str, p: &str| -> RunError { InputError::new("option", f, p.to_string()).into() };
    if o.servers == 0 || o.servers > mlsched_kernel::limits::SERVERS_MAX {
        return Err(opt("servers", "must be 1 ..= SERVERS_MAX"));
    }
    if o.gpus_per_server == 0 {
        return Err(opt("gpus-per-server", "must be at least 1"));
    }
    if !(o.slot_seconds > 0.0 && o.slot_seconds.is_finite()) {
        return Err(opt("slot-seconds", "must be > 0"));
    }
    if jobs.is_empty() {
        return Err(opt("workload", "the workload has no job"));
    }
    let gpus = o.servers as u32 * o.gpus_per_server;
    let steps_path = data_dir.join("pollux-workloads/steps.csv");
    let steps = read_steps(&steps_path)?;
    let mut points: BTreeMap<String, Points> = BTreeMap::new();
    let mut fams: Vec<Family> = Vec::new();
    let mut index: BTreeMap<(String, u32), usize> = BTreeMap::new();
    let mut out = Vec::new();
    let (mut last, mut serial) = (0u32, 0.0f64);
    for (i, j) in jobs.iter().enumerate() {
        let row = i + 2;
        let lim = *steps
            .1
            .get(&j.app)
            .ok_or_else(|| opt("workload", "no steps for the application"))?;
        let n_steps = steps_at(&steps, &j.app, j.batch).ok_or_else(|| {
            InputError::new(
                format!("workload row {row}"),
                "batch_size",
                format!(
                    "{} is outside the batch sizes {} was validated at",
                    j.batch, j.app
                ),
            )
        })?;
        if j.replicas > gpus {
            return Err(InputError::new(
                format!("workload row {row}"),
                "num_replicas",
                format!("{} GPUs asked, the cluster has {gpus}", j.replicas),
            )
            .into());
        }
        if !points.contains_key(&j.app) {
            let p = read_points(&data_dir.join("pollux-throughput").join(&j.app))?;
            points.insert(j.app.clone(), p);
        }
        let key = (j.app.clone(), j.batch);
        let f = *index.entry(key).or_insert_with(|| {
            fams.push(family(&points[&j.app], &lim, &j.app, j.batch));
            fams.len() - 1
        });
        // Worker-slots of work: the steps at one GPU's speed.
        let work = n_steps * fams[f].t1 / o.slot_seconds;
        // Optimus may grow a job to batch / smallest local batch workers (the peer's
        // max_replicas; ncf runs on one), never fewer than it asks for.
        let most = if j.app == "ncf" {
            1
        } else {
            (j.batch as f64 / lim.min_local) as u32
        };
        let n = most.min(gpus).max(j.replicas).max(1);
        let epochs = (work * CHUNKS_PER_SLOT / n as f64).ceil().max(1.0);
        let m = work / (epochs * n as f64);
        // The peer sees a job at its first scheduling event at or after its submission
        // (the first one at one interval).
        let a = ((j.time / o.slot_seconds).ceil() as u32).max(1);
        last = last.max(a);
        let slowest = fams[f]
            .speedup
            .iter()
            .flatten()
            .filter(|s| **s > 0.0)
            .fold(1.0f64, |a, &b| a.min(b));
        serial += (work / slowest).ceil() + (o.restart_seconds / o.slot_seconds).ceil() + 1.0;
        out.push(OasisJobDoc {
            id: j.name.clone(),
            arrival: a as f64,
            epochs,
            chunks: n as f64,
            minibatches_per_chunk: 1.0,
            minibatch_time: m,
            comm_time: 0.0,
            // One PS of no size per job: the peer has no parameter servers.
            worker_bw: 1e-6,
            ps_bw: 1.0,
            worker_demand: vec![1.0, 0.0],
            ps_demand: vec![0.0, 1.0],
            utility: UtilityDoc::Sigmoid(SigmoidDoc {
                priority: 1.0,
                decay: 0.0,
                target: 0.0,
            }),
            model: Some(fams[f].name.clone()),
            workers: Some(j.replicas as f64),
        });
    }
    // Every job run one after another at its slowest speed still ends in this horizon.
    let slots = (last as f64 + serial + 1.0).min(mlsched_kernel::limits::SLOTS_MAX as f64) as u32;
    let longest = out
        .iter()
        .map(|j| j.epochs * j.chunks * j.minibatch_time)
        .fold(0.0, f64::max);
    let doc = OasisDoc {
        kind: "oasis".into(),
        slots: slots as f64,
        // A "ps" resource only for the one placeholder PS per job the model requires.
        resources: vec!["gpu".into(), "ps".into()],
        worker_servers: vec![vec![o.gpus_per_server as f64, 0.0]; o.servers].into(),
        ps_servers: vec![vec![0.0, jobs.len() as f64]].into(),
        prices: None,
        restart_slots: Some(o.restart_seconds / o.slot_seconds),
        restart_first: Some(true),
        slot_seconds: Some(o.slot_seconds),
        dorm_event_nodes: None,
        jobs: out,
        throughput: Some(ThroughputDoc {
            source: Some(
                "the Pollux simulator's physics: step times from data/pollux-throughput at each \
                 job's fixed global batch with gradient accumulation, steps from \
                 data/pollux-workloads/steps.csv; docs/throughput.md"
                    .into(),
            ),
            models: fams
                .into_iter()
                .map(|f| ModelSpeedupDoc {
                    name: f.name,
                    speedup: f.speedup,
                })
                .collect(),
        }),
    };
    let report = ImportReport {
        jobs: jobs.len(),
        trace_jobs: jobs.len(),
        worker_servers: o.servers,
        gpus: gpus as f64,
        ps_servers: 1,
        ps_default: false,
        horizon: Horizon {
            slot_seconds: o.slot_seconds,
            slots,
            last_arrival: last,
        },
        longest_job_slots: (longest * 100.0).round() / 100.0,
        capped: 0,
        binding: None,
        unfinishable: Vec::new(),
    };
    Ok((doc, report))
}

/// `import pollux --workload FILE`: the scenario value and the report (kind `oasis` only;
/// `--servers`, `--gpus-per-server`, `--slot-seconds` (0: 60) and `--restart-seconds` apply).
pub fn import(
    source: super::Source,
    path: &Path,
    opts: &super::ImportOptions,
) -> Result<(serde_json::Value, ImportReport), RunError> {
    if source != super::Source::Pollux {
        return Err(
            InputError::new("option", "workload", "only source pollux reads --workload").into(),
        );
    }
    if !super::target::of(&opts.kind)?.workload {
        let kinds = super::target::workload_kinds();
        return Err(
            InputError::new("option", "kind", format!("--workload builds kind {kinds}")).into(),
        );
    }
    let o = WorkloadOptions {
        servers: opts.servers,
        gpus_per_server: opts.gpus_per_server,
        slot_seconds: if opts.slot_seconds > 0.0 {
            opts.slot_seconds
        } else {
            60.0
        },
        restart_seconds: opts.restart_seconds,
    };
    let jobs = read_workload(path)?;
    let (doc, report) = to_scenario(&jobs, &opts.data_dir, &o)?;
    let v = serde_json::to_value(&doc).map_err(|e| RunError::runtime(e.to_string()))?;
    Ok((v, report))
}
