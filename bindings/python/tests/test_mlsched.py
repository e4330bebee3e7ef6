"""The Python package against the command line: every bundled scenario (every kind) and every
policy gives the bytes of `mlsched run --json`; errors; the engine event by event; snapshot
round trip; gen / import / compare; the GIL is released during long runs.

The CLI is MLSCHED_CLI, else target/{release,debug}/mlsched of the repository; without one the
byte comparisons are skipped (CI always sets it)."""
import json
import os
import pathlib
import subprocess
import tempfile
import threading
import time

import pytest

import mlsched

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCENARIOS = mlsched.scenarios()


def _cli():
    env = os.environ.get("MLSCHED_CLI")
    if env:
        return env
    for p in (ROOT / "target/release/mlsched", ROOT / "target/debug/mlsched"):
        if p.is_file():
            return str(p)
    return None


CLI = _cli()
needs_cli = pytest.mark.skipif(CLI is None, reason="no mlsched binary (set MLSCHED_CLI)")


def cli_run(text, policy=None):
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(text)
    try:
        args = [CLI, "run", f.name, "--json", "-", "--quiet"] + (["--policy", policy] if policy else [])
        p = subprocess.run(args, capture_output=True)
        return p.returncode, p.stdout, p.stderr
    finally:
        os.unlink(f.name)


CASES = [
    (name, policy)
    for name, text in SCENARIOS.items()
    for policy in mlsched.policies(json.loads(text)["kind"])
]


def test_every_kind_is_bundled():
    kinds = {json.loads(t)["kind"] for t in SCENARIOS.values()}
    assert kinds == set(mlsched.KINDS)


@needs_cli
@pytest.mark.parametrize("name,policy", CASES)
def test_run_json_is_the_cli_bytes(name, policy):
    text = SCENARIOS[name]
    code, out, err = cli_run(text, policy)
    if code == 0:
        assert mlsched.run_json(text, policy).encode() == out
        assert mlsched.run(text, policy) == json.loads(out)
    else:
        exc = ValueError if code == 2 else RuntimeError
        with pytest.raises(exc) as e:
            mlsched.run_json(text, policy)
        assert str(e.value) in err.decode()


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_engine_event_by_event_equals_run(name):
    """The driver's loop from Python, with a snapshot/restore half way, finishes with the bytes
    of run_json; decisions are dicts naming a kernel record."""
    text = SCENARIOS[name]
    expected = mlsched.run_json(text)
    e = mlsched.Engine(text)
    order = list(e.arrival_order)
    assert e.now is None
    i, steps, decisions = 0, 0, []
    t = min([a for a, _ in order[:1]] + ([e.next_wakeup] if e.next_wakeup is not None else []))
    while t is not None:
        while i < len(order) and order[i][0] <= t:
            decisions += e.arrive(order[i][1], t)
            i += 1
        decisions += e.advance(t)
        steps += 1
        if steps == 2:
            snap = e.snapshot()
            assert isinstance(snap, bytes)
            e = mlsched.Engine.restore(text, snap)
            assert e.now == t
        w = e.next_wakeup
        cands = []
        if w is not None:
            cands.append(max(w, t + 1))
        if i < len(order):
            cands.append(max(order[i][0], t))
        nt = min(cands) if cands else None
        if nt == t:
            break
        t = nt
    assert e.finish_json() == expected
    assert e.finish() == json.loads(expected)
    for d in decisions:
        assert set(d) == {"record", "job", "data"} and "." in d["record"]
    with pytest.raises(ValueError, match="finished"):
        e.advance(10**6)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_run_to_end_equals_run(name):
    text = SCENARIOS[name]
    assert mlsched.Engine(text).run_to_end_json() == mlsched.run_json(text)


def test_run_accepts_a_dict():
    d = json.loads(SCENARIOS["route-small"])
    assert mlsched.run(d) == mlsched.run(SCENARIOS["route-small"])


