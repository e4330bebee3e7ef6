//! The cost of preemption (`docs/restart.md`): one rule, shared by every policy that can move or
//! stop a running job.
//!
//! A job *restarts* when it holds resources in a slot and its allocation there (which units on
//! which servers) differs from its allocation in the slot before, including a resume after
//! slots without any allocation. A restart makes no progress for the restart time (in slots,
//! [`RestartCost`]); a restart longer than a slot carries over into the following slots, and a
//! new restart replaces what is left of an earlier one (the checkpoint is reloaded once, on the
//! newest allocation). This is the peer simulator's rule (Pollux / AdaptDL charges every
//! reallocation a 30 s countdown); unlike the peer, the *first* start of a job is not charged
//! by default: the traced durations the importers map to work already contain each job's own
//! start-up. [`Restarts::charge_first`] charges it as the peer does (scenario option
//! `restart_first`, written by `import pollux --workload`).
//!
//! A cost of 0 changes nothing: [`lost`] then returns 0 and every caller keeps its exact
//! arithmetic (so every decision-log hash stays the same). A cost above 0 makes progress
//! fractional ([`Restarts::charges`]): each job carries the part of a chunk it processed
//! into its next slot, so a restart costs exactly its time (a 30 s restart in a 60 s slot
//! costs half the slot's chunks), not the whole chunk that rounding down would lose.
//!
//! Allocation-free and panic-free: [`Alloc`] is a fixed-size fingerprint, [`RestartState`] a
//! few words per job.
use core::fmt;

/// The restart time in slots: finite and `>= 0` (0 = no cost, today's model).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RestartCost(f64);

/// Why a restart time was refused.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RestartCostError(pub f64);

impl fmt::Display for RestartCostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "must be a finite number >= 0, got {}", self.0)
    }
}

impl RestartCost {
    /// No cost: today's model.
    pub const NONE: RestartCost = RestartCost(0.0);

    /// A restart time of `slots` slots; NaN, infinities and negative values are refused (never
    /// clamped).
    pub fn slots(slots: f64) -> Result<Self, RestartCostError> {
        if slots.is_finite() && slots >= 0.0 {
            // -0.0 is stored as 0.0 so "no cost" has one representation.
            Ok(RestartCost(slots + 0.0))
        } else {
            Err(RestartCostError(slots))
        }
    }

    /// The restart time in slots.
    pub fn get(self) -> f64 {
        self.0
    }

    /// The cost is 0: callers skip the model entirely.
    pub fn is_none(self) -> bool {
        self.0 == 0.0
    }
}

/// An order-independent fingerprint of one job's allocation in one slot: how many units it
/// holds and a wrapping sum of a 64-bit mix of each unit's (kind, server). Equal multisets of
/// units give equal fingerprints whatever order they were placed in; different ones collide
/// with probability about 2^-64.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Alloc {
    units: u32,
    sum: u64,
}

impl Alloc {
    /// Nothing allocated.
    pub const NONE: Alloc = Alloc { units: 0, sum: 0 };

    /// Adds one unit of `kind` (e.g. 0 = worker, 1 = parameter server) on `server`.
    pub fn add(&mut self, kind: u32, server: u32) {
        self.units = self.units.saturating_add(1);
        self.sum = self
            .sum
            .wrapping_add(mix(((kind as u64) << 32) | server as u64));
    }

    /// Adds `count` units of `kind` on `server`.
    pub fn add_n(&mut self, kind: u32, server: u32, count: u32) {
        for _ in 0..count {
            self.add(kind, server);
        }
    }

    /// The job holds nothing.
    pub fn is_none(&self) -> bool {
        self.units == 0
    }
}

/// SplitMix64's finaliser: spreads a unit key over 64 bits.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What one slot costs a job: the fraction of the slot lost to a restart, the restart time
/// still pending after the slot, and whether the slot began a restart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lost {
    /// Fraction of the slot without progress, in [0, 1].
    pub lost: f64,
    /// Restart time (slots) left for the following slots.
    pub pending: f64,
    /// The allocation changed: a restart began in this slot.
    pub restarted: bool,
}

