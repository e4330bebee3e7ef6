// The npm tarball installs in a fresh directory and runs a scenario from ESM and CommonJS.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readdirSync, existsSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WASM_DIR } from "./helpers.mjs";

function tarball() {
  const given = process.env.MLSCHED_TARBALL;
  if (given) return given;
  const out = mkdtempSync(join(tmpdir(), "mlsched-pack-"));
  execFileSync("npm", ["pack", "--pack-destination", out], { cwd: WASM_DIR, stdio: "pipe" });
  return join(out, readdirSync(out).find((f) => f.endsWith(".tgz")));
}

test("npm pack tarball installs and runs a scenario", () => {
  const tgz = tarball();
  const dir = mkdtempSync(join(tmpdir(), "mlsched-install-"));
  try {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true }));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--offline", tgz], { cwd: dir, stdio: "pipe" });
    const pkg = join(dir, "node_modules", "mlsched");
    for (const f of ["types/mlsched.d.ts", "README.md", "pkg/node/mlsched_bg.wasm", "pkg/web/mlsched_bg.wasm", "pkg/web/mlsched.js",
      "types/loader.d.ts", "pkg/web/loader.js", "pkg/web/data.js",
      ...["oasis", "online", "placement", "preempt", "route"].flatMap((k) => [`pkg/web/${k}/mlsched.js`, `pkg/web/${k}/mlsched_bg.wasm`])]) {
      assert.ok(existsSync(join(pkg, f)), `tarball contains ${f}`);
    }
    const script = `
      import init, { run, bundledScenarios, Simulation, version } from "mlsched";
      import { createRequire } from "node:module";
      await init();
      const cjs = createRequire(import.meta.url)("mlsched");
      const out = { version: version(), runs: [] };
      for (const s of bundledScenarios()) {
        let r;
        try { r = { ok: run(s.scenario) }; } catch (e) { r = { error: e.message, isError: e instanceof Error }; }
        let c;
        try { c = { ok: cjs.run(s.scenario) }; } catch (e) { c = { error: e.message, isError: e instanceof Error }; }
        out.runs.push({ name: s.name, kind: s.kind, esm: r, cjs: c });
      }
      try { run('{"kind": "oasis"}'); } catch (e) { out.bad = e.message; }
      try { new Simulation('{"kind": "oops"}'); } catch (e) { out.badSim = e.message; }
      console.log(JSON.stringify(out));
    `;
    writeFileSync(join(dir, "main.mjs"), script);
    const out = JSON.parse(execFileSync("node", ["main.mjs"], { cwd: dir, encoding: "utf8" }));
    assert.equal(out.version, "0.1.0");
    assert.equal(new Set(out.runs.map((r) => r.kind)).size, 5, "bundled scenarios of all five kinds");
    for (const r of out.runs) {
      assert.deepEqual(r.esm, r.cjs, `${r.name}: ESM and CommonJS agree`);
      if (r.esm.ok) assert.match(JSON.parse(r.esm.ok).log_hash, /^[0-9a-f]+$/, `${r.name}: log_hash`);
      else assert.ok(r.esm.isError && r.esm.error.length > 0, `${r.name}: an Error with a message`);
    }
    assert.match(out.bad, /field `slots`|missing field/, "bad scenario: the CLI's message names the field");
    assert.match(out.badSim, /unknown kind `oops`/);
    console.log(`installed ${tgz} in ${dir}; ran ${out.runs.length} bundled scenarios`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
