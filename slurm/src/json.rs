//! What every JSON reader of the crate shares: parsing into typed errors, Slurm's `errors`
//! array, and state fields that are one word (22.05) or a list of words (later releases).
use crate::error::SlurmError;
use serde::de::DeserializeOwned;
use serde::Deserialize;

/// Parses `text`, any failure an [`SlurmError::Output`] naming `command`.
pub fn parse<T: DeserializeOwned>(command: &str, text: &str) -> Result<T, SlurmError> {
    serde_json::from_str(text).map_err(|e| SlurmError::Output {
        command: command.to_string(),
        message: e.to_string(),
    })
}

/// Slurm's own `errors` array, which must be empty.
pub fn no_errors(command: &str, errors: &[serde_json::Value]) -> Result<(), SlurmError> {
    if errors.is_empty() {
        return Ok(());
    }
    let errors = errors
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("; ");
    Err(SlurmError::Reported {
        command: command.to_string(),
        errors,
    })
}

/// A state written as one word (`"idle"`, `"PENDING"`) or as words (`["IDLE", "DRAIN"]`).
#[derive(Deserialize)]
#[serde(untagged)]
pub enum Words {
    /// One word.
    One(String),
    /// The base word first, then flags.
    Many(Vec<String>),
}

impl Words {
    /// The base word and the flags after it (an empty list is the base `UNKNOWN`).
    pub fn split(self) -> (String, Vec<String>) {
        match self {
            Self::One(w) => (w, Vec::new()),
            Self::Many(mut v) if !v.is_empty() => {
                let base = v.remove(0);
                (base, v)
            }
            Self::Many(_) => ("UNKNOWN".to_string(), Vec::new()),
        }
    }
}
