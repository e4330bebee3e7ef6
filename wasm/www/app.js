// The mlsched visualiser: runs scenarios with the wasm kernel (the CLI's own code) and draws the
// replayed decisions. No dependencies, no network: everything is in this folder.
// One wasm module per scenario kind (mlsched/loader.js): the page fetches only the module of
// the kind it shows, when it first shows it; the scenario list and policies are plain data.
import { load, loadedKinds, KINDS, bundledScenarios, policies, version } from "./mlsched/loader.js";
import { GridView, barPainter, seriesPainter, forSegments, combineSeries, colourTable, hslToRgb } from "./canvasview.js";
import { WhatIf } from "./whatif.js";
import { driveEvents, eventTimeline, EventSim, parseEvents } from "./eventrun.js";
import { startLive } from "./live.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

const PAPERS = {
  oasis: "<b>OASiS</b> — Bao et al., INFOCOM 2018: <i>online job scheduling in distributed ML clusters</i>. Each arriving job is admitted only if its best schedule's utility exceeds its cost at the current <b>resource prices</b>, which rise exponentially with usage (eq. 22). Watch the price heatmap climb where jobs land, and late jobs get rejected.",
  online: "<b>Zhou et al.</b>, 2022: <i>online scheduling to minimise weighted completion time</i> with parameter servers or Ring-AllReduce. A primal-dual algorithm prices server resources by λ^(used/capacity) − 1 (eq. 11) and picks each job's worker type, count and start to minimise weighted completion time.",
  placement: "<b>HAS / JPS</b> — Liu et al., 2024: <i>heterogeneity-aware job placement</i>. For every category K (how many GPUs each job gets) a matching market assigns heterogeneous GPUs to jobs; the best category by average JCT wins. Step through the categories examined.",
  preempt: "<b>Wang et al.</b>, 2022: <i>preemptive chunk scheduling in edge-cloud</i>. Jobs are split into chunks dispatched to edge workers (with upload delays) or the cloud; a worker's queue is preemptive, so short chunks overtake long ones. Watch the queues and the preemptions.",
  route: "<b>CSRP</b> — Song et al., 2023: <i>compute-server selection and routing for parameter-server jobs</i>. Each job gets compute nodes and PS→worker paths (optionally aggregated at a switch) minimising network cost under deadlines. The topology shows the chosen paths of running jobs.",
};

/** The module of the kind shown (run, runWith, Simulation, Engine), set by `moduleFor`. */
let api = null;

/** The module for `text`'s kind (loaded on first use). A document without a known kind is given
 *  to the module already loaded, which refuses it with the CLI's message. */
async function moduleFor(text) {
  const kind = kindOf(text);
  if (KINDS.includes(kind) || !api) api = await load(KINDS.includes(kind) ? kind : text);
  return api;
}

const state = { bundled: [], scenarioText: "", scenarioName: "", events: [], sim: null, tl: null, timer: null, heatRes: -1, heatAgg: "max", resultJson: "", ji: null };

/** Side panels list at most this many rows (the whole openb cluster has 1,523 servers and
 *  7,064 jobs): the busiest servers and the running jobs first. */
const PANEL_ROWS = 30;
const LEGEND_JOBS = 40;

function el(tag, attrs = {}, ...kids) {
  const e = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v;
    else if (k === "html") e.innerHTML = v;
    else if (k === "style" && typeof v === "object") for (const [sk, sv] of Object.entries(v)) e.style.setProperty(sk.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase()), sv);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}
const svgEl = (tag, attrs = {}, ...kids) => el("svg:" + tag, attrs, ...kids);

/** Hue, saturation, lightness of job `i` of `n`: spread evenly over the wheel for a few jobs;
 *  for many, by the golden angle, so that neighbouring jobs still differ. */
function jobHsl(i, n) {
  const h = n <= 24 ? Math.round((i * 360) / Math.max(n, 1) + 210) % 360 : Math.round(210 + i * 137.508) % 360;
  return [h, 62, n <= 24 ? 52 : 44 + (i % 3) * 8];
}
function jobColor(i, n) {
  const [h, s, l] = jobHsl(i, n);
  return `hsl(${h} ${s}% ${l}%)`;
}
function fmt(x) {
  if (typeof x !== "number") return String(x);
  if (Number.isInteger(x)) return String(x);
  const a = Math.abs(x);
  return a >= 1000 ? x.toFixed(0) : a >= 1 ? x.toFixed(3).replace(/\.?0+$/, "") : x.toPrecision(4).replace(/\.?0+$/, "");
}

// ---------------------------------------------------------------- loading and running

function setStatus(text, kind = "idle") { $("status").textContent = text; $("status").dataset.state = kind; }
function showError(msg) {
  $("error").hidden = !msg;
  $("error").textContent = msg ? msg : "";
}

function fillPicker() {
  const sel = $("scenario");
  sel.innerHTML = "";
  const byKind = {};
  for (const s of state.bundled) (byKind[s.kind] ||= []).push(s);
  for (const [kind, list] of Object.entries(byKind)) {
    const g = el("optgroup", { label: kind });
    for (const s of list) g.append(el("option", { value: s.name, text: s.name }));
    sel.append(g);
  }
}

function kindOf(text) {
  try { return JSON.parse(text).kind; } catch { return ""; }
}

function fillPolicies(kind) {
  const sel = $("policy");
  sel.innerHTML = "";
  let list = [];
  try { list = policies(kind); } catch { list = []; }
  for (const p of list) sel.append(el("option", { value: p, text: p }));
}

function selectBundled(name) {
  const s = state.bundled.find((b) => b.name === name);
  if (!s) return;
  state.scenarioText = s.scenario;
  state.scenarioName = s.name;
  state.events = [];
  $("scenario").value = name;
  fillPolicies(s.kind);
}

