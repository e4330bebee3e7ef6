//! [`PlacementScheduler`]: a [`Placer`] running one method as an [`crate::api::Scheduler`].
//!
//! Placement is one decision over the whole instance: every job arrives at slot 0
//! (`JobArrived(j)` in input order), then `SlotAdvanced` at slot 0 runs the method. Its records
//! (per-category and final, exactly those [`Placer::run`] writes) reach the driver as
//! [`PlacementDecision::Record`] decisions, encoded into a buffer sized at build; each evaluated
//! category is also shown as [`PlacementDecision::Category`] (its explanation, no record).
//!
//! The open-world events (`JobCancelled`, `ServerDown`, `ServerUp`, `Capacity`), [`submit`]
//! and [`status`] follow the rules of [`super::world`] (`docs/open-world.md`, "Kind
//! placement"); a closed-world run takes exactly the path it always took.
//!
//! [`submit`]: PlacementScheduler::submit
//! [`status`]: PlacementScheduler::status
use super::world::World;
use super::{CategoryReport, PlacementError, Placer, RunSummary};
use crate::api::{Event, Record, Scheduler};
use crate::log::{Encoded, ForwardSink, LogError, LogSink};
use crate::model::placement::Method;
use crate::Slot;
use alloc::vec::Vec;
use core::cell::RefCell;

/// One placement decision: an evaluated category (explanation only) or a decision record.
#[derive(Clone, Copy, Debug)]
pub enum PlacementDecision<'a> {
    /// A category the method evaluated (writes no record; the method's own records do).
    Category(CategoryReport<'a>),
    /// A decision record of the method (tag range 0x30), already encoded.
    Record(Encoded<'a>),
}

impl Record for PlacementDecision<'_> {
    fn log<S: LogSink>(&self, sink: &mut S) -> Result<(), LogError> {
        match self {
            PlacementDecision::Category(_) => Ok(()),
            PlacementDecision::Record(e) => e.log(sink),
        }
    }
}

/// A [`Placer`] with the method it runs (the scenario's or a comparison method).
#[derive(Clone, Debug)]
pub struct PlacementScheduler {
    pub(super) placer: Placer,
    pub(super) method: Method,
    pub(super) buf: Vec<u8>,
    pub(super) summary: Option<RunSummary>,
    /// The open-world state: per job its run, per worker its holder, down flag and capacity.
    pub(super) world: World,
}

impl PlacementScheduler {
    /// Wraps `placer` to run `method`; the record buffer is allocated here.
    pub fn new(placer: Placer, method: Method) -> Self {
        PlacementScheduler {
            method,
            buf: alloc::vec![0; crate::limits::RECORD_BYTES_MAX],
            summary: None,
            world: World::new(placer.instance()),
            placer,
        }
    }

    /// The placer (instance, [`Placer::best`], JPS order).
    pub fn placer(&self) -> &Placer {
        &self.placer
    }

    /// The method's summary once it has run.
    pub fn summary(&self) -> Option<&RunSummary> {
        self.summary.as_ref()
    }
}

impl Scheduler for PlacementScheduler {
    /// The job's index (all arrive at slot 0).
    type Job = u32;
    type Decision<'a> = PlacementDecision<'a>;
    type Error = PlacementError;

    /// `SlotAdvanced` (the first one) runs the method; the host's finishes change nothing (the
    /// model computes each JCT). Arrivals and the open-world events follow [`super::world`].
    fn on_event<F: FnMut(&PlacementDecision<'_>) + ?Sized>(
        &mut self,
        now: Slot,
        event: Event<u32>,
        out: &mut F,
    ) -> Result<(), PlacementError> {
        match event {
            Event::SlotAdvanced => self.on_slot(now, out),
            Event::JobFinished(_) => Ok(()),
            Event::JobArrived(j) => self.on_arrival(now, j, out),
            Event::JobCancelled(j) => self.on_cancel(now, j, out),
            Event::ServerDown(h) => self.on_server_down(now, h, out),
            Event::ServerUp(h) => self.on_server_up(now, h, out),
            Event::Capacity(h, c) => self.on_capacity(now, h, &c, out),
        }
    }

    /// Slot 0 (the batch; the next slot if events came first); after it, while a job waits
    /// for a worker, the next time a running job ends (its workers free up: the paper's
    /// completion *reset event*). O(S).
    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        if !self.world.decided {
            return Some(after.map_or(0, |a| a.saturating_add(1)));
        }
        self.world.next_completion(after)
    }

    /// The run is over: a job still running finishes at its JCT (nothing else will happen).
    fn finish<F: FnMut(&PlacementDecision<'_>) + ?Sized>(
        &mut self,
        _out: &mut F,
    ) -> Result<(), PlacementError> {
        self.world.ended = true;
        Ok(())
    }
}

impl PlacementScheduler {
    /// The closed-world batch: the method over the whole instance, exactly as it always ran.
    pub(super) fn run_closed<F: FnMut(&PlacementDecision<'_>) + ?Sized>(
        &mut self,
        out: &mut F,
    ) -> Result<(), PlacementError> {
        let mut buf = core::mem::take(&mut self.buf);
        let out = RefCell::new(out);
        let result = {
            let mut fwd = ForwardSink::new(&mut buf, |e: Encoded<'_>| {
                (out.borrow_mut())(&PlacementDecision::Record(e))
            });
            self.placer
                .run(self.method, &mut fwd, |c: &CategoryReport<'_>| {
                    (out.borrow_mut())(&PlacementDecision::Category(*c))
                })
        };
        self.buf = buf;
        self.summary = Some(result?);
        Ok(())
    }
}
