//! Which imported jobs cannot finish within the horizon even alone on the cluster: the warning
//! `mlsched import` prints on stderr. Issue 45: `import pollux --jobs 160 --servers 16` with the
//! horizon it then chose (200 slots, the slot length picked so the arrivals span half of it)
//! made 11.37 s slots, a 38-minute horizon in which almost no traced job could finish, and said
//! nothing; every policy then "finished" 0 to 3 of 160 jobs. (Source pollux now sizes its
//! default horizon for the workload, `build::fitting_horizon`; a horizon given by hand can
//! still be too short, and this names the jobs.)
//!
//! The bound is optimistic on purpose, so a job named here cannot finish under any policy:
//! job i needs at least E_i N_i m_i / s_i slots from its arrival, with all N_i workers (its
//! most) at s_i, the best speed the scenario gives any worker count up to N_i on any number of
//! servers (its speed-up table's largest entry, and never less than N_i, the linear speed).
use mlsched_scenario::kinds::oasis::doc::OasisDoc;

/// Ids of the jobs of `doc` that cannot finish by the horizon: arrival + the slots their work
/// needs at the optimistic bound above > T (the last slot is T - 1).
pub fn unfinishable(doc: &OasisDoc) -> Vec<String> {
    doc.jobs
        .iter()
        .filter(|j| {
            let n = j.chunks;
            let m = j.minibatches_per_chunk * (j.minibatch_time + 2.0 * j.comm_time);
            let speed = best_speed(doc, j.model.as_deref(), n);
            let need = j.epochs * n * m / speed;
            // Float noise must not name a job that fits exactly.
            j.arrival + (need - 1e-9).ceil().max(1.0) > doc.slots
        })
        .map(|j| j.id.clone())
        .collect()
}

/// The fastest any count up to `n` workers of model `model` runs, in worker-equivalents, never
/// below `n` (linear).
fn best_speed(doc: &OasisDoc, model: Option<&str>, n: f64) -> f64 {
    let table = model.and_then(|name| {
        let t = doc.throughput.as_ref()?;
        t.models.iter().find(|m| m.name == name)
    });
    let mut best = n;
    for (servers, row) in table.iter().flat_map(|t| t.speedup.iter().enumerate()) {
        for (g, &s) in row.iter().enumerate() {
            // s(g, n) is read only for g >= n servers, and g <= N_i workers.
            if g >= servers && (g + 1) as f64 <= n && s.is_finite() {
                best = best.max(s);
            }
        }
    }
    best
}

/// The warning line for `ids` (empty: none): how many, the first 20 named, and what to do.
pub fn warning(ids: &[String], total: usize, slots: u32, slot_seconds: f64) -> Option<String> {
    if ids.is_empty() {
        return None;
    }
    const NAMED: usize = 20;
    let mut named = ids
        .iter()
        .take(NAMED)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > NAMED {
        named.push_str(&format!(" and {} more", ids.len() - NAMED));
    }
    Some(format!(
        "WARNING: {} of {total} jobs cannot finish within the horizon ({slots} slots of {} s) \
         even alone on the cluster at their best speed: {named}. Give a longer horizon \
         (--slots, or --slot-seconds alone to size it from the arrivals).",
        ids.len(),
        (slot_seconds * 1000.0).round() / 1000.0,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(jobs: &[(f64, f64, f64)], slots: f64) -> OasisDoc {
        // (arrival, epochs, chunk time) per job, 4 chunks each.
        let jobs: Vec<serde_json::Value> = jobs
            .iter()
            .enumerate()
            .map(|(i, &(a, e, m))| {
                serde_json::json!({"id": format!("j{i}"), "arrival": a, "epochs": e,
                    "chunks": 4, "minibatches_per_chunk": 1, "minibatch_time": m,
                    "comm_time": 0.0, "worker_bw": 1.0, "ps_bw": 1.0,
                    "worker_demand": [1.0], "ps_demand": [1.0], "utility": {"table": [1.0]}})
            })
            .collect();
        serde_json::from_value(serde_json::json!({"kind": "oasis", "slots": slots,
            "resources": ["gpu"], "worker_servers": [[4.0]], "ps_servers": [[4.0]],
            "jobs": jobs}))
        .unwrap()
    }

    #[test]
    fn names_exactly_the_jobs_past_the_horizon() {
        // 10 epochs of 1-slot chunks need 10 slots with 4 workers: from slot 0 they end in
        // slot 9 (fits T = 10), from slot 1 in slot 10 (does not); 2.5 slots round up to 3.
        let d = doc(&[(0.0, 10.0, 1.0), (1.0, 10.0, 1.0), (7.0, 5.0, 0.5)], 10.0);
        assert_eq!(unfinishable(&d), vec!["j1".to_string()]);
        let w = warning(&unfinishable(&d), 3, 10, 60.0).unwrap();
        assert!(
            w.contains("1 of 3 jobs cannot finish") && w.contains("j1"),
            "{w}"
        );
        assert_eq!(warning(&[], 3, 10, 60.0), None);
    }

    #[test]
    fn a_speed_up_table_above_linear_is_used() {
        let mut d = doc(&[(1.0, 10.0, 1.0)], 10.0);
        d.jobs[0].model = Some("fast".into());
        d.throughput = serde_json::from_value(serde_json::json!({"models": [{"name": "fast",
            "speedup": [[1.0, 2.0, 3.0, 5.0, 9.0]]}]}))
        .unwrap();
        // s(4, 1) = 5 (the entry for 5 workers is beyond N = 4): 40 / 5 = 8 slots, fits.
        assert!(unfinishable(&d).is_empty());
    }
}
