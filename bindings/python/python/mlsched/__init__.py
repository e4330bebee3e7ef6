"""mlsched: deterministic scheduling of distributed ML training jobs, from Python.

The same engine as the ``mlsched`` command line (a Rust extension, abi3, CPython 3.9+):

- ``run_json(scenario, policy=None)``: the bytes of ``mlsched run --json`` as ``str``;
  ``run(...)``: the same result as a ``dict``.
- ``Engine(scenario, policy=None)``: events in (``arrive``, ``advance``, ``finished``, each with
  its slot t), decisions out as dicts, ``next_wakeup``, ``now``, ``run_to_end()``, ``finish()``,
  ``snapshot()`` / ``Engine.restore(...)``; the open world (``docs/open-world.md``): ``event(obj)``
  (one host event, as a line of ``mlsched run --events``), ``submit``, ``cancel``,
  ``server_down``, ``server_up``, ``set_capacity``; ``run(scenario, events=[...])``;
  ``LoggedEngine`` (events one at a time, keeping the decision log), ``record_events`` (the
  result and log of ``mlsched run --events --log``), ``replay(log)`` (``mlsched replay``).
- ``gen``, ``import_trace``: scenario documents (dicts); ``compare``: one flat dict per policy,
  ready for ``pandas.DataFrame(mlsched.compare(...))``.
- ``sweep(source, seeds, ...)``: ``mlsched compare import:SOURCE --seeds A..B`` as one flat dict
  per (seed, policy) run, on a local pool or a Ray cluster (``backend="ray"``).
- ``Client(url, token=None)``: a client of ``mlsched serve`` (``docs/serve.md``), standard
  library only: ``Client.create(name, scenario, policy)`` / ``Client.cluster(name)`` give a
  ``Cluster`` with ``submit``, ``cancel``, ``server_down``, ..., ``decisions``, ``stream``,
  ``log``, ``finish``; the service's refusals raise ``ServeError`` (400: ``BadRequest``, a
  ``ValueError`` naming the field).
- ``mlsched.ray.execute(scenario)`` (``import mlsched.ray``; needs ``ray``): a scenario's jobs
  run on a live Ray cluster, mlsched deciding; ``mlsched.ray.Controller(template)``: jobs
  submitted while it runs, Ray nodes lost and back (``docs/control-planes.md``, "Ray").

Kinds and their papers: ``oasis`` (OASiS, Bao et al.: online admission with prices p_h^r(t),
utility f_i of the completion slot), ``online`` (A_online, Zhou et al.: weighted completion
time sum w_j (t_j + d_j)), ``placement`` (HAS / JPS, Liu et al.), ``preempt`` (A_greedy + A_ps,
Wang et al., edge-cloud preemption), ``route`` (CSRP, Song et al., PSO over routes); each also
runs baselines (FIFO, DRF, LAS, Optimus, ...): ``policies(kind)`` lists them.

Invalid input raises ``ValueError`` with the CLI's message (the field named); a run that fails
at run time raises ``RuntimeError``. Long runs release the GIL.
"""
from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

from . import _native
from .client import (BadRequest, Client, Cluster, Conflict, NotFound, ServeError, Unauthorized,
                     Unavailable, Unprocessable)

__version__ = _native.__version__

__all__ = [
    "run_json",
    "run",
    "run_events_json",
    "record_events",
    "replay",
    "Engine",
    "LoggedEngine",
    "policies",
    "scenarios",
    "gen",
    "gen_json",
    "import_trace",
    "compare",
    "sweep",
    "KINDS",
    "Client",
    "Cluster",
    "ServeError",
    "BadRequest",
    "Unauthorized",
    "NotFound",
    "Conflict",
    "Unprocessable",
    "Unavailable",
]

KINDS = ("oasis", "online", "placement", "preempt", "route")

Scenario = Union[str, bytes, Dict[str, Any]]


def _text(scenario: Scenario) -> str:
    if isinstance(scenario, dict):
        return json.dumps(scenario)
    if isinstance(scenario, bytes):
        return scenario.decode("utf-8")
    if isinstance(scenario, str):
        return scenario
    raise TypeError(f"scenario must be str, bytes or dict, not {type(scenario).__name__}")


