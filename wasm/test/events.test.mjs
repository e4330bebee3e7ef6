// The open-world host events under node (docs/open-world.md) on the bindings' sample
// (bindings/events/): `runEvents` gives the bytes of `mlsched run --events` (the CLI binary from
// $MLSCHED_CLI or target/{release,debug}/mlsched; skipped without one); the same run fed one
// host event at a time with `Engine.event` (the scenario's arrivals as `arrive` events) gives
// them too; the shorthands (`serverDown`, `serverUp`, `setCapacity`, `cancel`, `submit`) equal
// their `event` objects; bad events throw Errors naming the field and change nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { WASM_DIR, WORKSPACE } from "./helpers.mjs";

const m = createRequire(import.meta.url)(join(WASM_DIR, "pkg/node/mlsched.js"));

const SCENARIO_FILE = join(WORKSPACE, "scenarios/online-ps-small.json");
const EVENTS_FILE = join(WORKSPACE, "bindings/events/online-ps-small.jsonl");
const SCENARIO = readFileSync(SCENARIO_FILE, "utf8");
const EVENTS_TEXT = readFileSync(EVENTS_FILE, "utf8");
const EVENTS = EVENTS_TEXT.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

function cli() {
  if (process.env.MLSCHED_CLI) return process.env.MLSCHED_CLI;
  for (const p of ["target/release/mlsched", "target/debug/mlsched"]) {
    if (existsSync(join(WORKSPACE, p))) return join(WORKSPACE, p);
  }
  return undefined;
}

/** The sample's events with the scenario's arrivals as `arrive` events, per slot after the
 *  slot's other events (the order of `mlsched run --events`). */
function fed(e) {
  const out = [];
  const order = e.arrivalOrder();
  let next = 0;
  const arrive = (a) => ({ event: "arrive", at: a.slot, job: e.jobId(a.job) });
  for (const ev of EVENTS) {
    while (next < order.length && order[next].slot < ev.at) out.push(arrive(order[next++]));
    out.push(ev);
  }
  while (next < order.length) out.push(arrive(order[next++]));
  return out;
}

/** An engine after slots 0 and 1 (jobs j1 and j2 arrived). */
function started() {
  const e = new m.Engine(SCENARIO);
  e.arrive("j1", 0);
  e.advance(0);
  e.arrive("j2", 1);
  e.advance(1);
  return e;
}

test("runEvents == mlsched run --events (bytes)", { skip: cli() === undefined && "no mlsched binary" }, () => {
  const r = spawnSync(cli(), ["run", SCENARIO_FILE, "--events", EVENTS_FILE, "--json", "-", "--quiet"], {
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(m.runEvents(SCENARIO, EVENTS_TEXT).trimEnd(), r.stdout.trimEnd());
});

test("runEvents without events == run", () => {
  assert.equal(m.runEvents(SCENARIO, ""), m.run(SCENARIO));
});

test("Engine.event one host event at a time == runEvents", () => {
  const want = m.runEvents(SCENARIO, EVENTS_TEXT);
  const e = new m.Engine(SCENARIO);
  const evs = fed(e);
  assert.ok(evs.length > EVENTS.length);
  evs.forEach((ev, i) => {
    const d = i % 2 ? e.event(ev) : e.event(JSON.stringify(ev));
    assert.ok(Array.isArray(d));
  });
  assert.equal(e.runToEnd(), want);
  const r = JSON.parse(want);
  assert.equal(Object.values(r.summary.statuses).reduce((a, b) => a + b, 0), r.jobs.length);
});

test("a file with arrive events is host-driven: runEvents == the service's feed == the visualiser's", async () => {
  // The listed jobs arrive two slots late (docs/open-world.md, "A run with events").
  const probe = new m.Engine(SCENARIO);
  const late = probe.arrivalOrder().map((a) => ({ at: a.slot + 2, event: "arrive", job: probe.jobId(a.job) }));
  probe.free();
  const want = m.runEvents(SCENARIO, late.map((ev) => JSON.stringify(ev)).join("\n") + "\n");
  const e = new m.Engine(SCENARIO);
  for (const ev of late) e.event(ev);
  try {
    e.event({ at: e.now, event: "advance" });
  } catch (err) {
    assert.match(String(err.message), /already advanced/);
  }
  for (let w = e.nextWakeup; w !== undefined; w = e.nextWakeup) e.event({ at: w, event: "advance" });
  assert.equal(e.finish(), want);
  const { driveEvents } = await import(join(WASM_DIR, "www/eventrun.js"));
  const drawn = driveEvents(m.Engine, SCENARIO, null, late);
  assert.equal(JSON.stringify(drawn.result), JSON.stringify(JSON.parse(want)));
  assert.notEqual(want, m.run(SCENARIO), "two slots late is another run");
});

test("the shorthands equal their event objects", () => {
  assert.deepEqual(new m.Engine(SCENARIO).serverIds, ["h0", "h1", "h2"]);
  const a = started();
  const b = started();
  assert.deepEqual(a.serverDown("h1", 2), b.event({ event: "server_down", at: 2, server: "h1" }));
  assert.deepEqual(a.setCapacity("h0", [4, 32, 10], 3),
    b.event({ event: "capacity", at: 3, server: "h0", capacity: [4, 32, 10] }));
  assert.deepEqual(a.serverUp("h1", 4), b.event({ event: "server_up", at: 4, server: "h1" }));
  assert.equal(a.finish(), b.finish());
});

test("cancel and submit: decisions, or refused as not supported by the kind yet", () => {
  const job = {
    id: "new-1", weight: 700, epochs: 10, chunks: 4, minibatches_per_chunk: 10,
    minibatch_time: [0.01, 0.006], update_time: [0.001], gradient_size: 0.002,
  };
  for (const call of [(e) => e.cancel("j1", 2), (e) => e.submit(job, 2)]) {
    const e = started();
    try {
      assert.ok(Array.isArray(call(e)));
    } catch (x) {
      assert.match(x.message, /not supported/);
    }
    assert.ok(JSON.parse(e.runToEnd()).log_hash);
  }
  const e = started();
  try {
    e.cancel("j1", 2);
    assert.equal(e.status("j1"), "cancelled");
  } catch (x) {
    assert.match(x.message, /not supported/);
  }
  assert.throws(() => e.status("nope"), /`job`/);
});

test("bad events throw naming the field and change nothing", () => {
  const bad = [
    ["{", /not valid JSON/],
    [{ event: "explode", at: 2 }, /`event`/],
    [{ event: "server_down", at: 2, server: "nope" }, /`server`/],
    [{ event: "server_up", at: 2, server: "h1" }, /`server`/],
    [{ event: "cancel", at: 2, job: "nope" }, /`job`/],
    [{ event: "capacity", at: 2, server: "h0", capacity: [1] }, /`capacity`/],
    [{ event: "server_down", at: 0, server: "h1" }, /`at`/],
    [42, /object/],
  ];
  const e = started();
  const clean = started();
  for (const [ev, msg] of bad) assert.throws(() => e.event(ev), msg);
  assert.throws(() => e.serverDown("nope", 2), /`server`/);
  assert.throws(() => e.setCapacity("h0", [1, 2], 2), /`capacity`/);
  e.serverDown("h2", 3);
  clean.serverDown("h2", 3);
  assert.equal(e.finish(), clean.finish());
  assert.throws(() => m.runEvents(SCENARIO, '{"event": "server_down", "at": 1}\n'), /line 1/);
});
