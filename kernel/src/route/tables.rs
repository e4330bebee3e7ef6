//! Tables precomputed once from the scenario by [`super::RouteScheduler::new`] and only read after:
//! a row per PS node used by some job with its hop-shortest tree and its reachable compute
//! nodes by (hops, index); the release order; the Capacity policy's guaranteed shares.
use super::dijkstra::{Dijkstra, Weight};
use super::graph::Graph;
use super::{RouteError, NONE};
use crate::error::Limit;
use crate::limits::{check, ROUTE_WORKERS_MAX};
use crate::model::route::{NodeKind, RouteJob};
use alloc::vec::Vec;

/// The read-only tables of a [`super::RouteScheduler`].
#[derive(Clone, Debug)]
pub(super) struct Tables {
    /// PS node -> row of the hop tables ([`NONE`] if no job uses it).
    pub(super) ps_row: Vec<u32>,
    /// Per PS row: predecessors on its hop-shortest tree, `nodes` wide.
    pub(super) hop_pred: Vec<u32>,
    /// Per PS row: reachable compute nodes by (hops, index), `computes` wide, then its length.
    pub(super) hop_order: Vec<u32>,
    pub(super) hop_order_len: Vec<u32>,
    /// Compute nodes in the topology.
    pub(super) computes: usize,
    /// Job indices by release time (ties by index).
    pub(super) order: Vec<u32>,
    /// `(release, job)` in `order`: the driver's arrival list, built once so a run allocates
    /// nothing.
    pub(super) arrivals: Vec<(u32, u32)>,
    /// Per PS row: the Capacity policy's guaranteed share of all lanes.
    pub(super) group_share: Vec<f64>,
    /// Per PS row: its jobs' demanded slot-time (workers x duration), summed in job order.
    pub(super) group_demand: Vec<f64>,
    /// All jobs' demanded slot-time, summed in job order.
    pub(super) total_demand: f64,
}

/// Per PS row: the hop-shortest tree, reachable compute nodes in (hops, index) order and
/// their slots in all.
struct HopTables {
    pred: Vec<u32>,
    order: Vec<u32>,
    order_len: Vec<u32>,
    reach_slots: Vec<u32>,
}

impl Tables {
    /// Builds the tables of `jobs` on `g`; also returns the most workers of a job (at least 1).
    /// Refuses a job over [`ROUTE_WORKERS_MAX`] workers, whose PS is not a PS node, or that
    /// asks for more workers than the compute slots reachable from its PS.
    pub(super) fn build(jobs: &[RouteJob], g: &Graph) -> Result<(Tables, usize), RouteError> {
        let (ps_row, rows, max_w) = ps_rows(jobs, g)?;
        let computes = (0..g.nodes() as u32)
            .filter(|&v| g.kind(v) == NodeKind::Compute)
            .count();
        let hop = hop_tables(g, &ps_row, rows, computes)?;
        check_reach(jobs, &ps_row, &hop.reach_slots)?;
        let order = release_order(jobs);
        let (group_demand, total_demand) = group_demands(jobs, &ps_row, rows);
        let tables = Tables {
            arrivals: order
                .iter()
                .map(|&j| (jobs[j as usize].release, j))
                .collect(),
            order,
            group_share: shares(&group_demand, total_demand),
            group_demand,
            total_demand,
            ps_row,
            hop_pred: hop.pred,
            hop_order: hop.order,
            hop_order_len: hop.order_len,
            computes,
        };
        Ok((tables, max_w))
    }
}

/// PS node -> row (rows numbered in first-use order), the row count and the most workers of a
/// job (at least 1).
fn ps_rows(jobs: &[RouteJob], g: &Graph) -> Result<(Vec<u32>, usize, usize), RouteError> {
    let mut ps_row = alloc::vec![NONE; g.nodes()];
    let mut rows = 0u32;
    let mut max_w = 1usize;
    for (i, j) in jobs.iter().enumerate() {
        check(Limit::RouteWorkers, j.workers as usize, ROUTE_WORKERS_MAX)
            .map_err(|e| e.for_job(i as u32))?;
        max_w = max_w.max(j.workers as usize);
        let slot = ps_row.get_mut(j.ps as usize);
        match slot {
            Some(r) if g.kind(j.ps) == NodeKind::Ps => {
                if *r == NONE {
                    *r = rows;
                    rows += 1;
                }
            }
            _ => return Err(RouteError::BadPs { job: i as u32 }),
        }
    }
    Ok((ps_row, rows as usize, max_w))
}

