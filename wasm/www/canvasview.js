// Zoomable, pannable canvas plots of a grid of rows (servers, or server lanes) by columns (time
// slots or steps), drawn at any size: the whole openb cluster is 1,523 servers, so the plots draw
// into one <canvas> each instead of one DOM node per cell.
//
// - Device pixels: the canvas backing store is CSS size x devicePixelRatio.
// - Zoom and pan: wheel zooms around the cursor (Shift: time axis only), drag pans, the keys
//   + / - / arrows / 0 do the same when the plot has focus, and the toolbar resets.
// - Level of detail: each frame draws a raster of "buckets": one per cell when a cell is at least
//   a device pixel, else one per device pixel, holding the aggregate of the cells it covers
//   (heatmaps: max or mean; timelines: a job running in any covered row). The raster is scaled
//   onto the plot with smoothing off, so a frame costs O(visible cells + pixels).
// - Only the visible rows and columns are visited, and a frame is drawn at most once per
//   requestAnimationFrame however many events asked for it.
// - Tooltips hit-test the grid under the pointer (no DOM node per cell).

/** Bytes per bucket in the raster (RGBA). */
const RGBA = 4;
/** Smallest zoom: the whole grid fits; largest: this many CSS px per cell, or 4x the fit for a
 *  grid that fits at a larger size already (a small scenario can still be zoomed). */
const MAX_COL_PX = 64;
const MAX_ROW_PX = 28;
const MIN_ZOOM_RANGE = 4;
/** Fraction of the visible span that an arrow key pans. */
const KEY_PAN = 0.1;
const KEY_ZOOM = 1.25;

/** `hsl(h s% l%)` as [r, g, b] in 0..255 (for the raster, which takes bytes, not CSS). */
export function hslToRgb(h, s, l) {
  s /= 100; l /= 100;
  const k = (n) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [Math.round(255 * f(0)), Math.round(255 * f(8)), Math.round(255 * f(4))];
}

/** The geometry of one plot: which cells are visible and where they land, in CSS pixels. */
class Viewport {
  constructor(rows, cols) {
    this.rows = rows; this.cols = cols;
    this.pw = 1; this.ph = 1;       // plot area (CSS px)
    this.kx = 1; this.ky = 1;       // CSS px per column / row
    this.x0 = 0; this.y0 = 0;       // first visible column / row (fractional)
  }
  get fitKx() { return Math.min(this.pw / this.cols, MAX_COL_PX); }
  get fitKy() { return Math.min(this.ph / this.rows, MAX_ROW_PX); }
  reset() { this.kx = this.fitKx; this.ky = this.fitKy; this.x0 = 0; this.y0 = 0; }
  /** Keeps the zoom within [fit, max] and the view inside the grid. */
  clamp() {
    this.kx = Math.min(Math.max(this.kx, this.fitKx), Math.max(this.fitKx * MIN_ZOOM_RANGE, MAX_COL_PX));
    this.ky = Math.min(Math.max(this.ky, this.fitKy), Math.max(this.fitKy * MIN_ZOOM_RANGE, MAX_ROW_PX));
    this.x0 = Math.min(Math.max(0, this.x0), Math.max(0, this.cols - this.pw / this.kx));
    this.y0 = Math.min(Math.max(0, this.y0), Math.max(0, this.rows - this.ph / this.ky));
  }
  /** Zooms by (fx, fy) keeping the cell under plot point (px, py) where it is. */
  zoomAt(px, py, fx, fy = fx) {
    const wx = this.x0 + px / this.kx, wy = this.y0 + py / this.ky;
    this.kx *= fx; this.ky *= fy;
    this.clamp();
    this.x0 = wx - px / this.kx; this.y0 = wy - py / this.ky;
    this.clamp();
  }
  panBy(dx, dy) { this.x0 -= dx / this.kx; this.y0 -= dy / this.ky; this.clamp(); }
  /** Visible [c0, c1) x [r0, r1), whole cells. */
  visible() {
    return {
      c0: Math.floor(this.x0), c1: Math.min(this.cols, Math.ceil(this.x0 + this.pw / this.kx)),
      r0: Math.floor(this.y0), r1: Math.min(this.rows, Math.ceil(this.y0 + this.ph / this.ky)),
    };
  }
  x(col) { return (col - this.x0) * this.kx; }
  y(row) { return (row - this.y0) * this.ky; }
  colAt(px) { return Math.floor(this.x0 + px / this.kx); }
  rowAt(py) { return Math.floor(this.y0 + py / this.ky); }
}

