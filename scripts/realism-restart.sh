#!/usr/bin/env bash
# The cost of preemption measured (docs/restart.md, issue 21 "Must show", issue 45): every
# kind-oasis policy on the same imported Philly workload, today's model (--restart-seconds 0)
# against restarts of 1 s, 30 s (the peer's) and 300 s, printing JCT, makespan, restarts and the
# wall time of each run.
#
#   bash scripts/realism-restart.sh                     # 160 jobs on 64 GPUs (the issue's setup)
#   JOBS=all SLOTS=2880 bash scripts/realism-restart.sh # the whole Philly day
#   MLSCHED=target/debug/mlsched bash scripts/realism-restart.sh   # another build
#
# Knobs: JOBS (160), SERVERS (8 x 8 GPUs), SLOT_SECONDS (60: the peer's scheduling interval),
# SLOTS (1440: one day of 60 s slots), RESTARTS ("0 1 30 300": restart times in seconds),
# POLICIES (oasis,fifo,drf,las,optimus,rrh), OUT (/tmp/realism-restart). Wall times are the
# machine's.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-160}
SERVERS=${SERVERS:-8}
SLOT_SECONDS=${SLOT_SECONDS:-60}
SLOTS=${SLOTS:-1440}
RESTARTS=${RESTARTS:-0 1 30 300}
POLICIES=${POLICIES:-oasis,fifo,drf,las,optimus,rrh}
OUT=${OUT:-/tmp/realism-restart}
if [[ -z "${MLSCHED:-}" ]]; then
  cargo build --release -q -p mlsched-cli
  MLSCHED=target/release/mlsched
fi
for r in $RESTARTS; do
  "$MLSCHED" compare import:philly --jobs "$JOBS" --servers "$SERVERS" \
    --slot-seconds "$SLOT_SECONDS" --slots "$SLOTS" --restart-seconds "$r" \
    --policies "$POLICIES" --quiet --out "$OUT/restart-$r" > /dev/null
done
python3 - "$OUT" $RESTARTS <<'EOF'
import json, sys
out = sys.argv[1]
restarts = sys.argv[2:]
runs = {r: json.load(open(f"{out}/restart-{r}/compare.json"))["policies"] for r in restarts}
def cell(x, d=1):
    return "-" if x is None else f"{x:.{d}f}"
print("| policy | restart s | finished | avg JCT (s) | p99 JCT (s) | makespan (s) | restarts | wall ms |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for i, p in enumerate(runs[restarts[0]]):
    for r in restarts:
        m = runs[r][i]["metrics"]
        s = m.get("slot_seconds") or 1.0
        scale = lambda x: None if x is None else x * s
        t = runs[r][i].get("timing") or {}
        print(f"| {m['policy']} | {r} | {m['finished']}/{m['jobs']} | {cell(scale(m.get('avg_jct')), 0)} "
              f"| {cell(scale(m.get('jct_p99')), 0)} | {cell(scale(m.get('makespan')), 0)} "
              f"| {int(m.get('extra', {}).get('restarts', 0)) if float(r) else '-'} | {cell(t.get('wall_ms'), 1)} |")
EOF
