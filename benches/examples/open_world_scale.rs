//! What an open-world event costs next to an arrival (issue 46, "Speed"), for `docs/scale.md`'s
//! "Open world: the cost of an event" (timings are measured here, never asserted in tests).
//!
//! ```text
//! cargo run --release -p mlsched-benches --example open_world_scale -- FILE.json [--seed N] [--policy P] [--only closed|open] [--period S]
//! ```
//!
//! FILE is a scenario document of any kind (e.g. `mlsched gen oasis --nodes 12500 --jobs
//! 100000`). Two runs of it, each a host loop feeding `mlsched_scenario::event::Feeder::apply`
//! one event at a time (each call catches up the scheduler's wake-ups before its slot, so an
//! arrival's time includes the slots decided since the previous event, as the service sees it):
//! - closed: every job's `arrive` at its arrival, in (arrival, index) order;
//! - open: the same arrivals, plus every S slots (`--period`, default 100) 1 % of the servers
//!   (`Engine::server_ids`, drawn with a SplitMix64 over the seed among those up) going
//!   `server_down` and coming back `server_up` S slots later (while that is before the scenario's
//!   `slots`, if it has that field, else up to its last arrival), and 5 % of the jobs (a
//!   SplitMix64 draw per job) cancelled one slot after their arrival. Within a slot: ups, downs, cancels, then arrivals (the order
//!   `Engine::run_events` feeds them in). A world event the engine refuses with an input error
//!   (e.g. a cancel of a job that already ended) is counted, not applied.
//!
//! After the last event `Engine::run_to_end` feeds the remaining wake-ups ("tail"). Each call is
//! timed in the thread's CPU time (on a shared machine a run waits for a core much of the time,
//! and only the CPU time says what a call costs) and in wall time; the quantiles are nearest
//! rank. A call made in a slot the engine had already reached feeds no wake-up: its time is
//! the event's own, listed apart ("in a slot already reached"). Prints one line per run, then
//! the ratios and /proc/loadavg before and after. Per decision, each re-plan of a down (after
//! the first of its call) is also set beside the admission of the very job it re-plans
//! (`docs/scale.md`, "Per decision, job for job"), and every decision of both runs is split by
//! job: the jobs a server event interrupted in the open run, and the others ("Per decision, by
//! job"). The tail's decisions (A_online's rounds after the last arrival) are timed too.
use mlsched_benches::thread_cpu_ms;
use mlsched_scenario::engine::Engine;
use mlsched_scenario::error::RunError;
use mlsched_scenario::event::{Feeder, HostEvent};
use mlsched_scenario::run::RunOptions;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;
use std::time::Instant;

/// Per mille of the servers in a batch.
const DOWN_PER_MILLE: u64 = 10;
/// Per cent of the jobs cancelled.
const CANCEL_PERCENT: u64 = 5;

/// As the `mlsched` CLI: large arrays on transparent huge pages (`MLSCHED_HUGEPAGES=0` to
/// compare without; `docs/scale.md`, "Huge pages").
#[global_allocator]
static ALLOC: mlsched_hugepages::HugePages = mlsched_hugepages::HugePages;

