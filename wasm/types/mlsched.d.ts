// Hand-written types of the npm package `mlsched` (the wasm-bindgen output is untyped JSON).
// Result documents and decisions come from one engine (`Engine`; `run` is it run to the end).
// Result documents follow formats.md; they are returned as JSON text so that they compare
// byte for byte with `mlsched run --json`.

/** Browser build: fetches and instantiates the wasm module; call once before anything else.
 *  Node build: a no-op (the module is ready when imported). */
export default function init(input?: { module_or_path?: string | URL | Request | BufferSource | WebAssembly.Module } | string | URL): Promise<unknown>;
export function init(input?: { module_or_path?: string | URL | Request | BufferSource | WebAssembly.Module } | string | URL): Promise<unknown>;
/** Synchronous instantiation from bytes or a compiled module (browser build). */
export function initSync(module?: { module: BufferSource | WebAssembly.Module } | BufferSource | WebAssembly.Module): unknown;

/** The result document JSON of `mlsched run --json` for this scenario (same bytes, incl. `log_hash`).
 *  @throws Error carrying the CLI's message on bad input or a failed run. */
export function run(scenarioJson: string): string;
/** `run` with the CLI's `--policy NAME` (a baseline of the same kind) and `--all` (placement: `per_category`). */
export function runWith(scenarioJson: string, policy?: string | null, allCategories?: boolean | null): string;
/** The scenario run with host events (JSON Lines text, one event per line, `at` never going back;
 *  docs/open-world.md): the bytes of `mlsched run SCENARIO --events FILE --json -`. */
export function runEvents(scenarioJson: string, eventsJsonl: string, policy?: string | null): string;
/** The CLI's bundled example scenarios, one or more per kind, of the kinds this module runs
 *  (every kind's in the package's main module and from `mlsched/loader`). */
export function bundledScenarios(): BundledScenario[];
/** Policies accepted by `runWith` for `kind`; the first is the kind's own algorithm. */
export function policies(kind: Kind): string[];
/** The kinds this module runs: all five in the package's main module, one in each per-kind
 *  web module (`mlsched/loader`); a document of another kind throws an Error naming its module. */
export function kinds(): Kind[];
/** Package version. */
export function version(): string;

/** What `load()` of `mlsched/loader` (types/loader.d.ts) resolves to: one kind's web module,
 *  initialised, with the package's API (its `run`, `Engine`, ... accept documents of its kind
 *  only; `policies()` answers for every kind, `bundledScenarios()` lists its own kind's). */
export interface KindModule {
  run: typeof run;
  runWith: typeof runWith;
  runEvents: typeof runEvents;
  bundledScenarios: typeof bundledScenarios;
  policies: typeof policies;
  kinds: typeof kinds;
  version: typeof version;
  Engine: typeof Engine;
  Simulation: typeof Simulation;
  DecisionBench: typeof DecisionBench;
}

export type Kind = "oasis" | "online" | "placement" | "preempt" | "route";

export interface BundledScenario {
  name: string;
  kind: Kind;
  /** Scenario JSON text, as in `scenarios/<name>.json`. */
  scenario: string;
}

/** One decision of the engine: the kernel's record name, the job it concerns and the record
 *  itself (with its explanation: prices, costs, candidates, the reason of a rejection...). */
export interface EngineDecision {
  /** `<kind>.<record>`: oasis.decision, oasis.slot, online.decision, online.placed, baseline.unit,
   *  baseline.slot, baseline.placed, baseline.start, placement.category, placement.record,
   *  preempt.candidate, preempt.dispatch, preempt.ps, preempt.ps_miss, route.pso,
   *  route.aggregation, route.placed, route.summary */
  record: string;
  /** Job index (input order), or null. */
  job: number | null;
  /** The record's fields. */
  data: Record<string, unknown>;
}

/** How a job ended (a result row's `status`). */
export type JobStatus = "finished" | "unfinished" | "rejected" | "cancelled" | "lost";

/** One host event (docs/open-world.md), a line of a `mlsched run --events` file. */
export type HostEvent =
  | { event: "arrive" | "finished" | "cancel"; at: number; job: string }
  | { event: "advance"; at: number }
  | { event: "submit"; at: number; job: Record<string, unknown> }
  | { event: "server_down" | "server_up"; at: number; server: string }
  | { event: "capacity"; at: number; server: string; capacity: number[] };

/** One scenario arrival, in the order a run feeds them. */
export interface Arrival { slot: number; job: number }

/** The event-driven engine of one scenario run: feed events one at a time, get the kernel's
 *  decisions back. Fed the scenario's own arrivals (per slot: arrivals, then `advance`; the next
 *  slot is the earliest pending arrival or `nextWakeup`), `finish()` returns `run`'s bytes.
 *  Every method throws an `Error` with the engine's message (naming the field) on a bad event:
 *  a slot before the last one, an unknown job, a second arrival, an arrival before the job's
 *  `arrival`, a finish of a job that never arrived, any event after `finish`. */
