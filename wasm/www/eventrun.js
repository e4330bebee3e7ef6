// Runs with open-world events (docs/open-world.md) in the visualiser: the JS engine fed the
// scenario's arrivals, the scheduler's wake-ups and the host's events in the order of
// `mlsched run --events` (scenario/src/engine/slots.rs), and the timeline the page draws from
// the result: each job's `occupancy` spans (what it really held: a cancelled job's spans end at
// its cancel slot, no span covers a down interval), the servers' down intervals and capacity
// changes from the events, and each job's cancellation or interruption.
//
// The what-if panel (whatif.js) and the live mode (live.js) use the same driver: a change is
// one more event for the same engine, never an edited scenario.

/** The events of JSON Lines text (blank lines and `#` comments skipped); an error names the line. */
export function parseEvents(text) {
  const out = [];
  text.split("\n").forEach((line, i) => {
    const l = line.trim();
    if (!l || l.startsWith("#")) return;
    try { out.push(JSON.parse(l)); } catch (e) { throw new Error(`events: line ${i + 1}: not JSON: ${e.message}`); }
  });
  return out;
}

/** Events as JSON Lines (what `runEvents` and `mlsched run --events` read). */
export const eventsJsonl = (events) => events.map((e) => JSON.stringify(e)).join("\n") + (events.length ? "\n" : "");

/**
 * A new `Engine` (of the scenario's kind's module) of `scenarioJson` and `policy`, fed slot by
 * slot as `mlsched run --events` feeds it: at each slot t the events at t other than
 * submissions, the scenario's arrivals at t, the submissions at t, then the slot; the next slot
 * is the earliest of the next arrival, the next wake-up and the next event. Returns every
 * decision (with its slot and job id), per job id, and the result document. The scenario is
 * never edited: every change is an event.
 */
export function driveEvents(Engine, scenarioJson, policy, events = []) {
  const e = new Engine(scenarioJson, policy);
  try {
    const all = [], byJob = new Map(), general = [];
    const take = (ds, slot, cause) => {
      for (const d of ds) {
        const entry = { slot, record: d.record, data: d.data, cause };
        entry.job = d.job == null ? null : e.jobId(d.job);
        all.push(entry);
        if (entry.job == null) general.push(entry);
        else {
          if (!byJob.has(entry.job)) byJob.set(entry.job, []);
          byJob.get(entry.job).push(entry);
        }
      }
    };
    const evs = events.map((ev, i) => ({ ev, i })).sort((a, b) => a.ev.at - b.ev.at || a.i - b.i).map((x) => x.ev);
    if (evs.some((ev) => ev.event === "arrive")) {
      // Host-driven (docs/open-world.md, "A run with events"): the listed jobs arrive when the
      // events say; each event applied in order as the service applies it, then every wake-up
      // left (the current slot first, if it was not advanced), as `mlsched run --events` does.
      for (const ev of evs) take(e.event(ev), ev.at, ev);
      if (e.now !== undefined) {
        try {
          take(e.event({ at: e.now, event: "advance" }), e.now, null);
        } catch (err) {
          if (!/already advanced/.test(String(err.message))) throw err;
        }
      }
      for (let w = e.nextWakeup; w !== undefined; w = e.nextWakeup) take(e.event({ at: w, event: "advance" }), w, null);
      return { decisions: all, byJob, general, serverIds: e.serverIds, result: JSON.parse(e.finish()) };
    }
    const order = e.arrivalOrder();
    let next = 0, host = 0;
    const nextEvent = () => evs[host]?.at;
    let t = [order[0]?.slot, nextEvent()].filter((x) => x !== undefined).reduce((a, b) => Math.min(a, b), Infinity);
    while (Number.isFinite(t)) {
      const submits = [];
      for (; host < evs.length && evs[host].at <= t; host++) {
        const ev = evs[host];
        if (ev.event === "submit") submits.push(ev);
        else if (ev.event !== "advance") take(e.event(ev), t, ev);
      }
      for (; next < order.length && order[next].slot <= t; next++) take(e.arrive(order[next].job, t), t, null);
      for (const ev of submits) take(e.event(ev), t, ev);
      take(e.advance(t), t, null);
      const cands = [order[next]?.slot, nextEvent()].filter((x) => x !== undefined).map((x) => Math.max(x, t + 1));
      const w = e.nextWakeup;
      if (w !== undefined) cands.push(Math.max(w, t + 1));
      t = cands.length ? Math.min(...cands) : Infinity;
    }
    return { decisions: all, byJob, general, serverIds: e.serverIds, result: JSON.parse(e.finish()) };
  } finally {
    e.free();
  }
}

/** The resource a run with events draws: the units (workers, PSs, chunks, slots) each server
 *  holds, from the result's `occupancy`, the same for every kind. */