fn main() {
    mlsched_hugepages::from_env().expect("MLSCHED_HUGEPAGES");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && (*i == 0 || !args[i - 1].starts_with("--")))
        .map(|(_, a)| a.clone())
        .expect("usage: FILE [--seed N] [--policy P] [--only closed|open]");
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let seed: u64 = flag("--seed").map_or(1, |s| s.parse().expect("--seed N"));
    let only = flag("--only");
    let period: u32 = flag("--period").map_or(100, |s| s.parse().expect("--period S"));
    let opts = RunOptions {
        policy: flag("--policy"),
        all_categories: false,
    };
    let text = std::fs::read_to_string(&path).expect("read scenario");
    let slots = serde_json::from_str::<serde_json::Value>(&text).expect("JSON")["slots"].as_f64();
    let world = World {
        seed,
        period,
        slots: slots.map(|s| s as u32),
    };
    let load0 = loadavg();
    let closed = (only.as_deref() != Some("open")).then(|| run(&text, &opts, None));
    let open = (only.as_deref() != Some("closed")).then(|| run(&text, &opts, Some(&world)));
    for r in closed.iter().chain(open.iter()) {
        r.print();
    }
    if let (Some(c), Some(o)) = (&closed, &open) {
        let ratio = |a: f64, b: f64| a / b;
        println!(
            "ratios (CPU): open p99 arrival / closed p99 arrival {:.2}x; world-event p99 / \
             closed arrival p99 {:.2}x; open wall / closed wall {:.2}x (CPU {:.2}x)",
            ratio(o.arrive.cpu.at(0.99), c.arrive.cpu.at(0.99)),
            ratio(o.world_all().cpu.at(0.99), c.arrive.cpu.at(0.99)),
            ratio(o.wall_s, c.wall_s),
            ratio(o.cpu_s, c.cpu_s),
        );
        println!(
            "ratios (wall): open p99 arrival / closed p99 arrival {:.2}x; world-event p99 / \
             closed arrival p99 {:.2}x",
            ratio(o.arrive.wall.at(0.99), c.arrive.wall.at(0.99)),
            ratio(o.world_all().wall.at(0.99), c.arrive.wall.at(0.99)),
        );
    }
    if let (Some(c), Some(o)) = (&closed, &open) {
        println!(
            "ratios (CPU, calls in a slot already reached): open p99 arrival / closed {:.2}x; \
             world-event p99 / closed arrival p99 {:.2}x",
            o.arrive.alone.at(0.99) / c.arrive.alone.at(0.99),
            o.world_all().alone.at(0.99) / c.arrive.alone.at(0.99),
        );
    }
    if let (Some(c), Some(o)) = (&closed, &open) {
        println!(
            "ratios (CPU, per decision): open p99 decision / closed p99 decision {:.2}x; \
             decisions inside world events p99 / closed p99 decision {:.2}x",
            o.decisions.all().at(0.99) / c.decisions.all().at(0.99),
            o.decisions.in_world.at(0.99) / c.decisions.all().at(0.99),
        );
        println!(
            "ratios (CPU, committed decisions): re-plans p99 (all) / closed admitted arrivals \
             p99 {:.2}x; re-plans after the first of their call p99 / closed admitted p99 {:.2}x",
            {
                let mut v = o.decisions.recovered_first.0.clone();
                v.extend(&o.decisions.recovered_next.0);
                Quantiles(v).at(0.99)
            } / c.decisions.admitted.at(0.99),
            o.decisions.recovered_next.at(0.99) / c.decisions.admitted.at(0.99),
        );
    }
    if let (Some(c), Some(o)) = (&closed, &open) {
        print_split(c, o);
    }
    println!("loadavg before: {load0}; after: {}", loadavg());
}

/// Every decision of the two runs split by job: the jobs a server event interrupted in the
/// open run, and all the others. Set against the same jobs' decisions in the closed run, it
/// says whether the open world made deciding dearer for everyone, or only for the interrupted
/// jobs (whose recovery is extra decisions, and which are the long, wide ones).
fn print_split(c: &Run, o: &Run) {
    let (c_hit, c_rest) = c.decisions.split(&o.hit);
    let (o_hit, o_rest) = o.decisions.split(&o.hit);
    println!(
        "decisions by job ({} jobs interrupted by a server event in the open run): the other \
         jobs' decisions closed n {}: {}; open n {}: {}; open p99 / closed p99 {:.2}x",
        o.hit.len(),
        c_rest.0.len(),
        c_rest.show(),
        o_rest.0.len(),
        o_rest.show(),
        o_rest.at(0.99) / c_rest.at(0.99)
    );
    println!(
        "  the interrupted jobs' decisions: closed n {}: {}; open n {}: {}; open p99 / closed \
         p99 {:.2}x; their open p99 / every closed decision's p99 {:.2}x",
        c_hit.0.len(),
        c_hit.show(),
        o_hit.0.len(),
        o_hit.show(),
        o_hit.at(0.99) / c_hit.at(0.99),
        o_hit.at(0.99) / c.decisions.all().at(0.99)
    );
}

/// The first three fields of /proc/loadavg (empty where there is none).
fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// Per-call times in ms, CPU and wall; `alone` holds the CPU times of the calls made in a slot
/// the engine had already reached (no wake-up fed inside the call: the event's own cost).
#[derive(Clone, Default)]
struct Times {
    cpu: Quantiles,
    wall: Quantiles,
    alone: Quantiles,
}

