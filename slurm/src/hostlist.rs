//! Slurm's compressed host lists (`n[1-3,7],gpu[01-02]`) and GRES strings (`gpu:4`,
//! `gpu:a100:2(S:0-1)`, `gres:gpu:2`): the two compact notations its JSON still uses.
use crate::error::SlurmError;

/// Expanding more names than this is refused (a typo like `n[1-999999999]` must not eat memory).
pub const HOSTLIST_MAX: usize = 65_536;

/// Expands a host list into names, in Slurm's order. `""` and `"(null)"` are empty.
pub fn expand(list: &str) -> Result<Vec<String>, SlurmError> {
    let list = list.trim();
    if list.is_empty() || list == "(null)" {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for item in split_top(list) {
        if item.is_empty() {
            return Err(bad(list, "empty name"));
        }
        expand_item(list, item, String::new(), &mut out)?;
    }
    Ok(out)
}

/// Splits at commas outside brackets.
fn split_top(list: &str) -> Vec<&str> {
    let (mut depth, mut start, mut parts) = (0i32, 0, Vec::new());
    for (i, c) in list.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    parts
}

/// Appends every name of `rest` (prefixed by `done`) to `out`; several bracket groups multiply.
fn expand_item(
    list: &str,
    rest: &str,
    done: String,
    out: &mut Vec<String>,
) -> Result<(), SlurmError> {
    let Some(open) = rest.find('[') else {
        if rest.contains(']') {
            return Err(bad(list, "`]` without `[`"));
        }
        return push(list, out, done + rest);
    };
    let close = rest[open..]
        .find(']')
        .map(|c| open + c)
        .ok_or_else(|| bad(list, "`[` without `]`"))?;
    let prefix = &rest[..open];
    let tail = &rest[close + 1..];
    for n in numbers(list, &rest[open + 1..close])? {
        expand_item(list, tail, format!("{done}{prefix}{n}"), out)?;
    }
    Ok(())
}

fn push(list: &str, out: &mut Vec<String>, name: String) -> Result<(), SlurmError> {
    if out.len() >= HOSTLIST_MAX {
        return Err(bad(list, &format!("more than {HOSTLIST_MAX} names")));
    }
    out.push(name);
    Ok(())
}

/// `1-3,07` -> `1 2 3 07`: a range keeps its first bound's zero padding, as Slurm prints it.
fn numbers(list: &str, ranges: &str) -> Result<Vec<String>, SlurmError> {
    let mut out = Vec::new();
    for r in ranges.split(',') {
        let (lo, hi) = r.split_once('-').unwrap_or((r, r));
        let width = lo.len();
        let parse = |s: &str| {
            if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad(list, &format!("`{r}` is not a number or range")));
            }
            s.parse::<u64>()
                .map_err(|_| bad(list, &format!("`{s}` is too large")))
        };
        let (a, b) = (parse(lo)?, parse(hi)?);
        if b < a || b - a >= HOSTLIST_MAX as u64 {
            return Err(bad(list, &format!("range `{r}` is empty or too long")));
        }
        out.extend((a..=b).map(|n| format!("{n:0width$}")));
    }
    Ok(out)
}

fn bad(list: &str, message: &str) -> SlurmError {
    SlurmError::Hostlist {
        list: list.to_string(),
        message: message.to_string(),
    }
}

/// The number of GPUs in a GRES string: the sum over its `gpu` entries (`gpu:4`, `gpu:a100:4`,
/// `gpu:a100:4(S:0-1)`, `gres:gpu:2`, `gres/gpu=2`), other GRES ignored; `""`, `"(null)"` and
/// `"N/A"` are 0. `None` when a `gpu` entry has no readable count.
pub fn gpus(gres: &str) -> Option<u32> {
    let gres = gres.trim();
    if gres.is_empty() || gres == "(null)" || gres == "N/A" {
        return Some(0);
    }
    let mut total: u32 = 0;
    for entry in split_top_paren(gres) {
        // `(S:0-1)` and `(IDX:0-3)` say where, not how many.
        let entry = entry.split('(').next().unwrap_or("").trim();
        let entry = entry
            .strip_prefix("gres:")
            .or_else(|| entry.strip_prefix("gres/"))
            .unwrap_or(entry);
        let fields: Vec<&str> = entry.split([':', '=']).collect();
        if fields.first() != Some(&"gpu") {
            continue;
        }
        let count = match fields.len() {
            // `gpu` alone: one.
            1 => 1,
            _ => fields.last()?.parse::<u32>().ok()?,
        };
        total = total.checked_add(count)?;
    }
    Some(total)
}

/// Splits at commas outside parentheses (`gpu:2(S:0,1),shard:4`).
fn split_top_paren(s: &str) -> Vec<&str> {
    let (mut depth, mut start, mut parts) = (0i32, 0, Vec::new());
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_ranges_lists_padding_and_products() {
        assert_eq!(expand("n[1-3]").unwrap(), ["n1", "n2", "n3"]);
        assert_eq!(expand("n[1-2,5],m7").unwrap(), ["n1", "n2", "n5", "m7"]);
        assert_eq!(expand("gpu[08-10]").unwrap(), ["gpu08", "gpu09", "gpu10"]);
        assert_eq!(
            expand("r[1-2]n[1-2]").unwrap(),
            ["r1n1", "r1n2", "r2n1", "r2n2"]
        );
        assert_eq!(expand("n1").unwrap(), ["n1"]);
        assert!(expand("").unwrap().is_empty());
        assert!(expand("(null)").unwrap().is_empty());
    }

    #[test]
    fn refuses_bad_lists_with_the_list() {
        for bad in ["n[1-", "n]1", "n[a-b]", "n[3-1]", "n[1-99999999]", "n1,,n2"] {
            let e = expand(bad).unwrap_err();
            assert!(e.to_string().contains(bad), "{e}");
        }
    }

    #[test]
    fn counts_gpus() {
        assert_eq!(gpus("gpu:4"), Some(4));
        assert_eq!(gpus("gpu:a100:2(S:0-1)"), Some(2));
        assert_eq!(gpus("gpu:a100:2(S:0,1),gpu:v100:1,shard:8"), Some(3));
        assert_eq!(gpus("gres:gpu:2"), Some(2));
        assert_eq!(gpus("gres/gpu=3"), Some(3));
        assert_eq!(gpus("(null)"), Some(0));
        assert_eq!(gpus(""), Some(0));
        assert_eq!(gpus("N/A"), Some(0));
        assert_eq!(gpus("gpu:many"), None);
    }
}