def test_invalid_input_is_value_error_naming_the_field():
    d = json.loads(SCENARIOS["oasis-small"])
    d["jobs"][0]["epochs"] = -1
    with pytest.raises(ValueError, match="field `epochs`"):
        mlsched.run(d)
    with pytest.raises(ValueError, match="field `kind`"):
        mlsched.run_json("{}")
    with pytest.raises(ValueError, match="policy `nope`"):
        mlsched.run_json(SCENARIOS["oasis-small"], "nope")
    with pytest.raises(ValueError):
        mlsched.run_json("{not json")
    with pytest.raises(TypeError):
        mlsched.run_json(42)


def test_runtime_failure_is_runtime_error():
    d = json.loads(SCENARIOS["oasis-small"])
    del d["prices"]
    for j in d["jobs"]:
        j["utility"] = {"table": [0.0] * 20}
    with pytest.raises(RuntimeError, match="L1"):
        mlsched.run(d)


def test_engine_refuses_bad_events():
    e = mlsched.Engine(SCENARIOS["oasis-small"])
    with pytest.raises(ValueError, match="field `job`"):
        e.arrive(999, 0)
    with pytest.raises(ValueError, match="field `job`"):
        e.finished(0, 0)
    e.advance(5)
    with pytest.raises(ValueError, match="field `now`"):
        e.advance(4)


def test_snapshot_of_another_scenario_is_refused():
    snap = mlsched.Engine(SCENARIOS["oasis-small"]).snapshot()
    with pytest.raises(ValueError, match="snapshot"):
        mlsched.Engine.restore(SCENARIOS["route-small"], snap)
    with pytest.raises(ValueError, match="snapshot"):
        mlsched.Engine.restore(SCENARIOS["oasis-small"], snap[:-1])
    with pytest.raises(ValueError, match="snapshot"):
        mlsched.Engine.restore(SCENARIOS["oasis-small"], snap, "fifo")


@pytest.mark.parametrize("kind", mlsched.KINDS)
def test_gen_runs_and_matches_cli(kind):
    doc = mlsched.gen(kind, seed=7, jobs=4)
    assert doc["kind"] == kind
    assert mlsched.run(doc)["kind"] == kind
    if CLI:
        p = subprocess.run([CLI, "gen", kind, "--seed", "7", "--jobs", "4"], capture_output=True)
        if p.returncode == 0:
            assert json.loads(p.stdout) == doc


def test_gen_refuses_bad_options():
    with pytest.raises(ValueError, match="field `jobs`"):
        mlsched.gen("oasis", jobs=0)
    with pytest.raises(ValueError, match="field `kind`"):
        mlsched.gen("nope")


def test_import_trace():
    doc = mlsched.import_trace("philly", jobs=6, slots=60)
    assert doc["kind"] == "oasis" and len(doc["jobs"]) == 6
    assert mlsched.run(doc)["kind"] == "oasis"
    # the cost of preemption: 30 s by default, none with restart_seconds=0 (docs/restart.md)
    assert doc["restart_slots"] > 0 and "restarts" in mlsched.run(doc)["summary"]
    assert "restart_slots" not in mlsched.import_trace("philly", jobs=6, slots=60,
                                                       restart_seconds=0)
    online = mlsched.import_trace("philly", kind="online", jobs=4, slots=40, epochs=3)
    assert online["kind"] == "online"
    ring = mlsched.import_trace("philly", kind="online", architecture="ring", jobs=4,
                                slot_seconds=600)
    assert ring["architecture"] == "ring" and ring.get("ps_types") is None
    # slot_seconds alone sizes the horizon so that every arrival is in its first 1/(2 alpha)
    assert max(j["arrival"] for j in ring["jobs"]) < ring["slots"] / 8
    with pytest.raises(ValueError, match="slots"):
        mlsched.import_trace("philly", slots=0)
    with pytest.raises(ValueError, match="source"):
        mlsched.import_trace("nope")
    # placement-aware throughput (docs/throughput.md): the table and a family per job
    fast = mlsched.import_trace("philly", jobs=6, slots=60, throughput="pollux")
    assert len(fast["throughput"]["models"]) == 6 and all("model" in j for j in fast["jobs"])
    assert "throughput" not in doc and mlsched.run(fast, policy="fifo")["kind"] == "oasis"
    pollux = mlsched.import_trace("pollux", jobs=6, servers=2, slots=60)
    assert pollux["worker_servers"][0][0] == 4
    with pytest.raises(ValueError, match="throughput"):
        mlsched.import_trace("philly", jobs=6, throughput="exact")