def run_json(scenario: Scenario, policy: Optional[str] = None, all_categories: bool = False) -> str:
    """Runs a scenario document of any kind to the end; returns the result JSON text,
    byte-identical to ``mlsched run --json`` (``--policy policy``, ``--all-categories``).

    ``policy``: None for the kind's own algorithm (OASiS, A_online, HAS, A_greedy + A_ps, CSRP),
    or a baseline name from ``policies(kind)``. Releases the GIL while it runs.
    """
    return _native.run_json(_text(scenario), policy, all_categories)


Event = Union[str, Dict[str, Any]]


def _event_text(event: Event) -> str:
    if isinstance(event, dict):
        return json.dumps(event)
    if isinstance(event, str):
        return event
    raise TypeError(f"event must be str or dict, not {type(event).__name__}")


def run(scenario: Scenario, policy: Optional[str] = None, all_categories: bool = False,
        events: Optional[Iterable[Event]] = None) -> Dict[str, Any]:
    """``run_json`` parsed: the result document as a dict (``log_hash``, per-job rows, ...).

    ``events``: host events (dicts or JSON texts, one event each, ``at`` never going back;
    ``docs/open-world.md``) interleaved with the scenario's own arrivals: the result of
    ``mlsched run SCENARIO --events FILE`` (``run_events_json`` gives its bytes). A bad event
    raises ``ValueError`` naming it (``event #k``, from 1) and its field."""
    if events is not None:
        return json.loads(run_events_json(scenario, events, policy, all_categories))
    return json.loads(run_json(scenario, policy, all_categories))


def run_events_json(scenario: Scenario, events: Iterable[Event], policy: Optional[str] = None,
                    all_categories: bool = False) -> str:
    """The bytes of ``mlsched run SCENARIO --events FILE --json -`` for the host ``events``
    (dicts or JSON texts) as ``str``."""
    texts = [_event_text(e) for e in events]
    return _native.run_events_json(_text(scenario), texts, policy, all_categories)


def record_events(scenario: Scenario, events: Iterable[Event], policy: Optional[str] = None,
                  all_categories: bool = False) -> Tuple[Dict[str, Any], bytes]:
    """``mlsched run SCENARIO --events FILE --log LOG``: the result (as ``run(..., events=...)``)
    and the bytes of the host-driven decision log (``replay`` checks it)."""
    texts = [_event_text(e) for e in events]
    text, log = _native.record_events(_text(scenario), texts, policy, all_categories)
    return json.loads(text), bytes(log)


def replay(log: bytes) -> Dict[str, Any]:
    """``mlsched replay``: re-runs the inputs a decision log holds and compares every record;
    returns ``{"records", "events", "log_hash"}``. A damaged log or one whose re-run differs
    raises ``ValueError`` saying where (``record K differs: ...``)."""
    records, events, log_hash = _native.replay_log(bytes(log))
    return {"records": records, "events": events, "log_hash": log_hash}


def policies(kind: str) -> List[str]:
    """Policies a kind accepts, its own algorithm first (e.g. ``["oasis", "fifo", "drf",
    "las", "optimus"]``)."""
    return _native.policies(kind)


def scenarios() -> Dict[str, str]:
    """The bundled example scenarios: name -> JSON text (those of ``mlsched demo``)."""
    return dict(_native.scenarios())


