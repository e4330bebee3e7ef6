//! Per-worker plans y_jdsw(t) kept as sorted slot segments, the fast Q of eq. (5), and the
//! preemptive insertion of UPDATEVARIABLES (Algorithm 4, reconciled in `docs/preempt.md`).
//!
//! A worker's plan is a singly linked list of segments `[start, end)` (slots), sorted by start and
//! never overlapping, one chunk each. All segments live in one pool allocated when the scheduler
//! is built (at most two new segments per dispatched chunk), so inserting allocates nothing.
use crate::error::{CapacityError, Limit};
use crate::snapshot::{ensure, invalid_at, SnapshotError};
use crate::Slot;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

use crate::index::NONE;

/// One run of consecutive slots in which a worker trains one chunk (y_jdsw(t) = 1 on it).
/// The chunk's gamma and weight are copied in so Q reads one contiguous record per segment.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Segment {
    /// gamma_jd of the chunk.
    pub gamma: f64,
    /// 1 / D_j of the chunk in fixed point ([`weight`]).
    pub weight: u64,
    /// Global chunk index (job offset + d).
    pub chunk: u32,
    /// First slot.
    pub start: Slot,
    /// Last slot + 1.
    pub end: Slot,
    next: u32,
    /// The chunk's last segment (counted once in A2).
    pub last: bool,
}

/// What a plan needs to know about a chunk placed on an edge worker.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanChunk {
    /// gamma_jd on its worker (the highest-gamma-first key).
    pub gamma: f64,
    /// 1 / D_j (its weight in eq. (5)'s fourth term and in beta_sw).
    pub inv_d: f64,
    /// End (last slot + 1) of its last segment; 0 while not placed.
    pub end: Slot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct WorkerList {
    /// First segment ever planned.
    head: u32,
    /// First segment with `end > now` (earlier ones are history).
    live: u32,
    /// The segment before `live` (NONE when `live` is the head).
    live_prev: u32,
}

/// Q (eq. 5) of one candidate worker with the quantities behind it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct QValue {
    /// Q_jdsw.
    pub q: f64,
    /// t* = max(end of the last A1 chunk, t0): the first slot the chunk would run in.
    pub t_star: Slot,
    /// sum over A1 of p-hat (remaining slots at t0).
    pub a1_slots: u64,
    /// sum over A2 of 1 / D_j' (fixed point, [`WEIGHT_ONE`] = 1).
    pub a2_weight: u64,
}

/// 1.0 in the fixed point of A2 weights: sums of 1/D_j' are kept as integers so they do not
/// depend on the order they are added in (the fast paths and the reference add them in
/// different orders and must agree bit for bit).
pub const WEIGHT_ONE: f64 = (1u64 << 40) as f64;

/// 1/D_j as a fixed-point weight: round(2^40 / D_j) (relative error below 2^-28 for D <= 4096).
pub fn weight(inv_d: f64) -> u64 {
    libm::round(inv_d * WEIGHT_ONE) as u64
}

/// Eq. (5) from its parts: Delta/D + (sum_A1 p-hat)/D + p/D + p sum_A2 1/D'. One fixed
/// evaluation order, shared by the fast path and the reference so both give the same bits.
pub fn eq5(delta: Slot, d: f64, a1_slots: u64, p: f64, a2_weight: u64) -> f64 {
    delta as f64 / d + a1_slots as f64 / d + p / d + p * (a2_weight as f64 / WEIGHT_ONE)
}

/// Errors of the plan store.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanError {
    /// The segment pool (two per chunk) is exhausted: a chunk was dispatched twice.
    PoolFull,
    /// A worker or chunk index given is outside the plan's shape.
    OutOfRange,
    /// A segment would end beyond [`crate::limits::PREEMPT_PLAN_SLOTS_MAX`].
    TooLong(CapacityError),
}