export const UNITS = "units held";

/** The group of a server id, for its row colour band (`w3` -> worker, `ps0` -> ps, ...). */
const groupOf = (id) => (/^ps\d+$/.test(id) ? "ps" : /^w\d+$/.test(id) ? "worker" : /^h\d+$/.test(id) ? "server" : /^k\d+$/.test(id) ? "gpu" : "server");

/** A short text of a host event for the decision list. */
export function eventText(ev) {
  switch (ev.event) {
    case "submit": return `submitted ${ev.job?.id ?? "?"}`;
    case "cancel": return `the host cancels ${ev.job}`;
    case "finished": return `the host reports ${ev.job} finished`;
    case "arrive": return `${ev.job} arrives`;
    case "server_down": return `server ${ev.server} goes down: nothing is placed on it until it is up`;
    case "server_up": return `server ${ev.server} is up again`;
    case "capacity": return `server ${ev.server}'s capacity is now [${(ev.capacity ?? []).join(", ")}]`;
    case "advance": return `time moves to ${ev.at}`;
    default: return JSON.stringify(ev);
  }
}

/** A decision's text: the record's fields that say what was decided. */
export function decisionText(d) {
  const x = d.data && typeof d.data === "object" ? d.data : {};
  const keys = ["admitted", "scheduled", "feasible", "reason", "start", "completion_slot", "workers", "outcome", "at", "server"];
  const parts = keys.filter((k) => k in x && x[k] !== null && typeof x[k] !== "object").map((k) => `${k} ${x[k]}`);
  return `${d.record}${parts.length ? ": " + parts.slice(0, 4).join(", ") : ""}`;
}

/**
 * The servers' down intervals, capacity changes and the jobs' cancellations and interruptions
 * of a run with `events` whose result is `result`: `down[{server, from, to}]` (`to` the
 * `server_up` slot, or `steps` when it never came back), `capacity[{server, at, capacity}]`,
 * `cancels[{job, at}]`, `cut[{job, server, at, lost}]` (a span a `server_down` or `capacity` event
 * ended: the job was interrupted there; `lost` when its status is `lost` and this was its last
 * span), with `server` a server id.
 */
export function openWorldMarks(result, events, steps) {
  const down = [], capacity = [], cancels = [], cut = [], open = new Map();
  for (const ev of events) {
    if (ev.event === "server_down") open.set(ev.server, ev.at);
    else if (ev.event === "server_up" && open.has(ev.server)) { down.push({ server: ev.server, from: open.get(ev.server), to: ev.at }); open.delete(ev.server); }
    else if (ev.event === "capacity") capacity.push({ server: ev.server, at: ev.at, capacity: ev.capacity });
    else if (ev.event === "cancel") cancels.push({ job: ev.job, at: ev.at });
  }
  for (const [server, from] of open) down.push({ server, from, to: steps });
  const status = new Map((result.jobs ?? []).map((j) => [j.id, j.status]));
  const lastEnd = new Map();
  for (const s of result.occupancy ?? []) lastEnd.set(s.job, Math.max(lastEnd.get(s.job) ?? 0, s.to));
  const hits = new Set();
  for (const ev of events) {
    if (ev.event !== "server_down" && ev.event !== "capacity") continue;
    for (const s of result.occupancy ?? []) {
      const key = `${s.job}/${ev.at}`;
      if (s.server !== ev.server || s.to !== ev.at || hits.has(key)) continue;
      hits.add(key);
      cut.push({ job: s.job, server: s.server, at: ev.at, lost: status.get(s.job) === "lost" && lastEnd.get(s.job) === ev.at });
    }
  }
  return { down, capacity, cancels, cut };
}

/**
 * The timeline a run with events is drawn from (the fields of `Simulation.timeline()` the page
 * reads, see mlsched.d.ts): servers are the engine's server ids, bars the result's occupancy
 * spans, usage the units each server holds; `open_world` holds the marks (`openWorldMarks`).
 */
