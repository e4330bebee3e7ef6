//! The time-slotted usage ledger g_h^r(t): how much of resource r of server h is in use in
//! slot t, with capacity checks c_h^r on every reservation.
//!
//! Storage is handed in (`S: AsRef<[f64]> + AsMut<[f64]>`): a `Vec<f64>` with `alloc`, a
//! borrowed slice or an array without. A reservation is all-or-nothing over its slot range and
//! resources; a refusal is a typed [`LedgerError`] and leaves the ledger unchanged.
use crate::error::{LedgerError, Limit};
use crate::limits::{self, LEDGER_CELLS_MAX, RESOURCES_MAX, SERVERS_MAX, SLOTS_MAX};
use crate::resources::ResourceVec;

/// Usage g_h^r(t) over `slots` x `servers` x `resources`, with capacities c_h^r.
///
/// Serialisable for snapshots ([`crate::snapshot`]); deserialising re-checks every shape and
/// value, so a corrupted snapshot is a [`LedgerError`], never an out-of-range index later.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(
    try_from = "LedgerParts<S>",
    bound(deserialize = "S: serde::Deserialize<'de> + AsRef<[f64]> + AsMut<[f64]>")
)]
pub struct Ledger<S> {
    slots: u32,
    servers: u32,
    resources: u32,
    /// c_h^r, `servers * resources` entries (server-major).
    capacity: S,
    /// g_h^r(t), `slots * servers * resources` entries (slot-major, then server, then resource).
    usage: S,
}

/// The fields of a [`Ledger`] as read from a snapshot, before they are checked.
#[derive(serde::Deserialize)]
struct LedgerParts<S> {
    slots: u32,
    servers: u32,
    resources: u32,
    capacity: S,
    usage: S,
}

impl<S: AsRef<[f64]> + AsMut<[f64]>> TryFrom<LedgerParts<S>> for Ledger<S> {
    type Error = LedgerError;
    /// The checks of [`Ledger::new`], plus every usage cell finite and non-negative (kept, not
    /// zeroed).
    fn try_from(p: LedgerParts<S>) -> Result<Self, LedgerError> {
        let (slots, servers, resources) =
            (p.slots as usize, p.servers as usize, p.resources as usize);
        limits::check(Limit::Slots, slots, SLOTS_MAX)?;
        limits::check(Limit::Servers, servers, SERVERS_MAX)?;
        limits::check(Limit::Resources, resources, RESOURCES_MAX)?;
        let cells = slots * servers * resources;
        limits::check(Limit::LedgerCells, cells, LEDGER_CELLS_MAX)?;
        let (cap, usage) = (p.capacity.as_ref(), p.usage.as_ref());
        if cap.len() != servers * resources {
            return Err(LedgerError::StorageSize {
                needed: (servers * resources) as u64,
                given: cap.len() as u64,
            });
        }
        if usage.len() != cells {
            return Err(LedgerError::StorageSize {
                needed: cells as u64,
                given: usage.len() as u64,
            });
        }
        for (i, &c) in cap.iter().enumerate() {
            if !(c.is_finite() && c >= 0.0) {
                return Err(LedgerError::BadCapacity {
                    server: (i / resources) as u32,
                    resource: (i % resources) as u32,
                });
            }
        }
        for (i, &g) in usage.iter().enumerate() {
            if !(g.is_finite() && g >= 0.0) {
                return Err(LedgerError::BadAmount {
                    resource: (i % resources) as u32,
                });
            }
        }
        Ok(Ledger {
            slots: p.slots,
            servers: p.servers,
            resources: p.resources,
            capacity: p.capacity,
            usage: p.usage,
        })
    }
}

