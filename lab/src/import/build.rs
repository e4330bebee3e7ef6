//! From trace jobs and servers to scenario documents (the mapping of the module docs).
use super::{GavelType, ImportOptions, Server, TraceJob};
use mlsched_kernel::rng::SplitMix64;
use mlsched_scenario::error::{InputError, RunError};
use mlsched_scenario::kinds::oasis::doc::{OasisDoc, OasisJobDoc, SigmoidDoc, UtilityDoc};
use mlsched_scenario::kinds::online::doc::{
    ArchitectureDoc, OnlineDoc, OnlineJobDoc, TaskTypeDoc, ALPHA_DEFAULT,
};

const RESOURCES: [&str; 4] = ["gpu", "cpu", "mem_gb", "bw_gbps"];

/// Slots the arrivals span by default on kind "oasis": half the horizon, so the last jobs
/// still have half the horizon to run in.
pub(crate) const OASIS_SPAN_FACTOR: f64 = 2.0;

/// The horizon factor of kind "online": arrivals span T / (2 alpha) slots (alpha = the default
/// the document leaves implicit). A_online runs the batch of round i (the jobs that arrived
/// before tau_i = 2^(i-1)) from slot alpha tau_i on, so a job is reachable only if some power of
/// two tau > a_j has alpha tau < T: a_j below T / alpha at best, about T / (2 alpha) at worst.
/// The section 7 generator draws arrivals in the same range.
pub(crate) fn online_span_factor() -> f64 {
    2.0 * ALPHA_DEFAULT as f64
}

/// The time mapping of one import: seconds per slot and the horizon T.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Horizon {
    /// Seconds per slot.
    pub slot_seconds: f64,
    /// T in slots.
    pub slots: u32,
    /// The last arrival slot.
    pub last_arrival: u32,
}

/// Source `pollux` without `--slots` and `--slot-seconds`: the horizon is at least this many
/// times the time the jobs need (see [`fitting_horizon`]).
pub(crate) const FIT_MARGIN: f64 = 2.0;

/// Source `pollux` without `--slots` and `--slot-seconds`: slots are a whole number of minutes,
/// at least one, and long enough that the horizon has at most about this many.
pub(crate) const FIT_SLOTS: f64 = 1_000.0;

/// The slot length (seconds) and horizon (slots) of source `pollux` when neither `--slots` nor
/// `--slot-seconds` is given, sized so that the workload can finish (issue 45 item 6: the
/// `philly` rule, T = 200 slots with the arrivals over half of it, gave 11.37 s slots and a
/// 38-minute horizon in which most of 160 jobs could not even run alone).
///
/// With a_last the last arrival, W = sum of g_i d_i the GPU-seconds the trace records (g_i
/// GPUs for d_i seconds), G the cluster's GPUs and d_max the longest job, the horizon is
/// a_last + [`FIT_MARGIN`] x (W / G + d_max) seconds. W / G + d_max is the list-scheduling
/// bound: a schedule that keeps the GPUs busy while jobs wait ends every job by then after the
/// last arrival, each job at its traced speed. The margin covers what the trace does not: the
/// baselines cap or spread a job's workers, and under the measured tables a spread job runs
/// slower than its consolidated traced speed (8 GPUs on 8 servers: s = 3.39 worker
/// equivalents). The slot is a whole number of minutes, at least 1, so that the horizon is at
/// most about [`FIT_SLOTS`] slots.
pub(crate) fn fitting_horizon(jobs: &[TraceJob], gpus: f64) -> (f64, u32) {
    let first = jobs.first().map_or(0.0, |j| j.submit);
    let last = jobs.last().map_or(0.0, |j| j.submit) - first;
    let work: f64 = jobs
        .iter()
        .map(|j| j.workers.max(1) as f64 * j.gpu * j.duration)
        .sum();
    let longest = jobs.iter().map(|j| j.duration).fold(0.0, f64::max);
    let need = last + FIT_MARGIN * (work / gpus.max(1.0) + longest);
    let minutes = (need / FIT_SLOTS / 60.0).ceil().max(1.0);
    let sec = minutes * 60.0;
    // One more slot than the seconds need: the last one is T - 1.
    let slots = (need / sec).ceil() + 1.0;
    (
        sec,
        slots.min(mlsched_kernel::limits::SLOTS_MAX as f64) as u32,
    )
}

