//! Shared helpers of the cross-crate tests.
pub mod alloc_count;

use std::path::PathBuf;

pub mod actions;
pub mod fuzz;
pub mod route_instances;

/// `../shared/data` beside the repository, or `None` (tests then skip with a message).
pub fn shared_data() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
    p.is_dir().then_some(p)
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}
