//! Shared fixtures of the criterion benchmarks.
use std::path::PathBuf;

/// The repository's bundled `data/` folder (see `data/README.md`); panics if it is missing.
pub fn data_dir() -> PathBuf {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data");
    assert!(
        p.join("README.md").is_file(),
        "the bundled data folder {} is missing",
        p.display()
    );
    p
}
