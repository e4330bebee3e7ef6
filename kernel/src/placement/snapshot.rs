//! Snapshots of the HAS/JPS placer ([`crate::snapshot`], kind [`TAG_PLACEMENT`]).
//!
//! [`Placer::run`] is one decision over the whole instance, so the state worth keeping across a
//! restart is the instance it was built for (checked equal) and the assignments of the last run
//! ([`Placer::best`], with the working `cur` / `trial`). The body is the whole `Placer` value
//! (format version 2: its `usize` counts S, K, C are `u32` on the wire); restoring checks the
//! instance, method, JPS parameters, seed and preference lists against the placer it goes
//! into, every buffer's length against the model's, every worker's job index, and then keeps
//! the receiving placer's own scratch (every run initialises its scratch before reading it, so
//! decisions do not depend on it). A `Placer` restores only through
//! [`Snapshot::restore_snapshot`]: it is not [`crate::snapshot::RawRestore`].
use super::{Assignment, Placer};
use crate::log::TAG_PLACEMENT;
use crate::snapshot::{self, ensure, invalid_at, Snapshot, SnapshotError};
use alloc::vec::Vec;

/// One restored assignment: the model's lengths and every `job_of` entry a job index.
fn check_assignment(
    a: &Assignment,
    model: &Assignment,
    field: &'static str,
) -> Result<(), SnapshotError> {
    let shape = a.job_of.len() == model.job_of.len()
        && a.counts.len() == model.counts.len()
        && a.throughput.len() == model.throughput.len()
        && a.jct.len() == model.jct.len();
    ensure(shape, field)?;
    let s = model.counts.len();
    match a.job_of.iter().position(|&i| i as usize >= s) {
        Some(k) => Err(invalid_at(field, k)),
        None => Ok(()),
    }
}

impl Placer {
    /// Checks a decoded placer `p` against `self` (built from the model): the same instance,
    /// method, JPS parameters, seed and preference lists; every scratch buffer of the model's
    /// length; the assignments' shapes and job indices.
    pub fn check_restored(&self, p: &Placer) -> Result<(), SnapshotError> {
        ensure(p.inst == self.inst, "inst")?;
        ensure(p.method == self.method, "method")?;
        ensure(p.jps == self.jps, "jps")?;
        ensure(p.seed == self.seed, "seed")?;
        ensure(p.greedy == self.greedy, "greedy")?;
        check_assignment(&p.cur, &self.cur, "cur")?;
        check_assignment(&p.best, &self.best, "best")?;
        check_assignment(&p.trial, &self.trial, "trial")?;
        let lens = [
            (p.cat.len(), self.cat.len(), "cat"),
            (p.pcat.len(), self.pcat.len(), "pcat"),
            (p.prio.len(), self.prio.len(), "prio"),
            (p.picks.len(), self.picks.len(), "picks"),
            (p.evals.len(), self.evals.len(), "evals"),
            (p.eval_ord.len(), self.eval_ord.len(), "eval_ord"),
            (
                p.eval_scratch.len(),
                self.eval_scratch.len(),
                "eval_scratch",
            ),
            (p.cursor.len(), self.cursor.len(), "cursor"),
            (p.taken.len(), self.taken.len(), "taken"),
            (p.g_sum.len(), self.g_sum.len(), "g_sum"),
            (p.g_min.len(), self.g_min.len(), "g_min"),
            (p.g_node.len(), self.g_node.len(), "g_node"),
            (p.g_spans.len(), self.g_spans.len(), "g_spans"),
        ];
        for (got, want, field) in lens {
            ensure(got == want, field)?;
        }
        Ok(())
    }
}

/// Snapshots of kind [`TAG_PLACEMENT`]: the body is the whole [`Placer`].
impl Snapshot for Placer {
    const KIND: u8 = TAG_PLACEMENT;

    fn snapshot_into<'b>(&self, buf: &'b mut [u8]) -> Result<&'b [u8], SnapshotError> {
        snapshot::save_into(Self::KIND, self, buf)
    }

    fn snapshot(&self) -> Result<Vec<u8>, SnapshotError> {
        snapshot::save(Self::KIND, self)
    }

    fn restore_snapshot(&mut self, bytes: &[u8]) -> Result<(), SnapshotError> {
        let p: Placer = snapshot::decode(Self::KIND, bytes)?;
        self.check_restored(&p)?;
        self.cur.copy_from(&p.cur);
        self.best.copy_from(&p.best);
        self.trial.copy_from(&p.trial);
        debug_assert!(
            self.check_restored(self).is_ok(),
            "placement: restored state fails its own check"
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::{HashSink, LogSink};
    use crate::model::placement::{JpsParams, Method, PlacementJob, PlacementScenario, Worker};
    use alloc::vec;

    fn scn() -> PlacementScenario {
        let job = |samples, throughput: Vec<f64>| PlacementJob {
            samples,
            epochs: 2.0,
            model_bytes: 1e6,
            throughput,
        };
        PlacementScenario {
            method: Method::Has,
            workers: (0..5)
                .map(|k| Worker {
                    gpu_type: k % 2,
                    node: k / 2,
                })
                .collect(),
            intra_node: 1e9,
            inter_node: 1e8,
            jobs: vec![
                job(1000.0, vec![10.0, 20.0, 10.0, 20.0, 10.0]),
                job(3000.0, vec![30.0, 25.0, 30.0, 25.0, 30.0]),
            ],
            include_comm: true,
            jps: JpsParams::default(),
            seed: 3,
            solver: Default::default(),
        }
    }

    fn ran() -> Placer {
        let mut p = Placer::new(&scn()).unwrap();
        p.run(Method::Has, &mut HashSink::new(), |_| {}).unwrap();
        p
    }

    fn refused(p: &Placer, field: &str) {
        let bytes = p.snapshot().unwrap();
        let mut fresh = Placer::new(&scn()).unwrap();
        match fresh.restore_snapshot(&bytes) {
            Err(SnapshotError::Invalid { field: f, .. }) => assert_eq!(f, field),
            other => panic!("expected Invalid({field}), got {other:?}"),
        }
        assert_eq!(fresh, Placer::new(&scn()).unwrap(), "unchanged on error");
    }

    #[test]
    fn a_restored_placer_keeps_its_result_and_runs_alike() {
        let mut a = ran();
        let mut b = Placer::new(&scn()).unwrap();
        b.restore_snapshot(&a.snapshot().unwrap()).unwrap();
        assert_eq!(a.best(), b.best());
        for m in [Method::Jps, Method::Exact, Method::Las] {
            let (mut ha, mut hb) = (HashSink::new(), HashSink::new());
            let ra = a.run(m, &mut ha, |_| {}).unwrap();
            let rb = b.run(m, &mut hb, |_| {}).unwrap();
            assert_eq!((ra, ha.hash()), (rb, hb.hash()));
        }
    }

    #[test]
    fn inconsistent_placers_are_typed_errors_naming_the_field() {
        let mut p = ran();
        p.best.job_of[0] = 7;
        refused(&p, "best");
        let mut p = ran();
        p.cur.counts.push(1);
        refused(&p, "cur");
        let mut p = ran();
        p.seed ^= 1;
        refused(&p, "seed");
        let mut p = ran();
        p.method = Method::Las;
        refused(&p, "method");
        let mut p = ran();
        p.taken.push(true);
        refused(&p, "taken");
        let mut p = ran();
        p.greedy.reverse();
        p.greedy.push(0);
        refused(&p, "greedy");
        let other = PlacementScenario {
            intra_node: 5e8,
            ..scn()
        };
        let p = Placer::new(&other).unwrap();
        refused(&p, "inst");
    }
}