impl Times {
    fn time<T>(&mut self, alone: bool, f: impl FnOnce() -> T) -> T {
        let (w0, c0) = (Instant::now(), thread_cpu_ms());
        let r = f();
        let cpu = thread_cpu_ms() - c0;
        self.cpu.0.push(cpu);
        self.wall.0.push(w0.elapsed().as_secs_f64() * 1e3);
        if alone {
            self.alone.0.push(cpu);
        }
        r
    }

    /// "n N: CPU ..., wall ...; in a reached slot n M: CPU ...".
    fn show(&self) -> String {
        format!(
            "n {}: CPU {}, wall {}; in a slot already reached n {}: CPU {}",
            self.cpu.0.len(),
            self.cpu.show(),
            self.wall.show(),
            self.alone.0.len(),
            self.alone.show()
        )
    }
}

#[derive(Clone, Default)]
struct Quantiles(Vec<f64>);

impl Quantiles {
    /// The nearest-rank quantile `p` (0 when empty; sorts on first use).
    fn at(&self, p: f64) -> f64 {
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        v.get(((v.len() as f64 - 1.0) * p).round() as usize)
            .copied()
            .unwrap_or(0.0)
    }

    fn show(&self) -> String {
        format!(
            "p50 {:.3} p99 {:.3} max {:.3} ms",
            self.at(0.5),
            self.at(0.99),
            self.at(1.0)
        )
    }
}

/// The decision-log sink of the runs: the hash sink `mlsched run` uses, plus the thread's CPU
/// time at each *decision* record (OASiS: an arrival's admission or rejection, and an
/// open-world outcome: a recovered, lost or cancelled job; A_online: a job decided in a
/// round). A call's decisions then cost the CPU time from the call's start (or the decision
/// before) to their record: an arrival is one decision, a `server_down` of OASiS one per job
/// it interrupts (its re-plans), so "per decision" compares like with like.
#[derive(Clone)]
struct DecisionClock {
    hash: mlsched_kernel::log::HashSink,
    stamps: Rc<RefCell<Vec<Stamp>>>,
    /// The jobs a server event (down or capacity cut, not a cancel) interrupted, read from
    /// the open-world records (OASiS: recovered or lost; A_online: interrupted).
    hit: Rc<RefCell<BTreeSet<u32>>>,
}

/// A decision record: its CPU time, the CPU time after the clock's own bookkeeping (reading
/// the job's index), whether slot records followed it (OASiS: the job was admitted or
/// recovered, so its schedule was committed) and the job's index.
#[derive(Clone, Copy)]
struct Stamp {
    at: f64,
    after: f64,
    committed: bool,
    job: u32,
}

impl mlsched_kernel::log::LogSink for DecisionClock {
    fn record<T: serde::Serialize + ?Sized>(
        &mut self,
        tag: u8,
        rec: &T,
    ) -> Result<(), mlsched_kernel::log::LogError> {
        use mlsched_kernel::oasis::{Reason, TAG_OASIS_DECISION, TAG_OASIS_SLOT, TAG_OASIS_WORLD};
        use mlsched_kernel::online::{CAUSE_CANCEL, TAG_ONLINE_DECISION, TAG_ONLINE_INTERRUPTED};
        let decision = matches!(
            tag,
            TAG_OASIS_DECISION | TAG_OASIS_WORLD | TAG_ONLINE_DECISION
        );
        let world = matches!(tag, TAG_OASIS_WORLD | TAG_ONLINE_INTERRUPTED);
        if decision || world {
            let at = thread_cpu_ms();
            // The job (and for an open-world record its cause), read outside the decision's
            // time: the next decision is timed from `after`.
            let v = serde_json::to_value(rec).unwrap_or_default();
            let job = v["job"].as_u64().map_or(u32::MAX, |j| j as u32);
            let cancel = if tag == TAG_OASIS_WORLD {
                let code = v["outcome"].as_u64().and_then(|c| u8::try_from(c).ok());
                code.and_then(|c| Reason::from_code(c, 0)) == Some(Reason::Cancelled)
            } else {
                v["cause"].as_u64() == Some(u64::from(CAUSE_CANCEL))
            };
            if world && !cancel && job != u32::MAX {
                self.hit.borrow_mut().insert(job);
            }
            let mut stamps = self.stamps.borrow_mut();
            if decision {
                stamps.push(Stamp {
                    at,
                    after: thread_cpu_ms(),
                    committed: false,
                    job,
                });
            } else if let Some(last) = stamps.last_mut() {
                last.after = thread_cpu_ms();
            }
        } else if tag == TAG_OASIS_SLOT {
            if let Some(last) = self.stamps.borrow_mut().last_mut() {
                last.committed = true;
            }
        }
        self.hash.record(tag, rec)
    }

