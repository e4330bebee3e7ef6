//! A pool's equality (its breakpoints bit for bit), its serialised form (per server its
//! breakpoints; everything derived is rebuilt on restore) and the checks of a restored pool
//! or market against a fresh one.
use super::books::PRICE_CACHE_BITS;
use super::changes::SlotChanges;
use super::{Market, Pool};
use crate::oasis::census::Census;
use crate::oasis::grid::RoomLevels;
use crate::price::oasis_price;
use crate::resources::ResourceVec;
use alloc::vec;
use alloc::vec::Vec;
use serde::{Deserialize, Serialize};

impl PartialEq for Pool {
    fn eq(&self, o: &Pool) -> bool {
        self.slots == o.slots
            && self.servers == o.servers
            && self.resources == o.resources
            && self.capacity == o.capacity
            && self.upper == o.upper
            && self.lower.to_bits() == o.lower.to_bits()
            && (0..self.servers).all(|s| {
                let st = self.stride();
                let l = self.times(s).len();
                self.times(s) == o.times(s)
                    && (0..l).all(|j| {
                        self.values(s, j)
                            .iter()
                            .zip(o.values(s, j))
                            .all(|(a, b)| a.to_bits() == b.to_bits())
                            && self.values(s, j).len() == st
                    })
            })
    }
}

/// The serialised form of a [`Pool`]: per server its breakpoints (slots, then 2R values each).
#[derive(Serialize, Deserialize)]
struct PoolRepr {
    slots: u32,
    servers: u32,
    resources: u32,
    capacity: Vec<f64>,
    series: Vec<(Vec<u32>, Vec<f64>)>,
    upper: ResourceVec,
    lower: f64,
}

struct SeriesRef<'a>(&'a Pool);

impl Serialize for SeriesRef<'_> {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        let p = self.0;
        let st = p.stride();
        ser.collect_seq((0..p.servers).map(|s| {
            let o = p.off[s as usize];
            let l = p.len[s as usize] as usize;
            (&p.bt[o..o + l], &p.bv[o * st..(o + l) * st])
        }))
    }
}

impl Serialize for Pool {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = ser.serialize_struct("PoolRepr", 7)?;
        s.serialize_field("slots", &self.slots)?;
        s.serialize_field("servers", &self.servers)?;
        s.serialize_field("resources", &self.resources)?;
        s.serialize_field("capacity", &self.capacity)?;
        s.serialize_field("series", &SeriesRef(self))?;
        s.serialize_field("upper", &self.upper)?;
        s.serialize_field("lower", &self.lower)?;
        s.end()
    }
}

impl<'de> Deserialize<'de> for Pool {
    fn deserialize<D: serde::Deserializer<'de>>(de: D) -> Result<Self, D::Error> {
        let r = PoolRepr::deserialize(de)?;
        let nr = r.resources as usize;
        let st = 2 * nr;
        let n = r.servers as usize;
        if r.series.len() != n
            || r.capacity.len() != n * nr
            || r.upper.len() != nr
            || r.series.iter().any(|(t, v)| v.len() != t.len() * st)
        {
            return Err(serde::de::Error::custom("oasis pool: inconsistent shape"));
        }
        let mut p = Pool {
            slots: r.slots,
            servers: r.servers,
            resources: r.resources,
            capacity: r.capacity,
            idle: Vec::new(),
            upper: r.upper,
            lower: r.lower,
            bt: Vec::new(),
            bv: Vec::new(),
            off: vec![0; n],
            len: vec![0; n],
            cap: vec![0; n],
            live: 0,
            class: Vec::new(),
            changes: SlotChanges::default(),
            books: Vec::new(),
            prices: vec![((u64::MAX, u64::MAX, u32::MAX), 0.0); 1 << PRICE_CACHE_BITS],
            census: Census::default(),
            grid: None,
            room: RoomLevels::default(),
        };
        p.idle = p.idle_prices();
        p.class = p.classes();
        p.census = Census::new(&p.capacity, nr, p.slots);
        for (s, (t, v)) in r.series.into_iter().enumerate() {
            p.off[s] = p.bt.len();
            p.len[s] = t.len() as u32;
            p.cap[s] = t.len() as u32;
            p.live += t.len();
            p.bt.extend_from_slice(&t);
            p.bv.extend_from_slice(&v);
        }
        // no slot trees: the scheduler that restores the market builds them with its own
        // room levels ([`Market::rebuild_grids_like`]); until then decisions sweep
        p.rebuild_changes();
        Ok(p)
    }
}

