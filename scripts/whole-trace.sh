#!/usr/bin/env bash
# The whole Alibaba openb trace on the whole openb cluster (docs/scale.md): import it for kind
# oasis and for kind online (PS and Ring-AllReduce), run every policy of each kind, each in its
# own process, and print one table: build and run time, per-decision p50/p99, peak heap and peak
# RSS, and the build + run time as a multiple of FIFO's measured in the same sweep.
#
#   bash scripts/whole-trace.sh     # both kinds: 3600-second slots (T = 7,168 for oasis,
#                                   # 28,672 for online)
#   OASIS_SLOT=21600 ONLINE_SLOT=1800 bash scripts/whole-trace.sh
#   OASIS_SLOT= bash scripts/whole-trace.sh   # oasis on the import's default horizon, T = 200
# OASiS derives its price floor L from eq. (25), f_i(T - a_i) / work; with slots much shorter
# than the jobs' utility decay every f_i underflows to 0 at the horizon and OASiS refuses the
# scenario (naming eq. 25): give the scenario explicit "prices" then (docs/scale.md).
#   POLICIES_OASIS="oasis fifo" POLICIES_ONLINE="online fifo" bash scripts/whole-trace.sh
#   POLICIES_OASIS="" POLICIES_ONLINE="online fifo" bash scripts/whole-trace.sh   # an empty list skips the kind
#
# Writes $OUT/*.json (the imported scenarios), $OUT/points.jsonl and $OUT/table.md
# (default OUT: /tmp/mlsched-whole).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/mlsched-whole}
OASIS_SLOT=${OASIS_SLOT-3600}
ONLINE_SLOT=${ONLINE_SLOT:-3600}
POLICIES_OASIS=${POLICIES_OASIS-"oasis fifo drf las optimus"}
POLICIES_ONLINE=${POLICIES_ONLINE-"online fifo drf las optimus"}
mkdir -p "$OUT"
cargo build --release -q -p mlsched-cli -p mlsched-benches --bin mlsched --bin scale
M=target/release/mlsched
S=target/release/scale

oslot=()
[[ -n "$OASIS_SLOT" ]] && oslot=(--slot-seconds "$OASIS_SLOT")
$M import openb --jobs all --servers all "${oslot[@]}" -o "$OUT/openb-oasis.json"
$M import openb --kind online --jobs all --servers all --slot-seconds "$ONLINE_SLOT" \
  -o "$OUT/openb-online-ps.json"
$M import openb --kind online --architecture ring --jobs all --servers all \
  --slot-seconds "$ONLINE_SLOT" -o "$OUT/openb-online-ring.json"

: > "$OUT/points.jsonl"
run() { # scenario policy
  local pol=()
  case "$2" in oasis | online) ;; *) pol=(--policy "$2") ;; esac
  echo "  $(basename "$1" .json) $2" >&2
  $S run --scenario "$1" "${pol[@]}" --axis whole >> "$OUT/points.jsonl"
}
for p in $POLICIES_OASIS; do run "$OUT/openb-oasis.json" "$p"; done
for f in openb-online-ps openb-online-ring; do
  for p in $POLICIES_ONLINE; do run "$OUT/$f.json" "$p"; done
done

python3 - "$OUT/points.jsonl" > "$OUT/table.md" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
# "x FIFO" compares whole runs: the scheduler's build (its stores, the DP scratch) and the run.
total = lambda r: r["build_s"] + r["run_s"]
fifo = {r["kind"]: total(r) for r in rows if r["policy"] == "fifo"}
print("| kind | policy | servers | jobs | slots | build (s) | run (s) | x FIFO | p50 (ms) | p99 (ms) | peak heap (MiB) | peak RSS (MiB) | log hash |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for r in rows:
    f = fifo.get(r["kind"])
    ratio = f"{total(r) / f:.1f}" if f else "-"
    print(f"| {r['kind']} | {r['policy']} | {r['servers']} | {r['jobs']} | {r['slots']} | "
          f"{r['build_s']:.2f} | {r['run_s']:.2f} | {ratio} | {r['p50_ms']:.3f} | {r['p99_ms']:.3f} | "
          f"{r['peak_heap_bytes'] / 2**20:.0f} | {r['peak_rss_bytes'] / 2**20:.0f} | {r['log_hash']} |")
PY
cat "$OUT/table.md"