    fn hash(&self) -> mlsched_kernel::log::LogHash {
        self.hash.hash()
    }
}

/// Which kind of call a decision was made in.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Call {
    Arrival,
    World,
    Tail,
}

/// Per-decision CPU times (ms): of the decisions made inside arrival calls, inside world
/// events' calls (`server_down`, `server_up`, `cancel`) and in the tail (`run_to_end`, where
/// A_online makes the rounds after the last event); and of the committed ones only (an
/// admitted arrival; a recovered job's re-plan, apart from the first of its call, which also
/// pays the event's own bookkeeping).
#[derive(Clone, Default)]
struct Decisions {
    in_arrivals: Quantiles,
    in_world: Quantiles,
    in_tail: Quantiles,
    admitted: Quantiles,
    recovered_first: Quantiles,
    recovered_next: Quantiles,
    /// Each admitted arrival's time by job index (for the pairs below).
    admitted_by_job: std::collections::BTreeMap<u32, f64>,
    /// (job, time) of each re-plan after the first of its call.
    next_by_job: Vec<(u32, f64)>,
    /// (job, time) of every decision.
    by_job: Vec<(u32, f64)>,
}

impl Decisions {
    /// Splits one call (started at CPU time `c0`) into its decisions' times.
    fn take(&mut self, stamps: &RefCell<Vec<Stamp>>, c0: f64, call: Call) {
        let world = call == Call::World;
        let mut prev = c0;
        for (k, st) in stamps.borrow().iter().enumerate() {
            let (dt, committed) = (st.at - prev, st.committed);
            prev = st.after;
            self.by_job.push((st.job, dt));
            match call {
                Call::Arrival => self.in_arrivals.0.push(dt),
                Call::World => self.in_world.0.push(dt),
                Call::Tail => self.in_tail.0.push(dt),
            }
            match (committed, world, k) {
                (false, _, _) => {}
                (true, false, _) => {
                    self.admitted.0.push(dt);
                    self.admitted_by_job.insert(st.job, dt);
                }
                (true, true, 0) => self.recovered_first.0.push(dt),
                (true, true, _) => {
                    self.recovered_next.0.push(dt);
                    self.next_by_job.push((st.job, dt));
                }
            }
        }
        stamps.borrow_mut().clear();
    }

    /// The re-plans after the first of their call, beside their own jobs' admissions (one
    /// admission per re-plan): a down interrupts the jobs holding the server, so long and wide
    /// jobs are interrupted more often than they arrive, and comparing re-plans with all
    /// admissions compares different jobs. Returns (re-plans, their jobs' admissions, the
    /// per-pair ratios re-plan / admission).
    fn paired(&self) -> (Quantiles, Quantiles, Quantiles) {
        let (mut r, mut a, mut q) = (Vec::new(), Vec::new(), Vec::new());
        for &(j, t) in &self.next_by_job {
            if let Some(&t0) = self.admitted_by_job.get(&j) {
                r.push(t);
                a.push(t0);
                q.push(t / t0.max(1e-6));
            }
        }
        (Quantiles(r), Quantiles(a), Quantiles(q))
    }

    /// Every decision's time, split by whether its job is in `hit`: (in it, not in it).
    fn split(&self, hit: &BTreeSet<u32>) -> (Quantiles, Quantiles) {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for &(j, t) in &self.by_job {
            if hit.contains(&j) {
                a.push(t);
            } else {
                b.push(t);
            }
        }
        (Quantiles(a), Quantiles(b))
    }

    fn all(&self) -> Quantiles {
        let mut v = self.in_arrivals.0.clone();
        v.extend(&self.in_world.0);
        v.extend(&self.in_tail.0);
        Quantiles(v)
    }
}

/// One run's measurements.
struct Run {
    name: &'static str,
    servers: usize,
    jobs: u32,
    arrive: Times,
    /// server_down, server_up, cancel.
    world: [Times; 3],
    tail_s: f64,
    wall_s: f64,
    cpu_s: f64,
    applied: [u64; 3],
    refused: [u64; 3],
    first_refusal: Option<String>,
    log_hash: String,
    statuses: String,
    decisions: Decisions,
    /// The jobs a server event interrupted ([`DecisionClock::hit`]).
    hit: BTreeSet<u32>,
}

