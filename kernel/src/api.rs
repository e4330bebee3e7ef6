//! The embedding API: the shape a control plane calls.
//!
//! Each algorithm is a value implementing [`Scheduler`], built once from a validated scenario
//! or configuration. The control plane feeds it [`Event`]s with the current slot as an argument
//! (the kernel never reads a clock) and receives every decision the event causes through a
//! callback — no allocation, no hidden threads, no I/O.
//!
//! The control plane never writes records itself: [`crate::driver::Driver`] feeds the events,
//! writes one event record per event and one decision record per decision (each decision is a
//! [`Record`]) through the same [`LogSink`], and runs whole scenarios from their arrival lists.
//!
//! ## The order of events within a slot (every kind)
//! At slot t the driver feeds, in this order:
//! 1. `JobFinished(j)` for every job the host reports finished at t;
//! 2. `JobArrived(j)` for every job arriving at t, in (arrival, input index) order;
//! 3. `SlotAdvanced`.
//!
//! The next slot is min(next arrival, [`Scheduler::next_wakeup`]`(Some(t))`); the run ends
//! (with [`Scheduler::finish`]) when neither exists. The first slot is min(first arrival,
//! `next_wakeup(None)`).
//!
//! ```
//! use mlsched_kernel::api::{Event, Record, Scheduler};
//! use mlsched_kernel::driver::Driver;
//! use mlsched_kernel::log::{LogError, LogSink, VecSink};
//! use mlsched_kernel::world::OpenWorldError;
//! use mlsched_kernel::Slot;
//!
//! /// A toy scheduler: admits a job when it arrives if fewer than `cap` are running.
//! struct Admit { running: u32, cap: u32 }
//! /// Its decision: (job, admitted), logged as one record with tag 0x70.
//! struct Admission(u32, bool);
//! impl Record for Admission {
//!     fn log<S: LogSink>(&self, sink: &mut S) -> Result<(), LogError> {
//!         sink.record(0x70, &(self.0, self.1))
//!     }
//! }
//! impl Scheduler for Admit {
//!     type Job = u32; // the job's id
//!     type Decision<'a> = Admission;
//!     type Error = OpenWorldError;
//!     fn on_event<F: FnMut(&Admission) + ?Sized>(&mut self, _now: Slot, ev: Event<u32>, out: &mut F)
//!         -> Result<(), Self::Error> {
//!         match ev {
//!             Event::JobArrived(id) => {
//!                 let ok = self.running < self.cap;
//!                 self.running += ok as u32;
//!                 out(&Admission(id, ok));
//!             }
//!             Event::JobFinished(_) => self.running -= 1,
//!             Event::SlotAdvanced => {}
//!             // The open-world events (`mlsched_kernel::world`): this toy has no servers.
//!             ev => return Err(OpenWorldError::Unsupported { event: ev.name() }),
//!         }
//!         Ok(())
//!     }
//! }
//!
//! // A control loop: time comes from the caller, decisions come back through the callback,
//! // the driver logs events and decisions.
//! let mut d = Driver::new(Admit { running: 0, cap: 1 });
//! let (mut sink, mut admitted) = (VecSink::new(), Vec::new());
//! for now in 0..3 {
//!     d.on_event(now, Event::JobArrived(now), &mut sink, &mut |a: &Admission| admitted.push((a.0, a.1))).unwrap();
//!     d.on_event(now, Event::SlotAdvanced, &mut sink, &mut |_: &Admission| {}).unwrap();
//! }
//! assert_eq!(admitted, vec![(0, true), (1, false), (2, false)]);
//! assert_eq!(sink.records.len(), 9); // 6 events + 3 decisions
//! assert_eq!(sink.hash().records(), 3); // log_hash covers the decisions only
//!
//! // The same run from its arrival list.
//! let mut d = Driver::new(Admit { running: 0, cap: 1 });
//! let mut again = VecSink::new();
//! d.run(&[(0, 0), (1, 1), (2, 2)], &mut again, &mut |_: &Admission| {}).unwrap();
//! assert_eq!(again.records, sink.records);
//! ```
//! The real schedulers ([`crate::oasis`], [`crate::online`], [`crate::preempt`], ...) follow
//! this shape; `kernel/examples/control_loop.rs` drives one over a whole scenario.
use crate::log::{LogError, LogSink};
use crate::resources::ResourceVec;
use crate::Slot;