/** `n` cells split into `m` <= n buckets: bucket of each cell, and each bucket's first cell. */
function buckets(n, m) {
  const of = new Int32Array(n), first = new Int32Array(m + 1);
  for (let b = 0; b <= m; b++) first[b] = Math.floor((b * n) / m);
  for (let b = 0; b < m; b++) for (let i = first[b]; i < first[b + 1]; i++) of[i] = b;
  return { of, first };
}

/** Steps between tick labels so that they are at least `minPx` apart: 1, 2, 5, 10, 20, ... */
function tickStep(pxPerUnit, minPx) {
  for (let m = 1; ; m *= 10) for (const s of [1, 2, 5]) if (s * m * pxPerUnit >= minPx) return s * m;
}

/**
 * One zoomable grid plot in `host`. `spec`:
 * - `rows`, `cols`: grid size; `rowLabel(r)`: label of row r or "" (drawn when there is room);
 *   `rowBand(r)`: 0/1 background band (e.g. server parity); `colUnit`: "slot" | "category".
 * - `paint(raster)`: fills the bucket raster (see `Raster`); `detail(ctx, vp, vis)` (optional):
 *   vector drawing used instead when cells are large enough (`detailPx`); `overlay(ctx, vp, vis)`
 *   (optional): marks drawn over either at every zoom (a run's down intervals, cancellations).
 * - `tip(row, col, span)`: tooltip text for the cell under the pointer (span = the rows and
 *   columns one device pixel covers there), or null.
 * - `height`: CSS height of the plot area cap; `left`, `top`: margins for the axes.
 */
export class GridView {
  constructor(host, spec) {
    this.spec = { left: 110, top: 18, right: 10, bottom: 4, rowPx: 22, height: 480, detailPx: 8, ...spec };
    this.host = host;
    this.vp = new Viewport(spec.rows, spec.cols);
    this.cursor = -1;
    this.pending = 0;
    this.stats = { frames: 0, lastMs: 0, times: [], firstDrawAt: 0, mode: "" };
    host.innerHTML = "";
    host.classList.add("gridview");
    this.toolbar = this.makeToolbar();
    this.canvas = document.createElement("canvas");
    this.canvas.tabIndex = 0;
    this.canvas.setAttribute("role", "img");
    this.canvas.setAttribute("aria-label", spec.label || "plot");
    this.tipEl = document.createElement("div");
    this.tipEl.className = "gv-tip";
    this.tipEl.hidden = true;
    host.append(this.toolbar, this.canvas, this.tipEl);
    this.off = document.createElement("canvas"); // the bucket raster, scaled onto the plot
    this.wire();
    this.layout(true);
    this.resizer = new ResizeObserver(() => this.layout(false));
    this.resizer.observe(host);
  }

  makeToolbar() {
    const bar = document.createElement("div");
    bar.className = "gv-bar";
    const button = (text, title, fn, cls) => {
      const b = document.createElement("button");
      b.textContent = text; b.title = title; if (cls) b.className = cls;
      b.addEventListener("click", () => { fn(); this.canvas.focus(); });
      bar.append(b);
    };
    button("+", "Zoom in (+)", () => this.zoomCentre(KEY_ZOOM));
    button("−", "Zoom out (-)", () => this.zoomCentre(1 / KEY_ZOOM));
    button("Reset view", "Show everything (0)", () => this.resetView(), "gv-reset");
    this.zoomNote = document.createElement("span");
    this.zoomNote.className = "hint";
    bar.append(this.zoomNote);
    return bar;
  }

