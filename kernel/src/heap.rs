//! A binary min-heap over a caller's buffer (`buf[..len]`), ordered by the caller's `before`
//! (a strict total order on the items it holds, so that pops are the same whatever the pushes'
//! order). No allocation: the buffer is the caller's scratch, sized once. Used by the DRF
//! baseline (jobs by dominant share, [`crate::baseline::oasis`]) and by the OASiS slot trees'
//! best-first listing (servers and nodes by key, [`crate::oasis::fast`]).

/// Adds `x` to the heap `buf[..*len]`; false (nothing added) when `buf` is full.
pub(crate) fn push<T: Copy>(
    buf: &mut [T],
    len: &mut usize,
    x: T,
    before: impl Fn(&T, &T) -> bool,
) -> bool {
    let mut i = *len;
    let Some(slot) = buf.get_mut(i) else {
        return false;
    };
    *slot = x;
    *len += 1;
    while i > 0 {
        let p = (i - 1) / 2;
        if !before(&buf[i], &buf[p]) {
            break;
        }
        buf.swap(i, p);
        i = p;
    }
    true
}

/// Removes and returns the first item of the heap `buf[..*len]` (`None` when empty).
pub(crate) fn pop<T: Copy>(
    buf: &mut [T],
    len: &mut usize,
    before: impl Fn(&T, &T) -> bool,
) -> Option<T> {
    let n = len.checked_sub(1)?;
    let top = *buf.first()?;
    *len = n;
    buf[0] = buf[n];
    let mut i = 0;
    loop {
        let (l, r) = (2 * i + 1, 2 * i + 2);
        let mut m = i;
        if l < n && before(&buf[l], &buf[m]) {
            m = l;
        }
        if r < n && before(&buf[r], &buf[m]) {
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

    /// Pops come out in (key, index) order whatever the pushes' order, and a full buffer
    /// refuses a push.
    #[test]
    fn pops_in_order_and_refuses_when_full() {
        let keys = [0.5, 0.25, 0.5, 0.0, 0.25, 1.0, 0.0];
        let before = |a: &u32, b: &u32| {
            let (ka, kb) = (keys[*a as usize], keys[*b as usize]);
            ka < kb || (ka == kb && a < b)
        };
        let mut buf = [0u32; 7];
        let mut n = 0;
        for j in [5, 2, 0, 6, 1, 4, 3] {
            assert!(push(&mut buf, &mut n, j, before));
        }
        assert!(!push(&mut buf, &mut n, 0, before));
        let mut got = Vec::new();
        while let Some(j) = pop(&mut buf, &mut n, before) {
            got.push(j);
        }
        assert_eq!(got, [3, 6, 1, 4, 0, 2, 5]);
        assert_eq!(pop(&mut buf, &mut n, before), None);
    }
}
