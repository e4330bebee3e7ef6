#!/usr/bin/env python3
"""Evaluation of kind "online" (Zhou et al. 2022, section 7; docs/online.md) by seed sweeps.

`mlsched compare --seeds` sweeps trace windows only and reports the weighted completion time of
the scheduled jobs alone; this script sweeps generated scenarios (`mlsched gen online`) and also
reports the two readings a fair comparison needs:

- `charged`: sum over all jobs of w_j c_j, an unscheduled job charged c_j = T (a lower bound
  on when it could finish: it has not finished by the horizon), and
- `common`: sum of w_j c_j over the jobs that every policy scheduled (same jobs for everyone),

beside the paper's number (`sched`: scheduled jobs only) and the scheduled count. For A_online
it also splits the unscheduled jobs into `short-window` (its shortest possible duration, all
D_j workers on one server, exceeds every A_dual window it can get: rejected by the doubling
framework whatever the prices), `infeasible` (in no window did a schedule fit the free
capacity) and `priced-out` (some window had a schedule, but its cost was >= w_j each time).

Usage (from the repository root, after `cargo build --release -p mlsched-cli`):
  scripts/online-eval.py --sweep jobs --values 50,100,200,300 --seeds 1..10 --arch ps
  scripts/online-eval.py --sweep nodes --values 50,100,150,200,250 --seeds 1..10 --arch ring
  scripts/online-eval.py --sweep F --values 1,2,4,8,16 --seeds 1..10
  scripts/online-eval.py --sweep jobs --values 100 --seeds 1..10 --alpha 1
  scripts/online-eval.py --sweep jobs --values 100 --seeds 1..10 --trace data/philly-via-pollux/philly_jobs_2017-10-09_2017-10-10.csv

Every number is deterministic (the CLI is); the script only aggregates. Standard library only.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

POLICIES = ["online", "fifo", "drf", "las", "optimus"]


def find_bin():
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    return os.path.join(target, "release", "mlsched")


def to_ring(doc):
    """gen::online::to_ring: no PS types, one U_j per job (its first U_j^p)."""
    doc["architecture"] = "ring"
    doc.pop("ps_types", None)
    for j in doc["jobs"]:
        j["update_time"] = j["update_time"][:1]
    return doc


def windows(slots, alpha):
    """(tau, max usable duration) per round: A_dual windows [base, base + len), L <= len - 1."""
    out = []
    i = 0
    while True:
        tau = 1 << i
        if alpha * tau >= slots:
            break
        best = 0
        for iota in range(1, alpha + 1):
            base = alpha * tau + (iota - 1) * tau
            if base + 2 > slots:
                break
            best = max(best, min(tau, slots - base) - 1)
        out.append((tau, best))
        i += 1
    return out


def shortest(doc, job):
    """Shortest duration any schedule of A_mincost*/A_RAmincost* can have (q_j = 1 rates)."""
    edk = job["epochs"] * job["chunks"] * job["minibatches_per_chunk"]
    best = math.inf
    for v in job["minibatch_time"]:
        if doc["architecture"] == "ring":
            u = job["update_time"][0]
            for phi in range(1, int(job["chunks"]) + 1):
                f = (phi - 1) / phi
                best = min(best, max(1, math.ceil(edk / (phi / (v + u * f)) - 1e-9)))
        else:
            for u in job["update_time"]:
                ek = job["epochs"] * job["minibatches_per_chunk"]
                best = min(best, max(1, math.ceil(ek * (v + u) - 1e-9)))
    return best


def short_window(doc, job):
    """True if no A_dual window reachable from the job's arrival can hold its shortest run."""
    alpha = int(doc.get("alpha") or 4)
    reach = [m for tau, m in windows(int(doc["slots"]), alpha) if tau > job["arrival"]]
    return not reach or shortest(doc, job) > max(reach)


