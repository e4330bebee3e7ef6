#!/usr/bin/env bash
# Short smoke run of every cargo-fuzz target (FUZZ_SECONDS each, default 20), for .ci/run.
#
# Needs cargo-fuzz (installed here from crates.io if missing). Uses a nightly toolchain when
# rustup has one, otherwise the stable toolchain with RUSTC_BOOTSTRAP=1 (cargo fuzz only needs
# nightly for -Z flags, which stable accepts that way). The kernel forbids unsafe code, so the
# default build has no sanitizer (faster); SANITIZER=address turns ASan on.
#
# Seeds come from the repository (bundled scenarios, the golden corpus, kept crash inputs);
# nothing is written inside the repository except fuzz/target and fuzz/artifacts (gitignored).
# A crash fails the script; copy fuzz/artifacts/<target>/crash-* into
# tests/fuzz-regressions/<target>/ so it stays a test.
#
# Longer runs: FUZZ_SECONDS=3600 bash fuzz/run-smoke.sh kernel_events
set -euo pipefail
cd "$(dirname "$0")"
seconds="${FUZZ_SECONDS:-20}"
sanitizer="${SANITIZER:-none}"
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(scenario_json log_decode kernel_events)

if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "== fuzz: installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    fuzz=(cargo +nightly fuzz)
else
    export RUSTC_BOOTSTRAP=1
    fuzz=(cargo fuzz)
fi

"${fuzz[@]}" build -O -s "$sanitizer"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for t in "${targets[@]}"; do
    mkdir -p "$work/$t" "artifacts/$t"
    cp ../tests/fuzz-regressions/"$t"/* "$work/$t/" 2>/dev/null || true
done
cp ../cli/scenarios/*.json "$work/scenario_json/" 2>/dev/null || true
printf '\000\000\005\000\007' >"$work/log_decode/mutate-seed" 2>/dev/null || true
printf '\007\000\001\002\003\004\005\006\004\002\011' >"$work/kernel_events/seed" 2>/dev/null || true

status=0
for t in "${targets[@]}"; do
    echo "== fuzz: $t for ${seconds}s"
    log="$work/$t.log"
    if "${fuzz[@]}" run "$t" -O -s "$sanitizer" "$work/$t" -- \
        -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -max_len=16384 \
        -print_final_stats=1 -artifact_prefix="artifacts/$t/" >"$log" 2>&1; then
        grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec' "$log" | sed "s/^/   $t /"
    else
        status=1
        tail -40 "$log"
        echo "== fuzz: $t FAILED; the input is in fuzz/artifacts/$t/"
    fi
done
exit $status
