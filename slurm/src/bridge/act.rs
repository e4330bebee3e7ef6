//! Carrying out the engine's plans in Slurm, once the slot's events are durable.
//!
//! For each job of the bridge's that Slurm has not ended:
//! - rejected by the engine, or cancelled in it: `Client::cancel` with the reason;
//! - a plan due (its start slot reached) that the bridge has not started: when Slurm holds the
//!   job, the journal first records the start (plan number), then `Client::start`; when Slurm
//!   runs or queues an earlier run of it (interrupted: its node went down, Slurm requeued it),
//!   it is held again first (`scontrol hold` / `requeuehold`) and started next slot;
//! - a plan the journal says was started but Slurm still holds (the bridge died between the
//!   journal and `scontrol release`): started again (`scontrol update` + `release` on a held
//!   job do the same thing twice);
//! - no plan due, but Slurm runs or queues it: held again (an interrupted run).
use super::{Bridge, Line};
use crate::error::SlurmError;
use crate::job::{Job, JobState};
use crate::runner::Runner;
use mlsched_kernel::world::Status;
use std::time::Instant;

/// A released job back to pending without a hold: Slurm's own requeue (begin time ahead).
fn requeued_by_slurm(job: &Job) -> bool {
    job.state == JobState::Pending && job.reason == "BeginTime"
}

impl<R: Runner> Bridge<R> {
    pub(super) fn act(&mut self, t: u32, jobs: &[Job], seen: Instant) -> Result<(), SlurmError> {
        let ours: Vec<(u64, String)> = self.jobs.iter().map(|(k, v)| (*k, v.clone())).collect();
        for (sid, id) in ours {
            let Some(job) = jobs.iter().find(|j| j.id == sid) else {
                continue;
            };
            let Some(index) = self.engine.job_index(&id) else {
                continue;
            };
            if job.state.is_end() {
                continue;
            }
            if let Some(why) = self.stop_reason(index) {
                self.timed(
                    seen,
                    |c| c.cancel(job, &why),
                    format!("slot {t}: cancel Slurm job {sid}: {why}"),
                );
                continue;
            }
            self.carry_out(t, job, index, seen)?;
        }
        Ok(())
    }

    /// Why a job must not run in Slurm: the engine rejected or cancelled it.
    fn stop_reason(&self, index: u32) -> Option<String> {
        if let Some(why) = self.plans.rejected(index) {
            return Some(why.to_string());
        }
        match self.engine.status(index) {
            Some(Status::Cancelled) => Some("cancelled by mlsched".into()),
            _ => None,
        }
    }

    fn carry_out(
        &mut self,
        t: u32,
        job: &Job,
        index: u32,
        seen: Instant,
    ) -> Result<(), SlurmError> {
        let sid = job.id;
        let done = self.started.get(&sid).copied().unwrap_or(0);
        let Some(plan) = self.plans.current(index).cloned() else {
            if !job.held && self.plans.count(index) > 0 {
                self.hold_again(job);
            }
            return Ok(());
        };
        if plan.start > t {
            if !job.held && done < plan.number && self.plans.count(index) > 1 {
                self.hold_again(job);
            }
            return Ok(());
        }
        if !job.held {
            if done < plan.number {
                self.hold_again(job);
            } else if requeued_by_slurm(job) {
                self.requeued_after_its_run(t, job, index);
            }
            return Ok(());
        }
        if done < plan.number {
            self.journal.append(&[Line::Start(sid, plan.number)])?;
            self.started.insert(sid, plan.number);
        }
        let nodes: Vec<String> = plan
            .servers
            .iter()
            .filter(|s| s.1 + s.2 > 0)
            .filter_map(|s| self.engine.server_ids().get(s.0 as usize).cloned())
            .collect();
        let gpus = plan.servers.iter().map(|s| s.1).max().unwrap_or(0) * self.gpus_per_worker();
        let what = format!(
            "slot {t}: start Slurm job {sid} (plan {}) on {} ({} nodes, {gpus} GPUs each)",
            plan.number,
            nodes.join(","),
            nodes.len()
        );
        self.timed(seen, |c| c.start(sid, &nodes, gpus), what);
        Ok(())
    }

    /// Slurm requeued a started job by itself (its node failed) after the engine was done with
    /// it: the engine's run of it is over (not interrupted), so Slurm must not run it again.
    fn requeued_after_its_run(&mut self, t: u32, job: &Job, index: u32) {
        if self.engine.status(index) != Some(Status::Finished) {
            return;
        }
        let sid = job.id;
        let why = "requeued by Slurm after a node failure; its mlsched run had ended";
        self.timed(
            Instant::now(),
            |c| c.cancel(job, why),
            format!("slot {t}: cancel Slurm job {sid}: {why}"),
        );
    }

    /// GPUs one worker holds: the `gpu` entry of the template's first worker type (the
    /// template writes one worker type of one GPU).
    fn gpus_per_worker(&self) -> u32 {
        let doc: serde_json::Value = serde_json::from_str(&self.opts.scenario).unwrap_or_default();
        let gpu = doc["resources"]
            .as_array()
            .and_then(|r| r.iter().position(|x| x == "gpu"))
            .unwrap_or(0);
        doc["worker_types"][0]["demand"][gpu]
            .as_f64()
            .unwrap_or(1.0)
            .ceil() as u32
    }

    /// Puts a running or queued earlier run of `job` back on hold.
    fn hold_again(&mut self, job: &Job) {
        let sid = job.id;
        let r = match job.state {
            JobState::Pending => self.client.hold(sid),
            _ => self.client.requeue_hold(sid),
        };
        match r {
            Ok(()) => self.say(format!(
                "bridge: Slurm job {sid} held again (interrupted run)"
            )),
            Err(e) => self.say(format!("bridge: cannot hold Slurm job {sid} again: {e}")),
        }
    }

    /// Runs one Slurm action, recording the time the bridge itself spent before its call: from
    /// the poll that saw the slot's events (events, engine, journal) for the slot's first
    /// action, from the end of the previous action for the next ones. A failure is reported
    /// and tried again next slot.
    fn timed(
        &mut self,
        seen: Instant,
        call: impl FnOnce(&crate::client::Client<R>) -> Result<(), SlurmError>,
        what: String,
    ) {
        let from = self.last_action.filter(|a| *a > seen).unwrap_or(seen);
        let added = from.elapsed();
        let began = Instant::now();
        let r = call(&self.client);
        let took = began.elapsed();
        self.last_action = Some(Instant::now());
        match r {
            Ok(()) => {
                self.added.push(added);
                self.say(format!(
                    "bridge: {what}: {:.1} ms after the poll, scontrol {:.1} ms",
                    added.as_secs_f64() * 1e3,
                    took.as_secs_f64() * 1e3
                ));
            }
            Err(e) => self.say(format!("bridge: {what} failed (retried next slot): {e}")),
        }
    }
}
