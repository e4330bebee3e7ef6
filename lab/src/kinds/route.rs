//! Kind `route` in the lab: compare's counters (its jobs have deadlines, not completions).
use super::{LabKind, Measured};
use crate::compare::Metrics;
use mlsched_scenario::engine::Route;
use mlsched_scenario::kinds::route::doc::{NodeKindDoc, RouteDoc, RouteResult};

impl LabKind for Route {
    fn measure(_d: &RouteDoc, res: &RouteResult, m: &mut Metrics, _out: &mut Measured) {
        m.admitted = Some(res.jobs.len() as u32);
        let x = &res.summary;
        m.extra.insert("cost".into(), x.cost);
        m.extra
            .insert("deadline_violation_rate".into(), x.deadline_violation_rate);
        m.extra
            .insert("avg_network_cost".into(), x.avg_network_cost);
        m.extra.insert("servers_used".into(), x.servers_used as f64);
    }

    fn cluster(d: &RouteDoc) -> String {
        let n = |k: NodeKindDoc| d.topology.nodes.iter().filter(|x| x.kind == k).count();
        format!(
            "{} compute nodes, {} PS nodes, {} switches, {} links",
            n(NodeKindDoc::Compute),
            n(NodeKindDoc::Ps),
            n(NodeKindDoc::Switch),
            d.topology.links.len()
        )
    }
}
