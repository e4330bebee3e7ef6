"""A minimal host of the core-wasm module `mlsched.wasm` in Python (wasmtime), no JS glue.

    python bindings/c/wasm/mlsched_wasm.py target/wasm32-unknown-unknown/release/mlsched.wasm \
        scenarios/oasis-small.json [POLICY]

prints the result JSON, byte-identical to `mlsched run --json` (exit code 0, 1 or 2 as the CLI).
The module imports nothing and exports `memory`, `mlsched_alloc(len) -> ptr`,
`mlsched_free(ptr, len)` and `mlsched_run(scn_ptr, scn_len, policy_ptr, policy_len,
out_ptr_cell, out_len_cell) -> i32`, the engine functions (`mlsched_engine_new`,
`mlsched_engine_event`, `mlsched_engine_run_to_end`, `mlsched_engine_free`, ...), the C ABI of
`bindings/c/include/mlsched.h` with 32-bit pointers and sizes.
"""
import struct
import sys

import wasmtime


class MlschedWasm:
    """One instance of the module: `run(scenario, policy)` -> (code, bytes); an engine handle
    with `engine_new`, `engine_event`, `engine_run_to_end`, `engine_free`."""

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

    def _take(self) -> bytes:
        """The (out, out_len) buffer of the last call, copied then freed."""
        out, out_len = struct.unpack(
            "<II", self.memory.read(self.store, self.cells, self.cells + 8)
        )
        result = bytes(self.memory.read(self.store, out, out + out_len)) if out else b""
        self._free(self.store, out, out_len)
        return result

    def engine_new(self, scenario: bytes, policy: bytes = b"") -> tuple[int, int, bytes]:
        """`mlsched_engine_new`: (code, handle, message)."""
        ex = self.instance.exports(self.store)
        s, p = self._put(scenario), self._put(policy)
        handle_cell = self._alloc(self.store, 4)
        code = ex["mlsched_engine_new"](self.store, s, len(scenario), p, len(policy), handle_cell,
                                        self.cells, self.cells + 4)
        (handle,) = struct.unpack("<I", self.memory.read(self.store, handle_cell, handle_cell + 4))
        self._free(self.store, handle_cell, 4)
        self._free(self.store, s, len(scenario))
        self._free(self.store, p, len(policy))
        return code, handle, self._take()

    def engine_event(self, handle: int, event: bytes) -> tuple[int, bytes]:
        """`mlsched_engine_event`: one host event (JSON bytes) -> (code, decisions or message)."""
        ex = self.instance.exports(self.store)
        e = self._put(event)
        code = ex["mlsched_engine_event"](self.store, handle, e, len(event), self.cells,
                                          self.cells + 4)
        self._free(self.store, e, len(event))
        return code, self._take()

    def engine_run_to_end(self, handle: int) -> tuple[int, bytes]:
        """`mlsched_engine_run_to_end`: (code, result JSON or message)."""
        ex = self.instance.exports(self.store)
        code = ex["mlsched_engine_run_to_end"](self.store, handle, self.cells, self.cells + 4)
        return code, self._take()

    def engine_free(self, handle: int) -> None:
        """`mlsched_engine_free`."""
        self.instance.exports(self.store)["mlsched_engine_free"](self.store, handle)


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    host = MlschedWasm(sys.argv[1])
    with open(sys.argv[2], "rb") as f:
        scn = f.read()
    code, out = host.run(scn, sys.argv[3].encode() if len(sys.argv) == 4 else b"")
    (sys.stdout if code == 0 else sys.stderr).buffer.write(out + (b"" if code == 0 else b"\n"))
    sys.exit(code)
