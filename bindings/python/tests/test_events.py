"""The open-world host events from Python (``docs/open-world.md``): ``Engine.event`` and its
shorthands (``submit``, ``cancel``, ``server_down``, ``server_up``, ``set_capacity``), bad events
raising ``ValueError`` and leaving the engine usable, and ``run(events=...)`` against
``mlsched run --events`` on the bindings' sample (``bindings/events/``).

An event a kind does not support yet is refused with ``ValueError`` ("not supported"): the tests
accept that refusal for it (and check the engine stays usable) so they hold as kinds gain events."""
import json
import os
import pathlib
import subprocess

import pytest

import mlsched

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCENARIO = (ROOT / "scenarios/online-ps-small.json").read_text()
EVENTS_FILE = ROOT / "bindings/events/online-ps-small.jsonl"
EVENTS = [line for line in EVENTS_FILE.read_text().splitlines() if line.strip()]

# A job object as in the online scenario's `jobs` list (no `arrival`: the submission slot).
NEW_JOB = {
    "id": "new-1", "weight": 700, "epochs": 10, "chunks": 4, "minibatches_per_chunk": 10,
    "minibatch_time": [0.01, 0.006], "update_time": [0.001], "gradient_size": 0.002,
}


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


def _started():
    """The sample's engine after slots 0 and 1 (jobs j1, j2 arrived)."""
    e = mlsched.Engine(SCENARIO)
    e.arrive(0, 0)
    e.advance(0)
    e.arrive(1, 1)
    e.advance(1)
    return e


def _decisions_or_unsupported(call):
    """The decisions of `call`, or None when the kind refuses the event as not supported yet."""
    try:
        d = call()
    except ValueError as x:
        assert "not supported" in str(x), str(x)
        return None
    assert isinstance(d, list)
    assert all({"record", "job", "data"} <= set(x) for x in d)
    return d


def test_server_ids_name_the_servers():
    assert mlsched.Engine(SCENARIO).server_ids == ["h0", "h1", "h2"]


def test_server_down_and_up():
    e = _started()
    down = e.server_down("h1", 2)
    assert isinstance(down, list)
    up = e.server_up("h1", 3)
    assert isinstance(up, list)
    assert e.now == 3
    e.run_to_end()


def test_set_capacity():
    e = _started()
    d = e.set_capacity("h0", [4, 32, 10], 2)
    assert isinstance(d, list)
    assert e.run_to_end()["summary"]["statuses"]


def test_cancel():
    e = _started()
    d = _decisions_or_unsupported(lambda: e.cancel("j1", 2))
    if d is not None:
        assert e.status("j1") == "cancelled"
    assert e.run_to_end()["log_hash"]


def test_submit():
    e = _started()
    before = len(e.job_ids)
    d = _decisions_or_unsupported(lambda: e.submit(NEW_JOB, 2))
    if d is not None:
        assert e.job_ids == e.job_ids[:before] + ["new-1"]
    else:
        assert len(e.job_ids) == before
    e.run_to_end()


def test_event_takes_dicts_and_text_alike():
    a, b = _started(), _started()
    ev = {"event": "server_down", "at": 4, "server": "h2"}
    assert a.event(ev) == b.event(json.dumps(ev))
    assert a.finish_json() == b.finish_json()


def test_event_equals_its_shorthand():
    a, b = _started(), _started()
    assert a.set_capacity("h1", [2, 16, 5], 3) == b.event(
        {"event": "capacity", "at": 3, "server": "h1", "capacity": [2, 16, 5]})
    assert a.finish_json() == b.finish_json()


BAD = [
    ("{", "not valid JSON"),
    ({"event": "explode", "at": 2}, "`event`"),
    ({"event": "server_down", "at": 2}, "`server`"),
    ({"event": "server_down", "at": 2, "server": "nope"}, "`server`"),
    ({"event": "cancel", "at": 2, "job": "nope"}, "`job`"),
    ({"event": "capacity", "at": 2, "server": "h0", "capacity": [1]}, "`capacity`"),
    ({"event": "capacity", "at": 2, "server": "h0", "capacity": [-1, 2, 3]}, "`capacity[0]`"),
    ({"event": "server_up", "at": 2, "server": "h1"}, "`server`"),
    ({"event": "server_down", "at": 0, "server": "h1"}, "`at`"),
    ({"event": "submit", "at": 2, "job": {"weight": 1}}, "job"),
]


