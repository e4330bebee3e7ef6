//! The embedding API: the shape a control plane calls.
//!
//! Each algorithm is a value implementing [`Scheduler`], built once from a validated scenario
//! or configuration. The control plane feeds it [`Event`]s with the current slot as an argument
//! (the kernel never reads a clock) and receives every decision the event causes through a
//! callback — no allocation, no hidden threads, no I/O.
//!
//! ```
//! use mlsched_kernel::api::{Event, Scheduler};
//! use mlsched_kernel::Slot;
//!
//! /// A toy scheduler: admits a job when it arrives if fewer than `cap` are running.
//! struct Admit { running: u32, cap: u32 }
//! impl Scheduler for Admit {
//!     type Job = u32; // the job's id
//!     type Decision = (u32, bool);
//!     type Error = core::convert::Infallible;
//!     fn on_event(&mut self, _now: Slot, ev: Event<u32>, out: &mut dyn FnMut(&(u32, bool)))
//!         -> Result<(), Self::Error> {
//!         match ev {
//!             Event::JobArrived(id) => {
//!                 let ok = self.running < self.cap;
//!                 self.running += ok as u32;
//!                 out(&(id, ok));
//!             }
//!             Event::JobFinished(_) => self.running -= 1,
//!             Event::SlotAdvanced => {}
//!         }
//!         Ok(())
//!     }
//! }
//!
//! // The control loop: time comes from the caller, decisions come back through the callback.
//! let mut s = Admit { running: 0, cap: 1 };
//! let mut admitted = Vec::new();
//! for now in 0..3 {
//!     s.on_event(now, Event::JobArrived(now), &mut |d| admitted.push(*d)).unwrap();
//!     s.on_event(now, Event::SlotAdvanced, &mut |_| {}).unwrap();
//! }
//! assert_eq!(admitted, vec![(0, true), (1, false), (2, false)]);
//! ```
//! The real schedulers ([`crate::oasis`], [`crate::online`], [`crate::preempt`], ...) follow
//! this shape; `kernel/examples/control_loop.rs` drives one over a whole scenario.
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
}

/// A scheduler value: fed events in time order, answering with decisions.
pub trait Scheduler {
    /// What a [`Event::JobArrived`] carries.
    type Job;
    /// One decision (admission, placement, dispatch, ...), with its explanation.
    type Decision;
    /// The typed error of this scheduler.
    type Error;
    /// Handles one event at slot `now`; every decision it causes is passed to `out` in order.
    /// Events must come in non-decreasing `now`.
    fn on_event(
        &mut self,
        now: Slot,
        event: Event<Self::Job>,
        out: &mut dyn FnMut(&Self::Decision),
    ) -> Result<(), Self::Error>;
}