/** Runs the current scenario: the summary comes from `run` (byte-identical to the CLI). */
async function runCurrent() {
  stop();
  const kind = kindOf(state.scenarioText);
  let run, runWith, Simulation;
  try {
    ({ run, runWith, Simulation } = await moduleFor(state.scenarioText));
  } catch (e) {
    showRunError(e);
    return;
  }
  $("paper").innerHTML = PAPERS[kind] || "Scenario of unknown kind.";
  const policy = $("policy").value;
  const own = policies(kind)[0];
  const pol = policy && policy !== own ? policy : null;
  if (state.events.length) return runWithEvents(pol);
  let result;
  try {
    result = pol ? runWith(state.scenarioText, pol) : run(state.scenarioText);
  } catch (e) {
    showRunError(e);
    return;
  }
  let sim;
  try {
    // Placement: also fetch every examined category for the rounds view.
    const forSteps = kind === "placement" ? runWith(state.scenarioText, pol, true) : result;
    sim = Simulation.fromResult(state.scenarioText, forSteps);
  } catch (e) {
    showRunError(e);
    return;
  }
  state.timings = {};
  show(sim, result, `${state.scenarioName} — ran in the browser`);
}

/** Runs the current scenario with `state.events` (open-world events, `docs/open-world.md`) on
 *  the JS engine, as `mlsched run --events` does, and draws the result's occupancy with the
 *  servers' down intervals and the jobs' cancellations and interruptions (eventrun.js). */
function runWithEvents(pol) {
  const t0 = performance.now();
  let sim, run;
  try {
    run = driveEvents(api.Engine, state.scenarioText, pol, state.events);
    sim = new EventSim(eventTimeline(run, state.events, JSON.parse(state.scenarioText)));
  } catch (e) {
    showRunError(e);
    return;
  }
  state.timings = { engine_rerun_ms: performance.now() - t0 };
  show(sim, JSON.stringify(run.result), `${state.scenarioName} with ${state.events.length} event(s) — ran in the browser`);
}

async function replayResult(resultText) {
  stop();
  // A saved result is re-run closed-world (a run with events: open its scenario and events).
  state.events = [];
  let sim;
  const t0 = performance.now();
  try {
    const { Simulation } = await moduleFor(state.scenarioText);
    sim = Simulation.fromResult(state.scenarioText, resultText);
    state.timings = { engine_rerun_ms: performance.now() - t0 };
  } catch (e) {
    showRunError(e);
    return;
  }
  show(sim, resultText, `${state.scenarioName} — replaying a saved result`);
}

function showRunError(e) {
  const msg = e instanceof Error ? e.message : String(e);
  state.sim = null; state.tl = null; state.resultJson = "";
  showError(msg);
  setStatus(`${state.scenarioName}: the run failed`, "error");
  $("summary").innerHTML = "";
  $("summary").append(el("tr", {}, el("td", { text: "kind" }), el("td", { text: kindOf(state.scenarioText) })),
    el("tr", {}, el("td", { text: "error" }), el("td", { id: "summary-error", text: msg })));
  for (const k of Object.keys(views)) { views[k]?.destroy(); views[k] = null; }
  for (const id of ["timeline", "heat-usage", "heat-price", "kind-panel", "decisions", "jobs", "legend", "wi-diff"]) if ($(id)) $(id).innerHTML = "";
  $("clock").textContent = "–";
  document.body.dataset.ready = "error";
}

function show(sim, resultText, label) {
  if (state.sim) state.sim.free();
  state.sim = sim;
  let t0 = performance.now();
  state.tl = sim.timeline();
  state.timings = { ...state.timings, timeline_ms: performance.now() - t0 };
  state.ji = null;
  state.resultJson = resultText;
  showError("");
  setStatus(label, "ok");
  const tl = state.tl;
  $("paper").innerHTML = PAPERS[tl.kind] || "";
  if (state.bundled.some((b) => b.name === state.scenarioName)) $("scenario").value = state.scenarioName;
  $("scrub").max = String(tl.steps - 1);
  const hr = $("heat-resource");
  hr.innerHTML = "";
  hr.append(el("option", { value: "-1", text: "dominant resource" }));
  tl.resources.forEach((r, i) => hr.append(el("option", { value: String(i), text: r })));
  state.heatRes = -1;
  t0 = performance.now();
  renderSummary(JSON.parse(resultText));
  renderStatic();
  render();
  state.whatIf?.reset();
  state.timings.panels_ms = performance.now() - t0;
  document.body.dataset.ready = "ok";
}

// ---------------------------------------------------------------- static parts

function renderSummary(res) {
  const t = $("summary");
  t.innerHTML = "";
  const row = (k, v, cls = "", key = k) => t.append(el("tr", { "data-key": key }, el("td", { text: k }), el("td", { class: cls }, v)));
  row("kind", res.kind);
  row("policy", res.policy);
  const summary = res.kind === "placement" ? { avg_jct: res.best?.avg_jct, fairness: res.best?.fairness, category: res.best?.category, categories_examined: res.categories_examined } : res.summary || {};
  for (const [k, v] of Object.entries(summary)) {
    if (v === undefined || v === null) continue;
    row(k.replaceAll("_", " "), typeof v === "object" ? JSON.stringify(v) : fmt(v), "num", "summary." + k);
    t.lastChild.lastChild.dataset.raw = JSON.stringify(v);
  }
  row("log_hash", el("code", { id: "log-hash", text: res.log_hash }));
}

/** Job id -> index in `state.tl.jobs` (built once per result). */
function jobIndex() {
  if (state.ji) return state.ji;
  const m = new Map();
  state.tl.jobs.forEach((j, i) => m.set(j.id, i));
  state.ji = m;
  return m;
}

function renderStatic() {
  const tl = state.tl;
  const ji = jobIndex();
  const legend = $("legend");
  legend.innerHTML = "";
  tl.jobs.slice(0, LEGEND_JOBS).forEach((j, i) => legend.append(el("span", { style: { "--c": jobColor(i, tl.jobs.length) }, text: j.id + (j.accepted ? "" : " (not run)") })));
  if (tl.jobs.length > LEGEND_JOBS) legend.append(el("em", { class: "hint", text: `… and ${tl.jobs.length - LEGEND_JOBS} more jobs: hover a bar to name it` }));
  $("timeline-hint").textContent = tl.step_unit === "category" ? "x = categories examined (last = chosen)" : "x = time slots";
  drawTimeline(ji);
  drawHeatmaps();
  $("heat-card").hidden = tl.kind === "placement" && !tl.open_world;
  // Placement has no time axis: the rounds table below is its timeline (a run with events
  // draws every kind's occupancy, in seconds for placement).
  $("timeline-card").hidden = tl.kind === "placement" && !tl.open_world;
  $("kind-title").textContent = tl.open_world ? "Servers now: units held (open-world run)" : { oasis: "Admission and pricing", online: "Placements", placement: "Matching-market rounds (categories)", preempt: "Worker queues and preemptions", route: "Topology and chosen paths" }[tl.kind];
}

