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
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum RunError {
    /// The scenario, an option or an event is invalid.
    Input(InputError),
    /// The scheduler refused or failed (a capacity limit, an internal invariant, I/O, ...).
    Runtime(RuntimeError),
}

/// A runtime failure: the message the user sees (job and field named where the kernel's
/// error is about one) and, when the kernel raised it, the kernel's typed error.
#[derive(Clone, Debug, PartialEq)]
pub struct RuntimeError {
    /// What is printed, e.g. "oasis: job `j3`: the price bounds ...".
    pub message: String,
    /// The kernel's error behind it (`None` for I/O and encoding failures of the surfaces).
    pub kernel: Option<KernelError>,
}

/// The kernel's typed error behind a [`RuntimeError`].
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum KernelError {
    /// OASiS (Bao et al.).
    Oasis(mlsched_kernel::oasis::OasisError),
    /// The OASiS price bounds U, L could not be derived (eqs. 23-26).
    Bounds(mlsched_kernel::price::BoundsError),
    /// A_online (Zhou et al.).
    Online(mlsched_kernel::online::OnlineError),
    /// A baseline (FIFO, DRF, LAS, Optimus).
    Baseline(mlsched_kernel::baseline::BaselineError),
    /// HAS / JPS and the placement baselines (Liu et al.).
    Placement(mlsched_kernel::placement::PlacementError),
    /// The preemptive edge-cloud scheduler (Wang et al.).
    Preempt(mlsched_kernel::preempt::PreemptError),
    /// CSRP and the route baselines (Song et al.).
    Route(mlsched_kernel::route::RouteError),
    /// A decision-log record could not be written.
    Log(mlsched_kernel::log::LogError),
    /// A decision-log file could not be written or read.
    LogFile(mlsched_kernel::logfile::LogFileError),
}

macro_rules! kernel_from {
    ($($v:ident($t:ty)),* $(,)?) => {
        $(impl From<$t> for KernelError {
            fn from(e: $t) -> Self {
                KernelError::$v(e)
            }
        })*
    };
}

kernel_from!(
    Oasis(mlsched_kernel::oasis::OasisError),
    Bounds(mlsched_kernel::price::BoundsError),
    Online(mlsched_kernel::online::OnlineError),
    Baseline(mlsched_kernel::baseline::BaselineError),
    Placement(mlsched_kernel::placement::PlacementError),
    Preempt(mlsched_kernel::preempt::PreemptError),
    Route(mlsched_kernel::route::RouteError),
    Log(mlsched_kernel::log::LogError),
    LogFile(mlsched_kernel::logfile::LogFileError),
);

impl KernelError {
    /// The open-world refusal behind this error (`mlsched_kernel::world`), if it is one: the
    /// event was bad input, and the scheduler is as it was.
    pub fn open_world(&self) -> Option<mlsched_kernel::world::OpenWorldError> {
        match *self {
            KernelError::Oasis(mlsched_kernel::oasis::OasisError::OpenWorld(w))
            | KernelError::Online(mlsched_kernel::online::OnlineError::OpenWorld(w))
            | KernelError::Baseline(mlsched_kernel::baseline::BaselineError::OpenWorld(w))
            | KernelError::Placement(mlsched_kernel::placement::PlacementError::OpenWorld(w))
            | KernelError::Preempt(mlsched_kernel::preempt::PreemptError::OpenWorld(w))
            | KernelError::Route(mlsched_kernel::route::RouteError::OpenWorld(w)) => Some(w),
            _ => None,
        }
    }
}

/// A driven run's error as a [`RunError`]: `message` turns the driver's text into what the
/// user sees; the kernel's typed error (scheduler or log) is kept.
pub(crate) fn from_driver<E>(
    e: mlsched_kernel::driver::DriverError<E>,
    message: impl FnOnce(String) -> String,
) -> RunError
where
    E: Into<KernelError> + fmt::Display + Copy,
{
    use mlsched_kernel::driver::DriverError;
    let text = message(e.to_string());
    match e {
        DriverError::Scheduler(s) | DriverError::Refused(s) => RunError::kernel(s, text),
        DriverError::Log(l) => RunError::kernel(l, text),
        _ => RunError::runtime(text),
    }
}

impl RunError {
    /// Exit code of the CLI for this error: 2 for bad input, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            RunError::Input(_) => 2,
            RunError::Runtime(_) => 1,
        }
    }

    /// A runtime failure of a surface (I/O, encoding), not of the kernel.
    pub fn runtime(message: impl Into<String>) -> Self {
        RunError::Runtime(RuntimeError {
            message: message.into(),
            kernel: None,
        })
    }

    /// A runtime failure raised by the kernel: its typed error and the message shown.
    pub fn kernel(e: impl Into<KernelError>, message: impl Into<String>) -> Self {
        RunError::Runtime(RuntimeError {
            message: message.into(),
            kernel: Some(e.into()),
        })
    }

    /// The kernel's typed error behind this one, if any.
    pub fn kernel_error(&self) -> Option<KernelError> {
        match self {
            RunError::Runtime(r) => r.kernel,
            RunError::Input(_) => None,
        }
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Input(e) => e.fmt(f),
            RunError::Runtime(r) => f.write_str(&r.message),
        }
    }
}

impl std::error::Error for RunError {}

impl From<InputError> for RunError {
    fn from(e: InputError) -> Self {
        RunError::Input(e)
    }
}
