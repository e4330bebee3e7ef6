// Live mode: the page opened with `?serve=http://127.0.0.1:PORT&cluster=NAME` draws the
// decisions of a running `mlsched serve` cluster as they stream (docs/serve.md: `GET
// /v1/clusters/NAME` for the cluster, then `GET /v1/clusters/NAME/decisions?after=SEQ` as a
// server-sent-event stream, one `{seq, event, decisions}` per durable event). The page is served
// from another origin than the service: the service answers these read-only GETs with
// `Access-Control-Allow-Origin: *` (serve/src/cors.rs). The browser's EventSource sends no
// `Authorization`, so live mode needs a service without `--token-file` (loopback).
//
// Drawn: one row per job the stream names (a submission's id, an arrival's id, else `job #i`)
// and per server an event names; a cell per decision at the slot its record names (else its
// event's; green: placed, admitted or started, red: refused, cancelled or lost, amber:
// interrupted, blue: any other record), a submission (light blue), a cancellation (red) and
// each server's down interval (grey, open until `server_up`); the decision list shows every
// streamed event with its decisions, newest first.
import { GridView, barPainter } from "./canvasview.js";
import { eventText, decisionText } from "./eventrun.js";

const $ = (id) => document.getElementById(id);
const RGB = { admit: [47, 158, 68], refuse: [224, 49, 49], cut: [240, 140, 0], other: [54, 79, 199], submit: [116, 143, 252], down: [134, 142, 150], cancel: [224, 49, 49] };

/** The outcome colour of one decision record (its name and admitted / scheduled fields). */
function outcome(d) {
  const x = d.data ?? {}, name = d.record ?? "";
  if (x.admitted === false || x.scheduled === false || /reject|cancel|lost/.test(name)) return "refuse";
  if (/interrupt/.test(name)) return "cut";
  if (x.admitted === true || x.scheduled === true || /start|placed|admit|schedul|dispatch|route/.test(name)) return "admit";
  return "other";
}

/** Starts live mode; returns {snapshot(), view(), close()}. `ui` = {serve, cluster, el, setStatus, showError}. */
export function startLive(ui) {
  const base = ui.serve.replace(/\/+$/, "");
  const live = { info: null, entries: [], seen: new Set(), connected: false, ended: "", errors: [], view: null, pending: 0 };
  document.body.classList.add("live");
  for (const id of ["heat-card", "kind-card", "whatif-card", "controls", "paper"]) if ($(id)) $(id).hidden = true;
  $("timeline-card").querySelector("h2").firstChild.textContent = `Live: decisions of cluster ${ui.cluster} `;
  ui.setStatus(`live: connecting to ${base} …`, "idle");
  const url = (p) => `${base}/v1/clusters/${encodeURIComponent(ui.cluster)}${p}`;
  const source = { es: null };
  fetch(url(""))
    .then(async (r) => {
      const body = await r.json().catch(() => ({}));
      if (!r.ok) throw new Error(body?.error?.message ?? `HTTP ${r.status}`);
      return body;
    })
    .then((info) => {
      live.info = info;
      renderInfo(ui, live);
      const es = new EventSource(url("/decisions?after=0"));
      source.es = es;
      es.addEventListener("open", () => { live.connected = true; status(ui, live); });
      es.addEventListener("decisions", (m) => {
        let item;
        try { item = JSON.parse(m.data); } catch { return; }
        // A reconnection starts again from `after=0`: each seq is drawn once.
        if (live.seen.has(item.seq)) return;
        live.seen.add(item.seq);
        live.entries.push(item);
        live.entries.sort((a, b) => a.seq - b.seq);
        if (!live.pending) live.pending = requestAnimationFrame(() => { live.pending = 0; draw(ui, live); });
      });
      for (const end of ["finished", "deleted"]) es.addEventListener(end, () => { live.ended = end; es.close(); status(ui, live); });
      es.addEventListener("error", () => { live.connected = false; status(ui, live); });
      document.body.dataset.ready = "live";
      draw(ui, live);
    })
    .catch((e) => {
      live.errors.push(e.message);
      ui.showError(`live: ${url("")}: ${e.message}`);
      ui.setStatus("live: cannot reach the cluster", "error");
      document.body.dataset.ready = "error";
    });
  return {
    snapshot: () => ({ info: live.info, seq: live.entries.at(-1)?.seq ?? 0, entries: live.entries.length,
      decisions: live.entries.reduce((n, e) => n + e.decisions.length, 0), connected: live.connected, ended: live.ended, errors: [...live.errors] }),
    view: () => live.view,
    close: () => source.es?.close(),
  };
}

function status(ui, live) {
  if (live.info) renderInfo(ui, live);
  const n = live.entries.length;
  const what = live.ended ? `cluster ${live.ended}` : live.connected ? "streaming" : "reconnecting…";
  ui.setStatus(`live: ${live.info?.name} (${live.info?.kind}, ${live.info?.policy}) — ${n} event(s) up to seq ${live.entries.at(-1)?.seq ?? 0}, ${what}`, live.connected || live.ended ? "ok" : "idle");
}

function renderInfo(ui, live) {
  const t = $("summary");
  t.innerHTML = "";
  const now = { ...live.info, seq: Math.max(live.info.seq ?? 0, live.entries.at(-1)?.seq ?? 0), finished: live.info.finished || live.ended === "finished" };
  for (const k of ["name", "kind", "policy", "jobs", "seq", "finished"]) {
    t.append(ui.el("tr", { "data-key": "live." + k }, ui.el("td", { text: k === "jobs" ? "jobs listed" : k }), ui.el("td", { text: String(now[k]) })));
  }
}

