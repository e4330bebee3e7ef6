"""The core-wasm module under wasmtime (a non-JS host) gives the native bytes for every bundled
scenario and every policy. MLSCHED_WASM: the module; MLSCHED_EXPECTED: the folder written by
`cargo run --release -p mlsched-capi --example expected -- DIR` (native `run_json`). The
bindings' sample host events (`bindings/events/`) fed one at a time with `mlsched_engine_event`
give the bytes of `mlsched run --events`."""
import os
import pathlib

import pytest

from mlsched_wasm import MlschedWasm

WASM = os.environ.get("MLSCHED_WASM", "target/wasm32-unknown-unknown/release/mlsched.wasm")
EXPECTED = pathlib.Path(os.environ.get("MLSCHED_EXPECTED", "target/mlsched-expected"))


def cases():
    lines = (EXPECTED / "cases.txt").read_text().split("\n")
    return [tuple(line.split()) for line in lines if line]


@pytest.fixture(scope="module")
def host():
    return MlschedWasm(WASM)


def test_exports_and_no_imports(host):
    names = {e.name for e in host.module.exports}
    assert {"memory", "mlsched_alloc", "mlsched_free", "mlsched_run"} <= names
    assert [i.name for i in host.module.imports] == []


@pytest.mark.parametrize("name,policy,code", cases())
def test_native_bytes(host, name, policy, code):
    scn = (EXPECTED / f"{name}.scenario.json").read_bytes()
    expected = (EXPECTED / f"{name}.{policy}.json").read_bytes()
    got_code, got = host.run(scn, policy.encode())
    assert got_code == int(code)
    assert got == expected


def test_errors(host):
    code, msg = host.run(b"{not json")
    assert code == 2 and msg
    code, msg = host.run(b"\xff\xfe")
    assert code == 2 and b"UTF-8" in msg
    scn = (EXPECTED / "oasis-small.scenario.json").read_bytes()
    code, msg = host.run(scn, b"nope")
    assert code == 2 and b"policy `nope`" in msg


def test_no_leak(host):
    """Repeated runs do not grow linear memory (every buffer is freed)."""
    scn = (EXPECTED / "route-small.scenario.json").read_bytes()
    host.run(scn)
    before = host.memory.size(host.store)
    for _ in range(20):
        host.run(scn)
    assert host.memory.size(host.store) == before


def test_host_events(host):
    """The sample's host events one at a time (bad ones refused with 2 in between) finish with
    the bytes of `mlsched run --events` (`events.result.json`)."""
    scn = (EXPECTED / "events.scenario.json").read_bytes()
    fed = [line for line in (EXPECTED / "events.fed.jsonl").read_bytes().split(b"\n") if line]
    code, handle, msg = host.engine_new(scn)
    assert code == 0, msg
    for line in fed:
        code, decisions = host.engine_event(handle, line)
        assert code == 0, decisions
        assert decisions.startswith(b"[") and decisions.endswith(b"]")
        code, msg = host.engine_event(handle, b'{"event": "server_down", "at": 40, "server": "nope"}')
        assert code == 2 and b"`server`" in msg
        code, msg = host.engine_event(handle, b"{")
        assert code == 2 and b"not valid JSON" in msg
    code, result = host.engine_run_to_end(handle)
    assert code == 0, result
    assert result == (EXPECTED / "events.result.json").read_bytes()
    host.engine_free(handle)