function lanesOf() {
  // Rows of the timeline: one per (server, lane). Preempt bars carry their worker as lane;
  // elsewhere overlapping bars on one server are packed greedily into extra lanes.
  const tl = state.tl;
  const laneOfBar = tl.bars.map((b) => b.lane);
  const preempt = tl.kind === "preempt" && !tl.open_world;
  if (!preempt) {
    const ends = new Map();
    const order = tl.bars.map((_, i) => i).sort((a, b) => tl.bars[a].server - tl.bars[b].server || tl.bars[a].start - tl.bars[b].start || a - b);
    for (const i of order) {
      const b = tl.bars[i];
      const laneEnds = ends.get(b.server) || [];
      let l = laneEnds.findIndex((e) => e <= b.start);
      if (l < 0) { l = laneEnds.length; laneEnds.push(0); }
      laneEnds[l] = b.end;
      ends.set(b.server, laneEnds);
      laneOfBar[i] = l;
    }
  }
  const lanes = new Map();
  tl.bars.forEach((b, i) => lanes.set(b.server, Math.max(lanes.get(b.server) ?? 0, laneOfBar[i] + 1)));
  const rows = [];
  tl.servers.forEach((s, i) => {
    const n = Math.max(lanes.get(i) ?? 1, preempt && s.capacity[0] > 0 ? s.capacity[0] : 1);
    for (let l = 0; l < n; l++) rows.push({ server: i, lane: l, label: l === 0 ? s.id : preempt ? `${s.id} · w${l}` : "", first: l === 0 });
    if (preempt && n > 1) rows[rows.length - n].label = `${s.id} · w0`;
  });
  return { rows, laneOfBar };
}

/** The canvas views of the current result (timeline, usage and price heatmaps). */
const views = { timeline: null, usage: null, price: null };

/** Colour of job `i` of `n` as [r, g, b] (the raster's form of `jobColor`). */
function jobRgb(i, n) {
  return hslToRgb(...jobHsl(i, n));
}

function drawTimeline(ji) {
  const tl = state.tl;
  const { rows, laneOfBar } = lanesOf();
  const rowOf = new Map(rows.map((r, i) => [`${r.server}/${r.lane}`, i]));
  const byRow = rows.map(() => []);
  tl.bars.forEach((b, i) => {
    const r = rowOf.get(`${b.server}/${laneOfBar[i]}`) ?? rowOf.get(`${b.server}/0`);
    if (r !== undefined) byRow[r].push(i);
  });
  const n = tl.jobs.length;
  const rgb = tl.jobs.map((_, i) => jobRgb(i, n));
  const jobOf = (i) => ji.get(tl.bars[i].job) ?? 0;
  const unit = tl.step_unit;
  views.timeline?.destroy();
  views.timeline = new GridView($("timeline"), {
    label: "timeline of jobs per server", bars: tl.bars.length, rows: rows.length, cols: tl.steps, colUnit: unit,
    rowLabel: (r) => rows[r].label, rowBand: (r) => rows[r].server % 2,
    paint: barPainter(tl.bars, byRow, (i) => rgb[jobOf(i)]),
    detail: (ctx, vp, vis) => drawBarsDetail(ctx, vp, vis, rows, byRow, jobOf),
    overlay: tl.open_world ? openWorldOverlay(rows.map((r) => r.server), barRows(rows, byRow)) : null,
    tip: (row, col, span) => {
      for (let r = span.r0; r < span.r1; r++) for (const i of byRow[r]) {
        const b = tl.bars[i];
        if (b.start < span.c1 && span.c0 < b.end) {
          const more = span.r1 - span.r0 > 1 ? ` (this pixel covers ${span.r1 - span.r0} rows)` : "";
          return `${b.job} on ${tl.servers[b.server].id}: ${unit}s ${b.start}..${b.end - 1} (${b.label})${more}`;
        }
      }
      const down = tl.open_world?.down.find((d) => d.server === tl.servers[rows[row].server].id && d.from <= col && col < d.to);
      if (down) return `${down.server}: down over ${unit}s ${down.from}..${down.to - 1}`;
      return `${tl.servers[rows[row].server].id}: idle at ${unit} ${col}`;
    },
  });
}

/** Colours of the open-world marks (tests look for them in the canvas). */
const MARK = { down: "#868e96", cancel: "#e03131", lost: "#862e9c", interrupted: "#f08c00", capacity: "#f59f00" };

/** Bar index -> its timeline row. */
function barRows(rows, byRow) {
  const out = [];
  byRow.forEach((list, r) => { for (const i of list) out[i] = r; });
  return out;
}

/**
 * The marks of a run with events over a plot whose row r shows server `serverOfRow[r]`: each
 * server's down intervals as grey bands over its rows (no job holds a down server), a capacity
 * change as a thin amber line; where a job's bar ends at its cancellation a red bar, at an
 * interruption an amber one (purple when the job was lost). `barRow` (timeline only) gives each
 * bar's row; heatmaps pass none and show the server marks only.
 */
