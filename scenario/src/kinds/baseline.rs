//! The baseline policies' names (`--policy fifo|drf|las|optimus|rrh|dorm|antman`) on the kinds where they make
//! sense (`mlsched_kernel::baseline`): kind "oasis" (admission + per-slot placement, utility
//! f_i(t_hat - a_i) of the completion the baseline achieves) and kind "online" (one run per job,
//! weighted completion time). The kernel knows the policies as an enum only; their names live
//! here. The engines of both kinds are in [`crate::engine`].
use crate::error::{InputError, RunError};
use crate::run::unknown_policy;
use mlsched_kernel::baseline::{BaselineError, Policy};

/// Policies accepted by kind "oasis" (the first is the kind's own algorithm).
pub const OASIS_POLICIES: &[&str] = &[
    "oasis", "fifo", "drf", "las", "optimus", "rrh", "dorm", "tiresias",
];
/// Policies accepted by kind "online".
pub const ONLINE_POLICIES: &[&str] = &["online", "fifo", "drf", "las", "optimus", "antman"];
/// Every baseline name, for the error of kinds the baselines do not run.
pub const BASELINES: &[&str] = &[
    "fifo", "drf", "las", "optimus", "rrh", "dorm", "antman", "tiresias",
];

/// Scenario kinds the baselines run.
pub const BASELINE_KINDS: &[&str] = &["oasis", "online"];

/// The name of a baseline policy (the `--policy` value, the result's `policy`).
pub const fn policy_name(p: Policy) -> &'static str {
    match p {
        Policy::Fifo => "fifo",
        Policy::Drf => "drf",
        Policy::Las => "las",
        Policy::Optimus => "optimus",
        Policy::Rrh => "rrh",
        Policy::AntMan => "antman",
        Policy::Dorm => "dorm",
        Policy::Tiresias => "tiresias",
    }
}

/// The baseline policy named `name`, if any.
pub fn policy_from_name(name: &str) -> Option<Policy> {
    Policy::ALL.into_iter().find(|&p| policy_name(p) == name)
}

/// The baseline `name` for `kind`, or the error listing what `kind` accepts (a baseline of
/// the other kind, e.g. `rrh` on kind "online", is refused the same way).
pub fn baseline_policy(kind: &str, name: &str, accepted: &[&str]) -> Result<Policy, RunError> {
    policy_from_name(name)
        .filter(|_| accepted.contains(&name))
        .ok_or_else(|| unknown_policy(kind, name, accepted))
}

/// `Some(error)` if `policy` is a baseline name and `kind` is not one the baselines run: the
/// other kinds' `run` can answer with this clear message instead of "unknown policy".
pub fn unsupported_kind(kind: &'static str, policy: &str) -> Option<RunError> {
    let p = policy_from_name(policy)?;
    if BASELINE_KINDS.contains(&kind) {
        return None;
    }
    Some(RunError::Input(InputError::new(
        "option",
        "policy",
        format!(
            "baseline `{}` does not run kind \"{kind}\" (baselines run kinds \"oasis\" and \"online\")",
            policy_name(p)
        ),
    )))
}

/// A baseline's kernel error as a runtime failure.
pub fn baseline_error(e: BaselineError) -> RunError {
    RunError::kernel(e, e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Policy::ALL {
            assert_eq!(policy_from_name(policy_name(p)), Some(p));
        }
        assert_eq!(policy_from_name("oasis"), None);
    }

    #[test]
    fn other_kinds_are_refused_clearly() {
        let Some(RunError::Input(e)) = unsupported_kind("route", "drf") else {
            panic!("drf on route must be refused");
        };
        assert!(e.to_string().contains(
            "baseline `drf` does not run kind \"route\" (baselines run kinds \"oasis\" and \"online\")"
        ));
        assert!(unsupported_kind("oasis", "fifo").is_none());
        assert!(unsupported_kind("route", "csrp").is_none());
    }

    #[test]
    fn kind_only_baselines_stay_on_their_kind() {
        assert!(baseline_policy("oasis", "rrh", OASIS_POLICIES).is_ok());
        assert!(baseline_policy("online", "rrh", ONLINE_POLICIES).is_err());
        assert!(baseline_policy("oasis", "dorm", OASIS_POLICIES).is_ok());
        assert!(baseline_policy("online", "dorm", ONLINE_POLICIES).is_err());
        assert!(baseline_policy("online", "antman", ONLINE_POLICIES).is_ok());
        assert!(baseline_policy("oasis", "antman", OASIS_POLICIES).is_err());
        for p in Policy::OASIS {
            assert!(OASIS_POLICIES.contains(&policy_name(p)));
        }
        for p in Policy::ONLINE {
            assert!(ONLINE_POLICIES.contains(&policy_name(p)));
        }
    }
}
