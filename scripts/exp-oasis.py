#!/usr/bin/env python3
"""OASiS (Bao et al. 2018) in the paper's setting and in a feasible one, against the oasis
baselines (docs/experiments-oasis.md).

- `paper`: `mlsched gen oasis --seed S --jobs J` as generated (section V-A's ranges: T in
  100..300, E in [50, 200], N in [5, 100], M in [10, 100], tau in [0.001, 0.1] slots).
- `feasible`: the same document with every E_i divided by 10 (rounded up): E in [5, 20], so most
  jobs can finish inside T even when running alone at their full width.

Per setting and policy, over the seeds (mean and 95% CI): jobs admitted, jobs finished, total
utility; for OASiS also the price signal: the fraction of admitted jobs whose priced cost is at
the price floor (cost < 1e-280: every price paid within a few decades of the 1e-290 floor that
a derived L is raised to, docs/oasis.md) and the fraction whose cost is below 1e-6 of their
utility (prices negligible: payoff = utility); and log10 of min_i f_i(T - 1 - a_i), the
numerator of eq. (25)'s L1, below 1e-290 when L is raised to the floor. Also the fraction of jobs that could finish
inside T alone (ceil(E_i m_i) slots from their arrival, m_i = M_i (tau_i + 2 comm_i)).
The sweep plots are the CLI's (`mlsched compare 'DIR/s-{seed}.json' --seeds A..B`).

Dorm's per-event node budget is the scenario's `dorm_event_nodes` (`--dorm-nodes N|unlimited`;
default: absent, the kernel's DORM_EVENT_NODES = 4,096). Each setting's note counts Dorm's events
proven optimal (`summary.dorm`).

Usage (repository root, after `cargo build --release -p mlsched-cli`):
  scripts/exp-oasis.py             # docs/experiments/oasis
  scripts/exp-oasis.py --smoke     # 2 seeds, 10 jobs, 5 + 5 servers, no files kept
  scripts/exp-oasis.py --smoke --dorm-nodes unlimited   # every Dorm event proven optimal
"""
import argparse
import json
import math
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import explib  # noqa: E402

# Every oasis policy of this build (`mlsched run --help`).
POLICIES = ["oasis", "fifo", "drf", "las", "optimus", "rrh", "dorm"]
FLOOR_COST = 1e-280
EPOCH_DIVISOR = 10


def feasible(doc):
    """The feasible setting: E_i / 10, rounded up (at least 1)."""
    for j in doc["jobs"]:
        j["epochs"] = float(max(1, math.ceil(j["epochs"] / EPOCH_DIVISOR)))
    return doc


def alone_fits(doc):
    """Jobs whose shortest duration ceil(E m) fits between their arrival and T."""
    n = 0
    for j in doc["jobs"]:
        m = j["minibatches_per_chunk"] * (j["minibatch_time"] + 2 * j["comm_time"])
        n += math.ceil(j["epochs"] * m - 1e-9) <= doc["slots"] - j["arrival"]
    return n / len(doc["jobs"])


def log10_min_utility_at_t(doc):
    """log10 of min_i f_i(T - 1 - a_i), the numerator of eq. (25)'s floor L1 (sigmoid
    utilities gamma1 / (1 + exp(gamma2 (t - gamma3)))), computed in the log domain."""
    best = math.inf
    for j in doc["jobs"]:
        s = j["utility"]["sigmoid"]
        z = s["decay"] * (doc["slots"] - 1 - j["arrival"] - s["target"])
        log_f = math.log(s["priority"]) - (z + math.log1p(math.exp(-z)) if z > 0
                                             else math.log1p(math.exp(z)))
        best = min(best, log_f / math.log(10))
    return best