function openWorldOverlay(serverOfRow, barRow) {
  const tl = state.tl, ow = tl.open_world;
  const idx = new Map(tl.servers.map((s, i) => [s.id, i]));
  const rowsOf = tl.servers.map(() => []);
  serverOfRow.forEach((s, r) => rowsOf[s].push(r));
  const ends = []; // [column, row, colour]
  if (barRow) {
    const cancelAt = new Map(ow.cancels.map((c) => [c.job, c.at]));
    tl.bars.forEach((b, i) => {
      if (cancelAt.get(b.job) === b.end) ends.push([b.end, barRow[i], MARK.cancel, "✕"]);
      const cut = ow.cut.find((c) => c.job === b.job && c.at === b.end && idx.get(c.server) === b.server);
      if (cut) ends.push([b.end, barRow[i], cut.lost ? MARK.lost : MARK.interrupted, cut.lost ? "lost" : "cut"]);
    });
  }
  return (ctx, vp, vis) => {
    const inRows = (r) => r >= vis.r0 && r < vis.r1;
    ctx.fillStyle = MARK.down;
    for (const d of ow.down) {
      const s = idx.get(d.server);
      if (s === undefined || d.to <= vis.c0 || d.from >= vis.c1) continue;
      for (const r of rowsOf[s]) if (inRows(r)) ctx.fillRect(vp.x(d.from), vp.y(r), (d.to - d.from) * vp.kx, vp.ky);
    }
    ctx.fillStyle = MARK.capacity;
    for (const c of ow.capacity) {
      const s = idx.get(c.server);
      if (s === undefined || c.at < vis.c0 || c.at >= vis.c1) continue;
      for (const r of rowsOf[s]) if (inRows(r)) ctx.fillRect(vp.x(c.at) - 1, vp.y(r), 2, vp.ky);
    }
    ctx.font = "bold 11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    ctx.textAlign = "left";
    for (const [c, r, colour, label] of ends) {
      if (!inRows(r) || c < vis.c0 || c > vis.c1) continue;
      ctx.fillStyle = colour;
      const w = Math.max(3, Math.min(6, vp.kx / 2));
      ctx.fillRect(vp.x(c) - w, vp.y(r), w, Math.max(1, vp.ky));
      if (vp.ky >= 12 && vp.kx >= 6) ctx.fillText(label, vp.x(c) + 2, vp.y(r) + vp.ky / 2);
    }
  };
}

/** Timeline bars as vector shapes with labels, when rows and slots are large on screen. */
function drawBarsDetail(ctx, vp, vis, rows, byRow, jobOf) {
  const tl = state.tl, n = tl.jobs.length;
  const pad = Math.min(3, vp.ky / 6);
  ctx.strokeStyle = "#d5dae5";
  ctx.font = "10px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  ctx.textAlign = "left";
  for (let r = vis.r0; r < vis.r1; r++) {
    const y = vp.y(r);
    if (rows[r].first && r > 0) { ctx.beginPath(); ctx.moveTo(vp.x(vis.c0), y + 0.5); ctx.lineTo(vp.x(vis.c1), y + 0.5); ctx.stroke(); }
    for (const i of byRow[r]) {
      const b = tl.bars[i];
      if (b.end <= vis.c0 || b.start >= vis.c1) continue;
      const x = vp.x(b.start) + 1, w = Math.max(2, (b.end - b.start) * vp.kx - 2);
      ctx.fillStyle = jobColor(jobOf(i), n);
      ctx.beginPath();
      ctx.roundRect(x, y + pad, w, vp.ky - 2 * pad, Math.min(4, vp.ky / 4));
      ctx.fill();
      if (w > 34 && vp.ky >= 14) {
        ctx.fillStyle = "#fff";
        ctx.fillText(`${b.job} ${b.label}`, Math.max(x, 0) + 4, y + vp.ky / 2, w - 6);
      }
    }
  }
}

/** Heat colour of x in [0, 1] as hue, saturation, lightness: usage white -> blue -> dark;
 *  price white -> orange -> red. */
function heatHsl(x, scheme) {
  const v = Math.max(0, Math.min(1, x));
  if (scheme === "price") return [28 - 24 * v, 70 + 20 * v, 97 - 52 * v];
  return [215 + 10 * v, 55 + 25 * v, 97 - 60 * v];
}
function heatColor(x, scheme) {
  const [h, s, l] = heatHsl(x, scheme);
  return `hsl(${h} ${s}% ${l}%)`;
}

/** One heatmap (servers x steps) of `rows[s]`, server s's values as change points
 *  (`usage_series` form: never a dense servers x steps matrix), with its colour bar. */
function drawHeat(target, rows, scheme) {
  const tl = state.tl;
  const ns = tl.servers.length, nt = tl.steps;
  let max = 0, min = Infinity;
  for (const x of rows) for (let i = 1; i < x.length; i += 2) {
    if (x[i] > max) max = x[i];
    if (x[i] > 0 && x[i] < min) min = x[i];
  }
  // Prices grow exponentially with usage: colour them on a log scale between the smallest
  // positive and the largest price.
  const shade = scheme === "usage" ? (v) => v : (v) => (v <= 0 || max <= min ? (v > 0 ? 1 : 0) : Math.log(v / min) / Math.log(max / min));
  const lut = colourTable((x) => hslToRgb(...heatHsl(x, scheme)));
  const key = scheme === "usage" ? "usage" : "price";
  views[key]?.destroy();
  const plot = el("div", { class: "plot-canvas" });
  const bar = el("div", { class: "colorbar" },
    el("span", { text: scheme === "usage" ? "0" : fmt(min === Infinity ? 0 : min) }),
    el("i", { style: { background: `linear-gradient(to right, ${[0, 0.25, 0.5, 0.75, 1].map((x) => heatColor(x, scheme)).join(", ")})` } }),
    el("span", { text: scheme === "usage" ? "100%" : fmt(max) }));
  target.innerHTML = "";
  target.append(plot, bar);
  views[key] = new GridView(plot, {
    label: `${key} heatmap`, rows: ns, cols: nt, colUnit: tl.step_unit, left: 60, rowPx: 18, height: 360,
    rowLabel: (s) => tl.servers[s].id,
    paint: seriesPainter(rows, nt, shade, lut, () => state.heatAgg),
    overlay: tl.open_world ? openWorldOverlay(tl.servers.map((_, i) => i), null) : null,
    tip: (s, t, span) => {
      let v = 0;
      forSegments(rows[s], nt, t, t + 1, (_a, _b, x) => { v = x; });
      const cell = `${tl.servers[s].id}, ${tl.step_unit} ${t}: ${fmt(v)}`;
      if (span.r1 - span.r0 <= 1 && span.c1 - span.c0 <= 1) return cell;
      const mean = state.heatAgg === "mean";
      let agg = mean ? 0 : -Infinity;
      for (let r = span.r0; r < span.r1; r++) {
        forSegments(rows[r], nt, span.c0, span.c1, (a, b, x) => { agg = mean ? agg + x * (b - a) : Math.max(agg, x); });
      }
      if (mean) agg /= (span.r1 - span.r0) * (span.c1 - span.c0);
      return `${cell}\nthis pixel: ${state.heatAgg} ${fmt(agg)} over servers ${tl.servers[span.r0].id}..${tl.servers[span.r1 - 1].id}, ${tl.step_unit}s ${span.c0}..${span.c1 - 1}`;
    },
  });
}

