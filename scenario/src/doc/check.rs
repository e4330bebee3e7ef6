//! Field checks shared by every kind's `validate`: each names the subject and the field.
use crate::error::InputError;
use mlsched_kernel::limits::{ID_BYTES_MAX, RESOURCES_MAX};
use mlsched_kernel::{CapacityError, ResourceVec};
use std::collections::BTreeSet;

/// "job `id`"
pub fn job(id: &str) -> String {
    format!("job `{id}`")
}

/// A finite number.
pub fn finite(subject: &str, field: &str, v: f64) -> Result<f64, InputError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(InputError::new(
            subject,
            field,
            format!("must be a finite number, got {v}"),
        ))
    }
}

/// Largest magnitude of a real-valued field (weights, rates, bandwidths, utilities, sizes, ...):
/// 1e15. Every result the kernel derives from such values (sums over every job and slot of
/// weight x completion, utilities, network costs) then stays finite and printable; the same
/// bound as `limits::THROUGHPUT_MAX`.
pub const VALUE_MAX: f64 = 1e15;

/// [`VALUE_MAX`] as the messages print it (`{:e}`), written out so that the web modules do not
/// carry core's exponent formatting for this one number (issue 44; a test keeps the two equal).
const VALUE_MAX_TEXT: &str = "1e15";

/// A finite number with |v| <= [`VALUE_MAX`].
pub fn real(subject: &str, field: &str, v: f64) -> Result<f64, InputError> {
    if finite(subject, field, v)?.abs() <= VALUE_MAX {
        Ok(v)
    } else {
        Err(InputError::new(
            subject,
            field,
            format!("must be at most {VALUE_MAX_TEXT} in magnitude (VALUE_MAX, so results stay finite), got {v}"),
        ))
    }
}

/// A finite number > 0 (and at most [`VALUE_MAX`]).
pub fn positive(subject: &str, field: &str, v: f64) -> Result<f64, InputError> {
    if real(subject, field, v)? > 0.0 {
        Ok(v)
    } else {
        Err(InputError::new(
            subject,
            field,
            format!("must be > 0, got {v}"),
        ))
    }
}

/// A finite number >= 0 (and at most [`VALUE_MAX`]).
pub fn non_negative(subject: &str, field: &str, v: f64) -> Result<f64, InputError> {
    if real(subject, field, v)? >= 0.0 {
        Ok(v)
    } else {
        Err(InputError::new(
            subject,
            field,
            format!("must be >= 0, got {v}"),
        ))
    }
}

/// A finite number in `lo..=hi`.
pub fn within(subject: &str, field: &str, v: f64, lo: f64, hi: f64) -> Result<f64, InputError> {
    if (lo..=hi).contains(&finite(subject, field, v)?) {
        Ok(v)
    } else {
        Err(InputError::new(
            subject,
            field,
            format!("must be in [{lo}, {hi}], got {v}"),
        ))
    }
}

/// An integer in `lo..=hi` given as a JSON number.
pub fn int(subject: &str, field: &str, v: f64, lo: u64, hi: u64) -> Result<u32, InputError> {
    finite(subject, field, v)?;
    if v.fract() != 0.0 {
        return Err(InputError::new(
            subject,
            field,
            format!("must be an integer, got {v}"),
        ));
    }
    if v < lo as f64 || v > hi as f64 {
        return Err(InputError::new(
            subject,
            field,
            format!("must be an integer in {lo}..={hi}, got {v}"),
        ));
    }
    Ok(v as u32)
}

/// An integer in `lo..=max` where `max` is the build limit `limit`: the error names the limit.
pub fn int_limit(
    subject: &str,
    field: &str,
    v: f64,
    lo: u64,
    max: u64,
    limit: &str,
) -> Result<u32, InputError> {
    int(subject, field, v, lo, max).map_err(|e| {
        if v.is_finite() && v.fract() == 0.0 && v > max as f64 {
            InputError::new(
                subject,
                field,
                format!("{v} exceeds {LIMIT_WORDS} {limit} = {max}"),
            )
        } else {
            e
        }
    })
}

/// An integer count bounded by a build limit: the error names the limit constant.
pub fn count_limit(
    subject: &str,
    field: &str,
    n: usize,
    min: usize,
    max: usize,
    limit: &str,
) -> Result<(), InputError> {
    if n < min {
        return Err(InputError::new(
            subject,
            field,
            format!(
                "needs at least {min} entr{}, got {n}",
                if min == 1 { "y" } else { "ies" }
            ),
        ));
    }
    if n > max {
        return Err(InputError::new(
            subject,
            field,
            format!("{n} entries exceed {LIMIT_WORDS} {limit} = {max}"),
        ));
    }
    Ok(())
}

/// The words every build-limit message has ("... exceeds this build's limit NAME = value"):
/// [`locate`] recognises a limit error by them.
pub const LIMIT_WORDS: &str = "this build's limit";

