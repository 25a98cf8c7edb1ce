#!/usr/bin/env python3
"""TPC-H timed under variations no cost rule was fitted on (issue 54).

On the loaded TPC-H database (tpch/load.sh, with its foreign keys), for each
variation in turn: every query's plan with the GPU nodes off and on; a plan
without a GPU node must be PostgreSQL's own (tpch/plans.py), a plan with one
is timed off and on (tpch/run.py's sessions: warm-up, --runs, results
compared) and its ratio native / GPU reported, to be >= 0.95.

Variations, in this order (the foreign keys are dropped, for good, before
the first one without them):
  fk-4       with foreign keys, 4 workers
  fk-serial  with foreign keys, serial
  nofk-4     without foreign keys, 4 workers
  nofk-serial
  fk-8, nofk-8 (only when asked for: 8 workers is the main benchmark's setting)

The time is shared: --budget seconds over the variations, each getting what
is left over the variations left; a query whose timing would start past its
variation's share is left untimed ("n/t" in the table), never skipped
silently.  Writes DIR/variations.md (the table) and DIR/variations.json.

    bench/variations.py --sf 1 --device gpu --db tpch --out DIR [--runs 3]
        [--warmup 1] [--budget 180] [--variations fk-4,nofk-serial] [--queries 1-22]
"""
import argparse
import json
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tpch"))
import plans  # noqa: E402
import run  # noqa: E402

VARIATIONS = {"fk-4": (True, 4), "fk-serial": (True, 0), "nofk-4": (False, 4),
              "nofk-serial": (False, 0), "fk-8": (True, 8), "nofk-8": (False, 8)}
DEFAULT_VARIATIONS = ["fk-4", "fk-serial", "nofk-4", "nofk-serial"]
TARGET = 0.95


def is_gpu_node(node):
    """A gpuhash node: GpuHashJoin, GpuPreAgg (any Custom Scan it provides)."""
    return str(node.get("Custom Plan Provider", "")).startswith("Gpu")


def drop_foreign_keys(psql):
    sql = ("SELECT format('ALTER TABLE %s DROP CONSTRAINT %I;', conrelid::regclass, conname) "
           "FROM pg_constraint WHERE contype = 'f'")
    out = psql.scalar(sql) or ""
    stmts = [l for l in out.splitlines() if l.startswith("ALTER TABLE")]
    if stmts:
        r = psql.script("\n".join(stmts) + "\nANALYZE;\n", 600)
        if r.returncode != 0:
            sys.exit("variations.py: dropping the foreign keys failed: " + r.stderr)
    return len(stmts)


def run_args(a, workers):
    args = run.parse_args(["--sf", f"{a.sf:g}", "--workers", str(workers), "--device", a.device,
                           "--db", a.db, "--skip-load", "--runs", str(a.runs), "--warmup", str(a.warmup),
                           "--timeout", str(a.timeout), "--queries", a.queries])
    return args


def one_variation(a, name, psql, prefix, device_ok, outdir, deadline):
    _, workers = VARIATIONS[name]
    args = run_args(a, workers)
    work = os.path.join(outdir, name)
    os.makedirs(work, exist_ok=True)
    rows = []
    for q in args.query_list:
        text = run.load_query(q, args.sf)
        off = run.plan_only(args, psql, prefix, q, text, False, work, device_ok)
        on = run.plan_only(args, psql, prefix, q, text, True, work, device_ok)
        row = {"q": q, "nodes": None, "native_plan": None, "ratio": None, "native": None,
               "gpu": None, "equal": None, "status": ""}
        if off is None or on is None:
            row["status"] = "no plan"
            rows.append(row)
            continue
        row["nodes"] = run.count_nodes(on, is_gpu_node)
        if row["nodes"] == 0:
            diff = plans.native_identity(off, on, 0)
            row["native_plan"] = diff is None
            row["status"] = "native plan" if diff is None else f"NOT native's plan: {diff}"
            rows.append(row)
            continue
        if time.time() > deadline:
            row["status"] = "n/t (time budget)"
            rows.append(row)
            continue
        off_r, on_r = run.run_query(args, psql, prefix, q, text, work, device_ok)
        s = run.summarize(q, text, off_r, on_r, is_gpu_node)
        row.update(native=s["native"], gpu=s["gpu"], ratio=s["ratio"], equal=s["equal"],
                   status=s["note"] or ("ok" if s["ok"] else "failed"))
        rows.append(row)
        print(f"  {name} Q{q:02d} native {run.fmt_ms(s['native'])} ms gpu {run.fmt_ms(s['gpu'])} ms"
              f" ratio {s['ratio'] and round(s['ratio'], 2)} equal {s['equal']}", flush=True)
    return rows


def summary_of(rows):
    ratios = [r["ratio"] for r in rows if r["ratio"]]
    return {"timed": len(ratios),
            "geomean": math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None,
            "min": min(ratios) if ratios else None,
            "below": [r["q"] for r in rows if r["ratio"] and r["ratio"] < TARGET],
            "untimed": [r["q"] for r in rows if r["status"].startswith("n/t")],
            "not_native": [r["q"] for r in rows if r["native_plan"] is False],
            "unequal": [r["q"] for r in rows if r["equal"] not in (None, "yes")]}


