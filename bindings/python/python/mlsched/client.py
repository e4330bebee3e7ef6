"""A client of ``mlsched serve`` (``docs/serve.md``): the durable scheduling service over HTTP/JSON.

Standard library only (``http.client``), so it works wherever the package does, without the
extension being loaded::

    c = mlsched.Client("http://127.0.0.1:7070", token=None)
    prod = c.create("prod", scenario, policy="fifo")     # PUT /v1/clusters/prod -> a Cluster
    prod.arrive("j1", at=0)                              # {"seq": 1, "decisions": [...]}
    prod.submit({"id": "new", ...}, at=3)
    for entry in prod.stream(after=0):                   # live, as server-sent events
        ...
    result = prod.finish()                               # the result document (log_hash, ...)

``Client.cluster(name)`` binds an existing cluster; every cluster method is also on the
client with the cluster's name first (``c.arrive("prod", "j1", 0)``) for one-off calls.

An event is answered only once it is durable (fsync'd); its answer is ``{"seq": N,
"decisions": [...]}``. The service's refusals raise :class:`ServeError` subclasses carrying
``status``, ``field`` and ``message`` (the CLI's message): 400 and 413 raise
:class:`BadRequest` (a ``ValueError``), 401 :class:`Unauthorized`, 404 :class:`NotFound` (a
``LookupError``), 409 :class:`Conflict`, 422 :class:`Unprocessable`, 503
:class:`Unavailable`. A connection that breaks while an event is in flight raises
``ConnectionError``: the event may or may not be durable, ``decisions(after=...)`` tells.
"""
from __future__ import annotations

import http.client
import json
import threading
import urllib.parse
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

