//! A pool of servers with per-slot free capacity and round-robin placement of identical units
//! (the placement the OASiS paper's comparison uses for its baselines).
use crate::error::CapacityError;
use crate::resources::ResourceVec;
use alloc::vec::Vec;

/// Servers c_h^r, their free capacity this slot, and the round-robin pointer.
#[derive(Clone, Debug)]
pub(crate) struct Pool {
    cap: Vec<ResourceVec>,
    free: Vec<ResourceVec>,
    next: usize,
}

impl Pool {
    pub(crate) fn new(cap: &[ResourceVec]) -> Self {
        Pool {
            cap: cap.to_vec(),
            free: cap.to_vec(),
            next: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.cap.len()
    }

    /// Sets server `h`'s capacity in force (the open world, [`super::world`]); the next
    /// [`Pool::reset`] frees it.
    pub(crate) fn set_cap(&mut self, h: usize, c: ResourceVec) {
        if let Some(x) = self.cap.get_mut(h) {
            *x = c;
        }
    }

    /// Server `h`'s capacity in force.
    pub(crate) fn cap(&self, h: usize) -> Option<&ResourceVec> {
        self.cap.get(h)
    }

    /// How many units of `d` fit over all servers when every server is idle, capped at `want`.
    pub(crate) fn room_idle(&self, d: &ResourceVec, want: u32) -> u32 {
        let mut n: u32 = 0;
        for c in &self.cap {
            n = n.saturating_add(c.fits(d));
            if n >= want {
                return want;
            }
        }
        n
    }

    /// Sum of capacities over servers (the C^r of dominant shares).
    pub(crate) fn total(&self, resources: usize) -> Result<ResourceVec, CapacityError> {
        let mut t = ResourceVec::zeros(resources)?;
        for c in &self.cap {
            for (r, x) in t.as_mut_slice().iter_mut().enumerate() {
                *x += c.get(r);
            }
        }
        Ok(t)
    }

    /// Every server fully free again, pointer back to server 0 (so a slot's placement depends
    /// only on that slot's decisions).
    pub(crate) fn reset(&mut self) {
        self.free.copy_from_slice(&self.cap);
        self.next = 0;
    }

    /// Sets server `h`'s free capacity (used when usage comes from a ledger).
    pub(crate) fn set_free(&mut self, h: usize, free: ResourceVec) {
        if let Some(f) = self.free.get_mut(h) {
            *f = free;
        }
        self.next = 0;
    }

    /// How many units of `d` fit over all servers, capped at `want` (round-robin placement of
    /// identical units succeeds exactly when this reaches the count).
    pub(crate) fn room(&self, d: &ResourceVec, want: u32) -> u32 {
        let mut n: u32 = 0;
        for f in &self.free {
            n = n.saturating_add(f.fits(d));
            if n >= want {
                return want;
            }
        }
        n
    }

    /// Places one unit of `d` on the first server from the pointer where it fits.
    pub(crate) fn place(&mut self, d: &ResourceVec) -> Option<u32> {
        let n = self.free.len();
        for k in 0..n {
            let h = (self.next + k) % n;
            if self.free[h].fits(d) >= 1 {
                let f = self.free[h].as_mut_slice();
                for (r, x) in f.iter_mut().enumerate() {
                    *x -= d.get(r);
                }
                self.next = (h + 1) % n;
                return Some(h as u32);
            }
        }
        None
    }
}

impl Pool {
    /// Places one unit of `d` on the lowest-numbered server where it fits (first fit; Dorm's
    /// packing), leaving the round-robin pointer alone.
    pub(crate) fn place_first(&mut self, d: &ResourceVec) -> Option<u32> {
        let h = self.free.iter().position(|f| f.fits(d) >= 1)?;
        for (r, x) in self.free[h].as_mut_slice().iter_mut().enumerate() {
            *x -= d.get(r);
        }
        Some(h as u32)
    }

    /// How many units of `d` fit on server `h` now.
    pub(crate) fn fits_on(&self, h: usize, d: &ResourceVec) -> u32 {
        self.free.get(h).map_or(0, |f| f.fits(d))
    }

    /// Takes one unit of `d` on server `h` (the caller checked [`Pool::fits_on`]).
    pub(crate) fn take_on(&mut self, h: usize, d: &ResourceVec) {
        if let Some(f) = self.free.get_mut(h) {
            for (r, x) in f.as_mut_slice().iter_mut().enumerate() {
                *x -= d.get(r);
            }
        }
    }

    /// Gives one unit of `d` back to server `h` (undoing a [`Pool::place`]).
    pub(crate) fn unplace(&mut self, h: u32, d: &ResourceVec) {
        if let Some(f) = self.free.get_mut(h as usize) {
            for (r, x) in f.as_mut_slice().iter_mut().enumerate() {
                *x += d.get(r);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_and_room() {
        let c = [
            ResourceVec::from_slice(&[2.0]).unwrap(),
            ResourceVec::from_slice(&[1.0]).unwrap(),
        ];
        let mut p = Pool::new(&c);
        let d = ResourceVec::from_slice(&[1.0]).unwrap();
        assert_eq!(p.room(&d, 10), 3);
        assert_eq!(p.place(&d), Some(0));
        assert_eq!(p.place(&d), Some(1));
        assert_eq!(p.place(&d), Some(0));
        assert_eq!(p.place(&d), None);
        p.reset();
        assert_eq!(p.room(&d, 2), 2);
    }
}
