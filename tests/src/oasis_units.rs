//! One run of a kind-oasis baseline with every placed unit recorded: the capacity check and
//! the per-slot worker / PS counts the baselines' invariant tests (`rrh_antman`, `dorm`) share.
use mlsched_kernel::baseline::oasis::{OasisBaseline, Unit};
use mlsched_kernel::baseline::Policy;
use mlsched_kernel::log::{HashSink, LogSink};
use mlsched_kernel::model::oasis::OasisScenario;

/// What [`run_checked`] recorded.
pub struct Recorded<'a> {
    /// The runner after the run (its per-job states).
    pub runner: OasisBaseline<'a>,
    /// `counts[i][t]` = (workers, parameter servers) of job i in slot t.
    pub counts: Vec<Vec<(u32, u32)>>,
    /// The decision log's hash.
    pub hash: u64,
}

/// Runs `policy` on `scn` to the horizon, summing each unit's demand per server and slot;
/// `Err` names the first server and slot whose capacity a resource exceeds.
pub fn run_checked(policy: Policy, scn: &OasisScenario) -> Result<Recorded<'_>, String> {
    let runner = OasisBaseline::new(policy, scn).map_err(|e| e.to_string())?;
    run_checked_with(runner, scn)
}

/// [`run_checked`] with a runner built (and tuned, e.g. Dorm's node budget) by the caller.
pub fn run_checked_with<'a>(
    mut runner: OasisBaseline<'a>,
    scn: &'a OasisScenario,
) -> Result<Recorded<'a>, String> {
    let t = scn.slots as usize;
    let r_n = scn.resources as usize;
    let mut wuse = vec![vec![vec![0.0f64; r_n]; scn.worker_servers.len()]; t];
    let mut puse = vec![vec![vec![0.0f64; r_n]; scn.ps_servers.len()]; t];
    let mut counts = vec![vec![(0u32, 0u32); t]; scn.jobs.len()];
    let mut sink = HashSink::new();
    runner
        .run(&mut sink, &mut |u: Unit| {
            let j = &scn.jobs[u.job as usize];
            let (d, row) = if u.ps {
                (&j.ps_demand, &mut puse[u.slot as usize][u.server as usize])
            } else {
                (
                    &j.worker_demand,
                    &mut wuse[u.slot as usize][u.server as usize],
                )
            };
            for (k, v) in row.iter_mut().enumerate() {
                *v += d.get(k);
            }
            let e = &mut counts[u.job as usize][u.slot as usize];
            if u.ps {
                e.1 += 1
            } else {
                e.0 += 1
            }
        })
        .map_err(|e| e.to_string())?;
    for s in 0..t {
        for (pool, used, caps) in [
            ("worker", &wuse, &scn.worker_servers),
            ("ps", &puse, &scn.ps_servers),
        ] {
            for (i, c) in caps.iter().enumerate() {
                if (0..r_n).any(|k| used[s][i][k] > c.get(k) + 1e-9) {
                    return Err(format!("{pool} server {i} slot {s}"));
                }
            }
        }
    }
    Ok(Recorded {
        runner,
        counts,
        hash: sink.hash().value(),
    })
}