impl<S: AsRef<[f64]> + AsMut<[f64]>> Ledger<S> {
    /// Builds a ledger over `usage` (zeroed here) with capacities `capacity[h * R + r]`.
    pub fn new(
        slots: usize,
        servers: usize,
        resources: usize,
        capacity: S,
        mut usage: S,
    ) -> Result<Self, LedgerError> {
        limits::check(Limit::Slots, slots, SLOTS_MAX)?;
        limits::check(Limit::Servers, servers, SERVERS_MAX)?;
        limits::check(Limit::Resources, resources, RESOURCES_MAX)?;
        let cells = slots * servers * resources;
        limits::check(Limit::LedgerCells, cells, LEDGER_CELLS_MAX)?;
        if capacity.as_ref().len() != servers * resources {
            return Err(LedgerError::StorageSize {
                needed: (servers * resources) as u64,
                given: capacity.as_ref().len() as u64,
            });
        }
        if usage.as_ref().len() != cells {
            return Err(LedgerError::StorageSize {
                needed: cells as u64,
                given: usage.as_ref().len() as u64,
            });
        }
        for (i, &c) in capacity.as_ref().iter().enumerate() {
            if !(c.is_finite() && c >= 0.0) {
                return Err(LedgerError::BadCapacity {
                    server: (i / resources) as u32,
                    resource: (i % resources) as u32,
                });
            }
        }
        usage.as_mut().iter_mut().for_each(|g| *g = 0.0);
        Ok(Ledger {
            slots: slots as u32,
            servers: servers as u32,
            resources: resources as u32,
            capacity,
            usage,
        })
    }

    /// Number of slots T.
    pub fn slots(&self) -> u32 {
        self.slots
    }
    /// Number of servers H.
    pub fn servers(&self) -> u32 {
        self.servers
    }
    /// Number of resources R.
    pub fn resources(&self) -> u32 {
        self.resources
    }

    fn cell(&self, slot: u32, server: u32, resource: u32) -> Result<usize, LedgerError> {
        if slot >= self.slots || server >= self.servers || resource >= self.resources {
            return Err(LedgerError::OutOfRange {
                slot,
                server,
                resource,
            });
        }
        let r = self.resources as usize;
        Ok((slot as usize * self.servers as usize + server as usize) * r + resource as usize)
    }

    /// Capacity c_h^r.
    pub fn capacity(&self, server: u32, resource: u32) -> Result<f64, LedgerError> {
        if server >= self.servers || resource >= self.resources {
            return Err(LedgerError::OutOfRange {
                slot: 0,
                server,
                resource,
            });
        }
        Ok(self.capacity.as_ref()[(server * self.resources + resource) as usize])
    }

    /// Usage g_h^r(t).
    pub fn usage(&self, slot: u32, server: u32, resource: u32) -> Result<f64, LedgerError> {
        let i = self.cell(slot, server, resource)?;
        Ok(self.usage.as_ref()[i])
    }

    /// Free capacity c_h^r - g_h^r(t) of every resource of `server` in `slot`.
    pub fn free(&self, slot: u32, server: u32) -> Result<ResourceVec, LedgerError> {
        let mut out = ResourceVec::zeros(self.resources as usize)?;
        for r in 0..self.resources {
            let i = self.cell(slot, server, r)?;
            out.as_mut_slice()[r as usize] = self.capacity.as_ref()
                [(server * self.resources + r) as usize]
                - self.usage.as_ref()[i];
        }
        Ok(out)
    }

    fn check_amount(&self, amount: &ResourceVec) -> Result<(), LedgerError> {
        for r in 0..self.resources as usize {
            let a = amount.get(r);
            if !(a.is_finite() && a >= 0.0) {
                return Err(LedgerError::BadAmount { resource: r as u32 });
            }
        }
        Ok(())
    }

    /// Adds `count` x `amount` to server `server` for every slot in `from..to`, or refuses with
    /// [`LedgerError::OverCapacity`] (naming the first violated cell) and changes nothing.
    pub fn reserve(
        &mut self,
        from: u32,
        to: u32,
        server: u32,
        amount: &ResourceVec,
        count: u32,
    ) -> Result<(), LedgerError> {
        self.check_amount(amount)?;
        for t in from..to {
            for r in 0..self.resources {
                let i = self.cell(t, server, r)?;
                let cap = self.capacity.as_ref()[(server * self.resources + r) as usize];
                let add = amount.get(r as usize) * count as f64;
                let would = self.usage.as_ref()[i] + add;
                // Tolerance 1e-9 relative so that sums of exact fits are not refused by rounding.
                if add > 0.0 && would > cap + 1e-9 * if cap > 1.0 { cap } else { 1.0 } {
                    return Err(LedgerError::OverCapacity {
                        slot: t,
                        server,
                        resource: r,
                        would_use: would,
                        capacity: cap,
                    });
                }
            }
        }
        for t in from..to {
            for r in 0..self.resources {
                let i = self.cell(t, server, r)?;
                self.usage.as_mut()[i] += amount.get(r as usize) * count as f64;
            }
        }
        debug_assert!(
            self.within_capacity(from, to, server, amount, count),
            "ledger: a reservation pushed usage above capacity"
        );
        Ok(())
    }

