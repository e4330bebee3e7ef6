// The mlsched visualiser: runs scenarios with the wasm kernel (the CLI's own code) and draws the
// replayed decisions. No dependencies, no network: everything is in this folder.
import init, { run, runWith, bundledScenarios, policies, version, Simulation } from "./mlsched/mlsched.js";

const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";

const PAPERS = {
  oasis: "<b>OASiS</b> — Bao et al., INFOCOM 2018: <i>online job scheduling in distributed ML clusters</i>. Each arriving job is admitted only if its best schedule's utility exceeds its cost at the current <b>resource prices</b>, which rise exponentially with usage (eq. 22). Watch the price heatmap climb where jobs land, and late jobs get rejected.",
  online: "<b>Zhou et al.</b>, 2022: <i>online scheduling to minimise weighted completion time</i> with parameter servers or Ring-AllReduce. A primal-dual algorithm prices server resources by λ^(used/capacity) − 1 (eq. 11) and picks each job's worker type, count and start to minimise weighted completion time.",
  placement: "<b>HAS / JPS</b> — Liu et al., 2024: <i>heterogeneity-aware job placement</i>. For every category K (how many GPUs each job gets) a matching market assigns heterogeneous GPUs to jobs; the best category by average JCT wins. Step through the categories examined.",
  preempt: "<b>Wang et al.</b>, 2022: <i>preemptive chunk scheduling in edge-cloud</i>. Jobs are split into chunks dispatched to edge workers (with upload delays) or the cloud; a worker's queue is preemptive, so short chunks overtake long ones. Watch the queues and the preemptions.",
  route: "<b>CSRP</b> — Song et al., 2023: <i>compute-server selection and routing for parameter-server jobs</i>. Each job gets compute nodes and PS→worker paths (optionally aggregated at a switch) minimising network cost under deadlines. The topology shows the chosen paths of running jobs.",
};

const state = { bundled: [], scenarioText: "", scenarioName: "", sim: null, tl: null, timer: null, heatRes: -1, resultJson: "" };

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

function jobColor(i, n) {
  const h = Math.round((i * 360) / Math.max(n, 1) + 210) % 360;
  return `hsl(${h} 62% 52%)`;
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
  $("scenario").value = name;
  fillPolicies(s.kind);
}

/** Runs the current scenario: the summary comes from `run` (byte-identical to the CLI). */
function runCurrent() {
  stop();
  const kind = kindOf(state.scenarioText);
  $("paper").innerHTML = PAPERS[kind] || "Scenario of unknown kind.";
  const policy = $("policy").value;
  const own = policies(kind)[0];
  const pol = policy && policy !== own ? policy : null;
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
  show(sim, result, `${state.scenarioName} — ran in the browser`);
}