/** Server s's series of resource r (or of every resource combined by `f`) from `perR[r][s]`. */
function seriesOf(perR, r, s, f) {
  return r >= 0 ? perR[r][s] : combineSeries(perR.map((per) => per[s]), f);
}

function drawHeatmaps() {
  const tl = state.tl;
  const r = state.heatRes;
  // Utilisation: used / capacity of the resource, or the dominant share over resources.
  const util = tl.servers.map((srv, s) => {
    const cap = srv.capacity;
    const share = (v, k) => (cap[k] > 0 ? v / cap[k] : 0);
    if (r >= 0) {
      const x = Float64Array.from(tl.usage_series[r][s]);
      for (let i = 1; i < x.length; i += 2) x[i] = share(x[i], r);
      return x;
    }
    return seriesOf(tl.usage_series, r, s, (vals) => vals.reduce((m, v, k) => Math.max(m, share(v, k)), 0));
  });
  drawHeat($("heat-usage"), util, "usage");
  const hasPrice = tl.price_series.length > 0;
  $("heat-price-box").hidden = !hasPrice;
  views.price?.destroy();
  views.price = null;
  if (hasPrice) {
    $("price-note").textContent = (r < 0 ? "sum over resources; " : "") + "log colour scale";
    $("price-note").title = tl.price_note;
    $("price-formula").textContent = tl.price_note;
    const price = tl.servers.map((_, s) => seriesOf(tl.price_series, r, s, (vals) => vals.reduce((a, v) => a + v, 0)));
    drawHeat($("heat-price"), price, "price");
    // The two heatmaps share their grid: zooming or panning one moves the other.
    views.usage.link(views.price);
    views.price.link(views.usage);
  }
}

// ---------------------------------------------------------------- per-step parts

function render() {
  if (!state.sim) return;
  const tl = state.tl, st = state.sim.state();
  $("scrub").value = String(st.step);
  $("clock").textContent = `${tl.step_unit} ${st.step} / ${tl.steps - 1}`;
  document.body.dataset.step = String(st.step);
  for (const v of Object.values(views)) v?.setCursor(st.step);
  renderDecisions(st);
  renderJobs(st);
  renderKind(st);
  $("play").textContent = state.timer ? "❚❚ Pause" : "▶ Play";
}

function renderDecisions(st) {
  const ol = $("decisions");
  ol.innerHTML = "";
  const past = state.tl.decisions.filter((d) => d.step <= st.step);
  for (const d of past.slice(-80).reverse()) {
    ol.append(el("li", { class: d.step === st.step ? "now" : "" },
      el("span", { class: "t", text: `${state.tl.step_unit === "slot" ? "t=" : "#"}${d.step}` }),
      el("span", { class: "tag " + d.action, text: d.action }),
      d.job ? el("b", { text: d.job + " " }) : null,
      document.createTextNode(d.text),
      d.record ? el("span", { class: "src", title: "from the kernel's decision record: " + JSON.stringify(d.record), text: " ⚙" }) : null));
  }
  if (!past.length) ol.append(el("li", { class: "empty", text: "no decision yet" }));
}

function renderJobs(st) {
  const t = $("jobs");
  t.innerHTML = "";
  t.append(el("tr", {}, el("th", { text: "job" }), el("th", { text: "arrives" }), el("th", { text: "runs" }), el("th", { text: "now" })));
  const all = state.tl.jobs.map((_, i) => i);
  // Many jobs: the running ones first, then input order, PANEL_ROWS in all.
  const shown = all.length <= PANEL_ROWS ? all
    : all.filter((i) => st.status[i] === "running").concat(all.filter((i) => st.status[i] !== "running")).slice(0, PANEL_ROWS);
  if (shown.length < all.length) t.append(el("tr", {}, el("td", { colspan: 4, class: "hint", text: `${shown.length} of ${all.length} jobs shown: running first` })));
  shown.forEach((i) => {
    const j = state.tl.jobs[i];
    const runs = j.start == null ? "–" : `${j.start}..${j.end - 1}`;
    t.append(el("tr", {}, el("td", {}, el("span", { class: "chip", style: { background: jobColor(i, state.tl.jobs.length) }, text: j.id })),
      el("td", { text: String(j.arrival) }), el("td", { text: runs }), el("td", {}, el("span", { class: "st " + st.status[i], text: state.tl.kind === "placement" && !state.tl.open_world ? (j.accepted ? "placed" : "not placed") : st.status[i] }))));
  });
}

function renderKind(st) {
  const p = $("kind-panel");
  p.innerHTML = "";
  const k = state.tl.open_world ? "open" : state.tl.kind;
  if (k === "placement") return renderPlacement(p, st);
  if (k === "preempt") return renderQueues(p, st);
  if (k === "route") return renderTopology(p, st);
  return renderServersNow(p, st);
}

function renderServersNow(p, st) {
  const tl = state.tl, ji = jobIndex();
  const t = el("table", { class: "now" });
  const head = el("tr", {}, el("th", { text: "server" }), ...tl.resources.map((r) => el("th", { text: r })), el("th", { text: "jobs now" }));
  t.append(head);
  const runningOn = tl.servers.map(() => []);
  for (const b of st.running) runningOn[tl.bars[b].server].push(tl.bars[b]);
  let list = tl.servers.map((_, i) => i);
  if (list.length > PANEL_ROWS) {
    // A whole cluster: the busiest servers now (utilisation, then jobs running), PANEL_ROWS of them.
    list = list.filter((i) => runningOn[i].length > 0 || st.utilisation[i] > 0)
      .sort((a, b) => st.utilisation[b] - st.utilisation[a] || runningOn[b].length - runningOn[a].length || a - b).slice(0, PANEL_ROWS);
  }
  list.forEach((i) => {
    const s = tl.servers[i];
    const jobs = runningOn[i];
    t.append(el("tr", {}, el("td", { text: s.id }),
      ...tl.resources.map((_, r) => el("td", { text: `${fmt(st.usage[i][r])} / ${fmt(s.capacity[r])}` + (st.price.length ? ` · p=${fmt(st.price[i][r])}` : "") })),
      el("td", {}, ...jobs.map((b) => el("span", { class: "chip", style: { background: jobColor(ji.get(b.job), tl.jobs.length) }, text: `${b.job} ${b.label}` })))));
  });
  const which = list.length < tl.servers.length ? ` — the ${list.length} busiest of ${tl.servers.length} servers` : "";
  p.append(el("h3", { text: `Servers at ${tl.step_unit} ${st.step}: used / capacity${st.price.length ? " · price" : ""}${which}` }), t);
}