class Engine:
    """The event-driven engine of one scenario run (``docs/engine.md``).

    Per slot t feed, in this order: ``finished(j, t)`` for each job the host saw finish,
    ``arrive(j, t)`` for each job arriving (in (arrival, index) order), then ``advance(t)``. The
    next slot is min(next arrival, ``next_wakeup``). Each call returns the decisions it caused,
    ``[{"record": "oasis.decision", "job": 0, "data": {...}}, ...]``, with their explanation
    (OASiS: prices p_h^r(t) and the payoff mu_i; A_online: the cost of the chosen schedule;
    A_greedy: the candidates and Q values; CSRP: the PSO result). An event out of order, an
    unknown job, a second arrival, or any event after ``finish()`` raises ``ValueError``.

    Jobs are indices in the scenario's ``jobs`` list (``job_ids`` maps them to ids).
    """

    def __init__(self, scenario: Scenario, policy: Optional[str] = None, all_categories: bool = False,
                 *, _native_engine: Any = None) -> None:
        self._scenario = _text(scenario)
        self._e = _native_engine or _native.Engine(self._scenario, policy, all_categories)

    @classmethod
    def restore(cls, scenario: Scenario, snapshot: bytes, policy: Optional[str] = None,
                all_categories: bool = False) -> "Engine":
        """Rebuilds an engine from ``snapshot()`` bytes with the same scenario and policy (a
        snapshot of another scenario or policy, or a damaged one, raises ``ValueError``)."""
        text = _text(scenario)
        native = _native.Engine.restore(text, bytes(snapshot), policy, all_categories)
        return cls(text, _native_engine=native)

    def _feed(self, event: int, job: int, slot: int) -> List[Dict[str, Any]]:
        return json.loads(self._e.feed(event, job, slot))

    def arrive(self, job: int, slot: int) -> List[Dict[str, Any]]:
        """Job ``job`` (index) arrives at slot ``slot``; returns its decisions."""
        return self._feed(0, job, slot)

    def advance(self, slot: int) -> List[Dict[str, Any]]:
        """Every event of slot ``slot`` has been fed: the scheduler decides for the slot."""
        return self._feed(1, 0, slot)

    def finished(self, job: int, slot: int) -> List[Dict[str, Any]]:
        """Job ``job`` finished at slot ``slot`` (reported by the host)."""
        return self._feed(2, job, slot)

    def event(self, event: Event) -> List[Dict[str, Any]]:
        """Applies one host event (a dict or its JSON text, ``docs/open-world.md``: ``submit``,
        ``cancel``, ``server_down``, ``server_up``, ``capacity``, ``arrive``, ``finished``,
        ``advance``) as the service does: the scheduler's wake-ups before its slot ``at`` are
        fed first. Returns every decision caused. A bad event raises ``ValueError`` (the field
        named) and leaves the engine as it was."""
        return json.loads(self._e.event(_event_text(event)))

    def submit(self, job: Dict[str, Any], slot: int) -> List[Dict[str, Any]]:
        """Job ``job`` (an object as in the kind's scenario ``jobs`` list; its ``arrival``, if
        given, must equal ``slot``) is submitted and arrives at ``slot``; it gets the next
        index."""
        return self.event({"event": "submit", "at": slot, "job": job})

    def cancel(self, job_id: str, slot: int) -> List[Dict[str, Any]]:
        """Job ``job_id`` (listed or submitted) is cancelled at ``slot``."""
        return self.event({"event": "cancel", "at": slot, "job": job_id})

    def server_down(self, server_id: str, slot: int) -> List[Dict[str, Any]]:
        """Server ``server_id`` (one of ``server_ids``) fails or is drained at ``slot``."""
        return self.event({"event": "server_down", "at": slot, "server": server_id})

    def server_up(self, server_id: str, slot: int) -> List[Dict[str, Any]]:
        """Server ``server_id`` comes back at ``slot``."""
        return self.event({"event": "server_up", "at": slot, "server": server_id})

    def set_capacity(self, server_id: str, capacity: List[float], slot: int) -> List[Dict[str, Any]]:
        """Server ``server_id``'s capacity becomes ``capacity`` (in the order of the scenario's
        resources) at ``slot``."""
        return self.event({"event": "capacity", "at": slot, "server": server_id,
                           "capacity": list(capacity)})

    @property
    def server_ids(self) -> List[str]:
        """The scenario's server ids, as the server events name them."""
        return self._e.server_ids()

    def status(self, job_id: str) -> Optional[str]:
        """Job ``job_id``'s status as of the last event ("finished", "unfinished", "rejected",
        "cancelled", "lost"), or None if the kind does not tell yet."""
        return self._e.status(job_id)

    @property
    def next_wakeup(self) -> Optional[int]:
        """The slot at which the scheduler wants an ``advance`` although no job arrives."""
        return self._e.next_wakeup()

    @property
    def now(self) -> Optional[int]:
        """The slot of the last event fed (None before the first)."""
        return self._e.now()

    @property
    def kind(self) -> str:
        return self._e.kind()

    @property
    def policy(self) -> str:
        return self._e.policy()

    @property
    def job_ids(self) -> List[str]:
        return self._e.job_ids()

    @property
    def arrival_order(self) -> List[tuple]:
        """``(arrival slot, job)`` pairs in the order a run feeds them."""
        return self._e.arrival_order()

    def run_to_end(self) -> Dict[str, Any]:
        """Feeds every arrival not fed yet and every wake-up, then ``finish()``: on a fresh
        engine, exactly ``run(scenario, policy)``."""
        return json.loads(self._e.run_to_end())

    def run_to_end_json(self) -> str:
        return self._e.run_to_end()

    def finish(self) -> Dict[str, Any]:
        """Ends the run; returns the result document (later events raise ``ValueError``)."""
        return json.loads(self._e.finish())

    def finish_json(self) -> str:
        """``finish()`` as the JSON text of ``mlsched run --json``."""
        return self._e.finish()

    def snapshot(self) -> bytes:
        """The engine's state (the events fed so far) for ``Engine.restore``."""
        return self._e.snapshot()