/// Every edge worker's plan.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plans {
    segs: Vec<Segment>,
    /// Second pool of the same capacity for [`Plans::compact`] (not part of a snapshot).
    #[serde(skip)]
    spare: Vec<Segment>,
    /// Pool capacity: two segments per chunk (`u32` in a snapshot).
    #[serde(with = "crate::snapshot::usize_as_u32")]
    cap: usize,
    /// Segments created since the last compaction.
    #[serde(with = "crate::snapshot::usize_as_u32")]
    fresh: usize,
    workers: Vec<WorkerList>,
    /// Per global chunk: its gamma, weight and current end.
    pub chunks: Vec<PlanChunk>,
    /// Largest segment end so far.
    pub max_end: Slot,
    /// The slot of the last [`Plans::advance`].
    now: Slot,
    /// Per-worker summaries of the pending chunks (see [`Plans::rebuild_summaries`]).
    summary: Vec<Summary>,
    /// Per worker: offset and length in `summary`, and now + 1 of the slot it is valid for
    /// (0 = stale: the worker's plan changed since).
    summary_at: Vec<(u32, u32, Slot)>,
}

/// One pending chunk of a worker's summary, sorted by gamma (highest first); after the build
/// `rem`, `end` and `weight` hold the prefix sum, prefix max and suffix sum.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Summary {
    gamma: f64,
    chunk: u32,
    rem: u64,
    end: Slot,
    weight: u64,
}

impl Plans {
    /// Plans for `workers` edge workers and `chunks` chunks in all (pool: 2 segments per chunk).
    pub fn new(workers: usize, chunks: usize) -> Self {
        Plans {
            segs: Vec::with_capacity(2 * chunks),
            spare: Vec::with_capacity(2 * chunks),
            cap: 2 * chunks,
            fresh: 0,
            workers: alloc::vec![
                WorkerList {
                    head: NONE,
                    live: NONE,
                    live_prev: NONE
                };
                workers
            ],
            chunks: alloc::vec![PlanChunk::default(); chunks],
            max_end: 0,
            now: 0,
            summary: Vec::with_capacity(2 * chunks),
            summary_at: alloc::vec![(0, 0, 0); workers],
        }
    }

    fn seg(&self, i: u32) -> Option<&Segment> {
        self.segs.get(i as usize)
    }

    /// Forgets (for Q purposes) every segment that ended by `now` on every worker.
    pub fn advance(&mut self, now: Slot) {
        self.now = self.now.max(now);
        for wl in self.workers.iter_mut() {
            while let Some(s) = self.segs.get(wl.live as usize) {
                if s.end > now {
                    break;
                }
                wl.live_prev = wl.live;
                wl.live = s.next;
            }
        }
    }

    /// Number of edge workers.
    pub fn workers_len(&self) -> usize {
        self.workers.len()
    }

    /// The chunk worker `w` trains in slot `t` (call [`Plans::advance`] to `t` first).
    pub fn running(&self, w: usize, t: Slot) -> Option<u32> {
        let wl = self.workers.get(w)?;
        let s = self.seg(wl.live)?;
        (s.start <= t && t < s.end).then_some(s.chunk)
    }

    /// End of the last segment planned on `w` (0 for an empty plan): where FIFO appends.
    pub fn tail_end(&self, w: usize) -> Slot {
        let Some(wl) = self.workers.get(w) else {
            return 0;
        };
        let mut i = wl.live;
        let mut end = 0;
        while let Some(s) = self.seg(i) {
            end = s.end;
            i = s.next;
        }
        end
    }

    /// Fast Q (eq. 5) of a chunk with rate `gamma`, ready at `t0`, taking `p` slots, of a job
    /// with D_j = `d`, uploaded in `delta` slots, on worker `w`: one pass over w's pending
    /// segments. A(t0) = chunks not finished by t0; A1 = gamma' >= gamma (equal gamma keeps
    /// insertion order), A2 = the rest, each counted once (at its last segment).
    pub fn q_edge(&self, w: usize, gamma: f64, t0: Slot, p: f64, delta: Slot, d: f64) -> QValue {
        if let Some(qv) = self.q_summary(w, gamma, t0, p, delta, d) {
            return qv;
        }
        self.q_scan(w, gamma, t0, p, delta, d)
    }