function renderQueues(p, st) {
  const tl = state.tl, ji = jobIndex();
  const t = el("table", { class: "queues" });
  t.append(el("tr", {}, el("th", { text: "server" }), el("th", { text: "running" }), el("th", { text: "waiting in queue" })));
  tl.servers.forEach((s, i) => {
    const run = st.running.map((b) => tl.bars[b]).filter((b) => b.server === i);
    t.append(el("tr", {}, el("td", { text: `${s.id}${s.group === "cloud" ? " ☁" : ""}` }),
      el("td", {}, ...run.map((b) => el("span", { class: "chip", style: { background: jobColor(ji.get(b.job), tl.jobs.length) }, text: `${b.job}#${b.label.slice(1)}@w${b.lane}` }))),
      el("td", {}, ...(st.queues[i].length ? st.queues[i].map((q) => el("span", { class: "chip", style: { background: jobColor(ji.get(q.split("#")[0]) ?? 0, tl.jobs.length), opacity: 0.55 }, text: q })) : [el("span", { class: "empty", text: "empty" })]))));
  });
  const pre = tl.decisions.filter((d) => d.action === "preempt" && d.step <= st.step).length;
  p.append(el("h3", { text: `At slot ${st.step}: preemptions so far ${pre} (of ${tl.extra?.preemptions_replayed ?? 0})` }), t);
}

function renderPlacement(p, st) {
  const tl = state.tl, ji = jobIndex();
  const rounds = tl.extra?.rounds ?? [];
  const t = el("table", { class: "grid" });
  t.append(el("tr", {}, el("th", { text: "#" }), el("th", { text: "category K" }), ...tl.servers.map((s) => el("th", { text: s.id })), el("th", { text: "avg JCT (s)" }), el("th", { text: "fairness" })));
  rounds.forEach((r, i) => {
    const owner = tl.servers.map(() => null);
    for (const [job, ks] of Object.entries(r.assignment || {})) for (const k of ks) owner[k] = job;
    const tr = el("tr", { style: i === st.step ? { outline: "2px solid #e8590c" } : {} },
      el("td", { text: r.best ? "best" : String(i) }), el("td", { text: JSON.stringify(r.category) }),
      ...owner.map((o) => (o ? el("td", { class: "on", style: { background: jobColor(ji.get(o), tl.jobs.length) }, text: o }) : el("td", { text: "" }))),
      el("td", { text: r.avg_jct == null ? "–" : fmt(r.avg_jct) }), el("td", { text: r.fairness == null ? "–" : fmt(r.fairness) }));
    t.append(tr);
  });
  p.append(el("h3", { text: `Categories examined: ${tl.extra?.categories_examined ?? rounds.length} — each row is one matching-market outcome (GPU → job)` }), t);
  renderMarket(p, st);
}

/** The kernel's matching-market rounds (Algorithm 2) for the current step's category. */
function renderMarket(p, st) {
  const tl = state.tl, ji = jobIndex();
  const box = el("div", { id: "market" });
  p.append(box);
  const m = st.market;
  const classes = tl.extra?.market?.classes;
  if (!m || !classes) {
    box.append(el("p", { class: "hint", text: "Matching-market rounds: only for the kernel's own HAS / JPS run of this scenario." }));
    return;
  }
  const cname = (c) => `c${c}{${classes[c].workers.map((k) => "k" + k).join(",")}}`;
  const jobs = tl.jobs.map((j) => j.id);
  box.append(el("h3", { text: `Matching-market rounds for K = ${JSON.stringify(m.category)}: ${m.total_rounds} price update(s)` +
    `${m.unit_rounds !== m.total_rounds ? ` (${m.unit_rounds} unit raises)` : ""}, ${m.cleared ? "cleared" : "cap reached: exact solver decided"}` +
    `${m.truncated ? ` — first ${m.rounds.length} shown` : ""}` }));
  const t = el("table", { class: "grid market" });
  t.append(el("tr", {}, el("th", { text: "round" }), ...classes.map((_, c) => el("th", { text: "p " + cname(c) })),
    ...jobs.map((j) => el("th", { text: `${j} demands` })), el("th", { text: "then" })));
  for (const r of m.rounds) {
    const then = r.over == null
      ? "cleared: " + jobs.map((j, i) => `${j} ← ${classes.map((_, c) => r.counts[i * classes.length + c] ? `${r.counts[i * classes.length + c]}×${cname(c)}` : "").filter(Boolean).join(" ")}`).join("; ")
      : r.constricted ? `constricted set {${r.constricted_set.map(cname).join(" ")}}: raise ${cname(r.over)}` : `${cname(r.over)} over-demanded: raise its price`;
    t.append(el("tr", { "data-round": r.round, class: r.over == null ? "cleared" : "" }, el("td", { text: String(r.round) }),
      ...r.prices.map((x) => el("td", { class: "num", text: fmt(x) })),
      ...r.demand.map((d, i) => el("td", {}, ...d.strict.map((c) => el("span", { class: "chip", style: { background: jobColor(ji.get(jobs[i]), jobs.length) }, text: cname(c) })),
        ...(d.need ? [el("span", { class: "tie", text: ` ${d.need} of {${d.tied.map(cname).join(" ")}}` })] : []))),
      el("td", { text: then })));
  }
  box.append(t, el("p", { class: "hint", text: "Prices p_c per worker class (workers with identical throughput); a job demands its strictly preferred classes and `need` units among those tied at its K_i-th valuation (Gamma = rho − p). From the kernel's Market::run_traced." }));
}

