//! Paper-literal A_mincost1/2 (Algorithms 4-5, as rebuilt in `docs/online.md`) and
//! A_RAmincost1/2 (Algorithms 6-7): every loop as listed, every window sum and minimum taken slot
//! by slot. O(M P L T H^2 L R) per job: for property tests and benchmarks only.
use super::common::*;
use super::{Ctx, Placement, Window};
use crate::model::online::OnlineJob;
use alloc::vec;
use alloc::vec::Vec;

/// omega_h^r(t) of every resource at relative slot `t`, into `out`.
fn free_at(cx: &Ctx, w: &Window, t: u32, h: usize, out: &mut [f64]) {
    for (r, o) in out.iter_mut().enumerate() {
        *o = cx.free(w.base + t, h, r);
    }
}

/// Unit price of `ty` on server h at relative slot t (literal: prices from usage via eq. 11).
fn unit(cx: &Ctx, w: &Window, t: u32, h: usize, ty: &crate::model::online::TaskType) -> u128 {
    let mut delta = [0.0; crate::limits::RESOURCES_MAX];
    for (r, d) in delta.iter_mut().enumerate().take(cx.r) {
        *d = cx.delta(w.base + t, h, r);
    }
    unit_price(&delta[..cx.r], ty)
}

/// min over r and the window of floor(omega_k^r(t) / e^r).
fn cap_literal(cx: &Ctx, w: &Window, t0: u32, dur: u32, k: usize, m: usize) -> u32 {
    let mut free = [0.0; crate::limits::RESOURCES_MAX];
    let mut best = u32::MAX;
    for t in t0..t0 + dur {
        free_at(cx, w, t, k, &mut free[..cx.r]);
        best = best.min(fit(&free[..cx.r], &cx.scn.worker_types[m]));
    }
    best
}

/// min over r and the window of floor((omega_n^r(t) - g e^r) / z^r).
#[allow(clippy::too_many_arguments)] // the listing's free variables, literally
fn shat_literal(
    cx: &Ctx,
    w: &Window,
    t0: u32,
    dur: u32,
    n: usize,
    g: u32,
    m: usize,
    p: usize,
) -> u32 {
    let mut free = [0.0; crate::limits::RESOURCES_MAX];
    let mut best = u32::MAX;
    for t in t0..t0 + dur {
        free_at(cx, w, t, n, &mut free[..cx.r]);
        let s = ps_fit(
            &free[..cx.r],
            g,
            &cx.scn.worker_types[m],
            &cx.scn.ps_types[p],
        );
        best = best.min(s);
    }
    best
}

/// Omega_h for every server and the servers listed by (Omega, index).
fn omega_order(cx: &Ctx, w: &Window, t0: u32, dur: u32, m: usize) -> (Vec<u128>, Vec<usize>) {
    let mut om = vec![0u128; cx.h];
    for (h, o) in om.iter_mut().enumerate() {
        for t in t0..t0 + dur {
            *o += unit(cx, w, t, h, &cx.scn.worker_types[m]);
        }
    }
    let mut order: Vec<usize> = (0..cx.h).collect();
    order.sort_by(|&a, &b| om[a].cmp(&om[b]).then(a.cmp(&b)));
    (om, order)
}

/// sum over the window, h, r of delta (e y + z s), slot by slot.
#[allow(clippy::too_many_arguments)] // the listing's free variables, literally
fn cost_literal(
    cx: &Ctx,
    w: &Window,
    t0: u32,
    dur: u32,
    m: usize,
    p: Option<usize>,
    y: &[u32],
    s: &[u32],
) -> u128 {
    let mut c: u128 = 0;
    for t in t0..t0 + dur {
        for h in 0..cx.h {
            if y[h] > 0 {
                c += y[h] as u128 * unit(cx, w, t, h, &cx.scn.worker_types[m]);
            }
            if let Some(p) = p {
                if s[h] > 0 {
                    c += s[h] as u128 * unit(cx, w, t, h, &cx.scn.ps_types[p]);
                }
            }
        }
    }
    c
}