    /// Q by one pass over the worker's pending segments (always valid).
    pub fn q_scan(&self, w: usize, gamma: f64, t0: Slot, p: f64, delta: Slot, d: f64) -> QValue {
        let mut a1 = 0u64;
        let mut a2 = 0u64;
        let mut t_star = t0;
        let mut i = self.workers.get(w).map_or(NONE, |wl| wl.live);
        while let Some(s) = self.seg(i) {
            i = s.next;
            if s.end <= t0 {
                continue;
            }
            if s.gamma >= gamma {
                a1 += (s.end - s.start.max(t0)) as u64;
                t_star = t_star.max(s.end);
            } else if s.last {
                a2 += s.weight;
            }
        }
        QValue {
            q: eq5(delta, d, a1, p, a2),
            t_star,
            a1_slots: a1,
            a2_weight: a2,
        }
    }

    fn push(&mut self, seg: Segment) -> Result<u32, PlanError> {
        if self.segs.len() >= self.cap {
            return Err(PlanError::PoolFull);
        }
        if self.segs.capacity() < self.cap {
            // Only after a snapshot restore (serde keeps lengths, not capacities): restore the
            // build-time reservation once, so later pushes never reallocate.
            self.segs.reserve_exact(self.cap - self.segs.len());
        }
        self.segs.push(seg);
        self.fresh += 1;
        Ok((self.segs.len() - 1) as u32)
    }

    fn set_next(&mut self, w: usize, prev: u32, next: u32) {
        if let Some(s) = self.segs.get_mut(prev as usize) {
            s.next = next;
        } else if let Some(wl) = self.workers.get_mut(w) {
            wl.head = next;
        }
    }

    /// UPDATEVARIABLES on worker `w`: chunk `chunk` takes slots [t*, t* + len); every planned
    /// slot >= t* (all of them belong to A2 chunks) moves `len` slots later, splitting the chunk
    /// in progress at t*. Returns how many chunks were split (preempted). Needs t* >= every
    /// A1 end, which [`Plans::q_edge`] guarantees.
    pub fn insert(
        &mut self,
        w: usize,
        chunk: u32,
        t_star: Slot,
        len: u32,
    ) -> Result<u32, PlanError> {
        self.insert_restart(w, chunk, t_star, len, 0)
    }

    /// [`Plans::insert`] where a split chunk pays `restart` slots of restart time
    /// (`docs/restart.md`): its tail resumes after the new chunk `restart` slots longer, and
    /// every later segment moves `len + restart` slots. 0 is [`Plans::insert`] exactly.
    pub fn insert_restart(
        &mut self,
        w: usize,
        chunk: u32,
        t_star: Slot,
        len: u32,
        restart: u32,
    ) -> Result<u32, PlanError> {
        let wl = *self.workers.get(w).ok_or(PlanError::OutOfRange)?;
        let new_end = t_star
            .checked_add(len)
            .filter(|&e| e as usize <= crate::limits::PREEMPT_PLAN_SLOTS_MAX)
            .ok_or(too_long(t_star as u64 + len as u64))?;
        // Find the last live segment starting before t*: the new segment goes after it.
        let (mut prev, mut cur) = (wl.live_prev, wl.live);
        while let Some(s) = self.seg(cur) {
            if s.start >= t_star {
                break;
            }
            prev = cur;
            cur = s.next;
        }
        let mut splits = 0;
        let meta = self.chunks.get(chunk as usize).copied().unwrap_or_default();
        if let Some(x) = self.summary_at.get_mut(w) {
            x.2 = 0;
        }
        let new = self.push(Segment {
            gamma: meta.gamma,
            weight: weight(meta.inv_d),
            chunk,
            start: t_star,
            end: new_end,
            next: cur,
            last: true,
        })?;
        // A segment straddling t*: keep its head, its tail resumes after the new chunk.
        let mut tail_first = cur;
        if let Some(&p) = self.seg(prev) {
            if p.end > t_star {
                let tail = self.push(Segment {
                    start: t_star,
                    // The restart time runs on the worker before the chunk resumes.
                    end: p
                        .end
                        .checked_add(restart)
                        .ok_or(too_long(p.end as u64 + restart as u64))?,
                    next: cur,
                    ..p
                })?;
                if let Some(ps) = self.segs.get_mut(prev as usize) {
                    ps.end = t_star;
                    ps.last = false;
                }
                if let Some(ns) = self.segs.get_mut(new as usize) {
                    ns.next = tail;
                }
                tail_first = tail;
                splits += 1;
            }
        }
        self.set_next(w, prev, new);
        if wl.live == cur {
            // the new segment precedes the old first live one
            if let Some(x) = self.workers.get_mut(w) {
                x.live = new;
            }
        }
        self.shift_from(tail_first, len)?;
        if splits > 0 && restart > 0 {
            // Everything after the lengthened tail moves by the restart time too.
            self.shift_from(cur, restart)?;
        }
        if let Some(c) = self.chunks.get_mut(chunk as usize) {
            c.end = new_end;
        }
        self.max_end = self.max_end.max(new_end);
        debug_assert!(
            self.seg(prev).is_none_or(|p| p.end <= t_star)
                && self
                    .seg(new)
                    .and_then(|s| self.seg(s.next))
                    .is_none_or(|x| x.start >= new_end),
            "preempt plan: a worker runs two chunks in one slot"
        );
        Ok(splits)
    }

