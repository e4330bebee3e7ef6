#!/usr/bin/env python3
"""Zhou et al. A_online with rounds clipped at T (the default) and past T, against the online
baselines (docs/experiments-zhou.md).

For T in {150, 300}, architecture in {ps, ring} and `rounds_past_horizon` in {false, true}:
`mlsched gen online --seed S --slots T --jobs J --nodes H [--rounds-past-horizon]` per seed,
every policy run with `mlsched run --json -`, and per policy the mean and 95% CI over the seeds
of: jobs scheduled; the weighted completion time sum_j w_j c_j over *all* jobs with an
unscheduled job charged c_j = T ("charged"; past T every job is scheduled, so it is the plain
sum); the same sum over the jobs every policy scheduled ("common"); and A_online's "common"
divided by the policy's, per seed (< 1: A_online better). The sweep plots are the CLI's
(`mlsched compare 'DIR/s-{seed}.json' --seeds A..B`), written beside the tables.

Usage (repository root, after `cargo build --release -p mlsched-cli`):
  scripts/exp-zhou.py                     # the docs' tables and plots (docs/experiments/zhou)
  scripts/exp-zhou.py --smoke             # 2 seeds, tiny scenarios, no files kept
"""
import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import explib  # noqa: E402

POLICIES = ["online", "fifo", "drf", "las", "optimus", "antman"]


def to_ring(doc):
    """gen::online::to_ring: no PS types, one U_j per job (its first U_j^p)."""
    doc["architecture"] = "ring"
    doc.pop("ps_types", None)
    for j in doc["jobs"]:
        j["update_time"] = j["update_time"][:1]
    return doc


def one_seed(args, seed, slots, arch, past, path):
    """Generates the seed's scenario at `path`, runs every policy, returns the readings."""
    extra = ["--slots", slots, "--jobs", args.jobs, "--nodes", args.nodes]
    if past:
        extra.append("--rounds-past-horizon")
    doc = explib.gen(args.bin, "online", seed, *extra)
    if arch == "ring":
        doc = to_ring(doc)
    explib.write_json(path, doc)
    res = {p: explib.run(args.bin, path, p) for p in POLICIES}
    w = [j["weight"] for j in doc["jobs"]]
    done = {p: [j["completion_slot"] if j["scheduled"] else None for j in r["jobs"]]
            for p, r in res.items()}
    common = [k for k in range(len(w)) if all(done[p][k] is not None for p in POLICIES)]
    row = {"common_jobs": len(common), "per": {}}
    for p, c in done.items():
        sched = sum(w[k] * x for k, x in enumerate(c) if x is not None)
        row["per"][p] = {
            "scheduled": sum(x is not None for x in c),
            "charged": sched + sum(w[k] * slots for k, x in enumerate(c) if x is None),
            "common": sum(w[k] * c[k] for k in common),
            "makespan": max((x for x in c if x is not None), default=0),
        }
    return row


def setting(args, seeds, slots, arch, past, work):
    """Every seed of one setting; returns (name, rows)."""
    name = f"T{slots}-{arch}-{'past' if past else 'clip'}"
    rows = []
    for s in seeds:
        rows.append(one_seed(args, s, slots, arch, past, os.path.join(work, name, f"s-{s}.json")))
    return name, rows


def summary(name, rows):
    """The setting's Markdown table."""
    out = []
    for p in POLICIES:
        per = [r["per"][p] for r in rows]
        ratio = [r["per"]["online"]["common"] / r["per"][p]["common"]
                 for r in rows if r["per"][p]["common"] > 0]
        out.append([
            p,
            explib.fmt([x["scheduled"] for x in per]),
            explib.fmt([x["charged"] for x in per], 2, 1e6),
            explib.fmt([x["common"] for x in per], 3, 1e6),
            "-" if p == "online" else explib.fmt(ratio, 3),
            explib.fmt([x["makespan"] for x in per], 0),
        ])
    common = explib.fmt([r["common_jobs"] for r in rows])
    head = ["policy", "scheduled", "w.c.t. all jobs (charged T), 10^6",
            f"w.c.t. common jobs ({common}), 10^6", "online / policy (common)", "makespan"]
    return f"### {name}\n\n" + explib.table(head, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="1..10")
    ap.add_argument("--jobs", type=int, default=30)
    ap.add_argument("--nodes", type=int, default=30)
    ap.add_argument("--slots", default="150,300")
    ap.add_argument("--arch", default="ps,ring")
    ap.add_argument("--out", default="docs/experiments/zhou",
                    help="tables, results.json and plots (nothing with --smoke)")
    ap.add_argument("--smoke", action="store_true", help="2 seeds, 6 jobs, 6 servers, T = 40")
    ap.add_argument("--bin", default=explib.find_bin())
    args = ap.parse_args()
    if args.smoke:
        args.seeds, args.jobs, args.nodes, args.slots = "1..2", 6, 6, "40"
    seeds = explib.parse_seeds(args.seeds)
    timer = explib.Timer()
    results, text = {}, []
    with tempfile.TemporaryDirectory() as work:
        for slots in map(int, args.slots.split(",")):
            for arch in args.arch.split(","):
                for past in (False, True):
                    name, rows = setting(args, seeds, slots, arch, past, work)
                    results[name] = rows
                    text.append(summary(name, rows))
                    print(text[-1])
                    sys.stdout.flush()
                    if not args.smoke:
                        out = os.path.join(args.out, name)
                        explib.sweep_plots(args.bin, os.path.join(work, name, "s-{seed}.json"),
                                           seeds, POLICIES, out)
    took = timer.seconds()
    print(f"# {len(seeds)} seeds, {args.jobs} jobs, {args.nodes} servers; took {took:.0f} s")
    explib.save(args, text, results)


if __name__ == "__main__":
    main()