def run(binary, path, policy):
    out = subprocess.run(
        [binary, "run", path, "--policy", policy, "--json", "-", "--quiet"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    # `--json -` prints the document; the human summary is not printed with it.
    return json.loads(out[out.index("{"):])


def one(binary, seed, args, value, tmp):
    gen = [binary, "gen", "online", "--seed", str(seed), "--quiet"]
    jobs = value if args.sweep == "jobs" else args.jobs
    nodes = value if args.sweep == "nodes" else args.nodes
    if jobs:
        gen += ["--jobs", str(jobs)]
    if nodes:
        gen += ["--nodes", str(nodes)]
    if args.trace:
        gen += ["--trace", args.trace]
    if args.slots:
        gen += ["--slots", str(args.slots)]
    doc = json.loads(subprocess.run(gen, check=True, capture_output=True, text=True).stdout)
    if args.sweep == "F":
        doc["F"] = float(value)
    elif args.F is not None:
        doc["F"] = args.F
    if args.alpha is not None:
        doc["alpha"] = float(args.alpha)
    if args.arch == "ring":
        doc = to_ring(doc)
    path = os.path.join(tmp, f"s{seed}-{value}.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    res = {p: run(binary, path, p) for p in args.policies}
    T = doc["slots"]
    w = [j["weight"] for j in doc["jobs"]]
    done = {p: [j["completion_slot"] if j["scheduled"] else None for j in r["jobs"]]
            for p, r in res.items()}
    common = [k for k in range(len(w)) if all(done[p][k] is not None for p in done)]
    row = {"common_jobs": len(common), "per": {}}
    for p, c in done.items():
        sched = sum(w[k] * x for k, x in enumerate(c) if x is not None)
        row["per"][p] = {
            "scheduled": sum(x is not None for x in c),
            "sched": sched,
            "charged": sched + sum(w[k] * T for k, x in enumerate(c) if x is None),
            "common": sum(w[k] * c[k] for k in common),
        }
    if "online" in res:
        why = {"short-window": 0, "infeasible": 0, "priced-out": 0}
        for jd, jr in zip(doc["jobs"], res["online"]["jobs"]):
            if jr["scheduled"]:
                continue
            if short_window(doc, jd):
                why["short-window"] += 1
            elif jr.get("cost") is None:
                why["infeasible"] += 1
            else:
                why["priced-out"] += 1
        row["why"] = why
    return row


def parse_seeds(s):
    a, _, b = s.partition("..")
    return list(range(int(a), int(b or a) + 1))


def fmt(xs, scale=1.0, digits=0):
    m = statistics.mean(xs) / scale
    sd = statistics.stdev(xs) / scale if len(xs) > 1 else 0.0
    return f"{m:.{digits}f} ± {sd:.{digits}f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sweep", choices=["jobs", "nodes", "F"], default="jobs")
    ap.add_argument("--values", default="100")
    ap.add_argument("--seeds", default="1..10")
    ap.add_argument("--arch", choices=["ps", "ring"], default="ps")
    ap.add_argument("--jobs", type=int, help="jobs when not swept (gen default 100)")
    ap.add_argument("--nodes", type=int, help="servers when not swept (gen default 150)")
    ap.add_argument("--F", type=float, help="F when not swept (gen default 1)")
    ap.add_argument("--alpha", type=int, help="alpha of A_dual (gen default 4)")
    ap.add_argument("--slots", type=int, help="horizon T (gen default 150; Fig. 2 uses 300)")
    ap.add_argument("--trace", help="arrivals from a trace (gen online --trace)")
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--bin", default=find_bin())
    ap.add_argument("--json", help="write every per-seed row here")
    args = ap.parse_args()
    args.policies = args.policies.split(",")
    seeds = parse_seeds(args.seeds)
    values = [v for v in args.values.split(",")]
    all_rows = {}
    print(f"# sweep {args.sweep} = {args.values}, arch {args.arch}, seeds {args.seeds}"
          + (f", alpha {args.alpha}" if args.alpha is not None else "")
          + (f", F {args.F:g}" if args.F is not None else "")
          + (f", trace {os.path.basename(args.trace)}" if args.trace else ""))
    print("# w.c.t. in units of 10^6; mean ± sample standard deviation over the seeds")
    print("| " + args.sweep + " | policy | scheduled | sched only | charged (unsched. at T) "
          "| common jobs | on common | online best (charged) |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for v in values:
            rows = [one(args.bin, s, args, v, tmp) for s in seeds]
            all_rows[v] = rows
            for p in args.policies:
                per = [r["per"][p] for r in rows]
                wins = ""
                if p == "online":
                    wins = str(sum(
                        all(r["per"]["online"]["charged"] <= r["per"][q]["charged"]
                            for q in args.policies)
                        for r in rows)) + f"/{len(rows)}"
                print(f"| {v} | {p} | {fmt([x['scheduled'] for x in per], digits=1)} "
                      f"| {fmt([x['sched'] for x in per], 1e6, 2)} "
                      f"| {fmt([x['charged'] for x in per], 1e6, 2)} "
                      f"| {fmt([r['common_jobs'] for r in rows], digits=1)} "
                      f"| {fmt([x['common'] for x in per], 1e6, 3)} | {wins} |")
            if "online" in args.policies:
                why = {k: [r["why"][k] for r in rows] for k in rows[0]["why"]}
                print(f"| {v} | online unscheduled: | "
                      + ", ".join(f"{k} {fmt(x, digits=1)}" for k, x in why.items())
                      + " | | | | | |")
            sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(all_rows, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
