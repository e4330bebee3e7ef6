#!/usr/bin/env bash
# Builds the core-wasm module (release, no JS glue) and checks it under wasmtime from Python
# against the native bytes of every bundled scenario and policy. PYTHON: an interpreter with
# wasmtime and pytest (default: the venv scripts/setup.sh makes, bindings/python/.venv).
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
python="${PYTHON:-$root/bindings/python/.venv/bin/python}"
cargo build --release -p mlsched-capi --lib --target wasm32-unknown-unknown
cargo build --release -p mlsched-capi --example expected
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$target/release/examples/expected" "$work/expected"
wasm="$target/wasm32-unknown-unknown/release/mlsched.wasm"
echo "== $wasm: $(wc -c <"$wasm") bytes"
MLSCHED_WASM="$wasm" MLSCHED_EXPECTED="$work/expected" \
    "$python" -m pytest -q -p no:cacheprovider bindings/c/wasm/test_wasm.py
