// Typed usage of the package (checked by `tsc --noEmit -p test/types` in scripts/ci.sh): if the
// hand-written types in types/mlsched.d.ts drift from the package's API, this stops compiling.
import init, { run, runWith, runEvents, bundledScenarios, policies, version, Engine, Simulation, DecisionBench } from "mlsched";
import { load, kindOf, bundledScenarios as listed, policies as policiesOf, loadedKinds, KINDS } from "mlsched/loader";
import type { KindModule } from "mlsched/loader";
import type { Arrival, BundledScenario, HostEvent, JobStatus, EngineDecision, Kind, SimState, Timeline, Decision, CategoryMarket, MarketRound } from "mlsched";

async function main(): Promise<void> {
  await init();
  const v: string = version();
  const list: BundledScenario[] = bundledScenarios();
  const first: BundledScenario | undefined = list[0];
  if (!first) return;
  const kind: Kind = first.kind;
  const pols: string[] = policies(kind);
  const result: string = pols.length > 1 ? runWith(first.scenario, pols[1], false) : run(first.scenario);
  const hash: string = JSON.parse(result).log_hash;

  const sim = new Simulation(first.scenario);
  const tl: Timeline = sim.timeline();
  const heat: number = tl.price.length ? tl.price[0][0][0] : tl.usage[0][0][0];
  const changes: number = tl.usage_series[0][0].length / 2 + tl.price_series.length;
  while (sim.step()) {
    const st: SimState = sim.state();
    const d: Decision[] = st.decisions;
    for (const x of d) {
      const why: string = x.text;
      if (x.record && "payoff" in x.record) console.log(why, x.record.payoff);
      if (x.record && "iota" in x.record) console.log(why, x.record.round, x.record.utility);
    }
    const m: CategoryMarket | null | undefined = st.market;
    const rounds: MarketRound[] = m ? m.rounds : [];
    for (const r of rounds) console.log(r.round, r.prices, r.over ?? "cleared", r.demand[0]?.need);
  }
  sim.seek(0);
  const again: Simulation = Simulation.fromResult(first.scenario, sim.resultJson());
  console.log(again.steps, again.currentStep, again.done, again.kind, tl.steps, heat, changes);
  again.free();
  sim.free();

  // The event-driven engine: arrivals (by id) and slot advances, then the result document.
  const eng = new Engine(first.scenario, null);
  const order: Arrival[] = eng.arrivalOrder();
  let next = 0;
  let t: number | undefined = order[0]?.slot;
  while (t !== undefined) {
    const now: number = t;
    while (next < order.length && order[next].slot <= now) {
      const id: string | undefined = eng.jobId(order[next].job);
      const ds: EngineDecision[] = eng.arrive(id ?? order[next].job, now);
      for (const d of ds) console.log(d.record, d.job ?? "-", Object.keys(d.data).length);
      next++;
    }
    eng.advance(now);
    const wake: number | undefined = eng.nextWakeup;
    const arr: number | undefined = next < order.length ? Math.max(order[next].slot, now + 1) : undefined;
    t = wake === undefined ? arr : arr === undefined ? Math.max(wake, now + 1) : Math.min(arr, Math.max(wake, now + 1));
  }
  const snap: Uint8Array = eng.snapshot();
  const servers: string[] = eng.serverIds;
  const down: HostEvent = { event: "server_down", at: 1, server: servers[0] };
  const ow: EngineDecision[] = [
    ...eng.event(down),
    ...eng.event(JSON.stringify({ event: "server_up", at: 2, server: servers[0] })),
    ...eng.serverDown(servers[0], 3),
    ...eng.serverUp(servers[0], 4),
    ...eng.setCapacity(servers[0], [1, 2, 3], 5),
    ...eng.cancel("j1", 6),
    ...eng.submit({ id: "new" }, 7),
  ];
  const st: JobStatus | undefined = eng.status("j1");
  const withEvents: string = runEvents(first.scenario, JSON.stringify(down) + "\n", null);
  console.log(ow.length, st, withEvents.length);
  const restored: Engine = Engine.restore(first.scenario, eng.policy, snap);
  const same2: boolean = restored.runToEnd() === eng.finish() && eng.now === restored.now;
  console.log(eng.kind, eng.policy, eng.jobs, same2);
  restored.free();
  eng.free();

  const bench = new DecisionBench(first.scenario);
  const same: boolean = bench.run(3) === hash;
  bench.free();
  console.log(v, same);
  try {
    run('{"kind": "oasis"}');
  } catch (e) {
    if (e instanceof Error) console.log(e.message);
  }
}

// The web loader: one module per kind, loaded on first use.
async function perKind(): Promise<void> {
  const first = listed()[0];
  if (!first) return;
  const k: Kind = kindOf(first.scenario);
  const m: KindModule = await load(first.scenario);
  const again: KindModule = await load(k);
  const r: string = m.run(first.scenario);
  const s = new m.Simulation(first.scenario);
  const e = new again.Engine(first.scenario, policiesOf(k)[0]);
  const mine: Kind[] = m.kinds();
  console.log(r.length, s.steps, e.jobs, mine, loadedKinds(), KINDS.length);
}

void main();
void perKind();