fn to_placement(y: &[u32], s: &[u32], out: &mut Placement) {
    out.clear();
    for h in 0..y.len() {
        if y[h] > 0 || s[h] > 0 {
            out.push(super::Placed {
                server: h as u32,
                workers: y[h],
                ps: s[h],
            });
        }
    }
}

type Best = Option<(Cand, Vec<u32>, Vec<u32>)>;

fn keep(best: &mut Best, c: Cand, y: &[u32], s: &[u32]) {
    // The listing's `if cost < cost_m`: strictly smaller, first found wins ties.
    let better = match best {
        None => true,
        Some(b) => c.cost < b.0.cost,
    };
    if better {
        *best = Some((c, y.to_vec(), s.to_vec()));
    }
}

/// A_mincost2 (q_j = 1): all N workers and one PS on one server h.
fn mincost2(cx: &Ctx, job: &OnlineJob, w: &Window) -> Best {
    let mut best: Best = None;
    let (mm, pp) = (cx.scn.worker_types.len(), cx.scn.ps_types.len());
    for m in 0..mm {
        for p in 0..pp {
            let rho = rho_ps(job, m, p, &cx.scn.worker_types[m], true);
            let (lo, hi) = duration_range(job, rho);
            for dur in lo..=hi.min(w.len.saturating_sub(1)) {
                let Some(n) = workers_for(job, dur, rho) else {
                    continue;
                };
                for t0 in 1..=w.len - dur {
                    for h in 0..cx.h {
                        let cap = cap_literal(cx, w, t0, dur, h, m);
                        if n > cap || shat_literal(cx, w, t0, dur, h, n, m, p) < 1 {
                            continue;
                        }
                        let mut y = vec![0u32; cx.h];
                        let mut s = vec![0u32; cx.h];
                        y[h] = n;
                        s[h] = 1;
                        let cost = cost_literal(cx, w, t0, dur, m, Some(p), &y, &s);
                        let c = Cand {
                            cost,
                            idx: [m as u32, p as u32, dur, t0, h as u32],
                            colocated: true,
                            m: m as u32,
                            p: p as u32,
                            dur,
                            tminus: t0,
                            host: h as u32,
                            workers: n,
                        };
                        keep(&mut best, c, &y, &s);
                    }
                }
            }
        }
    }
    best
}

/// A_mincost1 (q_j = 0): workers greedily by Omega, the PSs on server n beside g* workers.
fn mincost1(cx: &Ctx, job: &OnlineJob, w: &Window) -> Best {
    let mut best: Best = None;
    let (mm, pp) = (cx.scn.worker_types.len(), cx.scn.ps_types.len());
    for m in 0..mm {
        for p in 0..pp {
            let (wt, pt) = (&cx.scn.worker_types[m], &cx.scn.ps_types[p]);
            let rho = rho_ps(job, m, p, wt, false);
            let (lo, hi) = duration_range(job, rho);
            for dur in lo..=hi.min(w.len.saturating_sub(1)) {
                let Some(nn) = workers_for(job, dur, rho) else {
                    continue;
                };
                for t0 in 1..=w.len - dur {
                    let (_, order) = omega_order(cx, w, t0, dur, m);
                    for n in 0..cx.h {
                        let mut y = vec![0u32; cx.h];
                        let mut s = vec![0u32; cx.h];
                        let mut left = nn;
                        for &k in &order {
                            let yk = cap_literal(cx, w, t0, dur, k, m).min(left);
                            if k == n {
                                let mut gstar = None;
                                for g in 0..=yk {
                                    if nn - g >= 1
                                        && shat_literal(cx, w, t0, dur, n, g, m, p)
                                            >= ps_needed(nn - g, wt, pt)
                                    {
                                        gstar = Some(g);
                                    }
                                }
                                match gstar {
                                    Some(g) => {
                                        y[n] = g;
                                        s[n] = ps_needed(nn - g, wt, pt);
                                    }
                                    None => y[n] = yk,
                                }
                            } else {
                                y[k] = yk;
                            }
                            left -= y[k];
                        }
                        if left > 0 || s[n] < 1 {
                            continue;
                        }
                        let cost = cost_literal(cx, w, t0, dur, m, Some(p), &y, &s);
                        let c = Cand {
                            cost,
                            idx: [m as u32, p as u32, dur, t0, n as u32],
                            colocated: false,
                            m: m as u32,
                            p: p as u32,
                            dur,
                            tminus: t0,
                            host: n as u32,
                            workers: nn,
                        };
                        keep(&mut best, c, &y, &s);
                    }
                }
            }
        }
    }
    best
}

