//! Kind `oasis` in the lab: compare's numbers, its worker and PS pools, `mlsched run`'s table.
use super::{Finished, LabKind, Measured, Shape};
use crate::compare::usage::{self, Usage};
use crate::compare::Metrics;
use mlsched_scenario::engine::Oasis;
use mlsched_scenario::kinds::oasis::doc::{OasisDoc, OasisResult};

impl LabKind for Oasis {
    fn measure(d: &OasisDoc, res: &OasisResult, m: &mut Metrics, out: &mut Measured) {
        m.admitted = Some(res.summary.admitted);
        m.total_utility = Some(res.summary.total_utility);
        if let Some(n) = res.summary.restarts {
            m.extra.insert("restarts".into(), n as f64);
        }
        if let Some(dorm) = &res.summary.dorm {
            m.extra.insert("dorm_optimal".into(), dorm.optimal as f64);
            m.extra
                .insert("dorm_stopped".into(), dorm.stopped_at_budget as f64);
            m.extra.insert("dorm_gap_max".into(), dorm.gap_max);
        }
        let scn = d.validate().ok();
        for (i, (jd, jr)) in d.jobs.iter().zip(&res.jobs).enumerate() {
            if let (true, Some(c)) = (jr.admitted, jr.completion_slot) {
                // The weight is the job's best utility f_i(0).
                let weight = scn
                    .as_ref()
                    .and_then(|s| s.jobs.get(i))
                    .map_or(1.0, |j| j.utility.at(0));
                // t_hat is the slot *in* which the last chunk is done: the job ends at t_hat + 1.
                let end = c + 1;
                out.finished.push(Finished {
                    weight,
                    jct: end as f64 - jd.arrival,
                    end,
                });
            }
        }
    }

    fn usage(d: &OasisDoc, r: &OasisResult) -> Option<Usage> {
        Some(usage::oasis(d, r))
    }

    fn cluster(d: &OasisDoc) -> String {
        format!(
            "{} worker + {} PS servers",
            d.worker_servers.len(),
            d.ps_servers.len()
        )
    }

    fn slots(d: &OasisDoc) -> Option<f64> {
        Some(d.slots)
    }

    fn slot_seconds(d: &OasisDoc) -> Option<f64> {
        d.slot_seconds
    }

    fn shape(d: &OasisDoc) -> Option<Shape> {
        Some(Shape {
            label: "oasis".into(),
            servers: d.worker_servers.len(),
            jobs: d.jobs.len(),
            slots: d.slots as u64,
        })
    }

    #[cfg(feature = "reports")]
    fn run_text(r: &OasisResult) -> String {
        let full = <Oasis as mlsched_scenario::engine::Kind>::summary_text(r);
        let first = full.lines().next().unwrap_or_default();
        match &r.summary.dorm {
            Some(d) => format!(
                "{first}\n{}\n{}",
                mlsched_scenario::kinds::oasis::exec::dorm_line(d),
                table::jobs(r)
            ),
            None => format!("{first}\n{}", table::jobs(r)),
        }
    }
}

/// The per-job table `mlsched run` prints.
#[cfg(feature = "reports")]
mod table {
    use crate::summary::{num, table};
    use mlsched_scenario::kinds::oasis::doc::{OasisPlacement, OasisResult};
    use mlsched_scenario::text::terminal_safe;

    /// One row per job: admitted or rejected (with the reason), the completion slot t_hat,
    /// utility, cost and payoff of the chosen schedule, and the slots, worker-slots and
    /// PS-slots it uses.
    pub(super) fn jobs(r: &OasisResult) -> String {
        let mut t = table(
            &[
                "job",
                "decision",
                "t_hat",
                "utility",
                "cost",
                "payoff",
                "slots",
                "worker-slots",
                "ps-slots",
            ],
            &[2, 3, 4, 5, 6, 7, 8],
        );
        for j in &r.jobs {
            let id = terminal_safe(&j.id).into_owned();
            if !j.admitted {
                let why = format!("rejected ({})", j.reason.as_deref().unwrap_or("-"));
                let mut row = vec![id, why];
                row.resize(9, "-".into());
                t.add_row(row);
                continue;
            }
            let sum = |f: fn(&OasisPlacement) -> u32| -> u32 { j.placements.iter().map(f).sum() };
            t.add_row(vec![
                id,
                "admitted".into(),
                j.completion_slot.map_or("-".into(), |x| x.to_string()),
                num(j.utility),
                num(j.cost),
                num(j.payoff),
                j.placements.len().to_string(),
                sum(|p| p.workers.iter().map(|x| x[1]).sum()).to_string(),
                sum(|p| p.ps.iter().map(|x| x[1]).sum()).to_string(),
            ]);
        }
        format!("{t}\n")
    }
}
