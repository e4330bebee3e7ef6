// The visualiser in Debian's Chromium (playwright-core, no downloaded browser): each bundled
// scenario runs in the page, and the summary the page renders must equal the native result
// (same log_hash and summary values) or show the native error message; the kernel's prices
// (OASiS, Zhou) and matching-market rounds (HAS, JPS) are drawn. The native results of every
// policy (generated at test time, no stored fixtures) are replayed too, so every kind's drawing
// code runs on both the kernel path and the result-only path. Screenshots go to $MLSCHED_SCREENSHOTS
// (default <workspace>/artifacts/wasm-screenshots), printed at the end.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { nativeResults, serve, WASM_DIR, WORKSPACE } from "./helpers.mjs";

const CHROMIUM = process.env.MLSCHED_CHROMIUM || "/usr/bin/chromium";
const SHOTS = process.env.MLSCHED_SCREENSHOTS || join(WORKSPACE, "artifacts", "wasm-screenshots");
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"];

let server, ctx, profile;
const pageErrors = [];

before(async () => {
  assert.ok(existsSync(join(WASM_DIR, "www/mlsched/loader.js")), "run scripts/build.sh first (www/mlsched missing)");
  assert.ok(existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM} (apt-get install chromium)`);
  mkdirSync(SHOTS, { recursive: true });
  server = await serve(join(WASM_DIR, "www"));
  profile = mkdtempSync(join(tmpdir(), "mlsched-chromium-"));
  ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1440, height: 1100 },
  });
  // Offline: anything not served by our localhost server is a failure.
  await ctx.route("**/*", (route) => (route.request().url().startsWith(server.url) ? route.continue() : route.abort()));
});

after(async () => {
  await ctx?.close();
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  console.log(`screenshots: ${SHOTS}`);
});

async function open(query = "") {
  const page = await ctx.newPage();
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") pageErrors.push(m.text()); });
  await page.goto(server.url + query);
  await page.waitForSelector("body[data-ready]", { timeout: 30000 });
  return page;
}

/** Pixels of canvas view `name` other than the plot background, after the next frame. */
async function drawnPixels(page, name) {
  return page.evaluate(async (n) => {
    await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
    return window.mlschedViz.views[n].drawnPixels();
  }, name);
}

test("every bundled scenario: the page's summary equals the native result", async () => {
  const native = nativeResults().filter((c) => c.policy === null && !c.all_categories);
  assert.ok(native.length >= 6);
  for (const c of native) {
    const page = await open(`?scenario=${encodeURIComponent(c.name)}`);
    const ready = await page.evaluate(() => document.body.dataset.ready);
    if ("ok" in c) {
      const want = JSON.parse(c.ok);
      assert.equal(ready, "ok", `${c.name}: page shows a result`);
      assert.equal(await page.textContent("#log-hash"), want.log_hash, `${c.name}: log_hash`);
      assert.equal(await page.evaluate(() => window.mlschedViz.resultJson()), c.ok, `${c.name}: result bytes`);
      const rows = await page.$$eval("#summary tr[data-key^='summary.']", (trs) =>
        trs.map((tr) => [tr.dataset.key.slice(8), tr.lastChild.dataset.raw]));
      const summary = want.kind === "placement"
        ? { avg_jct: want.best.avg_jct, fairness: want.best.fairness, category: want.best.category, categories_examined: want.categories_examined }
        : want.summary;
      for (const [k, raw] of rows) assert.deepEqual(JSON.parse(raw), summary[k], `${c.name}: summary.${k}`);
      assert.equal(rows.length, Object.values(summary).filter((v) => v !== null && v !== undefined).length, `${c.name}: every summary field shown`);
      if (want.kind === "oasis" || want.kind === "online") {
        assert.equal(await page.isHidden("#heat-price-box"), false, `${c.name}: price heatmap shown`);
        assert.match(await page.textContent("#price-formula"), /the kernel's/, `${c.name}: prices from the kernel`);
        assert.ok((await drawnPixels(page, "price")).drawn > 0, `${c.name}: price heatmap drawn`);
        assert.ok(await page.$$eval("#decisions .src", (l) => l.length) > 0 || want.kind === "online", `${c.name}: kernel records`);
      }
      if (want.kind === "placement" && (want.policy === "has" || want.policy === "jps")) {
        await page.evaluate((t) => window.mlschedViz.seek(t), 1e9);
        assert.ok(await page.$$eval("#market tr[data-round]", (r) => r.length) > 0, `${c.name}: market rounds shown`);
        assert.equal(await page.$$eval("#market tr.cleared", (r) => r.length), 1, `${c.name}: the chosen category's market clears`);
      }
      await page.click("#step");
    } else {
      assert.equal(ready, "error", `${c.name}: page shows the error`);
      assert.equal(await page.textContent("#summary-error"), c.error, `${c.name}: error message`);
    }
    await page.screenshot({ path: join(SHOTS, `run-${c.name}.png`), fullPage: true });
    await page.close();
  }
  console.log(`page = native on ${native.length} bundled scenarios`);
});

