//! Resource use per slot of a kind "oasis" or "online" result, per server pool and resource
//! type: the mean utilisation compare reports and the binding-resource check `import` runs.
//!
//! Definitions (docs/report.md):
//! - busy horizon: slots 0 up to the last slot in which any task runs (inclusive);
//! - utilisation of resource r: sum over the pools of the use of r / their capacity of r, per
//!   slot, averaged over the busy horizon;
//! - binding: in a slot, the (pool, resource) with the highest use / capacity, if that is at
//!   least [`BINDING_LEVEL`]; a resource binds "most of the run" when it does so in more than
//!   half the busy slots.
use mlsched_scenario::kinds::oasis::doc::{OasisDoc, OasisResult};
use mlsched_scenario::kinds::online::doc::{OnlineDoc, OnlineResult};
use mlsched_scenario::occupancy::{Role, Span};
use std::collections::{BTreeMap, HashMap};

/// A slot's most used resource binds when it is used at least this much (fraction).
pub const BINDING_LEVEL: f64 = 0.9;

/// Use of one server pool (worker servers, PS servers, or kind "online"'s one pool).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pool {
    /// "worker", "ps" or "servers".
    pub name: &'static str,
    /// Capacity per resource type (summed over the pool's servers).
    pub capacity: Vec<f64>,
    /// Use per slot, per resource type.
    pub used: Vec<Vec<f64>>,
}

/// Use of every pool of a scenario over the horizon.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Usage {
    /// Resource type names (the scenario's `resources`).
    pub resources: Vec<String>,
    /// The pools.
    pub pools: Vec<Pool>,
}

fn pool(name: &'static str, servers: &[Vec<f64>], r: usize, slots: usize) -> Pool {
    let capacity = (0..r)
        .map(|k| {
            servers
                .iter()
                .map(|s| s.get(k).copied().unwrap_or(0.0))
                .sum()
        })
        .collect();
    Pool {
        name,
        capacity,
        used: vec![vec![0.0; r]; slots],
    }
}

/// Adds `n` tasks of `demand` to `used[slot]` (slots past the horizon are ignored: none exist).
fn add(used: &mut [Vec<f64>], slot: usize, n: f64, demand: &[f64]) {
    if let Some(u) = used.get_mut(slot) {
        for (x, d) in u.iter_mut().zip(demand) {
            *x += n * d;
        }
    }
}

fn horizon(slots: f64) -> usize {
    slots.max(0.0) as usize
}

/// Worker and PS units each job holds per slot, read from a result's `occupancy` (summed over
/// servers): per job of `ids` (input order), slot -> `[workers, ps]`. A span of a job not in
/// `ids` is ignored (none exists: the result's jobs are the scenario's).
fn held(spans: &[Span], ids: &[&str]) -> Vec<BTreeMap<u64, [u32; 2]>> {
    let index: HashMap<&str, usize> = ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    let mut out = vec![BTreeMap::new(); ids.len()];
    for s in spans {
        let Some(&j) = index.get(s.job.as_str()) else {
            continue;
        };
        let role = usize::from(s.role == Role::Ps);
        for t in s.from..s.to {
            let units: &mut [u32; 2] = out[j].entry(t).or_default();
            units[role] += s.count;
        }
    }
    out
}

/// Kind "oasis": worker and PS pools, from the result's occupancy.
pub fn oasis(d: &OasisDoc, res: &OasisResult) -> Usage {
    let (r, t) = (d.resources.len(), horizon(d.slots));
    let mut w = pool("worker", &d.worker_servers, r, t);
    let mut p = pool("ps", &d.ps_servers, r, t);
    let ids: Vec<&str> = d.jobs.iter().map(|j| j.id.as_str()).collect();
    // Jobs in input order, so that each slot sums its jobs in the same order every time.
    for (jd, slots) in d.jobs.iter().zip(held(&res.occupancy, &ids)) {
        for (&s, &[nw, np]) in &slots {
            add(&mut w.used, s as usize, nw as f64, &jd.worker_demand);
            add(&mut p.used, s as usize, np as f64, &jd.ps_demand);
        }
    }
    Usage {
        resources: d.resources.clone(),
        pools: vec![w, p],
    }
}

/// Kind "online": one pool, from the result's occupancy (a scheduled job holds its workers and
/// PSs from start to completion); the demand of a unit is the job's chosen worker / PS type.
pub fn online(d: &OnlineDoc, res: &OnlineResult) -> Usage {
    // With `rounds_past_horizon` jobs may run past T: the horizon reaches the last slot held.
    let last = res.occupancy.iter().map(|s| s.to).max();
    let t = horizon(d.slots).max(last.map_or(0, |c| c as usize));
    let r = d.resources.len();
    let mut s = pool("servers", &d.servers, r, t);
    let empty: Vec<f64> = Vec::new();
    let ids: Vec<&str> = res.jobs.iter().map(|j| j.id.as_str()).collect();
    for (jr, slots) in res.jobs.iter().zip(held(&res.occupancy, &ids)) {
        let wd = jr
            .worker_type
            .and_then(|m| d.worker_types.get(m as usize))
            .map_or(&empty, |t| &t.demand);
        let pd = jr
            .ps_type
            .and_then(|p| d.ps_types.as_ref()?.get(p as usize))
            .map_or(&empty, |t| &t.demand);
        for (&slot, &[nw, np]) in &slots {
            add(&mut s.used, slot as usize, nw as f64, wd);
            add(&mut s.used, slot as usize, np as f64, pd);
        }
    }
    Usage {
        resources: d.resources.clone(),
        pools: vec![s],
    }
}

