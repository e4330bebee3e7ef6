#!/usr/bin/env bash
# mlsched driving a real local Ray cluster (bindings/python/tests/test_ray.py): 4 Ray nodes on
# 127.0.0.1 only (ray.cluster_utils.Cluster), execute() on bundled scenarios, the Ray sweep, and
# the live Controller (tests/test_ray_live.py: submissions over time, a node removed).
# Uses the venv of scripts/setup.sh (bindings/python/.venv, with the pinned ray), installs the
# package into it (`pip install ./bindings/python`, the same release build as run-tests.sh, so
# cached after that stage) and runs pytest; pytest's exit code 5 (no test ran) is a failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
# shellcheck source=/dev/null
. bindings/python/pins.sh
venv=bindings/python/.venv
if ! [ -x "$venv/bin/python" ] || ! venv_has "$venv" "${PY_RAY_PINS[0]}"; then
    echo "no ${PY_RAY_PINS[0]} in $venv: run bash scripts/setup.sh"
    exit 1
fi
# Ray listens on 127.0.0.1 only (every node is started with node_ip_address 127.0.0.1).
export RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 RAY_USAGE_STATS_ENABLED=0
PATH="$root/$venv/bin:$PATH" "$venv/bin/pip" install -q --no-build-isolation ./bindings/python
cd bindings/python
status=0
timeout 600 .venv/bin/python -m pytest -q -p no:cacheprovider tests/test_ray.py tests/test_ray_live.py || status=$?
if [ "$status" -eq 5 ]; then
    echo "pytest ran no test"
    exit 1
fi
exit "$status"
