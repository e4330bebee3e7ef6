"""A minimal host of the core-wasm module `mlsched.wasm` in Python (wasmtime), no JS glue.

    python bindings/c/wasm/mlsched_wasm.py target/wasm32-unknown-unknown/release/mlsched.wasm \
        scenarios/oasis-small.json [POLICY]

prints the result JSON, byte-identical to `mlsched run --json` (exit code 0, 1 or 2 as the CLI).
The module imports nothing and exports `memory`, `mlsched_alloc(len) -> ptr`,
`mlsched_free(ptr, len)` and `mlsched_run(scn_ptr, scn_len, policy_ptr, policy_len,
out_ptr_cell, out_len_cell) -> i32`, the C ABI of `bindings/c/include/mlsched.h` with 32-bit
pointers and sizes.
"""
import struct
import sys

import wasmtime


class MlschedWasm:
    """One instance of the module: `run(scenario, policy)` -> (code, bytes)."""

    def __init__(self, path):
        self.store = wasmtime.Store()
        module = wasmtime.Module.from_file(self.store.engine, path)
        self.module = module
        self.instance = wasmtime.Instance(self.store, module, [])
        ex = self.instance.exports(self.store)
        self.memory = ex["memory"]
        self._alloc = ex["mlsched_alloc"]
        self._free = ex["mlsched_free"]
        self._run = ex["mlsched_run"]
        # Two u32 cells receiving the result's pointer and length.
        self.cells = self._alloc(self.store, 8)

    def _put(self, data: bytes) -> int:
        if not data:
            return 0
        ptr = self._alloc(self.store, len(data))
        self.memory.write(self.store, data, ptr)
        return ptr

    def run(self, scenario: bytes, policy: bytes = b"") -> tuple[int, bytes]:
        """Runs `scenario` (JSON bytes) with `policy` (b"" = the kind's own algorithm)."""
        s, p = self._put(scenario), self._put(policy)
        code = self._run(self.store, s, len(scenario), p, len(policy), self.cells, self.cells + 4)
        out, out_len = struct.unpack(
            "<II", self.memory.read(self.store, self.cells, self.cells + 8)
        )
        result = bytes(self.memory.read(self.store, out, out + out_len)) if out else b""
        self._free(self.store, out, out_len)
        self._free(self.store, s, len(scenario))
        self._free(self.store, p, len(policy))
        return code, result


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    host = MlschedWasm(sys.argv[1])
    with open(sys.argv[2], "rb") as f:
        scn = f.read()
    code, out = host.run(scn, sys.argv[3].encode() if len(sys.argv) == 4 else b"")
    (sys.stdout if code == 0 else sys.stderr).buffer.write(out + (b"" if code == 0 else b"\n"))
    sys.exit(code)