function renderTopology(p, st) {
  const tl = state.tl, ji = jobIndex();
  const topo = tl.extra.topology;
  const ids = topo.nodes.map((n) => n.id);
  const adj = new Map(ids.map((id) => [id, []]));
  for (const l of topo.links) { adj.get(l.a)?.push(l.b); adj.get(l.b)?.push(l.a); }
  // Layers: BFS from the best-connected switch; leaves (compute, PS) go one below their parent.
  const switches = topo.nodes.filter((n) => n.kind === "switch");
  const bfs = (root) => {
    const depth = new Map([[root, 0]]);
    const queue = [root];
    while (queue.length) { const u = queue.shift(); for (const v of adj.get(u)) if (!depth.has(v)) { depth.set(v, depth.get(u) + 1); queue.push(v); } }
    return depth;
  };
  // Root = the graph's centre among switches (smallest eccentricity, then most links): the core.
  const ecc = (id) => Math.max(...bfs(id).values()) * 1000 - adj.get(id).length;
  const root = (switches.length ? switches : topo.nodes).map((n) => n.id).reduce((a, b) => (ecc(b) < ecc(a) ? b : a));
  const depth = bfs(root);
  for (const id of ids) if (!depth.has(id)) depth.set(id, 0);
  const maxD = Math.max(...depth.values());
  for (const n of topo.nodes) if (n.kind !== "switch") depth.set(n.id, maxD);
  const layers = [];
  for (const id of ids) (layers[depth.get(id)] ||= []).push(id);
  const W = 760, H = 90 * (layers.length) + 30;
  const pos = new Map();
  layers.forEach((layer, d) => {
    // Barycentric order: each node under the mean position of its neighbours one layer up.
    if (d > 0) {
      const key = (id) => { const xs = adj.get(id).filter((v) => depth.get(v) < d && pos.has(v)).map((v) => pos.get(v)[0]); return xs.length ? xs.reduce((a, b) => a + b) / xs.length : W; };
      layer.sort((a, b) => key(a) - key(b) || ids.indexOf(a) - ids.indexOf(b));
    }
    layer.forEach((id, i) => pos.set(id, [((i + 0.5) * W) / layer.length, 35 + d * 90]));
  });
  const svg = svgEl("svg", { width: W, height: H, id: "topology" });
  const active = tl.extra.routes.filter((r) => r.start <= st.step && st.step < r.end);
  const load = tl.extra.link_load;
  topo.links.forEach((l, i) => {
    const [x1, y1] = pos.get(l.a), [x2, y2] = pos.get(l.b);
    const u = (load[i]?.[st.step] ?? l.used) / l.capacity;
    svg.append(svgEl("line", { x1, y1, x2, y2, stroke: u > 1 ? "#c92a2a" : "#c5cad6", "stroke-width": 2 + 6 * Math.min(1, u) },
      svgEl("title", {}, `${l.a}–${l.b}: ${fmt(load[i]?.[st.step] ?? l.used)} / ${fmt(l.capacity)}`)));
    svg.append(svgEl("text", { x: (x1 + x2) / 2 + 4, y: (y1 + y2) / 2 - 3, "font-size": 9, fill: "#8a91a3" }, `${fmt(load[i]?.[st.step] ?? l.used)}/${fmt(l.capacity)}`));
  });
  active.forEach((r, k) => {
    const c = jobColor(ji.get(r.job), tl.jobs.length);
    for (const path of r.paths) {
      const pts = path.map((id) => pos.get(id)).filter(Boolean).map(([x, y]) => `${x + (k - active.length / 2) * 4},${y}`).join(" ");
      svg.append(svgEl("polyline", { points: pts, fill: "none", stroke: c, "stroke-width": 3, "stroke-linejoin": "round", opacity: 0.85 }, svgEl("title", {}, `${r.job}: ${path.join(" → ")}`)));
    }
  });
  for (const n of topo.nodes) {
    const [x, y] = pos.get(n.id);
    const used = state.tl.servers.findIndex((s) => s.id === n.id);
    const shape = n.kind === "switch" ? svgEl("rect", { x: x - 22, y: y - 12, width: 44, height: 24, rx: 5, fill: "#364fc7" })
      : n.kind === "ps" ? svgEl("polygon", { points: `${x},${y - 16} ${x + 18},${y} ${x},${y + 16} ${x - 18},${y}`, fill: "#e8590c" })
      : svgEl("rect", { x: x - 24, y: y - 14, width: 48, height: 28, rx: 3, fill: "#2b8a3e" });
    svg.append(shape, svgEl("text", { x, y: y + 4, "text-anchor": "middle", "font-size": 11, fill: "#fff", "font-weight": 600 }, n.id));
    if (used >= 0) svg.append(svgEl("text", { x, y: y + 27, "text-anchor": "middle", "font-size": 10, fill: "#2b8a3e" }, `${fmt(st.usage[used][0])}/${fmt(n.slots ?? 0)} slots`));
    const agg = active.find((r) => r.aggregation_node === n.id);
    if (agg) svg.append(svgEl("circle", { cx: x + 24, cy: y - 12, r: 6, fill: jobColor(ji.get(agg.job), tl.jobs.length) }, svgEl("title", {}, `aggregation node of ${agg.job}`)));
  }
  p.append(el("h3", { text: `At slot ${st.step}: ${active.length ? active.map((r) => r.job).join(", ") + " running; coloured lines = PS → worker paths" : "no job running"} · ■ switch ◆ PS ▬ compute · link width = load / capacity` }), svg);
}

// ---------------------------------------------------------------- controls

function stop() { if (state.timer) { clearInterval(state.timer); state.timer = null; } $("play").textContent = "▶ Play"; }
function play() {
  if (!state.sim) return;
  if (state.timer) return stop();
  if (state.sim.done) state.sim.reset();
  state.timer = setInterval(() => { if (!state.sim.step()) stop(); render(); }, Number($("speed").value));
  render();
}

