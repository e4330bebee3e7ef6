//! Room sets kept across the searches of one A_dual window: per (type, L, t-) a bitset over
//! the virtual server set that holds every server with room for one task of the type over
//! [t-, t- + L) (a superset: servers found without room are cleared as passes meet them).
//!
//! Why a superset stays one: within a cached window free capacity only falls (a commit adds
//! reservations, nothing releases one before the window changes), so a server without room for
//! a task over a range never regains it; and a server's index in the set is fixed until the
//! window changes (the set only appends servers, and [`RoomSets::reset`] runs when it is
//! rebuilt). The q = 0 capacity pass ([`super::scratch::FastScratch::caps_for`]) then visits
//! the set bits only, plus the servers appended since the bitset was last brought up to date,
//! and runs the same tests on them as the pass over the whole set: the same servers get the
//! same capacities, in the same (set) order, so every answer is the same bit for bit. It does
//! so only when the set is sparse ([`RoomSets::sparse`]); otherwise it passes over the whole
//! set with block bounds and records the servers it found with room ([`RoomSets::record`]).
//! In the late rounds' full windows a few percent of the set has room.
use alloc::vec;
use alloc::vec::Vec;

/// The most u64 words of all room sets together (32 MB); above it the sets are off and the
/// passes run over the whole set as before. The generated 12,500-server scenario (8 worker
/// types, 22-slot windows) needs 0.76 million (6 MB).
pub(super) const ROOM_WORDS_MAX: usize = 1 << 22;

/// Room sets per (type, L, t-); see the module documentation.
#[derive(Clone, Debug)]
pub struct RoomSets {
    /// u64 words per set (hcap / 64 rounded up).
    words: usize,
    /// Slots per window (the key's L and t- stride).
    wcap: usize,
    /// Task types the sets are kept for (the search keeps them for its worker types).
    types: usize,
    /// `bits[key * words..]`: bit v set when server v of the set may have room.
    bits: Vec<u64>,
    /// Per key, how many servers the last complete pass found with room.
    count: Vec<u32>,
    /// Per key, the servers 0..upto the bitset describes (0: none yet); servers at or above it
    /// are visited and recorded by the next pass.
    upto: Vec<u32>,
    /// Servers found with room by the pass in progress.
    seen: u32,
}

impl RoomSets {
    /// Room sets for `types` types, windows of up to `wcap` slots and `hcap` servers; empty
    /// (off) when they would exceed [`ROOM_WORDS_MAX`] words.
    pub fn new(types: usize, wcap: usize, hcap: usize) -> Self {
        let words = hcap.div_ceil(64);
        let keys = types.saturating_mul(wcap).saturating_mul(wcap);
        let total = keys.saturating_mul(words);
        let on = total <= ROOM_WORDS_MAX && total > 0;
        RoomSets {
            words,
            wcap,
            types,
            bits: vec![0; if on { total } else { 0 }],
            upto: vec![0; if on { keys } else { 0 }],
            count: vec![0; if on { keys } else { 0 }],
            seen: 0,
        }
    }

    /// Forgets every set (the window, hence the set's indices, changed).
    pub fn reset(&mut self) {
        self.upto.iter_mut().for_each(|u| *u = 0);
    }

    /// The key of (type `ty`, L = `dur`, t- = `t0`), or `None` when the sets are off or the
    /// triple is out of range (the pass then visits every server).
    pub fn key(&self, ty: usize, dur: u32, t0: u32) -> Option<usize> {
        let (d, t) = (dur as usize, t0 as usize);
        if self.upto.is_empty() || ty >= self.types || d >= self.wcap || t >= self.wcap {
            return None;
        }
        Some((ty * self.wcap + d) * self.wcap + t)
    }

    /// The first server v >= `from` (below `h`, the set's size) a pass must visit for `key`:
    /// a set bit below `upto`, else the first server the set is not yet known about.
    pub fn next(&self, key: usize, from: usize, h: usize) -> Option<usize> {
        let upto = (self.upto[key] as usize).min(h);
        if from < upto {
            let row = &self.bits[key * self.words..][..self.words];
            let mut w = from / 64;
            let mut word = row[w] & (!0u64 << (from % 64));
            loop {
                if word != 0 {
                    let v = w * 64 + word.trailing_zeros() as usize;
                    if v < upto {
                        return Some(v);
                    }
                    break;
                }
                w += 1;
                if w * 64 >= upto {
                    break;
                }
                word = row[w];
            }
            return (upto < h).then_some(upto);
        }
        (from < h).then_some(from)
    }

