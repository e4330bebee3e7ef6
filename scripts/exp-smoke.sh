#!/usr/bin/env bash
# Smoke run of every paper-setting experiment (docs/experiments-*.md): 2 seeds on tiny scenarios
# each, no files kept; a few seconds in all. Needs the release CLI:
#   cargo build --release -p mlsched-cli && bash scripts/exp-smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."
for e in zhou oasis placement route; do
    python3 "scripts/exp-$e.py" --smoke > /dev/null
    echo "exp-$e.py --smoke: ok"
done