    /// Moves every segment from `i` on by `len` slots, keeping each chunk's end current.
    fn shift_from(&mut self, mut i: u32, len: u32) -> Result<(), PlanError> {
        while let Some(s) = self.segs.get_mut(i as usize) {
            s.start = s.start.saturating_add(len);
            s.end = s.end.saturating_add(len);
            if s.end as usize > crate::limits::PREEMPT_PLAN_SLOTS_MAX {
                return Err(too_long(s.end as u64));
            }
            let (chunk, end) = (s.chunk, s.end);
            i = s.next;
            if let Some(c) = self.chunks.get_mut(chunk as usize) {
                c.end = c.end.max(end);
            }
            self.max_end = self.max_end.max(end);
        }
        Ok(())
    }

    /// Q from the worker's summary (valid for the current slot and no insertion on `w` since):
    /// binary search for the A1/A2 boundary, then the slots run in [now, t0) are taken back
    /// from A1 and the A2 chunks that finish by t0 leave A2. `None` when the summary is stale.
    fn q_summary(
        &self,
        w: usize,
        gamma: f64,
        t0: Slot,
        p: f64,
        delta: Slot,
        d: f64,
    ) -> Option<QValue> {
        let &(off, len, at) = self.summary_at.get(w)?;
        if at != self.now.wrapping_add(1) || t0 < self.now {
            return None;
        }
        let region = self.summary.get(off as usize..(off + len) as usize)?;
        let k = region.partition_point(|e| e.gamma >= gamma);
        let (mut a1, mut t_star) = match k.checked_sub(1).and_then(|i| region.get(i)) {
            Some(e) => (e.rem, e.end.max(t0)),
            None => (0, t0),
        };
        let mut a2 = region.get(k).map_or(0, |e| e.weight);
        let mut i = self.workers.get(w).map_or(NONE, |wl| wl.live);
        while let Some(s) = self.seg(i) {
            if s.start >= t0 {
                break;
            }
            i = s.next;
            if s.gamma >= gamma {
                let ov = s.end.min(t0).saturating_sub(s.start.max(self.now));
                a1 = a1.saturating_sub(ov as u64);
            } else if s.last && s.end <= t0 {
                a2 = a2.saturating_sub(s.weight);
            }
        }
        t_star = t_star.max(t0);
        Some(QValue {
            q: eq5(delta, d, a1, p, a2),
            t_star,
            a1_slots: a1,
            a2_weight: a2,
        })
    }

