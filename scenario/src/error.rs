//! Errors of the document layer, with the context the kernel's `Copy` errors leave out:
//! which job, server or node, and which field.
use std::fmt;

/// Bad input: names what (`job \`j1\``, `worker server 2`, `scenario`, ...), the field, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputError {
    /// What the field belongs to, e.g. "job `resnet-1`", "worker server 0", "scenario".
    pub subject: String,
    /// The field name (or JSON path for syntax errors), e.g. "epochs", "worker_demand[2]".
    pub field: String,
    /// Why the value is refused.
    pub problem: String,
}

impl InputError {
    /// A new error.
    pub fn new(
        subject: impl Into<String>,
        field: impl Into<String>,
        problem: impl Into<String>,
    ) -> Self {
        InputError {
            subject: subject.into(),
            field: field.into(),
            problem: problem.into(),
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.subject, self.problem)
        } else {
            write!(
                f,
                "{}, field `{}`: {}",
                self.subject, self.field, self.problem
            )
        }
    }
}

impl std::error::Error for InputError {}

/// A run that could not complete: bad input (exit code 2) or a runtime failure (exit code 1).
#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    /// The scenario or an option is invalid.
    Input(InputError),
    /// The scheduler refused or failed (a capacity limit, an internal invariant, ...).
    Runtime(String),
}

impl RunError {
    /// Exit code of the CLI for this error: 2 for bad input, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::Input(_) => 2,
            RunError::Runtime(_) => 1,
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Input(e) => e.fmt(f),
            RunError::Runtime(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for RunError {}

impl From<InputError> for RunError {
    fn from(e: InputError) -> Self {
        RunError::Input(e)
    }
}