class LoggedEngine:
    """An engine fed host events one at a time, as the service feeds it (``Engine.event``),
    that keeps the run's decision log: its ``run_to_end()`` returns the result and the bytes
    ``mlsched run SCENARIO --events FILE --log LOG`` writes for the same events (with every
    ``advance`` kept as an event), so ``replay`` checks a live run. ``mlsched.ray.Controller``
    drives one."""

    def __init__(self, scenario: Scenario, policy: Optional[str] = None,
                 all_categories: bool = False) -> None:
        self._e = _native.LoggedEngine(_text(scenario), policy, all_categories)

    def event(self, event: Event) -> List[Dict[str, Any]]:
        """As ``Engine.event``: one host event; the decisions it caused."""
        return json.loads(self._e.event(_event_text(event)))

    @property
    def server_ids(self) -> List[str]:
        return self._e.server_ids()

    @property
    def job_ids(self) -> List[str]:
        return self._e.job_ids()

    def status(self, job_id: str) -> Optional[str]:
        """As ``Engine.status``."""
        return self._e.status(job_id)

    @property
    def next_wakeup(self) -> Optional[int]:
        return self._e.next_wakeup()

    @property
    def now(self) -> Optional[int]:
        return self._e.now()

    def run_to_end(self) -> Tuple[Dict[str, Any], bytes, List[Dict[str, Any]]]:
        """Every wake-up left, then the end of the run: ``(result, log bytes, decisions of the
        wake-ups)``; later calls raise ``ValueError``."""
        text, log, decisions = self._e.run_to_end()
        return json.loads(text), bytes(log), json.loads(decisions)


def gen_json(kind: str, seed: int = 1, jobs: Optional[int] = None, nodes: Optional[int] = None,
             slots: Optional[int] = None, trace: Optional[str] = None) -> str:
    """``mlsched gen KIND --seed S [--jobs N] [--nodes N] [--slots T] [--trace PATH]`` text."""
    return _native.gen_json(kind, seed, jobs, nodes, slots, trace)


def gen(kind: str, seed: int = 1, jobs: Optional[int] = None, nodes: Optional[int] = None,
        slots: Optional[int] = None, trace: Optional[str] = None) -> Dict[str, Any]:
    """A generated scenario of ``kind`` following the paper's evaluation settings (as a dict,
    ready for ``run``): ``jobs`` jobs, ``nodes`` nodes or servers, horizon T = ``slots``."""
    return json.loads(gen_json(kind, seed, jobs, nodes, slots, trace))