function wire() {
  $("scenario").addEventListener("change", () => { selectBundled($("scenario").value); runCurrent(); });
  $("policy").addEventListener("change", runCurrent);
  $("run").addEventListener("click", runCurrent);
  $("play").addEventListener("click", play);
  $("step").addEventListener("click", () => { stop(); state.sim?.step(); render(); });
  $("back").addEventListener("click", () => { stop(); if (state.sim) { state.sim.seek(Math.max(0, state.sim.currentStep - 1)); render(); } });
  $("reset").addEventListener("click", () => { stop(); state.sim?.reset(); render(); });
  $("scrub").addEventListener("input", () => { stop(); state.sim?.seek(Number($("scrub").value)); render(); });
  $("speed").addEventListener("change", () => { if (state.timer) { stop(); play(); } });
  $("heat-resource").addEventListener("change", () => { state.heatRes = Number($("heat-resource").value); drawHeatmaps(); render(); });
  $("heat-agg").addEventListener("change", () => { state.heatAgg = $("heat-agg").value; views.usage?.request(); views.price?.request(); });
  $("file-scenario").addEventListener("change", async (ev) => {
    const f = ev.target.files[0];
    if (!f) return;
    state.scenarioText = await f.text();
    state.scenarioName = f.name;
    state.events = [];
    fillPolicies(kindOf(state.scenarioText));
    runCurrent();
  });
  $("file-events").addEventListener("change", async (ev) => {
    const f = ev.target.files[0];
    if (!f) return;
    try { state.events = parseEvents(await f.text()); } catch (e) { showRunError(e); return; }
    runCurrent();
  });
  $("file-result").addEventListener("change", async (ev) => {
    const f = ev.target.files[0];
    if (f) replayResult(await f.text());
  });
  document.addEventListener("keydown", (e) => {
    // Focused plots take arrows and +/- for zoom and pan (canvasview.js); forms take their keys.
    if (["SELECT", "INPUT", "TEXTAREA", "CANVAS"].includes(e.target.tagName)) return;
    if (e.key === " ") { e.preventDefault(); play(); }
    if (e.key === "ArrowRight") $("step").click();
    if (e.key === "ArrowLeft") $("back").click();
  });
}

async function main() {
  $("version").textContent = version();
  state.bundled = bundledScenarios();
  fillPicker();
  wire();
  state.whatIf = new WhatIf($("whatif"),
    () => ({ scenarioText: state.scenarioText, policy: state.tl.policy, tl: state.tl, step: state.sim?.currentStep ?? 0, Engine: api.Engine, events: state.events }),
    (events, name) => { state.events = events; state.scenarioName = `${state.scenarioName.replace(/ \(what-if\)$/, "")} (${name})`; runCurrent(); });
  const params = new URLSearchParams(location.search);
  // Live mode: the decisions of a running `mlsched serve` cluster as they stream (live.js).
  if (params.get("serve")) {
    state.live = startLive({ serve: params.get("serve"), cluster: params.get("cluster") ?? "", token: null, el, setStatus, showError });
    return;
  }
  const want = params.get("scenario");
  selectBundled(state.bundled.some((b) => b.name === want) ? want : state.bundled[0].name);
  await runCurrent();
}

// For tests and for teachers who want to drive the page from the console.
window.mlschedViz = {
  async load(name) { selectBundled(name); await runCurrent(); return document.body.dataset.ready; },
  /** Runs bundled scenario `name` (or a scenario document's JSON text) with `events` (an array
   *  of open-world events, or their JSON Lines text) and `policy` (default: the kind's own). */
  async runEvents(name, events, policy = null) {
    if (state.bundled.some((b) => b.name === name)) selectBundled(name);
    else { state.scenarioText = name; state.scenarioName = "custom"; fillPolicies(kindOf(name)); }
    if (policy) $("policy").value = policy;
    state.events = typeof events === "string" ? parseEvents(events) : events;
    await runCurrent();
    return document.body.dataset.ready;
  },
  /** The open-world events of the run shown, and its marks (down intervals, cancellations,
   *  interruptions, capacity changes; eventrun.js `openWorldMarks`), null for a closed-world run. */
  events: () => state.events,
  marks: () => state.tl?.open_world ?? null,
  /** The what-if panel (its `runs`: the scenario and events of each what-if engine run). */
  whatIfPanel: () => state.whatIf,
  /** Live mode's state (live.js): entries streamed, connection, errors. */
  live: () => state.live?.snapshot() ?? null,
  /** Live mode's canvas view (GridView). */
  liveView: () => state.live?.view() ?? null,
  async replay(scenarioText, resultText, name = "custom") { state.scenarioText = scenarioText; state.scenarioName = name; fillPolicies(kindOf(scenarioText)); await replayResult(resultText); return document.body.dataset.ready; },
  /** The kinds whose module the page has loaded. */
  loadedKinds,
  seek(t) { stop(); state.sim?.seek(t); render(); },
  resultJson: () => state.resultJson,
  firstJob: () => state.tl?.jobs[0]?.id,
  /** The timeline of the result shown (`Simulation.timeline()`). */
  timeline: () => state.tl,
  /** Where the last result's load went (ms): engine re-run, timeline, panels and canvas set-up. */
  timings: () => ({ ...state.timings }),
  /** The canvas views: {timeline, usage, price} (GridView, see canvasview.js). */
  views,
  /** Runs `n` zoom / pan steps on view `name`, each drawn in requestAnimationFrame as interaction
   *  draws them; returns per step the draw time (ms: the frame's JS and canvas work) and the
   *  latency from the input to the frame after the drawn one (ms: includes the browser's paint,
   *  quantised by the display's frame rate). */
  async frames(name, n = 60) {
    const v = views[name];
    const times = [], latency = [];
    const ops = [() => v.vp.zoomAt(v.vp.pw * 0.3, v.vp.ph * 0.4, 1.15), () => v.vp.panBy(-37, -23), () => v.vp.panBy(29, 17), () => v.vp.zoomAt(v.vp.pw * 0.6, v.vp.ph * 0.5, 1 / 1.1)];
    for (let i = 0; i < n; i++) {
      const t0 = performance.now();
      ops[i % ops.length]();
      v.changed();
      await new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)));
      latency.push(performance.now() - t0);
      times.push(v.stats.lastMs);
    }
    return { draw: times, latency };
  },
  /** Fills the what-if panel and runs it: `job` = id of a job to copy (arriving at the current
   *  step), `capacity` = {server, resource, value}; returns {edits, changed, logHash} or null. */
  whatIf({ job, capacity } = {}) {
    const w = state.whatIf;
    w.jobText.value = "";
    if (job) { w.template.value = job; w.copyJob(); }
    w.server.value = capacity ? String(capacity.server) : "";
    if (capacity) { w.resource.value = String(capacity.resource); w.capacity.value = String(capacity.value); }
    return w.run();
  },
};

main().catch((e) => { setStatus("could not start: " + e.message, "error"); showError(String(e.stack || e)); });
