//! Where the public traces are: the repository's `data/` folder (see `data/README.md`) or a copy
//! with the same layout.
//!
//! Lookup order ([`data_dir`]), the same for `mlsched import`, `compare import:SOURCE`,
//! `gen placement` and `gen route`:
//! 1. an explicit folder (`--data DIR`; for the generators, `--trace`), if given;
//! 2. the environment variable [`DATA_ENV`] (`MLSCHED_DATA`), if set and not empty;
//! 3. a `data/` folder with the expected layout ([`looks_like_data`]) in the current directory
//!    or one of its parents;
//! 4. the `data/` folder of the source tree this binary was built from
//!    ([`BUILD_DATA_DIR`]), if it still exists.
//!
//! Nothing found is an input error that lists what was looked at and says `--data DIR`.
use mlsched_scenario::error::InputError;
use std::path::{Path, PathBuf};

/// The environment variable naming a data folder.
pub const DATA_ENV: &str = "MLSCHED_DATA";

/// The repository's `data/` folder as seen at compile time.
pub const BUILD_DATA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../data");

/// The sub-folders a data folder must hold to be picked by the upward search.
pub const LAYOUT: [&str; 3] = ["gavel", "alibaba-openb-gpu-2023", "philly-via-pollux"];

/// True if `dir` has the bundled layout: a `README.md` and the [`LAYOUT`] sub-folders.
pub fn looks_like_data(dir: &Path) -> bool {
    dir.join("README.md").is_file() && LAYOUT.iter().all(|s| dir.join(s).is_dir())
}

/// The data folder, by the lookup order of the module docs (`explicit` = `--data DIR`).
pub fn data_dir(explicit: Option<&Path>) -> Result<PathBuf, InputError> {
    locate(explicit, "data", "--data DIR")
}

/// [`data_dir`] for a command whose explicit option is `flag` (named `field` in errors), e.g.
/// `("trace", "--trace PATH")` for the generators.
pub fn locate(explicit: Option<&Path>, field: &str, flag: &str) -> Result<PathBuf, InputError> {
    if let Some(d) = explicit {
        return Ok(d.to_path_buf());
    }
    let env = std::env::var_os(DATA_ENV).filter(|v| !v.is_empty());
    if let Some(v) = env {
        let d = PathBuf::from(v);
        return if d.is_dir() {
            Ok(d)
        } else {
            Err(InputError::new(
                "environment",
                DATA_ENV,
                format!("{} is not a folder; unset it or pass {flag}", d.display()),
            ))
        };
    }
    let cwd = std::env::current_dir().ok();
    if let Some(mut dir) = cwd.clone() {
        loop {
            let cand = dir.join("data");
            if looks_like_data(&cand) {
                return Ok(cand);
            }
            if !dir.pop() {
                break;
            }
        }
    }
    let built = Path::new(BUILD_DATA_DIR);
    if looks_like_data(built) {
        return Ok(built.to_path_buf());
    }
    Err(InputError::new(
        "option",
        field,
        format!(
            "no data folder found: looked at ${DATA_ENV} (unset), data/ in {} and its parents \
             (a folder holding README.md, {}/), and {}; pass {flag}",
            cwd.as_deref().map_or_else(
                || "the current directory".into(),
                |p| p.display().to_string()
            ),
            LAYOUT.join("/, "),
            built.display()
        ),
    ))
}
