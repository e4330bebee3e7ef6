//! The grid's tests, and the comparisons of grids the market's tests use.
use super::level::Level;
use super::*;
use alloc::vec;

/// Comparisons of grids for tests.
impl Grid {
    /// Server `s`'s prices at slot `t` (R values).
    pub(crate) fn prices_of(&self, t: u32, s: usize) -> &[f64] {
        let p = self.pos.get(s).map_or(usize::MAX / 4, |&p| p as usize);
        let b = self.at(t, p);
        self.prices.get(b..b + self.nr).unwrap_or(&[])
    }

    /// Server `s`'s room codes at slot `t`.
    pub(crate) fn codes_of(&self, t: u32, s: usize) -> &[u8] {
        let p = self.pos[s] as usize;
        &self.slot_codes(t)[p * self.nr..(p + 1) * self.nr]
    }

    /// Redoes every queued node ([`Self::tidy`]): the summaries are then exact.
    pub(crate) fn tidy_all(&mut self) {
        let all = self.levels.first().map_or(0, |l| l.ring.len());
        self.tidy(all);
    }

    /// Bit for bit the same free rooms, prices, room codes, summaries and idle servers as
    /// `o`?
    pub(crate) fn same(&self, o: &Grid) -> bool {
        let bits = |a: &[f64], b: &[f64]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
        };
        bits(&self.free, &o.free)
            && bits(&self.prices, &o.prices)
            && self.codes == o.codes
            && self.idle_bits == o.idle_bits
            && self.levels.len() == o.levels.len()
            && self
                .levels
                .iter()
                .zip(&o.levels)
                .all(|(a, b)| a.n == b.n && bits(&a.sum, &b.sum) && a.codes == b.codes)
    }

    /// Is every node's room code the [`room_code`] of its summary's value?
    pub(crate) fn codes_match(&self) -> bool {
        let (sw, mins, nr) = (self.summary_width(), 2 * self.nr + 1, self.nr);
        self.levels.iter().all(|lv| {
            (0..self.slots).all(|t| {
                (0..lv.n).all(|i| {
                    let v = &lv.sum[(t * lv.n + i) * sw..(t * lv.n + i + 1) * sw];
                    let base = lv.code_base(t, i);
                    v[mins..].chunks_exact(nr).enumerate().all(|(k, f)| {
                        let c = &lv.codes[base + k * FAN * nr..base + k * FAN * nr + nr];
                        c.iter().zip(f).all(|(&c, &x)| c == room_code(x))
                    })
                })
            })
        })
    }

    /// Does every summary bound `exact`'s (the same grid with its summaries redone): least
    /// prices and peaks at most, largest free rooms at least? What a listing needs of the
    /// summaries [`Self::tidy`] has not redone yet.
    pub(crate) fn bounds(&self, exact: &Grid) -> bool {
        let (sw, mins) = (self.summary_width(), 2 * self.nr + 1);
        self.levels.len() == exact.levels.len()
            && self.levels.iter().zip(&exact.levels).all(|(a, b)| {
                a.sum.len() == b.sum.len()
                    && a.sum.iter().zip(&b.sum).enumerate().all(|(k, (x, y))| {
                        if k % sw < mins {
                            x <= y
                        } else {
                            x >= y
                        }
                    })
            })
    }
}

/// The queue of stale nodes: each (slot, node) once however often it is queued, oldest
/// first, across the ring's wrap, and queued again once taken.
#[test]
fn stale_nodes_queue_once_in_order() {
    let mut lv = Level::new(3, 2, 1, vec![0; 3], 1, 1);
    let mut want = std::collections::VecDeque::new();
    let mut rng = crate::rng::SplitMix64::new(7);
    for _ in 0..10_000 {
        if rng.below(3) < 2 {
            let (t, i) = (rng.below(2) as u32, rng.below(3) as usize);
            lv.queue(t, i);
            if !want.contains(&(t, i)) {
                want.push_back((t, i));
            }
        } else {
            assert_eq!(lv.next(), want.pop_front());
        }
        assert_eq!(lv.len, want.len());
        assert!(lv.len <= lv.ring.len());
    }
}

/// Room codes are monotone in the free room and never below a demand's code when the
/// free room has room for it (the fit of `fit_free`): 200,000 random pairs over many
/// orders of magnitude, near-equal pairs and the edges.
#[test]
fn room_codes_never_hide_room() {
    use crate::oasis::units::fit_free;
    use crate::ResourceVec;
    let mut g = crate::rng::SplitMix64::new(5);
    let edges = [
        0.0,
        -0.0,
        1.0 / 65536.0,
        65536.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    for i in 0..200_000u32 {
        let x = libm::pow(2.0, g.next_f64() * 40.0 - 20.0);
        let d = match i % 3 {
            0 => libm::pow(2.0, g.next_f64() * 40.0 - 20.0),
            1 => x * (1.0 + (g.next_f64() - 0.5) * 1e-8),
            _ => edges[(g.next_u64() % 6) as usize].abs().max(1e-300),
        };
        let f = if i % 7 == 0 {
            edges[(g.next_u64() % 6) as usize]
        } else {
            x
        };
        let (lo, hi) = if f <= d { (f, d) } else { (d, f) };
        assert!(room_code(lo) <= room_code(hi), "{lo} {hi}");
        let dem = ResourceVec::from_slice(&[d]).unwrap();
        if fit_free(&[f], &dem) > 0 {
            assert!(room_code(f) >= room_code(d * (1.0 - 2e-9)), "{f} {d}");
        }
    }
}
