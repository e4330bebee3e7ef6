//! Wang et al. (kind "preempt"): the fast Q and dispatch against the paper-literal references,
//! and the brute-force check of what eq. (5) claims (Q = the increase of the flow time when the
//! chunk is inserted), with the gaps the slot model leaves (see docs/preempt.md).
use mlsched_kernel::index::NONE;
use mlsched_kernel::preempt::plan::{Plans, QValue, WEIGHT_ONE};
use mlsched_kernel::preempt::reference::{self, RefChunk, RefQ, SlotPlan};
use mlsched_kernel::preempt::{run_all, Policy, PreemptScheduler};
use mlsched_kernel::rng::SplitMix64;
use proptest::prelude::*;

#[path = "preempt_common.rs"]
mod common;
use common::random_scenario;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Exact greedy (C_j once, only the chosen worker recomputed) == the literal listing with
    /// every candidate's Q recomputed from the slot arrays for every chunk.
    #[test]
    fn fast_dispatch_equals_reference(seed in any::<u64>()) {
        let scn = random_scenario(seed);
        let mut s = PreemptScheduler::new(&scn, Policy::Greedy).unwrap();
        match run_all(&mut s, &mut |_| {}) {
            Ok(()) => prop_assert_eq!(common::fast_outcome(&s), following(&s, &scn)),
            // only a job whose sole eligible worker is a zeta-dependent cloud can fail
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(msg.contains("no eligible worker"), "{}", msg);
            }
        }
    }

    /// Fast Q (segment pass) == Q recomputed from y(t) slot by slot, on random plans built by
    /// random insertions, for random probes (any gamma, t0, p, delta, D).
    #[test]
    fn fast_q_equals_slot_scan(seed in any::<u64>()) {
        let mut r = SplitMix64::new(seed);
        let workers = 1 + r.below(3) as usize;
        let n = 12;
        let mut fast = Plans::new(workers, n);
        let mut slow = SlotPlan::new(workers);
        let mut meta = Vec::new();
        let mut now = 0;
        for c in 0..n as u32 {
            now += r.below(3) as u32;
            fast.advance(now);
            if r.below(2) == 0 {
                // the summary path (valid until the next insertion on a worker)
                fast.rebuild_summaries(now);
            }
            let w = r.below(workers as u64) as usize;
            let m = random_chunk(&mut r, now);
            let t0 = m.arrival + r.below(4) as u32;
            fast.chunks[c as usize].gamma = m.gamma;
            fast.chunks[c as usize].inv_d = m.inv_d;
            meta.push(m);
            // probes on every worker
            for pw in 0..workers {
                let g = [0.5, 1.0, 2.0, 3.0][r.below(4) as usize];
                let pt0 = now + r.below(6) as u32;
                let (p, delta, d) = (0.5 + r.below(7) as f64, r.below(3) as u32, 1.0 + r.below(4) as f64);
                let a = fast.q_edge(pw, g, pt0, p, delta, d);
                let b = slow.q(pw, &meta, g, pt0, p, delta, d);
                let c = fast.q_scan(pw, g, pt0, p, delta, d);
                prop_assert_eq!(a, c);
                same_q(&a, &b)?;
            }
            let qv = fast.q_edge(w, m.gamma, t0, m.p, 0, 1.0);
            let len = m.p.ceil() as u32;
            fast.insert(w, c, qv.t_star, len).unwrap();
            slow.insert(w, c, qv.t_star, len);
            if r.below(3) == 0 {
                fast.compact();
            }
            for (pw, ys) in slow.slots.iter().enumerate() {
                let mut from_fast = vec![NONE; ys.len()];
                for seg in fast.segments(pw) {
                    for t in seg.start..seg.end {
                        if (t as usize) < from_fast.len() { from_fast[t as usize] = seg.chunk; }
                    }
                }
                prop_assert_eq!(&from_fast, ys);
            }
        }
    }
}

