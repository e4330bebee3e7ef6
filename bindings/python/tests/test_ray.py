"""mlsched driving a real local Ray cluster (ray.cluster_utils.Cluster: 4 nodes on 127.0.0.1,
each hosting scenario servers as ``mlsched_server_*`` custom resources) and the Ray sweep
backend. Run by ``bindings/python/run-ray-tests.sh``; skipped when ray is not installed."""
import json
import os
import pathlib
import time

import pytest

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
ray = pytest.importorskip("ray")
from ray.cluster_utils import Cluster  # noqa: E402

import mlsched  # noqa: E402
import mlsched.ray as mray  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[3]
OASIS = json.loads((ROOT / "scenarios" / "oasis-small.json").read_text())
ONLINE = json.loads((ROOT / "scenarios" / "online-ps-small.json").read_text())
NODES = 4
LOCAL = "127.0.0.1"


def merged_resources():
    """Both scenarios' servers on the same 4 nodes (capacities summed per node)."""
    out = [dict() for _ in range(NODES)]
    for scn in (OASIS, ONLINE):
        for k, r in enumerate(mray.node_resources(scn, NODES)):
            for name, v in r.items():
                out[k][name] = out[k].get(name, 0.0) + v
    return out


@pytest.fixture(scope="module")
def cluster():
    res = merged_resources()
    c = None
    try:
        c = Cluster(initialize_head=True, head_node_args={
            "node_ip_address": LOCAL, "resources": res[0], "num_cpus": 1,
            "include_dashboard": False})
        for r in res[1:]:
            c.add_node(node_ip_address=LOCAL, resources=r, num_cpus=1)
        c.wait_for_nodes()
        ray.init(address=c.address, log_to_driver=False)
        yield c
    finally:
        ray.shutdown()
        if c is not None:
            c.shutdown()


def node_of_server(server):
    for n in ray.nodes():
        if n["Alive"] and f"mlsched_server_{server}" in n["Resources"]:
            return n["NodeID"]
    raise AssertionError(server)


def check(report, scenario):
    offline = mlsched.run(scenario)
    assert report.result == offline
    assert report.result["log_hash"] == offline["log_hash"]
    assert report.placements, "nothing ran"
    # Every group ran on the node hosting its decided server.
    for p in report.placements:
        assert p["node_id"] == node_of_server(p["server"]) == p["expected_node_id"], p
    assert len({p["node_id"] for p in report.placements}) > 1
    assert not report.failures


def test_oasis_on_four_nodes(cluster):
    t = time.monotonic()
    rep = mray.execute(OASIS, slot_seconds=0.01, timeout_s=60)
    check(rep, OASIS)
    # Elastic: OASiS changes worker counts of a job between slots; each slot ran what was decided.
    jobs = rep.result["jobs"]
    for j, job in enumerate(jobs):
        for pl in job.get("placements", []):
            ran = sorted((p["server"], p["count"]) for p in rep.placements
                         if p["job"] == j and p["slot"] == pl["slot"])
            want = sorted([(f"w{s}", c) for s, c in pl["workers"] if c]
                          + [(f"ps{s}", c) for s, c in pl["ps"] if c])
            assert ran == want, (j, pl["slot"])
    finished = {c["job"] for c in rep.completions}
    assert finished == {j for j, job in enumerate(jobs) if job["admitted"]}
    print(f"oasis-small on {NODES} Ray nodes: {time.monotonic() - t:.2f} s, "
          f"{len(rep.placements)} tasks over {rep.slots} slots")


def test_online_and_a_failing_job(cluster):
    scheduled = [j for j, job in enumerate(mlsched.run(ONLINE)["jobs"]) if job["scheduled"]]
    bad = scheduled[0]
    rep = mray.execute(ONLINE, slot_seconds=0.01, fail_jobs=(bad,), timeout_s=60)
    assert rep.result == mlsched.run(ONLINE)
    assert [f["job"] for f in rep.failures] == [bad]
    assert "injected" in rep.failures[0]["error"]
    done = {c["job"] for c in rep.completions}
    assert done == set(scheduled) - {bad}
    for p in rep.placements:
        assert p["node_id"] == p["expected_node_id"], p
        assert p["job"] != bad


def test_missing_server_is_named(cluster):
    scn = dict(OASIS, worker_servers=OASIS["worker_servers"] + [[1, 1, 1, 1]])
    with pytest.raises(ValueError, match="mlsched_server_w3"):
        mray.execute(scn, slot_seconds=0.01)


def test_sweep_ray_equals_local(cluster):
    kw = dict(kind="online", jobs=10, servers=4, progress=False)
    local = mlsched.sweep("philly", "1..4", ["online", "fifo"], **kw)
    remote = mlsched.sweep("philly", "1..4", ["online", "fifo"], backend="ray", **kw)
    assert local == remote
    assert [(r["seed"], r["policy"]) for r in local] == [
        (s, p) for s in range(1, 5) for p in ("online", "fifo")]