/// THE rule. A job held `prev` in the previous slot and holds `now`; `pending` slots of an
/// earlier restart were still to be paid; `started` says whether the job ever held resources
/// before. Returns the fraction of this slot lost and what is left to pay.
///
/// - `now` empty: no progress is possible anyway; nothing is paid (the pending time is
///   dropped: the next allocation is a restart of its own).
/// - `now` differs from `prev` and the job ran before: a restart begins; it costs `cost` from
///   this slot on (replacing any pending time).
/// - otherwise the pending time keeps being paid.
pub fn lost(prev: Alloc, now: Alloc, pending: f64, started: bool, cost: RestartCost) -> Lost {
    if now.is_none() {
        return Lost {
            lost: 0.0,
            pending: 0.0,
            restarted: false,
        };
    }
    let restarted = started && now != prev;
    let owed = if restarted { cost.get() } else { pending };
    let lost = if owed >= 1.0 { 1.0 } else { owed };
    let pending = owed - lost;
    debug_assert!((0.0..=1.0).contains(&lost) && pending >= 0.0);
    Lost {
        lost,
        pending,
        restarted,
    }
}

/// Per-job bookkeeping of [`lost`] across slots: the previous allocation, the pending restart
/// time and the restarts counted.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RestartState {
    prev: Alloc,
    pending: f64,
    started: bool,
    /// Restarts so far (allocation changes after the first start, resumes included).
    pub restarts: u32,
    /// Slots of progress lost so far (sum of the lost fractions).
    pub lost_slots: f64,
}

impl RestartState {
    /// Advances one slot in which the job holds `now`; returns the fraction of the slot usable
    /// for progress (1 when nothing is lost).
    pub fn step(&mut self, now: Alloc, cost: RestartCost) -> f64 {
        self.step_charging(now, cost, false)
    }

    /// [`Self::step`], and with `first` the first start is charged too (the peer's rule: its
    /// countdown starts on every allocation, the first included); the first start is still not
    /// counted as a restart (the peer counts it as restart 0).
    pub fn step_charging(&mut self, now: Alloc, cost: RestartCost, first: bool) -> f64 {
        let l = lost(self.prev, now, self.pending, self.started || first, cost);
        self.prev = now;
        self.pending = l.pending;
        let counted = self.started;
        self.started |= !now.is_none();
        if l.restarted && counted {
            self.restarts = self.restarts.saturating_add(1);
        }
        self.lost_slots += l.lost;
        1.0 - l.lost
    }
}

/// The restart bookkeeping of a whole run: the cost (`None` = the scenario did not set one:
/// nothing is tracked, today's model), each job's [`RestartState`] and its allocation in the
/// slot being decided. Sized once when a runner is built; a slot allocates nothing.
#[cfg(feature = "alloc")]
#[derive(Clone, Debug, Default)]
pub struct Restarts {
    cost: Option<RestartCost>,
    /// The first start is charged too ([`Restarts::charge_first`]).
    first: bool,
    jobs: alloc::vec::Vec<RestartState>,
    now: alloc::vec::Vec<Alloc>,
}

#[cfg(feature = "alloc")]
impl Restarts {
    /// Bookkeeping for `jobs` jobs under `cost` (`None`: off).
    pub fn new(jobs: usize, cost: Option<RestartCost>) -> Self {
        let n = if cost.is_some() { jobs } else { 0 };
        Restarts {
            cost,
            first: false,
            jobs: alloc::vec![RestartState::default(); n],
            now: alloc::vec![Alloc::NONE; n],
        }
    }

    /// Charges every job's first start the restart time too (the peer simulator's rule; off by
    /// default: the importers' traced durations already contain each job's start-up).
    pub fn charge_first(mut self) -> Self {
        self.first = true;
        self
    }

    /// The scenario set a restart time (even 0): restarts are counted and reported.
    pub fn enabled(&self) -> bool {
        self.cost.is_some()
    }

    /// A restart costs time (the scenario set a restart time above 0): progress is then
    /// counted in fractions of a chunk carried from slot to slot, so a restart of a fraction
    /// of a slot loses that fraction of the slot's chunks, not a whole chunk. Off (and at a
    /// cost of 0) callers keep their exact whole-chunk arithmetic.
    pub fn charges(&self) -> bool {
        self.cost.is_some_and(|c| !c.is_none())
    }

    /// A new slot: every job's allocation starts empty.
    pub fn begin_slot(&mut self) {
        self.now.iter_mut().for_each(|a| *a = Alloc::NONE);
    }

    /// Job `j` got one unit of `kind` on `server` in the slot being decided.
    pub fn place(&mut self, j: usize, kind: u32, server: u32) {
        if let Some(a) = self.now.get_mut(j) {
            a.add(kind, server);
        }
    }

