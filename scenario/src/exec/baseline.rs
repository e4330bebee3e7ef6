//! The baseline policies' names (`--policy fifo|drf|las|optimus`) on the kinds where they make
//! sense (`mlsched_kernel::baseline`): kind "oasis" (admission + per-slot placement, utility
//! f_i(t_hat - a_i) of the completion the baseline achieves) and kind "online" (one run per job,
//! weighted completion time). The engines of both kinds are in [`crate::engine`].
use crate::error::{InputError, RunError};
use crate::run::unknown_policy;
use mlsched_kernel::baseline::{BaselineError, Policy};

/// Policies accepted by kind "oasis" (the first is the kind's own algorithm).
pub const OASIS_POLICIES: &[&str] = &["oasis", "fifo", "drf", "las", "optimus"];
/// Policies accepted by kind "online".
pub const ONLINE_POLICIES: &[&str] = &["online", "fifo", "drf", "las", "optimus"];
/// Every baseline with its name.
pub const BASELINES: &[(&str, Policy)] = &[
    ("fifo", Policy::Fifo),
    ("drf", Policy::Drf),
    ("las", Policy::Las),
    ("optimus", Policy::Optimus),
];

/// The baseline named `name`, if any.
pub fn baseline_from_name(name: &str) -> Option<Policy> {
    BASELINES.iter().find(|(n, _)| *n == name).map(|(_, p)| *p)
}

/// The name of baseline `p`.
pub fn baseline_name(p: Policy) -> &'static str {
    BASELINES
        .iter()
        .find(|(_, x)| *x == p)
        .map_or("?", |(n, _)| n)
}

/// The baseline `name` for `kind`, or the error listing what `kind` accepts.
pub fn baseline_policy(kind: &str, name: &str, accepted: &[&str]) -> Result<Policy, RunError> {
    baseline_from_name(name).ok_or_else(|| unknown_policy(kind, name, accepted))
}

/// A baseline's kernel error: bad input (exit 2) for a policy the kind does not run, else a
/// runtime failure.
pub fn baseline_error(e: BaselineError) -> RunError {
    match e {
        BaselineError::UnsupportedKind { .. } => {
            RunError::Input(InputError::new("option", "policy", e.to_string()))
        }
        other => RunError::kernel(other, other.to_string()),
    }
}
