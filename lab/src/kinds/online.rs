//! Kind `online` in the lab: compare's numbers, its one server pool, `mlsched run`'s table.
use super::{Finished, LabKind, Measured, Shape};
use crate::compare::usage::{self, Usage};
use crate::compare::Metrics;
use mlsched_scenario::engine::Online;
use mlsched_scenario::kinds::online::doc::{OnlineDoc, OnlineResult};

impl LabKind for Online {
    fn measure(d: &OnlineDoc, res: &OnlineResult, m: &mut Metrics, out: &mut Measured) {
        m.admitted = Some(res.summary.scheduled);
        m.total_weighted_completion_time = Some(res.summary.total_weighted_completion_time);
        for (jd, jr) in d.jobs.iter().zip(&res.jobs) {
            // A scheduled job ends at t_j + d_j, its completion slot.
            if let (Some(_), Some(c)) = (jr.start_slot, jr.completion_slot) {
                out.finished.push(Finished {
                    weight: jd.weight,
                    jct: c as f64 - jd.arrival,
                    end: c,
                });
            }
        }
    }

    fn usage(d: &OnlineDoc, r: &OnlineResult) -> Option<Usage> {
        Some(usage::online(d, r))
    }

    fn cluster(d: &OnlineDoc) -> String {
        format!("{} servers", d.servers.len())
    }

    fn slots(d: &OnlineDoc) -> Option<f64> {
        Some(d.slots)
    }

    fn shape(d: &OnlineDoc) -> Option<Shape> {
        // The architecture as the document writes it (`ps`, `ring`).
        let arch = serde_json::to_value(d.architecture).unwrap_or_default();
        Some(Shape {
            label: format!("online-{}", arch.as_str().unwrap_or("ps")),
            servers: d.servers.len(),
            jobs: d.jobs.len(),
            slots: d.slots as u64,
        })
    }

    #[cfg(feature = "reports")]
    fn run_text(r: &OnlineResult) -> String {
        let full = <Online as mlsched_scenario::engine::Kind>::summary_text(r);
        let first = full.lines().next().unwrap_or_default();
        format!("{first}\n{}log_hash {}", table::jobs(r), r.log_hash)
    }
}

/// The per-job table `mlsched run` prints.
#[cfg(feature = "reports")]
mod table {
    use crate::summary::table;
    use mlsched_scenario::kinds::online::doc::OnlineResult;
    use mlsched_scenario::text::terminal_safe;

    /// One row per job: start, duration and completion slot, worker/PS type, co-location (q),
    /// the round that scheduled it and its placement (`workers+ps` at each server).
    pub(super) fn jobs(r: &OnlineResult) -> String {
        let mut t = table(
            &[
                "job",
                "start",
                "dur",
                "done",
                "type",
                "q",
                "round",
                "workers@server",
            ],
            &[1, 2, 3, 5, 6],
        );
        for j in &r.jobs {
            let id = terminal_safe(&j.id).into_owned();
            if !j.scheduled {
                let mut row = vec![id, "not scheduled".to_string()];
                row.resize(8, "-".into());
                t.add_row(row);
                continue;
            }
            t.add_row(vec![
                id,
                j.start_slot.unwrap_or(0).to_string(),
                j.duration.unwrap_or(0).to_string(),
                j.completion_slot.unwrap_or(0).to_string(),
                j.type_label(),
                u8::from(j.colocated).to_string(),
                j.round.unwrap_or(0).to_string(),
                j.placement_label(),
            ]);
        }
        format!("{t}\n")
    }
}
