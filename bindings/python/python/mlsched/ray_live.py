"""mlsched in front of a live Ray cluster: ``Controller`` takes jobs submitted while it runs,
runs each as Ray tasks where and when mlsched's engine decides, and feeds the engine what Ray
reports (tasks done, nodes lost and back). Re-exported as ``mlsched.ray.Controller``.

Model (kind ``online``: A_online or a baseline)
-----------------------------------------------
- **Servers are Ray nodes**, as for ``mlsched.ray.execute``: server ``S`` of the template is
  hosted by the alive Ray node carrying the custom resource ``mlsched_server_S`` (``h0``,
  ``h1``, ...; ``mlsched.ray.node_resources(template, n)`` gives the resources of ``n`` such
  nodes). Every server needs an alive node when the controller starts.
- **Time is wall-clock slots**: slot ``t`` begins ``t * slot_seconds`` after the controller
  started. At each slot boundary a background thread feeds the engine, in this order, what
  happened since the last one: ``finished`` for jobs whose Ray tasks all returned, ``cancel``
  for jobs cancelled (``Controller.cancel``) or failed, ``server_down`` / ``server_up`` for
  servers whose node left or (re)joined Ray's node table (``ray.nodes()``, ``Alive``), the
  ``submit`` of each job submitted (``Controller.submit``), then ``advance`` (also when the
  scheduler asked to be woken by then). Every event fed is kept (``Controller.events``), so
  ``mlsched.run(template, events=controller.events)`` is the same run: the same decisions,
  placements and statuses, and ``mlsched.record_events`` gives the same log bytes.
- **Policies**: ``policy=None`` (or ``"online"``) is A_online; any other name of
  ``mlsched.policies("online")`` (``fifo``, ``drf``, ``las``, ``optimus``, ``antman``, ...) is
  that baseline, which re-decides every slot (the controller then feeds ``advance`` at every
  slot boundary up to the horizon).
- **Decisions become Ray tasks**: a plan of job j from slot ``start`` is, for A_online, an
  ``online.decision`` that schedules j with its ``online.placed`` records, and for a baseline
  its ``baseline.placed`` records (written before the ``baseline.start`` of the same slot:
  the first one opens the plan). Each ``*.placed`` gives j's workers and parameter servers on
  one server. At slot ``start`` the controller starts one Ray task per (server, role) group
  running ``fn(*args)`` with ``count x demand`` of each Ray-side resource (the template's
  ``resources`` but the last, bandwidth), pinned to the server's node
  (``NodeAffinitySchedulingStrategy(node, soft=False)``, no retries). A baseline's records
  name no worker or PS type: the controller takes the baseline's own choice (the types with the
  shortest time per mini-batch). The job has finished when all its tasks returned.
- **A plan ends** with ``online.interrupted``, ``baseline.interrupted`` (a server it holds
  went down or lost capacity), ``baseline.preempted`` (a baseline, e.g. AntMan, cut it to make
  room) or ``baseline.cancelled``: the controller cancels the job's tasks still running
  (``ray.cancel(force=True)``); unless the job is cancelled or A_online did not requeue it,
  it waits, and the policy's next plan for it starts it afresh on its new servers
  (``slurm/src/bridge/plans.rs`` reads the same records for the Slurm bridge).
- **Failures**: a node that leaves Ray's node table (or is marked dead) is ``server_down`` for
  its server; the engine interrupts every job holding it (``online.interrupted``: the job stops
  on every server, a gang cannot run with a member missing; a baseline writes
  ``baseline.interrupted``), the controller cancels the job's other tasks, and the policy's
  open-world rule decides the rest (A_online: the work left waits as a new arrival and a later
  round may place it again; a baseline: the job is back in its queue with the work it has
  done; the controller then starts it afresh on its new servers; never placed again, its
  status is ``lost``). A node carrying the resource again is ``server_up``. A task that
  raises while its node is alive (``failure_grace_s`` after the error) fails its job: its
  other tasks are cancelled and the engine is fed ``cancel`` (``LiveReport.failures``).

What the engine's model and Ray differ on (``docs/control-planes.md``, "Ray"): the engine's
duration of a job is its model's, the task runs as long as ``fn`` does; a job running past its
schedule holds Ray resources the engine already gave to another job, whose tasks then wait in
Ray (``LiveReport.placements`` has both the decided and the actual start). Kind ``oasis``
(elastic worker counts per slot) has no live controller: ``fn`` would have to be run per slot,
as ``execute`` does for a known scenario.
"""
from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import LoggedEngine, _text, policies

