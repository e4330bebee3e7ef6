//! The native part `mlsched._native` of the Python package `mlsched` (the Python API, its
//! docstrings and type stubs are in `python/mlsched/`). Everything crosses as JSON text or
//! bytes; long runs release the GIL.
#![forbid(unsafe_code)]

use mlsched_kernel::api::Event;
use mlsched_kernel::logfile::LogFileWriter;
use mlsched_lab::compare;
use mlsched_lab::gen::{self, GenOptions};
use mlsched_lab::import::{self, ImportOptions, Source};
use mlsched_scenario::engine::Engine as Inner;
use mlsched_scenario::event::{self, Feeder, HostEvent};
use mlsched_scenario::replay;
use mlsched_scenario::run::{self, RunOptions};
use mlsched_scenario::RunError;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

/// `ValueError` for invalid input (the CLI's exit code 2), `RuntimeError` otherwise.
fn err(e: RunError) -> PyErr {
    match e {
        RunError::Input(i) => PyValueError::new_err(i.to_string()),
        other => PyRuntimeError::new_err(other.to_string()),
    }
}

fn opts(policy: Option<String>, all_categories: bool) -> RunOptions {
    RunOptions {
        policy: policy.filter(|p| !p.is_empty()),
        all_categories,
    }
}

/// run_json(scenario, policy=None, all_categories=False) -> str
#[pyfunction]
#[pyo3(signature = (scenario, policy=None, all_categories=false))]
fn run_json(
    py: Python<'_>,
    scenario: String,
    policy: Option<String>,
    all_categories: bool,
) -> PyResult<String> {
    let o = opts(policy, all_categories);
    py.allow_threads(|| run::run_json(&scenario, &o))
        .map_err(err)
}

/// Host events from their JSON texts (one event per text, `at` never going back); an error
/// names the event as the engine does (`event #k`, from 1).
fn host_events(texts: &[String]) -> Result<Vec<HostEvent>, RunError> {
    let mut out: Vec<HostEvent> = Vec::with_capacity(texts.len());
    for (k, text) in texts.iter().enumerate() {
        let numbered = |mut e: mlsched_scenario::InputError| {
            e.subject = format!("event #{}", k + 1);
            RunError::Input(e)
        };
        let ev = event::parse(text).map_err(numbered)?;
        if let Some(last) = out.last().filter(|l| ev.at() < l.at()) {
            let why = format!(
                "slot {} is before the previous event's slot {}",
                ev.at(),
                last.at()
            );
            return Err(numbered(mlsched_scenario::InputError::new(
                "event", "at", why,
            )));
        }
        out.push(ev);
    }
    Ok(out)
}

/// run_events_json(scenario, events, policy=None, all_categories=False) -> str: the bytes of
/// `mlsched run --events` (`events`: one JSON text per host event).
#[pyfunction]
#[pyo3(signature = (scenario, events, policy=None, all_categories=false))]
fn run_events_json(
    py: Python<'_>,
    scenario: String,
    events: Vec<String>,
    policy: Option<String>,
    all_categories: bool,
) -> PyResult<String> {
    let o = opts(policy, all_categories);
    py.allow_threads(|| {
        let evs = host_events(&events)?;
        let mut e = Inner::new(&scenario, &o)?;
        Ok(e.run_events(&evs, &mut |_| {})?.to_json())
    })
    .map_err(err)
}

/// record_events(scenario, events, policy=None, all_categories=False) -> (str, bytes): the
/// result of `mlsched run --events` and the bytes of its `--log` (a host-driven log).
#[pyfunction]
#[pyo3(signature = (scenario, events, policy=None, all_categories=false))]
fn record_events<'py>(
    py: Python<'py>,
    scenario: String,
    events: Vec<String>,
    policy: Option<String>,
    all_categories: bool,
) -> PyResult<(String, Bound<'py, PyBytes>)> {
    let o = opts(policy, all_categories);
    let (json, bytes) = py
        .allow_threads(|| {
            let evs = host_events(&events)?;
            let (result, bytes) = replay::record_events(&scenario, &o, &evs, &mut |_| {})?;
            Ok((result.to_json(), bytes))
        })
        .map_err(err)?;
    Ok((json, PyBytes::new(py, &bytes)))
}

/// replay(log) -> (records, events, log_hash): `mlsched replay` of a decision log's bytes; a
/// log that does not replay identically (or is damaged) raises `ValueError` saying where.
#[pyfunction]
fn replay_log(py: Python<'_>, log: Vec<u8>) -> PyResult<(u64, u64, String)> {
    py.allow_threads(|| replay::replay(&log))
        .map(|r| (r.records, r.events, r.log_hash))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// policies(kind) -> list[str]
#[pyfunction]
fn policies(kind: &str) -> PyResult<Vec<&'static str>> {
    let p = run::policies(kind);
    if p.is_empty() {
        return Err(PyValueError::new_err(format!(
            "option, field `kind`: unknown kind `{kind}`; expected one of {}",
            mlsched_scenario::doc::KINDS.join(", ")
        )));
    }
    Ok(p.to_vec())
}

