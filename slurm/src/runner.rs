//! How commands run: [`Runner`] is the one seam between the client and the machine, so unit
//! tests (and the coming bridge's tests) feed recorded output through [`Recorded`] instead of a
//! cluster.
use crate::error::SlurmError;
use std::cell::RefCell;
use std::path::PathBuf;
use std::process::Command;

/// Runs one Slurm command and returns its standard output.
pub trait Runner {
    /// Runs `program` with `args`; a non-zero exit is [`SlurmError::Exit`].
    fn run(&self, program: &str, args: &[String]) -> Result<String, SlurmError>;
}

/// The command line as one string, for error messages and [`Recorded`]'s keys.
pub fn command_line(program: &str, args: &[String]) -> String {
    let mut s = program.to_string();
    for a in args {
        s.push(' ');
        s.push_str(a);
    }
    s
}

/// Runs the real programs (found on `PATH`), with `SLURM_CONF` set when a configuration file is
/// given (else the environment's, else Slurm's default).
#[derive(Clone, Debug, Default)]
pub struct SystemRunner {
    /// The `slurm.conf` the commands use.
    pub conf: Option<PathBuf>,
}

impl SystemRunner {
    /// A runner whose commands use `conf`.
    pub fn with_conf(conf: impl Into<PathBuf>) -> Self {
        Self {
            conf: Some(conf.into()),
        }
    }
}

impl Runner for SystemRunner {
    fn run(&self, program: &str, args: &[String]) -> Result<String, SlurmError> {
        let mut cmd = Command::new(program);
        cmd.args(args);
        if let Some(conf) = &self.conf {
            cmd.env("SLURM_CONF", conf);
        }
        let out = cmd.output().map_err(|e| SlurmError::Spawn {
            command: command_line(program, args),
            message: e.to_string(),
        })?;
        if !out.status.success() {
            return Err(SlurmError::Exit {
                command: command_line(program, args),
                code: out.status.code(),
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        String::from_utf8(out.stdout).map_err(|_| SlurmError::Output {
            command: command_line(program, args),
            message: "not UTF-8".into(),
        })
    }
}

/// A recorded answer: stdout, or an exit code and stderr.
type Answer = Result<String, (i32, String)>;

/// Answers from recorded outputs, keyed by the whole command line, and remembers every call in
/// order. A command with no recorded answer fails like a missing program.
#[derive(Debug, Default)]
pub struct Recorded {
    answers: Vec<(String, Answer)>,
    calls: RefCell<Vec<String>>,
}

impl Recorded {
    /// No answers yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// `command` (the whole line, as [`command_line`] writes it) prints `stdout` and succeeds.
    pub fn answer(mut self, command: &str, stdout: &str) -> Self {
        self.answers
            .push((command.to_string(), Ok(stdout.to_string())));
        self
    }

    /// `command` fails with exit `code` and `stderr`.
    pub fn fail(mut self, command: &str, code: i32, stderr: &str) -> Self {
        self.answers
            .push((command.to_string(), Err((code, stderr.to_string()))));
        self
    }

    /// Every command line run so far, in order.
    pub fn calls(&self) -> Vec<String> {
        self.calls.borrow().clone()
    }
}

impl Runner for Recorded {
    fn run(&self, program: &str, args: &[String]) -> Result<String, SlurmError> {
        let line = command_line(program, args);
        self.calls.borrow_mut().push(line.clone());
        match self.answers.iter().find(|(c, _)| *c == line) {
            Some((_, Ok(out))) => Ok(out.clone()),
            Some((_, Err((code, stderr)))) => Err(SlurmError::Exit {
                command: line,
                code: Some(*code),
                stderr: stderr.clone(),
            }),
            None => Err(SlurmError::Spawn {
                command: line,
                message: "no recorded answer".into(),
            }),
        }
    }
}