export class Engine {
  /** Parses and validates the scenario (throws like `run`); `policy` as in `runWith`. */
  constructor(scenarioJson: string, policy?: string | null);
  /** The engine of `snapshot()` bytes taken from an engine of the same scenario and policy. */
  static restore(scenarioJson: string, policy: string | null | undefined, bytes: Uint8Array): Engine;
  /** Job `job` (index or id) arrives at `slot`. */
  arrive(job: number | string, slot: number): EngineDecision[];
  /** Slot `slot` runs (after its finishes and arrivals). */
  advance(slot: number): EngineDecision[];
  /** Job `job` (index or id) finished at `slot`. */
  finished(job: number | string, slot: number): EngineDecision[];
  /** Applies one host event (docs/open-world.md; an object or its JSON text, e.g.
   *  `{event: "server_down", at: 5, server: "h1"}`) as the service does: the scheduler's wake-ups
   *  before its slot `at` are fed first. Returns every decision caused; a bad event throws an
   *  `Error` naming the field and leaves the engine unchanged. */
  event(event: HostEvent | string): EngineDecision[];
  /** Job `job` (an object as in the scenario's `jobs`; `arrival`, if given, must equal `slot`)
   *  is submitted and arrives at `slot`; it gets the next index. */
  submit(job: Record<string, unknown>, slot: number): EngineDecision[];
  /** Job `jobId` (listed or submitted) is cancelled at `slot`. */
  cancel(jobId: string, slot: number): EngineDecision[];
  /** Server `serverId` (one of `serverIds`) fails or is drained at `slot`. */
  serverDown(serverId: string, slot: number): EngineDecision[];
  /** Server `serverId` comes back at `slot`. */
  serverUp(serverId: string, slot: number): EngineDecision[];
  /** Server `serverId`'s capacity, in the order of the scenario's resources, from `slot` on. */
  setCapacity(serverId: string, capacity: number[] | Float64Array, slot: number): EngineDecision[];
  /** The scenario's server ids, as the server events name them. */
  readonly serverIds: string[];
  /** Job `jobId`'s status as of the last event, or undefined if the kind does not tell yet. */
  status(jobId: string): JobStatus | undefined;
  /** The slot after the current one at which the scheduler wants `advance` although no job arrives. */
  readonly nextWakeup: number | undefined;
  /** The slot of the last event fed (undefined before the first). */
  readonly now: number | undefined;
  /** The scenario's arrivals in run order. */
  arrivalOrder(): Arrival[];
  /** Feeds every remaining arrival and wake-up, then `finish()`. */
  runToEnd(): string;
  /** Ends the run: the result document JSON (same bytes as `run`); later events throw. */
  finish(): string;
  /** The engine's state (the events fed so far, tied to the scenario and policy). */
  snapshot(): Uint8Array;
  readonly kind: Kind;
  /** The policy running, e.g. "oasis", "fifo", "has". */
  readonly policy: string;
  /** Number of jobs. */
  readonly jobs: number;
  /** The id of job `j`. */
  jobId(j: number): string | undefined;
  /** Frees the wasm memory of this engine. */
  free(): void;
}

/** Steps through the decisions of one engine run. */
export class Simulation {
  /** Runs the scenario through the engine (throws like `run`). */
  constructor(scenarioJson: string, policy?: string | null);
  /** Shows a result document saved earlier, e.g. by `mlsched run --json`: its scenario is run
   *  again with its policy; throws if the run does not reproduce the result (its `log_hash`). */
  static fromResult(scenarioJson: string, resultJson: string): Simulation;
  /** Advances one step (slot; category for placement). Returns false at the end. */
  step(): boolean;
  /** Moves to step `t` (clamped to the last step). */
  seek(t: number): void;
  /** Back to step 0. */
  reset(): void;
  readonly currentStep: number;
  readonly steps: number;
  readonly done: boolean;
  readonly kind: Kind;
  /** The state at the current step. */
  state(): SimState;
  /** Everything precomputed for drawing. */
  timeline(): Timeline;
  /** The result document JSON, exactly what `run` returns. */
  resultJson(): string;
  /** Frees the wasm memory of this simulation. */
  free(): void;
}

/** The decision benchmark of `scripts/bench.mjs`: the scenario is parsed once; `run(n)` schedules
 *  it n times (validate, build the scheduler, every decision, the result document; no JSON). */
export class DecisionBench {
  /** Parses the scenario and schedules it once (throws like `run`). */
  constructor(scenarioJson: string, policy?: string | null);
  /** Schedules the scenario `iterations` times; the last run's `log_hash`. */
  run(iterations: number): string;
  /** Frees the wasm memory of this benchmark. */
  free(): void;
}

