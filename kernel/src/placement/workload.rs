//! Load balancing pi_{i,k}: the proportional workload of eq. (12) (HAS, JPS, exact, LAS,
//! exhaustive, Optimus-LB) or the equal split of Optimus.

/// How a job's abs(Pi_i) samples are divided over its K_i workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Split {
    /// eq. (12): abs(pi_ik) = abs(Pi_i) rho_ik / V_i, so every worker finishes together.
    Proportional,
    /// abs(pi_ik) = abs(Pi_i) / K_i (Optimus, "equal-sized parts").
    Equal,
}

/// abs(pi_{i,k}) for one worker of job i: eq. (12) or the equal split. A job whose workers all
/// have rho = 0 (V_i = 0) is split equally (its JCT is infinite either way).
pub fn samples_for(split: Split, samples: f64, rho_ik: f64, v_i: f64, k_i: u32) -> f64 {
    match split {
        Split::Proportional if v_i > 0.0 => samples * rho_ik / v_i,
        _ => samples / f64::from(k_i.max(1)),
    }
}
