"""mlsched driving a Ray cluster: ``execute(scenario)`` runs a scenario's jobs as Ray work, with
mlsched's engine deciding every placement (needs ``pip install ray``).

Model
-----
- **Servers are Ray nodes.** Scenario server ``S`` is hosted by the Ray node carrying the custom
  resource ``mlsched_server_S``: ``w<i>`` / ``ps<i>`` for the worker / parameter-server servers
  of kind ``oasis``, ``h<i>`` for the servers of kind ``online``. ``node_resources(scenario, n)``
  gives the ``resources`` of ``n`` nodes hosting every server (round robin), with the servers'
  capacities as custom resources named as the scenario's ``resources`` list (the last entry,
  bandwidth, stays with mlsched and is not a Ray resource).
- **Time is the slot index.** The engine gets the events of ``mlsched.run`` (arrivals in the
  scenario's arrival order, ``advance`` at each event slot), so its decisions, and
  ``report.result``, are exactly ``mlsched.run(scenario)`` whatever Ray's timing. Slot ``t`` of
  the run lasts at least ``slot_seconds`` of wall time.
- **Decisions become Ray work.** Per slot, every (job, server, role) group the engine decided for
  that slot (role ``worker`` or ``ps``; OASiS: the ``oasis.slot`` records, elastic worker counts
  per slot; A_online: ``online.decision`` + ``online.placed``, the same placement from the start
  slot for ``duration`` slots) is one Ray task holding ``count x demand`` of each Ray-side
  resource, pinned to the node of its server by ``NodeAffinitySchedulingStrategy(node_id,
  soft=False)``. A slot's tasks run together; the next slot starts when they are done (so
  resources freed by a shrinking job are free before a growing one asks for them): elasticity is
  tasks starting and stopping per slot. Each task reads its node id inside Ray
  (``ray.get_runtime_context().get_node_id()``): ``report.placements``.
- **Completions come back from Ray as events**: a job is complete when the tasks of its last
  decided slot have returned (``report.completions``, with the slot and the wall time), and the
  engine is fed ``finished(job, slot + 1)`` for it — first thing in the next slot, as the event
  order says. OASiS and A_online take a completion as a clock event (they reserved the job's
  whole schedule at its decision), and event records are not part of ``log_hash``, so the result
  (and its ``log_hash``) is the offline run's.
- **Failures are reported, not lost**: a task that raises marks its job failed
  (``report.failures``: job, slot, server, error); the job's later slots are not started; other
  jobs go on.

Live submissions and node failures: ``Controller`` (module ``mlsched.ray_live``, re-exported
here) takes jobs while it runs, starts them where the engine decides (kind ``online``: A_online
or one of its baselines) and feeds back what Ray's node table says.

Kinds ``oasis`` and ``online`` with their own algorithms (``policy=None``). Not implemented
here: the baselines (the live ``Controller`` carries out kind online's; for a known scenario
their ``baseline.*`` records would map the same way, one group per server and slot), kind
``placement`` (a static assignment: one long-running group per job and server, no slots),
kind ``preempt`` (``preempt.dispatch`` to an edge node or the cloud, a preemption being a task
cancelled with ``ray.cancel`` and restarted later) and kind ``route`` (``route.placed``: one
group per pod on its server).
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from . import Engine, _text

__all__ = ["execute", "node_resources", "servers", "server_nodes", "Report", "Controller", "LiveReport"]


@dataclass
class Report:
    """What ``execute`` did.

    - ``result``: the result document, equal to ``mlsched.run(scenario)``.
    - ``placements``: one dict per Ray task that ran: ``job`` (index), ``job_id``, ``server``
      (``w0``, ``ps1``, ``h2``), ``role`` (``worker`` / ``ps``), ``count``, ``slot``,
      ``node_id`` (read inside the task), ``expected_node_id`` (the node carrying
      ``mlsched_server_<server>``).
    - ``completions``: ``{"job", "job_id", "slot", "wall_s"}`` per job whose last slot's tasks
      returned.
    - ``failures``: ``{"job", "job_id", "slot", "server", "error"}`` per job a task of which
      raised.
    - ``nodes``: server name -> Ray node id.
    - ``slots``: slots run; ``wall_s``: wall time of the run.
    """

    result: Dict[str, Any]
    placements: List[Dict[str, Any]] = field(default_factory=list)
    completions: List[Dict[str, Any]] = field(default_factory=list)
    failures: List[Dict[str, Any]] = field(default_factory=list)
    nodes: Dict[str, str] = field(default_factory=dict)
    slots: int = 0
    wall_s: float = 0.0


def servers(scenario: Any) -> List[Tuple[str, List[float]]]:
    """``(name, capacity)`` of every server of a kind ``oasis`` / ``online`` scenario."""
    d = json.loads(_text(scenario))
    kind = d.get("kind")
    if kind == "oasis":
        return ([(f"w{i}", list(c)) for i, c in enumerate(d["worker_servers"])]
                + [(f"ps{i}", list(c)) for i, c in enumerate(d["ps_servers"])])
    if kind == "online":
        return [(f"h{i}", list(c)) for i, c in enumerate(d["servers"])]
    raise ValueError(f"kind: mlsched.ray runs kinds oasis and online, not {kind!r}")


def _ray_resources(d: Dict[str, Any]) -> List[str]:
    names = list(d.get("resources") or [])
    return names[:-1]  # the last one, bandwidth, stays with mlsched


def node_resources(scenario: Any, nodes: int) -> List[Dict[str, float]]:
    """The custom ``resources`` of ``nodes`` Ray nodes hosting every server of ``scenario``
    (server k on node k mod ``nodes``): ``mlsched_server_<S>: 1`` and, per Ray-side resource,
    the sum of the hosted servers' capacities."""
    if nodes < 1:
        raise ValueError("nodes: at least 1")
    d = json.loads(_text(scenario))
    names = _ray_resources(d)
    out: List[Dict[str, float]] = [dict() for _ in range(nodes)]
    for k, (name, cap) in enumerate(servers(d)):
        r = out[k % nodes]
        r[f"mlsched_server_{name}"] = 1.0
        for i, n in enumerate(names):
            v = float(cap[i]) if i < len(cap) else 0.0
            if v > 0:
                r[n] = r.get(n, 0.0) + v
    return out


