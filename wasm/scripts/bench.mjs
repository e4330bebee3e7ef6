// Benchmark: the same work — `run` on every bundled scenario (parse, validate, the kind's
// scheduler making its decisions, result JSON) — natively (release) and as wasm under node.
// Prints ns per run and the wasm/native ratio (target <= 2). Usage: node scripts/bench.mjs [ms]
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { WASM_DIR, WORKSPACE } from "../test/helpers.mjs";

const budgetMs = Number(process.argv[2] || 300);
const m = createRequire(import.meta.url)(join(WASM_DIR, "pkg/node/mlsched.js"));
const r = spawnSync("cargo", ["run", "-q", "--release", "-p", "mlsched-wasm", "--example", "bench_native", String(budgetMs * 1e6)],
  { cwd: WORKSPACE, encoding: "utf8" });
if (r.status !== 0) { console.error(r.stderr); process.exit(1); }
const native = JSON.parse(r.stdout);
console.log("scenario              outcome   native ns/run   wasm ns/run   ratio");
let worst = 0;
for (const s of m.bundledScenarios()) {
  let outcome = "result";
  try { m.run(s.scenario); } catch { outcome = "error"; }
  for (let i = 0; i < 3; i++) { try { m.run(s.scenario); } catch {} } // warm up
  const t0 = process.hrtime.bigint();
  let n = 0;
  while (n < 3 || Number(process.hrtime.bigint() - t0) < budgetMs * 1e6) {
    try { m.run(s.scenario); } catch {}
    n++;
  }
  const wasm = Number(process.hrtime.bigint() - t0) / n;
  const ratio = wasm / native[s.name];
  worst = Math.max(worst, ratio);
  console.log(`${s.name.padEnd(22)}${outcome.padEnd(10)}${native[s.name].toFixed(0).padStart(13)}${wasm.toFixed(0).padStart(14)}${ratio.toFixed(2).padStart(8)}`);
}
console.log(`worst wasm/native ratio ${worst.toFixed(2)} (target <= 2)`);