  /** Sizes the canvas to the host width and the grid (at most `height` CSS px tall). */
  layout(first) {
    const s = this.spec, vp = this.vp;
    const cssW = Math.max(200, this.host.clientWidth || 800);
    const plotH = Math.min(s.height, Math.max(s.rowPx, s.rows * s.rowPx));
    const cssH = s.top + plotH + s.bottom;
    const dpr = window.devicePixelRatio || 1;
    if (!first && cssW === this.cssW && dpr === this.dpr) return;
    const wasFit = first || (vp.kx === vp.fitKx && vp.ky === vp.fitKy);
    this.cssW = cssW; this.dpr = dpr;
    this.canvas.style.width = cssW + "px";
    this.canvas.style.height = cssH + "px";
    this.canvas.width = Math.round(cssW * dpr);
    this.canvas.height = Math.round(cssH * dpr);
    vp.pw = cssW - s.left - s.right; vp.ph = plotH;
    if (wasFit) vp.reset(); else vp.clamp();
    this.request();
  }

  wire() {
    const c = this.canvas, vp = this.vp, s = this.spec;
    const plotXY = (e) => { const r = c.getBoundingClientRect(); return [e.clientX - r.left - s.left, e.clientY - r.top - s.top]; };
    c.addEventListener("wheel", (e) => {
      const [px, py] = plotXY(e);
      const f = Math.exp(-e.deltaY * 0.0015);
      const before = [vp.kx, vp.ky, vp.x0, vp.y0];
      vp.zoomAt(px, py, f, e.shiftKey ? 1 : f);
      // A wheel that cannot zoom further (e.g. out of a plot that shows everything) scrolls the page.
      if (before.every((v, i) => v === [vp.kx, vp.ky, vp.x0, vp.y0][i])) return;
      e.preventDefault();
      this.changed();
    }, { passive: false });
    let drag = null;
    c.addEventListener("pointerdown", (e) => { drag = { x: e.clientX, y: e.clientY }; c.setPointerCapture(e.pointerId); c.focus(); });
    c.addEventListener("pointerup", (e) => { drag = null; c.releasePointerCapture(e.pointerId); });
    c.addEventListener("pointermove", (e) => {
      if (drag) {
        vp.panBy(e.clientX - drag.x, e.clientY - drag.y);
        drag = { x: e.clientX, y: e.clientY };
        this.tipEl.hidden = true;
        this.changed();
      } else this.hover(...plotXY(e));
    });
    c.addEventListener("pointerleave", () => { this.tipEl.hidden = true; });
    c.addEventListener("keydown", (e) => {
      const w = vp.pw, h = vp.ph;
      const keys = {
        "+": () => this.zoomCentre(KEY_ZOOM), "=": () => this.zoomCentre(KEY_ZOOM), "-": () => this.zoomCentre(1 / KEY_ZOOM),
        "0": () => this.resetView(), ArrowLeft: () => vp.panBy(w * KEY_PAN, 0), ArrowRight: () => vp.panBy(-w * KEY_PAN, 0),
        ArrowUp: () => vp.panBy(0, h * KEY_PAN), ArrowDown: () => vp.panBy(0, -h * KEY_PAN),
      };
      if (!keys[e.key]) return;
      // The page uses arrows to step through time; in a focused plot they pan instead.
      e.preventDefault(); e.stopPropagation();
      keys[e.key]();
      this.changed();
    });
  }

  zoomCentre(f) { this.vp.zoomAt(this.vp.pw / 2, this.vp.ph / 2, f); this.changed(); }
  resetView() { this.vp.reset(); this.changed(); }
  /** Zooming or panning this view moves `other` (same grid) the same way. */
  link(other) { (this.linked ||= []).push(other); }
  /** The view moved: redraw it and the views linked to it. */
  changed() {
    this.request();
    for (const o of this.linked || []) {
      Object.assign(o.vp, { kx: this.vp.kx, ky: this.vp.ky, x0: this.vp.x0, y0: this.vp.y0 });
      o.vp.clamp();
      o.request();
    }
  }
  setCursor(step) { if (step !== this.cursor) { this.cursor = step; this.request(); } }
  /** Asks for a redraw in the next animation frame (once, however often it is called). */
  request() {
    if (this.pending) return;
    this.pending = requestAnimationFrame(() => { this.pending = 0; this.draw(); });
  }
  destroy() { this.resizer.disconnect(); if (this.pending) cancelAnimationFrame(this.pending); this.host.innerHTML = ""; }

