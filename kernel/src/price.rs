//! Exponential resource prices shared by OASiS (eq. 22) and Zhou et al. (eq. 11).
//!
//! OASiS: p_h^r(t) = L (U^r / L)^(g_h^r(t) / c_h^r): L when idle, U^r when full.
//! Zhou et al.: delta_h^r(t) = lambda^(beta_h^r(t) / C_h^r) - 1: 0 when idle, lambda - 1 when full.
//! Both through `libm::pow`, so every target prices alike.

/// OASiS price p = L (U / L)^(used / capacity) (eq. 22). A zero capacity prices at U.
/// When U / L overflows f64 (a derived L can be astronomically small, eq. 25 with time-critical
/// sigmoid utilities) the same value is taken in the log domain: exp(ln L + x (ln U - ln L)).
pub fn oasis_price(lower: f64, upper: f64, used: f64, capacity: f64) -> f64 {
    let x = if capacity > 0.0 { used / capacity } else { 1.0 };
    let ratio = upper / lower;
    if ratio.is_finite() {
        lower * libm::pow(ratio, x)
    } else {
        libm::exp(libm::log(lower) + x * (libm::log(upper) - libm::log(lower)))
    }
}

/// Zhou et al. price delta = lambda^(used / capacity) - 1 (eq. 11). A zero capacity prices at lambda - 1.
pub fn zhou_price(lambda: f64, used: f64, capacity: f64) -> f64 {
    let x = if capacity > 0.0 { used / capacity } else { 1.0 };
    libm::pow(lambda, x) - 1.0
}

/// Why the OASiS price bounds could not be derived from the job list (eqs. 23-26).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundsError {
    /// No job has a positive utility at the horizon f_i(T - 1 - a_i) together with a positive
    /// worker demand, so L1 (eq. 25) would be 0 and eq. (22) undefined.
    NoWorkerFloor,
    /// Same for L2 (eq. 26) with the parameter-server demands s_i^r.
    NoPsFloor,
}

impl core::fmt::Display for BoundsError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (which, eq) = match self {
            BoundsError::NoWorkerFloor => ("L1", "25"),
            BoundsError::NoPsFloor => ("L2", "26"),
        };
        write!(
            f,
            "cannot derive {which} by eq. ({eq}): no job has a positive utility at the horizon and a \
             positive demand; give \"prices\" in the scenario"
        )
    }
}

/// The smallest derived price floor L1 / L2: eq. (25)/(26) values below it are raised to it.
pub const OASIS_FLOOR_MIN: f64 = 1e-290;

