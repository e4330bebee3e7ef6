// The what-if panel: a change to the run shown (add a job, change a server's capacity) is one
// more open-world event (`docs/open-world.md`: a `submit` or a `capacity` at the current slot)
// for the same scenario: the JS engine (`Engine` of the npm package: the module of the
// scenario's kind, given by the page through `ctx().Engine`) runs the scenario with the run's
// events, and again with the what-if's event added, and the two decision streams are compared
// job by job. The scenario is never edited or re-created: `mlsched run --events` of the same
// events gives the same `log_hash` (the Chromium test checks it).
import { driveEvents } from "./eventrun.js";

const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
};
const short = (v) => {
  const frac = typeof v === "number" && !Number.isInteger(v);
  const s = frac ? (Math.abs(v) >= 1000 ? v.toFixed(1) : v.toPrecision(5).replace(/\.?0+$/, "")) : JSON.stringify(v);
  return s === undefined ? "–" : s.length > 40 ? s.slice(0, 39) + "…" : s;
};
/** Changed jobs listed (the count says how many changed in all). */
const LISTED = 40;
/** Decision fields that are prices or priced costs: when only these differ, the job got the same
 *  outcome at other prices (a capacity change moves every OASiS / Zhou price). */
const PRICED = /cost|price|payoff|dual|lambda/i;

/** True when a field difference is more than a price: admission, slots, servers, workers... */
export const isOutcome = (d) => !PRICED.test(d.field);

/** The engine run of `scenarioJson` with `events` (`driveEvents`, eventrun.js): decisions per
 *  job id, the decisions of no job, the result. Kept under this name for the tests. */
export function driveEngine(Engine, scenarioJson, policy, events = []) {
  return driveEvents(Engine, scenarioJson, policy, events);
}

/** Field-level differences of two decision lists of one job: [{at, field, base, whatIf}], `at`
 *  naming the decision (record and slot of the base run). */
export function decisionDiff(base = [], whatIf = []) {
  const out = [];
  for (let i = 0; i < Math.max(base.length, whatIf.length); i++) {
    const a = base[i], b = whatIf[i];
    if (!a || !b || a.record !== b.record) {
      out.push({ at: `decision ${i + 1}`, field: "record", base: a ? `${a.record} @${a.slot}` : "none", whatIf: b ? `${b.record} @${b.slot}` : "none" });
      continue;
    }
    // A record about one slot (oasis.slot, baseline.slot...) is named by it, else by the event's.
    const at = typeof a.data?.slot === "number" ? `${a.record}(${a.data.slot})` : `${a.record} @${a.slot}`;
    if (a.slot !== b.slot) out.push({ at, field: "slot", base: a.slot, whatIf: b.slot });
    const keys = new Set([...Object.keys(a.data || {}), ...Object.keys(b.data || {})]);
    for (const k of keys) {
      const x = JSON.stringify(a.data?.[k]), y = JSON.stringify(b.data?.[k]);
      if (x !== y) out.push({ at, field: k, base: a.data?.[k], whatIf: b.data?.[k] });
    }
  }
  return out;
}

/** The server ids of a scenario document as the engine names them (`Engine.serverIds`,
 *  `docs/formats.md` "Server ids"): an explicit `id`, else the kind's positional name; route's
 *  are its topology's nodes. Read from the document, so showing a result builds no engine. */
export function serverIdsOf(doc) {
  const named = (list, prefix) => (list ?? []).map((x, i) => (x && !Array.isArray(x) && typeof x.id === "string" ? x.id : `${prefix}${i}`));
  switch (doc.kind) {
    case "oasis": return [...named(doc.worker_servers, "w"), ...named(doc.ps_servers, "ps")];
    case "online": return named(doc.servers, "h");
    case "placement": return named(doc.workers, "k");
    case "preempt": return (doc.servers ?? []).map((s) => s.id);
    case "route": return (doc.topology?.nodes ?? []).map((n) => n.id);
    default: return [];
  }
}

