#!/usr/bin/env bash
# The whole test suite (the README's test command): Rust tests of every crate, the determinism
# lint, the wasm/npm/browser tests, the golden hashes under wasm, the bindings (C under valgrind,
# core wasm under wasmtime, Python), and a fuzz smoke run.
# Installs what it needs first (scripts/setup.sh, idempotent: a no-op when everything is there);
# MLSCHED_SETUP_DONE=1 skips that step (.ci/run sets it after its own setup).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${MLSCHED_SETUP_DONE:-0}" != 1 ]; then
  bash scripts/setup.sh
fi
passed=0
failed=0
stage() {
  local name=$1
  shift
  printf '\n== test: %s\n' "$name"
  if "$@"; then
    passed=$((passed + 1))
    echo "== test: $name: ok"
  else
    failed=$((failed + 1))
    echo "== test: $name: FAILED"
  fi
}

stage "determinism lint" bash scripts/check-determinism.sh
stage "cargo test (workspace)" cargo test --workspace --all-targets
stage "cargo test (doctests)" cargo test --workspace --doc
if [ -f wasm/scripts/ci.sh ]; then
  stage "wasm: npm package, node, browser, native = wasm" bash wasm/scripts/ci.sh
fi
if [ -d bindings ]; then
  stage "bindings: C ABI (gcc against .so under valgrind, against .a)" bash bindings/c/tests/c/run.sh
  stage "bindings: core wasm under wasmtime = native" bash bindings/c/wasm/run.sh
  stage "bindings: Python package (fresh venv, pip install, pytest)" bash bindings/python/run-tests.sh
  stage "bindings: Python on a local 4-node Ray cluster (127.0.0.1)" bash bindings/python/run-ray-tests.sh
fi
if [ -f fuzz/run-smoke.sh ]; then
  stage "fuzz smoke" bash fuzz/run-smoke.sh
fi

echo
echo "suite: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
