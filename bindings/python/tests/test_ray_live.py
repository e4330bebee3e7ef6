"""``mlsched.ray.Controller`` on a real local Ray cluster (``ray.cluster_utils.Cluster``: 4 nodes
on 127.0.0.1, node k hosting server ``h<k>`` as the custom resource ``mlsched_server_h<k>``):
jobs submitted over time, one node removed mid-run (its jobs interrupted and handled by
A_online's open-world rule) and a replacement joining; the live run equals the offline run of
the events it fed, and its decision log replays identical; the same with the FIFO baseline
(``baseline.*`` records, a node removed) and with AntMan cutting a running job. Run by
``bindings/python/run-ray-tests.sh``; skipped when ray is not installed."""
import os
import pathlib
import subprocess
import time

import pytest

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

import mlsched  # noqa: E402
import mlsched.ray as mray  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
LOCAL = "127.0.0.1"
SLOT = 0.5

# Kind online, no jobs: 4 servers of 4 GPUs (one per Ray node), the types of
# scenarios/online-ps-small.json.
TEMPLATE = {
    "kind": "online", "slots": 128, "architecture": "ps",
    "resources": ["gpu", "cpu", "bw_gbps"],
    "servers": [[4, 32, 10], [4, 32, 10], [4, 32, 10], [4, 32, 10]],
    "worker_types": [{"demand": [1, 4, 1], "bw": 1.0}, {"demand": [2, 8, 2], "bw": 2.0}],
    "ps_types": [{"demand": [0, 4, 5], "bw": 5.0}],
    "F": 4.0, "alpha": 2, "jobs": [],
}


def job(i, weight, epochs, chunks, mb):
    return {"id": f"j{i}", "weight": weight, "epochs": epochs, "chunks": chunks,
            "minibatches_per_chunk": mb, "minibatch_time": [0.01, 0.006],
            "update_time": [0.001], "gradient_size": 0.002}


# Submitted in three waves (a wave a few slots after the previous one).
WAVES = [
    [job(1, 1200, 20, 8, 20), job(2, 800, 25, 6, 30)],
    [job(3, 3000, 30, 16, 15), job(4, 500, 30, 6, 20)],
    [job(5, 2500, 30, 12, 25), job(6, 400, 20, 10, 20)],
]


@pytest.fixture
def cluster():
    res = mray.node_resources(TEMPLATE, 4)
    c = None
    try:
        c = Cluster(initialize_head=True, head_node_args={
            "node_ip_address": LOCAL, "resources": res[0], "num_cpus": 1,
            "include_dashboard": False})
        nodes = {"h0": c.head_node}
        for k, r in enumerate(res[1:], start=1):
            nodes[f"h{k}"] = c.add_node(node_ip_address=LOCAL, resources=r, num_cpus=1)
        c.wait_for_nodes()
        ray.init(address=c.address, log_to_driver=False)
        yield c, nodes, res
    finally:
        ray.shutdown()
        if c is not None:
            c.shutdown()