    /// Rebuilds every worker's summary for slot `now` (call between slots, after
    /// [`Plans::advance`] to `now - 1` or later): per worker, its chunks with a slot >= now,
    /// sorted by gamma (highest first, ties by chunk), with prefix sums of the slots left,
    /// prefix max of the ends and suffix sums of the A2 weights. Allocates nothing (the buffer
    /// holds one entry per pool segment).
    pub fn rebuild_summaries(&mut self, now: Slot) {
        if self.summary.capacity() < self.cap {
            // after a snapshot restore
            self.summary.reserve_exact(self.cap);
        }
        self.summary.clear();
        for w in 0..self.workers.len() {
            let off = self.summary.len();
            let mut i = self.workers.get(w).map_or(NONE, |wl| wl.live);
            let mut full = false;
            while let Some(&s) = self.seg(i) {
                i = s.next;
                if s.end <= now {
                    continue;
                }
                // Cannot happen (one entry per pool segment); if it did, the worker keeps
                // using the scan instead of a truncated summary.
                if self.summary.len() >= self.cap {
                    full = true;
                    break;
                }
                self.summary.push(Summary {
                    gamma: s.gamma,
                    chunk: s.chunk,
                    rem: (s.end - s.start.max(now)) as u64,
                    end: s.end,
                    weight: if s.last { s.weight } else { 0 },
                });
            }
            let len = summarize(self.summary.get_mut(off..).unwrap_or(&mut []));
            self.summary.truncate(off + len);
            let at = if full { 0 } else { now.wrapping_add(1) };
            if let Some(x) = self.summary_at.get_mut(w) {
                *x = (off as u32, len as u32, at);
            }
        }
    }

    /// Restores the build-time reservations of the pools (lost by `clone` and by a serde
    /// restore, which keep lengths only). Otherwise each pool is re-reserved on first use.
    pub fn reserve(&mut self) {
        for v in [&mut self.segs, &mut self.spare] {
            if v.capacity() < self.cap {
                v.reserve_exact(self.cap - v.len());
            }
        }
        if self.summary.capacity() < self.cap {
            self.summary.reserve_exact(self.cap - self.summary.len());
        }
    }

    /// Segments in the pool (history included).
    pub fn segment_count(&self) -> usize {
        self.segs.len()
    }

    /// Segments created since the last [`Plans::compact`].
    pub fn fresh(&self) -> usize {
        self.fresh
    }

    /// Rewrites the pool so that each worker's segments are contiguous and in slot order (Q
    /// then reads memory sequentially). Uses the twin pool allocated at build time (re-reserved
    /// once after a snapshot restore). Called between slots, never inside a dispatch.
    pub fn compact(&mut self) {
        if self.spare.capacity() < self.cap {
            // after a snapshot restore (the twin pool is not part of a snapshot)
            self.spare.reserve_exact(self.cap);
        }
        self.spare.clear();
        for wl in self.workers.iter_mut() {
            let (mut i, mut prev) = (wl.head, NONE);
            let (old_live, mut live, mut live_prev) = (wl.live, NONE, NONE);
            wl.head = NONE;
            while let Some(&s) = self.segs.get(i as usize) {
                let at = self.spare.len() as u32;
                if let Some(p) = self.spare.get_mut(prev as usize) {
                    p.next = at;
                } else {
                    wl.head = at;
                }
                if i == old_live {
                    live = at;
                    live_prev = prev;
                }
                self.spare.push(Segment { next: NONE, ..s });
                prev = at;
                i = s.next;
            }
            wl.live = live;
            wl.live_prev = if live == NONE { prev } else { live_prev };
        }
        core::mem::swap(&mut self.segs, &mut self.spare);
        self.fresh = 0;
    }

    /// Every segment of worker `w` from the first ever, in slot order.
    pub fn segments(&self, w: usize) -> SegmentIter<'_> {
        SegmentIter {
            plans: self,
            next: self.workers.get(w).map_or(NONE, |wl| wl.head),
        }
    }
}

/// Open world (`docs/open-world.md`, "Kind preempt"): growing the store for submitted jobs
/// and cutting planned slots out of a worker's plan.
impl Plans {
    /// Room for `chunks` more chunks (a submitted job): two pool segments each, amortised
    /// growth (the only allocation of a submission).
    pub fn extend_chunks(&mut self, chunks: usize) {
        self.chunks
            .resize(self.chunks.len() + chunks, PlanChunk::default());
        self.cap += 2 * chunks;
        self.grow_pools();
    }

