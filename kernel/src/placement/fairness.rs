//! Jain's fairness degree F of eq. (33) with Lambda_i^\[e\] of eq. (32) read per job.
use super::Instance;

/// F = (sum_i x_i)^2 / (S sum_i x_i^2) with x_i = Lambda_i / Lambda_i^\[e\] (eq. 33). Ranges over
/// [1/S, 1]. When m of the x_i are infinite (a job without throughput) F is the limit m / S
/// (those terms dominate equally).
pub fn jain(inst: &Instance, jct: &[f64]) -> f64 {
    let s = inst.s as f64;
    let (mut sum, mut sq, mut inf) = (0.0, 0.0, 0u32);
    for (i, &l) in jct.iter().enumerate() {
        let x = l / inst.equal_jct[i];
        if !x.is_finite() {
            inf += 1;
            continue;
        }
        sum += x;
        sq += x * x;
    }
    if inf > 0 {
        return f64::from(inf) / s;
    }
    if sq <= 0.0 {
        return 1.0;
    }
    sum * sum / (s * sq)
}
