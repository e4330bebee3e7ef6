//! One action enum that drives the kernel core in the fuzzer (`fuzz/fuzz_targets/kernel_events.rs`),
//! the property tests (`tests/tests/snapshot_props.rs`) and the kept crash inputs
//! (`tests/fuzz-regressions/kernel_events/`): ledger reservations and releases, PRNG draws,
//! log records, and snapshot/restore of the whole state.
//!
//! Actions decode from raw bytes ([`decode_all`]), so a fuzzer's input, a proptest byte vector
//! and a regression file are the same thing. Every action's outcome is a decision record sent
//! to the simulator's [`HashSink`]: two runs agree on every decision iff their hashes agree.
use mlsched_kernel::ledger::Ledger;
use mlsched_kernel::log::{HashSink, LogSink};
use mlsched_kernel::resources::ResourceVec;
use mlsched_kernel::rng::SplitMix64;
use mlsched_kernel::snapshot::{self, KIND_CORE};
use serde::{Deserialize, Serialize};

/// Slots of the simulated ledger.
pub const SIM_SLOTS: u32 = 8;
/// Servers of the simulated ledger.
pub const SIM_SERVERS: u32 = 3;
/// Resources of the simulated ledger.
pub const SIM_RESOURCES: usize = 2;
/// Actions decoded from one input at most (bounds a run).
pub const SIM_ACTIONS_MAX: usize = 4096;

/// One step of the core simulation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Action {
    /// `Ledger::reserve(from, from + len, server, amount, count)`.
    Reserve {
        /// first slot (may be out of range)
        from: u8,
        /// slots
        len: u8,
        /// server (may be out of range)
        server: u8,
        /// amount per resource, in quarters (255 = NaN, 254 = infinity)
        amount: [u8; SIM_RESOURCES],
        /// multiplier
        count: u8,
    },
    /// Release the `pick`-th reservation still held (must succeed), or, with `pick` beyond the
    /// list, an arbitrary release over every slot that may be refused (and, when it succeeds,
    /// is reserved back at once, which must restore the usage exactly).
    Release {
        /// which held reservation
        pick: u8,
        /// server of an arbitrary release
        server: u8,
        /// amount of an arbitrary release, as in `Reserve`
        amount: [u8; SIM_RESOURCES],
    },
    /// `SplitMix64::below(n)`.
    Draw {
        /// bound
        n: u16,
    },
    /// `SplitMix64::next_f64()`.
    DrawF64,
    /// Snapshot the whole state, restore it, and continue with the restored copy.
    SnapshotRestore,
}

fn take<const N: usize>(b: &mut &[u8]) -> Option<[u8; N]> {
    let (head, rest) = b.split_first_chunk::<N>()?;
    *b = rest;
    Some(*head)
}

impl Action {
    /// Decodes one action from the front of `b` (None when the bytes run out).
    pub fn decode(b: &mut &[u8]) -> Option<Action> {
        let [op] = take::<1>(b)?;
        Some(match op % 5 {
            0 => {
                let [from, len, server, a0, a1, count] = take::<6>(b)?;
                Action::Reserve {
                    from,
                    len: len % 10,
                    server,
                    amount: [a0, a1],
                    count: count % 5,
                }
            }
            1 => {
                let [pick, server, a0, a1] = take::<4>(b)?;
                Action::Release {
                    pick,
                    server,
                    amount: [a0, a1],
                }
            }
            2 => {
                let n = take::<2>(b)?;
                Action::Draw {
                    n: u16::from_le_bytes(n),
                }
            }
            3 => Action::DrawF64,
            _ => Action::SnapshotRestore,
        })
    }
}

/// Decodes every action of `b` (at most [`SIM_ACTIONS_MAX`]).
pub fn decode_all(mut b: &[u8]) -> Vec<Action> {
    let mut out = Vec::new();
    while out.len() < SIM_ACTIONS_MAX {
        match Action::decode(&mut b) {
            Some(a) => out.push(a),
            None => break,
        }
    }
    out
}

fn amount(a: [u8; SIM_RESOURCES]) -> ResourceVec {
    let mut v = [0.0; SIM_RESOURCES];
    for (x, &q) in v.iter_mut().zip(a.iter()) {
        *x = match q {
            255 => f64::NAN,
            254 => f64::INFINITY,
            q => q as f64 / 4.0,
        };
    }
    // SIM_RESOURCES <= RESOURCES_MAX, so this cannot fail.
    ResourceVec::from_slice(&v).unwrap_or_else(|_| unreachable!())
}

/// A held reservation `(from, to, server, amount, count)`.
type Held = (u32, u32, u32, [u8; SIM_RESOURCES], u32);

/// The state of the core simulation (what a snapshot holds).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CoreState {
    /// The usage ledger g_h^r(t).
    pub ledger: Ledger<Vec<f64>>,
    /// The PRNG.
    pub rng: SplitMix64,
    /// Reservations not yet released, oldest first.
    pub held: Vec<Held>,
}

/// Decoded straight by `snapshot::restore`: the ledger and PRNG re-check their invariants in
/// `Deserialize`; `held` is only handed back to that checked ledger, whose release refuses a
/// bad entry with a typed error (which this harness then asserts on).
impl snapshot::RawRestore for CoreState {}

