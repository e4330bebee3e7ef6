"""The core-wasm module under wasmtime (a non-JS host) gives the native bytes for every bundled
scenario and every policy. MLSCHED_WASM: the module; MLSCHED_EXPECTED: the folder written by
`cargo run --release -p mlsched-capi --example expected -- DIR` (native `run_json`)."""
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
