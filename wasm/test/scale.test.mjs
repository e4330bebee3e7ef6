// The visualiser at cluster scale, in Debian's Chromium (playwright-core, no downloaded browser):
// the whole Alibaba openb trace on the whole openb cluster (7,064 jobs, 1,213 worker and 310 PS
// servers, `mlsched import openb --jobs all --servers all`, kind oasis, T = 200 slots).
//
// The scenario comes from the release CLI when it is built (`$MLSCHED_CLI`, default
// <workspace>/target/release/mlsched: `import`, then `run --json` for the result), else from the
// committed fixture test/fixtures/openb-oasis.json.gz (the same import, gzipped) with the result
// computed by the npm package's `run` (the CLI's bytes, see native_vs_wasm.test.mjs).
//
// Measured and printed (no timing assertions): time to first draw of the result (replay: the
// engine re-runs the scenario in wasm, the timeline is built, the canvases are drawn), and the
// draw cost of 60 zoom / pan frames per view (median, p95). Checked: every canvas has drawn
// content (pixels other than the background, read back with getImageData), before and after a
// zoom, the tooltip names what is under the pointer, and the what-if panel changes decisions.
// Screenshots: visualiser-openb.png and visualiser-openb-zoomed.png in $MLSCHED_SCREENSHOTS.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { serve, WASM_DIR, WORKSPACE } from "./helpers.mjs";

const CHROMIUM = process.env.MLSCHED_CHROMIUM || "/usr/bin/chromium";
const SHOTS = process.env.MLSCHED_SCREENSHOTS || join(WORKSPACE, "artifacts", "wasm-screenshots");
const CLI = process.env.MLSCHED_CLI || join(WORKSPACE, "target", "release", "mlsched");
const FIXTURE = join(WASM_DIR, "test", "fixtures", "openb-oasis.json.gz");
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"];

let server, ctx, profile, page, work;
let scenario, result, source;
const pageErrors = [];

/** The openb scenario and its result: from the release CLI if built, else the fixture. */
function openb() {
  if (existsSync(CLI)) {
    const s = join(work, "openb.json"), r = join(work, "result.json");
    const imp = spawnSync(CLI, ["import", "openb", "--jobs", "all", "--servers", "all", "--quiet", "-o", s], { encoding: "utf8" });
    assert.equal(imp.status, 0, `mlsched import: ${imp.stderr}`);
    const run = spawnSync(CLI, ["run", s, "--json", r, "--quiet"], { encoding: "utf8", maxBuffer: 1 << 28 });
    assert.equal(run.status, 0, `mlsched run: ${run.stderr}`);
    return { scenario: readFileSync(s, "utf8"), result: readFileSync(r, "utf8"), source: `${CLI} import + run --json` };
  }
  const text = gunzipSync(readFileSync(FIXTURE)).toString("utf8");
  const m = createRequire(import.meta.url)(join(WASM_DIR, "pkg/node/mlsched.js"));
  return { scenario: text, result: m.run(text), source: "test/fixtures/openb-oasis.json.gz + run() of the npm package" };
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: q(0.5), p95: q(0.95), max: s[s.length - 1] };
};
const ms = (x) => x.toFixed(1);