/// Chooses the slot length and the horizon for `jobs` (sorted by submit time):
/// - `--slot-seconds S` and `--slots T`: both as given; an arrival at or after T is an error
///   (never a dropped job);
/// - `--slot-seconds S` alone: T = `factor` x (last arrival slot + 1), the horizon the default
///   mapping would give those arrivals;
/// - neither (or `--slots T` alone): T as given (default 200) and S so that the arrivals span
///   T / `factor` slots.
pub(crate) fn horizon(
    jobs: &[TraceJob],
    opts: &ImportOptions,
    factor: f64,
) -> Result<Horizon, RunError> {
    let first = jobs.first().map_or(0.0, |j| j.submit);
    let span = jobs.last().map_or(0.0, |j| j.submit) - first;
    let slots_given = opts.slots > 0;
    let (sec, slots) = if opts.slot_seconds > 0.0 {
        let last = (span / opts.slot_seconds).floor();
        let t = if slots_given {
            opts.slots as f64
        } else {
            ((last + 1.0) * factor).ceil()
        };
        if !slots_given && t > mlsched_kernel::limits::SLOTS_MAX as f64 {
            return Err(InputError::new(
                "option",
                "slot-seconds",
                format!(
                    "{} s slots need a horizon of {t} slots for arrivals spanning {span} s, more \
                     than {} (SLOTS_MAX of this build); use longer slots",
                    opts.slot_seconds,
                    mlsched_kernel::limits::SLOTS_MAX
                ),
            )
            .into());
        }
        (opts.slot_seconds, t as u32)
    } else {
        let t = if slots_given { opts.slots } else { 200 };
        let span_slots = (t as f64 / factor).max(1.0);
        let sec = if span > 0.0 { span / span_slots } else { 60.0 };
        (sec, t)
    };
    let last = ((span / sec).floor()).max(0.0);
    if last >= slots as f64 {
        let late = jobs
            .iter()
            .filter(|j| ((j.submit - first) / sec).floor() >= slots as f64)
            .count();
        return Err(InputError::new(
            "option",
            "slots",
            format!(
                "{late} of the {} jobs arrive at or after the horizon T = {slots} slots of {sec} s \
                 (the last at slot {last}); raise --slots to at least {} or omit it to size the \
                 horizon from --slot-seconds",
                jobs.len(),
                last + 1.0
            ),
        )
        .into());
    }
    Ok(Horizon {
        slot_seconds: sec,
        slots,
        last_arrival: last as u32,
    })
}

/// (job index, arrival slot, duration in slots) of each job: every job arrives before the
/// horizon ([`horizon`] checked it).
fn timeline(jobs: &[TraceJob], h: &Horizon) -> Vec<(usize, u32, f64)> {
    let sec = h.slot_seconds;
    let first = jobs.first().map_or(0.0, |j| j.submit);
    jobs.iter()
        .enumerate()
        .map(|(i, j)| {
            let a = ((j.submit - first) / sec).floor().max(0.0);
            let d = (j.duration / sec).ceil().max(1.0);
            (i, (a as u32).min(h.slots.saturating_sub(1)), d)
        })
        .collect()
}

fn clamp_demand(j: &TraceJob, servers: &[Server], bw: f64) -> [f64; 4] {
    // A worker must fit on some server: cap CPU / memory at the largest server's.
    let max_cpu = servers.iter().map(|s| s[1]).fold(0.0, f64::max);
    let max_mem = servers.iter().map(|s| s[2]).fold(0.0, f64::max);
    [j.gpu, j.cpu.min(max_cpu), j.mem_gb.min(max_mem), bw]
}

fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

/// Beyond this, x * 1e6 has no integer steps left in f64 (2^53): x is its own 6-decimal value.
const EXACT6_MAX: f64 = 9_007_199_254.740_992;

/// x rounded down to 6 decimals (never above x in f64, never below 0). A non-finite x, or one
/// too large for 6-decimal steps, is returned as it is (the validator refuses the former).
fn floor6(x: f64) -> f64 {
    if !x.is_finite() || x >= EXACT6_MAX {
        return x;
    }
    let mut k = (x * 1e6).floor().max(0.0);
    // Division can land one step above x; two steps down always suffice.
    for _ in 0..2 {
        if k > 0.0 && k / 1e6 > x {
            k -= 1.0;
        }
    }
    k / 1e6
}

/// Splits the chunk time m (already rounded to 6 decimals) into (tau, comm) with
/// comm = c tau, both rounded down to 6 decimals, so that tau + 2 comm <= m holds exactly in
/// f64 (rounding tau and comm to nearest could land the sum just above m: 0.5 became 0.500001,
/// and a worker then covered one chunk fewer per slot when 1/m is an integer). tau is at
/// least 1e-6 (the document's floor; m >= 1e-6 too, and comm is then 0).
fn split_chunk(m: f64, c: f64) -> (f64, f64) {
    let tau = floor6(m / (1.0 + 2.0 * c)).max(1e-6).min(m);
    let mut comm = floor6(tau * c);
    // A few 1e-6 steps at most for any m the validator takes; bounded whatever the inputs.
    for _ in 0..8 {
        if !(comm > 0.0 && tau + 2.0 * comm > m) {
            break;
        }
        comm = down6(comm);
    }
    if tau + 2.0 * comm > m {
        comm = 0.0;
    }
    (tau, comm)
}