/** Server capacities of a scenario document as its `capacity` events take them (one entry per
 *  resource of `capacityResources`), by position of the engine's `serverIds`; null for a server
 *  whose capacity cannot change (preempt's cloud, placement's...). */
export function capacityOf(doc, serverIds, server) {
  const id = serverIds[server];
  const vec = (x) => (Array.isArray(x) ? x : x?.capacity ?? null);
  switch (doc.kind) {
    case "oasis": {
      const h = doc.worker_servers.length;
      return vec(server < h ? doc.worker_servers[server] : doc.ps_servers[server - h]);
    }
    case "online":
      return vec(doc.servers[server]);
    case "preempt": {
      const s = doc.servers.find((x) => x.id === id);
      return s && !s.cloud ? [s.workers ?? 0, s.ps ?? 0] : null;
    }
    case "route": {
      const n = doc.topology.nodes.find((x) => x.id === id);
      return n && n.kind !== "switch" ? [n.slots ?? 0] : null;
    }
    case "placement":
      return [1];
    default:
      return null;
  }
}

/** The names of a kind's capacity entries (`capacity` events, `docs/open-world.md`). */
export function capacityResources(doc) {
  return { oasis: doc.resources, online: doc.resources, preempt: ["workers", "ps"], route: ["slots"], placement: ["gpu"] }[doc.kind] ?? [];
}

/** The capacity of server `id` in force at `slot`: the scenario's, then the `capacity` events
 *  at or before `slot`. */
export function capacityAt(doc, serverIds, server, events, slot) {
  let c = capacityOf(doc, serverIds, server);
  for (const e of events) if (e.event === "capacity" && e.server === serverIds[server] && e.at <= slot) c = e.capacity;
  return c && [...c];
}

/** A copy of job `template` of `doc` named `id` arriving at `slot` (kinds with arrivals). */
export function jobCopy(doc, template, id, slot) {
  const j = structuredClone(doc.jobs.find((x) => x.id === template) ?? doc.jobs[0]);
  j.id = id;
  if ("arrival" in j) j.arrival = slot;
  if ("release" in j) j.release = slot;
  return j;
}

/** The panel in `host`; `ctx()` gives {scenarioText, policy, tl, step, Engine, events} (`events`: the
 *  open-world events of the run shown, [] for a closed-world run); `show(events, name)` shows the
 *  run of the scenario with `events` in the visualiser. */
export class WhatIf {
  constructor(host, ctx, show) {
    this.host = host; this.ctx = ctx; this.show = show;
    this.edited = null;
    this.serverIds = [];
    /** Engine runs of the what-if and scenario documents they were built from (tests: always
     *  the scenario shown: a what-if is events, never an edited scenario). */
    this.runs = [];
    host.innerHTML = "";
    this.template = el("input", { id: "wi-template", list: "wi-jobs", size: 14 });
    this.jobList = el("datalist", { id: "wi-jobs" });
    this.jobText = el("textarea", { id: "wi-job", rows: 5, placeholder: "job JSON to submit (Copy fills it in)" });
    this.server = el("select", { id: "wi-server" });
    this.resource = el("select", { id: "wi-resource" });
    this.capacity = el("input", { id: "wi-capacity", type: "number", min: 0, step: "any", size: 6 });
    this.status = el("p", { class: "hint", id: "wi-status" });
    this.out = el("div", { id: "wi-diff" });
    const copy = el("button", { id: "wi-copy", text: "Copy" });
    const runB = el("button", { id: "wi-run", class: "primary", text: "Run what-if" });
    this.showB = el("button", { id: "wi-show", text: "Show the what-if run", disabled: "" });
    copy.addEventListener("click", () => this.copyJob());
    runB.addEventListener("click", () => this.run());
    this.showB.addEventListener("click", () => this.edited && this.show(this.edited, "what-if"));
    this.server.addEventListener("change", () => this.fillCapacity());
    this.resource.addEventListener("change", () => this.fillCapacity());
    host.append(
      el("h3", { text: "Submit a job: a copy of" }), el("div", { class: "wi-row" }, this.template, this.jobList, copy),
      this.jobText,
      el("h3", { text: "Change a capacity (from the current slot)" }), el("div", { class: "wi-row" }, this.server, this.resource, this.capacity),
      el("div", { class: "wi-row" }, runB, this.showB), this.status, this.out,
      el("p", { class: "hint", text: "A what-if is one more event at the current slot (a submit, a capacity change) for the same scenario: the engine runs the scenario with the run's events, and again with the what-if's added; the decisions are compared job by job." }));
  }