/// Price bounds U1^r, U2^r, L1, L2 of eq. (22) derived from the whole job list by eqs. (23)-(26)
/// (an offline-knowledge estimate), with eta1 / eta2 the smallest valid scaling factors >= 1.
///
/// Readings (`docs/oasis.md`, `docs/online.md`): f takes a duration, so
/// U1^r = max_i f_i(ceil(E_i m_i) - 1) / w_i^r over jobs with w_i^r > 0 (m_i = M_i (tau_i + 2 e_i/b_i));
/// L1 = min_i f_i(T - 1 - a_i) / (4 eta1 ceil(E_i N_i m_i) sum_r w_i^r) over jobs with a positive
/// numerator and denominator; eta1 = max(1, max_i T sum_h sum_r c_h^r / (ceil(E_i N_i m_i) sum_r w_i^r)).
/// Likewise U2, L2, eta2 with s_i^r and the PS servers. A resource no job demands gets U = L (a
/// flat price: it never enters a cost), and every U is raised to at least L. L is raised to
/// [`OASIS_FLOOR_MIN`] if eq. (25)/(26) gives less (most generated scenarios: `docs/oasis.md`).
#[cfg(feature = "alloc")]
pub fn oasis_bounds(
    scn: &crate::model::oasis::OasisScenario,
) -> Result<crate::model::oasis::PriceBounds, BoundsError> {
    use crate::model::oasis::PriceBounds;
    let r = scn.resources as usize;
    let side = |worker: bool| -> Option<(crate::ResourceVec, f64)> {
        let caps = if worker {
            &scn.worker_servers
        } else {
            &scn.ps_servers
        };
        let total_cap: f64 = caps.iter().map(|c| c.sum()).sum();
        let t = scn.slots as f64;
        let mut eta = 1.0f64;
        let mut floor = f64::INFINITY;
        // Empty vectors are impossible here: R was validated against RESOURCES_MAX.
        let mut upper = crate::ResourceVec::zeros(r).ok()?;
        for j in &scn.jobs {
            let dem = if worker {
                &j.worker_demand
            } else {
                &j.ps_demand
            };
            let m = j.chunk_time();
            let fastest = crate::num::ceil_eps(j.epochs as f64 * m);
            let f_best = j.utility.at(if fastest >= 1.0 {
                fastest as u32 - 1
            } else {
                0
            });
            for (k, u) in upper.as_mut_slice().iter_mut().enumerate() {
                let d = dem.get(k);
                if d > 0.0 && f_best / d > *u {
                    *u = f_best / d;
                }
            }
            let work = crate::num::ceil_eps(j.workload() as f64 * m) * dem.sum();
            if work > 0.0 {
                if t * total_cap / work > eta {
                    eta = t * total_cap / work;
                }
                let duration = scn.slots.saturating_sub(1 + j.arrival);
                if let Some(term) = floor_term(&j.utility, duration, work) {
                    if term < floor {
                        floor = term;
                    }
                }
            }
        }
        if !floor.is_finite() {
            return None;
        }
        // Eq. (25) as written, kept out of subnormal floats: with time-critical sigmoid
        // utilities f_i(T - 1 - a_i) can be ~1e-300, and subnormal prices are both imprecise
        // (every price rounds to 0) and ~100x slower to compute on common CPUs.
        let low = (floor / (4.0 * eta)).max(OASIS_FLOOR_MIN);
        for u in upper.as_mut_slice() {
            if *u < low {
                *u = low;
            }
        }
        Some((upper, low))
    };
    let (u_worker, l_worker) = side(true).ok_or(BoundsError::NoWorkerFloor)?;
    let (u_ps, l_ps) = side(false).ok_or(BoundsError::NoPsFloor)?;
    Ok(PriceBounds {
        u_worker,
        u_ps,
        l_worker,
        l_ps,
    })
}

/// alpha = max_r(1, ln(U1^r / L1), ln(U2^r / L2)) of Theorem 4 (OASiS is 2 alpha-competitive).
#[cfg(feature = "alloc")]
pub fn oasis_alpha(b: &crate::model::oasis::PriceBounds) -> f64 {
    let mut a = 1.0f64;
    for &u in b.u_worker.as_slice() {
        a = a.max(libm::log(u / b.l_worker));
    }
    for &u in b.u_ps.as_slice() {
        a = a.max(libm::log(u / b.l_ps));
    }
    a
}

/// f_i(T - 1 - a_i) / W_i, one job's term of eq. (25)/(26)'s minimum, or `None` when the job
/// has no positive value at the horizon (a table utility of 0 leaves the minimum).
///
/// A sigmoid with priority > 0 is positive at every duration, so when it evaluates below
/// `f64::MIN_POSITIVE` its `exp` overflowed (or nearly): the true term is far below
/// [`OASIS_FLOOR_MIN`] and counts as 0, putting L at the floor (issue 45), instead of silently
/// leaving the minimum as an exact 0 would.
#[cfg(feature = "alloc")]
fn floor_term(utility: &crate::model::oasis::Utility, duration: u32, work: f64) -> Option<f64> {
    let f = utility.at(duration);
    if let crate::model::oasis::Utility::Sigmoid { priority, .. } = utility {
        if *priority > 0.0 && (f < f64::MIN_POSITIVE || f / work == 0.0) {
            return Some(0.0);
        }
    }
    if f > 0.0 {
        Some(f / work)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn endpoints() {
        assert_eq!(oasis_price(0.1, 60.0, 0.0, 4.0), 0.1);
        assert!((oasis_price(0.1, 60.0, 4.0, 4.0) - 60.0).abs() < 1e-12);
        assert_eq!(zhou_price(101.0, 0.0, 8.0), 0.0);
        assert!((zhou_price(101.0, 8.0, 8.0) - 100.0).abs() < 1e-12);
    }

    #[test]
    fn oasis_price_is_monotone_in_usage() {
        let mut last = 0.0;
        for g in 0..=40 {
            let p = oasis_price(0.05, 30.0, g as f64 * 0.1, 4.0);
            assert!(p >= last && p >= 0.05);
            last = p;
        }
    }
}