/// The 6-decimal value one step (1e-6) below x, a 6-decimal value > 0.
fn down6(x: f64) -> f64 {
    ((x * 1e6).round() - 1.0).max(0.0) / 1e6
}

/// Kind "online": (U_j, pi_j) from the reference-type mini-batch time v (rounded): U_j = c v and
/// pi_j = U_j b / 2, both rounded down, so that the communication of eq. (1) off one server,
/// U_j + 2 pi_j / b, is at most 2 c v exactly in f64: U_j <= c v and 2 pi_j / b <= U_j.
fn split_online(v: f64, c: f64, b: f64) -> (f64, f64) {
    let u = floor6(v * c);
    let mut pi = floor6(u * b / 2.0);
    for _ in 0..8 {
        if !(pi > 0.0 && 2.0 * pi / b > u) {
            break;
        }
        pi = down6(pi);
    }
    if 2.0 * pi / b > u {
        pi = 0.0;
    }
    (u, pi)
}

/// Kind "oasis" document.
pub fn to_oasis(
    jobs: &[TraceJob],
    workers: &[Server],
    ps: &[Server],
    gavel: Option<&[GavelType]>,
    opts: &ImportOptions,
    rng: &mut SplitMix64,
    profiles: Option<&super::pollux::Profiles>,
) -> Result<OasisDoc, RunError> {
    if gavel.is_some() {
        return Err(InputError::new(
            "option",
            "kind",
            "gavel gives worker types (K80/P100/V100), which kind \"oasis\" does not have; use --kind online",
        )
        .into());
    }
    if workers.is_empty() {
        return Err(InputError::new("option", "servers", "the trace gave no GPU server").into());
    }
    let h = horizon(jobs, opts, OASIS_SPAN_FACTOR)?;
    let server_gpus = workers.iter().map(|s| s[0]).fold(0.0, f64::max);
    let mut out = Vec::new();
    for (i, a, d) in timeline(jobs, &h) {
        let j = &jobs[i];
        let g = j.workers.max(1);
        let n = g.saturating_mul(opts.max_scale.max(1));
        // Worker-slots: the trace ran g GPUs for d slots, at s(g, most consolidated) worker
        // equivalents with a speed-up table.
        let speed = profiles.map_or(g as f64, |p| p.consolidated(i, g, server_gpus));
        let work = speed * d;
        let epochs = (work / n as f64).ceil().max(1.0);
        let m = round6((work / (epochs * n as f64)).max(1e-6));
        let (tau, comm) = split_chunk(m, opts.comm_ratio);
        out.push(OasisJobDoc {
            id: j.id.clone(),
            arrival: a as f64,
            epochs,
            chunks: n as f64,
            minibatches_per_chunk: 1.0,
            minibatch_time: tau,
            comm_time: comm,
            worker_bw: opts.worker_bw,
            ps_bw: opts.ps_bw,
            worker_demand: clamp_demand(j, workers, opts.worker_bw).to_vec(),
            ps_demand: vec![0.0, 2.0, 8.0, opts.ps_bw],
            utility: UtilityDoc::Sigmoid(SigmoidDoc {
                priority: round6(rng.range_f64(1.0, 100.0)),
                decay: round6(rng.range_f64(0.1, 1.0)),
                target: round6(opts.target_factor * d),
            }),
            model: profiles.map(|p| p.name(i).to_string()),
            workers: None,
        });
    }
    Ok(OasisDoc {
        kind: "oasis".into(),
        slots: h.slots as f64,
        resources: RESOURCES.iter().map(|s| s.to_string()).collect(),
        worker_servers: workers.iter().map(|s| s.to_vec()).collect(),
        ps_servers: ps.iter().map(|s| s.to_vec()).collect(),
        prices: None,
        // The restart time in this import's slots (docs/restart.md); 0 s writes nothing.
        restart_slots: (opts.restart_seconds > 0.0).then(|| opts.restart_seconds / h.slot_seconds),
        restart_first: None,
        slot_seconds: None,
        dorm_event_nodes: None,
        jobs: out,
        throughput: profiles.map(|p| super::pollux::throughput_doc(&p.tables)),
    })
}

