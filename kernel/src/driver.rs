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
    /// `SlotAdvanced` was fed at `now`.
    advanced: bool,
}

impl<S: Scheduler<Job = u32>> Driver<S> {
    /// Wraps a freshly built (or restored) scheduler.
    pub fn new(sched: S) -> Self {
        Driver {
            sched,
            now: None,
            advanced: false,
        }
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
        self.advanced =
            matches!(event, Event::SlotAdvanced) || (self.advanced && self.now == Some(now));
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

    /// Runs a whole scenario on a fresh driver: `arrivals` are `(arrival slot, job index)`
    /// sorted by slot then index. At each slot the arrivals due, then `SlotAdvanced`; the next
    /// slot is min(next arrival, [`Scheduler::next_wakeup`]); then [`Driver::finish`]. This is
    /// [`Driver::run_from`] from the start.
    pub fn run<L: LogSink, F: FnMut(&S::Decision<'_>) + ?Sized>(
        &mut self,
        arrivals: &[(Slot, u32)],
        sink: &mut L,
        out: &mut F,
    ) -> Result<(), DriverError<S::Error>> {
        self.run_from(arrivals, sink, out)
    }

    /// Continues a run from where this driver stands ([`Driver::clock`]): `arrivals` are the
    /// arrivals not fed yet, sorted by slot then index. The slot loop is [`run_slots`] (the
    /// current slot first if its `SlotAdvanced` is missing), then [`Driver::finish`]. A host
    /// that fed the first events itself with [`Driver::on_event`] and hands the rest to this
    /// writes the log [`Driver::run`] writes.
    pub fn run_from<L: LogSink, F: FnMut(&S::Decision<'_>) + ?Sized>(
        &mut self,
        arrivals: &[(Slot, u32)],
        sink: &mut L,
        out: &mut F,
    ) -> Result<(), DriverError<S::Error>> {
        debug_assert!(
            arrivals.windows(2).all(|w| w[0] <= w[1]),
            "arrivals sorted by (slot, index)"
        );
        let from = self.clock();
        let mut feed = Driven {
            driver: &mut *self,
            arrivals,
            next: 0,
            sink: &mut *sink,
            out: &mut *out,
        };
        run_slots(&mut feed, from)?;
        self.finish(sink, out)
    }

    /// Where the run stands: the slot of the last event fed and whether its `SlotAdvanced` was.
    pub fn clock(&self) -> Clock {
        Clock {
            now: self.now,
            advanced: self.advanced,
        }
    }
}

/// A [`Driver`] and the arrivals it has left, as the slot loop feeds them ([`Driver::run_from`]).
struct Driven<'a, S, L, F: ?Sized> {
    driver: &'a mut Driver<S>,
    arrivals: &'a [(Slot, u32)],
    /// The first arrival not fed yet.
    next: usize,
    sink: &'a mut L,
    out: &'a mut F,
}

impl<S, L, F> Feed for Driven<'_, S, L, F>
where
    S: Scheduler<Job = u32>,
    L: LogSink,
    F: FnMut(&S::Decision<'_>) + ?Sized,
{
    type Error = DriverError<S::Error>;

    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
        self.driver.sched.next_wakeup(after)
    }

    fn next_arrival(&mut self) -> Option<(Slot, u32)> {
        self.arrivals.get(self.next).copied()
    }

    fn feed(&mut self, now: Slot, event: Event<u32>) -> Result<(), Self::Error> {
        self.driver.on_event(now, event, self.sink, self.out)?;
        if let Event::JobArrived(_) = event {
            self.next += 1;
        }
        Ok(())
    }
}

/// Where a run stands when the slot loop takes it over ([`run_slots`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// The slot of the last event fed (`None`: nothing fed yet, a fresh run).
    pub now: Option<Slot>,
    /// `SlotAdvanced` was fed at `now` (the slot is done: the loop goes on after it).
    pub advanced: bool,
}

