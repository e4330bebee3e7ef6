//! The kernel's own view of a run, for the visualiser: when a result document was produced by
//! the kind's own algorithm, the scenario is scheduled again through the kernel API exactly as
//! `mlsched run` does (same calls, same order) and the decision log is hashed alongside. Only if
//! that hash equals the result's `log_hash` (so the re-run took the very decisions the result
//! records) are the kernel's state and decision records used:
//! - OASiS: the market's prices p_h^r(t) / q_k^r(t) (eq. 22) and each job's `Decision`;
//! - Zhou et al.: the usage beta_h^r(t) priced by the kernel's delta (eq. 11) with the
//!   scheduler's lambda, and every `OnlineDecision` (one per job, round and A_dual window);
//! - HAS / JPS: every round of the matching market (Algorithm 2) of a category, through
//!   [`Market::run_traced`].
//!
//! Anything else (a baseline policy, a hand-edited result) returns `None` and the replay falls
//! back to the result document alone.
use mlsched_kernel::driver::{arrival_order, Driver};
use mlsched_kernel::log::{HashSink, LogSink};
use mlsched_kernel::model::placement::Method;
use mlsched_kernel::oasis::{Decision as OasisDecision, OasisOutput, OasisScheduler};
use mlsched_kernel::online::{OnlineDecision, OnlineOutput, OnlineScheduler, Search};
use mlsched_kernel::placement::{Market, PlacementOutput, PlacementScheduler, Placer, MARKET_CAP};
use mlsched_kernel::price::zhou_price;
use mlsched_scenario::doc::oasis::OasisDoc;
use mlsched_scenario::doc::online::OnlineDoc;
use mlsched_scenario::doc::placement::PlacementDoc;
use serde_json::{json, Value};

/// Market rounds kept per category (the first ones; the count of all is reported).
pub const MARKET_ROUNDS_SHOWN: usize = 60;

fn same_run(res: &Value, policy: &str, sink: &HashSink) -> bool {
    res.get("policy").and_then(Value::as_str) == Some(policy)
        && res.get("log_hash").and_then(Value::as_str) == Some(sink.hash().hex().as_str())
}

/// OASiS as the kernel saw it.
pub struct OasisTrace {
    /// The kernel's decision per job, in the order OASiS took them.
    pub decisions: Vec<OasisDecision>,
    /// `price[r][row][t]`: rows = worker servers, then PS servers (the timeline's rows).
    pub price: Vec<Vec<Vec<f64>>>,
    /// True when the bounds U, L were derived by eqs. (23)-(26).
    pub bounds_derived: bool,
}

/// Re-runs OASiS (as `exec::oasis::run`) and reads the market after the last decision.
pub fn oasis(d: &OasisDoc, res: &Value) -> Option<OasisTrace> {
    let scn = d.validate().ok()?;
    let mut s = OasisScheduler::new(&scn).ok()?;
    let mut sink = HashSink::new();
    let mut decisions = Vec::new();
    Driver::new(&mut s)
        .run(
            &arrival_order(scn.jobs.iter().map(|j| j.arrival)),
            &mut sink,
            &mut |o: &OasisOutput<'_>| {
                if let OasisOutput::Decision(d) = o {
                    decisions.push(**d);
                }
            },
        )
        .ok()?;
    if !same_run(res, "oasis", &sink) {
        return None;
    }
    // A slot's prices are final once the jobs arriving by then are decided (later jobs place
    // only in their own slots a_i..T-1), so the last market holds every slot's price as the
    // scheduler saw it when the slot ran.
    let m = s.market();
    let (nh, nk) = (m.workers.servers(), m.ps.servers());
    let nr = m.resources() as usize;
    let price = (0..nr)
        .map(|r| {
            let w = (0..nh).map(|h| (0..m.slots()).map(|t| m.workers.price(t, h, r)).collect());
            let p = (0..nk).map(|k| (0..m.slots()).map(|t| m.ps.price(t, k, r)).collect());
            w.chain(p).collect()
        })
        .collect();
    Some(OasisTrace {
        decisions,
        price,
        bounds_derived: s.bounds_derived(),
    })
}

/// Zhou et al.'s A_online as the kernel saw it.
pub struct OnlineTrace {
    /// Every decision (job, round, window), in the order the scheduler emitted them.
    pub decisions: Vec<OnlineDecision>,
    /// `price[r][h][t]` = delta_h^r(t) of the final usage.
    pub price: Vec<Vec<Vec<f64>>>,
    /// The scheduler's lambda.
    pub lambda: f64,
}