function replayResult(resultText) {
  stop();
  let sim;
  try {
    sim = Simulation.fromResult(state.scenarioText, resultText);
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
  for (const id of ["timeline", "heat-usage", "heat-price", "kind-panel", "decisions", "jobs", "legend"]) $(id).innerHTML = "";
  $("clock").textContent = "–";
  document.body.dataset.ready = "error";
}

function show(sim, resultText, label) {
  if (state.sim) state.sim.free();
  state.sim = sim;
  state.tl = sim.timeline();
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
  renderSummary(JSON.parse(resultText));
  renderStatic();
  render();
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

function jobIndex() {
  const m = new Map();
  state.tl.jobs.forEach((j, i) => m.set(j.id, i));
  return m;
}

function renderStatic() {
  const tl = state.tl;
  const ji = jobIndex();
  const legend = $("legend");
  legend.innerHTML = "";
  tl.jobs.forEach((j, i) => legend.append(el("span", { style: { "--c": jobColor(i, tl.jobs.length) }, text: j.id + (j.accepted ? "" : " (not run)") })));
  $("timeline-hint").textContent = tl.step_unit === "category" ? "x = categories examined (last = chosen)" : "x = time slots";
  drawTimeline(ji);
  drawHeatmaps();
  $("heat-card").hidden = tl.kind === "placement";
  // Placement has no time axis: the rounds table below is its timeline.
  $("timeline-card").hidden = tl.kind === "placement";
  $("kind-title").textContent = { oasis: "Admission and pricing", online: "Placements", placement: "Matching-market rounds (categories)", preempt: "Worker queues and preemptions", route: "Topology and chosen paths" }[tl.kind];
}

function lanesOf() {
  // Rows of the timeline: one per (server, lane). Preempt bars carry their worker as lane;
  // elsewhere overlapping bars on one server are packed greedily into extra lanes.
  const tl = state.tl;
  const laneOfBar = tl.bars.map((b) => b.lane);
  if (tl.kind !== "preempt") {
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
    const n = Math.max(lanes.get(i) ?? 1, tl.kind === "preempt" && s.capacity[0] > 0 ? s.capacity[0] : 1);
    for (let l = 0; l < n; l++) rows.push({ server: i, lane: l, label: l === 0 ? s.id : tl.kind === "preempt" ? `${s.id} · w${l}` : "", first: l === 0 });
    if (tl.kind === "preempt" && n > 1) rows[rows.length - n].label = `${s.id} · w0`;
  });
  return { rows, laneOfBar };
}

function drawTimeline(ji) {
  const tl = state.tl;
  const { rows, laneOfBar } = lanesOf();
  const rowH = 22, left = 110, top = 20;
  const cw = Math.max(6, Math.min(48, Math.floor(820 / tl.steps)));
  const w = left + cw * tl.steps + 10, h = top + rowH * rows.length + 6;
  const svg = svgEl("svg", { width: w, height: h, id: "timeline-svg" });
  const rowOf = new Map(rows.map((r, i) => [`${r.server}/${r.lane}`, i]));
  rows.forEach((r, i) => {
    svg.append(svgEl("rect", { x: left, y: top + i * rowH, width: cw * tl.steps, height: rowH, fill: r.server % 2 ? "#fafbfd" : "#eef1f7" }));
    if (r.first && i > 0) svg.append(svgEl("line", { x1: left, x2: left + cw * tl.steps, y1: top + i * rowH, y2: top + i * rowH, stroke: "#d5dae5" }));
    svg.append(svgEl("text", { x: left - 6, y: top + i * rowH + 15, "text-anchor": "end", "font-size": 11, fill: "#4a5163" }, r.label));
  });
  const tick = Math.max(1, Math.ceil(tl.steps / 20));
  for (let t = 0; t < tl.steps; t += tick) {
    svg.append(svgEl("text", { x: left + t * cw + cw / 2, y: 13, "text-anchor": "middle", "font-size": 10, fill: "#6b7385" }, String(t)));
  }
  tl.bars.forEach((b, i) => {
    const r = rowOf.get(`${b.server}/${laneOfBar[i]}`) ?? rowOf.get(`${b.server}/0`);
    if (r === undefined) return;
    const jx = ji.get(b.job) ?? 0;
    const g = svgEl("g", { class: "bar", "data-bar": i });
    g.append(svgEl("rect", { x: left + b.start * cw + 1, y: top + r * rowH + 3, width: Math.max(2, (b.end - b.start) * cw - 2), height: rowH - 6, rx: 4, fill: jobColor(jx, tl.jobs.length) },
      svgEl("title", {}, `${b.job} on ${tl.servers[b.server].id}: ${tl.step_unit}s ${b.start}..${b.end - 1} (${b.label})`)));
    if ((b.end - b.start) * cw > 34) svg.append(g, svgEl("text", { x: left + b.start * cw + 5, y: top + r * rowH + 15, "font-size": 10, fill: "#fff", "pointer-events": "none" }, `${b.job} ${b.label}`));
    else svg.append(g);
  });
  svg.append(svgEl("rect", { id: "tl-cursor", x: left, y: top - 2, width: cw, height: rowH * rows.length + 4, fill: "none", stroke: "#e8590c", "stroke-width": 2, rx: 2 }));
  svg.dataset.left = left; svg.dataset.cw = cw;
  $("timeline").innerHTML = "";
  $("timeline").append(svg);
}

function heatColor(x, scheme) {
  // x in [0, 1]; usage: white -> blue -> dark; price: white -> orange -> red.
  const v = Math.max(0, Math.min(1, x));
  if (scheme === "price") return `hsl(${28 - 24 * v} ${70 + 20 * v}% ${97 - 52 * v}%)`;
  return `hsl(${215 + 10 * v} ${55 + 25 * v}% ${97 - 60 * v}%)`;
}

function drawHeat(target, matrixFor, scheme, title) {
  const tl = state.tl;
  const left = 60, top = 18, rowH = 18;
  const cw = Math.max(3, Math.min(24, Math.floor(320 / tl.steps)));
  const ns = tl.servers.length;
  const svg = svgEl("svg", { width: left + cw * tl.steps + 50, height: top + rowH * ns + 8 });
  let max = 0;
  const cells = [];
  for (let s = 0; s < ns; s++) {
    cells.push([]);
    for (let t = 0; t < tl.steps; t++) { const v = matrixFor(s, t); cells[s].push(v); if (v > max) max = v; }
  }
  // Prices grow exponentially with usage: colour them on a log scale between the smallest
  // positive and the largest price.
  let min = Infinity;
  for (const row of cells) for (const v of row) if (v > 0 && v < min) min = v;
  const shade = scheme === "usage" ? (v) => v : (v) => (v <= 0 || max <= min ? (v > 0 ? 1 : 0) : Math.log(v / min) / Math.log(max / min));
  for (let s = 0; s < ns; s++) {
    svg.append(svgEl("text", { x: left - 5, y: top + s * rowH + 13, "text-anchor": "end", "font-size": 11, fill: "#4a5163" }, tl.servers[s].id));
    for (let t = 0; t < tl.steps; t++) {
      const v = cells[s][t];
      svg.append(svgEl("rect", { x: left + t * cw, y: top + s * rowH, width: cw, height: rowH - 2, fill: heatColor(shade(v), scheme) },
        svgEl("title", {}, `${tl.servers[s].id}, ${tl.step_unit} ${t}: ${fmt(v)}`)));
    }
  }
  const tick = Math.max(1, Math.ceil(tl.steps / 10));
  for (let t = 0; t < tl.steps; t += tick) svg.append(svgEl("text", { x: left + t * cw, y: 12, "font-size": 10, fill: "#6b7385" }, String(t)));
  // colour bar
  const bx = left + cw * tl.steps + 10;
  for (let i = 0; i < 10; i++) svg.append(svgEl("rect", { x: bx, y: top + (9 - i) * ((rowH * ns) / 10), width: 10, height: (rowH * ns) / 10 + 0.5, fill: heatColor(i / 9, scheme) }));
  svg.append(svgEl("text", { x: bx + 13, y: top + 8, "font-size": 9, fill: "#6b7385" }, scheme === "usage" ? "100%" : fmt(max)));
  svg.append(svgEl("text", { x: bx + 13, y: top + rowH * ns, "font-size": 9, fill: "#6b7385" }, scheme === "usage" ? "0" : fmt(min === Infinity ? 0 : min)));
  svg.append(svgEl("rect", { class: "heat-cursor", x: left, y: top - 2, width: cw, height: rowH * ns + 2, fill: "none", stroke: "#e8590c", "stroke-width": 2 }));
  svg.dataset.left = left; svg.dataset.cw = cw;
  target.innerHTML = "";
  target.append(svg);
}

function drawHeatmaps() {
  const tl = state.tl;
  const r = state.heatRes;
  const util = (s, t) => {
    const cap = tl.servers[s].capacity;
    if (r >= 0) return cap[r] > 0 ? tl.usage[r][s][t] / cap[r] : 0;
    let m = 0;
    for (let k = 0; k < tl.resources.length; k++) if (cap[k] > 0) m = Math.max(m, tl.usage[k][s][t] / cap[k]);
    return m;
  };
  drawHeat($("heat-usage"), util, "usage");
  const hasPrice = tl.price.length > 0;
  $("heat-price-box").hidden = !hasPrice;
  if (hasPrice) {
    $("price-note").textContent = (r < 0 ? "sum over resources; " : "") + "log colour scale";
    $("price-note").title = tl.price_note;
    $("price-formula").textContent = tl.price_note;
    const price = (s, t) => (r >= 0 ? tl.price[r][s][t] : tl.price.reduce((a, pr) => a + pr[s][t], 0));
    drawHeat($("heat-price"), price, "price");
  }
}

// ---------------------------------------------------------------- per-step parts

function render() {
  if (!state.sim) return;
  const tl = state.tl, st = state.sim.state();
  $("scrub").value = String(st.step);
  $("clock").textContent = `${tl.step_unit} ${st.step} / ${tl.steps - 1}`;
  document.body.dataset.step = String(st.step);
  for (const svg of document.querySelectorAll("#timeline svg, #heat-usage svg, #heat-price svg")) {
    const c = svg.querySelector("#tl-cursor, .heat-cursor");
    if (c) c.setAttribute("x", String(Number(svg.dataset.left) + st.step * Number(svg.dataset.cw)));
  }
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
  state.tl.jobs.forEach((j, i) => {
    const runs = j.start == null ? "–" : `${j.start}..${j.end - 1}`;
    t.append(el("tr", {}, el("td", {}, el("span", { class: "chip", style: { background: jobColor(i, state.tl.jobs.length) }, text: j.id })),
      el("td", { text: String(j.arrival) }), el("td", { text: runs }), el("td", {}, el("span", { class: "st " + st.status[i], text: state.tl.kind === "placement" ? (j.accepted ? "placed" : "not placed") : st.status[i] }))));
  });
}

function renderKind(st) {
  const p = $("kind-panel");
  p.innerHTML = "";
  const k = state.tl.kind;
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
  tl.servers.forEach((s, i) => {
    const jobs = st.running.map((b) => tl.bars[b]).filter((b) => b.server === i);
    t.append(el("tr", {}, el("td", { text: s.id }),
      ...tl.resources.map((_, r) => el("td", { text: `${fmt(st.usage[i][r])} / ${fmt(s.capacity[r])}` + (st.price.length ? ` · p=${fmt(st.price[i][r])}` : "") })),
      el("td", {}, ...jobs.map((b) => el("span", { class: "chip", style: { background: jobColor(ji.get(b.job), tl.jobs.length) }, text: `${b.job} ${b.label}` })))));
  });
  p.append(el("h3", { text: `Servers at ${tl.step_unit} ${st.step}: used / capacity${st.price.length ? " · price" : ""}` }), t);
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
  $("file-scenario").addEventListener("change", async (ev) => {
    const f = ev.target.files[0];
    if (!f) return;
    state.scenarioText = await f.text();
    state.scenarioName = f.name;
    fillPolicies(kindOf(state.scenarioText));
    runCurrent();
  });
  $("file-result").addEventListener("change", async (ev) => {
    const f = ev.target.files[0];
    if (f) replayResult(await f.text());
  });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "SELECT" || e.target.tagName === "INPUT") return;
    if (e.key === " ") { e.preventDefault(); play(); }
    if (e.key === "ArrowRight") $("step").click();
    if (e.key === "ArrowLeft") $("back").click();
  });
}

async function main() {
  await init();
  $("version").textContent = version();
  state.bundled = bundledScenarios();
  fillPicker();
  wire();
  const want = new URLSearchParams(location.search).get("scenario");
  selectBundled(state.bundled.some((b) => b.name === want) ? want : state.bundled[0].name);
  runCurrent();
}

// For tests and for teachers who want to drive the page from the console.
window.mlschedViz = {
  load(name) { selectBundled(name); runCurrent(); return document.body.dataset.ready; },
  replay(scenarioText, resultText, name = "custom") { state.scenarioText = scenarioText; state.scenarioName = name; fillPolicies(kindOf(scenarioText)); replayResult(resultText); return document.body.dataset.ready; },
  seek(t) { stop(); state.sim?.seek(t); render(); },
  resultJson: () => state.resultJson,
};

main().catch((e) => { setStatus("could not start: " + e.message, "error"); showError(String(e.stack || e)); });