/// The same comparison on fixed seeds, counting that the runs really dispatch (not all errors).
#[test]
fn fast_dispatch_equals_reference_fixed_seeds() {
    let (mut ok, mut ties) = (0, 0);
    for seed in 0..1000u64 {
        let scn = random_scenario(seed);
        let mut s = PreemptScheduler::new(&scn, Policy::Greedy).unwrap();
        if run_all(&mut s, &mut |_| {}).is_ok() {
            assert_eq!(common::fast_outcome(&s), following(&s, &scn), "seed {seed}");
            let plain = reference::greedy(&scn);
            ties += (plain != common::fast_outcome(&s)) as u32;
            ok += 1;
        }
    }
    println!("{ok} scenarios ran; {ties} broke a tie of eq. (5) other than the lowest index");
    assert!(ok > 875, "only {ok} of 1000 scenarios ran");
    assert!(
        ties * 20 < ok,
        "ties broken otherwise in {ties} of {ok} scenarios"
    );
}

/// A paper-like generated scenario, large enough for the pool compaction between slots to run.
#[test]
fn fast_dispatch_equals_reference_generated() {
    let opts = mlsched_lab::gen::GenOptions {
        seed: 9,
        jobs: Some(60),
        nodes: Some(6),
        trace: None,
        slots: None,
    };
    let text = mlsched_lab::gen::generate_json("preempt", &opts).unwrap();
    let doc: mlsched_scenario::kinds::preempt::doc::PreemptDoc =
        serde_json::from_str(&text).unwrap();
    let scn = doc.validate().unwrap();
    let mut s = PreemptScheduler::new(&scn, Policy::Greedy).unwrap();
    run_all(&mut s, &mut |_| {}).unwrap();
    assert_eq!(common::fast_outcome(&s), following(&s, &scn));
}

/// The reference's greedy, taking the fast path's choice wherever it is within 1e-9 (relative)
/// of the reference's minimum Q: the fast path's eq. (5) rounds differently (fixed-point
/// sum_A2, its own evaluation order), so a tie of real numbers may be broken the other way.
/// Everything else — which candidates are near-minimal, t*, preemptions, slots — is the
/// reference's own.
fn following(
    s: &PreemptScheduler,
    scn: &mlsched_kernel::model::preempt::PreemptScenario,
) -> Vec<reference::ChunkOutcome> {
    let choices: Vec<reference::Choice> = common::fast_outcome(s)
        .iter()
        .map(|o| (o.0, o.1, o.2))
        .collect();
    reference::greedy_following(scn, Some(&choices), 1e-9).0
}

/// The fast Q (fixed-point sum_A2) and the reference's (its own eq. 5 in f64) agree on t*,
/// sum_A1 p-hat exactly and on sum_A2 1/D' and Q up to rounding.
fn same_q(a: &QValue, b: &RefQ) -> Result<(), TestCaseError> {
    prop_assert_eq!((a.t_star, a.a1_slots), (b.t_star, b.a1_slots));
    let a2 = a.a2_weight as f64 / WEIGHT_ONE;
    prop_assert!(
        (a2 - b.a2_sum).abs() <= 1e-9 * (1.0 + b.a2_sum),
        "{:?} vs {:?}",
        a,
        b
    );
    prop_assert!(
        (a.q - b.q).abs() <= 1e-9 * (1.0 + b.q.abs()),
        "{:?} vs {:?}",
        a,
        b
    );
    Ok(())
}

fn random_chunk(r: &mut SplitMix64, now: u32) -> RefChunk {
    RefChunk {
        gamma: [0.5, 1.0, 2.0, 3.0][r.below(4) as usize],
        inv_d: 1.0 / (1 + r.below(4)) as f64,
        arrival: now,
        p: [1.0, 2.0, 3.0, 1.5, 2.25, 4.0][r.below(6) as usize],
    }
}

