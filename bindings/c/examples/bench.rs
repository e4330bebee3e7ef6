//! The Rust side of `bindings/bench.py`: per bundled scenario (its own algorithm), the time of
//! one `run_json` and the number of decisions of the run. Prints `name runs ns_per_run
//! decisions` lines (`ns_per_run`: the best of 5 rounds of `runs` runs). Argument: the seconds to spend per scenario (default 0.3).
use mlsched_scenario::bundled::SCENARIOS;
use mlsched_scenario::engine::Engine;
use mlsched_scenario::run::{run_json, RunOptions};
use std::time::Instant;

fn main() {
    let budget: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.3);
    let o = RunOptions::default();
    for (name, text) in SCENARIOS {
        let mut decisions = 0u64;
        let mut e = Engine::new(text, &o).expect("bundled scenario");
        e.run_to_end(&mut |_| decisions += 1).expect("runs");
        let t = Instant::now();
        std::hint::black_box(run_json(text, &o).expect("runs"));
        let one = t.elapsed().as_secs_f64();
        let runs = ((budget / 5.0 / one.max(1e-7)) as u64).clamp(3, 100_000);
        // The best of 5 rounds: the machine is shared, the minimum is the least disturbed.
        let ns = (0..5)
            .map(|_| {
                let t = Instant::now();
                for _ in 0..runs {
                    std::hint::black_box(run_json(std::hint::black_box(text), &o).expect("runs"));
                }
                t.elapsed().as_secs_f64() * 1e9 / runs as f64
            })
            .fold(f64::INFINITY, f64::min);
        println!("{name} {runs} {ns:.0} {decisions}");
    }
}
