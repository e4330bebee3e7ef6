#!/usr/bin/env python3
"""CSRP (Song et al. 2023) under three link-unit choices, against the route baselines
(docs/experiments-route.md).

`mlsched gen route --seed S --nodes N --jobs J` writes bandwidths in **Gbps** (host links
C = 10, fabric links C = 40, background load and per-path demands in the same unit). The paper
never gives the unit of eq. (5)'s bottleneck bandwidth BW_b, so the network cost N = l h and with
it eq. (11) = (J_v / J) (F-score part + network part) depend on it. Each seed's document is run
as generated (`gbps`), and with every capacity, background load and job bandwidth multiplied
by 1,000 (`mbps`), by 1/100 (`100gbps`: units of 100 Gbps) and by 1/10,000 (`10tbps`: units of
10 Tbps): the same physical network in four units.

Per unit and policy, over the seeds (mean and 95% CI): eq. (11) cost, mean network cost
N-bar, deadline-violation rate (%), servers used. The sweep plots are the CLI's
(`mlsched compare 'DIR/s-{seed}.json' --seeds A..B`).

Usage (repository root, after `cargo build --release -p mlsched-cli`):
  scripts/exp-route.py             # docs/experiments/route
  scripts/exp-route.py --smoke     # 2 seeds, 10 nodes, 60 jobs, no files kept
"""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import explib  # noqa: E402

POLICIES = ["route", "fifo", "fair", "capacity", "deadline", "deadline-preemptive"]
UNITS = [("mbps", 1000.0), ("gbps", 1.0), ("100gbps", 0.01), ("10tbps", 0.0001)]


def rescale(doc, k):
    """Every bandwidth in the unit 1/k of the generated one (capacity, used, demand)."""
    for link in doc["topology"]["links"]:
        link["capacity"] *= k
        link["used"] *= k
    for j in doc["jobs"]:
        j["bandwidth"] *= k
    return doc


def one_seed(args, seed, unit, k, path):
    doc = explib.gen(args.bin, "route", seed, "--nodes", args.nodes, "--jobs", args.jobs)
    explib.write_json(path, rescale(doc, k))
    row = {}
    for p in POLICIES:
        s = explib.run(args.bin, path, p)["summary"]
        row[p] = {
            "cost": s["cost"],
            "net": s["avg_network_cost"],
            "viol": 100.0 * s["deadline_violation_rate"],
            "servers": s["servers_used"],
        }
    return row


def summary(unit, rows):
    out = []
    for p in POLICIES:
        per = [r[p] for r in rows]
        out.append([p, explib.fmt([x["cost"] for x in per], 3),
                    explib.fmt([x["net"] for x in per], 1),
                    explib.fmt([x["viol"] for x in per], 2),
                    explib.fmt([x["servers"] for x in per], 1)])
    best = {}
    for r in rows:
        b = min(POLICIES, key=lambda p: (r[p]["cost"], POLICIES.index(p)))
        best[b] = best.get(b, 0) + 1
    note = "lowest eq. (11) per seed: " + ", ".join(f"{p} {n}" for p, n in best.items()) + "\n\n"
    head = ["policy", "eq. (11) cost", "N-bar (network cost)", "violations %", "servers used"]
    return f"### unit {unit}\n\n" + note + explib.table(head, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="1..10")
    ap.add_argument("--nodes", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=450)
    ap.add_argument("--out", default="docs/experiments/route")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--bin", default=explib.find_bin())
    args = ap.parse_args()
    if args.smoke:
        args.seeds, args.nodes, args.jobs = "1..2", 10, 60
    seeds = explib.parse_seeds(args.seeds)
    timer = explib.Timer()
    results, text = {}, []
    with tempfile.TemporaryDirectory() as work:
        for unit, k in UNITS:
            rows = [one_seed(args, s, unit, k, os.path.join(work, unit, f"s-{s}.json"))
                    for s in seeds]
            results[unit] = rows
            explib.setting_done(args, seeds, text, summary(unit, rows),
                                os.path.join(work, unit), POLICIES, os.path.join(args.out, unit))
    print(f"# {len(seeds)} seeds, {args.nodes} nodes, {args.jobs} jobs; "
          f"took {timer.seconds():.0f} s")
    explib.save(args, text, results)


if __name__ == "__main__":
    main()
