//! Native side of the wasm-vs-native benchmark (`node scripts/bench.mjs` runs both): times
//! `run` (parse + validate + the kind's scheduler + result JSON) on every bundled scenario and
//! prints `{name: nanoseconds per run}`. Build with `--release` to compare with the release wasm.
use std::time::Instant;

fn main() {
    let budget_ns: u128 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300_000_000);
    let mut out = serde_json::Map::new();
    for (name, text) in mlsched_cli::bundled::SCENARIOS {
        let t0 = Instant::now();
        let mut n: u64 = 0;
        while n < 3 || t0.elapsed().as_nanos() < budget_ns {
            let r = mlsched_wasm::run_scenario(std::hint::black_box(text), None, false);
            std::hint::black_box(r.is_ok());
            n += 1;
        }
        let per = t0.elapsed().as_nanos() as f64 / n as f64;
        out.insert((*name).to_string(), serde_json::json!(per));
    }
    println!("{}", serde_json::Value::Object(out));
}