  /** Refills the pickers for a new result. */
  reset() {
    const { tl, scenarioText } = this.ctx();
    this.edited = null;
    this.showB.disabled = true;
    this.out.innerHTML = "";
    this.status.textContent = "";
    this.jobText.value = "";
    this.jobList.innerHTML = "";
    for (const j of tl.jobs.slice(0, 500)) this.jobList.append(el("option", { value: j.id }));
    this.template.value = tl.jobs[0]?.id ?? "";
    this.doc = JSON.parse(scenarioText);
    this.serverIds = serverIdsOf(this.doc);
    this.server.innerHTML = "";
    this.server.append(el("option", { value: "", text: "(no change)" }));
    this.serverIds.forEach((id, i) => { if (capacityOf(this.doc, this.serverIds, i)) this.server.append(el("option", { value: String(i), text: id })); });
    this.resource.innerHTML = "";
    capacityResources(this.doc).forEach((r, i) => this.resource.append(el("option", { value: String(i), text: r })));
    this.fillCapacity();
  }

  fillCapacity() {
    const { events, step } = this.ctx();
    const c = this.server.value === "" ? null : capacityAt(this.doc, this.serverIds, Number(this.server.value), events, step);
    this.capacity.value = c ? String(c[Number(this.resource.value)] ?? "") : "";
  }

  copyJob() {
    const { scenarioText, step, events } = this.ctx();
    const doc = JSON.parse(scenarioText);
    const taken = new Set([...doc.jobs.map((j) => j.id), ...events.filter((e) => e.event === "submit").map((e) => e.job?.id)]);
    let n = 1;
    while (taken.has(`what-if-${n}`)) n++;
    const pool = { jobs: [...doc.jobs, ...events.filter((e) => e.event === "submit").map((e) => e.job)] };
    this.jobText.value = JSON.stringify(jobCopy(pool, this.template.value, `what-if-${n}`, step), null, 1);
  }

  /** The what-if's events (at the current slot) and a description of each. */
  edit() {
    const { step, events } = this.ctx();
    const added = [], edits = [];
    if (this.jobText.value.trim()) {
      let job;
      try { job = JSON.parse(this.jobText.value); } catch (e) { throw new Error(`what-if: the job to submit is not JSON: ${e.message}`); }
      added.push({ at: step, event: "submit", job });
      edits.push(`job \`${job.id}\` submitted at ${step}`);
    }
    if (this.server.value !== "") {
      const value = Number(this.capacity.value);
      if (this.capacity.value === "" || !Number.isFinite(value)) throw new Error("what-if: capacity: enter a number");
      const server = Number(this.server.value), res = Number(this.resource.value);
      const capacity = capacityAt(this.doc, this.serverIds, server, events, step);
      capacity[res] = value;
      added.push({ at: step, event: "capacity", server: this.serverIds[server], capacity });
      edits.push(`${this.serverIds[server]} ${capacityResources(this.doc)[res]} = ${value} from ${step}`);
    }
    if (!added.length) throw new Error("what-if: nothing to change (submit a job or pick a server)");
    // In slot order, as an events file: after the run's events up to the current slot.
    return { events: [...events.filter((e) => e.at <= step), ...added, ...events.filter((e) => e.at > step)], added, edits };
  }