before(async () => {
  assert.ok(existsSync(join(WASM_DIR, "www/mlsched/loader.js")), "run scripts/build.sh first (www/mlsched missing)");
  assert.ok(existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM} (apt-get install chromium)`);
  mkdirSync(SHOTS, { recursive: true });
  work = mkdtempSync(join(tmpdir(), "mlsched-openb-"));
  ({ scenario, result, source } = openb());
  server = await serve(join(WASM_DIR, "www"));
  profile = mkdtempSync(join(tmpdir(), "mlsched-chromium-"));
  ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1440, height: 1100 },
  });
  await ctx.route("**/*", (route) => (route.request().url().startsWith(server.url) ? route.continue() : route.abort()));
  page = await ctx.newPage();
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") pageErrors.push(m.text()); });
  await page.goto(server.url + "?scenario=oasis-small");
  await page.waitForSelector("body[data-ready]", { timeout: 30000 });
});

after(async () => {
  await ctx?.close();
  await server?.close();
  for (const d of [profile, work]) if (d) rmSync(d, { recursive: true, force: true });
});

/** Counts of drawn (non-background) pixels of each canvas view. */
const drawn = () => page.evaluate(() => Object.fromEntries(Object.entries(window.mlschedViz.views)
  .filter(([, v]) => v).map(([k, v]) => [k, v.drawnPixels()])));

test("openb: the whole cluster's result draws, zooms and pans on canvas", { timeout: 300000 }, async () => {
  const want = JSON.parse(result);
  console.log(`scale: openb scenario from ${source}: ${want.jobs.length} jobs, log_hash ${want.log_hash}`);
  // The page gets the documents first (structured clone), then the clock starts.
  await page.evaluate(([s, r]) => { window.__openb = [s, r]; }, [scenario, result]);
  const t = await page.evaluate(async () => {
    const t0 = performance.now();
    const ready = await window.mlschedViz.replay(window.__openb[0], window.__openb[1], "openb");
    const t1 = performance.now();
    await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
    const first = Math.max(...Object.values(window.mlschedViz.views).filter(Boolean).map((v) => v.stats.firstDrawAt));
    return { ready, replay: t1 - t0, firstDraw: first - t0, timings: window.mlschedViz.timings(), error: document.getElementById("error").textContent };
  });
  assert.equal(t.ready, "ok", `openb replay shown (error: ${t.error})`);
  assert.equal(await page.textContent("#log-hash"), want.log_hash);
  const info = await page.evaluate(() => ({ servers: window.mlschedViz.views.usage.spec.rows, rows: window.mlschedViz.views.timeline.spec.rows,
    steps: window.mlschedViz.views.timeline.spec.cols, bars: window.mlschedViz.views.timeline.spec.bars }));
  assert.equal(info.servers, 1523, "every openb server is a heatmap row");
  console.log(`scale: ${info.servers} servers, ${info.rows} timeline rows (server lanes), ${info.steps} slots, ${info.bars} bars`);
  console.log(`scale: time to first draw ${ms(t.firstDraw)} ms (replay call ${ms(t.replay)} ms: ` +
    Object.entries(t.timings).map(([k, v]) => `${k} ${ms(v)}`).join(", ") + ")");

  const full = await drawn();
  for (const [k, v] of Object.entries(full)) assert.ok(v.drawn > v.total * 0.02, `${k}: drawn content (${v.drawn} of ${v.total} px)`);
  console.log("scale: drawn pixels " + Object.entries(full).map(([k, v]) => `${k} ${v.drawn}/${v.total}`).join(", "));
  // The busiest slot of the trace on screen: the cursor there, the panels of that slot.
  await page.evaluate(() => window.mlschedViz.seek(90));
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  await page.screenshot({ path: join(SHOTS, "visualiser-openb.png") });

  for (const name of ["timeline", "usage", "price"]) {
    await page.evaluate((n) => window.mlschedViz.views[n].resetView(), name);
    const f = await page.evaluate((n) => window.mlschedViz.frames(n, 60), name);
    const s = stats(f.draw), l = stats(f.latency);
    console.log(`scale: ${name}: 60 zoom/pan frames, draw median ${ms(s.median)} ms, p95 ${ms(s.p95)} ms, max ${ms(s.max)} ms; ` +
      `input to next frame median ${ms(l.median)} ms, p95 ${ms(l.p95)} ms`);
  }

  // Real input: wheel zoom around the pointer on the timeline, then drag to pan.
  await page.evaluate(() => { for (const v of Object.values(window.mlschedViz.views)) v?.resetView(); });
  const box = await page.locator("#timeline canvas").boundingBox();
  // Around slot 88 and the 120th row: where the trace's burst of arrivals lands.
  const at = await page.evaluate(() => { const v = window.mlschedViz.views.timeline; return { x: v.spec.left + v.vp.x(88), y: v.spec.top + v.vp.y(120) }; });
  await page.mouse.move(box.x + at.x, box.y + at.y);
  for (let i = 0; i < 6; i++) await page.mouse.wheel(0, -400);
  await page.mouse.down();
  await page.mouse.move(box.x + at.x + 40, box.y + at.y + 20, { steps: 4 });
  await page.mouse.up();
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  const zoom = await page.evaluate(() => { const v = window.mlschedViz.views.timeline; return { kx: v.vp.kx / v.vp.fitKx, ky: v.vp.ky / v.vp.fitKy, mode: v.stats.mode }; });
  assert.ok(zoom.kx > 2 && zoom.ky > 2, `wheel zoomed in (${JSON.stringify(zoom)})`);
  const zoomed = await drawn();
  assert.ok(zoomed.timeline.drawn > zoomed.timeline.total * 0.02, "zoomed timeline has drawn content");
  await page.mouse.move(box.x + at.x, box.y + at.y + 30);
  await page.waitForSelector("#timeline .gv-tip:not([hidden])", { timeout: 5000 });
  const tip = await page.textContent("#timeline .gv-tip");
  assert.match(tip, /openb-pod-\d+ on |: idle at slot \d+/, "tooltip names the job or the idle server under the pointer");
  console.log(`scale: zoomed ${zoom.kx.toFixed(1)}x${zoom.ky.toFixed(1)} (${zoom.mode}); tooltip: ${tip.split("\n")[0]}`);
  // The same zoom on the heatmaps (keyboard: focus, then +), for the zoomed screenshot.
  await page.locator("#heat-card").scrollIntoViewIfNeeded();
  const hb = await page.locator("#heat-usage canvas").boundingBox();
  const hat = await page.evaluate(() => { const v = window.mlschedViz.views.usage; return { x: v.spec.left + v.vp.x(95), y: v.spec.top + v.vp.y(100) }; });
  await page.mouse.move(hb.x + hat.x, hb.y + hat.y);
  for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -400);
  const hz = await page.evaluate(() => { const v = window.mlschedViz.views.price; return v.vp.kx / v.vp.fitKx; });
  assert.ok(hz > 2, `wheel on the usage heatmap zooms the linked price heatmap too (${hz})`);
  await page.locator("#timeline-card").scrollIntoViewIfNeeded();
  const tb = await page.locator("#timeline canvas").boundingBox();
  await page.mouse.move(tb.x + at.x, tb.y + at.y + 30);
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  // The timeline and heatmap cards, zoomed (the page scrolled so that both are in the picture).
  const top = await page.locator("#timeline-card").boundingBox(), bottom = await page.locator("#heat-card").boundingBox();
  await page.screenshot({ path: join(SHOTS, "visualiser-openb-zoomed.png"), fullPage: true,
    clip: { x: top.x, y: top.y + (await page.evaluate(() => scrollY)), width: top.width, height: bottom.y + bottom.height - top.y } });
  console.log(`screenshots: ${join(SHOTS, "visualiser-openb.png")}, ${join(SHOTS, "visualiser-openb-zoomed.png")}`);
});

test("openb: what-if on the engine (a job added, a capacity cut) changes decisions", { timeout: 300000 }, async () => {
  assert.equal(await page.textContent("#log-hash"), JSON.parse(result).log_hash, "the openb result is shown (run the whole file)");
  const r = await page.evaluate(() => {
    const t0 = performance.now();
    const out = window.mlschedViz.whatIf({ job: "openb-pod-0000", capacity: { server: 0, resource: 0, value: 0 } });
    return { out, ms: performance.now() - t0, error: document.querySelector("#wi-error")?.textContent };
  });
  assert.ok(r.out, `what-if ran (error: ${r.error})`);
  assert.ok(r.out.changed >= 1, "some decision changed");
  assert.notEqual(r.out.logHash[0], r.out.logHash[1], "another decision log");
  assert.ok(await page.$$eval("#wi-diff li[data-job]", (l) => l.length) >= 1, "changed jobs listed");
  console.log(`scale: what-if (${r.out.edits.join("; ")}): ${r.out.changed} job(s) decided differently, ${r.out.outcomes} with another outcome; both engine runs ${ms(r.ms)} ms`);
  await page.locator("#whatif-card").screenshot({ path: join(SHOTS, "visualiser-openb-whatif.png") });
  assert.deepEqual(pageErrors, [], "no JS errors in the page");
});

// Thousands of slots: the Zhou et al. import of the whole trace at hour slots (28,672 slots x
// 1,523 servers (PS; 1,213 on Ring) x 4 resources, ~140 million numbers dense), run with the FIFO baseline (PS) and
// with A_online itself (Ring-AllReduce; A_online on PS takes minutes, docs/scale.md). The page
// holds usage and prices as change points (`Timeline.usage_series`, `price_series`), never as
// dense matrices.
async function hourSlots(t, arch, policy, zoomAt) {
  const tag = arch === "ps" ? "" : `-${arch}`;
  if (!existsSync(CLI)) {
    t.skip(`release CLI not built (${CLI}): cargo build --release -p mlsched-cli to load the 28,672-slot openb result`);
    return;
  }
  const s = join(work, `online-${arch}.json`), r = join(work, `online-${arch}-${policy ?? "aonline"}.json`);
  const imp = spawnSync(CLI, ["import", "openb", "--kind", "online", "--jobs", "all", "--servers", "all", "--slot-seconds", "3600", "--architecture", arch, "--quiet", "-o", s], { encoding: "utf8" });
  assert.equal(imp.status, 0, `mlsched import: ${imp.stderr}`);
  const run = spawnSync(CLI, ["run", s, ...(policy ? ["--policy", policy] : []), "--json", r, "--quiet"], { encoding: "utf8", maxBuffer: 1 << 28 });
  assert.equal(run.status, 0, `mlsched run: ${run.stderr}`);
  const [sc, res] = [readFileSync(s, "utf8"), readFileSync(r, "utf8")];
  const want = JSON.parse(res);
  await page.evaluate(([a, b]) => { window.__hours = [a, b]; }, [sc, res]);
  const out = await page.evaluate(async () => {
    const t0 = performance.now();
    const ready = await window.mlschedViz.replay(window.__hours[0], window.__hours[1], "openb-hours");
    await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
    const views = Object.values(window.mlschedViz.views).filter(Boolean);
    const v = window.mlschedViz.views;
    return { ready, firstDraw: Math.max(...views.map((x) => x.stats.firstDrawAt)) - t0, timings: window.mlschedViz.timings(),
      steps: v.timeline.spec.cols, servers: v.usage.spec.rows, bars: v.timeline.spec.bars, price: !!v.price,
      error: document.getElementById("error").textContent };
  });
  assert.equal(out.ready, "ok", `hour-slot replay shown (error: ${out.error})`);
  assert.equal(await page.textContent("#log-hash"), want.log_hash);
  assert.equal(out.steps, 28672, "every hour slot is a column");
  // Every server of the cluster is a row: with parameter servers (PS) the whole openb cluster
  // (1,523 nodes, the CPU-only ones host parameter servers), with Ring-AllReduce its 1,213 GPU nodes.
  assert.equal(out.servers, JSON.parse(sc).servers.length, "every server of the scenario is a row");
  assert.equal(out.servers, arch === "ps" ? 1523 : 1213, "the openb cluster's server count for the architecture");
  console.log(`scale/hours/${arch}: ${want.jobs.length} jobs, ${out.servers} servers, ${out.steps} slots, ${out.bars} bars (policy ${want.policy}, log_hash ${want.log_hash})`);
  console.log(`scale/hours/${arch}: time to first draw ${ms(out.firstDraw)} ms (` + Object.entries(out.timings).map(([k, v]) => `${k} ${ms(v)}`).join(", ") + ")");
  const full = await drawn();
  // Jobs of a few hours in a trace of 28,672 hours: the whole timeline is mostly idle (about 1%
  // of its pixels hold a bar), the heatmap is drawn everywhere.
  for (const [k, v] of Object.entries(full)) assert.ok(v.drawn > v.total * (k === "timeline" ? 0.005 : 0.02), `${k}: drawn content (${v.drawn} of ${v.total} px)`);
  console.log(`scale/hours/${arch}: drawn pixels ` + Object.entries(full).map(([k, v]) => `${k} ${v.drawn}/${v.total}`).join(", "));
  // The cursor where most jobs run (the slot with the most bars running).
  const busy = await page.evaluate(() => {
    const n = new Int32Array(window.mlschedViz.views.timeline.spec.cols + 1);
    for (const b of window.mlschedViz.timeline().bars) { n[b.start]++; n[b.end]--; }
    let best = 0, run = 0, most = -1;
    n.forEach((d, t) => { run += d; if (run > most) { most = run; best = t; } });
    return best;
  });
  await page.evaluate((t) => window.mlschedViz.seek(t), busy);
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  await page.screenshot({ path: join(SHOTS, `visualiser-openb-hours${tag}.png`) });
  assert.equal(out.price, policy === null, "A_online has prices, FIFO none");
  for (const name of ["timeline", "usage", ...(out.price ? ["price"] : [])]) {
    await page.evaluate((n) => window.mlschedViz.views[n].resetView(), name);
    const f = await page.evaluate((n) => window.mlschedViz.frames(n, 60), name);
    const st = stats(f.draw), l = stats(f.latency);
    console.log(`scale/hours/${arch}: ${name}: 60 zoom/pan frames, draw median ${ms(st.median)} ms, p95 ${ms(st.p95)} ms, max ${ms(st.max)} ms; ` +
      `input to next frame median ${ms(l.median)} ms, p95 ${ms(l.p95)} ms`);
  }
  // Zoom on where the jobs are (they run in a part of the horizon): the timeline by Shift+wheel
  // (time axis only), the usage heatmap by wheel (both axes), each around the first servers and
  // `zoomAt`: the first slot a job runs in (FIFO: slot 0, the zoomed view starts there) or the
  // busiest slot (A_online starts most jobs in its last round).
  await page.evaluate(() => { for (const v of Object.values(window.mlschedViz.views)) v?.resetView(); });
  const row = await page.evaluate((t) => window.mlschedViz.timeline().bars.find((b) => b.start <= t && t < b.end).server, busy);
  const first = await page.evaluate(() => window.mlschedViz.timeline().bars.reduce((m, b) => Math.min(m, b.start), Infinity));
  const anchor = zoomAt === "first" ? first : busy;
  const corner = (k) => page.evaluate(([n, c]) => { const v = window.mlschedViz.views[n]; return { x: v.spec.left + v.vp.x(c) + 2, y: v.spec.top + v.vp.y(0) + 2 }; }, [k, anchor]);
  await page.locator("#timeline-card").scrollIntoViewIfNeeded();
  const tb = await page.locator("#timeline canvas").boundingBox(), tat = await corner("timeline");
  await page.mouse.move(tb.x + tat.x, tb.y + tat.y + 200);
  await page.keyboard.down("Shift");
  for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -400);
  await page.keyboard.up("Shift");
  await page.locator("#heat-card").scrollIntoViewIfNeeded();
  const hb = await page.locator("#heat-usage canvas").boundingBox(), hc = await corner("usage");
  await page.mouse.move(hb.x + hc.x, hb.y + hc.y);
  for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -400);
  await page.evaluate(() => new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok))));
  // A cell of a running job in the zoomed view (the busiest slot's, if it is in view), to hover.
  const hat = await page.evaluate(([t, r]) => {
    const v = window.mlschedViz.views.usage, at = (c, row) => ({ x: v.vp.x(c + 0.5), y: v.vp.y(row + 0.5) });
    const inView = (p) => p.x >= 0 && p.y >= 0 && p.x < v.vp.pw && p.y < v.vp.ph;
    let p = at(t, r);
    if (!inView(p)) for (const b of window.mlschedViz.timeline().bars) { p = at(b.start, b.server); if (inView(p)) break; }
    return { x: v.spec.left + p.x, y: v.spec.top + p.y };
  }, [busy, row]);
  const z = await page.evaluate(() => Object.fromEntries(["timeline", "usage"].map((k) => { const v = window.mlschedViz.views[k]; return [k, { kx: v.vp.kx / v.vp.fitKx, ky: v.vp.ky / v.vp.fitKy, mode: v.stats.mode }]; })));
  assert.ok(z.timeline.kx > 2 && z.usage.kx > 2, `wheel zoomed both views (${JSON.stringify(z)})`);
  const zoomed = await drawn();
  // (Most jobs run one hour: even zoomed 6x on the time axis, bars are a few pixels wide.)
  assert.ok(zoomed.timeline.drawn > zoomed.timeline.total * 0.002, `zoomed timeline has drawn content (${zoomed.timeline.drawn})`);
  // The zoomed view holds used cells (not the colour of 0), and the tooltip names a cell.
  await page.mouse.move(hb.x + hat.x, hb.y + hat.y);
  await page.waitForSelector("#heat-usage .gv-tip:not([hidden])", { timeout: 5000 });
  const tip = await page.textContent("#heat-usage .gv-tip");
  assert.match(tip, /^h\d+, slot \d+: /, "tooltip names the server and slot under the pointer");
  const used = await page.evaluate(() => {
    const v = window.mlschedViz.views.usage, ctx = v.canvas.getContext("2d"), d = v.dpr;
    const px = ctx.getImageData(Math.round(v.spec.left * d), Math.round(v.spec.top * d), Math.round(v.vp.pw * d), Math.round(v.vp.ph * d)).data;
    let n = 0; // pixels darker than the lightest heat colour (a used cell)
    for (let i = 0; i < px.length; i += 4) if (px[i] + px[i + 1] + px[i + 2] < 600) n++;
    return n;
  });
  assert.ok(used > 0, "the zoomed usage heatmap shows used cells");
  console.log(`scale/hours/${arch}: busiest slot ${busy}, server ${row}; zoomed timeline ${z.timeline.kx.toFixed(1)}x (${z.timeline.mode}), ` +
    `usage ${z.usage.kx.toFixed(1)}x${z.usage.ky.toFixed(1)} (${z.usage.mode}), ${used} used-cell px; tooltip: ${tip.split("\n")[0]}`);
  const top = await page.locator("#timeline-card").boundingBox(), bottom = await page.locator("#heat-card").boundingBox();
  await page.screenshot({ path: join(SHOTS, `visualiser-openb-hours${tag}-zoomed.png`), fullPage: true,
    clip: { x: top.x, y: top.y + (await page.evaluate(() => scrollY)), width: top.width, height: bottom.y + bottom.height - top.y } });
  console.log(`screenshots: ${join(SHOTS, `visualiser-openb-hours${tag}.png`)}, ${join(SHOTS, `visualiser-openb-hours${tag}-zoomed.png`)}`);
  assert.deepEqual(pageErrors, [], "no JS errors in the page");
}

test("openb at hour slots (PS, FIFO): 28,672 slots draw, zoom and pan", { timeout: 300000 }, (t) => hourSlots(t, "ps", "fifo", "first"));
test("openb at hour slots (Ring, A_online): 28,672 slots with prices draw, zoom and pan", { timeout: 300000 }, (t) => hourSlots(t, "ring", null, "busiest"));
