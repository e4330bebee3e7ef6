//! How each job ended: the `status` of every job row and the counts in every result's
//! `summary.statuses` (`docs/open-world.md`, `docs/formats.md`).
//!
//! One rule for every kind: the status is the scheduler's own (`mlsched_kernel::world::Status`,
//! `cancelled` for a job the façade cancelled before it arrived); a kind whose scheduler keeps
//! none derives it from the job's row ([`crate::engine::Kind::set_statuses`]): a job the
//! algorithm refused is `rejected`, one that ran to its end `finished`, one still waiting or
//! running when the run ended `unfinished`.
use mlsched_kernel::world::Status;
use serde::{Deserialize, Serialize};

/// A job's `status` in a result document.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobStatus {
    /// It was cancelled by the host.
    Cancelled,
    /// It did all its work.
    Finished,
    /// It was interrupted (a server failed or lost capacity) and not recovered.
    Lost,
    /// The scheduler refused it.
    Rejected,
    /// It was waiting or running when the run ended.
    Unfinished,
}

impl From<Status> for JobStatus {
    fn from(s: Status) -> Self {
        match s {
            Status::Cancelled => JobStatus::Cancelled,
            Status::Finished => JobStatus::Finished,
            Status::Lost => JobStatus::Lost,
            Status::Rejected => JobStatus::Rejected,
            Status::Unfinished => JobStatus::Unfinished,
        }
    }
}

impl JobStatus {
    /// The status string.
    pub const fn name(self) -> &'static str {
        match self {
            JobStatus::Cancelled => "cancelled",
            JobStatus::Finished => "finished",
            JobStatus::Lost => "lost",
            JobStatus::Rejected => "rejected",
            JobStatus::Unfinished => "unfinished",
        }
    }
}

/// `summary.statuses`: how many jobs ended with each status (they sum to the number of jobs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusCounts {
    /// Cancelled by the host.
    pub cancelled: u32,
    /// Did all their work.
    pub finished: u32,
    /// Interrupted and not recovered.
    pub lost: u32,
    /// Refused by the scheduler.
    pub rejected: u32,
    /// Waiting or running at the end.
    pub unfinished: u32,
}

impl StatusCounts {
    /// The counts of `statuses`.
    pub fn of(statuses: impl IntoIterator<Item = JobStatus>) -> Self {
        let mut c = StatusCounts::default();
        for s in statuses {
            *match s {
                JobStatus::Cancelled => &mut c.cancelled,
                JobStatus::Finished => &mut c.finished,
                JobStatus::Lost => &mut c.lost,
                JobStatus::Rejected => &mut c.rejected,
                JobStatus::Unfinished => &mut c.unfinished,
            } += 1;
        }
        c
    }
}

impl std::fmt::Display for StatusCounts {
    /// `finished F, unfinished U, rejected R, cancelled C, lost L` (the nonzero ones; `no jobs`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let all = [
            ("finished", self.finished),
            ("unfinished", self.unfinished),
            ("rejected", self.rejected),
            ("cancelled", self.cancelled),
            ("lost", self.lost),
        ];
        let shown: Vec<String> = all
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| format!("{k} {n}"))
            .collect();
        if shown.is_empty() {
            f.write_str("no jobs")
        } else {
            f.write_str(&shown.join(", "))
        }
    }
}