/// What the brute force measured over the random cases.
#[derive(Default, Debug)]
struct Gaps {
    cases: u32,
    exact_cases: u32,
    max_q_minus_completion: f64,
    sum_rel_frac_gap: f64,
    max_rel_frac_gap: f64,
    q_below_frac: u32,
}

/// Eq. (5) claims Q = the increase of the total flow time caused by inserting the chunk.
/// Checked by brute force on random plans (slot arrays), re-evaluating both objectives on the
/// whole plan before and after the insertion:
/// (a) the completion-time flow sum (c_jd - r_j)/D_j increases by exactly
///     (t* + L - r)/D + L sum_{A2 chunks with a slot >= t*} 1/D', L = ceil(p);
/// (b) Q equals that increase exactly whenever p is whole, A1 fills [t0, t*) and every A2
///     chunk still has a slot >= t* — the gaps otherwise are slot rounding (p vs ceil p),
///     idle or A2 slots inside [t0, t*) and A2 chunks that finish before t*;
/// (c) the fractional flow of fig. 7 increases by exactly
///     L (t* - r + (L - 1)/2) / (D p) + L sum_{A2} k'/(D' p'), k' = slots moved; Q overstates
///     it by (p + 1)/(2D) for the chunk itself (Q charges completion, fig. 7 averages over the
///     slots) plus p/D' (1 - k'/p') per partly-run A2 chunk.
#[test]
fn eq5_brute_force() {
    let mut gaps = Gaps::default();
    for seed in 0..3000u64 {
        let mut r = SplitMix64::new(seed);
        let mut plan = SlotPlan::new(1);
        let mut meta = Vec::new();
        let mut now = 0;
        for c in 0..(1 + r.below(7)) as u32 {
            now += r.below(3) as u32;
            let m = random_chunk(&mut r, now);
            let t0 = now + r.below(3) as u32;
            meta.push(m);
            let qv = plan.q(0, &meta, m.gamma, t0, m.p, 0, 1.0);
            plan.insert(0, c, qv.t_star, m.p.ceil() as u32);
        }
        // The probe chunk.
        now += r.below(3) as u32;
        let mut m = random_chunk(&mut r, now);
        let delta = r.below(3) as u32;
        let d = 1.0 + r.below(4) as f64;
        m.inv_d = 1.0 / d;
        let t0 = m.arrival + delta;
        let c = meta.len() as u32;
        meta.push(m);
        let q = plan.q(0, &meta, m.gamma, t0, m.p, delta, d);
        let len = m.p.ceil() as u32;
        let ts = q.t_star;
        // A2 membership, k' (slots >= t*) per chunk, before inserting.
        let ys = plan.slots[0].clone();
        let pending = |x: u32| {
            ys.iter()
                .enumerate()
                .any(|(t, &y)| y == x && t >= t0 as usize)
        };
        let moved = |x: u32| {
            ys.iter()
                .enumerate()
                .filter(|&(t, &y)| y == x && t >= ts as usize)
                .count()
        };
        let a2: Vec<u32> = (0..c)
            .filter(|&x| pending(x) && meta[x as usize].gamma < m.gamma)
            .collect();
        let (c0, f0) = (plan.completion_flow(&meta), plan.fractional_flow(&meta));
        plan.insert(0, c, ts, len);
        let (c1, f1) = (plan.completion_flow(&meta), plan.fractional_flow(&meta));
        let l = len as f64;
        let rj = m.arrival as f64;
        // (a)
        let delayed: f64 = a2
            .iter()
            .filter(|&&x| moved(x) > 0)
            .map(|&x| meta[x as usize].inv_d)
            .sum();
        let want_c = (ts as f64 + l - rj) / d + l * delayed;
        assert!(
            ((c1 - c0) - want_c).abs() < 1e-9,
            "seed {seed}: completion flow"
        );
        // (b)
        let a1_fills = q.a1_slots == (ts - t0) as u64;
        let all_delayed = a2.iter().all(|&x| moved(x) > 0);
        if m.p.fract() == 0.0 && a1_fills && all_delayed {
            assert!(
                (q.q - (c1 - c0)).abs() < 1e-9,
                "seed {seed}: eq. 5 exact case"
            );
            gaps.exact_cases += 1;
        }
        gaps.max_q_minus_completion = gaps.max_q_minus_completion.max((q.q - (c1 - c0)).abs());
        // (c)
        let own = l * (ts as f64 - rj + (l - 1.0) / 2.0) / (d * m.p);
        let others: f64 = a2
            .iter()
            .map(|&x| l * moved(x) as f64 * meta[x as usize].inv_d / meta[x as usize].p)
            .sum();
        assert!(
            ((f1 - f0) - (own + others)).abs() < 1e-9,
            "seed {seed}: fractional flow"
        );
        let rel = (q.q - (f1 - f0)) / q.q;
        gaps.sum_rel_frac_gap += rel.abs();
        gaps.max_rel_frac_gap = gaps.max_rel_frac_gap.max(rel.abs());
        gaps.q_below_frac += (q.q < f1 - f0 - 1e-9) as u32;
        gaps.cases += 1;
    }
    println!(
        "eq5 brute force: {} cases, {} exact (Q == completion-flow increase), max |Q - dC| = {:.3}, \
         Q vs fractional-flow increase dF: mean |Q - dF| / Q {:.3}, max {:.3}, Q < dF in {} cases",
        gaps.cases,
        gaps.exact_cases,
        gaps.max_q_minus_completion,
        gaps.sum_rel_frac_gap / gaps.cases as f64,
        gaps.max_rel_frac_gap,
        gaps.q_below_frac
    );
    assert!(
        gaps.exact_cases > 100,
        "the exact case must be exercised: {gaps:?}"
    );
}

