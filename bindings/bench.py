#!/usr/bin/env python3
"""Cost of crossing each boundary per decision: `run_json` of every bundled scenario (its own
algorithm) in Rust, through the C ABI (a C timing loop against libmlsched.so), through the
core-wasm module under wasmtime, and through the Python package; plus the Python engine fed
event by event. Overhead per decision = (time - Rust time) / decisions of the run; every time is the best of 5
rounds (the machine may be shared).

    python bindings/bench.py [SECONDS_PER_SCENARIO]      # in a venv with wasmtime and mlsched

Builds (release, the workspace target dir): libmlsched, the Rust timing example, the wasm module.
"""
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bindings/c/wasm"))
budget = float(sys.argv[1]) if len(sys.argv) > 1 else 0.3
target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))


def sh(*args, **kw):
    return subprocess.run(args, check=True, cwd=ROOT, text=True, capture_output=True, **kw).stdout


sh("cargo", "build", "--release", "-p", "mlsched-capi", "--lib", "--example", "bench")
sh("cargo", "build", "--release", "-p", "mlsched-capi", "--lib", "--target", "wasm32-unknown-unknown")
rust = {}
for line in sh(str(target / "release/examples/bench"), str(budget)).splitlines():
    name, runs, ns, dec = line.split()
    rust[name] = (int(runs), float(ns), int(dec))

import mlsched  # noqa: E402
from mlsched_wasm import MlschedWasm  # noqa: E402

scn = mlsched.scenarios()
tmp = tempfile.mkdtemp()
cbin = os.path.join(tmp, "bench")
lib = target / "release"
sh("gcc", "-O2", "-I", "bindings/c/include", "bindings/c/tests/c/bench.c", f"-L{lib}", "-lmlsched",
   f"-Wl,-rpath,{lib}", "-o", cbin)
host = MlschedWasm(str(target / "wasm32-unknown-unknown/release/mlsched.wasm"))


def timeit(f, runs):
    """The best of 5 rounds of `runs` calls, ns per call (as the Rust and C sides)."""
    f()
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(runs):
            f()
        best = min(best, (time.perf_counter() - t) * 1e9 / runs)
    return best


def drive(text):
    e = mlsched.Engine(text)
    e.run_to_end_json()


def events(text):
    e = mlsched.Engine(text)
    order, i = e.arrival_order, 0
    w = e.next_wakeup
    t = min([a for a, _ in order[:1]] + ([w] if w is not None else []))
    while t is not None:
        while i < len(order) and order[i][0] <= t:
            e.arrive(order[i][1], t)
            i += 1
        e.advance(t)
        w = e.next_wakeup
        c = ([max(w, t + 1)] if w is not None else []) + ([max(order[i][0], t)] if i < len(order) else [])
        nt = min(c) if c else None
        if nt == t:
            break
        t = nt
    e.finish_json()


print(f"{'scenario':<18} {'dec':>5} {'rust us':>9} | per-decision overhead ns: {'C':>7} {'wasm':>9} "
      f"{'python':>8} {'py events':>10}")
tot = {"C": [], "wasm": [], "python": [], "events": []}
for name, (runs, rust_ns, dec) in rust.items():
    text = scn[name]
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        f.write(text)
    c_ns = float(sh(cbin, str(runs), path).split()[1])
    w_runs = max(1, runs // 3)
    wasm_ns = timeit(lambda: host.run(text.encode()), w_runs)
    py_ns = timeit(lambda: mlsched.run_json(text), runs)
    ev_ns = timeit(lambda: events(text), max(1, runs // 2))
    row = {k: (v - rust_ns) / max(dec, 1) for k, v in
           (("C", c_ns), ("wasm", wasm_ns), ("python", py_ns), ("events", ev_ns))}
    for k in tot:
        tot[k].append((row[k], dec))
    print(f"{name:<18} {dec:>5} {rust_ns / 1e3:>9.1f} | {'':>25} {row['C']:>7.0f} {row['wasm']:>9.0f} "
          f"{row['python']:>8.0f} {row['events']:>10.0f}   (wasm {wasm_ns / rust_ns:.2f}x)")
print("decision-weighted mean overhead per decision, ns: " + ", ".join(
    f"{k} {sum(v * d for v, d in xs) / sum(d for _, d in xs):.0f}" for k, xs in tot.items()))