impl Clock {
    /// The first slot the loop visits from here: the current slot if its `SlotAdvanced` is
    /// missing, else the earliest of the next arrival `arrival`, the scheduler's wake-up
    /// `wake` (its [`Scheduler::next_wakeup`]`(self.now)`), both strictly after the current
    /// slot, and the host's next event `host` (as given: a host event back in time is the
    /// host's to refuse). `None`: nothing is left to feed.
    pub fn first_slot(
        self,
        arrival: Option<Slot>,
        wake: Option<Slot>,
        host: Option<Slot>,
    ) -> Option<Slot> {
        match self.now {
            Some(now) if !self.advanced => Some(now),
            now => {
                let later = |t: Slot| now.map_or(t, |n| t.max(n.saturating_add(1)));
                earliest(earliest(arrival.map(later), wake.map(later)), host)
            }
        }
    }
}

/// When the host's own events are fed within a slot ([`Feed::host_events`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Before the slot's arrivals (finishes, cancels, server changes: step 1 of the order in
    /// [`crate::api`]).
    BeforeArrivals,
    /// After the arrivals, before `SlotAdvanced` (jobs the host submits at this slot: they get
    /// the next indices, after every listed job).
    BeforeAdvance,
}

/// What the slot loop ([`run_slots`]) feeds: a [`Driver`] with its arrival list
/// ([`Driver::run_from`]), or a host's engine around one (the scenario engine's façade, with
/// its checks, its result rows and the host's events of `mlsched run --events`).
pub trait Feed {
    /// Why feeding stopped.
    type Error;
    /// The scheduler's next wake-up after `after` ([`Scheduler::next_wakeup`]).
    fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot>;
    /// The next scenario arrival not fed yet, `(slot, job)`, in (slot, index) order; feeding
    /// its `JobArrived` consumes it (the next call returns the one after).
    fn next_arrival(&mut self) -> Option<(Slot, u32)>;
    /// Feeds `event` at slot `now`.
    fn feed(&mut self, now: Slot, event: Event<u32>) -> Result<(), Self::Error>;
    /// The slot of the host's next own event not fed yet (`None`, the default: none).
    fn next_host_event(&self) -> Option<Slot> {
        None
    }
    /// Feeds the host's own events due at `now` for `stage` (the default: none).
    fn host_events(&mut self, now: Slot, stage: Stage) -> Result<(), Self::Error> {
        let _ = (now, stage);
        Ok(())
    }
}

