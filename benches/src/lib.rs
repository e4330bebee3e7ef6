//! Shared fixtures of the criterion benchmarks.
use std::path::PathBuf;

/// `../shared/data` beside the repository, if present.
pub fn shared_data() -> Option<PathBuf> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/data");
    p.is_dir().then_some(p)
}