def _unit(job: int, server: str, role: str, count: int, slot: int, seconds: float,
          fail: bool) -> Dict[str, Any]:
    """One (job, server, role) group for one slot, inside Ray."""
    import ray  # type: ignore

    node = ray.get_runtime_context().get_node_id()
    if fail:
        raise RuntimeError(f"job {job}: {role}s on {server} failed in slot {slot} (injected)")
    time.sleep(seconds)
    return {"job": job, "server": server, "role": role, "count": count, "slot": slot,
            "node_id": node}


class _Plan:
    """Per job: slot -> [(server, role, count)], and each role's per-unit Ray resources."""

    def __init__(self, d: Dict[str, Any]) -> None:
        self.d = d
        self.kind = d["kind"]
        self.names = _ray_resources(d)
        self.slots: Dict[int, Dict[int, List[Tuple[str, str, int]]]] = {}
        self.demand: Dict[Tuple[int, str], List[float]] = {}
        self.online: Dict[int, Dict[str, Any]] = {}

    def _add(self, job: int, slot: int, server: str, role: str, count: int) -> None:
        if count > 0:
            self.slots.setdefault(job, {}).setdefault(slot, []).append((server, role, count))

    def take(self, decisions: List[Dict[str, Any]]) -> None:
        for dec in decisions:
            rec, data = dec["record"], dec["data"]
            if rec == "oasis.slot":
                j, t = int(data["job"]), int(data["slot"])
                job = self.d["jobs"][j]
                self.demand[(j, "worker")] = list(job["worker_demand"])
                self.demand[(j, "ps")] = list(job["ps_demand"])
                for s, c in data.get("workers", []):
                    self._add(j, t, f"w{s}", "worker", int(c))
                for s, c in data.get("ps", []):
                    self._add(j, t, f"ps{s}", "ps", int(c))
            elif rec == "online.decision" and data.get("scheduled"):
                j = int(data["job"])
                self.online[j] = data
                wt = self.d["worker_types"][int(data["worker_type"])]
                self.demand[(j, "worker")] = list(wt["demand"])
                pt = data.get("ps_type")
                if pt is not None and self.d.get("ps_types"):
                    self.demand[(j, "ps")] = list(self.d["ps_types"][int(pt)]["demand"])
            elif rec == "online.placed":
                j = int(data["job"])
                dd = self.online.get(j)
                if dd is None:
                    continue
                start, dur = int(dd["start"]), int(dd["duration"])
                for t in range(start, start + dur):
                    self._add(j, t, f"h{data['server']}", "worker", int(data.get("workers", 0)))
                    self._add(j, t, f"h{data['server']}", "ps", int(data.get("ps", 0)))

    def resources(self, job: int, role: str, count: int) -> Dict[str, float]:
        dem = self.demand.get((job, role), [])
        out = {}
        for i, n in enumerate(self.names):
            v = float(dem[i]) * count if i < len(dem) else 0.0
            if v > 0:
                out[n] = round(v, 4)
        return out

    def last_slot(self) -> int:
        return max((max(s) for s in self.slots.values() if s), default=-1)


def server_nodes() -> Dict[str, str]:
    """Server id -> id of the alive Ray node carrying ``mlsched_server_<server>`` (the first
    such node in Ray's node table): where ``execute`` and ``Controller`` run a server's tasks."""
    import ray  # type: ignore

    out: Dict[str, str] = {}
    for n in ray.nodes():
        if not n.get("Alive"):
            continue
        for r in n.get("Resources", {}):
            if r.startswith("mlsched_server_"):
                out.setdefault(r[len("mlsched_server_"):], n["NodeID"])
    return out


