//! Binary particle swarm (Algorithm 1, eqs. 12-16) over bit positions p_i, driven by
//! [`SplitMix64`]. Storage is sized once ([`Swarm::new`]); [`Swarm::run`] allocates nothing.
//!
//! Per iteration k = 1..n: w_k = w_max - (w_max - w_min) k / n (eq. 13); for each particle i and
//! dimension d, v = w_k v + c1 r1 (pbest - p) + c2 r2 (gbest - p) (eq. 14), clamped to
//! |v| <= [`V_MAX`]; p = 1 if rand() < 1 / (1 + exp(-v)) else 0 (eqs. 15-16); then the particle
//! is evaluated and pbest / gbest are updated at once (Algorithm 1 updates gbest inside the
//! particle loop). Random draws per dimension, in order: r1, r2, rand(). Initial positions are
//! uniform bits and velocities uniform in [-V_MAX, V_MAX) (the paper is silent on both).
use super::cost::Fitness;
use super::{RouteError, V_MAX};
use crate::model::route::PsoParams;
use crate::rng::SplitMix64;
use alloc::vec::Vec;

/// Eq. (13): the inertia of iteration `r` of `n`.
pub fn inertia(p: &PsoParams, r: u32, n: u32) -> f64 {
    if n == 0 {
        return p.w_max;
    }
    p.w_max - (p.w_max - p.w_min) * (r as f64 / n as f64)
}

/// Eq. (15): s(v) = 1 / (1 + exp(-v)), via `libm`.
pub fn sigmoid(v: f64) -> f64 {
    1.0 / (1.0 + libm::exp(-v))
}

/// Eq. (14) for one dimension (`r` = (r1, r2)), clamped to |v| <= V_MAX.
pub fn velocity(w: f64, v: f64, p: &PsoParams, r: (f64, f64), x: u8, pb: u8, gb: u8) -> f64 {
    let (r1, r2) = r;
    let nv = w * v + p.c1 * r1 * (pb as f64 - x as f64) + p.c2 * r2 * (gb as f64 - x as f64);
    nv.clamp(-V_MAX, V_MAX)
}

/// A swarm of up to `particles` particles of up to `dims` bits.
#[derive(Clone, Debug)]
pub struct Swarm {
    cap_particles: usize,
    cap_dims: usize,
    x: Vec<u8>,
    v: Vec<f64>,
    pbest: Vec<u8>,
    pfit: Vec<Fitness>,
    gbest: Vec<u8>,
}

impl Swarm {
    /// Storage for `particles` x `dims`.
    pub fn new(particles: usize, dims: usize) -> Self {
        Swarm {
            cap_particles: particles,
            cap_dims: dims,
            x: alloc::vec![0; particles * dims],
            v: alloc::vec![0.0; particles * dims],
            pbest: alloc::vec![0; particles * dims],
            pfit: alloc::vec![Fitness::WORST; particles],
            gbest: alloc::vec![0; dims],
        }
    }

    /// The best position of the last run (`dims` bits).
    pub fn best(&self, dims: usize) -> &[u8] {
        self.gbest.get(..dims).unwrap_or(&[])
    }

    /// Runs Algorithm 1 with `p.particles` particles of `dims` bits, evaluating positions with
    /// `eval`; returns gbest's fitness (the position is [`Swarm::best`]).
    pub fn run<F: FnMut(&[u8]) -> Fitness>(
        &mut self,
        p: &PsoParams,
        dims: usize,
        rng: &mut SplitMix64,
        mut eval: F,
    ) -> Result<Fitness, RouteError> {
        let np = p.particles as usize;
        if np > self.cap_particles || dims > self.cap_dims || np == 0 {
            return Err(RouteError::Scratch);
        }
        let mut gfit = Fitness::WORST;
        for i in 0..np {
            let xi = &mut self.x[i * dims..(i + 1) * dims];
            let vi = &mut self.v[i * dims..(i + 1) * dims];
            for d in 0..dims {
                xi[d] = (rng.next_u64() >> 63) as u8;
                vi[d] = rng.range_f64(-V_MAX, V_MAX);
            }
            let f = eval(xi);
            self.pbest[i * dims..(i + 1) * dims].copy_from_slice(xi);
            self.pfit[i] = f;
            if i == 0 || f.better(&gfit) {
                gfit = f;
                self.gbest[..dims].copy_from_slice(xi);
            }
        }
        for k in 1..=p.iterations {
            let w = inertia(p, k, p.iterations);
            for i in 0..np {
                let r = i * dims..(i + 1) * dims;
                for d in 0..dims {
                    let j = i * dims + d;
                    let (r1, r2) = (rng.next_f64(), rng.next_f64());
                    let nv = velocity(
                        w,
                        self.v[j],
                        p,
                        (r1, r2),
                        self.x[j],
                        self.pbest[j],
                        self.gbest[d],
                    );
                    self.v[j] = nv;
                    self.x[j] = (rng.next_f64() < sigmoid(nv)) as u8;
                }
                let f = eval(&self.x[r.clone()]);
                if f.better(&self.pfit[i]) {
                    self.pfit[i] = f;
                    self.pbest[r.clone()].copy_from_slice(&self.x[r.clone()]);
                }
                if f.better(&gfit) {
                    gfit = f;
                    self.gbest[..dims].copy_from_slice(&self.x[r]);
                }
            }
        }
        Ok(gfit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inertia_is_linear() {
        let p = PsoParams::default();
        assert_eq!(inertia(&p, 0, 100), 0.9);
        assert!((inertia(&p, 50, 100) - 0.65).abs() < 1e-12);
        assert!((inertia(&p, 100, 100) - 0.4).abs() < 1e-12);
    }

    #[test]
    fn sigmoid_maps_to_probability() {
        assert_eq!(sigmoid(0.0), 0.5);
        assert!(sigmoid(4.0) > 0.98 && sigmoid(-4.0) < 0.02);
    }

    #[test]
    fn finds_the_all_ones_position() {
        // OneMax: fitness = number of zero bits; the swarm must reach all ones on 12 bits.
        let p = PsoParams::default();
        let mut s = Swarm::new(30, 12);
        let mut rng = SplitMix64::new(7);
        let f = s
            .run(&p, 12, &mut rng, |x| Fitness {
                infeasible: false,
                cost: x.iter().filter(|&&b| b == 0).count() as f64,
                f_part: 0.0,
                network: 0.0,
                start: 0,
            })
            .unwrap();
        assert_eq!(f.cost, 0.0);
        assert!(s.best(12).iter().all(|&b| b == 1));
    }
}
