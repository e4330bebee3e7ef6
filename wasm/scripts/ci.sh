#!/bin/sh
# Everything CI needs for the wasm package and the visualiser (issue 9), in one script:
#   npm ci (devDependencies: binaryen's wasm-opt, typescript, playwright-core) -> build
#   (wasm-bindgen CLI + wasm-opt; the all-kinds modules and one web module per kind) -> tsc
#   --noEmit of a typed usage example against the package's .d.ts -> npm pack -> node tests
#   (tarball install, native = wasm for the all-kinds and each per-kind module, Engine event
#   by event) -> native sim/engine tests, a one-kind build's refusal of the other kinds
#   -> wasm-bindgen-test on wasm32 (node) -> browser tests (Chromium) -> the visualiser on a run
#   with open-world events and its what-if as events (Chromium) -> the live mode on a running
#   `mlsched serve` (builds target/debug/mlsched-serve; Chromium) -> the visualiser on the whole
#   openb result (Chromium; the release CLI's import if target/release/mlsched is built, else the
#   gzipped fixture test/fixtures/openb-oasis.json.gz).
# Needs: cargo + the wasm32-unknown-unknown target, wasm-bindgen-cli (= the version pinned in
# wasm/Cargo.toml, also provides wasm-bindgen-test-runner), node >= 18 with npm, Chromium
# (/usr/bin/chromium or $MLSCHED_CHROMIUM). Screenshots: $MLSCHED_SCREENSHOTS
# (default <workspace>/artifacts/wasm-screenshots).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
ws=${MLSCHED_WORKSPACE:-$(cd "$here/.." && pwd)}
export MLSCHED_WORKSPACE="$ws"
export MLSCHED_SCREENSHOTS="${MLSCHED_SCREENSHOTS:-$ws/artifacts/wasm-screenshots}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mlsched-ci.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=""

step() { # step NAME command...
  name=$1; shift
  echo "==> $name"
  if "$@" >"$tmp/log" 2>&1; then
    echo "PASS $name"
    # Test summaries, and build.sh's module sizes (each per-kind module: the size budget).
    grep -E '^(# (native|page|installed|screenshots|engine|scale)|built )' "$tmp/log" | sed 's/^# //; s/^/     /' || true
  else
    cat "$tmp/log"
    echo "FAIL $name"
    failed="$failed $name"
  fi
}
must() { [ -z "$failed" ] || { echo "FAIL wasm ci (stopped after:$failed)"; exit 1; }; }

for tool in cargo wasm-bindgen wasm-bindgen-test-runner node npm; do
  command -v "$tool" >/dev/null 2>&1 || { echo "FAIL tools: $tool not found"; exit 1; }
done

cd "$here"
step "npm ci" npm ci --no-audit --no-fund
must
step build sh scripts/build.sh
must
step "types: tsc --noEmit (test/types/usage.ts against types/mlsched.d.ts)" node node_modules/typescript/bin/tsc -p test/types
step "native results" sh -c "cd '$ws' && cargo run -q -p mlsched-wasm --example native_results > '$tmp/native.json'"
export MLSCHED_NATIVE_RESULTS="$tmp/native.json"
mkdir -p "$tmp/pack"
step "npm pack" npm pack --pack-destination "$tmp/pack"
export MLSCHED_TARBALL="$(ls "$tmp"/pack/*.tgz 2>/dev/null | head -n1)"
must
step "node: tarball install" node --test test/package.test.mjs
step "node: native = wasm" node --test test/native_vs_wasm.test.mjs
step "node: Engine event by event = run, snapshots" node --test test/engine.test.mjs
step "node: open-world events (Engine.event, submit, cancel, server events; runEvents = mlsched run --events)" node --test test/events.test.mjs
step "rust: sim + engine + api (native)" sh -c "cd '$ws' && cargo test -q -p mlsched-wasm"
step "rust: a one-kind build refuses the other kinds (mlsched-scenario --features route)" sh -c "cd '$ws' && cargo test -q -p mlsched-scenario --lib --no-default-features --features route doc::tests"
step "rust: wasm-bindgen-test (wasm32, node)" sh -c "cd '$ws' && CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner cargo test -p mlsched-wasm --target wasm32-unknown-unknown --tests"
step "browser: visualiser in Chromium" node --test test/browser.test.mjs
step "browser: runs with open-world events (down intervals, cancellations), what-if as events" node --test test/openworld.test.mjs
step "build: the service binary (cargo build -p mlsched-serve)" sh -c "cd '$ws' && cargo build -q -p mlsched-serve"
step "browser: live mode on a running mlsched serve (SSE, CORS)" node --test test/live.test.mjs
step "browser: visualiser at cluster scale (whole openb result)" node --test test/scale.test.mjs
echo "     screenshots in $MLSCHED_SCREENSHOTS"

if [ -n "$failed" ]; then echo "FAIL wasm ci:$failed"; exit 1; fi
echo "PASS wasm ci"