def cell(r):
    if r["ratio"]:
        return f"{r['ratio']:.2f}" + ("" if r["equal"] == "yes" else f" ({r['equal']})")
    if r["nodes"] == 0:
        return "=" if r["native_plan"] else "≠ native"
    return r["status"] or "-"


def write_table(path, a, results, info):
    names = list(results)
    lines = [f"# TPC-H SF {a.sf:g} under variations, device {a.device}", "",
             f"{info}; median of {a.runs} runs a mode after {a.warmup} warm-up; ratio = native / GPU "
             f"(>= {TARGET} is the target); '=': no GPU node, the plan is PostgreSQL's own; "
             "'n/t': not timed within the time budget.", "",
             "| query | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    qs = sorted({r["q"] for rows in results.values() for r in rows})
    for q in qs:
        cells = []
        for n in names:
            r = next((r for r in results[n] if r["q"] == q), None)
            cells.append(cell(r) if r else "-")
        lines.append(f"| Q{q:02d} | " + " | ".join(cells) + " |")
    for label, key, fmt in (("geomean", "geomean", "{:.2f}"), ("min", "min", "{:.2f}"),
                            ("timed", "timed", "{}")):
        vals = [summary_of(results[n])[key] for n in names]
        lines.append(f"| **{label}** | " + " | ".join("-" if v is None else fmt.format(v)
                                                       for v in vals) + " |")
    for label, key in (("below 0.95", "below"), ("not timed", "untimed"),
                       ("no GPU node, not native's plan", "not_native"),
                       ("results differ or failed", "unequal")):
        vals = [summary_of(results[n])[key] for n in names]
        lines.append(f"| {label} | " + " | ".join(", ".join(f"Q{q:02d}" for q in v) or "-"
                                                  for v in vals) + " |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return "\n".join(lines)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sf", type=float, default=1.0)
    ap.add_argument("--db", default=os.environ.get("PGDATABASE", "tpch"))
    ap.add_argument("--device", choices=["gpu", "host", "auto"], default="gpu")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1, help="untimed runs a mode first")
    ap.add_argument("--timeout", type=float, default=120, help="per statement, seconds")
    ap.add_argument("--budget", type=float, default=180,
                    help="seconds for all the variations' timings (default 180)")
    ap.add_argument("--variations", default=",".join(DEFAULT_VARIATIONS))
    ap.add_argument("--queries", default="all")
    ap.add_argument("--out", required=True, help="directory for the table, JSON and plans")
    a = ap.parse_args(argv)
    names = [v.strip() for v in a.variations.split(",") if v.strip()]
    bad = [v for v in names if v not in VARIATIONS]
    if bad:
        ap.error(f"unknown variations {bad}: {', '.join(VARIATIONS)}")
    # the ones with foreign keys first: they are dropped for good
    names.sort(key=lambda v: not VARIATIONS[v][0])
    os.makedirs(a.out, exist_ok=True)

    args0 = run_args(a, 0)
    args0.workers = None    # the server's setting in the header; each column says its own
    psql = run.Psql(args0.psql, a.db)
    prefix, notes = run.prepare_extension(psql, "enable_gpuhashjoin")
    device_ok = run.setting_exists(psql, run.DEVICE_SETTING, prefix)
    if psql.scalar("SELECT count(*) FROM lineitem") is None:
        sys.exit(f"variations.py: no TPC-H data in database '{a.db}'")
    info = run.server_info(psql, args0)
    info_line = ", ".join(f"{k} {v}" for k, v in info.items()) if isinstance(info, dict) else str(info)
    start = time.time()
    results = {}
    for i, name in enumerate(names):
        fk, _ = VARIATIONS[name]
        if not fk:
            n = drop_foreign_keys(psql)
            if n:
                print(f"variations.py: dropped {n} foreign keys", flush=True)
        left = a.budget - (time.time() - start)
        deadline = time.time() + max(left, 0) / (len(names) - i)
        print(f"variations.py: {name} (timings until +{deadline - start:.0f} s)", flush=True)
        results[name] = one_variation(a, name, psql, prefix, device_ok, a.out, deadline)
    table = write_table(os.path.join(a.out, "variations.md"), a, results, info_line)
    with open(os.path.join(a.out, "variations.json"), "w") as f:
        json.dump({"sf": a.sf, "device": a.device, "runs": a.runs, "warmup": a.warmup, "budget_s": a.budget,
                   "elapsed_s": round(time.time() - start, 1), "notes": notes,
                   "results": results, "summary": {n: summary_of(r) for n, r in results.items()}},
                  f, indent=1, default=str)
    print(table)
    fails = [n for n, r in results.items()
             if summary_of(r)["not_native"] or summary_of(r)["unequal"]]
    if fails:
        print("variations.py: plans not native's or results differing in: " + ", ".join(fails),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
