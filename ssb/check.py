#!/usr/bin/env python3
"""The Star Schema Benchmark's 13 queries, GPU join off and on, in a database
ssb/load.sh filled: each query's plans compared as tpch/run.py --plans
compares TPC-H's (no serial subtree where PostgreSQL's plan is parallel; a
plan without a GPU join equal to PostgreSQL's own, node by node with its
costs), and with --results each query run once in each mode, the results
compared.  The benchmark was fitted to nothing: it checks the planner on a
load its rules were not made for.  Exits 1 on a failed check.

    ssb/check.py --db ssb --workers 4 --device host --plans DIR [--results]
        [--runs N --warmup W]

Connection: the usual PG* environment variables."""

import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tpch"))
import plans  # noqa: E402
import run  # noqa: E402

QUERIES = ["1.1", "1.2", "1.3", "2.1", "2.2", "2.3", "3.1", "3.2", "3.3", "3.4",
           "4.1", "4.2", "4.3"]


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--db", default=os.environ.get("PGDATABASE", "ssb"))
    p.add_argument("--workers", type=int, default=None, help="max_parallel_workers_per_gather")
    p.add_argument("--device", choices=["auto", "gpu", "host"], default="auto")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="a setting for the 'on' mode (repeatable)")
    p.add_argument("--plans", metavar="DIR", required=True, help="plans and reports go here")
    p.add_argument("--results", action="store_true", help="also run each query off and on")
    p.add_argument("--runs", type=int, default=1, help="timed runs a mode (with --results)")
    p.add_argument("--warmup", type=int, default=0, help="untimed runs first (with --results)")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--psql", default="psql")
    a = p.parse_args(argv)
    # what run.py's session and plan helpers read
    a.toggle, a.citus, a.count_node = "enable_gpuhashjoin", False, None
    if a.runs < 1 or a.warmup < 0:
        p.error("--runs must be at least 1 and --warmup not negative")
    return a


def main(argv):
    args = parse_args(argv)
    psql = run.Psql(args.psql, args.db)
    if psql.scalar("SELECT count(*) FROM lineorder") is None:
        sys.exit(f"ssb/check.py: no table lineorder in database '{args.db}' (ssb/load.sh fills it)")
    prefix, notes = run.prepare_extension(psql, args.toggle)
    device_ok = run.setting_exists(psql, run.DEVICE_SETTING, prefix)
    os.makedirs(args.plans, exist_ok=True)
    is_gpu = run.gpu_join_matcher(None)
    bad, ratios = [], []
    timed = args.results
    print("query  GPU nodes  changed nodes  read serially when on  "
          + ("result" if args.results else ""))
    for name in QUERIES:
        q = int(name.replace(".", ""))	# q11 ... q43 in the file names
        with open(os.path.join(HERE, "queries", f"q{name}.sql")) as f:
            text = f.read().strip()
        off = run.plan_only(args, psql, prefix, q, text, False, args.plans, device_ok)
        on = run.plan_only(args, psql, prefix, q, text, True, args.plans, device_ok)
        if off is None or on is None:
            print(f"Q{name}  no plan")
            bad.append(name)
            continue
        report, summary = plans.compare(q, off, on, is_gpu, run.count_nodes)
        diff = plans.native_identity(off, on, summary["gpu_nodes"])
        if diff:
            report += f"\n-- no GPU join, yet not native's plan: {diff}\n"
        with open(os.path.join(args.plans, f"q{name}.txt"), "w") as f:
            f.write(report)
        result = ""
        ok = not summary["serial"] and diff is None
        if args.results:
            roff = run.run_mode(args, psql, prefix, q, text, False, args.plans, device_ok)
            ron = run.run_mode(args, psql, prefix, q, text, True, args.plans, device_ok)
            row = run.summarize(q, text, roff, ron, is_gpu)
            result = f"{row['equal']} ({row['rows']} rows)" + (f" {row['note']}" if row["note"] else "")
            ok = ok and row["ok"]
            if timed:
                result += (f"  native {run.fmt_ms(row['native'])} ms, GPU {run.fmt_ms(row['gpu'])} ms"
                           + (f", {row['ratio']:.2f}x" if row["ratio"] else ""))
                if row["ratio"] and summary["gpu_nodes"]:
                    ratios.append((name, row["ratio"]))
        print(f"Q{name}  {summary['gpu_nodes']:9d}  {summary['changed']:13d}  "
              f"{', '.join(summary['serial']) or '-':21s}  {result}"
              + (f"\n      no GPU join, yet not native's plan: {diff}" if diff else ""))
        if not ok:
            bad.append(name)
    if ratios:
        geo = math.exp(sum(math.log(r) for _, r in ratios) / len(ratios))
        low = [f"Q{n} {r:.2f}" for n, r in ratios if r < 0.95]
        what = f"medians of {args.runs} runs" if args.runs > 1 else "one run"
        print(f"{what} after {args.warmup} warm-up: {len(ratios)} queries "
              f"with a GPU join, geomean {geo:.2f}x, lowest {min(r for _, r in ratios):.2f}x; "
              f"below 0.95: {', '.join(low) or 'none'}")
    for note in notes:
        print(f"ssb/check.py: note: {note}", file=sys.stderr)
    if bad:
        print("ssb/check.py: failed: " + ", ".join(f"Q{n}" for n in bad), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
