//! Resource vectors: one f64 per resource type r (GPU, CPU, memory, bandwidth, ...).
use crate::error::{CapacityError, Limit};
use crate::limits::RESOURCES_MAX;
use serde::{Deserialize, Serialize};

/// A fixed-capacity vector of R <= [`RESOURCES_MAX`] amounts (a demand w_i^r or a capacity c_h^r).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResourceVec {
    len: u8,
    v: [f64; RESOURCES_MAX],
}

impl ResourceVec {
    /// A zero vector over `len` resources.
    pub fn zeros(len: usize) -> Result<Self, CapacityError> {
        crate::limits::check(Limit::Resources, len, RESOURCES_MAX)?;
        Ok(ResourceVec {
            len: len as u8,
            v: [0.0; RESOURCES_MAX],
        })
    }

    /// Copies `values` (one per resource).
    pub fn from_slice(values: &[f64]) -> Result<Self, CapacityError> {
        let mut out = Self::zeros(values.len())?;
        out.v[..values.len()].copy_from_slice(values);
        Ok(out)
    }

    /// Number of resources R.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when R = 0.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The amounts, one per resource.
    pub fn as_slice(&self) -> &[f64] {
        &self.v[..self.len as usize]
    }

    /// Mutable amounts.
    pub fn as_mut_slice(&mut self) -> &mut [f64] {
        &mut self.v[..self.len as usize]
    }

    /// Amount of resource `r` (0 outside the vector).
    pub fn get(&self, r: usize) -> f64 {
        if r < self.len as usize {
            self.v[r]
        } else {
            0.0
        }
    }

    /// sum_r self^r * other^r, summed in index order (part of the determinism contract).
    pub fn dot(&self, other: &ResourceVec) -> f64 {
        let mut s = 0.0;
        for r in 0..self.len() {
            s += self.v[r] * other.get(r);
        }
        s
    }

    /// sum_r self^r in index order.
    pub fn sum(&self) -> f64 {
        let mut s = 0.0;
        for r in 0..self.len() {
            s += self.v[r];
        }
        s
    }

    /// How many copies of `demand` fit into `self` (a free-capacity vector): min over resources
    /// with positive demand of floor(free / demand) (floor taken of x + 1e-9, see [`crate::num`]).
    /// Resources with zero demand do not bind; a zero demand vector fits `u32::MAX` times.
    pub fn fits(&self, demand: &ResourceVec) -> u32 {
        let mut best = u32::MAX;
        for r in 0..self.len() {
            let d = demand.get(r);
            if d > 0.0 {
                let k = crate::num::floor_eps(self.v[r] / d);
                let k = if k <= 0.0 {
                    0
                } else if k >= u32::MAX as f64 {
                    u32::MAX
                } else {
                    k as u32
                };
                if k < best {
                    best = k;
                }
            }
        }
        best
    }
}
