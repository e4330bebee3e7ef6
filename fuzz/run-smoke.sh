#!/usr/bin/env bash
# Short smoke run of every cargo-fuzz target (FUZZ_SECONDS each, default 12; capi_run, the C
# ABI, CAPI_FUZZ_SECONDS, default 10), for .ci/run.
#
# Needs cargo-fuzz (installed here from crates.io if missing). Uses a nightly toolchain when
# rustup has one, otherwise the stable toolchain with RUSTC_BOOTSTRAP=1 (cargo fuzz only needs
# nightly for -Z flags, which stable accepts that way). The kernel forbids unsafe code, so the
# default build has no sanitizer (faster); SANITIZER=address turns ASan on.
#
# Seeds come from the repository (bundled scenarios, fuzz/seeds/<target>/, kept crash inputs);
# nothing is written inside the repository except fuzz/target, fuzz/artifacts and, with
# FUZZ_CORPUS, fuzz/corpus (all gitignored). A crash fails the script; copy
# fuzz/artifacts/<target>/crash-* into tests/fuzz-regressions/<target>/ so it stays a test.
#
# Longer runs (fuzz/CAMPAIGNS.md records them):
#   FUZZ_SECONDS=3600 FUZZ_MAX_LEN=4096 FUZZ_CORPUS=1 nice -n 19 bash fuzz/run-smoke.sh scenario_json
# FUZZ_MAX_LEN (default 16384) bounds the input length, FUZZ_RUNS stops after that many
# executions, FUZZ_CORPUS=1 keeps the corpus in fuzz/corpus/<target>/ across runs, FUZZ_TIMEOUT
# (default 30 s, wall-clock: raise it for a niced run on a busy machine) is libFuzzer's -timeout.
# FUZZ_TRACE_COMPARES=0 builds without cargo fuzz's comparison tracing (--no-trace-compares:
# about twice the executions per second; for long campaigns of targets whose input bytes are
# only read modulo small counts, where there is no magic value for the tracing to solve:
# fuzz/CAMPAIGNS.md says which runs used it). The smoke run keeps it.
set -euo pipefail
cd "$(dirname "$0")"
seconds="${FUZZ_SECONDS:-12}"
max_len="${FUZZ_MAX_LEN:-16384}"
runs="${FUZZ_RUNS:--1}"
timeout="${FUZZ_TIMEOUT:-30}"
sanitizer="${SANITIZER:-none}"
build_flags=(-O -s "$sanitizer")
[ "${FUZZ_TRACE_COMPARES:-1}" = 0 ] && build_flags+=(--no-trace-compares)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(scenario_json log_decode kernel_events capi_run engine_events gen_options world_events)

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

"${fuzz[@]}" build "${build_flags[@]}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for t in scenario_json log_decode kernel_events capi_run engine_events gen_options world_events; do
    mkdir -p "$work/$t" "artifacts/$t"
    cp ../tests/fuzz-regressions/"$t"/* seeds/"$t"/* "$work/$t/" 2>/dev/null || true
done
cp ../scenarios/*.json "$work/scenario_json/"
cp ../scenarios/*.json "$work/capi_run/"
printf '{"kind": "route"}\000fifo' >"$work/capi_run/policy-seed"
printf '\000\000\005\000\007' >"$work/log_decode/mutate-seed"
printf '\007\000\001\002\003\004\005\006\004\002\011' >"$work/kernel_events/seed"

status=0
for t in "${targets[@]}"; do
    secs="$seconds"
    [ "$t" = capi_run ] && secs="${CAPI_FUZZ_SECONDS:-10}"
    echo "== fuzz: $t for ${secs}s"
    log="$work/$t.log"
    dirs=("$work/$t")
    if [ -n "${FUZZ_CORPUS:-}" ]; then
        mkdir -p "corpus/$t"
        dirs=("corpus/$t" "$work/$t")
    fi
    if "${fuzz[@]}" run "$t" "${build_flags[@]}" "${dirs[@]}" -- \
        -max_total_time="$secs" -runs="$runs" -timeout="$timeout" -rss_limit_mb=2048 \
        -max_len="$max_len" -print_final_stats=1 -artifact_prefix="artifacts/$t/" >"$log" 2>&1; then
        grep -E '^#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::average_exec_per_sec' \
            "$log" | sed "s/^/   $t /"
    else
        status=1
        tail -40 "$log"
        echo "== fuzz: $t FAILED; the input is in fuzz/artifacts/$t/"
    fi
done
exit $status