@pytest.mark.parametrize("bad,field", BAD, ids=[str(i) for i in range(len(BAD))])
def test_bad_event_raises_and_changes_nothing(bad, field):
    e, clean = _started(), _started()
    with pytest.raises(ValueError) as x:
        e.event(bad)
    assert field in str(x.value), str(x.value)
    # The engine is unchanged: the same later events give the same bytes as an engine that
    # never saw the bad event.
    e.server_down("h2", 3)
    clean.server_down("h2", 3)
    assert e.finish_json() == clean.finish_json()


def test_shorthand_errors_name_the_field():
    e = _started()
    with pytest.raises(ValueError, match="`server`"):
        e.server_down("nope", 2)
    with pytest.raises(ValueError, match="`capacity`"):
        e.set_capacity("h0", [1, 2], 2)
    with pytest.raises(TypeError):
        e.event(42)
    e.run_to_end()


def test_run_without_events_is_run():
    assert mlsched.run_events_json(SCENARIO, []) == mlsched.run_json(SCENARIO)
    assert mlsched.run(SCENARIO, events=[]) == mlsched.run(SCENARIO)


def test_run_events_takes_dicts_and_text_alike():
    dicts = [json.loads(x) for x in EVENTS]
    assert mlsched.run_events_json(SCENARIO, dicts) == mlsched.run_events_json(SCENARIO, EVENTS)
    r = mlsched.run(SCENARIO, events=dicts)
    assert sum(r["summary"]["statuses"].values()) == len(r["jobs"])


def test_run_events_bad_event_names_it():
    with pytest.raises(ValueError, match="event #2"):
        mlsched.run(SCENARIO, events=[EVENTS[0], {"event": "server_down", "at": 3}])
    with pytest.raises(ValueError, match="event #2, field `at`"):
        mlsched.run(SCENARIO, events=[EVENTS[1], EVENTS[0]])


@needs_cli
def test_run_events_is_the_cli_bytes():
    args = [CLI, "run", str(ROOT / "scenarios/online-ps-small.json"), "--events",
            str(EVENTS_FILE), "--json", "-", "--quiet"]
    p = subprocess.run(args, capture_output=True)
    assert p.returncode == 0, p.stderr
    mine = mlsched.run_events_json(SCENARIO, EVENTS)
    assert p.stdout.decode().rstrip("\n") == mine.rstrip("\n")


def test_logged_engine_is_the_offline_run_and_its_log():
    """A run fed one event at a time (as the Ray controller feeds it) keeps the log that
    `mlsched run --events --log` writes for the same events, and the log replays."""
    template = dict(json.loads(SCENARIO), jobs=[])
    events = [
        {"at": 0, "event": "submit", "job": NEW_JOB},
        {"at": 0, "event": "advance"},
        {"at": 3, "event": "submit", "job": dict(NEW_JOB, id="new-2", weight=300)},
        {"at": 3, "event": "advance"},
        {"at": 5, "event": "server_down", "server": "h1"},
        {"at": 5, "event": "advance"},
        {"at": 9, "event": "server_up", "server": "h1"},
        {"at": 9, "event": "advance"},
    ]
    e = mlsched.LoggedEngine(template)
    assert e.server_ids == ["h0", "h1", "h2"]
    decisions = []
    for ev in events:
        decisions += e.event(ev)
    assert e.job_ids == ["new-1", "new-2"] and e.now == 9
    result, log, rest = e.run_to_end()
    with pytest.raises(ValueError):
        e.event({"at": 10, "event": "advance"})
    offline, offline_log = mlsched.record_events(template, events)
    assert result == offline == mlsched.run(template, events=events)
    assert log == offline_log
    r = mlsched.replay(log)
    assert r["log_hash"] == result["log_hash"] and r["events"] > 0
    assert r["records"] == len(decisions) + len(rest)


def test_replay_refuses_a_damaged_log():
    template = dict(json.loads(SCENARIO), jobs=[])
    _, log = mlsched.record_events(template, [{"at": 0, "event": "submit", "job": NEW_JOB}])
    with pytest.raises(ValueError):
        mlsched.replay(log[:-7])
    bad = bytearray(log)
    bad[len(bad) // 2] ^= 0xFF
    with pytest.raises(ValueError):
        mlsched.replay(bytes(bad))
