#!/usr/bin/env python3
"""Dorm's events solved by a real MILP solver (HiGHS), against the kernel's branch and bound
(docs/oasis.md, "Proving optimality on the OASiS experiment's events"). A probe, not part of
the build: it needs `pip install highspy`.

Reads the events `tests/tests/dorm_milp_dump.rs` writes (DIR/p-J-N-S.jsonl beside the scenario
DIR/p-J-N-S.json) and solves each as the MILP of docs/oasis.md ("The MILP of one event"): one
binary y_jv per active job j and count v in 0..=hi_j (sum_v y_jv = 1), so the utilisation, the
fairness loss max(0, f_j - sigma_j(v)) and Z_j = ceil(v b_j / B_j) are constants per column;
the fairness row <= theta and the adjustment row (at most 3 jobs with X_j^old > 0 leave it);
the fairness bound doubled from 0.2 until feasible, then both bounds lifted past the sum of
the f_j, as the kernel does. Capacity: `--level place` (default) adds the placement, integer
workers per (job, worker server) and PSs per (job, PS server) summing to the chosen counts,
with every server's capacity per resource (the MILP as stated); `--level pool` has only the
pool totals (the relaxation the branch and bound prunes with). Neither has the kernel's
first-fit-decreasing packing, so the optimum may lie above Dorm's; `--ffd` also reports whether
the solver's counts pack first fit decreasing.

Per file: events, events HiGHS proved optimal, time (total, worst event), and the MILP
optimum against Dorm's objective (above / equal / below).

Usage:
  DORM_DUMP_DIR=/tmp/d DORM_DUMP_SEEDS=1,2,3 DORM_DUMP_JOBS=10 DORM_DUMP_NODES=5 \\
    cargo test -p mlsched-tests --test dorm_milp_dump -- --ignored
  scripts/dorm-milp-probe.py '/tmp/d/*.jsonl'
"""
import argparse
import glob
import json
import math
import time

import highspy
import numpy as np

EPS = 1e-9
THETA0 = 0.2  # DORM_FAIRNESS_LOSS_MAX
ADJUST = 3  # DORM_ADJUST_MAX
INF = highspy.kHighsInf


def ps_for(job, v):
    return 0 if v == 0 else max(1, math.ceil(v * job["worker_bw"] / job["ps_bw"] - 1e-12))


def totals(doc):
    r = len(doc["resources"])
    w = [sum(s[q] for s in doc["worker_servers"]) for q in range(r)]
    p = [sum(s[q] for s in doc["ps_servers"]) for q in range(r)]
    return w, p, [w[q] + p[q] for q in range(r)]


def usage(doc, job, v):
    """(utilisation, dominant share) of `v` workers and their PSs."""
    _, _, c = totals(doc)
    z = ps_for(job, v)
    a = [job["worker_demand"][q] * v + job["ps_demand"][q] * z for q in range(len(c))]
    shares = [a[q] / c[q] for q in range(len(c)) if c[q] > 0]
    return sum(shares), max(shares + [0.0])


def row(h, lo, hi, cols, vals):
    if cols:
        h.addRow(lo, hi, len(cols), np.array(cols, dtype=np.int32), np.array(vals, dtype=float))


def solve(doc, ev, theta, amax, level, limit):
    """The MILP at bounds (theta, amax): (objective, counts) or None if infeasible."""
    r = len(doc["resources"])
    w_tot, p_tot, _ = totals(doc)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", limit)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", EPS)
    cols = []  # (j, v, utilisation, loss, job)
    for j, hi, old, fair, _ in ev["jobs"]:
        job = doc["jobs"][j]
        for v in range(hi + 1):
            g, sigma = usage(doc, job, v)
            cols.append((j, v, g, max(0.0, fair - sigma), job, old))
    n = len(cols)
    h.addVars(n, np.zeros(n), np.ones(n))
    h.changeColsIntegrality(n, np.arange(n, dtype=np.int32), np.ones(n, dtype=np.uint8))
    h.changeColsCost(n, np.arange(n, dtype=np.int32), np.array([-c[2] for c in cols]))
    by_job = {}
    for i, c in enumerate(cols):
        by_job.setdefault(c[0], []).append(i)
    for ii in by_job.values():
        row(h, 1.0, 1.0, ii, [1.0] * len(ii))
    if level == "pool":
        for q in range(r):
            ii = list(range(n))
            row(h, -INF, w_tot[q] + EPS, ii, [c[4]["worker_demand"][q] * c[1] for c in cols])
            row(h, -INF, p_tot[q] + EPS, ii, [c[4]["ps_demand"][q] * ps_for(c[4], c[1]) for c in cols])
    else:
        place(h, doc, ev, cols, by_job, n)
    if math.isfinite(theta):
        row(h, -INF, theta + EPS, list(range(n)), [c[3] for c in cols])
    if amax is not None:
        kept = [i for i, c in enumerate(cols) if c[5] > 0 and c[1] == c[5]]
        row(h, len(kept) - amax, INF, kept, [1.0] * len(kept))
    h.run()
    st = h.getModelStatus()
    if st == highspy.HighsModelStatus.kInfeasible:
        return None, True
    x = h.getSolution().col_value
    counts = {cols[i][0]: cols[i][1] for i in range(n) if x[i] > 0.5}
    proven = st == highspy.HighsModelStatus.kOptimal
    return (-h.getInfo().objective_function_value, counts), proven