def execute(scenario: Any, *, slot_seconds: float = 0.1, address: Optional[str] = None,
            policy: Optional[str] = None, fail_jobs: Tuple[int, ...] = (),
            timeout_s: float = 600.0) -> Report:
    """Runs ``scenario`` (kind ``oasis`` or ``online``; a dict, JSON text or bytes) on a Ray
    cluster with mlsched deciding (see the module's documentation); returns a ``Report``.

    ``address``: ``None`` uses the cluster this process is connected to
    (``ray.is_initialized()``), else starts a local Ray instance hosting every server (and shuts
    it down at the end); an address is passed to ``ray.init``. Every server must be hosted by an
    alive node (``mlsched_server_<S>``), else ``ValueError`` names the first that is not.
    ``fail_jobs``: job indices whose tasks raise (to exercise failure reporting).
    ``timeout_s``: the longest a slot's tasks may take (a slot that cannot be placed, e.g. a
    node lacking the resources, raises ``TimeoutError`` instead of hanging).
    """
    import ray  # type: ignore
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy  # type: ignore

    text = _text(scenario)
    d = json.loads(text)
    names = [n for n, _ in servers(d)]
    if policy is not None and policy not in ("oasis", "online"):
        raise ValueError(f"policy: mlsched.ray runs the kind's own algorithm, not {policy!r}")
    started = False
    if not ray.is_initialized():
        if address is None:
            ray.init(resources=node_resources(d, 1)[0], include_dashboard=False,
                     log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
        started = True
    try:
        nodes = server_nodes()
        for s in names:
            if s not in nodes:
                raise ValueError(f"server {s}: no alive Ray node carries the resource mlsched_server_{s}")
        task = ray.remote(num_cpus=0, max_retries=0)(_unit)
        e = Engine(text, policy)
        plan = _Plan(d)
        ids = e.job_ids
        arrivals = list(e.arrival_order)
        report = Report(result={}, nodes=dict(nodes))
        failed: Dict[int, bool] = {}
        fail = set(int(j) for j in fail_jobs)
        t0 = time.monotonic()

        def earliest(a: Optional[int], b: Optional[int]) -> Optional[int]:
            return a if b is None else b if a is None else min(a, b)

        nxt = 0
        event = earliest(arrivals[0][0] if arrivals else None, e.next_wakeup)
        slot = 0
        while True:
            if event is not None and event == slot:
                while nxt < len(arrivals) and arrivals[nxt][0] <= slot:
                    plan.take(e.arrive(arrivals[nxt][1], slot))
                    nxt += 1
                plan.take(e.advance(slot))
                wake = e.next_wakeup
                if wake is not None:
                    wake = max(wake, slot + 1)
                event = earliest(arrivals[nxt][0] if nxt < len(arrivals) else None, wake)
                if event is not None and event < slot:
                    event = slot + 1
            if event is None and slot > plan.last_slot():
                break
            # The slot's Ray work: one task per (job, server, role) group.
            refs: Dict[Any, Tuple[int, str, str]] = {}
            tick = time.monotonic()
            for j in sorted(plan.slots):
                if failed.get(j):
                    continue
                for server, role, count in plan.slots[j].get(slot, []):
                    opts = dict(
                        resources=plan.resources(j, role, count),
                        scheduling_strategy=NodeAffinitySchedulingStrategy(nodes[server], soft=False),
                    )
                    ref = task.options(**opts).remote(j, server, role, count, slot, slot_seconds,
                                                      j in fail)
                    refs[ref] = (j, server, role)
            pending = list(refs)
            deadline = time.monotonic() + timeout_s
            while pending:
                done, pending = ray.wait(pending, num_returns=len(pending),
                                         timeout=max(0.0, deadline - time.monotonic()))
                if not done and pending:
                    raise TimeoutError(
                        f"slot {slot}: {len(pending)} Ray tasks not done after {timeout_s} s "
                        "(a node without the decided resources?)")
                for ref in done:
                    j, server, role = refs[ref]
                    try:
                        p = ray.get(ref)
                    except Exception as ex:  # a task that raised: the job failed
                        if not failed.get(j):
                            failed[j] = True
                            report.failures.append({"job": j, "job_id": ids[j], "slot": slot,
                                                    "server": server, "error": str(ex).strip().splitlines()[-1]})
                        continue
                    p["job_id"] = ids[j]
                    p["expected_node_id"] = nodes[server]
                    report.placements.append(p)
            # Completions: jobs whose last decided slot is this one.
            for j in sorted(plan.slots):
                slots_j = plan.slots[j]
                if slots_j and max(slots_j) == slot and not failed.get(j):
                    report.completions.append({"job": j, "job_id": ids[j], "slot": slot,
                                               "wall_s": time.monotonic() - t0})
                    e.finished(j, slot + 1)
            rest = slot_seconds - (time.monotonic() - tick)
            if rest > 0 and not refs:
                time.sleep(rest)
            slot += 1
        report.result = e.finish()
        report.slots = slot
        report.wall_s = time.monotonic() - t0
        report.placements.sort(key=lambda p: (p["slot"], p["job"], p["role"], p["server"]))
        return report
    finally:
        if started:
            ray.shutdown()


# The live controller (submissions over time, node failures) lives in its own module.
from .ray_live import Controller, LiveReport  # noqa: E402
