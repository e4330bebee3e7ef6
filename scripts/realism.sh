#!/usr/bin/env bash
# Today's model against the realistic one (docs/realism.md, issue 21 "Must show"): every policy
# of a kind on the same imported Philly workload under four physics -
#   today       linear chunk model, no cost of preemption (--throughput linear --restart-seconds 0)
#   restart     + 30 s per restart (the Pollux/AdaptDL simulator's; docs/restart.md)
#   placement   + the measured Pollux speed-up per GPUs and servers spanned (docs/throughput.md)
#   realistic   both
# printing per policy: finished jobs, average and p99 JCT and makespan in seconds, restarts,
# and the wall time of each run.
#
#   bash scripts/realism.sh                         # 160 jobs on 64 GPUs, kind oasis
#   KIND=online bash scripts/realism.sh             # kind online (no restarts: see restart.md)
#   JOBS=all SERVERS=64 SLOT_SECONDS=600 SLOTS=432 bash scripts/realism.sh   # the whole day
#
# Knobs: KIND (oasis), JOBS (160), SERVERS (8 x 8 GPUs), SLOT_SECONDS (60), SLOTS (1440),
# OUT (/tmp/realism), MLSCHED (default: a release build). Wall times are the machine's.
set -euo pipefail
cd "$(dirname "$0")/.."
KIND=${KIND:-oasis}
JOBS=${JOBS:-160}
SERVERS=${SERVERS:-8}
SLOT_SECONDS=${SLOT_SECONDS:-60}
SLOTS=${SLOTS:-1440}
OUT=${OUT:-/tmp/realism}
if [[ -z "${MLSCHED:-}" ]]; then
  cargo build --release -q -p mlsched-cli
  MLSCHED=target/release/mlsched
fi
run() { # name throughput restart-seconds
  "$MLSCHED" compare import:philly --kind "$KIND" --jobs "$JOBS" --servers "$SERVERS" \
    --slot-seconds "$SLOT_SECONDS" --slots "$SLOTS" --throughput "$2" \
    --restart-seconds "$3" --quiet --out "$OUT/$1" > /dev/null
}
run today linear 0
if [[ "$KIND" == oasis ]]; then run restart linear 30; fi
run placement pollux 0
if [[ "$KIND" == oasis ]]; then run realistic pollux 30; fi
python3 - "$OUT" "$KIND" <<'EOF'
import json, os, sys
out, kind = sys.argv[1], sys.argv[2]
names = [n for n in ("today", "restart", "placement", "realistic")
         if os.path.exists(f"{out}/{n}/compare.json")]
runs = {n: json.load(open(f"{out}/{n}/compare.json"))["policies"] for n in names}
def cell(x, d=0):
    return "-" if x is None else f"{x:,.{d}f}"
print(f"kind {kind}; JCT and makespan in seconds (of finished jobs); restarts '-' where not modelled")
print()
print("| policy | model | finished | avg JCT | p99 JCT | makespan | restarts | wall ms |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for i, p in enumerate(runs["today"]):
    for n in names:
        m = runs[n][i]["metrics"]
        s = m.get("slot_seconds") or 1.0
        sc = lambda x: None if x is None else x * s
        t = runs[n][i].get("timing") or {}
        r = m.get("extra", {}).get("restarts")
        print(f"| {m['policy']} | {n} | {m['finished']}/{m['jobs']} | {cell(sc(m.get('avg_jct')))} "
              f"| {cell(sc(m.get('jct_p99')))} | {cell(sc(m.get('makespan')))} "
              f"| {'-' if r is None else int(r)} | {cell(t.get('wall_ms'), 1)} |")
EOF
