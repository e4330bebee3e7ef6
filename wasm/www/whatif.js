// The what-if panel: edit the scenario (add a job, change a server's capacity), run the edited
// scenario on the JS engine (`Engine` of the npm package: the module of the scenario's kind,
// given by the page through `ctx().Engine`) event by event next to the base
// scenario, and list the decisions that changed.
//
// The engine takes arrivals, slots and finishes as events, but a server's capacity is part of the
// scenario it was built from: there is no "capacity changed" event, and a snapshot can only be
// restored into an engine of the same scenario. So every what-if re-creates the engine from the
// edited scenario and replays all the events from slot 0 (the base run is replayed the same way),
// and the two decision streams are compared job by job.

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

/**
 * Feeds the scenario's arrivals and wake-ups to a new engine slot by slot (the loop of the npm
 * README) with `Engine` (of the scenario's kind's module) and returns every decision per job
 * id, the decisions of no job, and the result.
 */
export function driveEngine(Engine, scenarioJson, policy) {
  const e = new Engine(scenarioJson, policy);
  try {
    const byJob = new Map(), general = [];
    const take = (ds, slot) => {
      for (const d of ds) {
        const entry = { slot, record: d.record, data: d.data };
        if (d.job == null) general.push(entry);
        else {
          const id = e.jobId(d.job);
          if (!byJob.has(id)) byJob.set(id, []);
          byJob.get(id).push(entry);
        }
      }
    };
    const order = e.arrivalOrder();
    let next = 0, t = order[0]?.slot;
    while (t !== undefined) {
      for (; next < order.length && order[next].slot <= t; next++) take(e.arrive(order[next].job, t), t);
      take(e.advance(t), t);
      const w = e.nextWakeup, a = order[next]?.slot;
      t = w === undefined ? a : a === undefined ? Math.max(w, t + 1) : Math.min(a, Math.max(w, t + 1));
    }
    return { byJob, general, result: JSON.parse(e.finish()) };
  } finally {
    e.free();
  }
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

/** Sets server `server`'s capacity of resource `res` to `value` in the scenario document `doc`
 *  (indices as in `Simulation.timeline().servers`); returns the field changed. */
export function setCapacity(doc, tl, server, res, value) {
  const s = tl.servers[server];
  if (!s) throw new Error(`what-if: no server ${server}`);
  switch (doc.kind) {
    case "oasis": {
      const h = doc.worker_servers.length;
      const [list, i] = server < h ? ["worker_servers", server] : ["ps_servers", server - h];
      doc[list][i][res] = value;
      return `${list}[${i}][${res}]`;
    }
    case "online":
      doc.servers[server][res] = value;
      return `servers[${server}][${res}]`;
    case "preempt":
      return setPreemptCapacity(doc, server, res, value);
    case "route": {
      const node = doc.topology.nodes.find((n) => n.id === s.id);
      node.slots = value;
      return `topology.nodes[${doc.topology.nodes.indexOf(node)}].slots`;
    }
    default:
      throw new Error(`what-if: a ${doc.kind} scenario has no server capacities to change (its workers are the cluster)`);
  }
}

/** Preempt: a server's workers (res 0) or parameter servers (res 1). Every job's per-worker rates
 *  and per-PS eligibility of that server are cut or extended (a new worker runs at the server's
 *  last worker's rate, a new PS is as eligible as its last) so that the scenario stays valid. */
function setPreemptCapacity(doc, server, res, value) {
  const resize = (list, n) => { const last = list[list.length - 1]; list.length = Math.min(list.length, n); while (list.length < n) list.push(last); };
  const srv = doc.servers[server];
  if (res === 0) {
    if (srv.cloud) throw new Error(`what-if: server \`${srv.id}\` is the cloud: its workers are unbounded`);
    srv.workers = value;
    for (const j of doc.jobs) for (const f of ["rate", "rate_colocated"]) if (j[f]) resize(j[f][server], value);
    return `servers[${server}].workers`;
  }
  srv.ps = value;
  for (const j of doc.jobs) resize(j.ps_eligible[server], value);
  return `servers[${server}].ps`;
}

/** A copy of job `template` of `doc` named `id` arriving at `slot` (kinds with arrivals). */
export function jobCopy(doc, template, id, slot) {
  const j = structuredClone(doc.jobs.find((x) => x.id === template) ?? doc.jobs[0]);
  j.id = id;
  if ("arrival" in j) j.arrival = slot;
  if ("release" in j) j.release = slot;
  return j;
}

/** The panel in `host`; `ctx()` gives {scenarioText, policy, tl, step, Engine}; `show(text, name)` loads
 *  a scenario into the visualiser. */
export class WhatIf {
  constructor(host, ctx, show) {
    this.host = host; this.ctx = ctx; this.show = show;
    this.edited = null;
    host.innerHTML = "";
    this.template = el("input", { id: "wi-template", list: "wi-jobs", size: 14 });
    this.jobList = el("datalist", { id: "wi-jobs" });
    this.jobText = el("textarea", { id: "wi-job", rows: 5, placeholder: "job JSON to add (Copy fills it in)" });
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
      el("h3", { text: "Add a job: a copy of" }), el("div", { class: "wi-row" }, this.template, this.jobList, copy),
      this.jobText,
      el("h3", { text: "Change a capacity" }), el("div", { class: "wi-row" }, this.server, this.resource, this.capacity),
      el("div", { class: "wi-row" }, runB, this.showB), this.status, this.out,
      el("p", { class: "hint", text: "The engine has no capacity event and restores snapshots only into the same scenario, so a what-if re-creates the engine from the edited scenario and replays every event from slot 0, next to a replay of the base scenario; the decisions are compared job by job." }));
  }

  /** Refills the pickers for a new result. */
  reset() {
    const { tl } = this.ctx();
    this.edited = null;
    this.showB.disabled = true;
    this.out.innerHTML = "";
    this.status.textContent = "";
    this.jobText.value = "";
    this.jobList.innerHTML = "";
    for (const j of tl.jobs.slice(0, 500)) this.jobList.append(el("option", { value: j.id }));
    this.template.value = tl.jobs[0]?.id ?? "";
    this.server.innerHTML = "";
    this.server.append(el("option", { value: "", text: "(no change)" }));
    tl.servers.forEach((s, i) => this.server.append(el("option", { value: String(i), text: s.id })));
    this.resource.innerHTML = "";
    tl.resources.forEach((r, i) => this.resource.append(el("option", { value: String(i), text: r })));
    this.fillCapacity();
  }

  fillCapacity() {
    const { tl } = this.ctx();
    const s = tl.servers[Number(this.server.value)];
    this.capacity.value = this.server.value === "" || !s ? "" : String(s.capacity[Number(this.resource.value)] ?? "");
  }

  copyJob() {
    const { scenarioText, step } = this.ctx();
    const doc = JSON.parse(scenarioText);
    const n = doc.jobs.filter((j) => j.id.startsWith("what-if-")).length + 1;
    this.jobText.value = JSON.stringify(jobCopy(doc, this.template.value, `what-if-${n}`, step), null, 1);
  }

  /** The edited scenario and a description of the edits. */
  edit() {
    const { scenarioText, tl } = this.ctx();
    const doc = JSON.parse(scenarioText);
    const edits = [];
    if (this.jobText.value.trim()) {
      let job;
      try { job = JSON.parse(this.jobText.value); } catch (e) { throw new Error(`what-if: the job to add is not JSON: ${e.message}`); }
      doc.jobs.push(job);
      edits.push(`job \`${job.id}\` added`);
    }
    if (this.server.value !== "") {
      const value = Number(this.capacity.value);
      if (this.capacity.value === "" || !Number.isFinite(value)) throw new Error("what-if: capacity: enter a number");
      const field = setCapacity(doc, tl, Number(this.server.value), Number(this.resource.value), value);
      edits.push(`${field} = ${value}`);
    }
    if (!edits.length) throw new Error("what-if: nothing to change (add a job or pick a server)");
    return { text: JSON.stringify(doc), edits };
  }

  /** Runs base and edited scenario on the engine and shows what changed; returns the diff. */
  run() {
    const { scenarioText, policy, Engine } = this.ctx();
    this.out.innerHTML = "";
    this.showB.disabled = true;
    let edited, base, alt;
    const t0 = performance.now();
    try {
      edited = this.edit();
      base = driveEngine(Engine, scenarioText, policy);
      alt = driveEngine(Engine, edited.text, policy);
    } catch (e) {
      this.status.textContent = "";
      this.out.append(el("pre", { class: "error", id: "wi-error", text: e instanceof Error ? e.message : String(e) }));
      return null;
    }
    const ms = performance.now() - t0;
    this.edited = edited.text;
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
    return { edits: edited.edits, changed: changed.length, outcomes, logHash: [base.result.log_hash, alt.result.log_hash] };
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