def import_trace(source: str, kind: str = "oasis", data_dir: Optional[str] = None,
                 **mapping: Any) -> Dict[str, Any]:
    """A scenario document of ``kind`` ("oasis" or "online") from a public trace: ``source``
    is "philly", "openb", "pai-nodes", "gavel" or "pollux"; ``mapping`` takes the options of
    ``mlsched import`` (``jobs``, ``start``, ``seed``, ``slots``, ``slot_seconds``, ``servers``,
    ``ps_servers``, ``max_scale``, ``comm_ratio``, ``target_factor``, ``epochs`` E_j,
    ``server_bw``, ``worker_bw`` b, ``ps_bw`` B, ``jobs_from``, ``architecture`` "ps" or
    "ring" for kind "online", ``restart_seconds`` the cost of preemption for kind "oasis",
    default 30, 0 for none: docs/restart.md; ``throughput`` "linear" or "pollux" for kinds
    "oasis" and "online": docs/throughput.md). ``data_dir``: the ``data/``
    folder (default: ``MLSCHED_DATA``, then a ``data/`` above the current directory, then the
    source tree the package was built from)."""
    return json.loads(_native.import_json(source, kind, data_dir, **mapping))


def compare(scenario: Scenario, policies: Optional[Iterable[str]] = None, timing: bool = False,
            series: bool = False) -> List[Dict[str, Any]]:
    """``mlsched compare``: every policy (default: the kind's algorithm and every baseline) on
    the same scenario, one flat dict per policy (``pandas.DataFrame(compare(...))``):
    ``policy``, ``status``, ``jobs``, ``admitted``, ``finished``, ``total_utility`` (sum f_i),
    ``total_weighted_completion_time`` (sum w_j (t_j + d_j)), ``weighted_jct``, ``avg_jct``,
    ``makespan``, ``unfinished``, ``jct_p50``/``jct_p90``/``jct_p99``, ``util_<resource>`` (mean
    utilisation over the busy horizon, kinds oasis and online), ``log_hash``, the kind's extra
    numbers, and with ``timing=True`` the wall-clock
    ``decisions``, ``latency_p50_us``, ``latency_p99_us``, ``wall_ms`` (not reproducible).
    ``series=True`` adds the lists ``jct`` and ``utilisation``."""
    names = list(policies) if policies is not None else None
    reports = json.loads(_native.compare_json(_text(scenario), names, timing))
    rows = []
    for r in reports:
        m = dict(r["metrics"])
        row = {k: v for k, v in m.items() if k not in ("extra", "utilisation")}
        row.update(m.get("extra", {}))
        # Mean utilisation per resource as flat columns, named as in compare.csv.
        for name, value in m.get("utilisation", []):
            row[f"util_{name}"] = value
        if timing and r.get("timing"):
            row.update(r["timing"])
        if series:
            row["jct"] = r["jct"]
            row["utilisation"] = r["utilisation"]
        rows.append(row)
    return rows


def _seed_list(seeds: Union[str, int, Iterable[int]]) -> List[int]:
    if isinstance(seeds, int):
        return [seeds]
    if isinstance(seeds, str):
        a, sep, b = seeds.partition("..")
        try:
            lo = int(a)
            hi = int(b.lstrip("=")) if sep else lo
        except ValueError:
            raise ValueError(f"seeds: expected `A..B` with A <= B (e.g. 1..20) or one seed, got `{seeds}`") from None
        if lo > hi or hi - lo >= 10_000:
            raise ValueError(f"seeds: expected `A..B` with A <= B (e.g. 1..20) or one seed, got `{seeds}`")
        return list(range(lo, hi + 1))
    out = [int(s) for s in seeds]
    if not out:
        raise ValueError("seeds: no seed given")
    return out


def _sweep_run(source: str, seed: int, policy: str, kind: str, data_dir: Optional[str],
               mapping: Dict[str, Any]) -> Dict[str, Any]:
    """One run of a sweep: the trace window of ``seed`` (as ``compare --seeds`` imports it: no
    fixed ``start``), ``policy`` on it; the flat record ``{"seed": seed, **compare row}``."""
    scenario = _native.import_json(source, kind, data_dir, **dict(mapping, seed=seed, start=None))
    row = compare(scenario, [policy])[0]
    return {"seed": seed, **row}


