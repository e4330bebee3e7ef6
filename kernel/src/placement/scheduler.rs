//! [`PlacementScheduler`]: a [`Placer`] running one method as an [`crate::api::Scheduler`].
//!
//! Placement is one decision over the whole instance: every job arrives at slot 0
//! (`JobArrived(j)` in input order), then `SlotAdvanced` at slot 0 runs the method. Its records
//! (per-category and final, exactly those [`Placer::run`] writes) reach the driver as
//! [`PlacementDecision::Record`] decisions, encoded into a buffer sized at build; each evaluated
//! category is also shown as [`PlacementDecision::Category`] (its explanation, no record).
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
    placer: Placer,
    method: Method,
    buf: Vec<u8>,
    summary: Option<RunSummary>,
}

impl PlacementScheduler {
    /// Wraps `placer` to run `method`; the record buffer is allocated here.
    pub fn new(placer: Placer, method: Method) -> Self {
        PlacementScheduler {
            placer,
            method,
            buf: alloc::vec![0; crate::limits::RECORD_BYTES_MAX],
            summary: None,
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

    /// `SlotAdvanced` (the first one) runs the method; arrivals and finishes change nothing.
    fn on_event<F: FnMut(&PlacementDecision<'_>) + ?Sized>(
        &mut self,
        _now: Slot,
        event: Event<u32>,
        out: &mut F,
    ) -> Result<(), PlacementError> {
        crate::world::closed_world_only(&event)?;
        if !matches!(event, Event::SlotAdvanced) || self.summary.is_some() {
            return Ok(());
        }
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

    /// Slot 0 once (the run), never again.
    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        after.is_none().then_some(0)
    }
}