/// THE slot loop, from `from` to the end (no [`Driver::finish`]: the caller ends the run).
/// At each slot t, in the order of [`crate::api`]: the host's events before the arrivals, the
/// arrivals due at t, the host's events before the advance, then `SlotAdvanced`. The next slot
/// is the earliest of the next arrival, the scheduler's next wake-up and the host's next event,
/// each strictly after t; the first is [`Clock::first_slot`]. The loop ends when none is left.
///
/// Bounded: the slot strictly increases (at most 2^32 slots), and each slot feeds each arrival
/// once (a [`Feed`] that does not consume an arrival it was fed ends the slot's arrivals).
///
/// ```
/// use mlsched_kernel::api::Event;
/// use mlsched_kernel::driver::{run_slots, Clock, Feed};
/// use mlsched_kernel::Slot;
///
/// /// Jobs arrive at slots 0 and 2; the scheduler wants a wake-up at slot 5.
/// struct Host { arrivals: Vec<(Slot, u32)>, next: usize, fed: Vec<(Slot, Event<u32>)> }
/// impl Feed for Host {
///     type Error = ();
///     fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
///         (after < Some(5)).then_some(5)
///     }
///     fn next_arrival(&mut self) -> Option<(Slot, u32)> {
///         self.arrivals.get(self.next).copied()
///     }
///     fn feed(&mut self, now: Slot, ev: Event<u32>) -> Result<(), ()> {
///         self.next += matches!(ev, Event::JobArrived(_)) as usize;
///         self.fed.push((now, ev));
///         Ok(())
///     }
/// }
/// use Event::{JobArrived as Arrived, SlotAdvanced as Advanced};
/// let mut h = Host { arrivals: vec![(0, 0), (2, 1)], next: 0, fed: Vec::new() };
/// run_slots(&mut h, Clock::default()).unwrap();
/// let whole = [(0, Arrived(0)), (0, Advanced), (2, Arrived(1)), (2, Advanced), (5, Advanced)];
/// assert_eq!(h.fed, whole);
///
/// // A host that fed slot 0 and job 1's arrival itself hands the rest to the loop: it goes
/// // on from there (slot 2's `SlotAdvanced` first) and feeds the same events.
/// let mut h = Host { arrivals: vec![(0, 0), (2, 1)], next: 2, fed: whole[..3].to_vec() };
/// run_slots(&mut h, Clock { now: Some(2), advanced: false }).unwrap();
/// assert_eq!(h.fed, whole);
/// ```
pub fn run_slots<F: Feed + ?Sized>(feed: &mut F, from: Clock) -> Result<(), F::Error> {
    let arrival = feed.next_arrival().map(|a| a.0);
    let wake = feed.next_wakeup(from.now);
    let mut t = from.first_slot(arrival, wake, feed.next_host_event());
    while let Some(now) = t {
        feed.host_events(now, Stage::BeforeArrivals)?;
        let mut fed = None;
        while let Some(a) = feed.next_arrival().filter(|a| a.0 <= now) {
            if fed == Some(a) {
                break; // not consumed: never fed twice
            }
            feed.feed(now, Event::JobArrived(a.1))?;
            fed = Some(a);
        }
        feed.host_events(now, Stage::BeforeAdvance)?;
        feed.feed(now, Event::SlotAdvanced)?;
        // A wake-up or host event at or before `now` would repeat this slot: the next is
        // strictly later (an arrival still due at `now` cannot be left: see above).
        let after = now.saturating_add(1);
        let wake = feed.next_wakeup(Some(now)).map(|w| w.max(after));
        let arrival = feed.next_arrival().map(|a| a.0.max(now));
        let host = feed.next_host_event().map(|h| h.max(after));
        t = earliest(earliest(arrival, wake), host);
        if t == Some(now) {
            // Only an arrival at `now` not consumed can be here; unreachable for a sound Feed.
            break;
        }
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::log::{LogError, VecSink};
    use crate::world::OpenWorldError;

    /// Starts one waiting job per slot, waking up every slot while one waits.
    struct Toy {
        waiting: u32,
    }

    /// The slot a job started in, logged with tag 0x70.
    struct Started(Slot);

    impl Record for Started {
        fn log<S: LogSink>(&self, sink: &mut S) -> Result<(), LogError> {
            sink.record(0x70, &self.0)
        }
    }

    impl Scheduler for Toy {
        type Job = u32;
        type Decision<'a> = Started;
        type Error = OpenWorldError;

        fn on_event<F: FnMut(&Started) + ?Sized>(
            &mut self,
            now: Slot,
            ev: Event<u32>,
            out: &mut F,
        ) -> Result<(), OpenWorldError> {
            match ev {
                Event::JobArrived(_) => self.waiting += 1,
                Event::SlotAdvanced if self.waiting > 0 => {
                    self.waiting -= 1;
                    out(&Started(now));
                }
                Event::SlotAdvanced => {}
                ev => return Err(OpenWorldError::Unsupported { event: ev.name() }),
            }
            Ok(())
        }

        fn next_wakeup(&self, after: Option<Slot>) -> Option<Slot> {
            (self.waiting > 0).then(|| after.map_or(0, |t| t + 1))
        }
    }

    #[test]
    fn run_from_any_point_writes_the_log_of_run() {
        let arrivals = [(0, 0), (0, 1), (0, 2), (4, 3)];
        let mut whole = VecSink::new();
        let mut d = Driver::new(Toy { waiting: 0 });
        d.run(&arrivals, &mut whole, &mut |_: &Started| {}).unwrap();
        // The events `run` feeds: three arrivals and their wake-ups, then the fourth job.
        use Event::{JobArrived as A, SlotAdvanced as Adv};
        let fed = [
            (0, A(0)),
            (0, A(1)),
            (0, A(2)),
            (0, Adv),
            (1, Adv),
            (2, Adv),
            (4, A(3)),
            (4, Adv),
        ];
        for cut in 0..=fed.len() {
            let mut d = Driver::new(Toy { waiting: 0 });
            let mut sink = VecSink::new();
            for &(t, ev) in &fed[..cut] {
                d.on_event(t, ev, &mut sink, &mut |_: &Started| {}).unwrap();
            }
            let arrived = fed[..cut].iter().filter(|e| matches!(e.1, A(_))).count();
            d.run_from(&arrivals[arrived..], &mut sink, &mut |_: &Started| {})
                .unwrap();
            assert_eq!(sink.records, whole.records, "cut after {cut} events");
        }
        let starts = whole.records.iter().filter(|r| r.0 == 0x70).count();
        assert_eq!(starts, 4);
    }
}
