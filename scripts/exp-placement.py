#!/usr/bin/env python3
"""HAS / JPS (Liu et al. 2024) on Gavel throughputs and on commensurate ones, against Optimus,
Optimus-LB and LAS (docs/experiments-placement.md).

- `gavel`: `mlsched gen placement --seed S --jobs J --nodes N` as generated: S distinct Gavel job
  types, rho in samples/s = Gavel steps/s x batch size (0.5 to 36,000 samples/s), an epoch =
  1,000 steps (docs/placement.md).
- `commensurate`: the same document with each job's throughput row rescaled to a geometric mean
  of 500 samples/s (rho'_iw = 500 rho_iw / geomean_w rho_iw: the job's relative speeds on K80,
  P100 and V100 are Gavel's) and 50,000 samples per epoch for every job: the scale of the
  paper's Table II (275-1,754 samples/s, 50,000-100,000 samples). Epochs, model sizes and links
  are unchanged.

Per setting and policy, over the seeds: the average JCT of the chosen assignment (mean and 95%
CI, seconds) and, per seed, the policy's average JCT divided by HAS's (> 1: HAS better), and
how often HAS beats Optimus-LB. The sweep plots are the CLI's
(`mlsched compare 'DIR/s-{seed}.json' --seeds A..B`).

Usage (repository root, after `cargo build --release -p mlsched-cli`):
  scripts/exp-placement.py            # docs/experiments/placement
  scripts/exp-placement.py --smoke    # 2 seeds, no files kept
"""
import argparse
import json
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import explib  # noqa: E402

POLICIES = ["has", "jps", "optimus", "optimus-lb", "las"]
GEOMEAN = 500.0
SAMPLES = 50_000.0


def commensurate(doc):
    """Each job's row to geometric mean 500 samples/s, 50,000 samples per epoch."""
    for j in doc["jobs"]:
        g = math.exp(sum(math.log(x) for x in j["throughput"]) / len(j["throughput"]))
        j["throughput"] = [GEOMEAN * x / g for x in j["throughput"]]
        j["samples"] = SAMPLES
    return doc


def one_seed(args, seed, name, size, path):
    jobs, nodes = size
    doc = explib.gen(args.bin, "placement", seed, "--jobs", jobs, "--nodes", nodes)
    if name == "commensurate":
        doc = commensurate(doc)
    explib.write_json(path, doc)
    tput = [x for j in doc["jobs"] for x in j["throughput"]]
    row = {"spread": max(tput) / min(tput), "per": {}}
    for p in POLICIES:
        row["per"][p] = explib.run(args.bin, path, p)["best"]["avg_jct"]
    return row


def summary(title, rows):
    out = []
    for p in POLICIES:
        ratio = [r["per"][p] / r["per"]["has"] for r in rows]
        out.append([p, explib.fmt([r["per"][p] for r in rows], 0),
                    "-" if p == "has" else explib.fmt(ratio, 3)])
    wins = sum(r["per"]["has"] < r["per"]["optimus-lb"] for r in rows)
    spread = explib.fmt([r["spread"] for r in rows], 0)
    note = (f"max / min throughput over all jobs and workers: {spread}; HAS below Optimus-LB "
            f"on {wins} of {len(rows)} seeds\n\n")
    return f"### {title}\n\n" + note + explib.table(
        ["policy", "average JCT (s)", "policy / HAS (per seed)"], out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="1..10")
    ap.add_argument("--sizes", default="4x3,6x4", help="JOBSxNODES (5 GPUs per node), comma list")
    ap.add_argument("--out", default="docs/experiments/placement")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--bin", default=explib.find_bin())
    args = ap.parse_args()
    if args.smoke:
        args.seeds, args.sizes = "1..2", "3x2"
    seeds = explib.parse_seeds(args.seeds)
    sizes = [tuple(int(x) for x in s.split("x")) for s in args.sizes.split(",")]
    timer = explib.Timer()
    results, text = {}, []
    with tempfile.TemporaryDirectory() as work:
        for size in sizes:
            for name in ("gavel", "commensurate"):
                key = f"{name}-{size[0]}jobs-{size[1]}nodes"
                rows = [one_seed(args, s, name, size, os.path.join(work, key, f"s-{s}.json"))
                        for s in seeds]
                results[key] = rows
                explib.setting_done(args, seeds, text, summary(key, rows),
                                    os.path.join(work, key), POLICIES, os.path.join(args.out, key))
    print(f"# {len(seeds)} seeds; took {timer.seconds():.0f} s")
    explib.save(args, text, results)


if __name__ == "__main__":
    main()