  /** Draws the visible region now; records how long it took. */
  draw() {
    const t0 = performance.now();
    const s = this.spec, vp = this.vp, ctx = this.canvas.getContext("2d");
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.clearRect(0, 0, this.cssW, s.top + vp.ph + s.bottom);
    const vis = vp.visible();
    ctx.save();
    ctx.beginPath();
    ctx.rect(s.left, s.top, vp.pw, vp.ph);
    ctx.clip();
    ctx.translate(s.left, s.top);
    this.drawBands(ctx, vis);
    const detail = s.detail && vp.kx >= s.detailPx / 2 && vp.ky >= s.detailPx;
    if (detail) s.detail(ctx, vp, vis);
    else this.drawRaster(ctx, vis);
    // Marks drawn over the cells at every zoom (open-world down intervals, cancellations).
    if (s.overlay) s.overlay(ctx, vp, vis);
    this.drawCursor(ctx, vis);
    ctx.restore();
    this.drawAxes(ctx, vis);
    const ms = performance.now() - t0;
    this.stats.mode = detail ? "detail" : "raster";
    this.stats.frames++;
    this.stats.lastMs = ms;
    this.stats.times.push(ms);
    if (this.stats.times.length > 600) this.stats.times.shift();
    if (!this.stats.firstDrawAt) this.stats.firstDrawAt = performance.now();
    const zx = vp.kx / vp.fitKx, zy = vp.ky / vp.fitKy;
    this.zoomNote.textContent = `rows ${vis.r0}–${vis.r1 - 1} of ${s.rows}, ${s.colUnit || "slot"}s ${vis.c0}–${vis.c1 - 1}` +
      (zx > 1.001 || zy > 1.001 ? ` · zoom ${zx.toFixed(1)}×${zy.toFixed(1)}` : "") +
      (detail ? "" : vp.ky < 1 / this.dpr || vp.kx < 1 / this.dpr ? " · a pixel shows the aggregate of the cells it covers" : "");
  }

  drawBands(ctx, vis) {
    const vp = this.vp, band = this.spec.rowBand;
    ctx.fillStyle = "#eef1f7";
    ctx.fillRect(vp.x(vis.c0), 0, (vis.c1 - vis.c0) * vp.kx, (vis.r1 - vis.r0) * vp.ky + vp.y(vis.r0));
    if (!band || vp.ky < 3) return;
    ctx.fillStyle = "#fafbfd";
    for (let r = vis.r0; r < vis.r1; r++) if (band(r)) ctx.fillRect(vp.x(vis.c0), vp.y(r), (vis.c1 - vis.c0) * vp.kx, vp.ky);
  }