__all__ = [
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

Event = Union[str, Dict[str, Any]]
Scenario = Union[str, bytes, Dict[str, Any]]


class ServeError(Exception):
    """An error answer of the service: HTTP ``status``, the ``field`` at fault (``""`` when
    none is) and the ``message`` (the CLI's message for the same input)."""

    def __init__(self, status: int, field: str, message: str) -> None:
        self.status = status
        self.field = field
        self.message = message
        where = f", field `{field}`" if field else ""
        super().__init__(f"HTTP {status}{where}: {message}")


class BadRequest(ServeError, ValueError):
    """400 (bad JSON, a bad event or scenario, a bad name) or 413 (a body over the limit);
    ``field`` names what is wrong."""


class Unauthorized(ServeError):
    """401: a missing or wrong bearer token."""


class NotFound(ServeError, LookupError):
    """404: no such cluster (or route)."""


class Conflict(ServeError):
    """409: the cluster exists already (create), or is finished (events)."""


class Unprocessable(ServeError):
    """422: the scheduler refused an event the input checks let through; it was not applied."""


class Unavailable(ServeError):
    """503: nothing was made durable (a full disk, a failing fsync, a cluster stopping); try
    again later."""


_BY_STATUS = {400: BadRequest, 413: BadRequest, 401: Unauthorized, 404: NotFound,
              409: Conflict, 422: Unprocessable, 503: Unavailable}


def _error(status: int, body: bytes) -> ServeError:
    field, message = "", body.decode("utf-8", "replace")
    try:
        e = json.loads(body)["error"]
        field, message = str(e.get("field", "")), str(e.get("message", ""))
    except (ValueError, KeyError, TypeError, AttributeError):
        pass
    return _BY_STATUS.get(status, ServeError)(status, field, message)


def _text(doc: Union[Scenario, Event]) -> bytes:
    if isinstance(doc, dict):
        return json.dumps(doc).encode("utf-8")
    if isinstance(doc, bytes):
        return doc
    if isinstance(doc, str):
        return doc.encode("utf-8")
    raise TypeError(f"expected str, bytes or dict, not {type(doc).__name__}")


class Client:
    """The service at ``url`` (``http://HOST:PORT``, optionally with a path prefix; ``https``
    works too), sending ``Authorization: Bearer <token>`` when ``token`` is given. ``timeout``
    (seconds) bounds every connect and read but the live stream's.

    One kept-alive connection per thread: a client may be shared by threads."""

    def __init__(self, url: str, token: Optional[str] = None, timeout: float = 30.0) -> None:
        u = urllib.parse.urlsplit(url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError(f"url: expected http://HOST:PORT, got `{url}`")
        self.url = url
        self.token = token
        self.timeout = timeout
        self._https = u.scheme == "https"
        self._host = u.hostname
        self._port = u.port
        self._prefix = u.path.rstrip("/")
        self._local = threading.local()

    def __repr__(self) -> str:
        return f"mlsched.Client({self.url!r})"

    # --- plumbing -------------------------------------------------------------------------

    def _connection(self, timeout: Optional[float]) -> http.client.HTTPConnection:
        cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        return cls(self._host, self._port, timeout=timeout)

    def _headers(self, extra: Optional[Dict[str, str]] = None) -> Dict[str, str]:
        h = {"Accept": "application/json"}
        if self.token is not None:
            h["Authorization"] = f"Bearer {self.token}"
        h.update(extra or {})
        return h

    def request(self, method: str, path: str, body: Optional[bytes] = None,
                headers: Optional[Dict[str, str]] = None) -> bytes:
        """Sends one request (``path`` below the URL's prefix) and returns the body of a 2xx
        answer; any other status raises :class:`ServeError`. Only ``GET`` and ``DELETE`` are
        retried (once, on a kept-alive connection the service had closed)."""
        for attempt in (0, 1):
            conn = getattr(self._local, "conn", None)
            reused = conn is not None
            if conn is None:
                conn = self._local.conn = self._connection(self.timeout)
            try:
                conn.request(method, self._prefix + path, body=body,
                             headers=self._headers(headers))
                r = conn.getresponse()
                data = r.read()
            except (http.client.HTTPException, OSError):
                conn.close()
                self._local.conn = None
                if attempt == 0 and reused and method in ("GET", "DELETE"):
                    continue
                raise
            if r.getheader("connection", "").lower() == "close":
                conn.close()
                self._local.conn = None
            if not 200 <= r.status < 300:
                raise _error(r.status, data)
            return data
        raise ConnectionError("unreachable")  # pragma: no cover

    def _json(self, method: str, path: str, body: Optional[bytes] = None) -> Any:
        data = self.request(method, path, body)
        return json.loads(data) if data else None

    def close(self) -> None:
        """Closes this thread's connection (a later request opens a new one)."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @staticmethod
    def _path(name: str, tail: str = "") -> str:
        return "/v1/clusters/" + urllib.parse.quote(name, safe="") + tail

    # --- the service ----------------------------------------------------------------------

    def health(self) -> Dict[str, Any]:
        """``GET /v1/health``: ``{"status": "ok", "clusters": N}`` (no token needed)."""
        return self._json("GET", "/v1/health")

    def metrics(self) -> str:
        """``GET /metrics``: the Prometheus text."""
        return self.request("GET", "/metrics").decode("utf-8")

    def create(self, name: str, scenario: Scenario, policy: Optional[str] = None,
               all_categories: bool = False) -> "Cluster":
        """``PUT /v1/clusters/{name}?policy=P``: a new cluster running ``scenario`` (a document
        of any kind as str, bytes or dict; its ``jobs`` may be empty) under ``policy`` (None:
        the kind's own algorithm). Returns the bound :class:`Cluster`; :class:`Conflict` if the
        name exists, :class:`BadRequest` for a bad document, policy or name."""
        q = {}
        if policy is not None:
            q["policy"] = policy
        if all_categories:
            q["all_categories"] = "true"
        query = "?" + urllib.parse.urlencode(q) if q else ""
        info = self._json("PUT", self._path(name) + query, _text(scenario))
        return Cluster(self, name, info)

    def cluster(self, name: str) -> "Cluster":
        """The cluster ``name``, bound (no request is made: :meth:`Cluster.info` checks it)."""
        return Cluster(self, name)

    # --- one-off calls on a cluster by name (the Cluster methods) -------------------------

    def info(self, name: str) -> Dict[str, Any]:
        return self.cluster(name).info()

    def event(self, name: str, event: Event) -> Dict[str, Any]:
        return self.cluster(name).event(event)

    def submit(self, name: str, job: Dict[str, Any], at: int) -> Dict[str, Any]:
        return self.cluster(name).submit(job, at)

    def cancel(self, name: str, job: str, at: int) -> Dict[str, Any]:
        return self.cluster(name).cancel(job, at)

    def server_down(self, name: str, server: str, at: int) -> Dict[str, Any]:
        return self.cluster(name).server_down(server, at)

    def server_up(self, name: str, server: str, at: int) -> Dict[str, Any]:
        return self.cluster(name).server_up(server, at)

    def set_capacity(self, name: str, server: str, capacity: Sequence[float],
                     at: int) -> Dict[str, Any]:
        return self.cluster(name).set_capacity(server, capacity, at)

    def arrive(self, name: str, job: str, at: int) -> Dict[str, Any]:
        return self.cluster(name).arrive(job, at)

    def finished(self, name: str, job: str, at: int) -> Dict[str, Any]:
        return self.cluster(name).finished(job, at)

    def advance(self, name: str, at: int) -> Dict[str, Any]:
        return self.cluster(name).advance(at)

    def decisions(self, name: str, after: int = 0) -> List[Dict[str, Any]]:
        return self.cluster(name).decisions(after)

    def stream(self, name: str, after: int = 0,
               timeout: Optional[float] = None) -> Iterator[Dict[str, Any]]:
        return self.cluster(name).stream(after, timeout)

    def log(self, name: str) -> bytes:
        return self.cluster(name).log()

    def snapshot(self, name: str) -> bytes:
        return self.cluster(name).snapshot()

    def finish(self, name: str) -> Dict[str, Any]:
        return self.cluster(name).finish()

    def delete(self, name: str) -> None:
        self.cluster(name).delete()


class Cluster:
    """One cluster of a service (``Client.create`` or ``Client.cluster``). Every event method
    returns ``{"seq": N, "decisions": [...]}`` once the event is durable; ``at`` is the event's
    slot (time moves with every event: the scheduler's wake-ups before ``at`` are fed first,
    their decisions part of the answer)."""

    def __init__(self, client: Client, name: str, info: Optional[Dict[str, Any]] = None) -> None:
        self.client = client
        self.name = name
        self.created = info

    def __repr__(self) -> str:
        return f"mlsched.Cluster({self.client.url!r}, {self.name!r})"

    def _path(self, tail: str = "") -> str:
        return Client._path(self.name, tail)

    def info(self) -> Dict[str, Any]:
        """``{"name", "kind", "policy", "jobs", "seq", "finished"}``, ``seq`` the last durable
        one."""
        return self.client._json("GET", self._path())

    def event(self, event: Event) -> Dict[str, Any]:
        """Sends one event (a dict or its JSON text, ``docs/open-world.md``)."""
        return self.client._json("POST", self._path("/events"), _text(event))

    def submit(self, job: Dict[str, Any], at: int) -> Dict[str, Any]:
        """A new job (an object as in the kind's scenario ``jobs`` list) arrives at ``at``."""
        return self.event({"at": at, "event": "submit", "job": job})

    def cancel(self, job: str, at: int) -> Dict[str, Any]:
        return self.event({"at": at, "event": "cancel", "job": job})

    def server_down(self, server: str, at: int) -> Dict[str, Any]:
        return self.event({"at": at, "event": "server_down", "server": server})

    def server_up(self, server: str, at: int) -> Dict[str, Any]:
        return self.event({"at": at, "event": "server_up", "server": server})

    def set_capacity(self, server: str, capacity: Sequence[float], at: int) -> Dict[str, Any]:
        return self.event({"at": at, "event": "capacity", "server": server,
                           "capacity": list(capacity)})

    def arrive(self, job: str, at: int) -> Dict[str, Any]:
        """Listed job ``job`` (its id) arrives at ``at``."""
        return self.event({"at": at, "event": "arrive", "job": job})

    def finished(self, job: str, at: int) -> Dict[str, Any]:
        return self.event({"at": at, "event": "finished", "job": job})

    def advance(self, at: int) -> Dict[str, Any]:
        """Moves time to ``at``: the scheduler decides slot ``at``."""
        return self.event({"at": at, "event": "advance"})

    def decisions(self, after: int = 0) -> List[Dict[str, Any]]:
        """Every history entry after seq ``after``: ``{"seq", "event", "decisions"}``, in seq
        order (the service's pages read to the end)."""
        out: List[Dict[str, Any]] = []
        while True:
            page = self.client._json("GET", self._path(f"/decisions?after={after + len(out)}"))
            out.extend(page["decisions"])
            if not page["more"]:
                return out

    def stream(self, after: int = 0, timeout: Optional[float] = None) -> Iterator[Dict[str, Any]]:
        """The live decisions (server-sent events): one ``{"seq", "event", "decisions"}`` per
        event after ``after``, as each becomes durable; ends when the cluster is finished or
        deleted. ``timeout`` (None: wait for ever; the service sends a keep-alive every 15 s)
        bounds each read. Closing the generator closes its connection."""
        c = self.client
        conn = c._connection(timeout)
        try:
            conn.request("GET", c._prefix + self._path(f"/decisions?after={after}"),
                         headers=c._headers({"Accept": "text/event-stream"}))
            r = conn.getresponse()
            if r.status != 200:
                raise _error(r.status, r.read())
            kind, data = "message", []
            while True:
                raw = r.readline()
                if not raw:
                    return
                line = raw.decode("utf-8").rstrip("\r\n")
                if line == "":
                    if kind == "decisions" and data:
                        yield json.loads("\n".join(data))
                    elif kind in ("finished", "deleted"):
                        return
                    kind, data = "message", []
                elif line.startswith(":"):
                    continue
                else:
                    key, _, value = line.partition(":")
                    value = value[1:] if value.startswith(" ") else value
                    if key == "event":
                        kind = value
                    elif key == "data":
                        data.append(value)
        finally:
            conn.close()

    def log(self) -> bytes:
        """The decision log file (``mlsched run --log`` format) of the durable events;
        ``mlsched replay`` verifies it."""
        return self.client.request("GET", self._path("/log"))

    def snapshot(self) -> bytes:
        """The engine's snapshot bytes (``mlsched.Engine.restore`` with the same scenario and
        policy)."""
        return self.client.request("GET", self._path("/snapshot"))

    def finish(self) -> Dict[str, Any]:
        """Ends the run at the current slot; the result document (again: the same document).
        Events are then refused (:class:`Conflict`)."""
        return self.client._json("POST", self._path("/finish"), b"")

    def delete(self) -> None:
        """Deletes the cluster and its durable state."""
        self.client.request("DELETE", self._path())