  /** Runs the scenario with the run's events and with the what-if's added; shows what changed;
   *  returns the diff. */
  run() {
    const { scenarioText, policy, Engine, events } = this.ctx();
    this.out.innerHTML = "";
    this.showB.disabled = true;
    let edited, base, alt;
    const t0 = performance.now();
    try {
      edited = this.edit();
      base = driveEvents(Engine, scenarioText, policy, events);
      alt = driveEvents(Engine, scenarioText, policy, edited.events);
      this.runs.push({ scenarioText, events: edited.events });
    } catch (e) {
      this.status.textContent = "";
      this.out.append(el("pre", { class: "error", id: "wi-error", text: e instanceof Error ? e.message : String(e) }));
      return null;
    }
    const ms = performance.now() - t0;
    this.edited = edited.events;
    this.showB.disabled = false;
    const changed = [];
    for (const id of new Set([...base.byJob.keys(), ...alt.byJob.keys()])) {
      const d = decisionDiff(base.byJob.get(id), alt.byJob.get(id));
      if (d.length) changed.push({ id, diff: d, added: !base.byJob.has(id), outcome: d.some(isOutcome) });
    }
    // Jobs with another outcome first (stable: decision order otherwise).
    changed.sort((a, b) => Number(b.outcome) - Number(a.outcome));
    const outcomes = changed.filter((c) => c.outcome).length;
    this.status.textContent = `${edited.edits.join("; ")} — ${changed.length} job(s) decided differently: ` +
      `${outcomes} with another outcome, ${changed.length - outcomes} only at other prices (${ms.toFixed(0)} ms for both engine runs)`;
    this.renderSummary(base.result, alt.result);
    this.renderChanges(changed);
    return { edits: edited.edits, events: edited.added, allEvents: edited.events, changed: changed.length, outcomes, logHash: [base.result.log_hash, alt.result.log_hash] };
  }

  renderSummary(a, b) {
    const sa = a.kind === "placement" ? a.best : a.summary, sb = b.kind === "placement" ? b.best : b.summary;
    const t = el("table", { class: "summary wi-summary" }, el("tr", {}, el("th", { text: "" }), el("th", { text: "base" }), el("th", { text: "what-if" })));
    for (const k of Object.keys(sa || {})) {
      if (typeof sa[k] === "object" && sa[k] !== null) continue;
      const diff = JSON.stringify(sa[k]) !== JSON.stringify(sb?.[k]);
      if (typeof sa[k] === "string" && !diff) continue; // notes, e.g. where the prices come from
      t.append(el("tr", { class: diff ? "changed" : "" }, el("td", { text: k.replaceAll("_", " ") }), el("td", { text: short(sa[k]) }), el("td", { text: short(sb?.[k]) })));
    }
    this.out.append(t);
  }

  renderChanges(changed) {
    const list = el("ol", { class: "decisions wi-changes" });
    for (const c of changed.slice(0, LISTED)) {
      const fields = c.added ? [el("span", { text: " new job: " + c.diff.length + " decision field(s)" })]
        : [...c.diff.filter(isOutcome), ...c.diff.filter((d) => !isOutcome(d))].slice(0, 4)
          .map((d) => el("div", { class: "wi-field", text: `${d.at} ${d.field}: ${short(d.base)} → ${short(d.whatIf)}` }));
      list.append(el("li", { "data-job": c.id, class: c.outcome ? "outcome" : "priced" }, el("b", { text: c.id }),
        el("span", { class: "hint", text: c.added ? "" : c.outcome ? " another outcome" : " same outcome, other prices" }), ...fields, c.diff.length > 4 && !c.added ? el("div", { class: "hint", text: `… ${c.diff.length - 4} more field(s)` }) : null));
    }
    if (!changed.length) list.append(el("li", { class: "empty", text: "no decision changed" }));
    if (changed.length > LISTED) list.append(el("li", { class: "hint", text: `… and ${changed.length - LISTED} more job(s)` }));
    this.out.append(list);
  }
}
