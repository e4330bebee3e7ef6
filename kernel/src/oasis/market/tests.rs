use super::*;
use crate::model::oasis::{OasisJob, Utility};
use crate::oasis::census::Census;
use crate::price::oasis_price;
use alloc::vec;

fn rv(v: &[f64]) -> ResourceVec {
    ResourceVec::from_slice(v).unwrap()
}

/// Is the time-major copy exactly a rebuild from the breakpoints?
fn copy_matches(p: &Pool) -> bool {
    let mut q = p.clone();
    q.rebuild_changes();
    let (a, b) = (&p.changes, &q.changes);
    // each group's server bits are its entries' (in the rebuilt copy too)
    let groups_match = a
        .srv
        .iter()
        .zip(&a.gid)
        .zip(&a.gsrv)
        .all(|((srv, gid), gsrv)| {
            let mut want: Vec<(u32, u32)> = Vec::new();
            for &e in srv {
                let (g, bit) = (
                    (e & !IDLE) / GROUP as u32,
                    1 << ((e & !IDLE) % GROUP as u32),
                );
                match want.last_mut() {
                    Some(w) if w.0 == g => w.1 |= bit,
                    _ => want.push((g, bit)),
                }
            }
            want.iter().map(|w| w.0).eq(gid.iter().copied())
                && want.iter().map(|w| w.1).eq(gsrv.iter().copied())
        });
    groups_match
        && p.census == q.census
        && a.srv == b.srv
        && a.last == b.last
        && a.gid == b.gid
        && a.gsrv == b.gsrv
        && [
            (&a.fr, &b.fr),
            (&a.px, &b.px),
            (&a.gfr, &b.gfr),
            (&a.gpx, &b.gpx),
            (&a.gpk, &b.gpk),
        ]
        .iter()
        .all(|(a, b)| {
            a.len() == b.len()
                && a.iter().zip(b.iter()).all(|(x, y)| {
                    x.len() == y.len() && x.iter().zip(y).all(|(u, v)| u.to_bits() == v.to_bits())
                })
        })
}

/// A commit's bookings, applied server by server in one pass per block, give every cell
/// the usage of a dense grid (its bookings added in recording order) and the eq. (22)
/// price of that usage bit for bit, in canonical breakpoints (none repeating its
/// predecessor or, first, the idle state), with the time-major copy in step: random
/// batches with several bookings per cell, resources a demand leaves at zero, the last
/// slot, and blocks that must move.
#[test]
fn batched_bookings_match_a_dense_grid() {
    let mut g = crate::rng::SplitMix64::new(11);
    let (slots, n, nr) = (24u32, 20usize, 3usize);
    let caps: Vec<ResourceVec> = (0..n)
        .map(|s| rv(&[64.0 + (s % 3) as f64 * 32.0, 128.0, 16.0]))
        .collect();
    let demands: [&[f64]; 2] = [&[1.0, 2.0, 0.0], &[0.5, 0.0, 0.25]];
    let mut p = Pool::new(slots, &caps, nr, rv(&[8.0, 30.0, 4.0]), 0.5, &demands).unwrap();
    // the same bookings on a pool without slot trees, whose decisions sweep the copy
    let mut q = p.clone();
    q.drop_grid();
    assert!(p.grid().is_some() && q.grid().is_none());
    let mut dense = vec![0.0f64; slots as usize * n * nr];
    let dems = [
        rv(&[1.0, 2.0, 0.0]),
        rv(&[0.5, 0.0, 0.25]),
        rv(&[0.0, 0.0, 0.0]),
    ];
    for _ in 0..120 {
        let cells = 1 + g.below(40) as usize;
        p.reserve(cells);
        for _ in 0..cells {
            // few servers and runs of slots: blocks grow, move and merge
            let few = g.below(2) == 0;
            let s = g.below(if few { 4 } else { n as u64 }) as u32;
            let t = (slots - 1).min(g.below(slots as u64) as u32);
            let dem = dems[g.below(3) as usize];
            let count = 1 + g.below(3) as u32;
            p.add(t, s, &dem, count);
            q.add(t, s, &dem, count);
            for r in 0..nr {
                if dem.get(r) != 0.0 {
                    let i = (t as usize * n + s as usize) * nr + r;
                    dense[i] += dem.get(r) * count as f64;
                }
            }
        }
        p.merge_dirty();
        q.reserve(cells);
        q.merge_dirty();
        assert!(copy_matches(&q));
        assert!(p == q);
        // the slot trees: each cell the values in force (idle: out of the tree, in its
        // stream), each summary as a rebuild from the breakpoints computes it
        let grid = p.grid().unwrap();
        for t in 0..slots {
            for s in 0..n {
                let idle = (0..nr).all(|r| dense[(t as usize * n + s) * nr + r].to_bits() == 0);
                assert_eq!(grid.is_idle(t, s), idle, "{t} {s}");
                let (free, prices) = (grid.free_of(t, s), grid.prices_of(t, s));
                for r in 0..nr {
                    let (f, px) = if idle {
                        (f64::NEG_INFINITY, f64::INFINITY)
                    } else {
                        (
                            p.capacity(s as u32, r) - p.usage(t, s as u32, r),
                            p.price(t, s as u32, r),
                        )
                    };
                    assert_eq!(free[r].to_bits(), f.to_bits(), "{t} {s} {r}");
                    assert_eq!(prices[r].to_bits(), px.to_bits(), "{t} {s} {r}");
                    assert_eq!(grid.codes_of(t, s)[r], super::super::grid::room_code(f));
                }
            }
        }
        // the summaries the commit left loose bound the exact ones, and are them once
        // redone
        let mut fresh = p.clone();
        fresh.rebuild_grid();
        let exact = fresh.grid().unwrap();
        assert!(grid.bounds(exact));
        assert!(grid.codes_match() && exact.codes_match());
        let mut tidy = p.clone();
        let g = tidy.grid.as_mut().unwrap();
        g.tidy(1);
        assert!(g.bounds(exact));
        assert!(g.codes_match());
        g.tidy_all();
        assert_eq!(g.queued(), 0);
        assert!(g.same(exact));
        // the census: per slot, kind and level, the servers whose free room holds that
        // share of their capacity on every resource
        for t in 0..slots {
            let row = p.census().row(t).unwrap();
            let mut want = vec![0u16; row.len()];
            for s in 0..n {
                let cap: Vec<f64> = (0..nr).map(|r| p.capacity(s as u32, r)).collect();
                let g = |r: usize| dense[(t as usize * n + s) * nr + r];
                let level = Census::level(&cap, |r| cap[r] - g(r));
                if level < crate::oasis::census::LEVELS {
                    want[p.census.kind_of(s) * crate::oasis::census::LEVELS + level] += 1;
                }
            }
            assert_eq!(row, &want[..], "slot {t}");
        }
        for s in 0..n as u32 {
            for t in 0..slots {
                for r in 0..nr {
                    let want = dense[(t as usize * n + s as usize) * nr + r];
                    assert_eq!(p.usage(t, s, r).to_bits(), want.to_bits(), "{t} {s} {r}");
                    let price = oasis_price(p.lower, p.upper.get(r), want, p.capacity(s, r));
                    assert_eq!(p.price(t, s, r).to_bits(), price.to_bits(), "{t} {s} {r}");
                }
            }
            let mut prev: Option<&[f64]> = None;
            for j in 0..p.times(s).len() {
                let v = p.values(s, j);
                let repeats = match prev {
                    Some(q) => q.iter().zip(v).all(|(a, b)| a.to_bits() == b.to_bits()),
                    None => v[..nr].iter().all(|x| x.to_bits() == 0),
                };
                assert!(!repeats, "server {s} breakpoint {j} repeats");
                prev = Some(v);
            }
            assert!(p.times(s).windows(2).all(|w| w[0] < w[1]));
        }
    }
    assert!(p.breakpoints() > 100, "{}", p.breakpoints());
}

