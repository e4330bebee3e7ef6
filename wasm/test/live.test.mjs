// The visualiser's live mode (issue 47 item 4, docs/visualiser.md) in Debian's Chromium
// (playwright-core, no downloaded browser): the test starts the service binary (`mlsched-serve`,
// built by `cargo build -p mlsched-serve`; $MLSCHED_SERVE_BIN overrides the path), creates a
// cluster, opens the page (served from another origin than the service: the CORS headers of
// serve/src/cors.rs are what let it read) with `?serve=...&cluster=...`, sends events as a client,
// and checks that the page shows those decisions as they stream. The service is killed at the end.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { chromium } from "playwright-core";
import { serve, WASM_DIR, WORKSPACE } from "./helpers.mjs";

const CHROMIUM = process.env.MLSCHED_CHROMIUM || "/usr/bin/chromium";
const SHOTS = process.env.MLSCHED_SCREENSHOTS || join(WORKSPACE, "artifacts", "wasm-screenshots");
const SERVE_BIN = process.env.MLSCHED_SERVE_BIN || join(process.env.CARGO_TARGET_DIR || join(WORKSPACE, "target"), "debug", "mlsched-serve");
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"];
const mlsched = createRequire(import.meta.url)(join(WASM_DIR, "pkg/node/mlsched.js"));

let server, ctx, profile, service, state, api;
const pageErrors = [];

/** Starts the service on a free loopback port; resolves to its base URL (its first stdout line
 *  is `listening on ADDR ...`). */
function startService(dir) {
  service = spawn(SERVE_BIN, ["--listen", "127.0.0.1:0", "--state", dir], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  service.stderr.on("data", (d) => { stderr += d; });
  return new Promise((ok, fail) => {
    const lines = createInterface({ input: service.stdout });
    lines.once("line", (l) => {
      const m = /^listening on (\S+)/.exec(l);
      if (m) ok(`http://${m[1]}`); else fail(new Error(`service: ${l}\n${stderr}`));
    });
    service.once("exit", (code) => fail(new Error(`service exited (${code}): ${stderr}`)));
  });
}

before(async () => {
  assert.ok(existsSync(join(WASM_DIR, "www/mlsched/loader.js")), "run scripts/build.sh first (www/mlsched missing)");
  assert.ok(existsSync(CHROMIUM), `Chromium not found at ${CHROMIUM} (apt-get install chromium)`);
  assert.ok(existsSync(SERVE_BIN), `${SERVE_BIN} missing: cargo build -p mlsched-serve`);
  mkdirSync(SHOTS, { recursive: true });
  state = mkdtempSync(join(tmpdir(), "mlsched-live-"));
  api = await startService(state);
  server = await serve(join(WASM_DIR, "www"));
  profile = mkdtempSync(join(tmpdir(), "mlsched-chromium-"));
  ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1440, height: 1000 },
  });
  // Offline but for the page's server and the service.
  await ctx.route("**/*", (route) => {
    const u = route.request().url();
    return u.startsWith(server.url) || u.startsWith(api + "/") ? route.continue() : route.abort();
  });
});

after(async () => {
  await ctx?.close();
  await server?.close();
  if (service && service.exitCode === null) {
    const gone = new Promise((ok) => service.once("exit", ok));
    service.kill("SIGKILL");
    await gone;
  }
  if (profile) rmSync(profile, { recursive: true, force: true });
  if (state) rmSync(state, { recursive: true, force: true });
});

