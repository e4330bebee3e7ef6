//! Exponential resource prices shared by OASiS (eq. 22) and Zhou et al. (eq. 11).
//!
//! OASiS: p_h^r(t) = L (U^r / L)^(g_h^r(t) / c_h^r): L when idle, U^r when full.
//! Zhou et al.: delta_h^r(t) = lambda^(beta_h^r(t) / C_h^r) - 1: 0 when idle, lambda - 1 when full.
//! Both through `libm::pow`, so every target prices alike.

/// OASiS price p = L (U / L)^(used / capacity) (eq. 22). A zero capacity prices at U.
pub fn oasis_price(lower: f64, upper: f64, used: f64, capacity: f64) -> f64 {
    let x = if capacity > 0.0 { used / capacity } else { 1.0 };
    lower * libm::pow(upper / lower, x)
}

/// Zhou et al. price delta = lambda^(used / capacity) - 1 (eq. 11). A zero capacity prices at lambda - 1.
pub fn zhou_price(lambda: f64, used: f64, capacity: f64) -> f64 {
    let x = if capacity > 0.0 { used / capacity } else { 1.0 };
    libm::pow(lambda, x) - 1.0
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
}
