// The visualiser on a run with open-world events (issue 46, docs/visualiser.md), in Debian's
// Chromium (playwright-core, no downloaded browser): a server's down interval is drawn as a grey
// band, a cancellation and an interruption as marks where the job's bars end (read back from the
// canvas), the page's log_hash equals `runEvents` (= `mlsched run --events`), and the what-if
// panel's capacity change is a `capacity` event for the same scenario (no edited or re-created
// scenario: the what-if run's log_hash equals `runEvents` of the same scenario with the event).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { serve, WASM_DIR, WORKSPACE } from "./helpers.mjs";

const CHROMIUM = process.env.MLSCHED_CHROMIUM || "/usr/bin/chromium";
const SHOTS = process.env.MLSCHED_SCREENSHOTS || join(WORKSPACE, "artifacts", "wasm-screenshots");
const ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync"];
const mlsched = createRequire(import.meta.url)(join(WASM_DIR, "pkg/node/mlsched.js"));

/** FIFO on online-ps-small: h0 down over slots 2..4 (j1 interrupted at 2 and restarted), j2
 *  cancelled at 12 while it runs (from slot 9). */
const EVENTS = [
  { at: 2, event: "server_down", server: "h0" },
  { at: 5, event: "server_up", server: "h0" },
  { at: 12, event: "cancel", job: "j2" },
];
const jsonl = (evs) => evs.map((e) => JSON.stringify(e)).join("\n") + "\n";
const scenario = () => mlsched.bundledScenarios().find((b) => b.name === "online-ps-small").scenario;

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
  await ctx.route("**/*", (route) => (route.request().url().startsWith(server.url) ? route.continue() : route.abort()));
});

after(async () => {
  await ctx?.close();
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** Pixels of exactly `rgb` in canvas view `name` (after the next frame). */
function pixels(page, name, rgb) {
  return page.evaluate(async ([n, c]) => {
    await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
    const cv = window.mlschedViz.views[n].canvas;
    const d = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
    let k = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] === c[0] && d[i + 1] === c[1] && d[i + 2] === c[2] && d[i + 3] === 255) k++;
    return k;
  }, [name, rgb]);
}
const GREY = [0x86, 0x8e, 0x96], RED = [0xe0, 0x31, 0x31], AMBER = [0xf0, 0x8c, 0x00];

test("a run with events: down intervals, cancellations and interruptions drawn; log_hash = runEvents", async () => {
  const page = await ctx.newPage();
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("console", (m) => { if (m.type() === "error") pageErrors.push(m.text()); });
  await page.goto(server.url + "?scenario=online-ps-small");
  await page.waitForSelector("body[data-ready]", { timeout: 30000 });
  // The closed-world run has none of the marks' colours.
  assert.equal(await pixels(page, "timeline", GREY), 0, "closed world: no down band");
  assert.equal(await pixels(page, "timeline", RED), 0, "closed world: no cancel mark");

  assert.equal(await page.evaluate((e) => window.mlschedViz.runEvents("online-ps-small", e, "fifo"), jsonl(EVENTS)), "ok");
  const want = JSON.parse(mlsched.runEvents(scenario(), jsonl(EVENTS), "fifo"));
  assert.equal(await page.textContent("#log-hash"), want.log_hash, "the page's run is mlsched run --events");
  assert.deepEqual(JSON.parse(await page.evaluate(() => window.mlschedViz.resultJson())).summary, want.summary);
  const marks = await page.evaluate(() => window.mlschedViz.marks());
  assert.deepEqual(marks.down, [{ server: "h0", from: 2, to: 5 }]);
  assert.deepEqual(marks.cancels, [{ job: "j2", at: 12 }]);
  assert.ok(marks.cut.some((c) => c.job === "j1" && c.server === "h0" && c.at === 2 && !c.lost), JSON.stringify(marks.cut));
  // No bar covers h0 while it is down; j2's bars end at its cancel slot.
  const tl = await page.evaluate(() => window.mlschedViz.timeline());
  const h0 = tl.servers.findIndex((s) => s.id === "h0");
  assert.ok(!tl.bars.some((b) => b.server === h0 && b.start < 5 && b.end > 2), "nothing on a down server");
  assert.ok(tl.bars.filter((b) => b.job === "j2").every((b) => b.end === 12), "cancelled job's bars end at 12");
  // Drawn: the grey band, the red cancel mark, the amber interruption mark.
  assert.ok((await pixels(page, "timeline", GREY)) > 40, "down band on the timeline");
  await page.screenshot({ path: join(SHOTS, "openworld-online-ps-small.png"), fullPage: true });
  assert.ok((await pixels(page, "timeline", RED)) > 10, `cancel mark on the timeline (${await pixels(page, "timeline", RED)}, amber ${await pixels(page, "timeline", AMBER)})`);
  assert.ok((await pixels(page, "timeline", AMBER)) > 10, "interruption mark on the timeline");
  assert.ok((await pixels(page, "usage", GREY)) > 40, "down band on the usage heatmap");
  await page.evaluate(() => window.mlschedViz.seek(20));
  assert.match(await page.textContent("#jobs"), /cancelled/);
  assert.match(await page.textContent("#decisions"), /h0 goes down/);
  await page.screenshot({ path: join(SHOTS, "openworld-online-ps-small.png"), fullPage: true });

  // What-if: a copy of j1 is a submit event at the current slot.
  await page.evaluate(() => window.mlschedViz.seek(3));
  const sub = await page.evaluate(() => window.mlschedViz.whatIf({ job: "j1" }));
  assert.equal(sub?.events[0].event, "submit");
  assert.equal(sub.events[0].job.arrival, 3);
  assert.ok(sub.changed >= 1, `the submitted job is decided (${await page.textContent("#wi-diff")})`);
  // What-if: h1's GPUs to 0 from slot 3 is a capacity event for the same scenario.
  await page.evaluate(() => window.mlschedViz.seek(3));
  const r = await page.evaluate(() => window.mlschedViz.whatIf({ capacity: { server: 1, resource: 0, value: 0 } }));
  assert.ok(r, `what-if ran (${await page.textContent("#wi-diff")})`);
  assert.deepEqual(r.events, [{ at: 3, event: "capacity", server: "h1", capacity: [0, 32, 10] }]);
  const runs = await page.evaluate(() => window.mlschedViz.whatIfPanel().runs);
  assert.equal(runs.at(-1).scenarioText, scenario(), "the what-if engine ran the scenario shown, unedited");
  assert.deepEqual(r.allEvents, [...EVENTS.slice(0, 1), ...r.events, ...EVENTS.slice(1)], "the run's events with the capacity event in slot order");
  assert.equal(r.logHash[0], want.log_hash, "base: the run shown");
  const alt = JSON.parse(mlsched.runEvents(scenario(), jsonl(r.allEvents), "fifo"));
  assert.equal(r.logHash[1], alt.log_hash, "what-if = runEvents of the same scenario with the capacity event");
  await page.click("#wi-show");
  await page.waitForFunction(() => /what-if/.test(document.getElementById("status").textContent));
  assert.equal(await page.textContent("#log-hash"), alt.log_hash, "the what-if run shown");
  assert.equal((await page.evaluate(() => window.mlschedViz.marks())).capacity.length, 1);
  // A bad capacity is the engine's error naming the field.
  const bad = await page.evaluate(() => { window.mlschedViz.whatIf({ capacity: { server: 0, resource: 0, value: -1 } }); return document.querySelector("#wi-error")?.textContent; });
  assert.match(bad ?? "", /capacity/);
  await page.close();
  assert.deepEqual(pageErrors, [], "no JS errors in the page");
});
