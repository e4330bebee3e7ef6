//! What changed in Slurm, as engine events: nodes out of or back in service, jobs of the
//! bridge's that ended, held jobs with an `mlsched:` comment not seen before.
//!
//! Pure functions of one poll and of what the bridge knows, so a restarted bridge, whose engine
//! was rebuilt from the journal, sees exactly what is still new.
use super::plans::Plans;
use crate::comment::MlschedComment;
use crate::error::SlurmError;
use crate::job::{Job, JobState};
use crate::node::Node;
use mlsched_kernel::world::Status;
use mlsched_scenario::event::HostEvent;
use serde_json::{Map, Value};

/// A node's change of service: `server_down` when Slurm has it DOWN, DRAINED or DRAINING and
/// the engine up; `server_up` when Slurm has it IDLE, MIXED or ALLOCATED and the engine down.
/// `down` says whether the engine has the node down (`None`: not a server of the template).
pub fn node_event(at: u32, node: &Node, down: Option<bool>) -> Option<HostEvent> {
    let server = node.name.clone();
    match down? {
        false if node.state.is_out() => Some(HostEvent::ServerDown { at, server }),
        true if node.state.is_up() => Some(HostEvent::ServerUp { at, server }),
        _ => None,
    }
}

/// The event for a job of the bridge's that Slurm shows ended (`job.state.is_end()`), given the
/// engine's view (`status`, its plans) of engine job `index` named `id`:
/// - none when the bridge ended it itself (its comment has the `mlsched-cancel:` mark), when
///   the engine rejected it, or when the engine has it ended already (cancelled, lost);
/// - `finished` when it ended COMPLETED, FAILED, TIMEOUT or OUT_OF_MEMORY while running a plan
///   (Slurm's exit code is not judged), or when the engine's schedule of it is over;
/// - `cancel` otherwise: CANCELLED by its user, NODE_FAIL and every other end, or any end of a
///   job the engine has not (or no longer) running, so the engine stops counting on it.
pub fn end_event(
    at: u32,
    job: &Job,
    index: u32,
    id: &str,
    status: Option<Status>,
    plans: &Plans,
) -> Option<HostEvent> {
    let ours = matches!(MlschedComment::parse(job.id, &job.comment), Ok(Some(c)) if c.cancel_reason.is_some());
    if ours || plans.rejected(index).is_some() {
        return None;
    }
    let job_id = id.to_string();
    match status {
        Some(Status::Cancelled | Status::Lost | Status::Rejected) => None,
        Some(Status::Finished) => Some(HostEvent::Finished { at, job: job_id }),
        _ => {
            let ran = matches!(
                job.state,
                JobState::Completed | JobState::Failed | JobState::Timeout | JobState::OutOfMemory
            );
            if ran && plans.current(index).is_some() {
                Some(HostEvent::Finished { at, job: job_id })
            } else {
                Some(HostEvent::Cancel { at, job: job_id })
            }
        }
    }
}

/// What a job not known to the bridge is.
#[derive(Debug)]
pub enum NewJob {
    /// A held job with a valid `mlsched:` comment: submit this job object.
    Submit(Map<String, Value>),
    /// A held job whose comment does not parse: cancel it with this reason.
    Refuse(String),
}

/// A job the bridge has not seen: mlsched's if held, pending, in the partition (when one is
/// given) and with an `mlsched:` comment not marked cancelled; anything else is left alone.
pub fn new_job(job: &Job, partition: Option<&str>) -> Option<NewJob> {
    if !job.held || job.state != JobState::Pending {
        return None;
    }
    if partition.is_some_and(|p| job.partition != p) {
        return None;
    }
    match MlschedComment::parse(job.id, &job.comment) {
        Ok(None) => None,
        Ok(Some(c)) if c.cancel_reason.is_some() => None,
        Ok(Some(c)) => Some(NewJob::Submit(c.job)),
        Err(e @ SlurmError::Comment { .. }) => Some(NewJob::Refuse(e.to_string())),
        Err(e) => Some(NewJob::Refuse(e.to_string())),
    }
}