/// scenarios() -> list[tuple[str, str]]: the bundled scenarios (name, JSON text).
#[pyfunction]
fn scenarios() -> Vec<(&'static str, &'static str)> {
    mlsched_scenario::bundled::SCENARIOS.to_vec()
}

/// gen_json(kind, seed, jobs, nodes, slots, trace) -> str
#[pyfunction]
#[pyo3(signature = (kind, seed=1, jobs=None, nodes=None, slots=None, trace=None))]
fn gen_json(
    py: Python<'_>,
    kind: String,
    seed: u64,
    jobs: Option<u32>,
    nodes: Option<u32>,
    slots: Option<u32>,
    trace: Option<PathBuf>,
) -> PyResult<String> {
    let o = GenOptions {
        seed,
        jobs,
        nodes,
        trace,
        slots,
    };
    py.allow_threads(|| gen::generate_json(&kind, &o))
        .map_err(err)
}

/// import_json(source, kind, data_dir, **mapping) -> str
#[pyfunction]
#[pyo3(signature = (source, kind="oasis".to_string(), data_dir=None, jobs=None, start=Some(0),
    seed=None, slots=None, slot_seconds=None, servers=None, ps_servers=None, max_scale=None,
    comm_ratio=None, target_factor=None, epochs=None, server_bw=None, worker_bw=None,
    ps_bw=None, jobs_from=None, architecture=None, restart_seconds=None, throughput=None))]
#[allow(clippy::too_many_arguments)]
fn import_json(
    py: Python<'_>,
    source: &str,
    kind: String,
    data_dir: Option<PathBuf>,
    jobs: Option<usize>,
    start: Option<usize>,
    seed: Option<u64>,
    slots: Option<u32>,
    slot_seconds: Option<f64>,
    servers: Option<usize>,
    ps_servers: Option<usize>,
    max_scale: Option<u32>,
    comm_ratio: Option<f64>,
    target_factor: Option<f64>,
    epochs: Option<u32>,
    server_bw: Option<f64>,
    worker_bw: Option<f64>,
    ps_bw: Option<f64>,
    jobs_from: Option<&str>,
    architecture: Option<String>,
    restart_seconds: Option<f64>,
    throughput: Option<&str>,
) -> PyResult<String> {
    let src = Source::parse(source).map_err(|e| err(e.into()))?;
    let throughput = match throughput {
        Some(t) => import::pollux::ThroughputModel::parse(t).map_err(|e| err(e.into()))?,
        None => ImportOptions::default().throughput,
    };
    // As `mlsched import`: slots absent (0) lets the importer choose the horizon (sized from
    // slot_seconds > 0, 200 without it, or for source pollux one its jobs can finish in,
    // docs/throughput.md); ps_servers absent takes every CPU-only node with servers "all", else the
    // import's default rule (K = ceil(H / 4), `mlsched_lab::import::PS_AUTO`).
    let slots = match slots {
        Some(0) => {
            return Err(err(mlsched_scenario::InputError::new(
                "option",
                "slots",
                "must be at least 1",
            )
            .into()))
        }
        Some(t) => t,
        None => 0,
    };
    let d = ImportOptions::default();
    let data_dir = match data_dir {
        Some(p) => p,
        None => mlsched_lab::data::data_dir(None).map_err(|e| err(e.into()))?,
    };
    let jobs_from = match jobs_from {
        Some(s) => Source::parse(s).map_err(|e| err(e.into()))?,
        None => d.jobs_from,
    };
    let o = ImportOptions {
        kind,
        data_dir,
        jobs: jobs.unwrap_or(d.jobs),
        start,
        seed: seed.unwrap_or(d.seed),
        slots,
        slot_seconds: slot_seconds.unwrap_or(d.slot_seconds),
        servers: servers.unwrap_or(d.servers),
        ps_servers: match (ps_servers, servers) {
            (Some(k), _) => k,
            (None, Some(import::ALL)) => import::ALL,
            (None, _) => d.ps_servers,
        },
        max_scale: max_scale.unwrap_or(d.max_scale),
        comm_ratio: comm_ratio.unwrap_or(d.comm_ratio),
        target_factor: target_factor.unwrap_or(d.target_factor),
        epochs: epochs.unwrap_or(d.epochs),
        server_bw: server_bw.unwrap_or(d.server_bw),
        worker_bw: worker_bw.unwrap_or(d.worker_bw),
        ps_bw: ps_bw.unwrap_or(d.ps_bw),
        jobs_from,
        architecture: architecture.unwrap_or(d.architecture.clone()),
        restart_seconds: restart_seconds.unwrap_or(d.restart_seconds),
        throughput,
        workload: None,
        gpus_per_server: d.gpus_per_server,
    };
    py.allow_threads(|| import::import_json(src, &o))
        .map_err(err)
}