export function eventTimeline(run, events, scenarioDoc) {
  const { result, serverIds } = run;
  const occ = result.occupancy ?? [];
  const at = new Map(serverIds.map((id, i) => [id, i]));
  let steps = 1;
  for (const s of occ) steps = Math.max(steps, s.to + 1);
  for (const e of events) steps = Math.max(steps, e.at + 2);
  for (const d of run.decisions) steps = Math.max(steps, d.slot + 1);
  steps = Math.min(steps, 100_000);
  const bars = occ.filter((s) => at.has(s.server)).map((s) => ({ job: s.job, server: at.get(s.server), lane: 0, start: Math.min(s.from, steps - 1), end: Math.min(s.to, steps), label: `${s.count} ${s.role}${s.count > 1 ? "s" : ""}` }));
  // Units held per server as change points (the heatmap's series form).
  const usage = serverIds.map((_, i) => {
    const delta = new Map();
    for (const b of bars) if (b.server === i) {
      const n = Number(b.label.split(" ")[0]);
      delta.set(b.start, (delta.get(b.start) ?? 0) + n);
      delta.set(b.end, (delta.get(b.end) ?? 0) - n);
    }
    const out = [0, 0];
    let v = 0;
    for (const t of [...delta.keys()].sort((a, b) => a - b)) {
      v += delta.get(t);
      if (t === 0) out[1] = v; else if (out[out.length - 1] !== v) out.push(t, v);
    }
    return out;
  });
  const peak = usage.map((x) => Math.max(1, ...x.filter((_, i) => i % 2 === 1)));
  const marks = openWorldMarks(result, events, steps);
  const arrivalOf = new Map();
  for (const j of scenarioDoc?.jobs ?? []) arrivalOf.set(j.id, j.arrival ?? j.release ?? 0);
  for (const e of events) if (e.event === "submit" && e.job?.id != null) arrivalOf.set(e.job.id, e.at);
  const jobs = (result.jobs ?? []).map((j) => {
    const mine = bars.filter((b) => b.job === j.id);
    return {
      id: j.id, status: j.status ?? "", arrival: Math.min(arrivalOf.get(j.id) ?? 0, steps - 1),
      start: mine.length ? Math.min(...mine.map((b) => b.start)) : null,
      end: mine.length ? Math.max(...mine.map((b) => b.end)) : null,
      accepted: j.status !== "rejected",
      cancelled: marks.cancels.find((c) => c.job === j.id)?.at ?? null,
    };
  });
  const decisions = [];
  const clamp = (t) => Math.min(t, steps - 1);
  for (const e of events) decisions.push({ step: clamp(e.at), job: typeof e.job === "string" ? e.job : e.job?.id ?? "", action: e.event, text: eventText(e), source: "", record: e });
  for (const d of run.decisions) decisions.push({ step: clamp(d.slot), job: d.job ?? "", action: d.record.split(".").pop(), text: decisionText(d), source: d.record, record: d.data });
  for (const c of marks.cut) decisions.push({ step: clamp(c.at), job: c.job, action: c.lost ? "lost" : "interrupted", text: `interrupted on ${c.server}${c.lost ? ": not recovered (lost)" : ""}`, source: "", record: null });
  decisions.sort((a, b) => a.step - b.step);
  return {
    kind: result.kind, policy: result.policy, steps, step_unit: "slot", resources: [UNITS],
    servers: serverIds.map((id, i) => ({ id, group: groupOf(id), capacity: [peak[i]] })),
    bars, usage: [], usage_series: [usage], price: [], price_series: [], price_note: "",
    decisions, jobs, summary: result.summary ?? {}, extra: null, open_world: marks,
  };
}

/** The stepping object of a run with events: `Simulation`'s methods over `eventTimeline`. */
export class EventSim {
  constructor(tl) { this.tl = tl; this.currentStep = 0; }
  get steps() { return this.tl.steps; }
  get done() { return this.currentStep + 1 >= this.tl.steps; }
  get kind() { return this.tl.kind; }
  timeline() { return this.tl; }
  step() { if (this.done) return false; this.currentStep++; return true; }
  seek(t) { this.currentStep = Math.max(0, Math.min(this.tl.steps - 1, t)); }
  reset() { this.currentStep = 0; }
  free() {}
  state() {
    const tl = this.tl, t = this.currentStep;
    const running = [];
    tl.bars.forEach((b, i) => { if (b.start <= t && t < b.end) running.push(i); });
    const usage = tl.servers.map((_, s) => {
      const x = tl.usage_series[0][s];
      let v = 0;
      for (let i = 0; i < x.length && x[i] <= t; i += 2) v = x[i + 1];
      return [v];
    });
    const runningJobs = new Set(running.map((i) => tl.bars[i].job));
    const status = tl.jobs.map((j) => {
      if (j.cancelled != null && t >= j.cancelled) return "cancelled";
      if (t < j.arrival) return "waiting";
      if (runningJobs.has(j.id)) return "running";
      if (j.end != null && t >= j.end) return j.status === "finished" ? "done" : j.status;
      return j.status === "rejected" ? "rejected" : "pending";
    });
    return {
      step: t, steps: tl.steps, done: this.done, usage, utilisation: usage.map((u, s) => u[0] / tl.servers[s].capacity[0]),
      price: [], running, queues: tl.servers.map(() => []), decisions: tl.decisions.filter((d) => d.step === t), status,
    };
  }
}
