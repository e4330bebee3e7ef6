// Types of `mlsched/loader` (pkg/web/loader.js): one web module per scenario kind, loaded on
// first use and cached. The module's API is `KindModule` of types/mlsched.d.ts.
import type { BundledScenario, Kind, KindModule } from "./mlsched.js";
export type { BundledScenario, Kind, KindModule } from "./mlsched.js";

/** The five kinds, each with a module of its own. */
export const KINDS: readonly Kind[];
/** The kind of a scenario document (JSON text or parsed object).
 *  @throws Error naming the field `kind` when it is missing, not a string or unknown. */
export function kindOf(scenario: string | object): Kind;
/** URL of `kind`'s module (`<loader's folder>/<kind>/mlsched.js`). */
export function moduleUrl(kind: Kind): string;
/** Loads (once, cached) and initialises the module of a kind, or of a scenario document's kind. */
export function load(kindOrScenario: Kind | string | object): Promise<KindModule>;
/** Kinds whose module was requested so far. */
export function loadedKinds(): Kind[];
/** The bundled example scenarios of every kind (plain data: loads no module). */
export function bundledScenarios(): BundledScenario[];
/** Policies `runWith` accepts for `kind` (plain data: loads no module). */
export function policies(kind: Kind): string[];
/** Package version. */
export function version(): string;