    /// Closes job `j`'s slot: the fraction of the slot it can use for progress (1 when the
    /// model is off or nothing is lost). Call once per job per slot, held or not.
    pub fn usable(&mut self, j: usize) -> f64 {
        match (self.cost, self.jobs.get_mut(j), self.now.get(j)) {
            (Some(c), Some(s), Some(&a)) => s.step_charging(a, c, self.first),
            _ => 1.0,
        }
    }

    /// One more job (an open-world submission, `crate::world`): nothing held yet.
    pub fn push_job(&mut self) {
        if self.cost.is_some() {
            self.jobs.push(RestartState::default());
            self.now.push(Alloc::NONE);
        }
    }

    /// Job `j` lost its allocation to an open-world event (a server down, a capacity cut):
    /// whatever it holds next is a restart, even the same units elsewhere (the pending time
    /// of an earlier restart is dropped, as for a pause).
    pub fn interrupt(&mut self, j: usize) {
        if let Some(s) = self.jobs.get_mut(j) {
            s.prev = Alloc::NONE;
            s.pending = 0.0;
        }
    }

    /// Job `j`'s state (`None` when off).
    pub fn job(&self, j: usize) -> Option<&RestartState> {
        self.jobs.get(j)
    }

    /// Restarts over all jobs (`None` when off).
    pub fn total(&self) -> Option<u64> {
        self.enabled()
            .then(|| self.jobs.iter().map(|s| s.restarts as u64).sum())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(server: u32, n: u32) -> Alloc {
        let mut a = Alloc::NONE;
        a.add_n(0, server, n);
        a
    }

    #[test]
    fn first_start_is_free_changes_cost_and_carry_over() {
        let c = RestartCost::slots(2.5).unwrap();
        let mut s = RestartState::default();
        assert_eq!(s.step(on(0, 2), c), 1.0);
        assert_eq!(s.step(on(0, 2), c), 1.0);
        assert_eq!(s.step(on(1, 2), c), 0.0);
        assert_eq!(s.step(on(1, 2), c), 0.0);
        assert_eq!(s.step(on(1, 2), c), 0.5);
        assert_eq!(s.step(on(1, 2), c), 1.0);
        assert_eq!(s.restarts, 1);
        assert_eq!(s.lost_slots, 2.5);
    }

    #[test]
    fn first_start_charged_on_request_but_not_counted() {
        let c = RestartCost::slots(0.5).unwrap();
        let mut s = RestartState::default();
        assert_eq!(s.step_charging(Alloc::NONE, c, true), 1.0);
        assert_eq!(s.step_charging(on(0, 2), c, true), 0.5);
        assert_eq!(s.step_charging(on(0, 2), c, true), 1.0);
        assert_eq!(s.restarts, 0);
        assert_eq!(s.step_charging(on(1, 2), c, true), 0.5);
        assert_eq!(s.restarts, 1);
        assert_eq!(s.lost_slots, 1.0);
    }

    #[test]
    fn pause_and_resume_is_a_restart() {
        let c = RestartCost::slots(0.25).unwrap();
        let mut s = RestartState::default();
        assert_eq!(s.step(Alloc::NONE, c), 1.0);
        assert_eq!(s.step(on(3, 1), c), 1.0);
        assert_eq!(s.step(Alloc::NONE, c), 1.0);
        assert_eq!(s.step(on(3, 1), c), 0.75);
        assert_eq!(s.restarts, 1);
    }

    #[test]
    fn order_independent_fingerprint() {
        let mut a = Alloc::NONE;
        a.add(0, 1);
        a.add(1, 0);
        a.add(0, 2);
        let mut b = Alloc::NONE;
        b.add(0, 2);
        b.add(0, 1);
        b.add(1, 0);
        assert_eq!(a, b);
        assert_ne!(on(0, 1), on(1, 1));
        assert_ne!(on(0, 1), on(0, 2));
    }

    #[test]
    fn zero_cost_loses_nothing_and_bad_values_are_refused() {
        let mut s = RestartState::default();
        for k in 0..10 {
            assert_eq!(s.step(on(k % 3, 1), RestartCost::NONE), 1.0);
        }
        assert_eq!(s.restarts, 9);
        for bad in [-1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(RestartCost::slots(bad).is_err());
        }
        assert!(RestartCost::slots(-0.0).unwrap().is_none());
    }
}
