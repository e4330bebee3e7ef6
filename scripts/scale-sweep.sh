#!/usr/bin/env bash
# The scale sweep of docs/scale.md: time and memory of OASiS, A_online (PS and Ring-AllReduce)
# and the FIFO baseline against servers, jobs and slots, on generated scenarios, each point in
# its own process (so peak RSS is the point's own), then log-log plots and slopes.
#
#   bash scripts/scale-sweep.sh            # the sweep of docs/scale.md (12-20 minutes on 2 cores)
#   FULL=1 bash scripts/scale-sweep.sh     # up to 12,500 servers and 32,000 jobs (hours)
#   QUICK=1 bash scripts/scale-sweep.sh    # a few small points per axis (a minute)
#   POINT_TIMEOUT=300 ...                  # seconds one point may take (default 120; a point
#                                          # that takes longer is listed in $OUT/timeouts.txt)
#   OUT=/tmp/scale bash scripts/scale-sweep.sh
#
# Writes $OUT/points.jsonl (one `scale run` line per point), $OUT/*.svg, $OUT/slopes.md and
# $OUT/timeouts.txt (the points over POINT_TIMEOUT or refused by a limit)
# (default OUT: docs/scale). Nothing here is asserted; the numbers are the machine's.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-docs/scale}
mkdir -p "$OUT"
cargo build --release -q -p mlsched-benches --bin scale
S=target/release/scale
[[ -n "${APPEND:-}" ]] || : > "$OUT/points.jsonl"

if [[ -n "${QUICK:-}" ]]; then
  SERVERS="100 200 400"; JOBS="200 400 800"; SLOTS="100 200 400"
  H0=200; J0=400; T0=200
elif [[ -n "${FULL:-}" ]]; then
  SERVERS="250 500 1000 2000 4000 8000 12500"
  JOBS="1000 2000 4000 8000 16000 32000"
  SLOTS="250 500 1000 2000 4000 8000 16000"
  H0=1000; J0=2000; T0=500
else
  SERVERS="125 250 500 1000 2000 4000"
  JOBS="250 500 1000 2000 4000"
  SLOTS="125 250 500 1000 2000"
  H0=500; J0=1000; T0=250
fi
POINT_TIMEOUT=${POINT_TIMEOUT:-120}
: > "$OUT/timeouts.txt"

point() { # kind arch policy axis servers jobs slots
  local kind=$1 arch=$2 policy=$3 axis=$4 h=$5 j=$6 t=$7
  local pol=()
  [[ "$policy" != "-" ]] && pol=(--policy "$policy")
  local rc=0
  timeout "$POINT_TIMEOUT" $S run --gen "$kind" --arch "$arch" --servers "$h" --jobs "$j" \
    --slots "$t" --axis "$axis" "${pol[@]}" >> "$OUT/points.jsonl" 2> "$OUT/last-error.txt" || rc=$?
  if [[ $rc == 124 ]]; then
    echo "$kind/$arch ${policy/-/algorithm} $axis H=$h J=$j T=$t: over ${POINT_TIMEOUT} s" \
      | tee -a "$OUT/timeouts.txt" >&2
  elif [[ $rc != 0 ]]; then
    # A point a limit refuses is part of the picture: listed beside the timeouts.
    echo "$kind/$arch ${policy/-/algorithm} $axis H=$h J=$j T=$t: refused: $(head -c 400 "$OUT/last-error.txt")" \
      | tee -a "$OUT/timeouts.txt" >&2
  fi
}

# KINDS="online/ps" (and APPEND=1 to add to an earlier points.jsonl) runs part of the sweep.
for spec in ${KINDS:-oasis/ps online/ps online/ring}; do
  kind=${spec%/*} arch=${spec#*/}
  for policy in - fifo; do
    echo "$kind/$arch ${policy/-/algorithm}" >&2
    for h in $SERVERS; do point "$kind" "$arch" "$policy" servers "$h" "$J0" "$T0"; done
    for j in $JOBS; do point "$kind" "$arch" "$policy" jobs "$H0" "$j" "$T0"; done
    for t in $SLOTS; do point "$kind" "$arch" "$policy" slots "$H0" "$J0" "$t"; done
  done
done
rm -f "$OUT/last-error.txt"
$S plot --input "$OUT/points.jsonl" --out "$OUT"
