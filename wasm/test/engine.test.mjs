// The event-driven `Engine` under node: every bundled scenario (and each policy of its kind)
// driven event by event — per slot the arrivals due (by id), then `advance`; the next slot is
// the earliest pending arrival or `nextWakeup` — gives `run`'s bytes; a snapshot taken half-way
// restores (Uint8Array round trip) to the same run; bad events throw Errors naming the field.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import { WASM_DIR } from "./helpers.mjs";

const m = createRequire(import.meta.url)(join(WASM_DIR, "pkg/node/mlsched.js"));

/** Feeds `e` to the end (or `limit` advances); returns the decisions seen. */
function drive(e, limit = Infinity) {
  const order = e.arrivalOrder();
  const after = e.now === undefined ? 0 : e.now + 1;
  let next = e.now === undefined ? 0 : order.findIndex((a) => a.slot > e.now);
  if (next < 0) next = order.length;
  const earliest = (a, w) => (a === undefined ? w : w === undefined ? a : Math.min(a, w));
  let t = earliest(order[next] && Math.max(order[next].slot, after), e.nextWakeup === undefined ? undefined : Math.max(e.nextWakeup, after));
  const seen = [];
  let advances = 0;
  while (t !== undefined && advances < limit) {
    while (next < order.length && order[next].slot <= t) {
      seen.push(...e.arrive(e.jobId(order[next].job), t));
      next++;
    }
    seen.push(...e.advance(t));
    advances++;
    const wake = e.nextWakeup === undefined ? undefined : Math.max(e.nextWakeup, t + 1);
    t = earliest(next < order.length ? Math.max(order[next].slot, t + 1) : undefined, wake);
  }
  return seen;
}

test("Engine event by event == run, for every bundled scenario and policy", () => {
  let n = 0;
  for (const s of m.bundledScenarios()) {
    for (const policy of [null, ...m.policies(s.kind).slice(1)]) {
      let want;
      try { want = m.runWith(s.scenario, policy); } catch (err) {
        // Refused when built, or when the slot that runs the method is fed: the same message.
        assert.throws(() => { const e = new m.Engine(s.scenario, policy); drive(e); e.finish(); },
          (e) => e instanceof Error && e.message === err.message, `${s.name} ${policy}`);
        continue;
      }
      const e = new m.Engine(s.scenario, policy);
      assert.equal(e.kind, s.kind);
      assert.equal(e.now, undefined);
      assert.ok(e.jobs > 0);
      const seen = drive(e);
      assert.ok(seen.length > 0, `${s.name} ${policy}: decisions`);
      for (const d of seen) {
        assert.equal(typeof d.record, "string");
        assert.ok(d.job === null || Number.isInteger(d.job), `${s.name}: job`);
        assert.equal(typeof d.data, "object");
      }
      assert.equal(e.finish(), want, `${s.name} ${policy}: same bytes as run`);
      assert.throws(() => e.advance(1e6), (err) => err instanceof Error && /finished/.test(err.message));
      e.free();
      n++;
    }
  }
  assert.ok(n >= 8);
  console.log(`engine: ${n} runs event by event = run`);
});

test("Engine snapshot round trip (Uint8Array) half-way through every bundled scenario", () => {
  for (const s of m.bundledScenarios()) {
    let want;
    try { want = m.run(s.scenario); } catch { continue; }
    const e = new m.Engine(s.scenario);
    drive(e, 2);
    const bytes = e.snapshot();
    assert.ok(bytes instanceof Uint8Array && bytes.length > 8, `${s.name}: bytes`);
    const copy = Uint8Array.from(bytes); // e.g. stored and read back
    const r = m.Engine.restore(s.scenario, e.policy, copy);
    assert.equal(r.now, e.now, `${s.name}: now`);
    assert.deepEqual(r.snapshot(), bytes, `${s.name}: same state`);
    drive(r);
    assert.equal(r.finish(), want, `${s.name}: restored run`);
    assert.equal(e.runToEnd(), want, `${s.name}: original run`);
    const bad = Uint8Array.from(bytes);
    bad[bad.length - 1] ^= 1;
    assert.throws(() => m.Engine.restore(s.scenario, undefined, bad), (err) => err instanceof Error && /snapshot/.test(err.message));
  }
});

test("Engine errors name the field", () => {
  const s = m.bundledScenarios().find((b) => b.kind === "oasis");
  const e = new m.Engine(s.scenario);
  const first = e.arrivalOrder()[0];
  const d = e.arrive(first.job, first.slot);
  assert.equal(d[0].record, "oasis.decision");
  assert.equal(d[0].job, first.job);
  assert.throws(() => e.arrive(first.job, first.slot), /job .*already arrived/);
  assert.throws(() => e.arrive("no-such-job", first.slot), /job.*no-such-job/);
  assert.throws(() => e.arrive(-1, first.slot), /job/);
  e.advance(first.slot + 1);
  assert.throws(() => e.advance(first.slot), /now/);
  assert.throws(() => new m.Engine(s.scenario, "nope"), /policy/);
  assert.throws(() => new m.Engine('{"kind": "oasis"}'), (err) => err instanceof Error && err.message.length > 0);
});
