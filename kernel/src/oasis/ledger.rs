//! [`Ledger`]: per job, the reservations its schedule holds (y_ih(t), z_ik(t) and the chunks
//! D_i(t) of each slot), so that an open-world event can release a job's cells from a slot on
//! and count the work it did before (`docs/open-world.md`, "Kind oasis").
//!
//! All entries live in one arena; a job's entries are one contiguous span, in the schedule's
//! slot order. A re-planned job gets a new span at the arena's end (its history, then the new
//! schedule); the old span is left as garbage, and so is the tail a cut leaves. Once most of
//! the arena is garbage an event rewrites it ([`Ledger::compact`]: an event's cost, never an
//! arrival's), so that a long run of events keeps the ledger within twice its live entries.
use super::fast::Schedule;
use alloc::vec::Vec;

/// The `server` of a slot's header entry (it carries the slot's chunks, no server).
const HEADER: u32 = u32::MAX;

/// The `count` of a header that begins a recovery's schedule (a restart, whatever the job
/// holds there: `super::execute`); other headers count 0.
const RESTART: u32 = 1;

/// One entry: a slot's header (`server == HEADER`, `chunks` = D_i(t), `count` = `RESTART` at
/// the first slot of a recovery's schedule) or `count` workers / parameter servers on a server
/// (kernel server index: workers `0..H`, then PS `H..H+K`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Hold {
    pub(super) slot: u32,
    pub(super) server: u32,
    pub(super) count: u32,
    pub(super) chunks: u64,
}

impl Hold {
    /// Is this a server's reservation (not a slot's header)?
    pub(super) fn is_cell(&self) -> bool {
        self.server != HEADER
    }

    /// Is this the header of the first slot of a recovery's schedule (a restart)?
    pub(super) fn restarts(&self) -> bool {
        !self.is_cell() && self.count == RESTART
    }
}

/// The reservations of every job (see the module docs).
#[derive(Clone, Debug, Default)]
pub(super) struct Ledger {
    arena: Vec<Hold>,
    /// Per job, `(from, len)` in the arena.
    span: Vec<(u32, u32)>,
    /// Entries in the spans (the sum of their lengths): the rest of the arena is garbage.
    live: usize,
}

impl Ledger {
    /// A ledger for `jobs` jobs, none holding anything.
    pub(super) fn new(jobs: usize) -> Self {
        Ledger {
            arena: Vec::new(),
            span: alloc::vec![(0, 0); jobs],
            live: 0,
        }
    }

    /// One more job (a submission), holding nothing.
    pub(super) fn push_job(&mut self) {
        self.span.push((0, 0));
    }

    /// Makes room for `entries` more entries, so that [`Self::admit`] of a schedule that
    /// small allocates nothing (amortised growth).
    pub(super) fn reserve(&mut self, entries: usize) {
        if self.arena.capacity() - self.arena.len() < entries {
            self.arena.reserve(entries);
        }
    }

    /// Job `job`'s entries.
    pub(super) fn holds(&self, job: u32) -> &[Hold] {
        match self.span.get(job as usize) {
            Some(&(f, l)) => self.arena.get(f as usize..(f + l) as usize).unwrap_or(&[]),
            None => &[],
        }
    }

    /// Job `job` now holds `history` (its entries before the event, kept) and schedule `s`,
    /// `h` the number of worker servers (PS server k is `h + k`); `recovered`: `s` is a
    /// recovery's, its first slot a restart.
    pub(super) fn admit(&mut self, job: u32, s: &Schedule<'_>, h: u32, recovered: bool) {
        let from = self.arena.len();
        if let Some(&(f, l)) = self.span.get(job as usize) {
            // the history (empty at an arrival) moves to the new span's start
            self.arena.extend_from_within(f as usize..(f + l) as usize);
        }
        let mut restart = recovered;
        for sp in s.iter() {
            self.arena.push(Hold {
                slot: sp.slot,
                server: HEADER,
                count: if core::mem::take(&mut restart) {
                    RESTART
                } else {
                    0
                },
                chunks: sp.chunks,
            });
            for (pairs, base) in [(sp.worker_pairs, 0), (sp.ps_pairs, h)] {
                for &[x, n] in pairs {
                    self.arena.push(Hold {
                        slot: sp.slot,
                        server: base.saturating_add(x),
                        count: n,
                        chunks: 0,
                    });
                }
            }
        }
        let len = (self.arena.len() - from) as u32;
        if let Some(sp) = self.span.get_mut(job as usize) {
            self.live = self.live + len as usize - sp.1 as usize;
            *sp = (from as u32, len);
        }
    }

    /// Rewrites the arena with the spans only (job order) when garbage is most of it: left by
    /// re-plans and cuts, so only events call this. O(arena); allocates the new arena.
    pub(super) fn compact(&mut self) {
        debug_assert_eq!(
            self.live,
            self.span.iter().map(|s| s.1 as usize).sum::<usize>(),
            "live counts the spans"
        );
        if self.arena.len() <= 2 * self.live + 4096 {
            return;
        }
        let mut arena = Vec::with_capacity(self.live);
        for sp in self.span.iter_mut() {
            let (f, l) = (sp.0 as usize, sp.1 as usize);
            let from = arena.len() as u32;
            arena.extend_from_slice(self.arena.get(f..f + l).unwrap_or(&[]));
            *sp = (from, l as u32);
        }
        self.arena = arena;
    }

    /// Drops job `job`'s entries at slots `>= t` (the caller released them from the market
    /// first); the ones before stay, in order.
    pub(super) fn truncate(&mut self, job: u32, t: u32) {
        let Some(&(f, l)) = self.span.get(job as usize) else {
            return;
        };
        let (f, l) = (f as usize, l as usize);
        let mut keep = 0;
        for i in 0..l {
            if let Some(&e) = self.arena.get(f + i) {
                if e.slot < t {
                    self.arena[f + keep] = e;
                    keep += 1;
                }
            }
        }
        if let Some(sp) = self.span.get_mut(job as usize) {
            self.live -= l - keep;
            sp.1 = keep as u32;
        }
    }

    /// Chunks job `job` trains in slots before `t` by its reservations.
    pub(super) fn done_before(&self, job: u32, t: u32) -> u64 {
        self.holds(job)
            .iter()
            .filter(|e| !e.is_cell() && e.slot < t)
            .map(|e| e.chunks)
            .sum()
    }

    /// Does job `job` hold anything at slots `>= t` (on `server`, or anywhere when `None`)?
    /// A job's entries are in slot order: the ones before `t` are skipped by a bisection.
    pub(super) fn holds_from(&self, job: u32, t: u32, server: Option<u32>) -> bool {
        let all = self.holds(job);
        debug_assert!(all.windows(2).all(|w| w[0].slot <= w[1].slot), "slot order");
        let from = all.partition_point(|e| e.slot < t);
        all.get(from..)
            .unwrap_or(&[])
            .iter()
            .any(|e| e.is_cell() && server.is_none_or(|s| s == e.server))
    }
}
