//! A binary min-heap of job indices over a caller's buffer, ordered by (key, index): the
//! order of a scan that keeps the first strict minimum. No allocation: the heap lives in
//! `buf[..len]` (the runner's per-job scratch, sized at build).

/// `a` comes before `b`: smaller key, ties to the smaller index (keys are finite shares).
fn before(keys: &[f64], a: u32, b: u32) -> bool {
    let (ka, kb) = (keys[a as usize], keys[b as usize]);
    ka < kb || (ka == kb && a < b)
}

/// Adds job `j` to the heap `buf[..*len]`.
pub(super) fn push(buf: &mut [u32], len: &mut usize, keys: &[f64], j: u32) {
    debug_assert!(*len < buf.len(), "heap over capacity");
    let mut i = *len;
    buf[i] = j;
    *len += 1;
    while i > 0 {
        let p = (i - 1) / 2;
        if !before(keys, buf[i], buf[p]) {
            break;
        }
        buf.swap(i, p);
        i = p;
    }
}

/// Removes and returns the first job of the heap `buf[..*len]` (`None` when empty).
pub(super) fn pop(buf: &mut [u32], len: &mut usize, keys: &[f64]) -> Option<u32> {
    if *len == 0 {
        return None;
    }
    let top = buf[0];
    *len -= 1;
    buf[0] = buf[*len];
    let n = *len;
    let mut i = 0;
    loop {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        let mut m = i;
        if l < n && before(keys, buf[l], buf[m]) {
            m = l;
        }
        if r < n && before(keys, buf[r], buf[m]) {
            m = r;
        }
        if m == i {
            break;
        }
        buf.swap(i, m);
        i = m;
    }
    Some(top)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    /// Pops come out in (key, index) order, as a scan for the first strict minimum would pick.
    #[test]
    fn pops_in_key_then_index_order() {
        let keys = [0.5, 0.25, 0.5, 0.0, 0.25, 1.0, 0.0];
        let mut buf = [0u32; 7];
        let mut n = 0;
        for j in [5, 2, 0, 6, 1, 4, 3] {
            push(&mut buf, &mut n, &keys, j);
        }
        let mut got = Vec::new();
        while let Some(j) = pop(&mut buf, &mut n, &keys) {
            got.push(j);
        }
        assert_eq!(got, [3, 6, 1, 4, 0, 2, 5]);
    }
}