  /** The bucket raster of the visible cells, scaled onto the plot. */
  drawRaster(ctx, vis) {
    const vp = this.vp, dpr = this.dpr;
    const nc = vis.c1 - vis.c0, nr = vis.r1 - vis.r0;
    if (nc <= 0 || nr <= 0) return;
    const nx = Math.max(1, Math.min(nc, Math.ceil(nc * vp.kx * dpr)));
    const ny = Math.max(1, Math.min(nr, Math.ceil(nr * vp.ky * dpr)));
    const raster = new Raster(vis, nx, ny);
    this.spec.paint(raster);
    if (this.off.width !== nx || this.off.height !== ny) { this.off.width = nx; this.off.height = ny; }
    this.off.getContext("2d").putImageData(raster.image, 0, 0);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.off, 0, 0, nx, ny, vp.x(vis.c0), vp.y(vis.r0), nc * vp.kx, nr * vp.ky);
  }

  drawCursor(ctx, vis) {
    const t = this.cursor, vp = this.vp;
    if (t < vis.c0 || t >= vis.c1) return;
    ctx.strokeStyle = "#e8590c";
    ctx.lineWidth = 2;
    ctx.strokeRect(vp.x(t), 1, Math.max(2, vp.kx), Math.min(vp.ph, vp.y(vis.r1)) - 2);
  }

  drawAxes(ctx, vis) {
    const s = this.spec, vp = this.vp;
    ctx.font = "10px system-ui, sans-serif";
    ctx.fillStyle = "#6b7385";
    ctx.textAlign = "center";
    ctx.textBaseline = "alphabetic";
    const step = tickStep(vp.kx, 42);
    for (let t = Math.ceil(vis.c0 / step) * step; t < vis.c1; t += step) {
      const x = s.left + vp.x(t) + vp.kx / 2;
      if (x > s.left - 4 && x < s.left + vp.pw + 4) ctx.fillText(String(t), x, s.top - 5);
    }
    ctx.font = "11px system-ui, sans-serif";
    ctx.fillStyle = "#4a5163";
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    const rowStep = vp.ky >= 12 ? 1 : tickStep(vp.ky, 14);
    for (let r = vis.r0; r < vis.r1; r++) {
      const label = s.rowLabel(r);
      if (!label || (rowStep > 1 && r % rowStep !== 0)) continue;
      const y = s.top + vp.y(r) + Math.min(vp.ky, 22) / 2;
      if (y >= s.top && y <= s.top + vp.ph) ctx.fillText(label.length > 16 ? label.slice(0, 15) + "…" : label, s.left - 6, y);
    }
  }

  hover(px, py) {
    const vp = this.vp;
    if (px < 0 || py < 0 || px >= vp.pw || py >= vp.ph) { this.tipEl.hidden = true; return; }
    const row = vp.rowAt(py), col = vp.colAt(px);
    if (row >= vp.rows || col >= vp.cols) { this.tipEl.hidden = true; return; }
    // The cells one device pixel covers here: what an aggregated pixel stands for.
    const d = 1 / this.dpr;
    const span = { r0: row, r1: Math.max(row + 1, Math.min(vp.rows, vp.rowAt(py + d))), c0: col, c1: Math.max(col + 1, Math.min(vp.cols, vp.colAt(px + d))) };
    const text = this.spec.tip(row, col, span);
    if (!text) { this.tipEl.hidden = true; return; }
    this.tipEl.textContent = text;
    this.tipEl.hidden = false;
    const left = Math.min(px + this.spec.left + 14, this.cssW - 260);
    this.tipEl.style.left = left + "px";
    this.tipEl.style.top = (py + this.spec.top + this.toolbar.offsetHeight + 14) + "px";
  }

  /** Counts canvas pixels that differ from the plot background (tests: "something is drawn"). */
  drawnPixels() {
    const ctx = this.canvas.getContext("2d");
    const s = this.spec;
    const x = Math.round(s.left * this.dpr), y = Math.round(s.top * this.dpr);
    const w = Math.round(this.vp.pw * this.dpr), h = Math.round(this.vp.ph * this.dpr);
    const px = ctx.getImageData(x, y, w, h).data;
    let n = 0;
    for (let i = 0; i < px.length; i += RGBA) {
      const bg = (px[i] === 0xee && px[i + 1] === 0xf1 && px[i + 2] === 0xf7) || (px[i] === 0xfa && px[i + 1] === 0xfb && px[i + 2] === 0xfd);
      if (px[i + 3] !== 0 && !bg) n++;
    }
    return { drawn: n, total: w * h };
  }
}

/**
 * The raster of one frame: `nx` x `ny` buckets over the visible cells `vis`. `colBucket[c - c0]`
 * and `rowBucket[r - r0]` map a cell to its bucket; painters write RGBA bytes into `image`.
 */
export class Raster {
  constructor(vis, nx, ny) {
    this.vis = vis; this.nx = nx; this.ny = ny;
    const cb = buckets(vis.c1 - vis.c0, nx), rb = buckets(vis.r1 - vis.r0, ny);
    this.colBucket = cb.of; this.colFirst = cb.first;
    this.rowBucket = rb.of; this.rowFirst = rb.first;
    this.image = new ImageData(nx, ny);
  }
  /** Sets bucket (bx, by) to `rgb` (opaque). */
  set(bx, by, rgb) {
    const i = (by * this.nx + bx) * RGBA, d = this.image.data;
    d[i] = rgb[0]; d[i + 1] = rgb[1]; d[i + 2] = rgb[2]; d[i + 3] = 255;
  }
}

/**
 * A heatmap of piecewise-constant rows: `series[r]` is row r as change points
 * `[t0, v0, t1, v1, ...]` (value v_i over columns t_i .. t_{i+1}, the last up to `cols`), the
 * form `Simulation.timeline().usage_series` hands over. Coloured by `lut` (256 RGB triples) of
 * `shade(v)` in [0, 1]; buckets covering several cells show their max or mean (`aggregate()`
 * says which). A row costs O(its change points in view + buckets), never O(columns), so tens
 * of thousands of slots draw as fast as a few hundred.
 */