/// A build-limit error of item `index` of the list `list` (a job of `jobs`, a server of
/// `servers`, a node of `topology.nodes`) with the item's index and the field's document path:
/// ``job `j3` (index 2), field `jobs[2].chunks`: 5000 exceeds this build's limit CHUNKS_MAX =
/// 4096``. Any other error is returned as it is (its subject already names the item by id).
pub fn locate(mut e: InputError, list: &str, index: usize) -> InputError {
    if e.problem.contains(LIMIT_WORDS) {
        e.subject = format!("{} (index {index})", e.subject);
        e.field = format!("{list}[{index}].{}", e.field);
    }
    e
}

/// A kernel capacity error as an input error on `field`.
pub fn capacity(subject: &str, field: &str, e: CapacityError) -> InputError {
    InputError::new(subject, field, e.to_string())
}

/// A vector of exactly `len` finite, non-negative values.
pub fn vector(
    subject: &str,
    field: &str,
    v: &[f64],
    len: usize,
) -> Result<ResourceVec, InputError> {
    if v.len() != len {
        return Err(InputError::new(
            subject,
            field,
            format!("has {} entries, expected {len} (one per resource)", v.len()),
        ));
    }
    for (r, &x) in v.iter().enumerate() {
        non_negative(subject, &format!("{field}[{r}]"), x)?;
    }
    ResourceVec::from_slice(v).map_err(|e| capacity(subject, field, e))
}

/// A demand vector: as [`vector`], with at least one positive entry, and no positive entry on a
/// resource that every server of `pool` lacks (capacity 0).
pub fn demand(
    subject: &str,
    field: &str,
    v: &[f64],
    resources: &[String],
    pool: &[ResourceVec],
    pool_name: &str,
) -> Result<ResourceVec, InputError> {
    let d = vector(subject, field, v, resources.len())?;
    if d.as_slice().iter().all(|&x| x == 0.0) {
        return Err(InputError::new(
            subject,
            field,
            "must demand at least one resource (all entries are 0)",
        ));
    }
    for (r, &x) in d.as_slice().iter().enumerate() {
        if x > 0.0 && pool.iter().all(|c| c.get(r) == 0.0) {
            return Err(InputError::new(
                subject,
                format!("{field}[{r}]"),
                format!(
                    "demands `{}`, which every {pool_name} has at capacity 0",
                    resources[r]
                ),
            ));
        }
    }
    Ok(d)
}

/// Resource names: 1..=RESOURCES_MAX unique, non-empty names.
pub fn resources(names: &[String]) -> Result<(), InputError> {
    count_limit(
        "scenario",
        "resources",
        names.len(),
        1,
        RESOURCES_MAX,
        "RESOURCES_MAX",
    )?;
    let mut seen = BTreeSet::new();
    for (i, n) in names.iter().enumerate() {
        if n.is_empty() {
            return Err(InputError::new(
                "scenario",
                format!("resources[{i}]"),
                "must be a non-empty name",
            ));
        }
        if !seen.insert(n) {
            return Err(InputError::new(
                "scenario",
                format!("resources[{i}]"),
                format!("duplicate resource `{n}`"),
            ));
        }
    }
    Ok(())
}

/// Ids: non-empty, at most ID_BYTES_MAX bytes, unique within their list (`what` = "job", ...;
/// `list` = the list's document path, "jobs", ..., named with the index of a too-long id).
pub fn ids<'a>(
    what: &str,
    list: &str,
    ids: impl Iterator<Item = &'a str>,
) -> Result<(), InputError> {
    let mut seen = BTreeSet::new();
    for (i, id) in ids.enumerate() {
        if id.is_empty() {
            return Err(InputError::new(
                format!("{what} #{i}"),
                "id",
                "must be a non-empty string",
            ));
        }
        if id.len() > ID_BYTES_MAX {
            return Err(InputError::new(
                format!("{what} #{i} (index {i})"),
                format!("{list}[{i}].id"),
                format!(
                    "{} bytes exceed {LIMIT_WORDS} ID_BYTES_MAX = {ID_BYTES_MAX}",
                    id.len()
                ),
            ));
        }
        if !seen.insert(id) {
            return Err(InputError::new(
                format!("{what} `{id}`"),
                "id",
                format!("duplicate {what} id `{id}`"),
            ));
        }
    }
    Ok(())
}

/// An optional seed: a non-negative integer (up to 2^53 so that JSON numbers keep it exact).
pub fn seed(subject: &str, field: &str, v: Option<f64>) -> Result<u64, InputError> {
    match v {
        None => Ok(0),
        Some(x) => {
            finite(subject, field, x)?;
            if x < 0.0 || x.fract() != 0.0 || x > 9_007_199_254_740_992.0 {
                Err(InputError::new(
                    subject,
                    field,
                    format!("must be an integer in 0..=2^53, got {x}"),
                ))
            } else {
                Ok(x as u64)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_max_text_is_how_exponent_formatting_prints_it() {
        assert_eq!(format!("{VALUE_MAX:e}"), VALUE_MAX_TEXT);
        let e = real("job a", "weight", -2e15).unwrap_err();
        assert!(
            e.to_string().contains("must be at most 1e15 in magnitude"),
            "{e}"
        );
    }
}