__all__ = ["Controller", "LiveReport"]

_RUNNING, _WAITING, _DONE = "running", "waiting", "done"

# The records that open, fill and end a job's plan (``slurm/src/bridge/plans.rs`` reads the
# same): A_online's, and the online baselines' (``mlsched.policies("online")``).
_PLAN_ENDS = ("online.interrupted", "baseline.interrupted", "baseline.preempted",
              "baseline.cancelled")
_PLAN_RECORDS = frozenset(("online.decision", "online.placed", "baseline.start",
                           "baseline.placed") + _PLAN_ENDS)
# Engine statuses after which a job is never placed again.
_ENDED = ("finished", "cancelled", "lost", "rejected")


def _baseline_types(d: Dict[str, Any], job: Dict[str, Any]) -> Tuple[int, Optional[int]]:
    """The worker and PS types an online baseline runs ``job`` with (its records do not name
    them): the pair minimising the time per mini-batch ``v_m + U_p + 2 pi / b_m``, ties to the
    lower worker then PS type; ring has no PS type (``config`` in
    ``kernel/src/baseline/online.rs``)."""
    inf = float("inf")
    v_of, u_of = job.get("minibatch_time", []), job.get("update_time", [])
    best: Tuple[float, int, Optional[int]] = (inf, 0, None)
    ring = d.get("architecture") == "ring"
    for m, wt in enumerate(d.get("worker_types", [])):
        v = float(v_of[m]) if m < len(v_of) else inf
        comm = 2.0 * float(job.get("gradient_size", 0.0)) / float(wt["bw"])
        for p in ([None] if ring else range(len(d.get("ps_types") or []))):
            k = 0 if p is None else p
            u = float(u_of[k]) if k < len(u_of) else (0.0 if p is None else inf)
            if v + u + comm < best[0]:
                best = (v + u + comm, m, p)
    return best[1], best[2]


@dataclass
class LiveReport:
    """What a ``Controller`` did, returned by ``wait()``.

    - ``result``: the engine's result document (``jobs`` with each ``status``, ``occupancy``,
      ``log_hash``), equal to ``mlsched.run(template, events=events)``.
    - ``statuses``: job id -> status (``finished``, ``cancelled``, ``lost``, ``rejected``,
      ``unfinished``).
    - ``events``: every event fed, in order (dicts as ``docs/open-world.md`` shows them).
    - ``log``: the host-driven decision log's bytes (``mlsched.replay(log)``, ``mlsched
      replay FILE``).
    - ``decisions``: every decision, in order.
    - ``placements``: one dict per Ray task started: ``job_id``, ``server``, ``role``,
      ``count``, ``slot`` (decided start), ``launched`` (slot it was started in),
      ``expected_node_id``, ``node_id`` (read inside the task; None if it never ran),
      ``outcome`` (``returned``, ``cancelled``, ``failed``).
    - ``failures``: ``{"job_id", "slot", "server", "error"}`` per job failed by its task.
    - ``refused``: ``{"event", "error"}`` per event the engine refused (not in ``events``).
    - ``nodes``: server -> Ray node id at the end; ``slots``: the last slot fed; ``wall_s``.
    """

    result: Dict[str, Any]
    statuses: Dict[str, Optional[str]] = field(default_factory=dict)
    events: List[Dict[str, Any]] = field(default_factory=list)
    log: bytes = b""
    decisions: List[Dict[str, Any]] = field(default_factory=list)
    placements: List[Dict[str, Any]] = field(default_factory=list)
    failures: List[Dict[str, Any]] = field(default_factory=list)
    refused: List[Dict[str, Any]] = field(default_factory=list)
    nodes: Dict[str, str] = field(default_factory=dict)
    slots: int = 0
    wall_s: float = 0.0


def _live_task(fn: Callable[..., Any], args: Tuple[Any, ...]) -> Dict[str, Any]:
    """One (job, server, role) group inside Ray: ``fn(*args)`` and the node it ran on."""
    import ray  # type: ignore

    node = ray.get_runtime_context().get_node_id()
    return {"node_id": node, "value": fn(*args)}