export function seriesPainter(series, cols, shade, lut, aggregate) {
  return (raster) => {
    const { c0, c1, r0, r1 } = raster.vis, nx = raster.nx, ny = raster.ny;
    const mean = aggregate() === "mean";
    const acc = new Float64Array(nx * ny).fill(mean ? 0 : -Infinity);
    const cb = raster.colBucket, cf = raster.colFirst, rf = raster.rowFirst;
    for (let r = r0; r < r1; r++) {
      const base = raster.rowBucket[r - r0] * nx;
      forSegments(series[r], cols, c0, c1, (s, e, v) => {
        for (let bx = cb[s - c0], last = cb[e - 1 - c0]; bx <= last; bx++) {
          const k = base + bx;
          // mean: the value times the columns of the bucket it covers.
          if (mean) acc[k] += v * (Math.min(e, c0 + cf[bx + 1]) - Math.max(s, c0 + cf[bx]));
          else if (v > acc[k]) acc[k] = v;
        }
      });
    }
    for (let k = 0; k < acc.length; k++) {
      const bx = k % nx, by = (k / nx) | 0;
      const v = mean ? acc[k] / Math.max(1, (cf[bx + 1] - cf[bx]) * (rf[by + 1] - rf[by])) : acc[k];
      raster.set(bx, by, lut[Math.max(0, Math.min(255, Math.round(shade(v) * 255)))]);
    }
  };
}

/** Calls `f(start, end, value)` for each constant piece of `series` (change points, see
 *  `seriesPainter`) clipped to columns `c0 .. c1`. */
export function forSegments(series, cols, c0, c1, f) {
  const n = series.length / 2;
  // The piece holding c0: the last change point at or before it (binary search).
  let lo = 0, hi = n;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (series[2 * mid] <= c0) lo = mid + 1; else hi = mid; }
  for (let i = Math.max(0, lo - 1); i < n; i++) {
    const s = Math.max(series[2 * i], c0);
    if (s >= c1) break;
    const e = Math.min(i + 1 < n ? series[2 * i + 2] : cols, c1);
    if (s < e) f(s, e, series[2 * i + 1]);
  }
}

/** One series of `f(values)` from several (e.g. the dominant share over resources): a change
 *  point wherever any input changes. */
export function combineSeries(list, f) {
  const at = list.map(() => 0), vals = list.map((x) => x[1] ?? 0), out = [];
  for (let t = 0; ;) {
    let next = Infinity;
    list.forEach((x, k) => {
      while (2 * at[k] + 2 < x.length && x[2 * at[k] + 2] <= t) at[k]++;
      vals[k] = x[2 * at[k] + 1] ?? 0;
      if (2 * at[k] + 2 < x.length) next = Math.min(next, x[2 * at[k] + 2]);
    });
    const v = f(vals);
    if (out.length === 0 || out[out.length - 1] !== v) out.push(t, v);
    if (next === Infinity) return Float64Array.from(out);
    t = next;
  }
}

/** A 256-entry colour table of `colour(x)` -> [r, g, b] for x in [0, 1]. */
export function colourTable(colour) {
  return Array.from({ length: 256 }, (_, i) => colour(i / 255));
}

/**
 * Timeline bars: `byRow[r]` lists the bars of row r as indices into `bars` ({start, end});
 * `rgbOf(i)` is bar i's colour. A bucket shows a bar running in any of its cells.
 */
export function barPainter(bars, byRow, rgbOf) {
  return (raster) => {
    const { c0, c1, r0, r1 } = raster.vis;
    const cb = raster.colBucket;
    for (let r = r0; r < r1; r++) {
      const by = raster.rowBucket[r - r0];
      for (const i of byRow[r]) {
        const b = bars[i];
        const s = Math.max(b.start, c0), e = Math.min(b.end, c1);
        if (s >= e) continue;
        const rgb = rgbOf(i);
        for (let bx = cb[s - c0], last = cb[e - 1 - c0]; bx <= last; bx++) raster.set(bx, by, rgb);
      }
    }
  };
}