impl Run {
    /// Every world event's times together.
    fn world_all(&self) -> Times {
        let mut all = Times::default();
        for t in &self.world {
            all.cpu.0.extend(&t.cpu.0);
            all.wall.0.extend(&t.wall.0);
            all.alone.0.extend(&t.alone.0);
        }
        all
    }

    fn print(&self) {
        println!(
            "{}: {} servers, {} jobs: wall {:.2} s, CPU {:.2} s (tail {:.2} s); arrivals {}",
            self.name,
            self.servers,
            self.jobs,
            self.wall_s,
            self.cpu_s,
            self.tail_s,
            self.arrive.show()
        );
        let all = self.world_all();
        if !all.cpu.0.is_empty() {
            println!("  world events {}", all.show());
            for (k, name) in ["server_down", "server_up", "cancel"].iter().enumerate() {
                println!(
                    "    {name}: applied {} refused {}: {}",
                    self.applied[k],
                    self.refused[k],
                    self.world[k].show()
                );
            }
        }
        println!(
            "  decisions (CPU from the call's start or the decision before): all n {}: {}; in \
             arrival calls n {}: {}; in world-event calls n {}: {}; in the tail n {}: {}",
            self.decisions.all().0.len(),
            self.decisions.all().show(),
            self.decisions.in_arrivals.0.len(),
            self.decisions.in_arrivals.show(),
            self.decisions.in_world.0.len(),
            self.decisions.in_world.show(),
            self.decisions.in_tail.0.len(),
            self.decisions.in_tail.show()
        );
        println!(
            "  committed decisions: admitted arrivals n {}: {}; recovered re-plans, first of \
             their call n {}: {}; the others n {}: {}",
            self.decisions.admitted.0.len(),
            self.decisions.admitted.show(),
            self.decisions.recovered_first.0.len(),
            self.decisions.recovered_first.show(),
            self.decisions.recovered_next.0.len(),
            self.decisions.recovered_next.show()
        );
        let (r, a, q) = self.decisions.paired();
        if !r.0.is_empty() {
            println!(
                "  re-plans after the first of their call, beside their own jobs' admissions \
                 (n {}): re-plans {}; the same jobs admitted {}; per pair re-plan / admission \
                 p50 {:.2}x p99 {:.2}x; p99 / p99 {:.2}x",
                r.0.len(),
                r.show(),
                a.show(),
                q.at(0.5),
                q.at(0.99),
                r.at(0.99) / a.at(0.99)
            );
        }
        if let Some(e) = &self.first_refusal {
            println!("  first refusal: {e}");
        }
        println!("  log_hash {} statuses {}", self.log_hash, self.statuses);
    }
}

/// SplitMix64: a seeded, portable stream (the draws never depend on the platform).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// One event of the host loop: its slot, its class (the order within a slot) and the event.
type Planned = (u32, u8, HostEvent);

/// The open world's draws: the seed, the period of the server batches, the scenario's horizon.
struct World {
    seed: u64,
    period: u32,
    slots: Option<u32>,
}

/// The closed world's arrivals, plus (open world) the server and cancel events, sorted by
/// (slot, class); arrivals keep (arrival, index) order.
fn plan<L: mlsched_kernel::log::LogSink>(e: &Engine<L>, world: Option<&World>) -> Vec<Planned> {
    let id = |j: u32| e.job_id(j).expect("job id").to_string();
    let mut ev: Vec<Planned> = e
        .arrival_order()
        .iter()
        .map(|&(at, j)| (at, 3, HostEvent::Arrive { at, job: id(j) }))
        .collect();
    let Some(&World {
        seed,
        period,
        slots,
    }) = world
    else {
        return ev;
    };
    // The last slot a server may come back at.
    let last = slots.map_or(ev.last().map_or(0, |p| p.0), |s| s.saturating_sub(1));
    let mut rng = SplitMix(seed);
    for &(at, j) in e.arrival_order() {
        if SplitMix(seed ^ (u64::from(j) << 20)).next() % 100 < CANCEL_PERCENT {
            let at = at + 1;
            ev.push((at, 2, HostEvent::Cancel { at, job: id(j) }));
        }
    }
    let ids = e.server_ids();
    let k = ((ids.len() as u64 * DOWN_PER_MILLE).div_ceil(1000)) as usize;
    let mut perm: Vec<usize> = (0..ids.len()).collect();
    let mut t = period;
    while t + period <= last {
        // A partial Fisher-Yates shuffle: k distinct servers. The batch before comes back at t
        // (class 0, before the downs), so every server is up when drawn.
        for i in 0..k.min(perm.len()) {
            let r = i + (rng.next() % (perm.len() - i) as u64) as usize;
            perm.swap(i, r);
            let server = ids[perm[i]].clone();
            let up = t + period;
            ev.push((
                t,
                1,
                HostEvent::ServerDown {
                    at: t,
                    server: server.clone(),
                },
            ));
            ev.push((up, 0, HostEvent::ServerUp { at: up, server }));
        }
        t += period;
    }
    // Stable: arrivals stay in (arrival, index) order, world events in the order drawn.
    ev.sort_by_key(|p| (p.0, p.1));
    ev
}