impl CoreState {
    /// A ledger with capacities derived from `seed`, and the PRNG seeded with it.
    pub fn new(seed: u64) -> Self {
        let mut r = SplitMix64::new(seed);
        let caps: Vec<ResourceVec> = (0..SIM_SERVERS)
            .map(|_| {
                let c = [r.below(40) as f64 / 2.0, r.below(40) as f64 / 2.0];
                ResourceVec::from_slice(&c).unwrap_or_else(|_| unreachable!())
            })
            .collect();
        let ledger = Ledger::with_capacities(SIM_SLOTS as usize, &caps)
            .unwrap_or_else(|e| panic!("sim ledger: {e}"));
        CoreState {
            ledger,
            rng: r,
            held: Vec::new(),
        }
    }

    fn check_invariants(&self) {
        let l = &self.ledger;
        for t in 0..l.slots() {
            for h in 0..l.servers() {
                for r in 0..l.resources() {
                    let g = l.usage(t, h, r).unwrap_or(f64::NAN);
                    let c = l.capacity(h, r).unwrap_or(f64::NAN);
                    assert!(
                        g >= 0.0 && g <= c + 1e-9 * c.max(1.0),
                        "usage {g} > cap {c}"
                    );
                }
            }
        }
    }

    /// Applies one action, sending its outcome to `sink` and checking the ledger invariants
    /// (usage within capacity, refusals change nothing, held reservations release).
    pub fn apply<S: LogSink>(&mut self, a: Action, sink: &mut S) {
        let before: Vec<f64> = self.ledger.usage_cells().to_vec();
        let rec = |sink: &mut S, tag: u8, v: &(u64, u64)| {
            sink.record(tag, v)
                .unwrap_or_else(|e| panic!("record: {e}"));
        };
        match a {
            Action::Reserve {
                from,
                len,
                server,
                amount: q,
                count,
            } => {
                let (from, server) = (from as u32 % (SIM_SLOTS + 2), server as u32 % 4);
                let to = from + len as u32;
                let res = self
                    .ledger
                    .reserve(from, to, server, &amount(q), count as u32);
                if res.is_ok() {
                    self.held.push((from, to, server, q, count as u32));
                } else {
                    assert_eq!(before, self.ledger.usage_cells(), "refusal changed usage");
                }
                rec(sink, 0x01, &(res.is_ok() as u64, self.held.len() as u64));
            }
            Action::Release {
                pick,
                server,
                amount: q,
            } => {
                let ok = if (pick as usize) < self.held.len() {
                    let (f, t, s, q, c) = self.held.remove(pick as usize);
                    let r = self.ledger.release(f, t, s, &amount(q), c);
                    assert!(r.is_ok(), "held reservation did not release: {r:?}");
                    true
                } else {
                    let (s, a) = (server as u32 % 4, amount(q));
                    let r = self.ledger.release(0, SIM_SLOTS, s, &a, 1);
                    if r.is_ok() {
                        // It may have taken usage a held reservation owns: give it back, which
                        // must fit and restore the cells exactly (quarters are exact in f64).
                        let back = self.ledger.reserve(0, SIM_SLOTS, s, &a, 1);
                        assert!(back.is_ok(), "re-reserving a release failed: {back:?}");
                    }
                    assert_eq!(
                        before,
                        self.ledger.usage_cells(),
                        "release + reserve changed usage"
                    );
                    r.is_ok()
                };
                rec(sink, 0x02, &(ok as u64, self.held.len() as u64));
            }
            Action::Draw { n } => {
                let x = self.rng.below(n as u64);
                assert!(n == 0 || x < n as u64);
                rec(sink, 0x03, &(n as u64, x));
            }
            Action::DrawF64 => {
                let x = self.rng.next_f64();
                assert!((0.0..1.0).contains(&x));
                rec(sink, 0x04, &(x.to_bits(), 0));
            }
            Action::SnapshotRestore => {
                let bytes = snapshot::save(KIND_CORE, self).unwrap_or_else(|e| panic!("{e}"));
                let back: CoreState =
                    snapshot::restore(KIND_CORE, &bytes).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(back.ledger.usage_cells(), self.ledger.usage_cells());
                assert_eq!(back.rng, self.rng);
                assert_eq!(back.held, self.held);
                *self = back;
                rec(sink, 0x05, &(bytes.len() as u64, 0));
            }
        }
        self.check_invariants();
    }
}

/// Runs `actions` from [`CoreState::new`]`(seed)`; with `cut = Some(k)` the state is saved to
/// a snapshot after `k` actions and the rest runs on the restored value. Returns the decision
/// records' checksum, which must not depend on `cut`.
pub fn run(seed: u64, actions: &[Action], cut: Option<usize>) -> u64 {
    let mut s = CoreState::new(seed);
    let mut sink = HashSink::new();
    for (i, &a) in actions.iter().enumerate() {
        if cut == Some(i) {
            let bytes = snapshot::save(KIND_CORE, &s).unwrap_or_else(|e| panic!("{e}"));
            s = snapshot::restore(KIND_CORE, &bytes).unwrap_or_else(|e| panic!("{e}"));
        }
        s.apply(a, &mut sink);
    }
    sink.hash().value()
}