#[test]
fn the_time_major_copy_follows_every_commit() {
    let job = OasisJob {
        arrival: 0,
        epochs: 1,
        chunks: 4,
        minibatches_per_chunk: 1,
        minibatch_time: 0.5,
        comm_time: 0.0,
        worker_bw: 1.0,
        ps_bw: 2.0,
        worker_demand: rv(&[1.0, 0.5]),
        ps_demand: rv(&[1.0, 0.0]),
        utility: Utility::Table(alloc::vec![1.0]),
    };
    let scn = OasisScenario {
        slots: 12,
        resources: 2,
        worker_servers: alloc::vec![rv(&[64.0, 64.0]); 40],
        ps_servers: alloc::vec![rv(&[64.0, 64.0]); 3],
        prices: None,
        jobs: alloc::vec![job.clone()],
        throughput: None,
    };
    let bounds = PriceBounds {
        u_worker: rv(&[8.0, 8.0]),
        u_ps: rv(&[8.0, 8.0]),
        l_worker: 1.0,
        l_ps: 1.0,
    };
    let mut m = Market::new(&scn, bounds).unwrap();
    m.drop_grids(); // the copy is kept only without slot trees
    let p = JobParams::of(&job);
    let mut x = 12345u64;
    let mut draw = |n: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % n
    };
    for round in 0..200u32 {
        // arrivals in time order: the kept prices follow changes and commits
        let now = round / 20;
        m.advance(now);
        m.reserve(4, 4);
        m.reserve_window(&p, 0, 12);
        let (t0, len) = (draw(12) as u32, 1 + draw(4) as u32);
        for t in t0..(t0 + len).min(12) {
            let c = 1 + draw(2) as u32;
            m.add_workers_raw(t, draw(40) as u32, &p, c);
            m.add_ps_raw(t, draw(3) as u32, &p, c);
        }
        m.merge();
        assert!(copy_matches(&m.workers) && copy_matches(&m.ps));
        for pool in [&m.workers, &m.ps] {
            let px = pool.prices_at(now).unwrap();
            let want = (0..pool.servers()).flat_map(|s| (0..2).map(move |r| (s, r)));
            for ((s, r), got) in want.clone().zip(px) {
                assert_eq!(got.to_bits(), pool.price(now, s, r).to_bits());
            }
            let fr = pool.free_at(now).unwrap();
            for ((s, r), got) in want.zip(fr) {
                let free = pool.capacity(s, r) - pool.usage(now, s, r);
                assert_eq!(got.to_bits(), free.to_bits());
            }
        }
    }
    assert!(m.workers.changes_after(0));
    // the restored market rebuilds the same copy
    let bytes = postcard::to_allocvec(&m).unwrap();
    let back: Market = postcard::from_bytes(&bytes).unwrap();
    assert_eq!(back, m);
    assert!(copy_matches(&back.workers) && back.workers.changes.srv == m.workers.changes.srv);
}