    /// Every cell of `server` over `from..to` that `count` x `amount` raised is within its
    /// capacity (up to the tolerance of [`Self::reserve`]): the invariant a successful
    /// reservation keeps.
    fn within_capacity(
        &self,
        from: u32,
        to: u32,
        server: u32,
        amount: &ResourceVec,
        count: u32,
    ) -> bool {
        (from..to).all(|t| {
            (0..self.resources).all(|r| {
                let Ok(i) = self.cell(t, server, r) else {
                    return false;
                };
                let cap = self.capacity.as_ref()[(server * self.resources + r) as usize];
                amount.get(r as usize) * count as f64 <= 0.0
                    || self.usage.as_ref()[i] <= cap + 2e-9 * if cap > 1.0 { cap } else { 1.0 }
            })
        })
    }

    /// Removes `count` x `amount` from `server` over `from..to`, refusing with
    /// [`LedgerError::ReleaseUnderflow`] (and changing nothing) if that exceeds the usage.
    pub fn release(
        &mut self,
        from: u32,
        to: u32,
        server: u32,
        amount: &ResourceVec,
        count: u32,
    ) -> Result<(), LedgerError> {
        self.check_amount(amount)?;
        for t in from..to {
            for r in 0..self.resources {
                let i = self.cell(t, server, r)?;
                let sub = amount.get(r as usize) * count as f64;
                let g = self.usage.as_ref()[i];
                if sub > g + 1e-9 * if g > 1.0 { g } else { 1.0 } {
                    return Err(LedgerError::ReleaseUnderflow {
                        slot: t,
                        server,
                        resource: r,
                    });
                }
            }
        }
        for t in from..to {
            for r in 0..self.resources {
                let i = self.cell(t, server, r)?;
                let g = &mut self.usage.as_mut()[i];
                *g -= amount.get(r as usize) * count as f64;
                if *g < 0.0 {
                    *g = 0.0; // absorb rounding residue of exact releases only (checked above)
                }
            }
        }
        Ok(())
    }

    /// Raw usage cells (slot-major, then server, then resource): for snapshots and heatmaps.
    pub fn usage_cells(&self) -> &[f64] {
        self.usage.as_ref()
    }
}

#[cfg(feature = "alloc")]
impl Ledger<alloc::vec::Vec<f64>> {
    /// A ledger owning its storage, allocated once here.
    pub fn with_capacities(slots: usize, capacities: &[ResourceVec]) -> Result<Self, LedgerError> {
        let resources = capacities.first().map_or(0, |c| c.len());
        let servers = capacities.len();
        limits::check(Limit::Servers, servers, SERVERS_MAX)?;
        limits::check(Limit::Slots, slots, SLOTS_MAX)?;
        limits::check(Limit::Resources, resources, RESOURCES_MAX)?;
        limits::check(
            Limit::LedgerCells,
            slots * servers * resources,
            LEDGER_CELLS_MAX,
        )?;
        let mut cap = alloc::vec::Vec::with_capacity(servers * resources);
        for c in capacities {
            for r in 0..resources {
                cap.push(c.get(r));
            }
        }
        let usage = alloc::vec![0.0; slots * servers * resources];
        Self::new(slots, servers, resources, cap, usage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn reserve_release_roundtrip_on_array_storage() {
        let mut cap = [4.0, 10.0];
        let mut usage = [0.0; 3 * 2];
        let mut l = Ledger::new(3, 1, 2, &mut cap[..], &mut usage[..]).unwrap();
        let d = ResourceVec::from_slice(&[1.0, 3.0]).unwrap();
        l.reserve(0, 2, 0, &d, 3).unwrap();
        assert_eq!(l.usage(1, 0, 1).unwrap(), 9.0);
        let e = l.reserve(1, 3, 0, &d, 1).unwrap_err();
        assert!(matches!(
            e,
            LedgerError::OverCapacity {
                slot: 1,
                resource: 1,
                ..
            }
        ));
        assert_eq!(
            l.usage(2, 0, 0).unwrap(),
            0.0,
            "refused reservation changed nothing"
        );
        l.release(0, 2, 0, &d, 3).unwrap();
        assert!(matches!(
            l.release(0, 1, 0, &d, 1),
            Err(LedgerError::ReleaseUnderflow { .. })
        ));
    }
}
