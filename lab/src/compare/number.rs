//! How compare writes numbers for people: CSV cells, table cells and the HTML report.
//!
//! The JSON files (`compare.json`, `sweep.json`, the result documents) keep every `f64` exactly;
//! their bytes are part of the contract. A *derived* metric, though, such as a mean of JCTs or a
//! sum of decimal utilities, carries binary rounding noise (`0.1 + 0.2 = 0.30000000000000004`,
//! `0.08399999999999999`) that says nothing about the schedule. So CSV and tables write a value
//! rounded to [`SIGNIFICANT`] significant digits and then printed as the shortest decimal that
//! reads back as that rounded value: `0.084`, `250000000`, `12.5`. Twelve digits are far more
//! than any metric here means and far fewer than the ~16 where `f64` noise starts.

/// Significant digits kept in CSV and table cells.
pub const SIGNIFICANT: usize = 12;

/// `x` rounded to [`SIGNIFICANT`] significant digits (non-finite values unchanged).
pub fn round_sig(x: f64) -> f64 {
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    // `{:.11e}` rounds correctly to 12 significant digits; parsing gives the nearest f64.
    format!("{:.*e}", SIGNIFICANT - 1, x)
        .parse::<f64>()
        .unwrap_or(x)
}

/// A CSV cell: [`round_sig`], then the shortest round-trip decimal (no exponent, no `.0` on
/// whole numbers); `-0` is written `0`.
pub fn csv(x: f64) -> String {
    let r = round_sig(x);
    if r == 0.0 {
        return "0".into();
    }
    r.to_string()
}

/// An optional CSV cell: empty when absent.
pub fn csv_opt(x: Option<f64>) -> String {
    x.map_or(String::new(), csv)
}

/// A table cell: `decimals` places for numbers below 1e6 in magnitude; larger ones in
/// engineering-style exponent form (`2.5e8`) so that columns stay narrow.
pub fn cell(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x.abs() >= 1e6 {
        let s = format!("{:.3e}", round_sig(x));
        return trim_mantissa(&s);
    }
    format!("{:.*}", decimals, x)
}

/// An axis tick label: at most 4 significant digits, exponent form outside 1e-3..1e5.
pub fn tick(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x == 0.0 { "0".into() } else { x.to_string() };
    }
    let a = x.abs();
    if !(1e-3..1e5).contains(&a) {
        return trim_mantissa(&format!("{:.2e}", x));
    }
    let r: f64 = format!("{:.3e}", x).parse().unwrap_or(x);
    r.to_string()
}

/// `2.500e8` -> `2.5e8`.
fn trim_mantissa(s: &str) -> String {
    match s.split_once('e') {
        Some((m, e)) if m.contains('.') => {
            let m = m.trim_end_matches('0').trim_end_matches('.');
            format!("{m}e{e}")
        }
        _ => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_float_noise() {
        assert_eq!(csv(0.08399999999999999), "0.084");
        assert_eq!(csv(0.1 + 0.2), "0.3");
        assert_eq!(csv(250_000_000.0), "250000000");
        assert_eq!(csv(12.5), "12.5");
        assert_eq!(csv(-0.0), "0");
        assert_eq!(csv(1.0 / 3.0), "0.333333333333");
        assert_eq!(csv_opt(None), "");
    }

    #[test]
    fn cells_and_ticks() {
        assert_eq!(cell(12.3456, 2), "12.35");
        assert_eq!(cell(250_000_000.0, 2), "2.5e8");
        assert_eq!(tick(250_000_000.0), "2.5e8");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(1234.0), "1234");
        assert_eq!(tick(0.0), "0");
    }
}
