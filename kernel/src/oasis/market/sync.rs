//! The time-major copy brought in step with a commit's cells: room reserved per slot ahead of
//! it, each touched slot's entries rewritten in two passes ([`Pool::sync_slot`]), then each
//! touched group's summary ([`Pool::regroup`]).
use super::changes::{GROUP, IDLE, NO_ENTRY};
use super::gallop::{gallop, gallop_back};
use super::Pool;
use crate::limits::RESOURCES_MAX;
use crate::oasis::units::{entry_peaks, PEAKS};
use alloc::vec::Vec;

impl Pool {
    /// Makes room in the time-major copy of slots `from..to` for a commit that books at most
    /// `per_slot` servers per slot: each may add an entry at its slot and at the next one.
    pub(crate) fn reserve_slots(&mut self, from: u32, to: u32, per_slot: usize) {
        if self.grid.is_some() {
            return; // no time-major copy kept
        }
        let need = 2usize.saturating_mul(per_slot).min(self.servers as usize);
        let nr = self.resources as usize;
        let c = &mut self.changes;
        let to = (to as usize).min(c.srv.len());
        for t in (from as usize).min(to)..to {
            let srv = &mut c.srv[t];
            if srv.capacity() - srv.len() < need {
                srv.reserve(need);
            }
            for v in [&mut c.fr[t], &mut c.px[t], &mut c.gfr[t], &mut c.gpx[t]] {
                if v.capacity() - v.len() < need * nr {
                    v.reserve(need * nr);
                }
            }
            let gpk = &mut c.gpk[t];
            if gpk.capacity() - gpk.len() < need * (nr + 1) {
                gpk.reserve(need * (nr + 1));
            }
            // each new entry adds at most one group
            for v in [&mut c.gid[t], &mut c.gsrv[t]] {
                if v.capacity() - v.len() < need {
                    v.reserve(need);
                }
            }
        }
    }

    /// Brings the summary of group `g` at slot `t` in line with the entries: present iff the
    /// group has an entry there, with their count and largest free room per resource. Never
    /// allocates within [`Self::reserve_slots`]. `hint`: positions in the slot's entries and
    /// groups at or before group `g`'s (searched by galloping from there), moved on to the
    /// next group's for a caller that goes through a slot's groups in increasing order.
    pub(super) fn regroup(&mut self, t: u32, g: u32, hint: &mut (usize, usize)) {
        let nr = self.resources as usize;
        let c = &mut self.changes;
        let t = t as usize;
        let (Some(srv), Some(fr), Some(px), Some(gid), Some(gsrv), Some(gfr), Some(gpx), Some(gpk)) = (
            c.srv.get(t),
            c.fr.get(t),
            c.px.get(t),
            c.gid.get_mut(t),
            c.gsrv.get_mut(t),
            c.gfr.get_mut(t),
            c.gpx.get_mut(t),
            c.gpk.get_mut(t),
        ) else {
            return;
        };
        let first = g as usize * GROUP;
        let lo = gallop(srv, hint.0.min(srv.len()), |&e| {
            ((e & !IDLE) as usize) < first
        });
        let hi = gallop(srv, lo, |&e| ((e & !IDLE) as usize) < first + GROUP);
        let nv = nr.min(RESOURCES_MAX);
        let mut top = [f64::NEG_INFINITY; RESOURCES_MAX];
        let mut least = [f64::INFINITY; RESOURCES_MAX];
        for v in fr
            .get(lo * nr..hi * nr)
            .unwrap_or(&[])
            .chunks_exact(nr.max(1))
        {
            for (m, &x) in top.iter_mut().zip(v) {
                // usage is finite (checked on restore); a NaN room, which `max` skips, would
                // have no room for any demand anyway
                *m = m.max(x);
            }
        }
        let mut peaks = [f64::INFINITY; PEAKS];
        for v in px
            .get(lo * nr..hi * nr)
            .unwrap_or(&[])
            .chunks_exact(nr.max(1))
        {
            for (m, &x) in least.iter_mut().zip(v) {
                // prices are finite and >= L > 0: `min` and `max` are exact
                *m = m.min(x);
            }
            entry_peaks(v, &mut peaks);
        }
        let n = (hi - lo) as u32;
        // which of the group's servers have an entry (one each: a slot's servers are distinct)
        let mut bits = 0u32;
        for &e in srv.get(lo..hi).unwrap_or(&[]) {
            bits |= 1 << ((e & !IDLE) as usize % GROUP);
        }
        debug_assert_eq!(bits.count_ones(), n);
        let at = gallop(gid, hint.1.min(gid.len()), |&x| x < g);
        let p = if gid.get(at) == Some(&g) {
            Ok(at)
        } else {
            Err(at)
        };
        // the next group's entries and summary come after these
        *hint = (hi, at);
        match (n > 0, p) {
            (true, Ok(p)) => gsrv[p] = bits,
            (true, Err(p)) => {
                gid.insert(p, g);
                gsrv.insert(p, bits);
            }
            (false, Ok(p)) => {
                gid.remove(p);
                gsrv.remove(p);
            }
            (false, Err(_)) => {}
        }
        let np = nv + 1;
        for (v, new, w) in [
            (gfr, &top[..nv], nr),
            (gpx, &least[..nv], nr),
            (gpk, &peaks[..np], nr + 1),
        ] {
            match (n > 0, p) {
                (true, Ok(p)) => v[p * w..(p + 1) * w].copy_from_slice(new),
                (true, Err(p)) => {
                    let end = v.len();
                    v.extend_from_slice(new);
                    v.copy_within(p * w..end, (p + 1) * w);
                    v[p * w..(p + 1) * w].copy_from_slice(new);
                }
                (false, Ok(p)) => {
                    v.copy_within((p + 1) * w.., p * w);
                    v.truncate(v.len() - w);
                }
                (false, Err(_)) => {}
            }
        }
    }