    /// Room for `segments` more segments than the pool holds now (an interruption
    /// re-dispatches chunks, two new segments each at most).
    pub fn reserve_segments(&mut self, segments: usize) {
        self.cap = self.cap.max(self.segs.len() + segments);
        self.grow_pools();
    }

    fn grow_pools(&mut self) {
        for v in [&mut self.segs, &mut self.spare] {
            if v.capacity() < self.cap {
                v.reserve(self.cap - v.len());
            }
        }
        if self.summary.capacity() < self.cap {
            self.summary.reserve(self.cap - self.summary.len());
        }
    }

    /// The segment worker `w` runs in slot `t` (call [`Plans::advance`] to `t` first).
    pub fn running_segment(&self, w: usize, t: Slot) -> Option<Segment> {
        let wl = self.workers.get(w)?;
        let s = *self.seg(wl.live)?;
        (s.start <= t && t < s.end).then_some(s)
    }

    /// Removes from worker `w` every planned slot >= `from` of chunk `chunk` (of every chunk
    /// when `chunk` is `NONE`): a segment starting at or after `from` is unlinked, one running
    /// over `from` ends at `from` (the slots before stay: the worker did run them). `hit` gets
    /// the chunk of every segment changed (a split chunk may come twice). Later segments keep
    /// their slots: the freed ones stay idle until an insertion uses them. Call
    /// [`Plans::advance`] to `from` first. O(the worker's pending segments).
    pub fn cut(
        &mut self,
        w: usize,
        from: Slot,
        chunk: u32,
        hit: &mut dyn FnMut(u32),
    ) -> Result<(), PlanError> {
        let wl = *self.workers.get(w).ok_or(PlanError::OutOfRange)?;
        let (mut prev, mut cur, mut live) = (wl.live_prev, wl.live, wl.live);
        while let Some(&s) = self.seg(cur) {
            let next = s.next;
            if chunk == NONE || s.chunk == chunk {
                if s.start >= from {
                    self.set_next(w, prev, next);
                    if cur == live {
                        live = next;
                    }
                    hit(s.chunk);
                    cur = next;
                    continue;
                }
                if s.end > from {
                    if let Some(x) = self.segs.get_mut(cur as usize) {
                        x.end = from;
                    }
                    hit(s.chunk);
                }
            }
            prev = cur;
            cur = next;
        }
        let now = self.now;
        if let Some(x) = self.workers.get_mut(w) {
            x.live = live;
            // A segment cut to end at `from` (= now) is history now.
            while let Some(s) = self.segs.get(x.live as usize) {
                if s.end > now {
                    break;
                }
                x.live_prev = x.live;
                x.live = s.next;
            }
        }
        if let Some(x) = self.summary_at.get_mut(w) {
            x.2 = 0;
        }
        Ok(())
    }
}

