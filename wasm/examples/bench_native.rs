//! Native side of the wasm-vs-native benchmark (`node scripts/bench.mjs` runs both sides and
//! prints the ratios). For every bundled scenario it times two things, exactly as the JS side
//! does under node:
//! - `decisions`: [`mlsched_wasm::bench::DecisionBench::run`] (validate + build the scheduler +
//!   every decision + the result document; no JSON in the timed region), the target;
//! - `run`: `run` end to end (parse + the above + result JSON), for information.
//!
//! Prints `{name: {decisions: ns, run: ns, iterations: n}}` (n = decision runs per batch). Build it with the profile of the
//! wasm build (`--profile wasm-release`) so both sides are compiled alike.
use mlsched_wasm::bench::DecisionBench;
use std::hint::black_box;
use std::time::Instant;

/// Batch length: short enough that many batches fit the budget, long enough to dwarf the
/// clock's microsecond resolution.
const BATCH_NS: f64 = 10e6;

/// CPU time of this process in ns: `getrusage(RUSAGE_SELF)` user + system, the clock node's
/// `process.cpuUsage()` reads for the wasm side. Unlike wall time it does not count the time a
/// busy machine keeps the process waiting for a core. Wall time where unavailable.
#[cfg(unix)]
fn clock_ns(origin: Instant) -> f64 {
    // SAFETY: getrusage only writes the struct we pass; a zeroed rusage is a valid value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return origin.elapsed().as_nanos() as f64;
    }
    let us = |t: libc::timeval| t.tv_sec as f64 * 1e6 + t.tv_usec as f64;
    (us(ru.ru_utime) + us(ru.ru_stime)) * 1e3
}

#[cfg(not(unix))]
fn clock_ns(origin: Instant) -> f64 {
    origin.elapsed().as_nanos() as f64
}

/// ns per iteration of `f(k)` (k iterations per call) and the batch size: batches of about
/// [`BATCH_NS`] repeated for `budget_ns` of CPU time, the fastest batch kept (other processes
/// only ever slow a batch down, through caches). The same scheme as bench.mjs.
fn time<F: FnMut(u32)>(budget_ns: f64, mut f: F) -> (f64, u32) {
    let origin = Instant::now();
    let t0 = clock_ns(origin);
    f(1);
    let once = (clock_ns(origin) - t0).max(1e3);
    let n = ((BATCH_NS / once) as u32).clamp(1, 1_000_000);
    let start = clock_ns(origin);
    let mut best = f64::INFINITY;
    while best.is_infinite() || clock_ns(origin) - start < budget_ns {
        let t = clock_ns(origin);
        f(n);
        best = best.min((clock_ns(origin) - t) / n as f64);
    }
    (best, n)
}

fn main() {
    let budget_ns: f64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200e6);
    let mut out = serde_json::Map::new();
    for (name, text) in mlsched_scenario::bundled::SCENARIOS {
        let Ok(bench) = DecisionBench::new(text, None) else {
            continue;
        };
        let _ = bench.run(3); // warm up, as on the JS side
        let (decisions, n) = time(budget_ns, |k| {
            black_box(bench.run(black_box(k)).is_ok());
        });
        let (run, _) = time(budget_ns, |k| {
            for _ in 0..k {
                let r = mlsched_wasm::run_scenario(black_box(text), None, false);
                black_box(r.is_ok());
            }
        });
        out.insert(
            (*name).to_string(),
            serde_json::json!({"decisions": decisions, "run": run, "iterations": n}),
        );
    }
    println!("{}", serde_json::Value::Object(out));
}