/// compare_json(scenario, policies=None, timing=False) -> str: a JSON array of reports.
#[pyfunction]
#[pyo3(signature = (scenario, policies=None, timing=false))]
fn compare_json(
    py: Python<'_>,
    scenario: String,
    policies: Option<Vec<String>>,
    timing: bool,
) -> PyResult<String> {
    py.allow_threads(|| {
        let doc = compare::parse(&scenario)?;
        let list = policies.map(|p| p.join(","));
        let names = compare::parse_policies(&doc, list.as_deref())?;
        let mut reports = compare::compare(&doc, &names);
        if !timing {
            reports.iter_mut().for_each(|r| r.timing = None);
        }
        serde_json::to_string(&reports).map_err(|e| RunError::runtime(e.to_string()))
    })
    .map_err(err)
}

/// The engine of one scenario run (`mlsched_scenario::engine::Engine`); see `mlsched.Engine`.
#[pyclass(module = "mlsched._native", unsendable)]
struct Engine {
    inner: Inner,
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (scenario, policy=None, all_categories=false))]
    fn new(scenario: String, policy: Option<String>, all_categories: bool) -> PyResult<Self> {
        let inner = Inner::new(&scenario, &opts(policy, all_categories)).map_err(err)?;
        Ok(Engine { inner })
    }

    #[staticmethod]
    #[pyo3(signature = (scenario, snapshot, policy=None, all_categories=false))]
    fn restore(
        scenario: String,
        snapshot: Vec<u8>,
        policy: Option<String>,
        all_categories: bool,
    ) -> PyResult<Self> {
        let o = opts(policy, all_categories);
        let inner = Inner::restore(&scenario, &o, Default::default(), &snapshot).map_err(err)?;
        Ok(Engine { inner })
    }

    /// feed(event, job, slot) -> str: event 0 arrived, 1 slot advanced, 2 finished.
    fn feed(&mut self, event: u32, job: u32, slot: u32) -> PyResult<String> {
        let ev = match event {
            0 => Event::JobArrived(job),
            1 => Event::SlotAdvanced,
            2 => Event::JobFinished(job),
            other => {
                return Err(PyValueError::new_err(format!(
                    "argument, field `event`: unknown event code {other}"
                )))
            }
        };
        let d = self.inner.feed(slot, ev).map_err(err)?;
        serde_json::to_string(&d).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    /// event(text) -> str: one host event (JSON text, `docs/open-world.md`) applied as the
    /// service does (the scheduler's wake-ups before its slot first); the decisions.
    fn event(&mut self, text: &str) -> PyResult<String> {
        let ev = event::parse(text).map_err(|e| err(e.into()))?;
        let mut d = Vec::new();
        Feeder::new(&self.inner)
            .apply(&mut self.inner, &ev, Some(&mut |x| d.push(x)))
            .map_err(err)?;
        serde_json::to_string(&d).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    fn server_ids(&self) -> Vec<String> {
        self.inner.server_ids().to_vec()
    }

    fn status(&self, job: &str) -> PyResult<Option<String>> {
        let j = self.inner.job_index(job).ok_or_else(|| {
            PyValueError::new_err(format!("argument, field `job`: no job `{job}`"))
        })?;
        Ok(self.inner.status(j).map(|s| s.name().to_string()))
    }

    fn next_wakeup(&self) -> Option<u32> {
        self.inner.next_wakeup()
    }

    fn now(&self) -> Option<u32> {
        self.inner.now()
    }

    fn run_to_end(&mut self) -> PyResult<String> {
        Ok(self.inner.run_to_end(&mut |_| {}).map_err(err)?.to_json())
    }

    fn finish(&mut self) -> PyResult<String> {
        Ok(self.inner.finish(&mut |_| {}).map_err(err)?.to_json())
    }

    fn snapshot<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.snapshot())
    }

    fn kind(&self) -> &'static str {
        self.inner.kind()
    }

    fn policy(&self) -> String {
        self.inner.policy().to_string()
    }

    fn job_ids(&self) -> Vec<String> {
        (0..self.inner.jobs())
            .filter_map(|j| self.inner.job_id(j).map(str::to_string))
            .collect()
    }

    fn arrival_order(&self) -> Vec<(u32, u32)> {
        self.inner.arrival_order().to_vec()
    }
}

