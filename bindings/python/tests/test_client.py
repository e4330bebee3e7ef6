"""``mlsched.Client`` against a real ``mlsched-serve`` process on a free loopback port
(``docs/serve.md``): a session of open-world events whose ``finish`` gives the ``log_hash`` of
``mlsched.run(scenario, events=...)`` offline, the live stream, the log and snapshot, and the
service's refusals as exceptions (401 with a bad token, 400 naming the field, 404, 409).

The binary is ``MLSCHED_SERVE_BIN`` (``run-tests.sh`` builds it), else ``target/{debug,release}/
mlsched-serve``; without one the tests are skipped, saying so."""
import json
import os
import pathlib
import subprocess
import threading

import pytest

import mlsched

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCENARIO = (ROOT / "scenarios/online-ps-small.json").read_text()
SAMPLE = [json.loads(line) for line in
          (ROOT / "bindings/events/online-ps-small.jsonl").read_text().splitlines() if line.strip()]
TOKEN = "s3cret-token"

NEW_JOB = {
    "id": "new-1", "weight": 700, "epochs": 10, "chunks": 4, "minibatches_per_chunk": 10,
    "minibatch_time": [0.01, 0.006], "update_time": [0.001], "gradient_size": 0.002,
}


def _binary():
    env = os.environ.get("MLSCHED_SERVE_BIN")
    if env:
        return env
    for p in (ROOT / "target/debug/mlsched-serve", ROOT / "target/release/mlsched-serve"):
        if p.is_file():
            return str(p)
    return None


BIN = _binary()
pytestmark = pytest.mark.skipif(
    BIN is None, reason="no mlsched-serve binary (cargo build -p mlsched-serve; set MLSCHED_SERVE_BIN)")


class Service:
    """``mlsched-serve --listen 127.0.0.1:0 --state DIR [--token-file F]``, stopped by stop()."""

    def __init__(self, state, token=None):
        args = [BIN, "--listen", "127.0.0.1:0", "--state", str(state)]
        if token is not None:
            f = state.parent / (state.name + ".token")
            f.write_text(token + "\n")
            args += ["--token-file", str(f)]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = self.proc.stdout.readline().decode()
        if not line.startswith("listening on "):
            self.proc.kill()
            raise RuntimeError(f"mlsched-serve did not start: {line!r} {self.proc.stderr.read()!r}")
        self.url = "http://" + line.split()[2]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    s = Service(tmp_path_factory.mktemp("serve") / "state")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    s = Service(tmp_path_factory.mktemp("serve-token") / "state", token=TOKEN)
    yield s
    s.stop()


def _session_events():
    """The listed jobs' arrivals at their slots, the bindings' sample server events, a
    submission and a cancel, in slot order; then `advance` at each scheduler wake-up until the
    engine has none, so the service's `finish` ends where a whole run ends."""
    arrivals = [{"at": j["arrival"], "event": "arrive", "job": j["id"]}
                for j in json.loads(SCENARIO)["jobs"]]
    extra = [{"at": 4, "event": "submit", "job": NEW_JOB},
             {"at": 7, "event": "cancel", "job": "j3"}]
    # Stable sort by slot: at one slot the sample's events come first, then the arrivals, then
    # the submission (the order of `mlsched run --events`, docs/open-world.md).
    events = sorted(SAMPLE + arrivals + extra,
                    key=lambda e: (e["at"], {"submit": 2, "arrive": 1}.get(e["event"], 0)))
    e = mlsched.Engine(SCENARIO)
    for ev in events:
        e.event(ev)
    while e.next_wakeup is not None and len(events) < 10_000:
        ev = {"at": e.next_wakeup, "event": "advance"}
        e.event(ev)
        events.append(ev)
    return events, e.finish()


def test_health_and_repr(service):
    c = mlsched.Client(service.url)
    assert c.health()["status"] == "ok"
    assert "Client" in repr(c)
    with pytest.raises(ValueError):
        mlsched.Client("ftp://x")