/// What happened in the cluster, fed to a scheduler together with the current slot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Event<J> {
    /// A job arrived (its description, or its index in the scheduler's scenario).
    JobArrived(J),
    /// The clock moved to the slot passed with the event.
    SlotAdvanced,
    /// The job with this index finished (its resources may be released).
    JobFinished(u32),
    /// Open world (`crate::world`): the job with this index is cancelled at the event's slot;
    /// its allocations from that slot on are released and it earns nothing.
    JobCancelled(u32),
    /// Open world: the server with this index (`crate::world`, "Server indices") fails at the
    /// event's slot; nothing runs on it until `ServerUp`, and the jobs it held are interrupted.
    ServerDown(u32),
    /// Open world: the server with this index is back (with the capacity in force before it
    /// went down).
    ServerUp(u32),
    /// Open world: the server's capacity c_h^r is this vector (one entry per resource) from the
    /// event's slot on; jobs holding more than it are interrupted by the kind's rule.
    Capacity(u32, ResourceVec),
}

impl<J> Event<J> {
    /// The event's name as in the events file (`arrive`, `advance`, `finished`, `cancel`,
    /// `server_down`, `server_up`, `capacity`).
    pub const fn name(&self) -> &'static str {
        match self {
            Event::JobArrived(_) => "arrive",
            Event::SlotAdvanced => "advance",
            Event::JobFinished(_) => "finished",
            Event::JobCancelled(_) => "cancel",
            Event::ServerDown(_) => "server_down",
            Event::ServerUp(_) => "server_up",
            Event::Capacity(..) => "capacity",
        }
    }
}

/// A decision as a decision-log record: the driver calls [`Record::log`] once per decision
/// passed to a scheduler's `out` callback, so the log is exactly the decisions in order.
///
/// Every decision writes one record, except the few outputs that only explain another record
/// and were never logged (a baseline's per-server units, a placement category's report, shown
/// only when every category is asked for): they write none, so every `log_hash` stays what it was before the driver.
pub trait Record {
    /// Writes this decision's record (its tag and postcard body) to `sink`, or nothing for an
    /// explanation-only output.
    fn log<S: LogSink>(&self, sink: &mut S) -> Result<(), LogError>;
}

/// A scheduler value: fed events in time order (the order documented above), answering with
/// decisions.
pub trait Scheduler {
    /// What a [`Event::JobArrived`] carries.
    type Job;
    /// One decision (admission, placement, dispatch, ...) with its explanation: one log record.
    /// It may borrow the scheduler's scratch for the duration of the callback, so nothing
    /// allocates in the decision path.
    type Decision<'a>: Record;
    /// The typed error of this scheduler.
    type Error;
    /// Handles one event at slot `now`; every decision it causes is passed to `out` in order.
    /// Events must come in non-decreasing `now`.
    fn on_event<F: FnMut(&Self::Decision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        event: Event<Self::Job>,
        out: &mut F,
    ) -> Result<(), Self::Error>;

    /// The earliest slot after `after` (from slot 0 on when `None`, before any event) at which
    /// the scheduler needs a [`Event::SlotAdvanced`] although no job arrives; `None` = never.
    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        let _ = after;
        None
    }

    /// The run is over (no arrival and no wake-up left): the final decisions (e.g. a summary).
    fn finish<F: FnMut(&Self::Decision<'_>) + ?Sized>(
        &mut self,
        out: &mut F,
    ) -> Result<(), Self::Error> {
        let _ = out;
        Ok(())
    }
}

/// A borrowed scheduler is a scheduler (so a [`crate::driver::Driver`] can drive one it does
/// not own).
impl<S: Scheduler + ?Sized> Scheduler for &mut S {
    type Job = S::Job;
    type Decision<'a> = S::Decision<'a>;
    type Error = S::Error;
    fn on_event<F: FnMut(&Self::Decision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        event: Event<Self::Job>,
        out: &mut F,
    ) -> Result<(), Self::Error> {
        (**self).on_event(now, event, out)
    }
    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        (**self).next_wakeup(after)
    }
    fn finish<F: FnMut(&Self::Decision<'_>) + ?Sized>(
        &mut self,
        out: &mut F,
    ) -> Result<(), Self::Error> {
        (**self).finish(out)
    }
}