test("saved results of every policy replay and draw", async () => {
  const bundled = createRequire(import.meta.url)(join(WASM_DIR, "pkg/node/mlsched.js")).bundledScenarios();
  const cases = nativeResults().filter((c) => "ok" in c);
  const page = await open();
  const kinds = new Set();
  for (const c of cases) {
    const name = `${c.name}-${c.policy ?? "own"}${c.all_categories ? "-all" : ""}`;
    const scenario = bundled.find((b) => b.name === c.name).scenario;
    const ready = await page.evaluate(([s, r, n]) => window.mlschedViz.replay(s, r, n), [scenario, c.ok, name]);
    assert.equal(ready, "ok", `${name}: replay shown (error: ${await page.textContent("#error")})`);
    const kind = JSON.parse(c.ok).kind;
    kinds.add(kind);
    if (kind !== "placement") {
      assert.ok((await drawnPixels(page, "timeline")).drawn > 0, `${name}: timeline drawn`);
      assert.ok((await drawnPixels(page, "usage")).drawn > 0, `${name}: usage heatmap drawn`);
    }
    const steps = Number(await page.getAttribute("#scrub", "max"));
    await page.evaluate((t) => window.mlschedViz.seek(t), Math.min(6, steps));
    assert.equal(await page.evaluate(() => document.body.dataset.step), String(Math.min(6, steps)));
    assert.ok(await page.$$eval("#decisions li", (l) => l.length) > 0, `${name}: decisions listed`);
    assert.equal(await page.textContent("#log-hash"), JSON.parse(c.ok).log_hash, `${name}: summary of the replayed result`);
    if (!c.policy && !c.all_categories) await page.screenshot({ path: join(SHOTS, `replay-${name}.png`), fullPage: true });
  }
  assert.equal(kinds.size, 5, "every kind replayed");
  console.log(`page replayed ${cases.length} saved results (every policy)`);
  // play advances the clock
  await page.click("#reset");
  await page.click("#play");
  await page.waitForFunction(() => Number(document.body.dataset.step) >= 2, null, { timeout: 10000 });
  await page.click("#play");
  await page.close();
  assert.deepEqual(pageErrors, [], "no JS errors in the page");
});

test("canvas plots: wheel, keys and reset zoom and pan; hover shows a tooltip", async () => {
  const page = await open("?scenario=oasis-small");
  const box = await page.locator("#timeline canvas").boundingBox();
  const zoom = () => page.evaluate(() => { const v = window.mlschedViz.views.timeline; return v.vp.kx / v.vp.fitKx; });
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -500);
  await page.waitForFunction(() => window.mlschedViz.views.timeline.vp.kx > window.mlschedViz.views.timeline.vp.fitKx * 1.5);
  const z1 = await zoom();
  await page.focus("#timeline canvas");
  await page.keyboard.press("+");
  assert.ok(await zoom() > z1, "+ zooms in");
  const step = await page.evaluate(() => document.body.dataset.step);
  await page.keyboard.press("ArrowRight");
  assert.equal(await page.evaluate(() => document.body.dataset.step), step, "arrows in a focused plot pan, not step");
  await page.click("#timeline .gv-reset");
  assert.equal(await zoom(), 1, "reset shows everything");
  await page.mouse.move(box.x + 140, box.y + 40);
  await page.mouse.move(box.x + 160, box.y + 50);
  await page.waitForSelector("#timeline .gv-tip:not([hidden])", { timeout: 5000 });
  assert.ok((await page.textContent("#timeline .gv-tip")).length > 0, "tooltip text");
  await page.close();
});

