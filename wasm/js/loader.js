// The mlsched web loader (issue 14): one wasm module per scenario kind, each loaded the first
// time a document of its kind needs it, then cached. A page that shows one kind fetches one
// module (150 to 210 KB gzipped) instead of the all-kinds one.
//
//   import { load, kindOf, bundledScenarios, policies } from "mlsched/loader";
//   const m = await load(scenarioJson);   // or load("oasis")
//   const result = m.run(scenarioJson);   // m: run, runWith, Engine, Simulation, ... as today
//
// The kind-independent data (bundled scenarios, policies, version) is plain data (data.js,
// written by build.sh): listing scenarios or policies loads no module.
import { BUNDLED, POLICIES, VERSION } from "./data.js";

/** The five scenario kinds, each with a module of its own (`./<kind>/mlsched.js`). */
export const KINDS = Object.freeze(["oasis", "online", "placement", "preempt", "route"]);

const loaded = new Map(); // kind -> Promise of the initialised module

/** The `kind` of a scenario document (JSON text or object); throws an Error naming the field
 *  when it has none or an unknown one (the module would refuse it with the same words). */
export function kindOf(scenario) {
  let doc = scenario;
  if (typeof scenario === "string") {
    try { doc = JSON.parse(scenario); } catch (e) { throw new Error(`document: not valid JSON: ${e.message}`); }
  }
  const kind = doc && typeof doc === "object" && !Array.isArray(doc) ? doc.kind : undefined;
  if (typeof kind !== "string") throw new Error(`scenario, field \`kind\`: missing or not a string; expected one of ${KINDS.join(", ")}`);
  if (!KINDS.includes(kind)) throw new Error(`scenario, field \`kind\`: unknown kind \`${kind}\`; expected one of ${KINDS.join(", ")}`);
  return kind;
}

/** The URL of `kind`'s module (next to this file). */
export function moduleUrl(kind) {
  return new URL(`./${kind}/mlsched.js`, import.meta.url).href;
}

/** Loads (once) and initialises the module of `what`: a kind name, or a scenario document (JSON
 *  text or object) whose `kind` chooses it. Resolves to the module: `run`, `runWith`, `Engine`,
 *  `Simulation`, `DecisionBench`, `kinds`, `policies`, `bundledScenarios`, `version`. */
export function load(what) {
  const kind = typeof what === "string" && KINDS.includes(what) ? what : kindOf(what);
  let p = loaded.get(kind);
  if (!p) {
    p = import(moduleUrl(kind)).then(async (m) => { await m.default(); return m; });
    // A failed load (network) is not cached: the next call tries again.
    p.catch(() => loaded.delete(kind));
    loaded.set(kind, p);
  }
  return p;
}

/** The kinds whose module has been requested so far. */
export function loadedKinds() {
  return [...loaded.keys()];
}

/** `[{name, kind, scenario}]`: the bundled example scenarios of every kind (no module needed). */
export function bundledScenarios() {
  return BUNDLED.map((b) => ({ ...b }));
}

/** Policies `runWith` accepts for `kind` (first = the kind's own algorithm); [] if unknown. */
export function policies(kind) {
  return [...(POLICIES[kind] ?? [])];
}

/** The package version. */
export function version() {
  return VERSION;
}