impl Plans {
    /// Checks plans restored from a snapshot against `model`, the plans of a scheduler built
    /// from the same scenario (only its shape is read): pool capacity and lengths; every
    /// segment non-empty, within [`crate::limits::PREEMPT_PLAN_SLOTS_MAX`], of a known chunk and
    /// carrying that chunk's gamma and weight; each worker's list acyclic, slot-ordered and
    /// disjoint from the others, covering the pool; `live` on the list with `live_prev` its
    /// predecessor; summaries within the buffer. Then no later Q, insertion, compaction or
    /// summary can index out of range, overflow or loop.
    pub fn check_restored(&self, model: &Plans) -> Result<(), SnapshotError> {
        let max = crate::limits::PREEMPT_PLAN_SLOTS_MAX;
        ensure(self.cap == model.cap, "plans.cap")?;
        ensure(self.segs.len() <= self.cap, "plans.segs")?;
        ensure(self.fresh <= self.segs.len(), "plans.fresh")?;
        ensure(self.workers.len() == model.workers.len(), "plans.workers")?;
        ensure(self.chunks.len() == model.chunks.len(), "plans.chunks")?;
        ensure(self.max_end as usize <= max, "plans.max_end")?;
        ensure(self.summary.len() <= self.cap, "plans.summary")?;
        ensure(
            self.summary_at.len() == model.summary_at.len(),
            "plans.summary_at",
        )?;
        for (i, c) in self.chunks.iter().enumerate() {
            let ok = c.gamma.is_finite()
                && c.gamma >= 0.0
                && c.inv_d.is_finite()
                && (0.0..=1.0).contains(&c.inv_d)
                && c.end <= self.max_end;
            if !ok {
                return Err(invalid_at("plans.chunks", i));
            }
        }
        for (i, s) in self.segs.iter().enumerate() {
            let meta = self.chunks.get(s.chunk as usize);
            let ok = meta.is_some_and(|m| {
                s.gamma.to_bits() == m.gamma.to_bits() && s.weight == weight(m.inv_d)
            }) && s.start < s.end
                && s.end <= self.max_end
                && (s.next == NONE || (s.next as usize) < self.segs.len());
            if !ok {
                return Err(invalid_at("plans.segs", i));
            }
        }
        let mut seen = alloc::vec![false; self.segs.len()];
        let mut count = 0usize;
        for (w, wl) in self.workers.iter().enumerate() {
            self.check_list(wl, &mut seen, &mut count)
                .map_err(|f| invalid_at(f, w))?;
        }
        ensure(count == self.segs.len(), "plans.segs")?;
        for (w, &(off, len, _)) in self.summary_at.iter().enumerate() {
            if off as usize + len as usize > self.summary.len() {
                return Err(invalid_at("plans.summary_at", w));
            }
        }
        Ok(())
    }

    /// One worker's list: acyclic, not shared, slot-ordered; `live` / `live_prev` on it.
    fn check_list(
        &self,
        wl: &WorkerList,
        seen: &mut [bool],
        count: &mut usize,
    ) -> Result<(), &'static str> {
        let (mut i, mut prev, mut prev_end) = (wl.head, NONE, 0);
        let mut live_ok = wl.live == NONE;
        let mut live_prev = NONE;
        while i != NONE {
            let s = self.segs.get(i as usize).ok_or("plans.workers.head")?;
            let mark = seen.get_mut(i as usize).ok_or("plans.workers.head")?;
            if *mark {
                return Err("plans.segs.next");
            }
            *mark = true;
            *count += 1;
            if s.start < prev_end {
                return Err("plans.segs.order");
            }
            if i == wl.live {
                live_ok = true;
                live_prev = prev;
            }
            prev_end = s.end;
            prev = i;
            i = s.next;
        }
        if wl.live == NONE {
            live_prev = prev; // ran off the end: the last segment (NONE for an empty list)
        }
        if !live_ok {
            return Err("plans.workers.live");
        }
        if wl.live_prev != live_prev {
            return Err("plans.workers.live_prev");
        }
        Ok(())
    }
}

/// Sorts one worker's summary by gamma (highest first, ties by chunk), merges the segments of
/// a chunk, and turns the entries into prefix sums (rem), prefix max (end) and suffix sums
/// (weight). Returns the merged length.
fn summarize(r: &mut [Summary]) -> usize {
    r.sort_unstable_by(|a, b| b.gamma.total_cmp(&a.gamma).then(a.chunk.cmp(&b.chunk)));
    let mut n = 0usize;
    for i in 0..r.len() {
        let e = r[i];
        if n > 0 && r[n - 1].chunk == e.chunk {
            let m = &mut r[n - 1];
            m.rem += e.rem;
            m.end = m.end.max(e.end);
            m.weight += e.weight;
        } else {
            r[n] = e;
            n += 1;
        }
    }
    let r = &mut r[..n];
    for i in 1..n {
        r[i].rem += r[i - 1].rem;
        r[i].end = r[i].end.max(r[i - 1].end);
    }
    for i in (0..n.saturating_sub(1)).rev() {
        r[i].weight += r[i + 1].weight;
    }
    n
}

fn too_long(got: u64) -> PlanError {
    PlanError::TooLong(CapacityError {
        limit: Limit::PreemptPlanSlots,
        max: crate::limits::PREEMPT_PLAN_SLOTS_MAX as u64,
        got,
        // The plans do not know jobs; the scheduler's caller names the job being placed.
        job: None,
    })
}

