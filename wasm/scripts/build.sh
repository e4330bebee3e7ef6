#!/bin/sh
# Builds the npm package `mlsched` into wasm/pkg/{web,node} with the wasm-bindgen CLI: the
# all-kinds modules (pkg/web/mlsched.js, pkg/node/), one browser module per scenario kind
# (pkg/web/<kind>/mlsched.js, cargo `--no-default-features --features <kind>`: issue 14's size
# budget counts each of these) and the loader that picks one (pkg/web/loader.js, with the
# kind-independent data in pkg/web/data.js); copies the per-kind modules and the loader next to
# the visualiser (wasm/www/mlsched/).
# The wasm is compiled with the workspace profile `wasm-release` (opt-level 3, dependencies at
# "z", fat LTO, one codegen unit, panic=abort; LLVM inlining threshold 85 and no loop unrolling
# on the wasm target, below) and then optimised with
# `wasm-opt -Oz` (issue 44: 1,900 bytes gzipped smaller than -O3 and up to 6x faster) from the
# npm package `binaryen` (a devDependency: run `npm ci` in wasm/ first). Prints the size the
# budget counts (gzip -9 of each per-kind browser module; wasm/README.md "Size").
#   env: CARGO_TARGET_DIR (default <workspace>/target),
#        MLSCHED_PROFILE (wasm-release|release|dev, default wasm-release),
#        MLSCHED_WASM_OPT (1 = run wasm-opt, the default; 0 = skip it, for quick local builds),
#        MLSCHED_NAMES (1 = keep the function names, wasm-opt -g: for `node scripts/sizes.mjs`;
#        the module is then larger than the one shipped and its gzip size is not the budget's),
#        MLSCHED_WASM_OPT_LEVEL (wasm-opt's level, default Oz; O3 was the level before issue 44),
#        MLSCHED_KINDS (the per-kind modules to build, default all five; "" = none),
#        MLSCHED_INLINE_THRESHOLD (LLVM's inlining threshold for the wasm target, default 85;
#        "" = LLVM's own, 225 at opt-level 3; see below),
#        MLSCHED_UNROLL_THRESHOLD (LLVM's loop unrolling threshold for the wasm target, default 0,
#        no unrolling; "" = LLVM's own, 300 at opt-level 3)
set -eu
# LLVM inlines less and unrolls no loop for the wasm target only (the native builds, the
# benchmark's native side among them, keep LLVM's defaults): issue 44, wasm/README.md "Size".
# Inlining: at 70 and below LLVM stops inlining the 128-bit multiply helper (`__multi3`) into
# A_online's price sums (its costs are exact `u128`s) and online-ps-small's decision ratio goes
# from 1.7 to 3.2; at 85 it is as fast as at 100. The two together take 5 to 15 KB gzipped off
# each module (the online module under its 250,000 budget) for browser decisions up to 17 %
# slower (oasis-small; placement-table2's 10 us decisions 40 %), every ratio still under 2.
# Set only when the caller has not set the wasm target's flags (RUSTFLAGS, if set, overrides
# them: cargo's precedence).
threshold=${MLSCHED_INLINE_THRESHOLD-85}
unroll=${MLSCHED_UNROLL_THRESHOLD-0}
if [ -z "${CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS:-}" ]; then
  flags=""
  [ -n "$threshold" ] && flags="-C llvm-args=-inline-threshold=$threshold"
  [ -n "$unroll" ] && flags="$flags -C llvm-args=-unroll-threshold=$unroll"
  if [ -n "$flags" ]; then export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="${flags# }"; fi
fi
here=$(cd "$(dirname "$0")/.." && pwd)          # wasm/
ws=${MLSCHED_WORKSPACE:-$(cd "$here/.." && pwd)}  # workspace root
target=${CARGO_TARGET_DIR:-$ws/target}
profile=${MLSCHED_PROFILE:-wasm-release}
[ "$profile" = dev ] && dir=debug || dir=$profile

need=$(sed -n 's/^wasm-bindgen = "=\(.*\)"/\1/p' "$here/Cargo.toml")
have=$(wasm-bindgen --version | awk '{print $2}')
if [ "$need" != "$have" ]; then
  echo "FAIL build: wasm-bindgen CLI $have, Cargo.toml pins $need (cargo install wasm-bindgen-cli --version $need, without --locked)" >&2
  exit 1
fi

wasm_opt="$here/node_modules/.bin/wasm-opt"
if [ "${MLSCHED_WASM_OPT:-1}" != 0 ] && [ ! -x "$wasm_opt" ]; then
  echo "FAIL build: $wasm_opt missing (run \`npm ci\` in wasm/: binaryen is a devDependency)" >&2
  exit 1
fi