def until(cond, what, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = cond()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def running_victim(ctl):
    """A server other than the head's (h0) held by a job whose tasks run now."""
    for jid, groups in ctl.running().items():
        for server, _, _ in groups:
            if server != "h0":
                return jid, server
    return None


def test_live_submissions_and_a_lost_node(cluster):
    c, nodes, res = cluster
    t = time.monotonic()
    ctl = mray.Controller(TEMPLATE, slot_seconds=SLOT)
    try:
        for k, wave in enumerate(WAVES):
            for j in wave:
                # A job's task trains for 8 slots (``time.sleep``: Ray's workers import it).
                ctl.submit(j, time.sleep, 8 * SLOT)
            if k + 1 < len(WAVES):
                time.sleep(3 * SLOT)
        victim_job, victim = until(lambda: running_victim(ctl), "a job running off the head",
                                   timeout=90)
        c.remove_node(nodes[victim])
        until(lambda: any(e["event"] == "server_down" for e in ctl.events), "server_down")
        # A replacement node hosting the same server joins: server_up.
        c.add_node(node_ip_address=LOCAL, resources=res[int(victim[1:])], num_cpus=1)
        until(lambda: any(e["event"] == "server_up" for e in ctl.events), "server_up")
        rep = ctl.wait(timeout_s=150)
    finally:
        ctl.close()
    wall = time.monotonic() - t

    events = rep.events
    down = [e for e in events if e["event"] == "server_down"]
    up = [e for e in events if e["event"] == "server_up"]
    assert [e["server"] for e in down] == [victim] and [e["server"] for e in up] == [victim]
    submitted = [e["job"]["id"] for e in events if e["event"] == "submit"]
    assert submitted == [j["id"] for w in WAVES for j in w]
    assert len({e["at"] for e in events if e["event"] == "submit"}) >= 2, "one wave only"
    assert not rep.refused and not rep.failures

    # The live run is the offline run of the same events: decisions, placements, statuses, log.
    offline = mlsched.run(TEMPLATE, events=events)
    assert rep.result == offline
    result, log = mlsched.record_events(TEMPLATE, events)
    assert result == offline and log == rep.log
    assert mlsched.replay(rep.log)["log_hash"] == rep.result["log_hash"]

    # The victim's job was interrupted at the down slot, and A_online's rule decided the rest:
    # placed again by a later round (it then ran again, on alive nodes, and finished) or lost.
    t_down = down[0]["at"]
    ids = [r["id"] for r in rep.result["jobs"]]
    cut = [d for d in rep.decisions if d["record"] == "online.interrupted"]
    assert victim_job in {ids[int(d["data"]["job"])] for d in cut}
    again = [d for d in rep.decisions if d["record"] == "online.decision"
             and d["data"]["scheduled"] and ids[int(d["data"]["job"])] == victim_job
             and int(d["data"]["start"]) >= t_down]
    assert rep.statuses[victim_job] == ("finished" if again else "lost")
    ran = [p for p in rep.placements if p["job_id"] == victim_job]
    assert any(p["outcome"] in ("failed", "cancelled") and p["launched"] < t_down for p in ran)
    if again:
        assert any(p["launched"] >= t_down and p["outcome"] == "returned" for p in ran)

    # Every job reached an end state; every task that returned ran on its server's node; no
    # task started on the victim's server while it was down.
    assert set(rep.statuses) == set(submitted)
    assert set(rep.statuses.values()) <= {"finished", "lost", "rejected"}
    for p in rep.placements:
        if p["outcome"] == "returned":
            assert p["node_id"] == p["expected_node_id"], p
        if p["server"] == victim:
            assert not (t_down <= p["launched"] < up[0]["at"]), p
    assert len({p["expected_node_id"] for p in rep.placements}) > 1

    cli = os.environ.get("MLSCHED_CLI")
    if cli and os.path.isfile(cli):
        f = pathlib.Path(os.environ.get("TMPDIR", "/tmp")) / f"ray-live-{os.getpid()}.log"
        f.write_bytes(rep.log)
        try:
            p = subprocess.run([cli, "replay", str(f)], capture_output=True, text=True)
            assert p.returncode == 0, p.stderr
        finally:
            f.unlink()
    print(f"live on 4 Ray nodes: {wall:.1f} s, {len(events)} events over {rep.slots} slots, "
          f"{len(rep.placements)} tasks; {victim} lost at slot {t_down}: {victim_job} "
          f"{rep.statuses[victim_job]}")


@pytest.mark.parametrize("policy", [None, "fifo"])
def test_cancel_a_running_job_and_a_missing_server(cluster, policy):
    with pytest.raises(ValueError, match="mlsched_server_h4"):
        mray.Controller(dict(TEMPLATE, servers=TEMPLATE["servers"] + [[4, 32, 10]]))
    ctl = mray.Controller(TEMPLATE, policy=policy, slot_seconds=SLOT)
    try:
        small = job(7, 1200, 20, 8, 20)  # A_online: placed at slot 17 for 6 slots; FIFO: at once
        ctl.submit(small, time.sleep, 120.0)
        with pytest.raises(ValueError, match="already submitted"):
            ctl.submit(small, time.sleep, 1.0)
        until(lambda: "j7" in ctl.running(), "j7 running")
        ctl.cancel("j7")
        with pytest.raises(ValueError, match="already ended"):
            ctl.cancel("j7")
        rep = ctl.wait(timeout_s=60)
    finally:
        ctl.close()
    assert [e["event"] for e in rep.events if e["event"] != "advance"] == ["submit", "cancel"]
    assert rep.statuses == {"j7": "cancelled"}
    assert rep.placements and all(p["outcome"] == "cancelled" for p in rep.placements)
    assert rep.result == mlsched.run(TEMPLATE, policy=policy, events=rep.events)
    assert mlsched.replay(rep.log)["log_hash"] == rep.result["log_hash"]
    ended = "baseline.cancelled" if policy else "online.interrupted"
    assert [d["record"] for d in rep.decisions if d["record"] == ended] == [ended]


def test_template_checks():
    with pytest.raises(ValueError, match="kind"):
        mray.Controller(dict(TEMPLATE, kind="oasis"))
    with pytest.raises(ValueError, match="jobs"):
        mray.Controller(dict(TEMPLATE, jobs=[dict(WAVES[0][0], arrival=0)]))
    with pytest.raises(ValueError, match="policy"):
        mray.Controller(TEMPLATE, policy="oasis-fifo")


# A baseline's live run: kind online's FIFO (``baseline.*`` records) on the same servers; its
# jobs take 4 workers each (8-11 slots in its model), spread over every server, two at a time.
BASELINE_SLOT = 0.4
BASELINE_WAVES = [
    [job(11, 1200, 40, 4, 20), job(12, 800, 40, 4, 30)],
    [job(13, 3000, 60, 4, 15), job(14, 500, 40, 4, 20)],
]


def test_baseline_live_submissions_and_a_lost_node(cluster):
    c, nodes, res = cluster
    template = dict(TEMPLATE, slots=64)
    t = time.monotonic()
    ctl = mray.Controller(template, policy="fifo", slot_seconds=BASELINE_SLOT)
    try:
        for k, wave in enumerate(BASELINE_WAVES):
            for j in wave:
                # A task trains for 4 slots, less than the job's model duration: it returns
                # while the baseline still counts the job as running (``finished`` is a clock
                # event for it).
                ctl.submit(j, time.sleep, 4 * BASELINE_SLOT)
            if k + 1 < len(BASELINE_WAVES):
                time.sleep(3 * BASELINE_SLOT)
        victim_job, victim = until(lambda: running_victim(ctl), "a job running off the head")
        c.remove_node(nodes[victim])
        until(lambda: any(e["event"] == "server_down" for e in ctl.events), "server_down")
        c.add_node(node_ip_address=LOCAL, resources=res[int(victim[1:])], num_cpus=1)
        until(lambda: any(e["event"] == "server_up" for e in ctl.events), "server_up")
        rep = ctl.wait(timeout_s=90)
    finally:
        ctl.close()
    wall = time.monotonic() - t

    events = rep.events
    down = [e for e in events if e["event"] == "server_down"]
    up = [e for e in events if e["event"] == "server_up"]
    assert [e["server"] for e in down] == [victim] and [e["server"] for e in up] == [victim]
    submitted = [e["job"]["id"] for e in events if e["event"] == "submit"]
    assert submitted == [j["id"] for w in BASELINE_WAVES for j in w]
    assert not rep.refused and not rep.failures

    # The live run is the offline run of the same events under the same policy.
    offline = mlsched.run(template, policy="fifo", events=events)
    assert rep.result == offline
    result, log = mlsched.record_events(template, events, policy="fifo")
    assert result == offline and log == rep.log
    assert mlsched.replay(rep.log)["log_hash"] == rep.result["log_hash"]

    # Only the baseline's records; the victim's run was interrupted at the down slot and the
    # baseline started it again (a later ``baseline.placed``), afresh, on alive nodes.
    records = {d["record"] for d in rep.decisions}
    assert "baseline.start" in records and not any(r.startswith("online.") for r in records)
    t_down = down[0]["at"]
    ids = [r["id"] for r in rep.result["jobs"]]
    cut = [d for d in rep.decisions if d["record"] == "baseline.interrupted"]
    assert victim_job in {ids[int(d["data"]["job"])] for d in cut}
    ran = [p for p in rep.placements if p["job_id"] == victim_job]
    assert any(p["outcome"] in ("failed", "cancelled") and p["launched"] <= t_down for p in ran)
    assert any(p["launched"] >= t_down and p["outcome"] == "returned" for p in ran)
    assert rep.statuses[victim_job] == "finished"

    # Each task group is one baseline.placed group, at its slot; the Ray-side types are the
    # baseline's (the result rows name them).
    placed = sorted((ids[int(d["data"]["job"])], int(d["data"]["slot"]), f"h{d['data']['server']}")
                    for d in rep.decisions if d["record"] == "baseline.placed")
    assert sorted({(p["job_id"], p["slot"], p["server"]) for p in rep.placements}) <= placed
    rows = {r["id"]: r for r in rep.result["jobs"]}
    for jid in submitted:
        assert (ctl._jobs[jid].worker_type, ctl._jobs[jid].ps_type) == (
            rows[jid]["worker_type"], rows[jid]["ps_type"])
    for p in rep.placements:
        if p["outcome"] == "returned":
            assert p["node_id"] == p["expected_node_id"], p
        if p["server"] == victim:
            assert not (t_down <= p["launched"] < up[0]["at"]), p
    assert set(rep.statuses) == set(submitted)
    assert set(rep.statuses.values()) == {"finished"}
    print(f"fifo live on 4 Ray nodes: {wall:.1f} s, {len(events)} events over {rep.slots} "
          f"slots, {len(rep.placements)} tasks; {victim} lost at slot {t_down}: {victim_job} "
          f"{rep.statuses[victim_job]}")


def test_antman_preempts_a_live_job(cluster):
    """AntMan: j22 (light, opportunistic) runs beside j21; j23 (heavy, a resource guarantee)
    arrives, does not fit, and cuts j22 (``baseline.preempted``): the controller cancels
    j22's tasks and starts it afresh when AntMan places it again."""
    template = dict(TEMPLATE, slots=48)
    ctl = mray.Controller(template, policy="antman", slot_seconds=BASELINE_SLOT)
    try:
        ctl.submit(job(21, 3000, 40, 4, 20), time.sleep, 4 * BASELINE_SLOT)
        ctl.submit(job(22, 100, 40, 4, 30), time.sleep, 6 * BASELINE_SLOT)
        until(lambda: "j22" in ctl.running(), "j22 running")
        ctl.submit(job(23, 5000, 40, 4, 15), time.sleep, 4 * BASELINE_SLOT)
        rep = ctl.wait(timeout_s=60)
    finally:
        ctl.close()
    assert not rep.refused and not rep.failures
    offline = mlsched.run(template, policy="antman", events=rep.events)
    assert rep.result == offline
    assert mlsched.record_events(template, rep.events, policy="antman")[1] == rep.log
    ids = [r["id"] for r in rep.result["jobs"]]
    cuts = [d["data"] for d in rep.decisions if d["record"] == "baseline.preempted"]
    assert [(ids[int(c["job"])], ids[int(c["by"])]) for c in cuts] == [("j22", "j23")]
    t_cut = int(cuts[0]["slot"])
    ran = [p for p in rep.placements if p["job_id"] == "j22"]
    first = [p for p in ran if p["launched"] < t_cut]
    again = [p for p in ran if p["launched"] > t_cut]
    assert first and all(p["outcome"] == "cancelled" for p in first)
    assert again and all(p["outcome"] == "returned" for p in again)
    assert rep.statuses == {"j21": "finished", "j22": "finished", "j23": "finished"}
