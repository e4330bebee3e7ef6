//! A rolling usage ledger: g_h^r(t) from the reservations still running at t, for schedulers
//! that only ever reserve from the current slot on and only ask about the current slot (the
//! online baselines). Memory follows the reservations running at once, not T x H x R: a
//! whole-trace horizon of 28,672 slots on 1,213 servers costs what its running jobs cost.
//!
//! Exactness: a dense cell g_h^r(t) is 0.0 plus each reservation covering t, in reservation
//! order. [`RollingLedger::usage_at`] sums the same terms in the same order from 0.0, so every
//! usage, free capacity and capacity verdict has the bits [`crate::ledger::Ledger`] gives.
use crate::error::{LedgerError, Limit};
use crate::limits::{self, RESOURCES_MAX, SERVERS_MAX, SLOTS_MAX};
use crate::resources::ResourceVec;
use alloc::vec::Vec;

/// One reservation still running: `count` x `amount` on its server over `[from, to)`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Held {
    from: u32,
    to: u32,
    amount: ResourceVec,
    count: u32,
}

/// Usage g_h^r(t) over `slots` x `servers` x `resources` as running reservations per server,
/// with capacities c_h^r. Queries and reservations must not go back before the latest slot a
/// reservation started at (checked: [`LedgerError::OutOfRange`]).
#[derive(Clone, Debug)]
pub struct RollingLedger {
    slots: u32,
    resources: u32,
    /// c_h^r per server.
    capacity: Vec<ResourceVec>,
    /// Per server, the reservations not yet ended at `now`, in reservation order.
    held: Vec<Vec<Held>>,
    /// The latest slot a reservation started at: nothing before it is kept.
    now: u32,
}

impl RollingLedger {
    /// A ledger over `slots` slots with capacities `capacities[h]`. `instances[h]` (when
    /// given) bounds how many reservations can run on server h at once (each holds at least
    /// one instance); every server's list is reserved to that size here, so reservations
    /// within it never allocate.
    pub fn new(
        slots: usize,
        capacities: &[ResourceVec],
        instances: &[usize],
    ) -> Result<Self, LedgerError> {
        let resources = capacities.first().map_or(0, |c| c.len());
        limits::check(Limit::Servers, capacities.len(), SERVERS_MAX)?;
        limits::check(Limit::Slots, slots, SLOTS_MAX)?;
        limits::check(Limit::Resources, resources, RESOURCES_MAX)?;
        for (h, c) in capacities.iter().enumerate() {
            for r in 0..resources {
                let x = if r < c.len() { c.get(r) } else { f64::NAN };
                if !(x.is_finite() && x >= 0.0) {
                    return Err(LedgerError::BadCapacity {
                        server: h as u32,
                        resource: r as u32,
                    });
                }
            }
        }
        let held = (0..capacities.len())
            .map(|h| Vec::with_capacity(instances.get(h).copied().unwrap_or(4).clamp(1, 4096)))
            .collect();
        Ok(RollingLedger {
            slots: slots as u32,
            resources: resources as u32,
            capacity: capacities.to_vec(),
            held,
            now: 0,
        })
    }

    /// Number of slots T.
    pub fn slots(&self) -> u32 {
        self.slots
    }

    /// Reservations running or still to run, over all servers (the memory measure).
    pub fn held(&self) -> usize {
        self.held.iter().map(Vec::len).sum()
    }

    fn check(&self, slot: u32, server: u32) -> Result<(), LedgerError> {
        if slot >= self.slots || server as usize >= self.capacity.len() || slot < self.now {
            return Err(LedgerError::OutOfRange {
                slot,
                server,
                resource: 0,
            });
        }
        Ok(())
    }

    /// g_h^r(t): 0.0 plus every reservation covering t, in reservation order.
    fn usage_at(&self, t: u32, h: usize, r: usize) -> f64 {
        let mut g = 0.0;
        for x in &self.held[h] {
            if x.from <= t && t < x.to {
                g += x.amount.get(r) * x.count as f64;
            }
        }
        g
    }

    /// Usage g_h^r(t).
    pub fn usage(&self, slot: u32, server: u32, resource: u32) -> Result<f64, LedgerError> {
        self.check(slot, server)?;
        if resource >= self.resources {
            return Err(LedgerError::OutOfRange {
                slot,
                server,
                resource,
            });
        }
        Ok(self.usage_at(slot, server as usize, resource as usize))
    }

    /// Sets `server`'s capacity c_h^r from now on (an open-world capacity change or failure,
    /// `crate::world`); held reservations stay (the caller cuts the ones that no longer fit).
    pub fn set_capacity(&mut self, server: u32, capacity: &ResourceVec) {
        if let Some(c) = self.capacity.get_mut(server as usize) {
            *c = *capacity;
        }
    }

    /// Free capacity c_h^r - g_h^r(t) of every resource of `server` in `slot`.
    pub fn free(&self, slot: u32, server: u32) -> Result<ResourceVec, LedgerError> {
        self.check(slot, server)?;
        let h = server as usize;
        let mut out = ResourceVec::zeros(self.resources as usize)?;
        for r in 0..self.resources as usize {
            out.as_mut_slice()[r] = self.capacity[h].get(r) - self.usage_at(slot, h, r);
        }
        Ok(out)
    }

