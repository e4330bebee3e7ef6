//! Progress on stderr for the long commands (`run`, `gen`, `import`, `compare`).
//!
//! Drawn only when stderr is a terminal and `--quiet` is not given: piped or redirected
//! output (scripts, CI, tests) never holds an escape code. indicatif's own stderr target hides
//! itself off a terminal too; the explicit check also skips the bookkeeping. Bars stay
//! invisible for their first second (`MLSCHED_PROGRESS_DELAY_MS` changes it) so quick runs print
//! nothing, and every bar is cleared
//! when its work ends, so the terminal keeps only the command's own output.
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A progress bar or spinner on stderr (see the module docs for when it shows).
pub struct Progress {
    pb: ProgressBar,
    start: Instant,
    live: bool,
    shown: AtomicBool,
    delay: Duration,
}

/// How long a bar stays invisible: `MLSCHED_PROGRESS_DELAY_MS` milliseconds if set (0: at
/// once, what the terminal test uses), else one second.
fn delay() -> Duration {
    std::env::var("MLSCHED_PROGRESS_DELAY_MS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(Duration::from_secs(1), Duration::from_millis)
}

/// Whether progress may be drawn at all: stderr is a terminal and `--quiet` is off.
pub fn live(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

impl Progress {
    /// A bar over `n` steps.
    pub fn new(n: u64, quiet: bool) -> Self {
        Self::styled(
            ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::hidden()),
            "[{elapsed}] {bar:30} {pos}/{len} {msg}",
            quiet,
        )
    }

    /// A spinner for one step of unknown length (an import, a generator), saying `msg`. It
    /// shows at once (nothing else would reveal it after the first second) and is cleared at
    /// [`Progress::finish`].
    pub fn spinner(msg: String, quiet: bool) -> Self {
        let p = Self::styled(
            ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden()),
            "[{elapsed}] {spinner} {msg}",
            quiet,
        );
        p.pb.set_message(msg);
        if p.live {
            p.shown.store(true, Ordering::Relaxed);
            p.pb.set_draw_target(ProgressDrawTarget::stderr());
            p.pb.enable_steady_tick(Duration::from_millis(120));
        }
        p
    }

    fn styled(pb: ProgressBar, template: &str, quiet: bool) -> Self {
        if let Ok(st) = ProgressStyle::with_template(template) {
            pb.set_style(st);
        }
        Progress {
            pb,
            start: Instant::now(),
            live: live(quiet),
            shown: AtomicBool::new(false),
            delay: delay(),
        }
    }

    /// Whether this bar may ever draw (callers skip their own bookkeeping when not).
    pub fn is_live(&self) -> bool {
        self.live
    }

    /// Draws once the delay has passed (the first second), if live.
    fn reveal(&self) {
        if self.live
            && self.start.elapsed() >= self.delay
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.pb.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// One step done.
    pub fn inc(&self) {
        self.reveal();
        self.pb.inc(1);
    }

    /// The steps done so far and the total (which a run learns as it starts).
    pub fn set(&self, pos: u64, len: u64) {
        self.reveal();
        self.pb.set_length(len);
        self.pb.set_position(pos);
    }

    /// What is being done now.
    pub fn set_message(&self, msg: impl Into<String>) {
        self.pb.set_message(msg.into());
    }

    /// Clears the bar.
    pub fn finish(&self) {
        self.pb.finish_and_clear();
    }
}