/// Iterator over one worker's segments.
pub struct SegmentIter<'a> {
    plans: &'a Plans,
    next: u32,
}

impl Iterator for SegmentIter<'_> {
    type Item = Segment;
    fn next(&mut self) -> Option<Segment> {
        let s = *self.plans.seg(self.next)?;
        self.next = s.next;
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two workers, four chunks: chunk 0 then chunk 1 (higher gamma, preempting) on worker 0,
    /// chunk 2 on worker 1; advanced past the first slots.
    fn plans() -> Plans {
        let mut p = Plans::new(2, 4);
        for (c, gamma) in [(0u32, 1.0), (1, 2.0), (2, 1.5)] {
            p.chunks[c as usize].gamma = gamma;
            p.chunks[c as usize].inv_d = 0.5;
        }
        p.insert(0, 0, 0, 4).unwrap();
        assert_eq!(p.insert(0, 1, 2, 3).unwrap(), 1);
        p.insert(1, 2, 1, 2).unwrap();
        p.advance(3);
        p.rebuild_summaries(4);
        p
    }

    fn refused(p: &Plans, field: &str) {
        match p.check_restored(&Plans::new(2, 4)) {
            Err(SnapshotError::Invalid { field: f, .. }) => assert_eq!(f, field),
            other => panic!("expected Invalid({field}), got {other:?}"),
        }
    }

    #[test]
    fn a_split_chunk_pays_the_restart_time() {
        // Chunk 0 runs [0, 4); chunk 1 preempts it at 2 for 3 slots: its tail resumes at 5 for
        // its 2 slots left plus 2 of restart (ends 9, not 7); chunk 2 behind it moves by 3 + 2.
        let mut p = Plans::new(1, 3);
        p.insert(0, 0, 0, 4).unwrap();
        p.insert(0, 2, 4, 1).unwrap();
        assert_eq!(p.insert_restart(0, 1, 2, 3, 2).unwrap(), 1);
        assert_eq!(
            [p.chunks[0].end, p.chunks[1].end, p.chunks[2].end],
            [9, 5, 10]
        );
        assert_eq!(p.max_end, 10);
    }

    #[test]
    fn valid_plans_pass_and_compacted_too() {
        let mut p = plans();
        p.check_restored(&Plans::new(2, 4)).unwrap();
        p.compact();
        p.check_restored(&Plans::new(2, 4)).unwrap();
    }

    #[test]
    fn inconsistent_plans_are_typed_errors() {
        let mut p = plans();
        p.segs[1].next = p.workers[0].head; // a cycle
        refused(&p, "plans.segs.next");
        let mut p = plans();
        p.workers[1].head = p.workers[0].head; // two lists share segments
        refused(&p, "plans.segs.next");
        let mut p = plans();
        p.segs[0].next = 99;
        refused(&p, "plans.segs");
        let mut p = plans();
        p.segs[2].gamma = f64::NAN;
        refused(&p, "plans.segs");
        let mut p = plans();
        p.chunks[1].gamma = f64::NAN;
        refused(&p, "plans.chunks");
        let mut p = plans();
        p.segs[0].end = p.segs[0].start;
        refused(&p, "plans.segs");
        let mut p = plans();
        p.summary_at[0] = (u32::MAX, 2, 5);
        refused(&p, "plans.summary_at");
        let mut p = plans();
        p.workers[0].live_prev = NONE;
        refused(&p, "plans.workers.live_prev");
        let mut p = plans();
        p.workers[1].live = 0;
        refused(&p, "plans.workers.live");
        let mut p = plans();
        p.fresh = usize::MAX;
        refused(&p, "plans.fresh");
        let mut p = plans();
        p.cap = 2;
        refused(&p, "plans.cap");
        let mut p = plans();
        p.max_end = u32::MAX;
        refused(&p, "plans.max_end");
        let mut p = plans();
        let first = p.workers[0].head as usize;
        let second = p.segs[first].next as usize;
        p.segs[second].start = 0; // overlaps its predecessor
        refused(&p, "plans.segs.order");
    }
}