    /// Adds `count` x `amount` to `server` over `from..to`, or refuses with
    /// [`LedgerError::OverCapacity`] naming the first violated cell (slot order, then
    /// resource) and changes nothing — the verdicts of [`crate::ledger::Ledger::reserve`].
    /// Reservations that ended before `from` are dropped first (time only moves on).
    pub fn reserve(
        &mut self,
        from: u32,
        to: u32,
        server: u32,
        amount: &ResourceVec,
        count: u32,
    ) -> Result<(), LedgerError> {
        for r in 0..self.resources as usize {
            let a = amount.get(r);
            if !(a.is_finite() && a >= 0.0) {
                return Err(LedgerError::BadAmount { resource: r as u32 });
            }
        }
        if from >= to {
            return Ok(());
        }
        self.check(from, server)?;
        if to > self.slots {
            // The dense ledger refuses at the first slot past the horizon (after checking the
            // slots before it, as below).
            self.check_range(from, self.slots, server, amount, count)?;
            return Err(LedgerError::OutOfRange {
                slot: self.slots,
                server,
                resource: 0,
            });
        }
        self.check_range(from, to, server, amount, count)?;
        self.now = self.now.max(from);
        let now = self.now;
        let h = server as usize;
        self.held[h].retain(|x| x.to > now);
        self.held[h].push(Held {
            from,
            to,
            amount: *amount,
            count,
        });
        Ok(())
    }

    /// Ends at `at` a reservation still running there, made by [`Self::reserve`] with exactly
    /// `from`, `to`, `server`, `amount` and `count` (a preempted run: its units are free from
    /// `at` on). Identical reservations are interchangeable, so the first in reservation order
    /// is the one. [`LedgerError::ReleaseUnderflow`] if none is held or `at` is not inside
    /// `from..to`.
    pub fn cut(
        &mut self,
        at: u32,
        server: u32,
        (from, to): (u32, u32),
        amount: &ResourceVec,
        count: u32,
    ) -> Result<(), LedgerError> {
        let missing = LedgerError::ReleaseUnderflow {
            slot: at,
            server,
            resource: 0,
        };
        if !(from <= at && at < to) || at < self.now {
            return Err(missing);
        }
        let held = self.held.get_mut(server as usize).ok_or(missing)?;
        let x = held
            .iter_mut()
            .find(|x| x.from == from && x.to == to && x.count == count && x.amount == *amount)
            .ok_or(missing)?;
        x.to = at;
        Ok(())
    }

    /// The capacity check of `count` x `amount` over `from..to` (to <= T): usage changes only
    /// where a held reservation starts or ends, so one check per such segment gives the dense
    /// verdict of every slot in it.
    fn check_range(
        &self,
        from: u32,
        to: u32,
        server: u32,
        amount: &ResourceVec,
        count: u32,
    ) -> Result<(), LedgerError> {
        let h = server as usize;
        let mut t = from;
        while t < to {
            for r in 0..self.resources as usize {
                let cap = self.capacity[h].get(r);
                let add = amount.get(r) * count as f64;
                let would = self.usage_at(t, h, r) + add;
                // The dense ledger's tolerance: sums of exact fits are not refused by rounding.
                if add > 0.0 && would > cap + 1e-9 * if cap > 1.0 { cap } else { 1.0 } {
                    return Err(LedgerError::OverCapacity {
                        slot: t,
                        server,
                        resource: r as u32,
                        would_use: would,
                        capacity: cap,
                    });
                }
            }
            // The next slot at which a held reservation starts or ends.
            let next = self.held[h]
                .iter()
                .flat_map(|x| [x.from, x.to])
                .filter(|&b| b > t)
                .min()
                .unwrap_or(to);
            t = next.min(to);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::Ledger;

    /// Random reservations from a moving "now": every free vector and every verdict has the
    /// dense ledger's bits.
    #[test]
    fn agrees_with_the_dense_ledger_bit_for_bit() {
        let caps = [
            ResourceVec::from_slice(&[8.0, 96.0]).unwrap(),
            ResourceVec::from_slice(&[4.0, 32.5]).unwrap(),
        ];
        let mut rng = crate::rng::SplitMix64::new(7);
        for _case in 0..200 {
            let mut dense = Ledger::with_capacities(40, &caps).unwrap();
            let mut roll = RollingLedger::new(40, &caps, &[2, 2]).unwrap();
            let mut now = 0u32;
            for _ in 0..30 {
                now = (now + rng.below(3) as u32).min(39);
                let h = rng.below(2) as u32;
                let to = now + 1 + rng.below(12) as u32;
                let a =
                    ResourceVec::from_slice(&[rng.below(4) as f64 * 0.7, rng.range_f64(0.0, 20.0)])
                        .unwrap();
                let c = 1 + rng.below(3) as u32;
                let d = dense.reserve(now, to, h, &a, c);
                let s = roll.reserve(now, to, h, &a, c);
                assert_eq!(d, s);
                for hh in 0..2 {
                    let (x, y) = (dense.free(now, hh).unwrap(), roll.free(now, hh).unwrap());
                    for r in 0..2 {
                        assert_eq!(x.get(r).to_bits(), y.get(r).to_bits());
                    }
                }
            }
        }
    }

    /// A cut reservation frees its units from the cut on, and only a held one can be cut.
    #[test]
    fn cut_frees_from_the_cut_on() {
        let caps = [ResourceVec::from_slice(&[4.0]).unwrap()];
        let mut roll = RollingLedger::new(20, &caps, &[4]).unwrap();
        let a = ResourceVec::from_slice(&[1.0]).unwrap();
        roll.reserve(2, 10, 0, &a, 3).unwrap();
        assert!(roll.reserve(5, 8, 0, &a, 2).is_err());
        roll.cut(5, 0, (2, 10), &a, 3).unwrap();
        assert_eq!(roll.free(5, 0).unwrap().get(0), 4.0);
        roll.reserve(5, 8, 0, &a, 4).unwrap();
        // Already cut (its end is now 5): no reservation over 2..10 is held any more.
        assert!(roll.cut(6, 0, (2, 10), &a, 3).is_err());
        assert!(roll.cut(9, 0, (5, 8), &a, 4).is_err(), "past its end");
    }
}
