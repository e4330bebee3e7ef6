//! The slot loop of a whole run: the scenario's arrivals, the scheduler's wake-ups and, for
//! `mlsched run --events`, the host's events, fed in the documented order
//! (`mlsched_kernel::api`; `docs/open-world.md`, "A run with events").
//!
//! At each slot t, in this order: the host events at t other than submissions (in their
//! order: finishes, cancels, server changes), the scenario's own arrivals at t in (arrival,
//! index) order, the submissions at t (in their order: each gets the next index, after every
//! listed job, so a job set submitted in (arrival, index) order is the closed-world run of those
//! jobs), then `SlotAdvanced`. The next slot is the earliest of the next arrival, the
//! scheduler's next wake-up and the next host event; an `advance` event only makes its slot one
//! the loop visits.
//!
//! **Host-driven runs.** When the events name listed jobs' arrivals (`arrive` events), the
//! host drives the run as it drives the service (`docs/serve.md`): the scenario's own arrivals
//! are not fed, every event is applied in the file's order exactly as the service applies it
//! ([`crate::event::Feeder::apply`]: the wake-ups before its slot, then the event), and the run
//! then goes through every wake-up left to its end. So a service cluster fed those events,
//! then `advance`d to the end, finishes with the same `log_hash`.
use super::{Engine, Out, RunProgress};
use crate::error::RunError;
use crate::event::HostEvent;
use crate::run::ResultDoc;
use mlsched_kernel::api::Event;
use mlsched_kernel::driver::{run_slots, Clock, Feed, Stage};
use mlsched_kernel::log::LogSink;
use mlsched_kernel::Slot;

impl<L: LogSink> Engine<L> {
    /// Runs to the end from the current state with the host `events` (their `at` never going
    /// back) interleaved as the module docs say; decisions to `out`. On a fresh engine with no
    /// events this is exactly `mlsched run`.
    pub fn run_events(
        &mut self,
        events: &[HostEvent],
        out: &mut dyn FnMut(super::Decision),
    ) -> Result<ResultDoc, RunError> {
        self.run_to(&mut Out(Some(out)), &mut |_| {}, events)
            .cloned()
    }

    /// [`Engine::run_events`] without decisions, telling `observe` how far the run has come.
    pub fn run_events_observed(
        &mut self,
        events: &[HostEvent],
        observe: &mut dyn FnMut(RunProgress),
    ) -> Result<ResultDoc, RunError> {
        self.run_to(&mut Out(None), observe, events).cloned()
    }

    pub(super) fn run_to(
        &mut self,
        out: &mut Out<'_>,
        observe: &mut dyn FnMut(RunProgress),
        events: &[HostEvent],
    ) -> Result<&ResultDoc, RunError> {
        if events.iter().any(|e| matches!(e, HostEvent::Arrive { .. })) {
            return self.run_host_driven(out, observe, events);
        }
        let from = Clock {
            now: self.now,
            advanced: self.advanced,
        };
        let mut slots = Slots {
            engine: &mut *self,
            out: &mut *out,
            observe,
            events,
            host: 0,
            next: 0,
            submits: Vec::new(),
        };
        run_slots(&mut slots, from)?;
        self.finish_to(out)
    }

    /// A host-driven run (module docs): every event as the service applies it, then to the end.
    fn run_host_driven(
        &mut self,
        out: &mut Out<'_>,
        observe: &mut dyn FnMut(RunProgress),
        events: &[HostEvent],
    ) -> Result<&ResultDoc, RunError> {
        let f = crate::event::Feeder::new(self);
        let jobs = self.order.len() as u32;
        let mut arrived = 0u32;
        for (k, e) in events.iter().enumerate() {
            let sink = out
                .0
                .as_mut()
                .map(|g| &mut **g as &mut dyn FnMut(super::Decision));
            f.apply(self, e, sink).map_err(|x| numbered(x, k))?;
            arrived += u32::from(matches!(e, HostEvent::Arrive { .. }));
            observe(RunProgress {
                slot: e.at(),
                arrived: arrived.min(jobs),
                jobs,
            });
        }
        let sink = out
            .0
            .as_mut()
            .map(|g| &mut **g as &mut dyn FnMut(super::Decision));
        f.advance_to_end(self, sink)?;
        self.finish_to(out)
    }

    /// The next scenario arrival not fed yet (a job cancelled before it arrived never does).
    fn pending(&self, next: &mut usize) -> Option<(Slot, u32)> {
        while self
            .order
            .get(*next)
            .is_some_and(|a| self.arrived[a.1 as usize] || self.cancelled[a.1 as usize])
        {
            *next += 1;
        }
        self.order.get(*next).copied()
    }
}

/// The engine as the kernel's slot loop feeds it ([`mlsched_kernel::driver::run_slots`]): the
/// scenario's arrivals not fed yet (a job cancelled before it arrived never is), the host's
/// events interleaved as the module docs say, every event through the façade's checks
/// ([`Engine::feed_to`]), progress told to `observe` after every arrival and every slot.
struct Slots<'a, 'o, L: LogSink> {
    engine: &'a mut Engine<L>,
    out: &'a mut Out<'o>,
    observe: &'a mut dyn FnMut(RunProgress),
    events: &'a [HostEvent],
    /// The first host event not fed yet.
    host: usize,
    /// The first entry of the arrival order not known to be fed ([`Engine::pending`]).
    next: usize,
    /// The submissions due at the current slot (host event numbers), fed after its arrivals.
    submits: Vec<usize>,
}

impl<L: LogSink> Feed for Slots<'_, '_, L> {
    type Error = RunError;

    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        self.engine.inner.next_wakeup(after)
    }

    fn next_arrival(&mut self) -> Option<(Slot, u32)> {
        self.engine.pending(&mut self.next)
    }

    fn feed(&mut self, now: Slot, ev: Event<u32>) -> Result<(), RunError> {
        self.engine.feed_to(now, ev, self.out)?;
        let arrived = match ev {
            Event::JobArrived(_) => self.next as u32 + 1,
            _ => self.next as u32,
        };
        (self.observe)(RunProgress {
            slot: now,
            arrived,
            jobs: self.engine.order.len() as u32,
        });
        Ok(())
    }

    fn next_host_event(&self) -> Option<Slot> {
        self.events.get(self.host).map(HostEvent::at)
    }

    fn host_events(&mut self, now: Slot, stage: Stage) -> Result<(), RunError> {
        match stage {
            Stage::BeforeArrivals => {
                self.submits.clear();
                while let Some(e) = self.events.get(self.host).filter(|e| e.at() <= now) {
                    match e {
                        HostEvent::Submit { .. } => self.submits.push(self.host),
                        HostEvent::Advance { .. } => {}
                        _ => {
                            let k = self.host;
                            let ev = crate::event::kernel_event(self.engine, e)
                                .map_err(|x| numbered(x, k))?;
                            self.engine
                                .feed_to(e.at(), ev, self.out)
                                .map_err(|x| numbered(x, k))?;
                        }
                    }
                    self.host += 1;
                }
            }
            Stage::BeforeAdvance => {
                for &k in &self.submits {
                    if let Some(HostEvent::Submit { job, .. }) = self.events.get(k) {
                        self.engine
                            .submit_to(now, job, self.out)
                            .map_err(|x| numbered(x, k))?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// An input error of the k-th host event (0-based) names it: `event #k+1`.
fn numbered(e: RunError, k: usize) -> RunError {
    match e {
        RunError::Input(mut i) if i.subject == "event" => {
            i.subject = format!("event #{}", k + 1);
            RunError::Input(i)
        }
        other => other,
    }
}