/// A_RAmincost1 (Algorithm 6, q_j = 1): all Phi workers on one server.
fn ra_mincost1(cx: &Ctx, job: &OnlineJob, w: &Window) -> Best {
    let mut best: Best = None;
    for m in 0..cx.scn.worker_types.len() {
        for phi in 1..=job.chunks.min(cx.phi_max(m)) {
            let rho = rho_ring(job, m, phi, &cx.scn.worker_types[m], true);
            let dur = ring_duration(job, phi, rho);
            if dur >= w.len {
                continue;
            }
            for t0 in 1..=w.len - dur {
                for h in 0..cx.h {
                    let yh = cap_literal(cx, w, t0, dur, h, m).min(phi);
                    if phi > yh {
                        continue;
                    }
                    let mut y = vec![0u32; cx.h];
                    y[h] = yh;
                    let s = vec![0u32; cx.h];
                    let cost = cost_literal(cx, w, t0, dur, m, None, &y, &s);
                    let c = Cand {
                        cost,
                        idx: [m as u32, phi, t0, h as u32, 0],
                        colocated: true,
                        m: m as u32,
                        p: u32::MAX,
                        dur,
                        tminus: t0,
                        host: h as u32,
                        workers: phi,
                    };
                    keep(&mut best, c, &y, &s);
                }
            }
        }
    }
    best
}

/// A_RAmincost2 (Algorithm 7, q_j = 0): Phi workers greedily by Omega (line 5's "N = d" is
/// read as N = Phi').
fn ra_mincost2(cx: &Ctx, job: &OnlineJob, w: &Window) -> Best {
    let mut best: Best = None;
    for m in 0..cx.scn.worker_types.len() {
        for phi in 1..=job.chunks.min(cx.phi_max(m)) {
            let rho = rho_ring(job, m, phi, &cx.scn.worker_types[m], false);
            let dur = ring_duration(job, phi, rho);
            if dur >= w.len {
                continue;
            }
            for t0 in 1..=w.len - dur {
                let (_, order) = omega_order(cx, w, t0, dur, m);
                let mut y = vec![0u32; cx.h];
                let mut left = phi;
                for &h in &order {
                    y[h] = cap_literal(cx, w, t0, dur, h, m).min(left);
                    left -= y[h];
                }
                if left > 0 {
                    continue;
                }
                let s = vec![0u32; cx.h];
                let cost = cost_literal(cx, w, t0, dur, m, None, &y, &s);
                let c = Cand {
                    cost,
                    idx: [m as u32, phi, t0, 0, 0],
                    colocated: false,
                    m: m as u32,
                    p: u32::MAX,
                    dur,
                    tminus: t0,
                    host: 0,
                    workers: phi,
                };
                keep(&mut best, c, &y, &s);
            }
        }
    }
    best
}

/// A_maxweight's choice for one job (literal): the q = 1 subroutine first, the q = 0 one
/// winning only if strictly cheaper. Writes the placement of the choice.
pub fn search(cx: &Ctx, job: &OnlineJob, w: &Window, out: &mut Placement) -> Option<Cand> {
    if w.len < 2 {
        out.clear();
        return None;
    }
    let (two, one) = if cx.ring() {
        (ra_mincost1(cx, job, w), ra_mincost2(cx, job, w))
    } else {
        (mincost2(cx, job, w), mincost1(cx, job, w))
    };
    let pick = match (two, one) {
        (Some(a), Some(b)) => Some(if b.0.cost < a.0.cost { b } else { a }),
        (a, b) => a.or(b),
    };
    match pick {
        Some((c, y, s)) => {
            to_placement(&y, &s, out);
            Some(c)
        }
        None => {
            out.clear();
            None
        }
    }
}
