//! [`Trace`]: kernel state a finished run leaves behind, for explanations beyond the decision
//! records ([`super::Engine::trace`]).
//!
//! - OASiS: the market's prices p_h^r(t) / q_k^r(t) (eq. 22) of every slot;
//! - Zhou et al. (A_online): the usage beta_h^r(t) priced by the kernel's delta (eq. 11) with the
//!   scheduler's lambda;
//! - HAS / JPS: every round of the matching market (Algorithm 2) of each category the result
//!   reports (`per_category`, then `best`), through [`Market::run_traced`].
//!
//! Reading a trace only reads the scheduler (the placement market runs on a fresh
//! [`Market`]): it changes no decision, no log record and no result byte.
use mlsched_kernel::model::online::OnlineScenario;
use mlsched_kernel::oasis::OasisScheduler;
use mlsched_kernel::online::OnlineScheduler;
use mlsched_kernel::placement::{Market, Placer, MARKET_CAP};
use mlsched_kernel::price::zhou_price;
use serde::Serialize;

/// Market rounds kept per category (the first ones; [`CategoryMarket::total_rounds`] counts
/// all).
pub const MARKET_ROUNDS_SHOWN: usize = 60;

/// The kernel state behind a run's explanations; `None` from [`super::Engine::trace`] for the
/// kinds and policies without one (baselines, preempt, route).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Trace {
    /// OASiS's prices.
    Oasis(OasisTrace),
    /// A_online's priced usage.
    Online(OnlineTrace),
    /// HAS / JPS matching markets.
    Placement(PlacementTrace),
}

/// OASiS's market after the run.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OasisTrace {
    /// `price[r][row][t]`: rows are the worker servers, then the PS servers. A slot's prices
    /// are final once the jobs arriving by then are decided (later jobs place only in their own
    /// slots a_i..T-1), so the last market holds every slot's prices as the scheduler saw them.
    pub price: Vec<Vec<Vec<f64>>>,
    /// True when the bounds U, L were derived by eqs. (23)-(26).
    pub bounds_derived: bool,
}

/// A_online's usage after the run, priced.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OnlineTrace {
    /// `price[r][h]` = delta_h^r(t) of the final usage (eq. 11) as change points
    /// `[t0, p0, t1, p1, ...]` ([`series_of_intervals`]): a dense resources x servers x slots
    /// grid is 1.1 GB for the openb trace at hour slots. Later rounds place jobs only after the
    /// current slot, so a slot's prices are final once it has run.
    pub price: Vec<Vec<Vec<f64>>>,
    /// The scheduler's lambda.
    pub lambda: f64,
}

/// The HAS / JPS matching market of every category of the result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlacementTrace {
    /// Worker classes (identical workers), with their members.
    pub classes: Vec<WorkerClass>,
    /// One market per category: the result's `per_category` rows, then `best`.
    pub categories: Vec<CategoryMarket>,
}

/// One worker class of the market.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkerClass {
    /// Worker indices.
    pub workers: Vec<u32>,
}

/// The market run of one category K = (K_1..K_n).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CategoryMarket {
    /// K_i per job, input order.
    pub category: Vec<u32>,
    /// The first [`MARKET_ROUNDS_SHOWN`] rounds (and the clearing one).
    pub rounds: Vec<MarketRoundTrace>,
    /// Price updates performed.
    pub total_rounds: u32,
    /// Paper rounds they stand for.
    pub unit_rounds: u64,
    /// True when the market cleared within the cap.
    pub cleared: bool,
    /// True when rounds were left out.
    pub truncated: bool,
}

/// One round of Algorithm 2.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MarketRoundTrace {
    /// Price updates before this round.
    pub round: u32,
    /// p_c per class, at which the demands were computed.
    pub prices: Vec<f64>,
    /// Per job: its demand at these prices.
    pub demand: Vec<Demand>,
    /// The class whose price rises next; `None` when the market clears.
    pub over: Option<u32>,
    /// True when `over` is the lowest class of a constricted set.
    pub constricted: bool,
    /// The constricted set's classes (when `constricted`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub constricted_set: Option<Vec<u32>>,
    /// x_ic (jobs x classes) when cleared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts: Option<Vec<u32>>,
}

/// One job's demand D_i(p).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Demand {
    /// Classes strictly preferred (all units of each).
    pub strict: Vec<u32>,
    /// Classes tied at its K_i-th valuation.
    pub tied: Vec<u32>,
    /// Units needed from the tie.
    pub need: u32,
}