/// Dijkstra by hops from every PS node with a row.
fn hop_tables(
    g: &Graph,
    ps_row: &[u32],
    rows: usize,
    computes: usize,
) -> Result<HopTables, RouteError> {
    let n = g.nodes();
    let mut hop_pred = alloc::vec![NONE; rows * n];
    let mut hop_order = alloc::vec![0u32; rows * computes];
    let mut hop_order_len = alloc::vec![0u32; rows];
    let mut reach_slots = alloc::vec![0u32; rows];
    let mut dj = Dijkstra::new(n, g.links());
    for ps in 0..n as u32 {
        let r = ps_row[ps as usize];
        if r == NONE {
            continue;
        }
        let r = r as usize;
        let (len, reach) = hop_row(
            g,
            &mut dj,
            ps,
            &mut hop_pred[r * n..(r + 1) * n],
            &mut hop_order[r * computes..(r + 1) * computes],
        )?;
        hop_order_len[r] = len;
        reach_slots[r] = reach;
    }
    Ok(HopTables {
        pred: hop_pred,
        order: hop_order,
        order_len: hop_order_len,
        reach_slots,
    })
}

/// One PS row: Dijkstra by hops from `ps` into `pred` (`nodes` wide) and its reachable compute
/// nodes by (hops, index) into `row`; returns their count and their compute slots in all.
pub(super) fn hop_row(
    g: &Graph,
    dj: &mut Dijkstra,
    ps: u32,
    pred: &mut [u32],
    row: &mut [u32],
) -> Result<(u32, u32), RouteError> {
    let n = g.nodes();
    dj.run(g, ps, Weight::Hops)?;
    pred.copy_from_slice(&dj.preds()[..n]);
    let (mut len, mut reach) = (0usize, 0u32);
    for v in 0..n as u32 {
        if g.kind(v) == NodeKind::Compute && dj.hops(v) != u32::MAX {
            row[len] = v;
            len += 1;
            reach = reach.saturating_add(g.slots(v));
        }
    }
    crate::order::sort_indices_by(&mut row[..len], &|a, b| {
        (dj.hops(a), a).cmp(&(dj.hops(b), b))
    });
    Ok((len as u32, reach))
}

/// [`RouteError::Unreachable`] for the first job asking more workers than its PS reaches.
fn check_reach(jobs: &[RouteJob], ps_row: &[u32], reach_slots: &[u32]) -> Result<(), RouteError> {
    for (i, j) in jobs.iter().enumerate() {
        let r = ps_row[j.ps as usize] as usize;
        if reach_slots[r] < j.workers {
            return Err(RouteError::Unreachable {
                job: i as u32,
                workers: j.workers,
                reachable: reach_slots[r],
            });
        }
    }
    Ok(())
}

/// Job indices by release time, ties by index.
fn release_order(jobs: &[RouteJob]) -> Vec<u32> {
    let mut order: Vec<u32> = (0..jobs.len() as u32).collect();
    crate::order::sort_indices_by(&mut order, &|a, b| {
        (jobs[a as usize].release, a).cmp(&(jobs[b as usize].release, b))
    });
    order
}

/// Each tenant's demanded slot-time and the total, summed in job order.
fn group_demands(jobs: &[RouteJob], ps_row: &[u32], rows: usize) -> (Vec<f64>, f64) {
    let mut group_demand = alloc::vec![0.0; rows];
    let mut total_demand = 0.0;
    for j in jobs {
        let d = demand(j);
        group_demand[ps_row[j.ps as usize] as usize] += d;
        total_demand += d;
    }
    (group_demand, total_demand)
}

/// A job's demanded slot-time (workers x duration).
pub(super) fn demand(j: &RouteJob) -> f64 {
    j.workers as f64 * j.duration as f64
}

/// Capacity-like guaranteed shares: proportional to each tenant's demanded slot-time.
pub(super) fn shares(group_demand: &[f64], total_demand: f64) -> Vec<f64> {
    group_demand
        .iter()
        .map(|&x| {
            if total_demand > 0.0 {
                x / total_demand
            } else {
                1.0
            }
        })
        .collect()
}