async function call(method, path, body) {
  const r = await fetch(api + path, { method, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null, headers: r.headers };
}

test("live mode: the page draws the decisions a client sends to a running service", async () => {
  // An online cluster with no jobs: every job is a submission.
  const doc = JSON.parse(mlsched.bundledScenarios().find((b) => b.name === "online-ps-small").scenario);
  const jobs = doc.jobs;
  doc.jobs = [];
  const made = await call("PUT", "/v1/clusters/live?policy=fifo", JSON.stringify(doc));
  assert.equal(made.status, 201, JSON.stringify(made.json));

  const page = await ctx.newPage();
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") pageErrors.push(m.text()); });
  await page.goto(server.url + `?serve=${encodeURIComponent(api)}&cluster=live`);
  await page.waitForSelector("body[data-ready]", { timeout: 30000 });
  assert.equal(await page.evaluate(() => document.body.dataset.ready), "live", await page.textContent("#error"));
  await page.waitForFunction(() => window.mlschedViz.live()?.connected, null, { timeout: 10000 });
  assert.equal(await page.evaluate(() => window.mlschedViz.live().entries), 0);

  // The client's events, sent once the page streams.
  const job = (i, at) => ({ ...jobs[i], arrival: at });
  const events = [
    { at: 0, event: "submit", job: job(0, 0) },
    { at: 1, event: "submit", job: job(1, 1) },
    { at: 2, event: "server_down", server: "h0" },
    { at: 3, event: "submit", job: job(2, 3) },
    { at: 5, event: "server_up", server: "h0" },
    { at: 7, event: "cancel", job: jobs[1].id },
    { at: 12, event: "advance" },
  ];
  let decisions = 0;
  for (const [i, ev] of events.entries()) {
    const r = await call("POST", "/v1/clusters/live/events", ev);
    assert.equal(r.status, 200, `event ${i}: ${JSON.stringify(r.json)}`);
    assert.equal(r.json.seq, i + 1);
    decisions += r.json.decisions.length;
  }
  assert.ok(decisions > 0, "the events caused decisions");
  await page.waitForFunction((n) => window.mlschedViz.live().seq === n, events.length, { timeout: 15000 });
  const live = await page.evaluate(() => window.mlschedViz.live());
  assert.equal(live.entries, events.length, "every acknowledged event streamed once");
  assert.equal(live.decisions, decisions, "every acknowledged decision shown");
  assert.deepEqual(live.errors, []);
  // The decision list names the events and the jobs; the canvas shows the cells and h0's down interval.
  // (Both are redrawn on the next animation frame after the events are taken: wait for it.)
  await page.waitForFunction(
    (n) => document.querySelectorAll("#decisions li[data-seq]").length === n,
    events.length,
    { timeout: 15000 },
  );
  const items = await page.$$eval("#decisions li[data-seq]", (l) => l.map((x) => x.textContent));
  assert.equal(items.length, events.length);
  const text = items.join("\n");
  for (const j of jobs.slice(0, 3)) assert.match(text, new RegExp(`submitted ${j.id}`));
  assert.match(text, /server h0 goes down/);
  assert.match(text, new RegExp(`the host cancels ${jobs[1].id}`));
  assert.match(text, /baseline\.(placed|start)/, "the scheduler's decisions are listed");
  const drawn = await page.evaluate(async () => {
    await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
    const v = window.mlschedViz.liveView();
    const d = v.canvas.getContext("2d").getImageData(0, 0, v.canvas.width, v.canvas.height).data;
    let grey = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] === 134 && d[i + 1] === 142 && d[i + 2] === 150) grey++;
    return { ...v.drawnPixels(), grey, rows: v.spec.rows };
  });
  assert.ok(drawn.drawn > 100, `decisions drawn (${JSON.stringify(drawn)})`);
  assert.ok(drawn.grey > 10, "h0's down interval drawn");
  assert.equal(drawn.rows, 4, "three job rows and one server row");
  await page.screenshot({ path: join(SHOTS, "live-online.png"), fullPage: true });

  // One more event while the page is open: streamed and drawn too; then the end of the run.
  const r = await call("POST", "/v1/clusters/live/events", { at: 13, event: "submit", job: job(3, 13) });
  assert.equal(r.status, 200);
  await page.waitForFunction((n) => window.mlschedViz.live().seq === n, events.length + 1, { timeout: 15000 });
  // The list is redrawn on the next animation frame after the event is taken: wait for it.
  await page.waitForFunction(
    (id) => document.querySelector("#decisions").textContent.includes(`submitted ${id}`),
    jobs[3].id,
    { timeout: 15000 },
  );
  assert.equal((await call("POST", "/v1/clusters/live/finish")).status, 200);
  await page.waitForFunction(() => window.mlschedViz.live().ended === "finished", null, { timeout: 15000 });
  await page.close();
  assert.deepEqual(pageErrors, [], "no JS errors in the page");
});

test("live mode: an unknown cluster is an error on the page, not a hang", async () => {
  const page = await ctx.newPage();
  await page.goto(server.url + `?serve=${encodeURIComponent(api)}&cluster=nope`);
  await page.waitForSelector("body[data-ready]", { timeout: 30000 });
  assert.equal(await page.evaluate(() => document.body.dataset.ready), "error");
  assert.match(await page.textContent("#error"), /nope/);
  await page.close();
});