export interface Server {
  id: string;
  /** worker | ps | server | edge | cloud | gpu | compute */
  group: string;
  /** Per resource of `Timeline.resources`; 0 = unlimited / not applicable. */
  capacity: number[];
}

/** `job` holds a share of `server` over steps [start, end). */
export interface Bar { job: string; server: number; lane: number; start: number; end: number; label: string }

export interface Decision {
  step: number;
  /** Job id ("" for placement categories). */
  job: string;
  /** Decisions: admit | reject | schedule | defer | dispatch | route | category | best;
   *  their consequences: start | complete | preempt | resume */
  action: string;
  /** Explanation: a decision's from the engine's record (`record`), a consequence's from the result. */
  text: string;
  /** The engine's record name behind `text` (oasis.decision, online.decision, baseline.slot,
   *  baseline.start, placement.category, preempt.dispatch, route.placed); absent for consequences. */
  source?: string;
  /** The kernel's record behind `text` (`EngineDecision.data`); absent for consequences. */
  record?: OasisRecord | OnlineRecord | Record<string, unknown>;
}

/** OASiS (Alg. 1) decision on one job, as the kernel took it. */
export interface OasisRecord {
  job: number; arrival: number; admitted: boolean;
  reason: "Admitted" | "NoFeasibleSchedule" | "NonPositivePayoff";
  completion_slot: number | null; utility: number; cost: number; payoff: number;
}

/** Zhou et al. A_online decision on one job in one round / A_dual window. */
export interface OnlineRecord {
  job: number; round: number; tau: number; iota: number; feasible: boolean; scheduled: boolean;
  colocated: boolean; worker_type: number; ps_type: number | null; start: number; duration: number;
  workers: number; cost: number; utility: number;
}

/** One round of the HAS / JPS matching market (Algorithm 2) as the kernel ran it. */
export interface MarketRound {
  /** price updates before this round */
  round: number;
  /** p_c per worker class, at which the demands were computed */
  prices: number[];
  /** per job: classes strictly preferred, classes tied at its K_i-th valuation, units needed from the tie */
  demand: { strict: number[]; tied: number[]; need: number }[];
  /** class whose price rises next; null when the market clears */
  over: number | null;
  constricted: boolean;
  constricted_set?: number[];
  /** x_ic (jobs x classes) when cleared */
  counts?: number[];
}

/** The market of one category K. */
export interface CategoryMarket {
  category: number[];
  rounds: MarketRound[];
  total_rounds: number;
  unit_rounds: number;
  cleared: boolean;
  /** only the first rounds are kept */
  truncated: boolean;
}

export interface JobInfo { id: string; arrival: number; start: number | null; end: number | null; accepted: boolean }

export interface Timeline {
  kind: Kind;
  policy: string;
  steps: number;
  step_unit: "slot" | "category";
  resources: string[];
  servers: Server[];
  bars: Bar[];
  /** usage[r][s][t]; empty when steps x servers x resources exceeds 2^21 (use `usage_series`) */
  usage: number[][][];
  /** usage_series[r][s]: the usage as change points [t0, v0, t1, v1, ...] (t0 = 0; the value is
   *  v_i from step t_i up to t_{i+1} or the end), for every size */
  usage_series: number[][][];
  /** price[r][s][t]; empty when the kind has no prices, or above 2^21 numbers like `usage` */
  price: number[][][];
  /** price_series[r][s]: the prices as change points, like `usage_series`; empty without prices */
  price_series: number[][][];
  price_note: string;
  decisions: Decision[];
  jobs: JobInfo[];
  /** The result's `summary` (`best` for placement). */
  summary: Record<string, unknown>;
  /** route: {topology, routes, link_load, aggregate}; placement: {workers, rounds, categories_examined,
   *  method, market_stats, market: {classes: {workers: number[]}[], categories: (CategoryMarket | null)[]} | null};
   *  preempt: {queues, preemptions_replayed}; otherwise null. */
  extra: Record<string, unknown> | null;
}

export interface SimState {
  step: number;
  steps: number;
  done: boolean;
  /** usage[s][r] at this step */
  usage: number[][];
  /** largest used/capacity over resources, per server */
  utilisation: number[];
  /** price[s][r] at this step (empty without prices) */
  price: number[][];
  /** indices into Timeline.bars active at this step */
  running: number[];
  /** per server: waiting entries (preempt: "job#chunk@wWorker") */
  queues: string[][];
  decisions: Decision[];
  /** per job: waiting | pending | running | done | rejected */
  status: string[];
  /** placement (HAS / JPS): the kernel's matching market of this step's category */
  market?: CategoryMarket;
}
