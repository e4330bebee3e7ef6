//! Kind `placement` in the lab: one static assignment whose JCTs are seconds, its per-job and
//! per-category plots.
use super::{Finished, LabKind, Measured};
use crate::compare::{Metrics, PlotData, CATEGORIES_COLLECTED_MAX, CATEGORIES_PLOTTED};
use mlsched_kernel::log::HashSink;
use mlsched_scenario::doc::ScenarioDoc;
use mlsched_scenario::engine::{Kind, Placement};
use mlsched_scenario::kinds::placement::doc::{PlacementDoc, PlacementResult};
use mlsched_scenario::run::{run_doc, RunOptions};

impl LabKind for Placement {
    fn measure(d: &PlacementDoc, res: &PlacementResult, m: &mut Metrics, out: &mut Measured) {
        // One static assignment: JCT in seconds per job, no slots.
        m.admitted = Some(res.best.jct.len() as u32);
        for jd in &d.jobs {
            if let Some(&j) = res.best.jct.get(&jd.id) {
                out.finished.push(Finished {
                    weight: 1.0,
                    jct: j,
                    end: 0,
                });
                out.plot.job_jct.push((jd.id.clone(), j));
            }
        }
        out.plot.chosen_category = res.best.category.clone();
    }

    fn after_run(doc: &ScenarioDoc, r: &PlacementResult, policy: &str, plot: &mut PlotData) {
        if r.categories_examined <= CATEGORIES_COLLECTED_MAX {
            categories(doc, policy, plot);
        }
    }

    fn cluster(d: &PlacementDoc) -> String {
        let mut nodes: Vec<u64> = d.workers.iter().map(|w| w.node as u64).collect();
        nodes.sort_unstable();
        nodes.dedup();
        format!("{} GPU workers on {} nodes", d.workers.len(), nodes.len())
    }
}

/// Runs `policy` again with every category reported (`run --all`; the decisions and log hash
/// are the same) and keeps their average JCTs for the category plot. A second, untimed run so
/// that collecting the rows does not inflate the measured latency.
fn categories(doc: &ScenarioDoc, policy: &str, plot: &mut PlotData) {
    let opts = RunOptions {
        policy: Some(policy.to_string()),
        all_categories: true,
    };
    let Ok(r) = run_doc(doc, &opts, &mut HashSink::new()) else {
        return;
    };
    let Some(res) = Placement::result_of(&r) else {
        return;
    };
    let rows = res.per_category.as_deref().unwrap_or_default();
    let best = rows.iter().position(|c| c.category == res.best.category);
    let stride = rows.len().div_ceil(CATEGORIES_PLOTTED).max(1);
    for (i, c) in rows.iter().enumerate() {
        if i % stride == 0 || Some(i) == best {
            plot.categories.push((i as f64, c.avg_jct));
        }
    }
    plot.chosen = best.map(|i| (i as f64, rows[i].avg_jct));
}
