//! The one driver: feeds [`Event`]s to any [`Scheduler`] in the documented order
//! ([`crate::api`]), writes every event and every decision record through the same
//! [`LogSink`], and runs a whole scenario from its arrival list.
//!
//! - Event records: `JobArrived(j)` at t is [`TAG_EVENT_ARRIVAL`] with body `(t, j)`,
//!   `SlotAdvanced` at t is [`TAG_EVENT_SLOT`] with body `t`, `JobFinished(j)` at t is
//!   [`TAG_EVENT_FINISH`] with body `(t, j)` (postcard: varint u32s); the open-world events
//!   (`crate::world`) are `TAG_EVENT_CANCEL` `(t, j)`, `TAG_EVENT_SERVER_DOWN` and
//!   `TAG_EVENT_SERVER_UP` `(t, h)`, `TAG_EVENT_CAPACITY` `(t, h, [c_h^r])`. They go through
//!   [`LogSink::event`]: `log_hash` fingerprints the decisions; event records frame them in the
//!   log and are checked by replay.
//! - Decision records: the driver calls [`Record::log`] on each decision the scheduler passes
//!   to its callback, right after the event record that caused it.
//!
//! A control plane that feeds the same events through [`Driver::on_event`] (and ends with
//! [`Driver::finish`]) writes a log byte-identical to [`Driver::run`].
use crate::api::{Event, Record, Scheduler};
use crate::log::{
    LogError, LogSink, TAG_EVENT_ARRIVAL, TAG_EVENT_CANCEL, TAG_EVENT_CAPACITY, TAG_EVENT_FINISH,
    TAG_EVENT_SERVER_DOWN, TAG_EVENT_SERVER_UP, TAG_EVENT_SLOT,
};
use crate::Slot;

/// Writes the event record of `event` at `now` (module docs).
fn log_event<L: LogSink>(sink: &mut L, now: Slot, event: &Event<u32>) -> Result<(), LogError> {
    match *event {
        Event::JobArrived(j) => sink.event(TAG_EVENT_ARRIVAL, &(now, j)),
        Event::SlotAdvanced => sink.event(TAG_EVENT_SLOT, &now),
        Event::JobFinished(j) => sink.event(TAG_EVENT_FINISH, &(now, j)),
        Event::JobCancelled(j) => sink.event(TAG_EVENT_CANCEL, &(now, j)),
        Event::ServerDown(h) => sink.event(TAG_EVENT_SERVER_DOWN, &(now, h)),
        Event::ServerUp(h) => sink.event(TAG_EVENT_SERVER_UP, &(now, h)),
        Event::Capacity(h, c) => sink.event(TAG_EVENT_CAPACITY, &(now, h, c.as_slice())),
    }
}

/// Why a driven run stopped.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq)]
pub enum DriverError<E> {
    /// The scheduler failed on an event after it had decided something (its typed error).
    Scheduler(E),
    /// The scheduler refused an event before deciding anything (its typed error): nothing was
    /// logged, and a scheduler that checks before it changes (every open-world check,
    /// `crate::world`) is as it was.
    Refused(E),
    /// A record could not be written.
    Log(LogError),
}

impl<E: core::fmt::Display> core::fmt::Display for DriverError<E> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DriverError::Scheduler(e) | DriverError::Refused(e) => e.fmt(f),
            DriverError::Log(e) => write!(f, "decision log: {e}"),
        }
    }
}

#[cfg(feature = "std")]
impl<E: core::fmt::Debug + core::fmt::Display> std::error::Error for DriverError<E> {}

/// A scheduler with its clock: see the module docs.
#[derive(Clone, Debug)]
pub struct Driver<S> {
    sched: S,
    now: Option<Slot>,
}

impl<S: Scheduler<Job = u32>> Driver<S> {
    /// Wraps a freshly built (or restored) scheduler.
    pub fn new(sched: S) -> Self {
        Driver { sched, now: None }
    }

    /// The scheduler (for results and explanations).
    pub fn scheduler(&self) -> &S {
        &self.sched
    }

    /// The scheduler, mutably (e.g. to restore a snapshot).
    pub fn scheduler_mut(&mut self) -> &mut S {
        &mut self.sched
    }

    /// The scheduler back.
    pub fn into_inner(self) -> S {
        self.sched
    }

    /// The slot of the last event fed (`None` before the first).
    pub fn now(&self) -> Option<Slot> {
        self.now
    }