@dataclass
class _Job:
    """The controller's view of one submitted job."""

    id: str
    fn: Callable[..., Any]
    args: Tuple[Any, ...]
    state: str = _WAITING
    start: Optional[int] = None
    worker_type: int = 0
    ps_type: Optional[int] = None
    groups: List[Tuple[str, str, int]] = field(default_factory=list)
    refs: Dict[Any, Dict[str, Any]] = field(default_factory=dict)
    error: Optional[Tuple[float, str, str]] = None
    spec: Dict[str, Any] = field(default_factory=dict)


class Controller:
    """mlsched deciding for a live Ray cluster (see the module's documentation).

    ``scenario_template``: a scenario of kind ``online`` with no ``jobs`` (dict, JSON text or
    bytes): its servers, resources, types and horizon ``slots``. ``policy``: None or
    ``"online"`` (A_online), or a baseline of ``mlsched.policies("online")`` (``"fifo"``,
    ``"drf"``, ``"las"``, ...), the policy the offline run of ``events`` is then given.
    ``slot_seconds``: wall time of a slot. ``address``: ``None`` uses
    the Ray cluster this process is connected to, else starts a local Ray instance hosting every
    server (shut down by ``wait``/``close``); an address is passed to ``ray.init``.
    ``failure_grace_s``: how long a task error waits for its node to be seen dead before it
    counts as the job's own failure.
    """

    def __init__(self, scenario_template: Any, policy: Optional[str] = None,
                 slot_seconds: float = 1.0, address: Optional[str] = None, *,
                 failure_grace_s: float = 10.0) -> None:
        import ray  # type: ignore

        from .ray import _ray_resources, node_resources, servers

        self._text = _text(scenario_template)
        d = json.loads(self._text)
        if d.get("kind") != "online":
            raise ValueError(f"kind: the Ray controller runs kind online, not {d.get('kind')!r}")
        if policy is not None and policy not in policies("online"):
            raise ValueError(f"policy: {policy!r} is not one of kind online's "
                             f"{policies('online')}")
        if d.get("jobs"):
            raise ValueError("jobs: a template lists no jobs (they are submitted)")
        if slot_seconds <= 0:
            raise ValueError("slot_seconds: must be positive")
        self._d = d
        self._names = _ray_resources(d)
        self._servers = [n for n, _ in servers(d)]
        self.slot_seconds = float(slot_seconds)
        self._grace = float(failure_grace_s)
        self._started_ray = False
        if not ray.is_initialized():
            if address is None:
                ray.init(resources=node_resources(d, 1)[0], include_dashboard=False,
                         log_to_driver=False)
            else:
                ray.init(address=address, log_to_driver=False)
            self._started_ray = True
        try:
            self._nodes = self._node_table()
            for s in self._servers:
                if s not in self._nodes:
                    raise ValueError(
                        f"server {s}: no alive Ray node carries the resource mlsched_server_{s}")
        except BaseException:
            self._shutdown_ray()
            raise
        self._task = ray.remote(num_cpus=0, max_retries=0)(_live_task)
        self._lock = threading.RLock()
        self._jobs: Dict[str, _Job] = {}
        self._by_index: List[str] = []
        self._submits: List[Dict[str, Any]] = []
        self._cancels: List[str] = []
        self._down: set = set()
        self.events: List[Dict[str, Any]] = []
        self._report = LiveReport(result={})
        self._slot = -1
        self._finishing = False
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._error: Optional[BaseException] = None
        # The native engine stays in the thread that made it: the slot loop's. Its state the
        # other threads read is copied out after every slot.
        self._policy = policy
        self._wake: Optional[int] = None
        self._statuses: Dict[str, Optional[str]] = {}
        self._end: Optional[Tuple[Dict[str, Any], bytes, List[Dict[str, Any]]]] = None
        self._t0 = time.monotonic()
        self._thread = threading.Thread(target=self._loop, name="mlsched-ray", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            self._stop.set()
            self._shutdown_ray()
            raise self._error

    # ---- the user's side --------------------------------------------------------------------

    @property
    def slot(self) -> int:
        """The last slot fed to the engine (-1 before the first)."""
        return self._slot

    def submit(self, job: Dict[str, Any], fn: Callable[..., Any], *args: Any) -> str:
        """Submits ``job`` (an object as in the kind's scenario ``jobs``, with its ``id``, no
        ``arrival``) to run ``fn(*args)`` in each of its Ray tasks; it becomes a ``submit``
        event at the next slot boundary. Returns the job's id."""
        jid = job.get("id")
        if not isinstance(jid, str):
            raise ValueError("job, field `id`: a string is required")
        if "arrival" in job:
            raise ValueError("job, field `arrival`: the controller gives the arrival slot")
        with self._lock:
            self._check_running()
            if jid in self._jobs:
                raise ValueError(f"job, field `id`: `{jid}` was already submitted")
            self._jobs[jid] = _Job(jid, fn, tuple(args), spec=dict(job))
            self._submits.append(dict(job))
        return jid

    def cancel(self, job_id: str) -> None:
        """Cancels job ``job_id``: its Ray tasks at once, and a ``cancel`` event at the next
        slot boundary (a job whose ``submit`` was not fed yet is dropped: no event)."""
        with self._lock:
            self._check_running()
            j = self._jobs.get(job_id)
            if j is None:
                raise ValueError(f"job, field `id`: no job `{job_id}` was submitted")
            if j.state == _DONE:
                raise ValueError(f"job, field `id`: `{job_id}` has already ended")
            j.state = _DONE
            queued = [k for k, x in enumerate(self._submits) if x["id"] == job_id]
            if queued:  # not fed yet: the engine never hears of it
                del self._submits[queued[0]]
                return
            self._stop_tasks(j, "cancelled")
            self._cancels.append(job_id)

    def status(self, job_id: str) -> Optional[str]:
        """The engine's status of ``job_id`` as of the last slot (None before it is fed)."""
        with self._lock:
            return self._statuses.get(job_id)

    def running(self) -> Dict[str, List[Tuple[str, str, int]]]:
        """Job id -> its (server, role, count) groups, for the jobs whose tasks run now."""
        with self._lock:
            return {j.id: list(j.groups) for j in self._jobs.values() if j.state == _RUNNING}

    def wait(self, timeout_s: float = 600.0) -> LiveReport:
        """Blocks until every submitted job has ended (its tasks returned, it was cancelled or
        failed, or the engine has nothing left to decide and nothing runs), then ends the run
        and returns the ``LiveReport``. ``TimeoutError`` after ``timeout_s`` (the controller is
        closed)."""
        deadline = time.monotonic() + timeout_s
        try:
            while not self._idle():
                if self._error is not None:
                    raise RuntimeError(f"the controller's slot loop failed: {self._error}")
                if time.monotonic() > deadline:
                    raise TimeoutError(f"jobs not ended after {timeout_s} s")
                time.sleep(min(0.05, self.slot_seconds / 4))
            return self._finish()
        finally:
            self.close()

    def close(self) -> None:
        """Stops the slot loop and cancels every task still running (idempotent); shuts Ray
        down if the controller started it."""
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout=30)
        with self._lock:
            for j in self._jobs.values():
                self._stop_tasks(j, "cancelled")
        self._shutdown_ray()

    def __enter__(self) -> "Controller":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ---- the slot loop ----------------------------------------------------------------------

    def _check_running(self) -> None:
        if self._stop.is_set():
            raise RuntimeError("the controller has stopped")

    def _shutdown_ray(self) -> None:
        if self._started_ray:
            import ray  # type: ignore

            ray.shutdown()
            self._started_ray = False

    def _loop(self) -> None:
        try:
            self._engine = LoggedEngine(self._text, self._policy)
        except BaseException as e:  # raised by __init__
            self._error = e
            return
        finally:
            self._ready.set()
        try:
            while not self._stop.is_set():
                t = int((time.monotonic() - self._t0) / self.slot_seconds)
                if t > self._slot:
                    with self._lock:
                        self._tick(t)
                        self._wake = self._engine.next_wakeup
                        self._statuses = {j: self._engine.status(j) for j in self._engine.job_ids}
                nxt = self._t0 + (max(t, self._slot) + 1) * self.slot_seconds
                self._stop.wait(max(0.0, nxt - time.monotonic()))
            if self._finishing:
                with self._lock:
                    self._end = self._engine.run_to_end()
        except BaseException as e:  # reported by wait()
            self._error = e
        finally:
            with self._lock:
                del self._engine  # dropped by the thread that made it

    def _idle(self) -> bool:
        with self._lock:
            if self._submits or self._cancels:
                return False
            if any(j.state == _RUNNING for j in self._jobs.values()):
                return False
            if any(j.state == _WAITING and j.start is not None for j in self._jobs.values()):
                return False
            # A job the engine has ended (rejected, lost) is not waiting for a plan any more.
            waiting = any(j.state == _WAITING and self._statuses.get(j.id) not in _ENDED
                          for j in self._jobs.values())
            return not waiting or self._wake is None

    def _tick(self, t: int) -> None:
        """Slot ``t``: what Ray reported since the last slot, in the documented order."""
        import ray  # type: ignore

        finished, failed = self._collect(ray)
        fed = False
        for jid in finished:
            fed |= self._feed({"at": t, "event": "finished", "job": jid})
        for jid, server, err in failed:
            self._report.failures.append({"job_id": jid, "slot": t, "server": server,
                                          "error": err})
            self._cancels.append(jid)
        for jid in self._cancels:
            fed |= self._feed({"at": t, "event": "cancel", "job": jid})
        self._cancels = []
        table = self._node_table()
        for s in self._servers:
            if s not in table and s not in self._down:
                self._down.add(s)
                fed |= self._feed({"at": t, "event": "server_down", "server": s})
            elif s in table and s in self._down:
                self._down.discard(s)
                self._nodes[s] = table[s]
                fed |= self._feed({"at": t, "event": "server_up", "server": s})
        self._lost_after_schedule(t)
        for job in self._submits:
            fed |= self._feed({"at": t, "event": "submit", "job": job})
        self._submits = []
        wake = self._engine.next_wakeup
        if fed or (wake is not None and wake <= t):
            self._feed({"at": t, "event": "advance"})
        self._slot = t
        self._launch(t)

    def _lost_after_schedule(self, t: int) -> None:
        """Jobs whose task died with a server the engine took down but did not interrupt
        (their schedule there had ended by the down slot): the engine counts their work as
        done; the controller stops their tasks and reports them."""
        for j in self._jobs.values():
            if j.state == _RUNNING and j.error is not None and j.error[1] in self._down:
                self._report.failures.append({
                    "job_id": j.id, "slot": t, "server": j.error[1],
                    "error": f"server {j.error[1]} lost after the job's schedule there ended: "
                             f"{j.error[2]}"})
                self._stop_tasks(j, "cancelled")
                j.state = _DONE

    def _feed(self, ev: Dict[str, Any]) -> bool:
        try:
            decisions = self._engine.event(ev)
        except ValueError as e:
            self._report.refused.append({"event": ev, "error": str(e)})
            if ev["event"] == "submit":
                self._jobs[ev["job"]["id"]].state = _DONE
            return False
        self.events.append(ev)
        if ev["event"] == "submit":
            self._by_index = self._engine.job_ids
        self._take(decisions)
        return True

    def _take(self, decisions: List[Dict[str, Any]]) -> None:
        """The engine's decisions: plans to start, plans to end (``slurm/src/bridge/plans.rs``
        reads the same records)."""
        self._report.decisions.extend(decisions)
        for dec in decisions:
            rec, data = dec["record"], dec["data"]
            if rec not in _PLAN_RECORDS:
                continue
            j = self._jobs.get(self._by_index[int(data["job"])])
            if j is None:
                continue
            if rec == "online.decision" and data.get("scheduled"):
                j.start, j.groups = int(data["start"]), []
                j.worker_type = int(data["worker_type"])
                pt = data.get("ps_type")
                j.ps_type = None if pt is None or int(pt) >= 2**32 - 1 else int(pt)
            elif rec == "online.placed" and j.start is not None:
                self._place(j, data)
            elif rec in ("baseline.placed", "baseline.start"):
                # A baseline writes a started job's placements before its start record: the
                # first of them opens the plan (a plan's start is the slot it was decided in).
                if j.start != int(data["slot"]):
                    self._open_baseline_plan(j, int(data["slot"]))
                if rec == "baseline.placed":
                    self._place(j, data)
            elif rec in _PLAN_ENDS:
                # The plan ends on every server (a gang cannot run with a member missing).
                self._stop_tasks(j, "cancelled")
                j.start, j.groups = None, []
                again = rec != "baseline.cancelled" and (
                    rec != "online.interrupted" or bool(data.get("requeued")))
                j.state = _WAITING if again and j.state != _DONE else _DONE

    def _place(self, j: _Job, data: Dict[str, Any]) -> None:
        """One ``*.placed`` record: the plan's (server, role, count) groups on that server."""
        for role, n in (("worker", data.get("workers", 0)), ("ps", data.get("ps", 0))):
            if int(n) > 0:
                j.groups.append((f"h{data['server']}", role, int(n)))

    def _open_baseline_plan(self, j: _Job, start: int) -> None:
        """A baseline's new plan for ``j`` from slot ``start``; its records name no task types,
        so they are the baseline's choice (``_baseline_types``)."""
        j.start, j.groups = start, []
        j.worker_type, j.ps_type = _baseline_types(self._d, j.spec)

    def _launch(self, t: int) -> None:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy  # type: ignore

        for j in self._jobs.values():
            if j.state != _WAITING or j.start is None or j.start > t:
                continue
            j.state = _RUNNING
            for server, role, count in j.groups:
                node = self._nodes[server]
                ref = self._task.options(
                    resources=self._resources(j, role, count),
                    scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False),
                ).remote(j.fn, j.args)
                p = {"job_id": j.id, "server": server, "role": role, "count": count,
                     "slot": j.start, "launched": t, "expected_node_id": node,
                     "node_id": None, "outcome": None}
                j.refs[ref] = p
                self._report.placements.append(p)

    def _resources(self, j: _Job, role: str, count: int) -> Dict[str, float]:
        if role == "worker":
            demand = self._d["worker_types"][j.worker_type]["demand"]
        else:
            demand = self._d["ps_types"][j.ps_type or 0]["demand"]
        out = {}
        for i, n in enumerate(self._names):
            v = float(demand[i]) * count if i < len(demand) else 0.0
            if v > 0:
                out[n] = round(v, 4)
        return out

    def _collect(self, ray: Any) -> Tuple[List[str], List[Tuple[str, str, str]]]:
        """Jobs whose tasks all returned, and jobs failed by a task (its node still alive
        ``failure_grace_s`` after the error)."""
        finished, failed = [], []
        now = time.monotonic()
        alive = set(self._node_table().values())
        owner = {r: j for j in self._jobs.values() if j.state == _RUNNING
                 for r, p in j.refs.items() if p["outcome"] is None}
        if owner:
            # A positive timeout: with 0, Ray does not report a task of another node done.
            done, _ = ray.wait(list(owner), num_returns=len(owner), timeout=0.02,
                               fetch_local=False)
            for ref in done:
                j = owner[ref]
                p = j.refs[ref]
                try:
                    p["node_id"] = ray.get(ref)["node_id"]
                    p["outcome"] = "returned"
                except Exception as ex:  # the task raised or its node died
                    p["outcome"] = "failed"
                    msg = (str(ex).strip().splitlines() or [type(ex).__name__])[-1]
                    if j.error is None:
                        j.error = (now, p["server"], msg)
        for j in self._jobs.values():
            if j.state != _RUNNING:
                continue
            if j.error is not None:
                since, server, msg = j.error
                if self._nodes.get(server) in alive and now - since >= self._grace:
                    self._stop_tasks(j, "cancelled")
                    j.state = _DONE
                    failed.append((j.id, server, msg))
            elif all(p["outcome"] == "returned" for p in j.refs.values()):
                j.state = _DONE
                finished.append(j.id)
        return finished, failed

    def _stop_tasks(self, j: _Job, outcome: str) -> None:
        import ray  # type: ignore

        for ref, p in j.refs.items():
            if p["outcome"] is None:
                p["outcome"] = outcome
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # already ended, or its node is gone
                    pass
        j.refs = {}
        j.error = None

    def _node_table(self) -> Dict[str, str]:
        """Server -> id of the alive Ray node carrying ``mlsched_server_<server>``."""
        from .ray import server_nodes  # ray.py imports this module: import when called

        return server_nodes()

    def _finish(self) -> LiveReport:
        self._finishing = True
        self._stop.set()
        self._thread.join(timeout=60)
        if self._end is None:
            raise RuntimeError(f"the controller's slot loop did not end the run: {self._error}")
        with self._lock:
            result, log, decisions = self._end
            rep = self._report
            rep.decisions.extend(decisions)
            rep.result, rep.log = result, log
            rep.events = list(self.events)
            rep.statuses = {row.get("id", self._by_index[k] if k < len(self._by_index) else str(k)):
                            row.get("status") for k, row in enumerate(result.get("jobs", []))}
            rep.nodes = dict(self._nodes)
            rep.slots = self._slot
            rep.wall_s = time.monotonic() - self._t0
            return rep