/// Kind "online" takes the CPU-only nodes as servers: `--servers all` under PS architecture.
pub(crate) fn online_takes_cpu_only(opts: &ImportOptions) -> bool {
    opts.servers == super::ALL && opts.architecture != "ring"
}

/// The servers of a kind "online" document: the GPU nodes, then, for `--servers all` under
/// PS architecture, the CPU-only nodes (the whole cluster; see [`to_online`]).
fn online_servers(workers: &[Server], ps: &[Server], opts: &ImportOptions) -> Vec<Vec<f64>> {
    let cpu_only = if online_takes_cpu_only(opts) { ps } else { &[] };
    workers.iter().chain(cpu_only).map(|s| s.to_vec()).collect()
}

/// Kind "online" document (architecture `--architecture`, PS by default; worker types from
/// Gavel when given). Ring-AllReduce jobs keep one update time (the ring's) and no PS types.
/// With `--servers all` and PS architecture the CPU-only nodes `ps` follow the GPU nodes as
/// servers with 0 GPUs: a worker demands one GPU so never lands there, while a parameter
/// server (0 GPUs) can; Ring-AllReduce has no task a CPU-only node could hold.
pub fn to_online(
    jobs: &[TraceJob],
    workers: &[Server],
    ps: &[Server],
    gavel: Option<&[GavelType]>,
    opts: &ImportOptions,
    rng: &mut SplitMix64,
    profiles: Option<&super::pollux::Profiles>,
) -> Result<OnlineDoc, RunError> {
    if workers.is_empty() {
        return Err(InputError::new("option", "servers", "the trace gave no GPU server").into());
    }
    let types = match gavel {
        Some(_) => 3,
        None => 1,
    };
    let ring = opts.architecture == "ring";
    let h = horizon(jobs, opts, online_span_factor())?;
    let server_gpus = workers.iter().map(|s| s[0]).fold(0.0, f64::max);
    let mut out = Vec::new();
    for (i, a, d) in timeline(jobs, &h) {
        let j = &jobs[i];
        let g = j.workers.max(1);
        let n = g.saturating_mul(opts.max_scale.max(1));
        let e = opts.epochs.max(1);
        // As kind "oasis": the work the trace's g GPUs did in d slots at their speed.
        let speed = profiles.map_or(g as f64, |p| p.consolidated(i, g, server_gpus));
        let v = speed * d / (e as f64 * n as f64);
        let times: Vec<f64> = match gavel {
            // V100 is the reference; slower GPUs take throughput(V100) / throughput(m) longer.
            Some(t) => {
                let gt = &t[rng.below(t.len() as u64) as usize];
                (0..3)
                    .map(|m| floor6(v * gt.throughput[2] / gt.throughput[m]).max(1e-6))
                    .collect()
            }
            None => vec![floor6(v).max(1e-6)],
        };
        // The reference type (V100, or the only type): the last entry.
        let v_ref = times[times.len() - 1];
        let (u, pi) = split_online(v_ref, opts.comm_ratio, opts.worker_bw);
        out.push(OnlineJobDoc {
            id: j.id.clone(),
            arrival: a as f64,
            weight: round6(rng.range_f64(1.0, 100.0)),
            epochs: e as f64,
            chunks: n as f64,
            minibatches_per_chunk: 1.0,
            minibatch_time: times,
            update_time: vec![u],
            gradient_size: pi,
            model: profiles.map(|p| p.name(i).to_string()),
        });
    }
    let cpu = jobs
        .iter()
        .map(|j| j.cpu)
        .fold(0.0, f64::max)
        .min(workers[0][1])
        .max(1.0);
    let worker_types = (0..types)
        .map(|_| TaskTypeDoc {
            demand: vec![1.0, round6(cpu.min(8.0)), 16.0, opts.worker_bw],
            bw: opts.worker_bw,
        })
        .collect();
    Ok(OnlineDoc {
        kind: "online".into(),
        slots: h.slots as f64,
        architecture: if ring {
            ArchitectureDoc::Ring
        } else {
            ArchitectureDoc::Ps
        },
        resources: RESOURCES.iter().map(|s| s.to_string()).collect(),
        servers: online_servers(workers, ps, opts).into(),
        worker_types,
        ps_types: (!ring).then(|| {
            vec![TaskTypeDoc {
                demand: vec![0.0, 2.0, 8.0, opts.ps_bw],
                bw: opts.ps_bw,
            }]
        }),
        f: 1.0,
        alpha: None,
        rounds_past_horizon: None,
        jobs: out,
        throughput: profiles.map(|p| super::pollux::throughput_doc(&p.tables)),
    })
}