/// Field names of one pool in [`crate::snapshot::SnapshotError::Invalid`].
struct PoolFields {
    shape: &'static str,
    usage: &'static str,
    price: &'static str,
}

impl Pool {
    /// Every cell of slot `t` within its capacity (the float dust [`Self::check_restored`]
    /// allows): what an admitted schedule keeps.
    pub(crate) fn within_capacity(&self, t: u32) -> bool {
        (0..self.servers).all(|s| {
            (0..self.resources as usize).all(|r| {
                let c = self.capacity(s, r);
                self.usage(t, s, r) <= c.max(0.0) + 1e-6 * libm::fabs(c).max(1.0)
            })
        })
    }

    /// Checks a restored pool against `fresh` (the same pool as built from the scenario):
    /// same shape, capacities and bounds; breakpoint slots strictly increasing within 0..T;
    /// every usage finite, >= 0 and within capacity (float dust of 1e-6 relative allowed);
    /// every price exactly eq. (22) of its usage.
    fn check_restored(
        &self,
        fresh: &Pool,
        f: &PoolFields,
    ) -> Result<(), crate::snapshot::SnapshotError> {
        use crate::snapshot::{ensure, invalid_at};
        let same_shape = self.slots == fresh.slots
            && self.servers == fresh.servers
            && self.resources == fresh.resources
            && self.capacity == fresh.capacity
            && self.upper == fresh.upper
            && self.lower.to_bits() == fresh.lower.to_bits();
        ensure(same_shape, f.shape)?;
        let nr = self.resources as usize;
        let mut at = 0usize;
        for s in 0..self.servers {
            let ts = self.times(s);
            let ordered = ts.windows(2).all(|w| w[0] < w[1]) && ts.iter().all(|&t| t < self.slots);
            ensure(ordered, f.shape)?;
            for j in 0..ts.len() {
                let v = self.values(s, j);
                for r in 0..nr {
                    let (g, p) = (v[r], v[nr + r]);
                    let c = self.capacity(s, r);
                    let dust = 1e-6 * libm::fabs(c).max(1.0);
                    if !(g.is_finite() && g >= 0.0 && g <= c.max(0.0) + dust) {
                        return Err(invalid_at(f.usage, at));
                    }
                    let want = oasis_price(self.lower, self.upper.get(r), g, c);
                    if p.to_bits() != want.to_bits() {
                        return Err(invalid_at(f.price, at));
                    }
                    at += 1;
                }
            }
        }
        Ok(())
    }
}

impl Market {
    /// Checks a market restored from a snapshot against `fresh`, a market of the same scenario
    /// (only its shape, bounds and capacities are read: they never change after the build), in
    /// [`crate::snapshot`]: shape, bounds, capacities, usage and eq. (22) prices.
    pub fn check_restored(&self, fresh: &Market) -> Result<(), crate::snapshot::SnapshotError> {
        use crate::snapshot::ensure;
        ensure(
            self.slots == fresh.slots
                && self.resources == fresh.resources
                && self.bounds == fresh.bounds,
            "market.shape",
        )?;
        self.workers.check_restored(
            &fresh.workers,
            &PoolFields {
                shape: "market.workers.shape",
                usage: "market.workers.usage",
                price: "market.workers.price",
            },
        )?;
        self.ps.check_restored(
            &fresh.ps,
            &PoolFields {
                shape: "market.ps.shape",
                usage: "market.ps.usage",
                price: "market.ps.price",
            },
        )
    }
}
