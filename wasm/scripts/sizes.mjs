// Where the bytes of a wasm module are (wasm/README.md "Size"): every function body's size from
// the code section, named from the name section, summed by crate / module and listed largest
// first; plus the data section's size and its longest printable strings.
// The shipped module has no name section (wasm-opt drops it): build with the names kept,
//   MLSCHED_NAMES=1 sh scripts/build.sh && node scripts/sizes.mjs
// (the same optimisation plus `wasm-opt -g`; the functions are the shipped module's, the
// names section only adds bytes) and build again without it before shipping.
// Usage: node scripts/sizes.mjs [module, default pkg/web/mlsched_bg.wasm] [top N, default 60]
//        [depth of the module grouping, default 2]; env SIZES_NAME_MAX (default 150): longest
//        function name printed (generic instances named with v0 mangling are long)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { WASM_DIR } from "../test/helpers.mjs";

const file = process.argv[2] || join(WASM_DIR, "pkg/web/mlsched_bg.wasm");
const top = Number(process.argv[3] || 60);
const depth = Number(process.argv[4] || 2);
const buf = readFileSync(file);

/** Unsigned LEB128 at `at`: [value, next offset]. */
function leb(at) {
  let v = 0, shift = 0, b;
  do { b = buf[at++]; v += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
  return [v, at];
}
const utf8 = (a, b) => buf.toString("utf8", a, b);

// Sections: id -> [start, end] of the payload (custom sections by name).
const sections = new Map();
let imports = 0; // imported functions come first in the function index space
let p = 8;
while (p < buf.length) {
  const id = buf[p];
  let size; [size, p] = leb(p + 1);
  const end = p + size;
  if (id === 0) {
    const [n, q] = leb(p);
    sections.set(utf8(q, q + n), [q + n, end]);
  } else sections.set(id, [p, end]);
  if (id === 2) {
    let [count, q] = leb(p);
    for (let i = 0; i < count; i++) {
      let n; [n, q] = leb(q); q += n; [n, q] = leb(q); q += n; // module, field
      const kind = buf[q++];
      if (kind === 0) { [, q] = leb(q); imports++; }
      else if (kind === 1) { q++; const [flags, r] = leb(q); q = leb(r)[1]; if (flags & 1) q = leb(q)[1]; }
      else if (kind === 2) { const [flags, r] = leb(q); q = leb(r)[1]; if (flags & 1) q = leb(q)[1]; }
      else if (kind === 3) q += 2;
      else q = leb(q + 1)[1]; // tag
    }
  }
  p = end;
}

// Function names (name section, subsection 1).
const names = new Map();
if (sections.has("name")) {
  let [q, end] = sections.get("name");
  while (q < end) {
    const sub = buf[q];
    let size; [size, q] = leb(q + 1);
    if (sub === 1) {
      let [count, r] = leb(q);
      for (let i = 0; i < count; i++) {
        let idx, n; [idx, r] = leb(r); [n, r] = leb(r);
        names.set(idx, utf8(r, r + n)); r += n;
      }
    }
    q += size;
  }
}

// Function bodies.
const funcs = [];
{
  let [q] = sections.get(10);
  let count; [count, q] = leb(q);
  for (let i = 0; i < count; i++) {
    let size; [size, q] = leb(q);
    const idx = imports + i;
    funcs.push({ name: names.get(idx) || `func[${idx}]`, size, gz: 0, start: q });
    q += size;
  }
}
const code = funcs.reduce((s, f) => s + f.size, 0);
const [ds, de] = sections.get(11) || [0, 0];

/** The module path a function belongs to, `depth` levels deep: the crate, then its modules
 *  (generic instances are filed under the function's own path, not its type arguments). */
function group(name) {
  // serde's seeds: the documents' derived field deserialisers, instantiated per field type.
  if (name.startsWith("<core::marker::PhantomData<T> as serde_core::de::DeserializeSeed>")) return "serde (derived, per field type)";
  if (/ multivalue shim$/.test(name)) return "wasm-bindgen export shims (the export's body inlined)";
  let n = name.replace(/\[[0-9a-f]{16}\]/g, "").replace(/^<(.*?)( as .*)?>::/, "$1::"); // <T as Trait>::f -> T::f; crate hashes dropped
  n = n.replace(/<.*/s, "").replace(/^&(mut )?/, "").replace(/^(dyn |impl )/, "");
  const parts = n.split("::").filter((s) => s && !/^\{/.test(s));
  if (parts.length <= 1) return name.startsWith("func[") ? "(unnamed)" : "(no path) " + parts[0];
  return parts.slice(0, Math.min(depth, parts.length - 1)).join("::");
}

const groups = new Map();
for (const f of funcs) {
  const g = group(f.name);
  const e = groups.get(g) || { size: 0, n: 0, bodies: [] };
  e.size += f.size; e.n++; e.bodies.push(buf.subarray(f.start, f.start + f.size));
  groups.set(g, e);
}
// A group's share of the gzipped module, estimated as its bodies gzipped together (gzip finds
// repeats within a group, not across groups: the estimates add up to a little more than the
// code's real gzipped size).
for (const e of groups.values()) e.gz = gzipSync(Buffer.concat(e.bodies), { level: 9 }).length;
const gzAll = gzipSync(buf, { level: 9 }).length;
const kb = (n) => (n / 1000).toFixed(1).padStart(7);
console.log(`${file}: ${buf.length} bytes (${gzAll} gzip -9), code ${code} bytes in ${funcs.length} functions, data ${de - ds} bytes, names ${names.size ? "yes" : "no"}`);
console.log(`\nby module (depth ${depth}): KB raw, KB gzipped alone`);
for (const [g, e] of [...groups].sort((a, b) => b[1].size - a[1].size).slice(0, top)) {
  console.log(`${kb(e.size)} ${kb(e.gz)}  ${String(e.n).padStart(5)} fns  ${g}`);
}
console.log(`\ntop ${top} functions, KB raw:`);
for (const f of [...funcs].sort((a, b) => b.size - a.size).slice(0, top)) {
  console.log(`${kb(f.size)}  ${f.name.length > (Number(process.env.SIZES_NAME_MAX) || 150) ? f.name.slice(0, Number(process.env.SIZES_NAME_MAX) || 150) + "..." : f.name}`);
}
// The data section's printable runs of 40+ characters, longest first (messages, tables).
const text = utf8(ds, de);
const runs = (text.match(/[\x20-\x7e\n]{40,}/g) || []).sort((a, b) => b.length - a.length);
const printable = runs.reduce((s, r) => s + r.length, 0);
console.log(`\ndata: ${printable} of ${de - ds} bytes in printable runs of 40+; the 10 longest:`);
for (const r of runs.slice(0, 10)) console.log(`${String(r.length).padStart(7)}  ${JSON.stringify(r.slice(0, 110))}`);
