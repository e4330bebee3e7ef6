#!/usr/bin/env bash
# The Python package on a fresh venv: pinned maturin, pytest and wasmtime, `pip install
# ./bindings/python` (release build in the workspace target dir), then the pytest suite against
# the `mlsched` binary (target/debug/mlsched, built by the workspace tests, or built here) and
# the service binary `mlsched-serve` (tests/test_client.py; built here unless MLSCHED_SERVE_BIN
# names one).
# pytest's exit code 5 (no test ran) is a failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
# shellcheck source=/dev/null
. bindings/python/pins.sh
venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install -q "${PY_PINS[@]}"
PATH="$venv/bin:$PATH" "$venv/bin/pip" install -q --no-build-isolation ./bindings/python
cli="${MLSCHED_CLI:-$root/target/debug/mlsched}"
if ! [ -x "$cli" ]; then
    cargo build --profile test -p mlsched-cli --bin mlsched
fi
serve="${MLSCHED_SERVE_BIN:-}"
if [ -z "$serve" ]; then
    cargo build --profile test -p mlsched-serve --bin mlsched-serve
    serve="$root/target/debug/mlsched-serve"
fi
cd bindings/python
status=0
MLSCHED_CLI="$cli" MLSCHED_SERVE_BIN="$serve" "$venv/bin/python" -m pytest -q -p no:cacheprovider tests || status=$?
if [ "$status" -eq 5 ]; then
    echo "pytest ran no test"
    exit 1
fi
exit "$status"
