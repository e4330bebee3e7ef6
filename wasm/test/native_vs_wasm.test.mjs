// Native = wasm: every bundled scenario with each policy its kind accepts, run natively
// (mlsched_scenario::run::run_json) and by the wasm package under node, must give the same bytes
// (result JSON, or the error message while an algorithm is missing).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
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

// The per-kind web modules (pkg/web/<kind>/, cargo --no-default-features --features <kind>;
// issue 14): each runs the bundled scenarios of its kind with the very bytes of the native run,
// and refuses a document of another kind with the typed error naming the module to load.
const KINDS = ["oasis", "online", "placement", "preempt", "route"];

/** The web build of `kind`'s module, instantiated under node from its bytes. */
async function kindModule(kind) {
  const dir = join(WASM_DIR, "pkg/web", kind);
  const mod = await import(pathToFileURL(join(dir, "mlsched.js")).href);
  mod.initSync({ module: readFileSync(join(dir, "mlsched_bg.wasm")) });
  return mod;
}

function runCase(mod, text, c) {
  try {
    return { ok: c.policy || c.all_categories ? mod.runWith(text, c.policy, c.all_categories) : mod.run(text) };
  } catch (e) {
    assert.ok(e instanceof Error, "errors are Error objects");
    return { error: e.message };
  }
}

test("each kind's web module == native on its kind's bundled scenarios, byte for byte", async () => {
  const native = nativeResults();
  const bundled = m.bundledScenarios();
  let runs = 0;
  for (const kind of KINDS) {
    const mod = await kindModule(kind);
    assert.deepEqual(mod.kinds(), [kind], `${kind}: the module runs its kind only`);
    // A kind's module carries its own kind's bundled scenarios only (issue 44, the module size;
    // the loader lists every kind's from data.js).
    assert.deepEqual(mod.bundledScenarios(), bundled.filter((b) => b.kind === kind), `${kind}: its kind's bundled scenarios listed`);
    for (const k of KINDS) assert.deepEqual(mod.policies(k), m.policies(k), `${kind}: policies(${k})`);
    const mine = new Set(bundled.filter((b) => b.kind === kind).map((b) => b.name));
    assert.ok(mine.size >= 1, `${kind}: has bundled scenarios`);
    for (const c of native.filter((x) => mine.has(x.name))) {
      const got = runCase(mod, bundled.find((b) => b.name === c.name).scenario, c);
      const label = `${kind} module: ${c.name} policy=${c.policy ?? "(own)"} all=${c.all_categories}`;
      if ("ok" in c) assert.equal(got.ok, c.ok, `${label}: result JSON differs`);
      else assert.equal(got.error, c.error, `${label}: error message differs`);
      runs++;
    }
  }
  console.log(`native = per-kind wasm module on ${runs} runs (5 modules, each on its own kind)`);
});

test("a per-kind module refuses another kind's document, naming the module to load", async () => {
  const bundled = m.bundledScenarios();
  for (const kind of KINDS) {
    const mod = await kindModule(kind);
    for (const other of KINDS.filter((k) => k !== kind)) {
      const text = bundled.find((b) => b.kind === other).scenario;
      const want = `scenario, field \`kind\`: kind \`${other}\` is not built into this module (it has: ${kind}); load the \`${other}\` module (mlsched-${other})`;
      for (const f of [() => mod.run(text), () => new mod.Simulation(text), () => new mod.Engine(text), () => new mod.DecisionBench(text)]) {
        assert.throws(f, (e) => e instanceof Error && e.message === want, `${kind} module, ${other} document`);
      }
    }
    // Unknown kinds keep the all-kinds message.
    assert.throws(() => mod.run('{"kind": "nope"}'), { message: /unknown kind `nope`; expected one of oasis, online, placement, preempt, route/ });
  }
});