/** Rows (jobs, then servers), the cells to paint and the down intervals, from the entries. */
function model(live) {
  const listed = live.info?.jobs ?? 0;
  const ids = new Map(); // job index -> id
  let submitted = 0, last = 0;
  const jobRow = new Map(), serverRow = new Map(), rows = [];
  const rowOfJob = (key, label) => { if (!jobRow.has(key)) { jobRow.set(key, rows.length); rows.push({ label, kind: "job", key }); } return jobRow.get(key); };
  const cells = [], downOpen = new Map(), down = [];
  for (const e of live.entries) {
    const ev = e.event ?? {}, at = ev.at ?? last;
    last = Math.max(last, at);
    if (ev.event === "submit" && ev.job?.id != null) { ids.set(listed + submitted, ev.job.id); submitted++; cells.push({ row: rowOfJob(ev.job.id, ev.job.id), at, host: true, rgb: RGB.submit, text: `t=${at} ${ev.job.id} submitted (seq ${e.seq})` }); }
    if (ev.event === "arrive" && typeof ev.job === "string") rowOfJob(ev.job, ev.job);
    if (ev.event === "cancel") cells.push({ row: rowOfJob(ev.job, ev.job), at, host: true, rgb: RGB.cancel, text: `t=${at} ${ev.job} cancelled (seq ${e.seq})` });
    if (typeof ev.server === "string") {
      if (!serverRow.has(ev.server)) { serverRow.set(ev.server, null); }
      if (ev.event === "server_down") downOpen.set(ev.server, at);
      if (ev.event === "server_up" && downOpen.has(ev.server)) { down.push({ server: ev.server, from: downOpen.get(ev.server), to: at }); downOpen.delete(ev.server); }
    }
    for (const d of e.decisions) {
      if (d.job == null) continue;
      const id = ids.get(d.job) ?? (ev.event === "arrive" && typeof ev.job === "string" ? ev.job : null);
      if (id != null) ids.set(d.job, id);
      const key = id ?? `#${d.job}`;
      // At the slot the record names (a decision of a wake-up before the event), else the event's.
      const slot = Number.isInteger(d.data?.slot) && d.data.slot <= at ? d.data.slot : at;
      cells.push({ row: rowOfJob(key, id ?? `job #${d.job}`), at: slot, rgb: RGB[outcome(d)], text: `t=${slot} seq ${e.seq}: ${key} ${decisionText(d)}` });
    }
  }
  const cols = last + 2;
  for (const [server, from] of downOpen) down.push({ server, from, to: cols });
  for (const s of serverRow.keys()) { serverRow.set(s, rows.length); rows.push({ label: `server ${s}`, kind: "server", key: s }); }
  return { rows, cells, down, serverRow, cols, ids };
}

function draw(ui, live) {
  status(ui, live);
  const m = model(live);
  const bars = [], byRow = Array.from({ length: Math.max(1, m.rows.length) }, () => []);
  const add = (row, start, end, rgb, text) => { byRow[row].push(bars.length); bars.push({ start, end, rgb, text }); };
  for (const d of m.down) add(m.serverRow.get(d.server), d.from, d.to, RGB.down, `${d.server} down over slots ${d.from}..${d.to - 1}`);
  // The host's submissions and cancellations last: drawn over the decisions of their slot.
  for (const c of m.cells) if (!c.host) add(c.row, c.at, c.at + 1, c.rgb, c.text);
  for (const c of m.cells) if (c.host) add(c.row, c.at, c.at + 1, c.rgb, c.text);
  live.view?.destroy();
  $("legend").innerHTML = "";
  for (const [k, text] of [["admit", "placed / admitted / started"], ["refuse", "refused, cancelled, lost"], ["cut", "interrupted"], ["other", "other decision"], ["submit", "submitted"], ["down", "server down"]]) {
    $("legend").append(ui.el("span", { style: { "--c": `rgb(${RGB[k].join(",")})` }, text }));
  }
  live.view = new GridView($("timeline"), {
    label: "live decisions", rows: Math.max(1, m.rows.length), cols: m.cols, colUnit: "slot",
    rowLabel: (r) => m.rows[r]?.label ?? "", rowBand: (r) => r % 2,
    paint: barPainter(bars, byRow, (i) => bars[i].rgb),
    tip: (row, col) => {
      const hit = (byRow[row] ?? []).map((i) => bars[i]).filter((b) => b.start <= col && col < b.end);
      return hit.length ? hit.map((b) => b.text).join("\n") : `${m.rows[row]?.label ?? ""}: slot ${col}`;
    },
  });
  renderDecisions(ui, live, m.ids);
}

function renderDecisions(ui, live, ids) {
  const ol = $("decisions");
  ol.innerHTML = "";
  for (const e of live.entries.slice(-80).reverse()) {
    const ev = e.event ?? {};
    ol.append(ui.el("li", { "data-seq": String(e.seq) },
      ui.el("span", { class: "t", text: `t=${ev.at ?? "?"}` }),
      ui.el("span", { class: "tag " + (ev.event ?? ""), text: ev.event ?? "event" }),
      ui.el("b", { text: `#${e.seq} ` }),
      document.createTextNode(eventText(ev) + (e.decisions.length ? ` → ${e.decisions.length} decision(s): ` : "")),
      ...e.decisions.slice(0, 6).map((d) => ui.el("div", { class: "live-decision", text: `${d.job == null ? "" : (ids.get(d.job) ?? "job #" + d.job) + " "}${decisionText(d)}` }))));
  }
  if (!live.entries.length) ol.append(ui.el("li", { class: "empty", text: "no event yet: waiting for the stream" }));
}