impl Usage {
    /// Per slot `0..slots`: the use of resource `k` over all pools / their capacity of it (the
    /// plain use when no server has any; 0 past the pools' horizon).
    pub fn share_per_slot(&self, k: usize, slots: usize) -> Vec<f64> {
        let cap: f64 = self
            .pools
            .iter()
            .map(|p| p.capacity.get(k).copied().unwrap_or(0.0))
            .sum();
        (0..slots)
            .map(|t| {
                let used: f64 = self
                    .pools
                    .iter()
                    .filter_map(|p| p.used.get(t)?.get(k))
                    .sum();
                if cap > 0.0 {
                    used / cap
                } else {
                    used
                }
            })
            .collect()
    }

    /// Slots 0 ..= the last slot in which any task runs (0 when nothing ever ran).
    pub fn busy_slots(&self) -> usize {
        let busy = |p: &Pool| {
            p.used
                .iter()
                .rposition(|u| u.iter().any(|x| *x > 0.0))
                .map_or(0, |i| i + 1)
        };
        self.pools.iter().map(busy).max().unwrap_or(0)
    }

    /// Mean utilisation of each resource type (all pools together) over the busy horizon, by
    /// name; a resource no server has is left out. Empty when nothing ran.
    pub fn mean(&self) -> Vec<(String, f64)> {
        let n = self.busy_slots();
        if n == 0 {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (k, name) in self.resources.iter().enumerate() {
            let cap: f64 = self.pools.iter().map(|p| p.capacity[k]).sum();
            if cap <= 0.0 {
                continue;
            }
            let used: f64 = self
                .pools
                .iter()
                .map(|p| p.used[..n].iter().map(|u| u[k]).sum::<f64>())
                .sum();
            out.push((name.clone(), used / cap / n as f64));
        }
        out
    }

    /// Per (pool, resource) with capacity: `pool resource` and the busy slots in which it was
    /// the most used at >= [`BINDING_LEVEL`]; and the busy slot count.
    pub fn binding(&self) -> (Vec<(String, usize)>, usize) {
        let n = self.busy_slots();
        // (pool index, resource index) of every resource some server of the pool has.
        let pairs: Vec<(usize, usize)> = self
            .pools
            .iter()
            .enumerate()
            .flat_map(|(i, p)| (0..p.capacity.len()).map(move |k| (i, k)))
            .filter(|&(i, k)| self.pools[i].capacity[k] > 0.0)
            .collect();
        let mut count = vec![0usize; pairs.len()];
        for t in 0..n {
            let level = |&(i, k): &(usize, usize)| {
                let p = &self.pools[i];
                p.used[t][k] / p.capacity[k]
            };
            // The first of equally used resources counts (a deterministic tie rule).
            let mut best: Option<(usize, f64)> = None;
            for (j, pair) in pairs.iter().enumerate() {
                let f = level(pair);
                if best.is_none_or(|(_, b)| f > b) {
                    best = Some((j, f));
                }
            }
            if let Some((j, _)) = best.filter(|&(_, f)| f >= BINDING_LEVEL) {
                count[j] += 1;
            }
        }
        let names = pairs
            .iter()
            .map(|&(i, k)| format!("{} {}", self.pools[i].name, self.resources[k]));
        (names.zip(count).collect(), n)
    }

    /// The resources that bind in more than half the busy slots (see the module docs), with
    /// the fraction of busy slots in which they do.
    pub fn binding_most(&self) -> Vec<(String, f64)> {
        let (per, n) = self.binding();
        per.into_iter()
            .filter(|(_, c)| n > 0 && 2 * c > n)
            .map(|(name, c)| (name, c as f64 / n as f64))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(used: Vec<Vec<f64>>) -> Usage {
        Usage {
            resources: vec!["gpu".into(), "cpu".into()],
            pools: vec![Pool {
                name: "worker",
                capacity: vec![4.0, 10.0],
                used,
            }],
        }
    }

    #[test]
    fn mean_and_binding_over_the_busy_horizon() {
        // Slots 0..3 busy, slot 3 idle (past the busy horizon).
        let u = usage(vec![
            vec![4.0, 1.0],
            vec![4.0, 1.0],
            vec![1.0, 9.5],
            vec![0.0, 0.0],
        ]);
        assert_eq!(u.busy_slots(), 3);
        let m = u.mean();
        assert_eq!(m[0], ("gpu".to_string(), 9.0 / 4.0 / 3.0));
        assert_eq!(m[1], ("cpu".to_string(), 11.5 / 10.0 / 3.0));
        let (per, n) = u.binding();
        assert_eq!(n, 3);
        assert_eq!(
            per,
            vec![("worker gpu".into(), 2), ("worker cpu".into(), 1)]
        );
        assert_eq!(u.binding_most(), vec![("worker gpu".into(), 2.0 / 3.0)]);
    }

    #[test]
    fn nothing_ran_nothing_binds() {
        let u = usage(vec![vec![0.0, 0.0]; 2]);
        assert_eq!(u.busy_slots(), 0);
        assert!(u.mean().is_empty());
        assert!(u.binding_most().is_empty());
    }
}
