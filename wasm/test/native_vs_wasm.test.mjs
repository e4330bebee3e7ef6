// Native = wasm: every bundled scenario with each policy its kind accepts, run natively
// (mlsched_scenario::run::run_json) and by the wasm package under node, must give the same bytes
// (result JSON, or the error message while an algorithm is missing).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import { nativeResults, WASM_DIR } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const m = require(join(WASM_DIR, "pkg/node/mlsched.js"));

test("every bundled scenario: wasm under node == native, byte for byte", () => {
  const native = nativeResults();
  assert.ok(native.length >= m.bundledScenarios().length, "native list covers the bundled scenarios");
  const names = new Set(native.map((c) => c.name));
  for (const b of m.bundledScenarios()) assert.ok(names.has(b.name), `native list has ${b.name}`);
  let ok = 0, err = 0;
  for (const c of native) {
    const text = m.bundledScenarios().find((b) => b.name === c.name).scenario;
    let got;
    try {
      got = { ok: c.policy || c.all_categories ? m.runWith(text, c.policy, c.all_categories) : m.run(text) };
    } catch (e) {
      assert.ok(e instanceof Error, "errors are Error objects");
      got = { error: e.message };
    }
    const label = `${c.name} policy=${c.policy ?? "(own)"} all=${c.all_categories}`;
    if ("ok" in c) {
      assert.equal(got.ok, c.ok, `${label}: result JSON differs`);
      ok++;
    } else {
      assert.equal(got.error, c.error, `${label}: error message differs`);
      err++;
    }
  }
  console.log(`native = wasm on ${native.length} runs (${ok} results, ${err} errors, same message both sides)`);
});