class _Progress:
    """tqdm when installed, else a counter on stderr (nothing when ``enabled`` is false)."""

    def __init__(self, total: int, enabled: bool, desc: str) -> None:
        self.n, self.total, self.bar, self.enabled = 0, total, None, enabled
        if enabled:
            try:
                from tqdm.auto import tqdm  # type: ignore

                self.bar = tqdm(total=total, desc=desc)
            except ImportError:
                self.desc = desc

    def update(self) -> None:
        self.n += 1
        if self.bar is not None:
            self.bar.update(1)
        elif self.enabled:
            import sys

            end = "\n" if self.n == self.total else ""
            sys.stderr.write(f"\r{self.desc} {self.n}/{self.total}{end}")
            sys.stderr.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def sweep(source: str, seeds: Union[str, int, Iterable[int]], policies: Optional[Iterable[str]] = None,
          *, kind: str = "oasis", data_dir: Optional[str] = None, backend: str = "local",
          workers: Optional[int] = None, progress: bool = True, address: Optional[str] = None,
          **mapping: Any) -> List[Dict[str, Any]]:
    """``mlsched compare import:SOURCE --seeds A..B``: every policy (default: the kind's algorithm
    and every baseline) on the trace window of every seed (``seeds``: ``"A..B"``, one seed, or
    an iterable), with the mapping options of ``import_trace`` (``jobs``, ``slots``, ``servers``,
    ...; ``start`` is drawn from each seed, as the CLI does).

    Returns one flat dict per (seed, policy) run, seed-major, policies in order — the records of
    the CLI's ``sweep.json`` ``per_seed`` rows with their seed (``seed``, ``policy``, ``status``,
    ``jobs``, ``admitted``, ``finished``, ``total_utility``, ``total_weighted_completion_time``,
    ``weighted_jct``, ``avg_jct``, ``makespan``, ``unfinished``, the JCT percentiles,
    ``log_hash``, the kind's extra numbers; the ``utilisation`` pairs flattened to
    ``util_<resource>`` as in ``compare``). They do not depend on the backend or the worker count.

    ``backend="local"``: a thread pool of ``workers`` threads (default: the CPU count; the runs
    release the GIL). ``backend="ray"``: each run a Ray task (one CPU) on the cluster this
    process is connected to, else ``ray.init(address=address)`` (``None``: a local one, shut down
    at the end). ``progress``: a tqdm bar if tqdm is installed, else a counter on stderr.
    """
    seed_list = _seed_list(seeds)
    names = list(policies) if policies is not None else _native.policies(kind)
    if not names:
        raise ValueError("policies: no policy given")
    accepted = _native.policies(kind)
    for p in names:
        if p not in accepted:
            raise ValueError(f"policies: `{p}` is not a policy of kind {kind} ({', '.join(accepted)})")
    runs = [(s, p) for s in seed_list for p in names]
    bar = _Progress(len(runs), progress, f"sweep {source}")
    out: List[Optional[Dict[str, Any]]] = [None] * len(runs)
    try:
        if backend == "local":
            import concurrent.futures as cf
            import os

            n = workers or os.cpu_count() or 1
            with cf.ThreadPoolExecutor(max_workers=n) as pool:
                futs = {pool.submit(_sweep_run, source, s, p, kind, data_dir, mapping): k
                        for k, (s, p) in enumerate(runs)}
                for f in cf.as_completed(futs):
                    out[futs[f]] = f.result()
                    bar.update()
        elif backend == "ray":
            import ray  # type: ignore

            started = False
            if not ray.is_initialized():
                ray.init(address=address, include_dashboard=False, log_to_driver=False)
                started = True
            try:
                task = ray.remote(num_cpus=1)(_sweep_run)
                todo = list(enumerate(runs))
                limit = workers or len(runs)
                pending: Dict[Any, int] = {}

                def submit() -> None:
                    k, (s, p) = todo.pop(0)
                    pending[task.remote(source, s, p, kind, data_dir, mapping)] = k

                while todo and len(pending) < limit:
                    submit()
                while pending:
                    done, _ = ray.wait(list(pending), num_returns=1)
                    for ref in done:
                        out[pending.pop(ref)] = ray.get(ref)
                        bar.update()
                        if todo:
                            submit()
            finally:
                if started:
                    ray.shutdown()
        else:
            raise ValueError(f"backend: expected `local` or `ray`, got `{backend}`")
    finally:
        bar.close()
    return [r for r in out if r is not None]