def test_a_session_finishes_as_the_offline_run(service):
    events, engine_result = _session_events()
    c = mlsched.Client(service.url)
    cl = c.create("session", SCENARIO)
    assert cl.created["seq"] == 0 and cl.created["kind"] == "online"
    assert cl.info()["jobs"] == 6
    streamed = []
    ready = threading.Event()

    def listen():
        ready.set()
        for entry in cl.stream(after=0, timeout=30):
            streamed.append(entry)

    t = threading.Thread(target=listen)
    t.start()
    ready.wait()
    acks = []
    for ev in events:
        kind = ev["event"]
        # The shorthands, where one fits; event() otherwise.
        if kind == "arrive":
            acks.append(cl.arrive(ev["job"], ev["at"]))
        elif kind == "submit":
            acks.append(cl.submit(ev["job"], ev["at"]))
        elif kind == "cancel":
            acks.append(cl.cancel(ev["job"], ev["at"]))
        elif kind == "server_down":
            acks.append(cl.server_down(ev["server"], ev["at"]))
        elif kind == "server_up":
            acks.append(c.server_up("session", ev["server"], ev["at"]))
        elif kind == "capacity":
            acks.append(cl.set_capacity(ev["server"], ev["capacity"], ev["at"]))
        elif kind == "advance":
            acks.append(cl.advance(ev["at"]))
        else:
            acks.append(cl.event(ev))
    assert [a["seq"] for a in acks] == list(range(1, len(events) + 1))
    history = cl.decisions(after=0)
    assert [h["seq"] for h in history] == [a["seq"] for a in acks]
    assert [h["decisions"] for h in history] == [a["decisions"] for a in acks]
    assert cl.decisions(after=len(events) - 1) == history[-1:]

    snap = cl.snapshot()
    restored = mlsched.Engine.restore(SCENARIO, snap)
    assert restored.now == events[-1]["at"]
    log = cl.log()
    assert isinstance(log, bytes) and len(log) > 0

    result = cl.finish()
    offline = mlsched.run(SCENARIO, events=events)
    assert result["log_hash"] == offline["log_hash"]
    assert result["log_hash"] == engine_result["log_hash"]
    assert cl.finish()["log_hash"] == result["log_hash"]
    t.join(timeout=30)
    assert not t.is_alive(), "the stream ends when the cluster finishes"
    assert streamed == history

    with pytest.raises(mlsched.Conflict) as x:
        cl.advance(events[-1]["at"] + 1)
    assert x.value.status == 409
    if (ROOT / "target").exists():
        _replays(log)
    cl.delete()
    with pytest.raises(mlsched.NotFound):
        cl.info()


def _replays(log):
    """`mlsched replay` of the served log, when the CLI is at hand."""
    cli = os.environ.get("MLSCHED_CLI")
    if not cli or not os.path.isfile(cli):
        return
    p = ROOT / "target" / f"client-test-{os.getpid()}.mlog"
    p.write_bytes(log)
    try:
        r = subprocess.run([cli, "replay", str(p)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    finally:
        p.unlink()


def test_bad_events_raise_value_errors_naming_the_field(service):
    c = mlsched.Client(service.url)
    cl = c.create("refusals", SCENARIO, policy="fifo")
    cl.arrive("j1", 0)
    with pytest.raises(ValueError) as x:
        cl.server_down("h9", 1)
    e = x.value
    assert isinstance(e, mlsched.BadRequest) and isinstance(e, mlsched.ServeError)
    assert (e.status, e.field) == (400, "server")
    assert "h9" in e.message
    with pytest.raises(mlsched.BadRequest) as x:
        cl.submit(dict(NEW_JOB, id="j1"), 1)
    assert x.value.field == "job.id"
    with pytest.raises(mlsched.BadRequest) as x:
        cl.arrive("j2", 0)  # before its arrival
    assert x.value.field == "at"
    with pytest.raises(mlsched.BadRequest) as x:
        cl.event('{"at": 1, "event": "advance", "extra": 1}')
    assert x.value.status == 400 and x.value.field
    # Nothing refused was applied.
    assert cl.info()["seq"] == 1
    with pytest.raises(mlsched.Conflict):
        c.create("refusals", SCENARIO)
    with pytest.raises(mlsched.BadRequest) as x:
        c.create("../etc", SCENARIO)
    assert x.value.field == "name"
    with pytest.raises(mlsched.BadRequest) as x:
        c.create("badpolicy", SCENARIO, policy="nope")
    with pytest.raises(mlsched.NotFound):
        c.advance("nobody", 1)
    with pytest.raises(TypeError):
        cl.event(3)


def test_a_token_is_needed(guarded):
    assert mlsched.Client(guarded.url).health()["status"] == "ok"  # no token needed
    for token in (None, "wrong"):
        with pytest.raises(mlsched.Unauthorized) as x:
            mlsched.Client(guarded.url, token=token).create("t", SCENARIO)
        assert x.value.status == 401 and x.value.field == "authorization"
    c = mlsched.Client(guarded.url, token=TOKEN)
    cl = c.create("t", SCENARIO)
    assert cl.arrive("j1", 0)["seq"] == 1
    live = cl.stream(after=0, timeout=30)
    assert next(live)["seq"] == 1
    live.close()
    with pytest.raises(mlsched.Unauthorized):
        next(mlsched.Client(guarded.url, token="wrong").cluster("t").stream())
    assert "mlsched_serve_events_total" in c.metrics()