def one_seed(args, seed, name, path):
    doc = explib.gen(args.bin, "oasis", seed, "--jobs", args.jobs, "--nodes", args.nodes)
    if name == "feasible":
        doc = feasible(doc)
    if args.dorm_nodes is not None:
        doc["dorm_event_nodes"] = args.dorm_nodes
    explib.write_json(path, doc)
    row = {"alone": alone_fits(doc), "slots": doc["slots"],
           "log_f_min": log10_min_utility_at_t(doc), "per": {}}
    for p in args.policies:
        r = explib.run(args.bin, path, p)
        adm = [j for j in r["jobs"] if j["admitted"]]
        x = {
            "admitted": r["summary"]["admitted"],
            "finished": sum(j.get("completion_slot") is not None for j in adm),
            "utility": r["summary"]["total_utility"],
        }
        if "dorm" in r["summary"]:
            # Dorm's solver counts (events optimal / stopped at its node budget, largest gap).
            x["dorm"] = r["summary"]["dorm"]
        if p == "oasis" and adm:
            costs = [(j.get("cost") or 0.0, j.get("utility") or 0.0) for j in adm]
            x["at_floor"] = sum(c < FLOOR_COST for c, _ in costs) / len(adm)
            x["negligible"] = sum(c < 1e-6 * u for c, u in costs) / len(adm)
        row["per"][p] = x
    return row


def summary(name, rows, policies):
    out = []
    for p in policies:
        per = [r["per"][p] for r in rows]
        sig = ["-", "-"]
        if p == "oasis":
            sig = [explib.fmt([x.get("at_floor") for x in per], 2),
                   explib.fmt([x.get("negligible") for x in per], 2)]
        out.append([p, explib.fmt([x["admitted"] for x in per]),
                    explib.fmt([x["finished"] for x in per]),
                    explib.fmt([x["utility"] for x in per], 1), *sig])
    head = ["policy", "admitted", "finished", "total utility",
            "cost at the floor (share of admitted)", "cost < 1e-6 utility (share)"]
    note = (f"T = {explib.fmt([r['slots'] for r in rows], 0)} slots; jobs that fit alone "
            f"before T: {explib.fmt([r['alone'] for r in rows], 2)} (share); "
            f"log10 min_i f_i(T - 1 - a_i): {explib.fmt([r['log_f_min'] for r in rows], 0)}")
    dorm = [r["per"]["dorm"]["dorm"] for r in rows if "dorm" in r["per"].get("dorm", {})]
    if dorm:
        note += (f"; Dorm events proven optimal: {sum(d['optimal'] for d in dorm)} of "
                 f"{sum(d['events'] for d in dorm)} (largest gap "
                 f"{max(d['gap_max'] for d in dorm):.0%})")
    note += "\n\n"
    return f"### {name}\n\n" + note + explib.table(head, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="1..10")
    ap.add_argument("--jobs", type=int, default=100)
    ap.add_argument("--nodes", type=int, default=50)
    ap.add_argument("--policies", default=",".join(POLICIES))
    ap.add_argument("--out", default="docs/experiments/oasis")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--dorm-nodes", default=None,
                    help="Dorm's node budget per event: a whole number >= 0 or 'unlimited' "
                         "(default: the kernel's 4,096)")
    ap.add_argument("--bin", default=explib.find_bin())
    args = ap.parse_args()
    args.policies = args.policies.split(",")
    if args.dorm_nodes not in (None, "unlimited"):
        try:
            args.dorm_nodes = int(args.dorm_nodes)
        except ValueError:
            ap.error(f"--dorm-nodes: a whole number >= 0 or 'unlimited', got {args.dorm_nodes!r}")
        if args.dorm_nodes < 0:
            ap.error(f"--dorm-nodes: a whole number >= 0 or 'unlimited', got {args.dorm_nodes}")
    if args.smoke:
        args.seeds, args.jobs, args.nodes = "1..2", 10, 5
    seeds = explib.parse_seeds(args.seeds)
    timer = explib.Timer()
    results, text = {}, []
    with tempfile.TemporaryDirectory() as work:
        for name in ("paper", "feasible"):
            rows = [one_seed(args, s, name, os.path.join(work, name, f"s-{s}.json"))
                    for s in seeds]
            results[name] = rows
            explib.setting_done(args, seeds, text, summary(name, rows, args.policies),
                                os.path.join(work, name), args.policies, os.path.join(args.out, name))
    print(f"# {len(seeds)} seeds, {args.jobs} jobs, {args.nodes} + {args.nodes} servers; "
          f"took {timer.seconds():.0f} s")
    explib.save(args, text, results)


if __name__ == "__main__":
    main()