    /// Whether a pass should visit the set bits of `key` rather than every server: the set is
    /// complete for all but a few of the `h` servers and holds at most a quarter of them (a
    /// dense set costs more per server than a pass with block bounds over the whole set: the
    /// room path computes each member's window minima for one type, the block pass once for
    /// every type; a quarter and a half measured alike, 1/16 8% slower on the 12,500-node,
    /// 5,000-job case).
    pub fn sparse(&self, key: usize, h: usize) -> bool {
        let (upto, n) = (self.upto[key] as usize, self.count[key] as usize);
        upto > 0 && h - upto.min(h) <= 64 && 4 * n <= h
    }

    /// Makes `key`'s set exactly `servers` (ascending, all below `h`), known for 0..h.
    pub fn record(&mut self, key: usize, servers: &[u32], h: usize) {
        let row = &mut self.bits[key * self.words..][..h.div_ceil(64)];
        row.iter_mut().for_each(|w| *w = 0);
        for &v in servers {
            row[v as usize / 64] |= 1 << (v % 64);
        }
        self.upto[key] = h as u32;
        self.count[key] = servers.len() as u32;
    }

    /// Records whether server v has room for `key` (bits at or above `upto` are written either
    /// way, so a bitset made for an earlier set needs no clearing).
    pub fn set(&mut self, key: usize, v: usize, room: bool) {
        let word = &mut self.bits[key * self.words + v / 64];
        if room {
            *word |= 1 << (v % 64);
            self.seen += 1;
        } else {
            *word &= !(1 << (v % 64));
        }
    }

    /// A pass over servers 0..h of `key` is done: the bitset describes them all, and the pass
    /// found `seen` of them with room.
    pub fn done(&mut self, key: usize, h: usize) {
        self.upto[key] = h as u32;
        self.count[key] = self.seen;
        self.seen = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::RoomSets;
    use alloc::vec;
    use alloc::vec::Vec;

    /// Every server a pass visits, from `next` (recording `room` for the unknown ones).
    fn visit(s: &mut RoomSets, key: usize, h: usize, room: &dyn Fn(usize) -> bool) -> Vec<usize> {
        let (mut out, mut v) = (Vec::new(), 0);
        while let Some(x) = s.next(key, v, h) {
            s.set(key, x, room(x));
            out.push(x);
            v = x + 1;
        }
        s.done(key, h);
        out
    }

    #[test]
    fn visits_set_bits_then_the_appended_servers() {
        let mut s = RoomSets::new(2, 4, 200);
        let key = s.key(1, 2, 3).unwrap();
        assert_eq!(s.key(2, 0, 0), None);
        assert_eq!(s.key(0, 4, 0), None);
        // Unknown: every server is visited.
        assert_eq!(visit(&mut s, key, 130, &|v| v % 50 == 7).len(), 130);
        assert!(s.sparse(key, 130));
        // Known: only those with room, then the servers appended since (130..140).
        let again = visit(&mut s, key, 140, &|v| v == 57);
        let want: Vec<usize> = [7, 57, 107].into_iter().chain(130..140).collect();
        assert_eq!(again, want);
        assert_eq!(visit(&mut s, key, 140, &|_| true), vec![57]);
        s.record(key, &[3, 64, 139], 140);
        assert_eq!(visit(&mut s, key, 140, &|_| true), vec![3, 64, 139]);
        let many: Vec<u32> = (0..40).collect();
        s.record(key, &many, 140);
        assert!(!s.sparse(key, 140), "dense: 40 of 140");
        s.reset();
        assert!(!s.sparse(key, 140));
        assert_eq!(visit(&mut s, key, 5, &|_| false), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn off_above_the_budget() {
        let s = RoomSets::new(64, 512, 1 << 14);
        assert_eq!(s.key(0, 1, 1), None);
    }
}