kinds=${MLSCHED_KINDS-oasis online placement preempt route}
names=""
[ "${MLSCHED_NAMES:-0}" = 1 ] && names=-g
# wasm-opt -Oz in place (the same optimisation for every module; they differ only in imports
# and in the kinds built in).
opt() {
  [ "${MLSCHED_WASM_OPT:-1}" = 0 ] && return 0
  "$wasm_opt" "-${MLSCHED_WASM_OPT_LEVEL:-Oz}" $names --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-multivalue --enable-reference-types "$1" -o "$1"
}
gzip_size() { gzip -9 -c "$1" | wc -c | tr -d ' '; }

rm -rf "$here/pkg"
# One module per kind first (each build overwrites the same cargo artifact, so it is bound
# right away), then the all-kinds build last (its artifact is the one left in target/).
for k in $kinds; do
  (cd "$ws" && cargo build -p mlsched-wasm --lib --target wasm32-unknown-unknown --profile "$profile" \
    --no-default-features --features "$k")
  wasm-bindgen "$target/wasm32-unknown-unknown/$dir/mlsched_wasm.wasm" --target web \
    --out-dir "$here/pkg/web/$k" --out-name mlsched --no-typescript
  opt "$here/pkg/web/$k/mlsched_bg.wasm"
  cat >> "$here/pkg/web/$k/mlsched.js" <<'JS'

// Added by wasm/scripts/build.sh: a named export of the default `init`.
export { __wbg_init as init };
JS
done

(cd "$ws" && cargo build -p mlsched-wasm --lib --target wasm32-unknown-unknown --profile "$profile")
wasm="$target/wasm32-unknown-unknown/$dir/mlsched_wasm.wasm"

wasm-bindgen "$wasm" --target web --out-dir "$here/pkg/web" --out-name mlsched --no-typescript
wasm-bindgen "$wasm" --target nodejs --out-dir "$here/pkg/node" --out-name mlsched --no-typescript
for b in web node; do opt "$here/pkg/$b/mlsched_bg.wasm"; done
printf '{ "type": "module" }\n' > "$here/pkg/web/package.json"
printf '{ "type": "commonjs" }\n' > "$here/pkg/node/package.json"
# One API on both builds: the node build is ready at require() time, so its init is a no-op.
cat >> "$here/pkg/node/mlsched.js" <<'JS'

// Added by wasm/scripts/build.sh: the browser build needs `await init()`; node does not.
module.exports.init = async function init() {};
module.exports.default = module.exports.init;
module.exports.initSync = function initSync() {};
JS
# ESM entry of the node build (so `import init, { run } from "mlsched"` works as in the browser).
cat > "$here/pkg/node/mlsched.mjs" <<'JS'
import m from "./mlsched.js";
export const { run, runWith, runEvents, bundledScenarios, policies, kinds, version, Engine, Simulation, DecisionBench, init, initSync } = m;
export default m.init;
JS
cat >> "$here/pkg/web/mlsched.js" <<'JS'

// Added by wasm/scripts/build.sh: a named export of the default `init`.
export { __wbg_init as init };
JS

# The loader's kind-independent data (bundled scenarios, policies, version), read from the
# all-kinds node build so the loader needs no module to list them.
node -e '
const m = require(process.argv[1]);
const kinds = ["oasis", "online", "placement", "preempt", "route"];
const policies = Object.fromEntries(kinds.map((k) => [k, m.policies(k)]));
process.stdout.write("// Generated by wasm/scripts/build.sh from the all-kinds module: plain data, no wasm.\n" +
  "export const VERSION = " + JSON.stringify(m.version()) + ";\n" +
  "export const POLICIES = " + JSON.stringify(policies) + ";\n" +
  "export const BUNDLED = " + JSON.stringify(m.bundledScenarios()) + ";\n");
' "$here/pkg/node/mlsched.js" > "$here/pkg/web/data.js"
cp "$here/js/loader.js" "$here/pkg/web/loader.js"

rm -rf "$here/www/mlsched"
mkdir -p "$here/www/mlsched"
cp "$here/pkg/web/loader.js" "$here/pkg/web/data.js" "$here/www/mlsched/"
for k in $kinds; do
  mkdir -p "$here/www/mlsched/$k"
  cp "$here/pkg/web/$k/mlsched.js" "$here/pkg/web/$k/mlsched_bg.wasm" "$here/www/mlsched/$k/"
done
# The all-kinds browser module too: for pages that run documents of several kinds at once.
cp "$here/pkg/web/mlsched.js" "$here/pkg/web/mlsched_bg.wasm" "$here/www/mlsched/"
# The size the issue's budget counts: each per-kind browser module, gzip -9 (README "Size").
for k in $kinds; do
  w="$here/pkg/web/$k/mlsched_bg.wasm"
  echo "built $k: $(wc -c < "$w" | tr -d ' ') bytes wasm ($(gzip_size "$w") bytes gzip -9) in $here/pkg/web/$k"
done
w="$here/pkg/web/mlsched_bg.wasm"
echo "built all kinds: $(wc -c < "$w" | tr -d ' ') bytes wasm ($(gzip_size "$w") bytes gzip -9) into $here/pkg and $here/www/mlsched"
