#!/bin/sh
# Builds the npm package `mlsched` into wasm/pkg/{web,node} with the wasm-bindgen CLI, and
# copies the browser build next to the visualiser (wasm/www/mlsched/).
# The wasm is compiled with the workspace profile `wasm-release` (opt-level 3, dependencies at
# "z", fat LTO, one codegen unit, panic=abort) and then optimised with `wasm-opt -O3` from the
# npm package `binaryen` (a devDependency: run `npm ci` in wasm/ first). Prints the size the
# budget counts (gzip -9 of the browser module; wasm/README.md "Size").
#   env: CARGO_TARGET_DIR (default <workspace>/target),
#        MLSCHED_PROFILE (wasm-release|release|dev, default wasm-release),
#        MLSCHED_WASM_OPT (1 = run wasm-opt, the default; 0 = skip it, for quick local builds),
#        MLSCHED_NAMES (1 = keep the function names, wasm-opt -g: for `node scripts/sizes.mjs`;
#        the module is then larger than the one shipped and its gzip size is not the budget's)
set -eu
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

(cd "$ws" && cargo build -p mlsched-wasm --lib --target wasm32-unknown-unknown --profile "$profile")
wasm="$target/wasm32-unknown-unknown/$dir/mlsched_wasm.wasm"

rm -rf "$here/pkg"
wasm-bindgen "$wasm" --target web --out-dir "$here/pkg/web" --out-name mlsched --no-typescript
wasm-bindgen "$wasm" --target nodejs --out-dir "$here/pkg/node" --out-name mlsched --no-typescript
if [ "${MLSCHED_WASM_OPT:-1}" != 0 ]; then
  # The same optimisation of both builds' module (they differ only in import names).
  names=""
  [ "${MLSCHED_NAMES:-0}" = 1 ] && names=-g
  for b in web node; do
    "$wasm_opt" -O3 $names --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
      --enable-mutable-globals --enable-multivalue --enable-reference-types \
      "$here/pkg/$b/mlsched_bg.wasm" -o "$here/pkg/$b/mlsched_bg.wasm"
  done
fi
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
export const { run, runWith, bundledScenarios, policies, version, Engine, Simulation, DecisionBench, init, initSync } = m;
export default m.init;
JS
cat >> "$here/pkg/web/mlsched.js" <<'JS'

// Added by wasm/scripts/build.sh: a named export of the default `init`.
export { __wbg_init as init };
JS

rm -rf "$here/www/mlsched"
mkdir -p "$here/www/mlsched"
cp "$here/pkg/web/mlsched.js" "$here/pkg/web/mlsched_bg.wasm" "$here/www/mlsched/"
# The size the issue's budget counts: the shipped browser module, gzip -9 (README "Size").
gz=$(gzip -9 -c "$here/pkg/web/mlsched_bg.wasm" | wc -c | tr -d ' ')
echo "built $(wc -c < "$here/pkg/web/mlsched_bg.wasm" | tr -d ' ') bytes wasm ($gz bytes gzip -9) into $here/pkg and $here/www/mlsched"