    /// Feeds one event at slot `now`: writes its event record, then every decision it causes
    /// (each also passed to `out`). `now` must not decrease.
    pub fn on_event<L: LogSink, F: FnMut(&S::Decision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        event: Event<u32>,
        sink: &mut L,
        out: &mut F,
    ) -> Result<(), DriverError<S::Error>> {
        debug_assert!(
            self.now.is_none_or(|t| now >= t),
            "events must come in non-decreasing time"
        );
        // The event record is written just before the first decision record it causes, or after
        // the scheduler accepted an event that caused none: a scheduler refusing an event before
        // deciding anything (an open-world check, `crate::world`) leaves the log untouched too,
        // and the run reports [`DriverError::Refused`]. The bytes of an accepted event are the
        // same either way.
        let mut logged = false;
        let mut failed = None;
        let result = self.sched.on_event(now, event, &mut |d: &S::Decision<'_>| {
            if failed.is_none() && !logged {
                logged = true;
                failed = log_event(sink, now, &event).err();
            }
            if failed.is_none() {
                failed = d.log(sink).err();
            }
            out(d);
        });
        if let Err(e) = result {
            return Err(if logged {
                DriverError::Scheduler(e)
            } else {
                DriverError::Refused(e)
            });
        }
        self.now = Some(now);
        if !logged {
            log_event(sink, now, &event).map_err(DriverError::Log)?;
        }
        failed.map_or(Ok(()), |e| Err(DriverError::Log(e)))
    }

    /// Ends the run: the scheduler's final decisions ([`Scheduler::finish`]), logged.
    pub fn finish<L: LogSink, F: FnMut(&S::Decision<'_>) + ?Sized>(
        &mut self,
        sink: &mut L,
        out: &mut F,
    ) -> Result<(), DriverError<S::Error>> {
        let mut failed = None;
        self.sched
            .finish(&mut |d: &S::Decision<'_>| {
                if failed.is_none() {
                    failed = d.log(sink).err();
                }
                out(d);
            })
            .map_err(DriverError::Scheduler)?;
        failed.map_or(Ok(()), |e| Err(DriverError::Log(e)))
    }

    /// Runs a whole scenario: `arrivals` are `(arrival slot, job index)` sorted by slot then
    /// index. At each slot the arrivals due, then `SlotAdvanced`; the next slot is
    /// min(next arrival, [`Scheduler::next_wakeup`]); then [`Driver::finish`].
    pub fn run<L: LogSink, F: FnMut(&S::Decision<'_>) + ?Sized>(
        &mut self,
        arrivals: &[(Slot, u32)],
        sink: &mut L,
        out: &mut F,
    ) -> Result<(), DriverError<S::Error>> {
        debug_assert!(
            arrivals.windows(2).all(|w| w[0] <= w[1]),
            "arrivals sorted by (slot, index)"
        );
        let mut next = 0usize;
        let mut t = earliest(
            arrivals.first().map(|a| a.0),
            self.sched.next_wakeup(self.now),
        );
        while let Some(now) = t {
            while let Some(&(_, j)) = arrivals.get(next).filter(|a| a.0 <= now) {
                self.on_event(now, Event::JobArrived(j), sink, out)?;
                next += 1;
            }
            self.on_event(now, Event::SlotAdvanced, sink, out)?;
            // A wake-up at or before `now` would repeat this slot: the next is strictly later.
            let wake = self
                .sched
                .next_wakeup(Some(now))
                .map(|w| w.max(now.saturating_add(1)));
            t = earliest(arrivals.get(next).map(|a| a.0.max(now)), wake);
            if t == Some(now) {
                // Only arrivals at `now` already fed can be here; unreachable for sorted input.
                break;
            }
        }
        self.finish(sink, out)
    }
}

/// The arrival order of a scenario: `(arrival, index)` for every job, sorted by slot then index.
#[cfg(feature = "alloc")]
pub fn arrival_order(arrivals: impl IntoIterator<Item = Slot>) -> alloc::vec::Vec<(Slot, u32)> {
    let mut v: alloc::vec::Vec<(Slot, u32)> = arrivals
        .into_iter()
        .enumerate()
        .map(|(i, a)| (a, i as u32))
        .collect();
    crate::order::sort_pairs(&mut v);
    v
}

fn earliest(a: Option<Slot>, b: Option<Slot>) -> Option<Slot> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}