test("what-if: a job submitted and a capacity changed (events), on the engine; decisions compared", async () => {
  const page = await open("?scenario=oasis-small");
  const added = await page.evaluate(() => window.mlschedViz.whatIf({ job: "resnet-1" }));
  assert.ok(added && added.changed >= 1, "the added job is a changed decision");
  assert.ok(await page.$$eval("#wi-diff li[data-job^='what-if-']", (l) => l.length) === 1, "the new job is listed");
  const cut = await page.evaluate(() => window.mlschedViz.whatIf({ capacity: { server: 0, resource: 0, value: 0 } }));
  assert.ok(cut, `capacity what-if ran (${await page.textContent("#wi-diff")})`);
  assert.match(cut.edits[0], /w0 gpu = 0 from 0/);
  assert.deepEqual(cut.events, [{ at: 0, event: "capacity", server: "w0", capacity: [0, 32, 244, 20] }], "a capacity event, not an edited scenario");
  await page.click("#wi-show");
  await page.waitForFunction(() => document.body.dataset.ready === "ok" && /what-if/.test(document.getElementById("status").textContent));
  const bad = await page.evaluate(() => { window.mlschedViz.whatIf({ capacity: { server: 0, resource: 0, value: -1 } }); return document.querySelector("#wi-error")?.textContent; });
  assert.match(bad ?? "", /capacit|worker_servers/, "a bad capacity is the engine's error naming the field");
  for (const name of ["preempt-small", "route-small", "online-ps-small"]) {
    await page.evaluate((n) => window.mlschedViz.load(n), name);
    const r = await page.evaluate(() => window.mlschedViz.whatIf({ job: window.mlschedViz.firstJob(), capacity: { server: 0, resource: 0, value: 1 } }));
    assert.ok(r && r.changed >= 1, `${name}: what-if ran and the added job changed the decisions (${await page.textContent("#wi-diff")})`);
  }
  await page.screenshot({ path: join(SHOTS, "whatif-online-ps-small.png"), fullPage: true });
  await page.close();
  assert.deepEqual(pageErrors, [], "no JS errors in the page");
});

test("each kind's page fetches only that kind's wasm module (loader, issue 14)", async () => {
  const bundled = createRequire(import.meta.url)(join(WASM_DIR, "pkg/node/mlsched.js")).bundledScenarios();
  const native = nativeResults().filter((c) => c.policy === null && !c.all_categories && "ok" in c);
  const kinds = ["oasis", "online", "placement", "preempt", "route"];
  /** The .wasm files the page fetched (from the page's resource timing: cache hits included). */
  const wasmFetched = (page) => page.evaluate(() => performance.getEntriesByType("resource")
    .map((e) => new URL(e.name).pathname).filter((p) => p.endsWith(".wasm")));
  for (const [i, kind] of kinds.entries()) {
    const name = bundled.find((b) => b.kind === kind && native.some((c) => c.name === b.name)).name;
    const requested = [];
    const page = await ctx.newPage();
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("request", (r) => { if (r.url().endsWith(".wasm")) requested.push(new URL(r.url()).pathname); });
    await page.goto(server.url + `?scenario=${encodeURIComponent(name)}`);
    await page.waitForSelector("body[data-ready]", { timeout: 30000 });
    assert.equal(await page.evaluate(() => document.body.dataset.ready), "ok", `${name}: shown`);
    assert.deepEqual(await wasmFetched(page), [`/mlsched/${kind}/mlsched_bg.wasm`], `${name}: only the ${kind} module fetched`);
    for (const p of requested) assert.equal(p, `/mlsched/${kind}/mlsched_bg.wasm`, `${name}: network request ${p}`);
    assert.deepEqual(await page.evaluate(() => window.mlschedViz.loadedKinds()), [kind]);
    const want = JSON.parse(native.find((c) => c.name === name).ok);
    assert.equal(await page.textContent("#log-hash"), want.log_hash, `${name}: log_hash as native`);
    // Switching to a scenario of another kind loads that kind's module (once); back is cached.
    const other = kinds[(i + 1) % kinds.length];
    const otherName = bundled.find((b) => b.kind === other).name;
    assert.equal(await page.evaluate((n) => window.mlschedViz.load(n), otherName), "ok", `${otherName}: shown after ${name}`);
    assert.equal(await page.evaluate(() => window.mlschedViz.resultJson()),
      native.find((c) => c.name === otherName)?.ok ?? await page.evaluate(() => window.mlschedViz.resultJson()), `${otherName}: result bytes as native`);
    assert.equal(await page.evaluate((n) => window.mlschedViz.load(n), name), "ok");
    assert.deepEqual((await wasmFetched(page)).sort(), [`/mlsched/${kind}/mlsched_bg.wasm`, `/mlsched/${other}/mlsched_bg.wasm`].sort(),
      `${name} -> ${otherName} -> ${name}: each module fetched once`);
    await page.close();
  }
  assert.deepEqual(pageErrors, [], "no JS errors in the page");
  console.log("page loads one wasm module per kind shown (5 kinds, switching fetches the other kind's once)");
});