/// Re-runs A_online through the kernel's driver (as `exec::online` does).
pub fn online(d: &OnlineDoc, res: &Value) -> Option<OnlineTrace> {
    let scn = d.validate().ok()?;
    let mut s = OnlineScheduler::new(&scn, Search::Fast).ok()?;
    let mut sink = HashSink::new();
    let mut decisions: Vec<OnlineDecision> = Vec::new();
    Driver::new(&mut s)
        .run(
            &arrival_order(scn.jobs.iter().map(|j| j.arrival)),
            &mut sink,
            &mut |o: &OnlineOutput<'_>| {
                if let OnlineOutput::Decision(d) = o {
                    decisions.push((*d).clone());
                }
            },
        )
        .ok()?;
    if !same_run(res, "online", &sink) {
        return None;
    }
    // Later rounds place jobs only from alpha tau_i > now on, so slot t's usage is final once
    // slot t has run: the last state holds every slot's prices as they were when it ran.
    let (nh, nr) = (scn.servers.len(), scn.resources as usize);
    let usage = &s.state().usage;
    let lambda = s.lambda();
    let price = (0..nr)
        .map(|r| {
            (0..nh)
                .map(|h| {
                    let cap = scn.servers.get(h).map_or(0.0, |c| c.get(r));
                    (0..scn.slots as usize)
                        .map(|t| {
                            let used = usage.get((t * nh + h) * nr + r).copied().unwrap_or(0.0);
                            zhou_price(lambda, used, cap)
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    Some(OnlineTrace {
        decisions,
        price,
        lambda,
    })
}

/// The HAS / JPS matching market of each category in `cats` (K_i per job, input order), as
/// `{classes, categories: [{category, rounds, total_rounds, cleared, truncated}]}`, or `None`
/// when the result is not the kernel's HAS / JPS run of this scenario.
pub fn placement_market(d: &PlacementDoc, res: &Value, cats: &[Vec<u32>]) -> Option<Value> {
    let scn = d.validate().ok()?;
    let policy = res.get("policy").and_then(Value::as_str)?;
    let method = match policy {
        "has" => Method::Has,
        "jps" => Method::Jps,
        _ => return None,
    };
    let mut sink = HashSink::new();
    let arrivals: Vec<(u32, u32)> = (0..scn.jobs.len() as u32).map(|j| (0, j)).collect();
    let mut driver = Driver::new(PlacementScheduler::new(Placer::new(&scn).ok()?, method));
    driver
        .run(&arrivals, &mut sink, &mut |_: &PlacementOutput<'_>| {})
        .ok()?;
    if !same_run(res, policy, &sink) {
        return None;
    }
    let ps = driver.into_inner();
    let placer = ps.placer();
    let inst = placer.instance();
    let cl = &inst.classes;
    let classes: Vec<Value> = (0..cl.len())
        .map(|c| {
            let (a, b) = (cl.start[c] as usize, cl.start[c + 1] as usize);
            json!({ "workers": cl.members.get(a..b).unwrap_or(&[]) })
        })
        .collect();
    let mut market = Market::new(inst);
    let mut per_cat = Vec::new();
    for cat in cats {
        if cat.len() != inst.s {
            per_cat.push(Value::Null);
            continue;
        }
        let mut rounds: Vec<Value> = Vec::new();
        let out = market.run_traced(inst, cat, MARKET_CAP, |r| {
            if rounds.len() >= MARKET_ROUNDS_SHOWN && r.over.is_some() {
                return;
            }
            let demand: Vec<Value> = (0..inst.s)
                .map(|i| {
                    let (strict, tied, need) = r.demand(i);
                    json!({ "strict": strict, "tied": tied, "need": need })
                })
                .collect();
            let mut rec = json!({
                "round": r.round,
                "prices": r.prices(),
                "demand": demand,
                "over": r.over,
                "constricted": r.constricted,
            });
            if r.constricted {
                let set: Vec<u32> = (0..cl.len() as u32)
                    .filter(|&c| r.in_constricted_set(c as usize))
                    .collect();
                rec["constricted_set"] = json!(set);
            }
            if r.over.is_none() {
                rec["counts"] = json!(r.counts());
            }
            rounds.push(rec);
        });
        per_cat.push(json!({
            "category": cat,
            "rounds": rounds,
            "total_rounds": out.rounds,
            "unit_rounds": out.unit_rounds,
            "cleared": out.cleared,
            "truncated": rounds.len() < out.rounds as usize + usize::from(out.cleared),
        }));
    }
    Some(json!({ "classes": classes, "categories": per_cat }))
}

/// A kernel decision record as JSON (integers and floats only).
pub fn oasis_record(d: &OasisDecision) -> Value {
    json!({
        "job": d.job,
        "arrival": d.arrival,
        "admitted": d.admitted,
        "reason": d.reason.code(),
        "completion_slot": d.completion_slot,
        "utility": d.utility,
        "cost": d.cost,
        "payoff": d.payoff,
    })
}

/// A kernel `OnlineDecision` as JSON (without the fixed-point cost and the placement).
pub fn online_record(d: &OnlineDecision) -> Value {
    json!({
        "job": d.job,
        "round": d.round,
        "tau": d.tau,
        "iota": d.iota,
        "feasible": d.feasible,
        "scheduled": d.scheduled,
        "colocated": d.colocated,
        "worker_type": d.worker_type,
        "ps_type": d.ps_type,
        "start": d.start,
        "duration": d.duration,
        "workers": d.workers,
        "cost": d.cost,
        "utility": d.utility,
    })
}