pub(crate) fn oasis(s: &OasisScheduler) -> Trace {
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
    Trace::Oasis(OasisTrace {
        price,
        bounds_derived: s.bounds_derived(),
    })
}

pub(crate) fn online(s: &OnlineScheduler<'_>, scn: &OnlineScenario) -> Trace {
    let (servers, nr, slots) = (&scn.servers, scn.resources as usize, scn.horizon());
    let usage = &s.state().usage;
    // Per server and resource, the amounts its reservations hold, in reservation order (the
    // order the kernel's dense grid adds them in, so every sum is the same to the bit).
    let mut held: Vec<Vec<(u32, u32, f64)>> = vec![Vec::new(); servers.len() * nr];
    for (i, x) in usage.resv.iter().enumerate() {
        for r in 0..nr {
            let amount = usage.amount.get(i * nr + r).copied().unwrap_or(0.0);
            if let Some(list) = held.get_mut(x.server as usize * nr + r) {
                list.push((x.start, x.end, amount));
            }
        }
    }
    let lambda = s.lambda();
    let price = (0..nr)
        .map(|r| {
            servers
                .iter()
                .enumerate()
                .map(|(h, c)| {
                    let mut p = series_of_intervals(&held[h * nr + r], slots);
                    for v in p.iter_mut().skip(1).step_by(2) {
                        *v = zhou_price(lambda, *v, c.get(r));
                    }
                    p
                })
                .collect()
        })
        .collect();
    Trace::Online(OnlineTrace { price, lambda })
}

/// The sum of constant amounts `(start, end, amount)` over slots `start..end` (within
/// `0..slots`) as change points `[t0, v0, t1, v1, ...]`: `t0 = 0`, value `v_i` from slot `t_i`
/// up to `t_{i+1}` (or `slots`). Each value adds the amounts in the given order, so it equals to
/// the bit the sum a dense grid filled in that order holds.
pub fn series_of_intervals(intervals: &[(u32, u32, f64)], slots: u32) -> Vec<f64> {
    let mut cuts: Vec<u32> = intervals
        .iter()
        .flat_map(|&(a, b, _)| [a, b])
        .chain([0])
        .filter(|&t| t < slots)
        .collect();
    mlsched_kernel::order::sort_u32(&mut cuts);
    cuts.dedup();
    let mut out: Vec<f64> = Vec::new();
    for t in cuts {
        let v = intervals
            .iter()
            .filter(|&&(a, b, _)| a <= t && t < b)
            .fold(0.0, |acc, &(_, _, x)| acc + x);
        if out.last().is_none_or(|last| last.to_bits() != v.to_bits()) {
            out.extend([t as f64, v]);
        }
    }
    out
}

pub(crate) fn placement(placer: &Placer, cats: &[&[u32]]) -> Trace {
    let inst = placer.instance();
    let cl = &inst.classes;
    let classes = (0..cl.len())
        .map(|c| {
            let (a, b) = (cl.start[c] as usize, cl.start[c + 1] as usize);
            WorkerClass {
                workers: cl.members.get(a..b).unwrap_or(&[]).to_vec(),
            }
        })
        .collect();
    let mut market = Market::new(inst);
    let categories = cats
        .iter()
        .filter(|cat| cat.len() == inst.s)
        .map(|cat| {
            let mut rounds: Vec<MarketRoundTrace> = Vec::new();
            let out = market.run_traced(inst, cat, MARKET_CAP, |r| {
                if rounds.len() >= MARKET_ROUNDS_SHOWN && r.over.is_some() {
                    return;
                }
                let demand = (0..inst.s)
                    .map(|i| {
                        let (strict, tied, need) = r.demand(i);
                        Demand {
                            strict: strict.to_vec(),
                            tied: tied.to_vec(),
                            need,
                        }
                    })
                    .collect();
                rounds.push(MarketRoundTrace {
                    round: r.round,
                    prices: r.prices().to_vec(),
                    demand,
                    over: r.over,
                    constricted: r.constricted,
                    constricted_set: r.constricted.then(|| {
                        (0..cl.len() as u32)
                            .filter(|&c| r.in_constricted_set(c as usize))
                            .collect()
                    }),
                    counts: r.over.is_none().then(|| r.counts().to_vec()),
                });
            });
            CategoryMarket {
                category: cat.to_vec(),
                truncated: rounds.len() < out.rounds as usize + usize::from(out.cleared),
                rounds,
                total_rounds: out.rounds,
                unit_rounds: out.unit_rounds,
                cleared: out.cleared,
            }
        })
        .collect();
    Trace::Placement(PlacementTrace {
        classes,
        categories,
    })
}