/// A hand-computed case: worker running chunk X (gamma 1, D' = 2, 4 slots from slot 0); a new
/// chunk (gamma 2, p = 2, D = 1, Delta = 1, r = 1) preempts it at t0 = 2:
/// Q = 1 + 0 + 2 + 2 * 1/2 = 4; X is split into [0, 2) and [4, 6).
#[test]
fn hand_example() {
    let mut p = Plans::new(1, 2);
    p.chunks[0].gamma = 1.0;
    p.chunks[0].inv_d = 0.5;
    p.insert(0, 0, 0, 4).unwrap();
    p.advance(1);
    let q = p.q_edge(0, 2.0, 2, 2.0, 1, 1.0);
    assert_eq!(
        (q.q, q.t_star, q.a1_slots, q.a2_weight),
        (4.0, 2, 0, 1 << 39)
    );
    // The reference's own eq. (5) on the same plan (slot arrays).
    let mut y = SlotPlan::new(1);
    y.insert(0, 0, 0, 4);
    let meta = [
        RefChunk {
            gamma: 1.0,
            inv_d: 0.5,
            arrival: 0,
            p: 4.0,
        },
        RefChunk {
            gamma: 2.0,
            inv_d: 1.0,
            arrival: 1,
            p: 2.0,
        },
    ];
    let r = y.q(0, &meta, 2.0, 2, 2.0, 1, 1.0);
    assert_eq!((r.q, r.t_star, r.a1_slots, r.a2_sum), (4.0, 2, 0, 0.5));
    p.chunks[1].gamma = 2.0;
    p.chunks[1].inv_d = 1.0;
    assert_eq!(p.insert(0, 1, 2, 2).unwrap(), 1);
    let segs: Vec<(u32, u32, u32)> = p.segments(0).map(|s| (s.chunk, s.start, s.end)).collect();
    assert_eq!(segs, vec![(0, 0, 2), (1, 2, 4), (0, 4, 6)]);
    // A lower-gamma chunk now waits for both: A1 = X (2 left) and the new one (2): t* = 6.
    let q2 = p.q_edge(0, 0.5, 2, 1.0, 0, 1.0);
    assert_eq!((q2.t_star, q2.a1_slots), (6, 4));
}