def test_compare_rows_are_flat():
    rows = mlsched.compare(SCENARIOS["oasis-small"])
    assert [r["policy"] for r in rows] == mlsched.policies("oasis")
    for r in rows:
        assert all(not isinstance(v, (dict, list)) for v in r.values())
        assert r["log_hash"]
        assert 0.0 <= r["util_gpu"] <= 1.0 and r["unfinished"] == r["jobs"] - r["finished"]
    assert rows[0]["log_hash"] == mlsched.run(SCENARIOS["oasis-small"])["log_hash"]
    timed = mlsched.compare(SCENARIOS["route-small"], ["route", "fifo"], timing=True)
    assert [r["policy"] for r in timed] == ["route", "fifo"] and "wall_ms" in timed[0]
    with pytest.raises(ValueError, match="policy"):
        mlsched.compare(SCENARIOS["route-small"], ["nope"])
    try:
        import pandas
    except ImportError:
        return
    assert len(pandas.DataFrame(rows)) == len(rows)


def _long_scenario():
    return mlsched.gen_json("online", seed=3, jobs=40)


def test_gil_released_two_threads_overlap():
    """Two threads each run a long run_json at once: their calls overlap in wall time, and a
    third Python thread keeps ticking meanwhile, which it cannot do while a call holds the GIL
    (a native call holding it is never preempted)."""
    text = _long_scenario()
    spans = []
    ticks = [0]
    barrier = threading.Barrier(2)
    done = threading.Event()

    def work():
        barrier.wait()
        start = time.perf_counter()
        mlsched.run_json(text)
        spans.append((start, time.perf_counter()))

    def ticker():
        while not done.is_set():
            ticks[0] += 1
            time.sleep(0.001)

    threads = [threading.Thread(target=work) for _ in range(2)]
    tk = threading.Thread(target=ticker)
    tk.start()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    done.set()
    tk.join()
    (a0, a1), (b0, b1) = spans
    assert min(a1, b1) > max(a0, b0), spans
    span_ms = (max(a1, b1) - min(a0, b0)) * 1e3
    # Held GIL: ~0 ticks during the calls; released: about one per 1-2 ms.
    assert ticks[0] > 0.1 * span_ms, (ticks[0], span_ms)


@needs_cli
def test_sweep_local_is_the_cli_sweep():
    """mlsched.sweep's records are the CLI's sweep.json per_seed rows, whatever the pool size."""
    out = tempfile.mkdtemp()
    args = [CLI, "compare", "import:philly", "--kind", "online", "--jobs", "10", "--servers", "4",
            "--seeds", "1..4", "--policies", "online,fifo", "--no-timing", "--quiet", "--out", out]
    p = subprocess.run(args, capture_output=True, env=dict(os.environ, MLSCHED_DATA=str(ROOT / "data")))
    assert p.returncode == 0, p.stderr
    sw = json.loads((pathlib.Path(out) / "sweep.json").read_text())
    want = []
    for row in sw["per_seed"]:
        for m in row["metrics"]:
            r = {k: v for k, v in m.items() if k not in ("extra", "utilisation")}
            r.update(m.get("extra", {}))
            r.update({f"util_{name}": v for name, v in m.get("utilisation", [])})
            want.append({"seed": row["seed"], **r})
    kw = dict(kind="online", jobs=10, servers=4, progress=False, data_dir=str(ROOT / "data"))
    for workers in (1, 3):
        got = mlsched.sweep("philly", "1..4", ["online", "fifo"], workers=workers, **kw)
        assert got == want
    with pytest.raises(ValueError, match="seeds"):
        mlsched.sweep("philly", "4..1", kind="online")
    with pytest.raises(ValueError, match="backend"):
        mlsched.sweep("philly", "1", ["fifo"], kind="online", backend="nope", progress=False)