    /// Brings slot `t` of the time-major copy in line with the breakpoints at the cells
    /// `touched[cells]` (all of slot `t`, servers increasing and distinct): an entry iff the
    /// server has a breakpoint at `t`, with the values the commit noted. Two passes over the
    /// slot's entries (removals and overwrites forward, then insertions from the back) instead
    /// of a shift per cell, each touched cell found by galloping from the last. Never
    /// allocates within [`Self::reserve_slots`].
    pub(super) fn sync_slot(&mut self, t: u32, cells: core::ops::Range<usize>) {
        let nr = self.resources as usize;
        let st = 2 * nr.min(RESOURCES_MAX);
        let ti = t as usize;
        if ti >= self.changes.srv.len() || st == 0 {
            return;
        }
        let c = &mut self.changes;
        let (Some(srv), Some(fr), Some(px)) =
            (c.srv.get_mut(ti), c.fr.get_mut(ti), c.px.get_mut(ti))
        else {
            return;
        };
        let cells = c.touched.get(cells).unwrap_or(&[]);
        let tvals = &c.tvals;
        let mut vals = [0.0f64; 2 * RESOURCES_MAX];
        let nv = st / 2;
        // the entry the commit noted for a touched cell (`None`: no breakpoint there)
        let noted = |c: &(u32, u32, u32), vals: &mut [f64; 2 * RESOURCES_MAX]| {
            let k = (c.2 != NO_ENTRY).then(|| ((c.2 & !IDLE) as usize).checked_mul(st))??;
            vals[..st].copy_from_slice(tvals.get(k..k.checked_add(st)?)?);
            Some(c.1 | (c.2 & IDLE))
        };
        let server = |e: u32| e & !IDLE;
        let put =
            |srv: &mut Vec<u32>, fr: &mut Vec<f64>, px: &mut Vec<f64>, w: usize, e, v: &[f64]| {
                srv[w] = e;
                fr[w * nr..(w + 1) * nr].copy_from_slice(&v[..nv]);
                px[w * nr..(w + 1) * nr].copy_from_slice(&v[nv..st]);
            };
        let mv =
            |srv: &mut Vec<u32>, fr: &mut Vec<f64>, px: &mut Vec<f64>, r: usize, w: usize, n| {
                srv.copy_within(r..r + n, w);
                fr.copy_within(r * nr..(r + n) * nr, w * nr);
                px.copy_within(r * nr..(r + n) * nr, w * nr);
            };
        // forward: keep untouched entries (a run at a time, found by bisection, moved only
        // after a removal), overwrite or drop touched ones, count insertions
        let n0 = srv.len();
        let (mut r, mut w, mut ins) = (0usize, 0usize, 0usize);
        for c in cells {
            let ts = c.1;
            let p = gallop(srv, r, |&e| server(e) < ts);
            if r != w {
                mv(srv, fr, px, r, w, p - r);
            }
            w += p - r;
            r = p;
            if srv.get(r).is_some_and(|&e| server(e) == ts) {
                if let Some(e) = noted(c, &mut vals) {
                    put(srv, fr, px, w, e, &vals);
                    w += 1;
                }
                r += 1;
            } else {
                ins += usize::from(c.2 != NO_ENTRY);
            }
        }
        if r != w {
            mv(srv, fr, px, r, w, n0 - r);
        }
        w += n0 - r;
        srv.truncate(w);
        fr.truncate(w * nr);
        px.truncate(w * nr);
        if ins > 0 {
            // backward: open the gaps (a run at a time) and fill them
            let n = w + ins;
            srv.resize(n, 0);
            fr.resize(n * nr, 0.0);
            px.resize(n * nr, 0.0);
            let (mut r, mut w) = (n - ins, n);
            for c in cells.iter().rev() {
                let ts = c.1;
                let p = gallop_back(srv.get(..r).unwrap_or(&[]), |&e| server(e) <= ts);
                w -= r - p;
                mv(srv, fr, px, p, w, r - p);
                r = p;
                if r > 0 && server(srv[r - 1]) == ts {
                    continue; // present: done forward
                }
                if let Some(e) = noted(c, &mut vals) {
                    w -= 1;
                    put(srv, fr, px, w, e, &vals);
                }
            }
        }
    }
}
