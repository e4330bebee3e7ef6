//! Bounded reads of every input a surface takes from a file or standard input: a documented
//! maximum size per kind of input, checked before anything is parsed, so `/dev/zero`, a
//! runaway pipe or a multi-gigabyte file is a clear input error naming the limit, never an
//! unbounded allocation. `-` is standard input everywhere.
use crate::error::InputError;
use std::io::Read;
use std::path::Path;

/// Largest scenario document read (bytes): 256 MiB, room for a million-job trace.
pub const SCENARIO_BYTES_MAX: u64 = 256 << 20;
/// Largest decision-log file read (bytes): 1 GiB.
pub const LOG_BYTES_MAX: u64 = 1 << 30;
/// Largest trace file read by an importer or generator (bytes): 256 MiB.
pub const TRACE_BYTES_MAX: u64 = 256 << 20;

/// What is being read, for the limit's name in errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// A scenario document ([`SCENARIO_BYTES_MAX`]).
    Scenario,
    /// A decision log ([`LOG_BYTES_MAX`]).
    Log,
    /// A trace file ([`TRACE_BYTES_MAX`]).
    Trace,
}

impl Input {
    /// The limit in bytes.
    pub const fn max_bytes(self) -> u64 {
        match self {
            Input::Scenario => SCENARIO_BYTES_MAX,
            Input::Log => LOG_BYTES_MAX,
            Input::Trace => TRACE_BYTES_MAX,
        }
    }

    /// The limit's name.
    pub const fn limit_name(self) -> &'static str {
        match self {
            Input::Scenario => "SCENARIO_BYTES_MAX",
            Input::Log => "LOG_BYTES_MAX",
            Input::Trace => "TRACE_BYTES_MAX",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Input::Scenario => "a scenario",
            Input::Log => "a log",
            Input::Trace => "a trace",
        }
    }
}

fn subject(path: &Path) -> String {
    if path == Path::new("-") {
        "standard input".to_string()
    } else {
        format!("file {}", path.display())
    }
}

/// The error of an input larger than its limit.
pub fn too_large(path: &Path, what: Input) -> InputError {
    InputError::new(
        subject(path),
        "",
        format!(
            "larger than {} bytes, the limit for {} ({} of this build)",
            what.max_bytes(),
            what.noun(),
            what.limit_name()
        ),
    )
}

/// Reads `path` (`-`: standard input) as bytes, refusing more than `what`'s limit: a regular
/// file by its size before reading, anything else (a pipe, a device) after reading one byte
/// past the limit.
pub fn read_bytes(path: &Path, what: Input) -> Result<Vec<u8>, InputError> {
    read_checked(path, what, &[])
}

/// A decision log: [`read_bytes`], refusing at once (before reading the rest) what does not
/// start with the log file's magic `MLSCHLOG`.
pub fn read_log(path: &Path) -> Result<Vec<u8>, InputError> {
    read_checked(path, Input::Log, &mlsched_kernel::logfile::MAGIC)
}

fn read_checked(path: &Path, what: Input, magic: &[u8]) -> Result<Vec<u8>, InputError> {
    let cannot =
        |e: std::io::Error| InputError::new(subject(path), "", format!("cannot read: {e}"));
    let max = what.max_bytes();
    let mut reader: Box<dyn Read> = if path == Path::new("-") {
        Box::new(std::io::stdin().lock())
    } else {
        let f = std::fs::File::open(path).map_err(cannot)?;
        let meta = f.metadata().map_err(cannot)?;
        if meta.is_dir() {
            return Err(InputError::new(
                subject(path),
                "",
                "is a directory, not a file",
            ));
        }
        if meta.is_file() && meta.len() > max {
            return Err(too_large(path, what));
        }
        Box::new(f)
    };
    let mut buf = Vec::new();
    (&mut reader)
        .take(magic.len() as u64)
        .read_to_end(&mut buf)
        .map_err(cannot)?;
    if buf != magic {
        return Err(InputError::new(
            subject(path),
            "",
            format!(
                "byte 0: not an mlsched {} (it does not start with `{}`)",
                what.noun().trim_start_matches("a "),
                String::from_utf8_lossy(magic)
            ),
        ));
    }
    reader
        .take(max + 1 - magic.len() as u64)
        .read_to_end(&mut buf)
        .map_err(cannot)?;
    if buf.len() as u64 > max {
        return Err(too_large(path, what));
    }
    Ok(buf)
}

/// [`read_bytes`] as UTF-8 text.
pub fn read_text(path: &Path, what: Input) -> Result<String, InputError> {
    let bytes = read_bytes(path, what)?;
    String::from_utf8(bytes).map_err(|e| {
        InputError::new(
            subject(path),
            "",
            format!(
                "not UTF-8 text (invalid byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}