fn run(text: &str, opts: &RunOptions, world: Option<&World>) -> Run {
    let stamps = Rc::new(RefCell::new(Vec::new()));
    let hit = Rc::new(RefCell::new(BTreeSet::new()));
    let sink = DecisionClock {
        hash: mlsched_kernel::log::HashSink::new(),
        stamps: Rc::clone(&stamps),
        hit: Rc::clone(&hit),
    };
    let mut e = Engine::with_sink(text, opts, sink).expect("valid scenario");
    let events = plan(&e, world);
    let feeder = Feeder::new(&e);
    let mut r = Run {
        name: if world.is_some() { "open" } else { "closed" },
        servers: e.server_ids().len(),
        jobs: e.jobs(),
        arrive: Times::default(),
        world: Default::default(),
        tail_s: 0.0,
        wall_s: 0.0,
        cpu_s: 0.0,
        applied: [0; 3],
        refused: [0; 3],
        first_refusal: None,
        log_hash: String::new(),
        statuses: String::new(),
        decisions: Decisions::default(),
        hit: BTreeSet::new(),
    };
    let (w0, c0) = (Instant::now(), thread_cpu_ms());
    for (n, (at, class, ev)) in events.iter().enumerate() {
        let alone = e.now() == Some(*at) && !e.advanced();
        stamps.borrow_mut().clear();
        let call0 = thread_cpu_ms();
        if *class == 3 {
            r.arrive
                .time(alone, || feeder.apply(&mut e, ev, None))
                .expect("an arrival is never refused");
        } else {
            let k = match class {
                1 => 0,
                0 => 1,
                _ => 2,
            };
            match r.world[k].time(alone, || feeder.apply(&mut e, ev, None)) {
                Ok(()) => r.applied[k] += 1,
                Err(RunError::Input(i)) => {
                    r.refused[k] += 1;
                    if r.first_refusal.is_none() {
                        r.first_refusal = Some(format!("{} -> {i}", ev.to_json()));
                    }
                }
                Err(other) => panic!("{} failed the run: {other}", ev.to_json()),
            }
        }
        let call = if *class == 3 {
            Call::Arrival
        } else {
            Call::World
        };
        r.decisions.take(&stamps, call0, call);
        if n % 20_000 == 0 && n > 0 {
            // Progress on stderr, so a run stopped early still says how far it got.
            eprintln!(
                "{}: {n}/{} events, {:.1} s wall",
                r.name,
                events.len(),
                w0.elapsed().as_secs_f64()
            );
        }
    }
    stamps.borrow_mut().clear();
    let (t0, tail0) = (Instant::now(), thread_cpu_ms());
    let result = e.run_to_end(&mut |_| {}).expect("run to the end");
    r.tail_s = t0.elapsed().as_secs_f64();
    r.decisions.take(&stamps, tail0, Call::Tail);
    r.wall_s = w0.elapsed().as_secs_f64();
    r.cpu_s = (thread_cpu_ms() - c0) / 1e3;
    if let Some((live, free, mapped)) = mlsched_benches::heap_mb() {
        eprintln!(
            "{}: heap after the run: {live:.0} MB live ({mapped:.0} MB of it mmapped), {free:.0} \
             MB free in the allocator's arenas",
            r.name
        );
    }
    let v = serde_json::to_value(&result).expect("result as JSON");
    r.log_hash = v["log_hash"].as_str().unwrap_or("?").to_string();
    r.statuses = v["summary"]["statuses"].to_string();
    r.hit = std::mem::take(&mut *hit.borrow_mut());
    r
}