/// An engine fed host events one at a time (as the service feeds it) that writes the
/// host-driven decision log of `mlsched run --events --log` (`mlsched.LoggedEngine`).
#[pyclass(module = "mlsched._native", unsendable)]
struct LoggedEngine {
    /// `None` once finished (the log's bytes were taken).
    inner: Option<Inner<LogFileWriter>>,
}

impl LoggedEngine {
    fn engine(&mut self) -> PyResult<&mut Inner<LogFileWriter>> {
        self.inner
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("argument, field `event`: the run has finished"))
    }
}

#[pymethods]
impl LoggedEngine {
    #[new]
    #[pyo3(signature = (scenario, policy=None, all_categories=false))]
    fn new(scenario: String, policy: Option<String>, all_categories: bool) -> PyResult<Self> {
        let o = opts(policy, all_categories);
        let w = replay::host_log_writer(&scenario, &o).map_err(err)?;
        let inner = Inner::with_sink(&scenario, &o, w).map_err(err)?;
        Ok(LoggedEngine { inner: Some(inner) })
    }

    /// event(text) -> str: as `Engine.event`.
    fn event(&mut self, text: &str) -> PyResult<String> {
        let ev = event::parse(text).map_err(|e| err(e.into()))?;
        let e = self.engine()?;
        let mut d = Vec::new();
        Feeder::new(e)
            .apply(e, &ev, Some(&mut |x| d.push(x)))
            .map_err(err)?;
        serde_json::to_string(&d).map_err(|e| PyRuntimeError::new_err(e.to_string()))
    }

    fn server_ids(&mut self) -> PyResult<Vec<String>> {
        Ok(self.engine()?.server_ids().to_vec())
    }

    fn job_ids(&mut self) -> PyResult<Vec<String>> {
        let e = self.engine()?;
        Ok((0..e.jobs())
            .filter_map(|j| e.job_id(j).map(str::to_string))
            .collect())
    }

    fn status(&mut self, job: &str) -> PyResult<Option<String>> {
        let e = self.engine()?;
        let j = e.job_index(job).ok_or_else(|| {
            PyValueError::new_err(format!("argument, field `job`: no job `{job}`"))
        })?;
        Ok(e.status(j).map(|s| s.name().to_string()))
    }

    fn next_wakeup(&mut self) -> PyResult<Option<u32>> {
        Ok(self.engine()?.next_wakeup())
    }

    fn now(&mut self) -> PyResult<Option<u32>> {
        Ok(self.engine()?.now())
    }

    /// run_to_end() -> (str, bytes, str): every wake-up left, then the end of the run: the
    /// result JSON, the log's bytes and the decisions of the wake-ups (JSON array).
    fn run_to_end<'py>(
        &mut self,
        py: Python<'py>,
    ) -> PyResult<(String, Bound<'py, PyBytes>, String)> {
        let mut e = self.inner.take().ok_or_else(|| {
            PyValueError::new_err("argument, field `event`: the run has finished")
        })?;
        let mut d = Vec::new();
        let result = e.run_to_end(&mut |x| d.push(x)).map_err(err)?;
        let decisions =
            serde_json::to_string(&d).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        let bytes = e.into_sink().finish();
        Ok((result.to_json(), PyBytes::new(py, &bytes), decisions))
    }
}

/// The native module of `mlsched`.
/// As the `mlsched` CLI: large arrays (the OASiS slot trees of a big cluster) on transparent
/// huge pages, the same decisions with fewer TLB misses (`MLSCHED_HUGEPAGES=0` turns it off).
#[global_allocator]
static ALLOC: mlsched_hugepages::HugePages = mlsched_hugepages::HugePages;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    mlsched_hugepages::from_env().map_err(pyo3::exceptions::PyValueError::new_err)?;
    m.add_function(wrap_pyfunction!(run_json, m)?)?;
    m.add_function(wrap_pyfunction!(run_events_json, m)?)?;
    m.add_function(wrap_pyfunction!(policies, m)?)?;
    m.add_function(wrap_pyfunction!(scenarios, m)?)?;
    m.add_function(wrap_pyfunction!(gen_json, m)?)?;
    m.add_function(wrap_pyfunction!(import_json, m)?)?;
    m.add_function(wrap_pyfunction!(compare_json, m)?)?;
    m.add_function(wrap_pyfunction!(record_events, m)?)?;
    m.add_function(wrap_pyfunction!(replay_log, m)?)?;
    m.add_class::<Engine>()?;
    m.add_class::<LoggedEngine>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