def place(h, doc, ev, cols, by_job, n):
    """Integer units per (job, server), summing to the chosen counts, within every server."""
    ws, ps = doc["worker_servers"], doc["ps_servers"]
    act = [e[0] for e in ev["jobs"]]
    width = len(ws) + len(ps)
    m = len(act) * width
    h.addVars(m, np.zeros(m), np.full(m, INF))
    h.changeColsIntegrality(m, np.arange(n, n + m, dtype=np.int32), np.ones(m, dtype=np.uint8))
    at = lambda a, s: n + a * width + s  # noqa: E731
    for a, j in enumerate(act):
        job, ii = doc["jobs"][j], by_job[j]
        row(h, 0.0, 0.0, [at(a, s) for s in range(len(ws))] + ii,
            [1.0] * len(ws) + [-float(cols[i][1]) for i in ii])
        row(h, 0.0, 0.0, [at(a, len(ws) + s) for s in range(len(ps))] + ii,
            [1.0] * len(ps) + [-float(ps_for(job, cols[i][1])) for i in ii])
    for q in range(len(doc["resources"])):
        for pool, off, key in ((ws, 0, "worker_demand"), (ps, len(ws), "ps_demand")):
            for s, cap in enumerate(pool):
                use = [(at(a, off + s), doc["jobs"][j][key][q]) for a, j in enumerate(act)
                       if doc["jobs"][j][key][q] > 0]
                row(h, -INF, cap[q] + EPS, [u[0] for u in use], [u[1] for u in use])


def event(doc, ev, level, limit):
    """The kernel's ladder: theta doubled until feasible, both bounds lifted past sum f_j."""
    total_fair = sum(e[3] for e in ev["jobs"])
    theta, amax = THETA0, ADJUST
    while True:
        res, proven = solve(doc, ev, theta, amax, level, limit)
        if res is not None:
            return res, proven
        if not proven:
            return None, False  # time limit before feasibility was decided
        if theta > total_fair + EPS:
            theta, amax = math.inf, None
        else:
            theta *= 2


def ffd(doc, counts):
    """Whether the counts pack first fit decreasing, as the kernel places them."""
    r = len(doc["resources"])
    pools = ([list(s) for s in doc["worker_servers"]], [list(s) for s in doc["ps_servers"]])
    key = lambda j: ([-x for x in doc["jobs"][j]["worker_demand"]],  # noqa: E731
                     [-x for x in doc["jobs"][j]["ps_demand"]], j)
    for j in sorted(counts, key=key):
        job = doc["jobs"][j]
        for pool, dem, k in ((pools[0], job["worker_demand"], counts[j]),
                             (pools[1], job["ps_demand"], ps_for(job, counts[j]))):
            for _ in range(k):
                s = next((s for s in pool if all(s[q] - dem[q] >= -EPS for q in range(r))), None)
                if s is None:
                    return False
                for q in range(r):
                    s[q] -= dem[q]
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("events", help="glob of .jsonl event files")
    ap.add_argument("--level", choices=["place", "pool"], default="place")
    ap.add_argument("--limit", type=float, default=60.0, help="HiGHS seconds per solve")
    ap.add_argument("--pick", default=None, help="event indices to solve, e.g. 20,40,60")
    ap.add_argument("--ffd", action="store_true")
    args = ap.parse_args()
    pick = None if args.pick is None else {int(i) for i in args.pick.split(",")}
    for path in sorted(glob.glob(args.events)):
        doc = json.load(open(path[: -len("l")]))
        n = proven = above = equal = below = packs = 0
        total = worst = 0.0
        active = 0
        for i, line in enumerate(open(path)):
            if pick is not None and i not in pick:
                continue
            ev = json.loads(line)
            t0 = time.time()
            res, ok = event(doc, ev, args.level, args.limit)
            dt = time.time() - t0
            n += 1
            total += dt
            worst = max(worst, dt)
            active = max(active, len(ev["jobs"]))
            proven += ok
            if res is None:
                continue
            dorm = sum(usage(doc, doc["jobs"][e[0]], e[4])[0] for e in ev["jobs"])
            above += res[0] > dorm + 1e-7
            equal += abs(res[0] - dorm) <= 1e-7
            below += res[0] < dorm - 1e-7
            packs += args.ffd and ffd(doc, res[1])
        extra = f"; the solver's counts pack first fit on {packs}" if args.ffd else ""
        print(f"{path}: {n} events (up to {active} active jobs), HiGHS proved {proven}, "
              f"{total:.1f} s ({worst:.2f} s at most); MILP optimum above Dorm's on {above}, "
              f"equal on {equal}, below on {below}{extra}", flush=True)


if __name__ == "__main__":
    main()
