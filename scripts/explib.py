"""Shared helpers of the paper-setting experiments (scripts/exp-*.py, docs/experiments.md).

The experiments only drive the release CLI (`mlsched gen`, `mlsched run --json -`,
`mlsched compare --seeds` over per-seed scenario files for the plots) and aggregate: every
number is deterministic, as the CLI is. Standard library only.
"""
import json
import math
import os
import statistics
import subprocess
import sys
import time

# t_{0.975, df} of Student's t for df = 1..30 (the values statrs' StudentsT::inverse_cdf gives,
# which `mlsched compare --seeds` uses; rounded to 6 decimals). Beyond 30: the normal 1.959964.
T975 = [
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004,
    2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905,
    2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899,
    2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
]


def find_bin():
    """target/release/mlsched (or under $CARGO_TARGET_DIR)."""
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    return os.path.join(target, "release", "mlsched")


def parse_seeds(s):
    """`A..B` (inclusive) or one seed."""
    a, _, b = s.partition("..")
    return list(range(int(a), int(b or a) + 1))


def ci(xs):
    """(mean, half-width of the 95% confidence interval t_{0.975,n-1} s / sqrt(n))."""
    xs = [x for x in xs if x is not None]
    if not xs:
        return (math.nan, math.nan)
    m = statistics.mean(xs)
    if len(xs) < 2:
        return (m, 0.0)
    df = len(xs) - 1
    t = T975[df - 1] if df <= len(T975) else 1.959964
    return (m, t * statistics.stdev(xs) / math.sqrt(len(xs)))


def fmt(xs, digits=1, scale=1.0):
    """`mean ± half-width` of the 95% CI, in units of `scale`."""
    m, h = ci(xs)
    if math.isnan(m):
        return "-"
    return f"{m / scale:.{digits}f} ± {h / scale:.{digits}f}"


def gen(binary, kind, seed, *extra):
    """`mlsched gen KIND --seed SEED EXTRA...` as a JSON value."""
    cmd = [binary, "gen", kind, "--seed", str(seed), *map(str, extra)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def run(binary, path, policy=None):
    """`mlsched run PATH [--policy P] --json -` as a JSON value (the result document)."""
    cmd = [binary, "run", path, "--json", "-", "--quiet"]
    if policy:
        cmd += ["--policy", policy]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out[out.index("{"):])


def write_json(path, value):
    """Writes `value` as compact JSON (scenario files of a run)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(value, f)


def sweep_plots(binary, template, seeds, policies, out):
    """`mlsched compare TEMPLATE --seeds A..B --no-timing --out OUT`: the CLI's sweep over the
    per-seed files TEMPLATE ('dir/s-{seed}.json'): sweep.csv (every seed and policy) and the
    SVG plots (mean and 95% CI per policy and metric)."""
    cmd = [binary, "compare", template, "--seeds", f"{seeds[0]}..{seeds[-1]}", "--no-timing",
           "--threads", "1", "--quiet", "--policies", ",".join(policies), "--out", out]
    out_text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    # Keep the small files: the per-seed CSV and the SVG plots. index.html and sweep.json
    # (100 kB and 50 kB a sweep) name the temporary scenario files and repeat the CSV.
    for big in ("index.html", "sweep.json"):
        path = os.path.join(out, big)
        if os.path.exists(path):
            os.remove(path)
    return out_text


class Timer:
    """Wall time of the whole experiment (reported, never asserted)."""

    def __init__(self):
        self.t0 = time.monotonic()

    def seconds(self):
        return time.monotonic() - self.t0


def table(header, rows):
    """A Markdown table."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out) + "\n"


def setting_done(args, seeds, text, summary_text, work_dir, policies, out_dir):
    """Prints one setting's summary table (kept in `text` for tables.md) and, unless
    `--smoke`, draws its sweep plots from the per-seed files in `work_dir`."""
    text.append(summary_text)
    print(summary_text)
    sys.stdout.flush()
    if not args.smoke:
        sweep_plots(args.bin, os.path.join(work_dir, "s-{seed}.json"), seeds,
                    policies, out_dir)


def save(args, text, results):
    """Writes tables.md and results.json under `args.out` (not with `--smoke`)."""
    if args.smoke:
        return
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "tables.md"), "w") as f:
        f.write("\n".join(text))
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
