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
use super::{earliest, Engine, Out, RunProgress};
use crate::error::RunError;
use crate::event::HostEvent;
use crate::run::ResultDoc;
use mlsched_kernel::api::Event;
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
        let mut next = 0usize;
        let mut host = 0usize;
        let mut t = match self.now {
            Some(now) if !self.advanced => Some(now),
            now => {
                let wake = self
                    .inner
                    .next_wakeup(now)
                    .map(|w| now.map_or(w, |n| w.max(n.saturating_add(1))));
                let arr = self
                    .pending(&mut next)
                    .map(|a| now.map_or(a.0, |n| a.0.max(n.saturating_add(1))));
                earliest(earliest(arr, wake), events.first().map(HostEvent::at))
            }
        };
        let mut submits: Vec<usize> = Vec::new();
        while let Some(now) = t {
            submits.clear();
            while let Some(e) = events.get(host).filter(|e| e.at() <= now) {
                match e {
                    HostEvent::Submit { .. } => submits.push(host),
                    HostEvent::Advance { .. } => {}
                    _ => {
                        let ev =
                            crate::event::kernel_event(self, e).map_err(|x| numbered(x, host))?;
                        self.feed_to(e.at(), ev, out)
                            .map_err(|x| numbered(x, host))?;
                    }
                }
                host += 1;
            }
            while let Some((_, j)) = self.pending(&mut next).filter(|a| a.0 <= now) {
                self.feed_to(now, Event::JobArrived(j), out)?;
                observe(RunProgress {
                    slot: now,
                    arrived: next as u32 + 1,
                    jobs: self.order.len() as u32,
                });
            }
            for &k in &submits {
                if let HostEvent::Submit { job, .. } = &events[k] {
                    self.submit_to(now, job, out).map_err(|x| numbered(x, k))?;
                }
            }
            self.feed_to(now, Event::SlotAdvanced, out)?;
            observe(RunProgress {
                slot: now,
                arrived: next as u32,
                jobs: self.order.len() as u32,
            });
            let wake = self
                .inner
                .next_wakeup(Some(now))
                .map(|w| w.max(now.saturating_add(1)));
            let arr = self.pending(&mut next).map(|a| a.0.max(now));
            let ev = events.get(host).map(|e| e.at().max(now.saturating_add(1)));
            t = earliest(earliest(arr, wake), ev);
            if t == Some(now) {
                break;
            }
        }
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
