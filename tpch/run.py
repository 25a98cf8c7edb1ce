#!/usr/bin/env python3
"""Run the TPC-H queries with a join setting off ("native") and on ("GPU").

For every query: a warm-up and N timed runs in each mode, the two result sets
compared, and the GPU hash join nodes of the "on" plan counted. Prints a table
and optionally writes a markdown report and a bar chart of the speed-ups.
Exits 1 when a result differs or a query fails (timeouts are only reported).

Connection: the usual PG* environment variables, plus --db.
With --citus the database is a Citus coordinator: the tables are distributed
(citus.sql), each mode's settings reach the workers as SET LOCAL in one
transaction, and the GPU joins of the shard tasks are counted.
Only the Python standard library is needed; the chart uses matplotlib when it
is importable, else gnuplot, else it is skipped.
"""

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GPU_PROVIDER = "GpuHashJoin"
# the GPU nodes a plan may hold: the join, and the partial aggregate (issue 55)
GPU_PROVIDERS = (GPU_PROVIDER, "GpuPreAgg")
DEVICE_SETTING = "gpuhash.device"
Q11_FRACTION = "0.0001000000"
# Citus refuses a query it cannot run distributed with feature_not_supported
CITUS_UNSUPPORTED = "0A000"


def parse_args(argv):
    p = argparse.ArgumentParser(
        description="TPC-H runner: each query with a join setting off and on.")
    p.add_argument("--sf", type=float, default=1.0, help="scale factor (default 1)")
    p.add_argument("--toggle", default="enable_gpuhashjoin",
                   help="boolean setting switched off/on (default enable_gpuhashjoin)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                   help="a setting for the GPU-join-on runs only (repeatable), e.g. gpuhash.setup_cost=0")
    p.add_argument("--device", choices=["auto", "gpu", "host"], default="auto",
                   help="value of gpuhash.device for the 'on' runs, if that setting exists")
    p.add_argument("--workers", type=int, default=None,
                   help="max_parallel_workers_per_gather for all runs")
    p.add_argument("--queries", default="all",
                   help="'all' or a list such as 1,3,5-7 (default all)")
    p.add_argument("--db", default=os.environ.get("PGDATABASE", "tpch"),
                   help="database name (default $PGDATABASE or tpch)")
    p.add_argument("--data-dir", help="load dbgen .tbl files from DIR instead of generating")
    p.add_argument("--skip-load", action="store_true", help="use the data already loaded")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                   help="parallel COPY streams for the load (default: CPUs)")
    p.add_argument("--seed", help="generator seed")
    p.add_argument("--no-foreign-keys", action="store_true",
                   help="load without the foreign keys (load.sh -F), the schema of "
                        "bench/history/journal-2026.md before §24")
    p.add_argument("--runs", type=int, default=3,
                   help="timed runs per mode; the median is reported with the runs' spread "
                        "(default 3)")
    p.add_argument("--warmup", type=int, default=1, help="warm-up runs per mode (default 1)")
    p.add_argument("--order", choices=["off-first", "on-first", "both"], default="off-first",
                   help="which mode of each query runs first; 'both' runs each query in both "
                        "orders (twice the time) and takes each mode's median over all its runs, "
                        "so that neither side gains from running second (default off-first)")
    p.add_argument("--rounds", type=int, default=1,
                   help="with --order both, rounds of off, on, on, off per query, each mode "
                        "a new session (backend) each time: one session's runs agree with each "
                        "other more than with another session's, by up to 25%% on a serial SF 1 query, "
                        "so more sessions per mode (default 1)")
    p.add_argument("--timeout", type=float, default=600,
                   help="per-statement timeout in seconds (default 600)")
    p.add_argument("--report", help="write a markdown report to FILE.md")
    p.add_argument("--chart", help="write a PNG bar chart of the ratios to FILE.png")
    p.add_argument("--save-dir", help="keep plans and results of every query in DIR")
    p.add_argument("--count-node", metavar="TYPE",
                   help="count plan nodes of this Node Type instead of GPU hash joins "
                        "(e.g. 'Hash Join', to test the runner without the extension)")
    p.add_argument("--plans", metavar="DIR",
                   help="plan only, run no query (the data is loaded unless --skip-load): write each query's off and on plans to "
                        "DIR/qNN.txt, marking the nodes that changed, and fail when a "
                        "relation the off plan reads in parallel is read serially when on")
    p.add_argument("--plans-since", metavar="DIR",
                   help="with --plans: also compare each query's 'on' plan with the one an "
                        "earlier --plans run wrote to DIR (a cost rule's or a setting's effect "
                        "on all queries' plans), and list the queries whose plan changed")
    p.add_argument("--citus", action="store_true",
                   help="the database is a Citus coordinator: load with citus.sql, carry the "
                        "settings to the workers, count the shard tasks that use a GPU join")
    p.add_argument("--correctness-run", action="store_true",
                   help="a test of results, not of speed (forced GPU paths): the report and "
                        "the chart say that their times are not a benchmark")
    p.add_argument("--check-args", action="store_true",
                   help="check the options and exit (tpch/main.sh does this before it builds)")
    p.add_argument("--psql", default=shutil.which("psql") or "psql", help="psql binary")
    args = p.parse_args(argv)
    if not (math.isfinite(args.sf) and args.sf >= 0.001):
        p.error(f"--sf must be a number >= 0.001 (the generator's smallest), not {args.sf:g}")
    if args.workers is not None and args.workers < 0:
        p.error("--workers must be >= 0")
    if args.jobs < 1 or args.rounds < 1 or not args.timeout > 0:
        p.error("--jobs and --rounds must be >= 1 and --timeout > 0")
    for kv in args.set:
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_.]*=", kv):
            p.error(f"--set takes NAME=VALUE, not '{kv}'")
    if args.data_dir and not os.path.isdir(args.data_dir):
        p.error(f"--data-dir {args.data_dir}: no such directory")
    if not re.match(r"^[A-Za-z_][A-Za-z0-9_.]*$", args.toggle):
        p.error(f"--toggle takes a setting's name, not '{args.toggle}'")
    if args.citus and args.plans:
        p.error("--plans compares single-node plans; it does not take --citus")
    if args.plans_since and not args.plans:
        p.error("--plans-since needs --plans")
    if args.runs < 1 or args.warmup < 0:
        p.error("--runs must be >= 1 and --warmup >= 0")
    try:
        args.query_list = parse_query_list(args.queries)
    except ValueError as e:
        p.error(str(e))
    return args


def parse_query_list(spec):
    if spec.strip().lower() == "all":
        return list(range(1, 23))
    out = []
    for part in spec.split(","):
        part = part.strip().lower().lstrip("q")
        if not part:
            continue
        if "-" in part:
            lo, hi = part.split("-", 1)
            rng = range(int(lo), int(hi.lstrip("q")) + 1)
        else:
            rng = [int(part)]
        for q in rng:
            if not 1 <= q <= 22:
                raise ValueError(f"no query {q}: TPC-H has queries 1..22")
            if q not in out:
                out.append(q)
    if not out:
        raise ValueError("empty query list")
    return out


# ---------------------------------------------------------------- psql access

class Psql:
    def __init__(self, binary, db):
        self.binary = binary
        self.db = db

    def base(self):
        return [self.binary, "-X", "-q", "-A", "-F", "\x1f", "-P", "footer=off",
                "-d", self.db]

    def scalar(self, sql):
        """One value, or None when the statement fails."""
        r = subprocess.run(self.base() + ["-t", "-c", sql], capture_output=True, text=True)
        if r.returncode != 0:
            return None
        return r.stdout.strip()

    def script(self, text, timeout):
        r = subprocess.run(self.base() + ["-v", "ON_ERROR_STOP=0", "-f", "-"],
                           input=text, capture_output=True, text=True, timeout=timeout)
        return r

    def wait_ready(self, seconds=180):
        """After a backend crash the server restarts; wait until it answers."""
        end = time.time() + seconds
        while time.time() < end:
            if self.scalar("SELECT 1") == "1":
                return True
            time.sleep(1)
        return False


def setting_exists(psql, name, preload=""):
    # pg_settings leaves out placeholders and gpuhash's hidden settings
    # (GUC_NO_SHOW_ALL): a gpuhash.* name counts once the library is loaded
    # (enable_gpuhashjoin is shown), when it then has a value
    sql = preload + (f"SELECT (EXISTS (SELECT FROM pg_settings WHERE name = lower('{name}')) "
                     f"OR (lower('{name}') LIKE 'gpuhash.%' "
                     f"AND current_setting('{name}', true) IS NOT NULL "
                     f"AND EXISTS (SELECT FROM pg_settings WHERE name = 'enable_gpuhashjoin')))::int")
    out = psql.scalar(sql)
    return out is not None and out.splitlines()[-1:] == ["1"]


def prepare_extension(psql, toggle):
    """Create the extension and find how its settings become visible.

    Returns (session prefix SQL, notes); exits when the toggle is unknown."""
    notes = []
    r = subprocess.run(psql.base() + ["-c", "CREATE EXTENSION IF NOT EXISTS gpuhash"],
                       capture_output=True, text=True)
    ext_ok = r.returncode == 0
    if not ext_ok:
        err = [l for l in r.stderr.splitlines() if "ERROR" in l] or ["?"]
        notes.append("extension gpuhash not available: " + err[0].split("ERROR:", 1)[-1].strip())
    prefix = ""
    if not setting_exists(psql, toggle) and ext_ok:
        # Settings of a library that is not preloaded appear once it is loaded.
        if setting_exists(psql, toggle, "LOAD 'gpuhash';\n"):
            prefix = "LOAD 'gpuhash';\n"
    if not setting_exists(psql, toggle, prefix):
        sys.exit(f"run.py: setting '{toggle}' does not exist. Is gpuhash installed and in "
                 "shared_preload_libraries? To test the runner without the extension "
                 "use e.g. --toggle enable_hashjoin.")
    return prefix, notes


# ------------------------------------------------------------------- queries

def load_query(q, sf):
    with open(os.path.join(HERE, "queries", f"q{q:02d}.sql")) as f:
        text = f.read()
    if q == 11 and sf != 1:
        text = text.replace(Q11_FRACTION, f"{0.0001 / sf:.10f}")
    return text.strip()


def strip_sql(text):
    """The SQL with comments removed and string literals blanked."""
    text = re.sub(r"--[^\n]*", " ", text)
    return re.sub(r"'(?:[^']|'')*'", "''", text)


def top_level_order_by(text):
    """(list of ORDER BY items, has LIMIT) of the outermost query, or (None, False)."""
    s = strip_sql(text).rstrip().rstrip(";")
    low = s.lower()
    depth, depth_at = 0, []
    for ch in low:
        depth_at.append(depth)
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
    pos = None
    for m in re.finditer(r"\border\s+by\b", low):
        if depth_at[m.start()] == 0:
            pos = m.end()
    if pos is None:
        return None, False
    tail = s[pos:]
    m = re.search(r"\b(limit|offset|fetch)\b", tail, re.I)
    has_limit = m is not None
    if m:
        tail = tail[:m.start()]
    items, depth, cur = [], 0, ""
    for ch in tail:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    clean = []
    for it in items:
        it = re.sub(r"\s+(asc|desc)\b.*$", "", it.strip(), flags=re.I | re.S)
        it = re.sub(r"\s+nulls\s+(first|last)$", "", it, flags=re.I)
        clean.append(it.strip().lower())
    return clean, has_limit


def sort_key_columns(items, header):
    """Output column positions of the ORDER BY items, or None if not all map."""
    cols = [h.lower() for h in header]
    idx = []
    for it in items:
        if it.isdigit() and 1 <= int(it) <= len(cols):
            idx.append(int(it) - 1)
        elif it in cols:
            idx.append(cols.index(it))
        elif "." in it and it.split(".")[-1] in cols:
            idx.append(cols.index(it.split(".")[-1]))
        else:
            return None
    return idx


def compare_results(text, a, b):
    """(equal, how): rows are lists of strings, a[0]/b[0] the headers."""
    if not a or not b or a[0] != b[0]:
        return False, "different columns"
    ra, rb = a[1:], b[1:]
    items, limited = top_level_order_by(text)
    if items is None:
        return sorted(ra) == sorted(rb), "unordered"
    if len(ra) != len(rb):
        return False, "different row counts"
    keys = sort_key_columns(items, a[0])
    if keys is None:
        return ra == rb, "ordered"
    # Rows whose sort keys tie may come in any order; under LIMIT the last
    # group of ties may even hold different rows, so only its keys must match.
    ka = [tuple(r[i] for i in keys) for r in ra]
    kb = [tuple(r[i] for i in keys) for r in rb]
    if ka != kb:
        return False, "ordered"
    start = 0
    while start < len(ra):
        end = start
        while end < len(ra) and ka[end] == ka[start]:
            end += 1
        last = end == len(ra)
        if not (limited and last) and sorted(ra[start:end]) != sorted(rb[start:end]):
            return False, "ordered"
        start = end
    return True, "ordered"


def count_nodes(plan, pred):
    n = 1 if pred(plan) else 0
    for child in plan.get("Plans", []):
        n += count_nodes(child, pred)
    return n


def gpu_join_matcher(count_node):
    """Predicate for the plan nodes counted as GPU joins."""
    if count_node:
        return lambda node: node.get("Node Type") == count_node
    return lambda node: node.get("Node Type") == "Custom Scan" and \
        node.get("Custom Plan Provider") in GPU_PROVIDERS


# ---------------------------------------------------------------- execution

class ModeResult:
    def __init__(self):
        self.times = []       # ms of the timed runs
        self.status = "ok"    # ok | timeout | error | crash
        self.message = ""
        self.rows = None      # result of the last timed run (header first)
        self.plan = None
        self.sqlstate = None  # of the statement that failed

    @property
    def median(self):
        return statistics.median(self.times) if self.status == "ok" and self.times else None

    @property
    def range(self):
        """(fastest, slowest) of the timed runs, or None."""
        return (min(self.times), max(self.times)) if self.median is not None else None


def mode_settings(args, prefix, on, device_ok):
    """The statements that put a session in one mode."""
    mode = "on" if on else "off"
    lines = [prefix.rstrip(), f"SET statement_timeout = '{int(args.timeout * 1000)}ms';",
             f"SET {args.toggle} = {mode};"]
    if on and device_ok:
        lines.append(f"SET {DEVICE_SETTING} = '{args.device}';")
    if on:
        for kv in args.set:
            name, _, value = kv.partition("=")
            lines.append(f"SET {name.strip()} = '{value.strip()}';")
    if args.workers is not None:
        lines.append(f"SET max_parallel_workers_per_gather = {args.workers};")
    if args.citus:
        lines = citus_mode_settings(lines)
    return lines


def citus_mode_settings(lines):
    """One mode's statements for a Citus coordinator.

    A plain SET stays on the coordinator (citus.propagate_set_commands is
    'none' by default). With 'local', Citus sends the SET LOCALs of a
    transaction to every worker connection it opens in that transaction, so the
    mode's settings open a transaction (closed by citus_end) as SET LOCAL.
    statement_timeout stays a plain SET: the coordinator cancels the tasks."""
    out = [lines[0], lines[1],
           "SET citus.propagate_set_commands = 'local';",
           # every task's plan in EXPLAIN, to count those with a GPU join
           "SET citus.explain_all_tasks = on;",
           # lineitem joins partsupp on part key (Q09): a re-partition join
           "SET citus.enable_repartition_joins = on;",
           "BEGIN;"]
    out += [re.sub(r"^SET ", "SET LOCAL ", l) for l in lines[2:]]
    return out


def citus_end(args):
    return ["COMMIT;"] if args.citus else []


def read_plan(plan_file):
    """The "Plan" of an EXPLAIN (FORMAT JSON) written to plan_file, or None."""
    try:
        with open(plan_file) as f:
            return json.loads(f.read())[0]["Plan"]
    except (OSError, ValueError, IndexError, KeyError):
        return None


def plan_only(args, psql, prefix, q, text, on, workdir, device_ok):
    """The query's plan in one mode (EXPLAIN, not run), or None."""
    plan_file = os.path.join(workdir, f"q{q:02d}_{'on' if on else 'off'}_plan.json")
    lines = mode_settings(args, prefix, on, device_ok)
    lines += ["\\pset tuples_only on", f"\\o {plan_file}", "EXPLAIN (FORMAT JSON)", text, "\\o"]
    lines += citus_end(args)
    psql.script("\n".join(l for l in lines if l) + "\n", args.timeout + 60)
    return read_plan(plan_file)


def run_mode(args, psql, prefix, q, text, on, workdir, device_ok):
    """Warm-up and timed runs of one query in one mode, in one session."""
    mode = "on" if on else "off"
    res = ModeResult()
    tag = f"q{q:02d}_{mode}"
    plan_file = os.path.join(workdir, tag + "_plan.json")
    out_files = []
    lines = mode_settings(args, prefix, on, device_ok)
    lines += ["\\echo @@SETUP :ERROR",
              "\\if :ERROR", "\\q", "\\endif",
              "\\pset tuples_only on", f"\\o {plan_file}",
              "EXPLAIN (FORMAT JSON)", text, "\\o", "\\pset tuples_only off",
              "\\echo @@PLAN :ERROR :SQLSTATE", "\\timing on"]
    if args.citus:
        # the failed EXPLAIN aborted the transaction: the runs would only say so
        lines += ["\\if :ERROR", "\\q", "\\endif"]
    total = args.warmup + args.runs
    for i in range(total):
        f = os.path.join(workdir, f"{tag}_run{i}.out")
        out_files.append(f)
        lines += [f"\\o {f}", text, "\\o", f"\\echo @@RUN {i} :ERROR :SQLSTATE",
                  "\\if :ERROR", "\\q", "\\endif"]
    lines += citus_end(args)
    script = "\n".join(l for l in lines if l) + "\n"
    limit = (total + 1) * args.timeout + 120
    try:
        r = psql.script(script, limit)
    except subprocess.TimeoutExpired:
        res.status, res.message = "timeout", "client-side time limit"
        return res

    last_time, failed = None, None
    for line in r.stdout.splitlines():
        m = re.match(r"^Time: ([0-9.]+) ms", line)
        if m:
            last_time = float(m.group(1))
            continue
        parts = line.split()
        if not parts or not parts[0].startswith("@@"):
            continue
        if parts[0] == "@@SETUP" and parts[1] == "true":
            failed = ("error", "setup failed")
        elif parts[0] == "@@PLAN" and parts[1] == "true":
            failed = ("timeout" if parts[2:] == ["57014"] else "error", "EXPLAIN failed")
            res.sqlstate = (parts[2:] or [None])[0]
        elif parts[0] == "@@RUN":
            i = int(parts[1])
            if parts[2] == "true":
                failed = ("timeout" if parts[3:] == ["57014"] else "error", f"run {i} failed")
                res.sqlstate = (parts[3:] or [None])[0]
            elif i >= args.warmup and last_time is not None:
                res.times.append(last_time)
            last_time = None
    if failed is None and len(res.times) != args.runs:
        failed = ("crash" if r.returncode == 2 else "error", "session ended early")
    res.plan = read_plan(plan_file)
    if failed:
        res.status, res.message = failed
        if res.status == "timeout":
            res.message = f"timed out (> {args.timeout:g} s)"
        err = [l for l in r.stderr.splitlines() if "ERROR" in l or "FATAL" in l
               or "server closed" in l or "connection" in l]
        if err and res.status != "timeout":
            res.message += ": " + re.sub(r"^psql:[^:]*:\d+: ", "", err[-1].strip())
        if res.status == "crash" or "server closed" in r.stderr:
            res.status = "crash"
            psql.wait_ready()
        return res
    with open(out_files[-1]) as f:
        res.rows = [line.split("\x1f") for line in f.read().splitlines()]
    return res


def fmt_ms(v):
    return "-" if v is None else f"{v:.1f}"


def load_data(args, psql):
    """Generate and load the data unless --skip-load; exit when lineitem is unreadable."""
    if not args.skip_load:
        cmd = [os.path.join(HERE, "load.sh"), "-s", f"{args.sf:g}", "-d", args.db,
               "-j", str(args.jobs)]
        if args.data_dir:
            cmd += ["-t", args.data_dir]
        if args.seed:
            cmd += ["-S", args.seed]
        if args.citus:
            cmd += ["-x", os.path.join(HERE, "citus.sql")]
        elif args.no_foreign_keys:
            cmd += ["-F"]
        print("run.py: " + " ".join(cmd), flush=True)
        if subprocess.run(cmd).returncode != 0:
            sys.exit("run.py: loading the data failed")
    if psql.scalar("SELECT count(*) FROM lineitem") is None:
        sys.exit(f"run.py: cannot read table lineitem in database '{args.db}'")


def merge_modes(a, b):
    """One mode's runs from both orders: the times of both, or the first failure."""
    if a.status != "ok":
        return a
    if b.status != "ok":
        return b
    a.times += b.times
    return a


def run_query(args, psql, prefix, q, text, workdir, device_ok):
    """The query off and on, in the order --order asks for: (off, on).  Each
    mode's timed runs are printed as they end: a run cut short by the
    caller's own time limit keeps what it measured (Q18 at SF 10 takes over
    a minute a run)."""
    def mode(on):
        res = run_mode(args, psql, prefix, q, text, on, workdir, device_ok)
        print(f"  Q{q:02d}  {'on ' if on else 'off'} runs: "
              + (" ".join(fmt_ms(t) for t in res.times) + " ms" if res.status == "ok"
                 else res.status), file=sys.stderr, flush=True)
        return res

    if args.order == "on-first":
        on = mode(True)
        return mode(False), on
    off = mode(False)
    on = mode(True)
    if args.order == "both":
        for r in range(max(args.rounds, 1)):
            if r:
                off = merge_modes(off, mode(False))
                on = merge_modes(on, mode(True))
            on = merge_modes(on, mode(True))
            off = merge_modes(off, mode(False))
    return off, on


DETAIL_FILE = re.compile(r"^q[0-9]{2}_(on|off)_(plan\.json|run[0-9]+\.out)$")


def clear_details(workdir):
    """This run's plans and results replace the last run's: only the files
    run_mode writes are removed, whatever else the directory holds."""
    for name in os.listdir(workdir):
        if DETAIL_FILE.match(name):
            os.unlink(os.path.join(workdir, name))


def run_all(args):
    psql = Psql(args.psql, args.db)
    load_data(args, psql)
    prefix, notes = prepare_extension(psql, args.toggle)
    device_ok = setting_exists(psql, DEVICE_SETTING, prefix)
    if not device_ok:
        notes.append(f"setting {DEVICE_SETTING} does not exist: --device ignored")

    workdir = args.save_dir or tempfile.mkdtemp(prefix="tpch-run-")
    os.makedirs(workdir, exist_ok=True)
    clear_details(workdir)
    info = server_info(psql, args)
    results = []
    for q in args.query_list:
        text = load_query(q, args.sf)
        off, on = run_query(args, psql, prefix, q, text, workdir, device_ok)
        row = summarize(q, text, off, on, gpu_join_matcher(args.count_node), args.citus)
        results.append(row)
        print(f"  Q{q:02d}  native {fmt_ms(row['native'])} ms  gpu {fmt_ms(row['gpu'])} ms  "
              f"gpu nodes {row['nodes']}  "
              + (f"gpu tasks {row['tasks']}  " if args.citus else "") + row["equal"]
              + (f"  ({row['note']})" if row["note"] else ""), file=sys.stderr, flush=True)
    info["buffered_end"] = buffered_share(psql)
    if not args.save_dir:
        shutil.rmtree(workdir, ignore_errors=True)
    return results, info, notes


def citus_counts(plan, is_gpu_join):
    """GPU joins of a Citus coordinator's EXPLAIN (FORMAT JSON) with
    citus.explain_all_tasks: {"nodes": all GPU join nodes (coordinator's and
    tasks'), "tasks": tasks shown, "gpu_tasks": tasks with a GPU join,
    "hidden": tasks EXPLAIN does not show (those of re-partition joins)}.

    A Citus scan node holds "Distributed Query": its "Job" lists "Tasks",
    each with its worker's plan under "Remote Plan"; "Subplans" (CTEs and
    subqueries Citus runs first) hold whole plans of their own."""
    c = {"nodes": 0, "tasks": 0, "gpu_tasks": 0, "hidden": 0}

    def gpu_nodes(x):
        n = 0
        if isinstance(x, dict):
            if "Node Type" in x and is_gpu_join(x):
                n += 1
            if isinstance(x.get("Tasks"), list):
                for task in x["Tasks"]:
                    k = gpu_nodes(task)
                    c["tasks"] += 1
                    c["gpu_tasks"] += k > 0
                    n += k
            elif "Task Count" in x:
                c["hidden"] += int(x["Task Count"])
            for key, v in x.items():
                if key != "Tasks":
                    n += gpu_nodes(v)
        elif isinstance(x, list):
            n += sum(gpu_nodes(v) for v in x)
        return n

    c["nodes"] = gpu_nodes(plan)
    return c


def summarize(q, text, off, on, is_gpu_join, citus=False):
    row = {"q": q, "native": off.median, "gpu": on.median, "ratio": None,
           "native_range": off.range, "gpu_range": on.range, "overlap": False,
           "devices": join_devices(on.plan, is_gpu_join) if on.plan is not None else set(),
           "nodes": "-", "rows": "-", "equal": "-", "note": "", "ok": True}
    if citus:
        row["tasks"] = "-"
        if on.plan is not None:
            c = citus_counts(on.plan, is_gpu_join)
            row["nodes"] = c["nodes"]
            row["tasks"] = f"{c['gpu_tasks']}/{c['tasks']}"
            if c["hidden"]:
                row["tasks"] += f" +{c['hidden']}?"
                row["note"] = (f"re-partition join: EXPLAIN does not show its {c['hidden']} "
                               "tasks, so their GPU joins are not counted (+N? in GPU tasks)")
        if off.plan is not None and citus_counts(off.plan, is_gpu_join)["nodes"]:
            row["note"] = "; ".join(n for n in ("GPU join in the 'off' plan", row["note"]) if n)
        if off.status == "error" and off.sqlstate == CITUS_UNSUPPORTED:
            # Citus's own refusal, with the GPU join off: not gpuhash's to answer
            same = on.status == "error" and on.sqlstate == off.sqlstate
            why = re.sub(r"^.*?ERROR:\s*", "", off.message)
            row["equal"] = "not distributed" if same else "error"
            row["ok"] = same
            row["note"] = f"Citus cannot run this query distributed: {why}" + \
                ("" if same else f"; with the GPU join on: {on.status}: {on.message}")
            return row
    elif on.plan is not None:
        row["nodes"] = count_nodes(on.plan, is_gpu_join)
    if not citus and off.plan is not None and count_nodes(off.plan, is_gpu_join):
        row["note"] = "GPU join in the 'off' plan"
    if off.rows is not None:
        row["rows"] = len(off.rows) - 1
    if row["native"] and row["gpu"]:
        row["ratio"] = row["native"] / row["gpu"]
        # the modes' fastest..slowest runs overlap: the ratio is within the noise
        (a_lo, a_hi), (b_lo, b_hi) = row["native_range"], row["gpu_range"]
        row["overlap"] = a_lo <= b_hi and b_lo <= a_hi
    bad = [(name, m) for name, m in (("native", off), ("gpu", on)) if m.status != "ok"]
    if bad:
        row["equal"] = "/".join(sorted({m.status for _, m in bad}))
        row["note"] = "; ".join(f"{name}: {m.message}" for name, m in bad)
        row["ok"] = all(m.status == "timeout" for _, m in bad)
    else:
        equal, how = compare_results(text, off.rows, on.rows)
        row["equal"] = "yes" if equal else "NO"
        if not equal:
            row["note"] = f"results differ ({how})"
            row["ok"] = False
    return row


def join_devices(plan, is_gpu_join):
    """The "Device" values (gpu, host) of the plan's counted join nodes,
    anywhere in the EXPLAIN JSON (a Citus plan holds its tasks' plans)."""
    found = set()

    def walk(x):
        if isinstance(x, dict):
            if "Node Type" in x and is_gpu_join(x) and x.get("Device"):
                found.add(x["Device"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(plan)
    return found


def buffered_share(psql):
    """lineitem's blocks in shared buffers, as "41% (in order 99%)", or "?"
    where pg_buffercache cannot be had.  A restart empties shared buffers,
    and the GPU join's page path reads a page copied in from the kernel's
    cache for about three times the CPU of a page already there, native's
    scans far less affected (their bulk-read ring).  "In order" is the
    share of those blocks whose next block sits in the next buffer: a load
    or pg_prewarm leaves a table in order, a parallel scan's workers
    interleave it, and the page path ran 1.5x slower on interleaved
    buffers (journal §53).  Runs in different states are not the same
    measurement."""
    if psql.scalar("CREATE EXTENSION IF NOT EXISTS pg_buffercache") is None:
        return "?"
    v = psql.scalar(
        "SELECT round(100.0 * count(*) / greatest(pg_relation_size('lineitem') / "
        "current_setting('block_size')::int, 1)) || '% (in order ' || "
        "round(100.0 * count(*) FILTER (WHERE bufferid = prev + 1) / greatest(count(*), 1)) || '%)' "
        "FROM (SELECT bufferid, lag(bufferid) OVER (ORDER BY relblocknumber) AS prev "
        "FROM pg_buffercache "
        "WHERE relfilenode = pg_relation_filenode('lineitem') AND relforknumber = 0 "
        "AND reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())) b")
    return v if v else "?"


def server_info(psql, args):
    info = {}
    for name in ("server_version", "shared_buffers", "work_mem",
                 "max_parallel_workers_per_gather", "jit", "shared_preload_libraries"):
        value = psql.scalar(f"SHOW {name}")
        info[name] = "?" if value is None else value
    if args.workers is not None:
        info["max_parallel_workers_per_gather"] = str(args.workers)
    info["cpus"] = str(os.cpu_count())
    gpu = "none found"
    if shutil.which("nvidia-smi"):
        r = subprocess.run(["nvidia-smi", "--query-gpu=name,memory.total", "--format=csv,noheader"],
                           capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip():
            gpu = "; ".join(r.stdout.strip().splitlines())
    if gpu == "none found":
        # the extension says why (no driver, or built without CUDA)
        why = psql.scalar("SELECT name FROM gpuhash_info() WHERE gpu IS NULL")
        if why:
            gpu = f"none found ({why})"
    info["gpu"] = gpu
    # ANALYZE samples lineitem's blocks, which hold each order's lines
    # together: l_orderkey's n_distinct varies from load to load, and the
    # join plans with it: a plan can move between two loads of one scale
    info["orderkey_ndistinct"] = psql.scalar(
        "SELECT n_distinct FROM pg_stats WHERE schemaname = current_schema() "
        "AND tablename = 'lineitem' AND attname = 'l_orderkey'") or "?"
    info["uptime"] = psql.scalar(
        "SELECT round(extract(epoch FROM now() - pg_postmaster_start_time()))") or "?"
    info["buffered_start"] = buffered_share(psql)
    if args.citus:
        info["citus"] = psql.scalar("SELECT extversion FROM pg_extension WHERE extname = 'citus'") or "?"
        info["citus_workers"] = psql.scalar(
            "SELECT count(*) FROM pg_dist_node WHERE noderole = 'primary' AND shouldhaveshards") or "?"
        info["citus_shards"] = psql.scalar(
            "SELECT shard_count FROM citus_tables WHERE table_name = 'lineitem'::regclass") or "?"
    return info


# ------------------------------------------------------------------- output

def has_node(r):
    return isinstance(r["nodes"], int) and r["nodes"] > 0


def category(r, kind):
    """A row's bar colour: what ran its 'on' plan's counted join nodes."""
    if not has_node(r):
        return "none"
    if kind == "toggle":
        return "counted"
    return "gpu" if "gpu" in r["devices"] else "host"


def what_ran(args, results, info):
    """The words for what the 'on' column measured: GPU only where a GPU ran
    the join.  Keys: kind (gpu, host, mixed, none, toggle), off and on (the
    columns' headers), nodes (the node column's), title, closing (the last
    line), join (what the second geometric mean is over)."""
    n = sum(1 for r in results if has_node(r))
    total = len(results)
    devices = set()
    for r in results:
        devices |= r["devices"]
    gpu_note = f" (GPU: {info.get('gpu', '?')})"
    if args.count_node or args.toggle.lower() != "enable_gpuhashjoin":
        node = args.count_node or "GpuHashJoin"
        return {"kind": "toggle", "off": f"{args.toggle} off ms", "on": f"{args.toggle} on ms",
                "nodes": f"{node} nodes", "join": f"with a {node} node",
                "title": f"{args.toggle} off vs on",
                "closing": f"No GPU join measured: the columns compare {args.toggle} off and on; "
                           f"{n} of {total} 'on' plans have a {node} node."}
    if n == 0:
        return {"kind": "none", "off": "native ms", "on": "on ms (no GPU node)",
                "nodes": "GpuHashJoin nodes", "join": "with a GPU join",
                "title": "no GPU join planned: PostgreSQL's plans in both columns",
                "closing": "Nothing ran on a GPU: no query planned a GpuHashJoin" + gpu_note +
                           ", so both columns are PostgreSQL's own plans" +
                           (" (the 'on' runs with the --set settings)." if args.set else
                            " and their ratios are run-to-run noise.")}
    others = (f"; the other {total - n} have no GpuHashJoin node in their 'on' plan"
              if n < total else "")
    if devices == {"gpu"}:
        return {"kind": "gpu", "off": "native ms", "on": "GPU ms",
                "nodes": "GPU join nodes", "join": "with a GPU join",
                "title": "GPU hash join vs PostgreSQL",
                "closing": f"GPU: {n} of {total} queries ran a GPU join on the GPU{others}."}
    if devices == {"host"}:
        return {"kind": "host", "off": "native ms", "on": "host twin ms (no GPU)",
                "nodes": "GpuHashJoin nodes (host twin)", "join": "with a GpuHashJoin (host twin)",
                "title": "gpuhash's host twin (CPU, no GPU) vs PostgreSQL",
                "closing": f"Nothing ran on a GPU{gpu_note}: {n} of {total} queries ran their "
                           f"GpuHashJoin on the host twin, gpuhash's CPU code{others}."}
    return {"kind": "mixed", "off": "native ms", "on": "GPU or host twin ms",
            "nodes": "GpuHashJoin nodes", "join": "with a GpuHashJoin",
            "title": "gpuhash (GPU and host twin) vs PostgreSQL",
            "closing": f"{n} of {total} queries ran a GpuHashJoin, some on the GPU and some on "
                       f"the host twin (the node column says which){others}."}


def geomean_of(ratios):
    ratios = [x for x in ratios if x]
    if not ratios:
        return None, 0
    return math.exp(sum(math.log(x) for x in ratios) / len(ratios)), len(ratios)


def summary(results):
    """Totals and geometric means: over all queries that ran in both modes,
    and over those whose 'on' plan has a counted join node."""
    both = [r for r in results if r["native"] and r["gpu"]]
    return {"gm_all": geomean_of([r["ratio"] for r in both]),
            "gm_join": geomean_of([r["ratio"] for r in both if has_node(r)]),
            "total_off": sum(r["native"] for r in both),
            "total_on": sum(r["gpu"] for r in both), "n_both": len(both),
            "overlap": sum(1 for r in both if r["overlap"])}


def summary_lines(s, ran, results):
    lines = []
    if s["n_both"]:
        lines.append(f"total time of the {s['n_both']} queries that ran in both modes "
                     f"(sum of medians): {s['total_off']:.1f} ms off (native), "
                     f"{s['total_on']:.1f} ms on (ratio {s['total_off'] / s['total_on']:.3f})")
    gm, n = s["gm_all"]
    lines.append("geometric mean of ratios: " + ("-" if gm is None else f"{gm:.3f} over all {n} queries"))
    gm, n = s["gm_join"]
    lines.append(f"geometric mean of ratios over the queries {ran['join']}: "
                 + ("- (none)" if gm is None else f"{gm:.3f} over {n}"))
    if s["overlap"]:
        lines.append(f"*: {s['overlap']} ratio(s) where the two modes' runs overlap (fastest to "
                     "slowest): within run-to-run noise")
    return lines


HEADERS = ["query", "native ms", "GPU ms", "ratio", "GPU nodes", "rows", "equal"]
# --citus: shard tasks with a GPU join / tasks shown, after GPU nodes
CITUS_HEADERS = HEADERS[:5] + ["GPU tasks"] + HEADERS[5:]


def headers(results, ran):
    cols = CITUS_HEADERS if any("tasks" in r for r in results) else HEADERS
    return [cols[0], ran["off"], ran["on"], cols[3], ran["nodes"]] + cols[5:]


def fmt_time(median, rng):
    """The median and, over several runs, half the fastest-to-slowest range."""
    if median is None:
        return "-"
    if rng is None or rng[0] == rng[1]:
        return fmt_ms(median)
    return f"{median:.1f} ±{100 * (rng[1] - rng[0]) / 2 / median:.0f}%"


def table_rows(results, ran):
    out = []
    for r in results:
        nodes = str(r["nodes"])
        if ran["kind"] == "mixed" and has_node(r):
            nodes += " (" + "/".join(sorted(r["devices"])) + ")"
        ratio = "-" if r["ratio"] is None else f"{r['ratio']:.2f}" + ("*" if r["overlap"] else "")
        cells = [f"Q{r['q']:02d}", fmt_time(r["native"], r["native_range"]),
                 fmt_time(r["gpu"], r["gpu_range"]), ratio, nodes]
        if "tasks" in r:
            cells.append(r["tasks"])
        out.append(cells + [str(r["rows"]), r["equal"]])
    return out


def print_table(results, ran, s):
    cols = headers(results, ran)
    rows = table_rows(results, ran)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(cols)]
    line = "  ".join(h.rjust(w) if i else h.ljust(w) for i, (h, w) in enumerate(zip(cols, widths)))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(c.rjust(w) if i else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))))
    for l in summary_lines(s, ran, results):
        print(l)
    for r in results:
        if r["note"]:
            print(f"Q{r['q']:02d}: {r['note']}")


def title_of(args, ran):
    if args.correctness_run:
        what = {"gpu": "GPU", "host": "host twin", "mixed": "GPU and host twin",
                "none": "no GPU node", "toggle": args.toggle}[ran["kind"]]
        return (f"TPC-H SF {args.sf:g}: forced GPU paths, {what}, correctness run: "
                "times are not a benchmark")
    return f"TPC-H SF {args.sf:g}: {ran['title']}"


def write_report(path, args, results, ran, s, info, notes, chart):
    cols = headers(results, ran)
    rows = table_rows(results, ran)
    with open(path, "w") as f:
        f.write(f"# {title_of(args, ran)}\n\n")
        f.write(f"{ran['closing']}\n\n")
        f.write(f"- date: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}\n")
        f.write(f"- scale factor: {args.sf:g}; database: {args.db}\n")
        f.write(f"- toggle: `{args.toggle}` off (native) / on; --device {args.device}\n")
        if args.set:
            f.write("- settings of the on runs: " + ", ".join(f"`{kv}`" for kv in args.set) + "\n")
        sessions = 2 * max(args.rounds, 1) if args.order == "both" else 1
        f.write(f"- runs: {args.warmup} warm-up + median of {args.runs * sessions}, "
                f"{sessions} session(s) per mode, order {args.order}; "
                f"timeout {args.timeout:g} s per statement; ±: half the fastest-to-slowest "
                "range of a mode's runs, as a share of its median\n")
        f.write(f"- PostgreSQL {info['server_version']}; shared_buffers {info['shared_buffers']}, "
                f"work_mem {info['work_mem']}, max_parallel_workers_per_gather "
                f"{info['max_parallel_workers_per_gather']}, jit {info['jit']}, "
                f"shared_preload_libraries '{info['shared_preload_libraries']}'\n")
        f.write(f"- host: {info['cpus']} CPUs; GPU: {info['gpu']}\n")
        f.write(f"- server up {info['uptime']} s at the start; lineitem's blocks in shared buffers: "
                f"{info['buffered_start']} at the start, {info.get('buffered_end', '?')} at the end "
                "(a restart empties them; the page path reads a page from the kernel's cache "
                "slower than one in shared buffers, and interleaved buffers slower than "
                "buffers in block order)\n")
        f.write(f"- statistics: n_distinct of lineitem.l_orderkey {info['orderkey_ndistinct']} "
                "(sampled by ANALYZE; the join plans move with it)\n")
        f.write(f"- {ran['nodes']}: plan nodes of type "
                + (f"`{args.count_node}`" if args.count_node else f"Custom Scan ({GPU_PROVIDER})")
                + " in the 'on' plan"
                + (", the coordinator's and every shard task's" if args.citus else "")
                + ("" if ran["kind"] == "toggle" else "; EXPLAIN's `Device` says where it runs")
                + "\n")
        if args.citus:
            f.write(f"- Citus {info['citus']}: a coordinator and {info['citus_workers']} workers, "
                    f"{info['citus_shards']} shards per distributed table; lineitem and orders "
                    "distributed by order key (co-located), partsupp by part key, the other "
                    "tables reference tables (tpch/citus.sql); citus.enable_repartition_joins on\n")
            f.write("- settings reach the workers as SET LOCAL with "
                    "citus.propagate_set_commands = 'local', one transaction per mode and query\n")
            f.write("- GPU tasks: shard tasks whose plan has a GPU join / tasks shown by EXPLAIN "
                    "with citus.explain_all_tasks (main query and subplans); +N? tasks of a "
                    "re-partition join, which EXPLAIN does not show\n")
        for note in notes:
            f.write(f"- note: {note}\n")
        f.write("\n| " + " | ".join(cols) + " |\n")
        f.write("|" + "|".join(["---"] + ["---:"] * (len(cols) - 1)) + "|\n")
        for r in rows:
            f.write("| " + " | ".join(r) + " |\n")
        f.write("\n" + "".join(f"{l}\n\n" for l in summary_lines(s, ran, results)))
        problems = [r for r in results if r["note"]]
        if problems:
            f.write("## Notes\n\n")
            for r in problems:
                f.write(f"- Q{r['q']:02d}: {r['note']}\n")
            f.write("\n")
        if chart:
            f.write(f"![ratios]({os.path.relpath(chart, os.path.dirname(os.path.abspath(path)))})\n\n")
        f.write(f"{ran['closing']}\n")


CATEGORIES = {  # colour and legend text of a bar
    "gpu": ("#2a9d8f", "GPU join, run on the GPU"),
    "host": ("#e9c46a", "GpuHashJoin on the host twin (CPU)"),
    "counted": ("#2a9d8f", "'on' plan has a counted node"),
    "none": ("#b0b0b0", "no GpuHashJoin node: PostgreSQL's plan"),
}


def chart_lines(s, ran):
    """(value, legend text, colour) of the geometric-mean lines to draw."""
    out = []
    gm, n = s["gm_all"]
    if gm:
        out.append((gm, f"geometric mean, all {n} queries: {gm:.2f}", "#e76f51"))
    gj, nj = s["gm_join"]
    if gj and nj != n:
        out.append((gj, f"geometric mean, {nj} {ran['join']}: {gj:.2f}", "#264653"))
    return out


def write_chart(path, args, results, ran, s):
    title = title_of(args, ran)
    data = []
    for r in results:
        lo = hi = r["ratio"] or 0.0
        if r["ratio"] and r["native_range"] and r["gpu_range"]:
            lo = r["native_range"][0] / r["gpu_range"][1]
            hi = r["native_range"][1] / r["gpu_range"][0]
        data.append((f"Q{r['q']:02d}", r["ratio"] or 0.0, category(r, ran["kind"]), lo, hi))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.patches import Patch
    except ImportError:
        return write_chart_gnuplot(path, data, chart_lines(s, ran), title, ran)
    # head room above the tallest whisker for the legend
    top = 1.3 * max([1.0] + [d[4] for d in data] + [v for v, _, _ in chart_lines(s, ran)])
    fig, ax = plt.subplots(figsize=(max(7, 0.45 * len(data) + 3), 4.8))
    ax.bar([d[0] for d in data], [d[1] for d in data],
           color=[CATEGORIES[d[2]][0] for d in data],
           yerr=[[d[1] - d[3] for d in data], [d[4] - d[1] for d in data]],
           error_kw={"elinewidth": 0.8, "capsize": 2, "ecolor": "#555555"})
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_ylim(0, top)
    present = [c for c in CATEGORIES if any(d[2] == c for d in data)]
    handles = [Patch(color=CATEGORIES[c][0], label=CATEGORIES[c][1]) for c in present]
    for value, label, color in chart_lines(s, ran):
        handles.append(ax.axhline(value, color=color, linestyle="--", linewidth=1, label=label))
    ax.legend(handles=handles, loc="upper right", fontsize=8)
    ax.set_ylabel(f"{ran['off']} / {ran['on']}\n(median; whiskers: fastest and slowest runs)",
                  fontsize=8)
    ax.set_title(title, fontsize=9)
    ax.tick_params(axis="x", rotation=60, labelsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def gnuplot_str(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_chart_gnuplot(path, data, lines, title, ran):
    if not shutil.which("gnuplot"):
        print("run.py: no matplotlib or gnuplot: chart skipped", file=sys.stderr)
        return False
    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as f:
        for name, ratio, cat, lo, hi in data:
            f.write(f"{name} {ratio:.4f} {int(CATEGORIES[cat][0][1:], 16)} {lo:.4f} {hi:.4f}\n")
        dat = f.name
    present = [c for c in CATEGORIES if any(d[2] == c for d in data)]
    # the legend: one invisible curve per category present, one per line
    keys = "".join(f", NaN with boxes lc rgb '{CATEGORIES[c][0]}' title {gnuplot_str(CATEGORIES[c][1])}"
                   for c in present)
    keys += "".join(f", {v:.4f} with lines dt 2 lc rgb '{col}' title {gnuplot_str(label)}"
                    for v, label, col in lines)
    script = f"""
set terminal pngcairo size {max(700, 40 * len(data) + 200)},500
set output {gnuplot_str(path)}
set title {gnuplot_str(title)}
set ylabel {gnuplot_str(ran['off'] + ' / ' + ran['on'])[:-1]}\\n(median; whiskers: fastest, slowest)"
set style fill solid
set boxwidth 0.7
set xtics rotate by -60
set yrange [0:{1.3 * max([1.0] + [d[4] for d in data] + [v for v, _, _ in lines]):.3f}]
set bars small
set key top right
plot '{dat}' using 0:2:3:xtic(1) with boxes lc rgb variable notitle, \\
     '{dat}' using 0:2:4:5 with yerrorbars lc rgb '#555555' pt 0 notitle, \\
     1 with lines lc rgb 'black' notitle{keys}
"""
    r = subprocess.run(["gnuplot"], input=script, capture_output=True, text=True)
    os.unlink(dat)
    if r.returncode != 0:
        print("run.py: gnuplot failed: " + r.stderr.strip(), file=sys.stderr)
        return False
    return True


def plans_all(args):
    """--plans: each query's off and on plans compared; 1 on a serial regression."""
    import plans
    psql = Psql(args.psql, args.db)
    load_data(args, psql)
    prefix, notes = prepare_extension(psql, args.toggle)
    device_ok = setting_exists(psql, DEVICE_SETTING, prefix)
    os.makedirs(args.plans, exist_ok=True)
    is_gpu = gpu_join_matcher(args.count_node)
    bad, moved, differ = [], [], []
    since = args.plans_since
    print("query  GPU nodes  changed nodes  " + ("since DIR (cost then -> now)  " if since else "")
          + "read serially when on")
    for q in args.query_list:
        text = load_query(q, args.sf)
        off = plan_only(args, psql, prefix, q, text, False, args.plans, device_ok)
        on = plan_only(args, psql, prefix, q, text, True, args.plans, device_ok)
        if off is None or on is None:
            print(f"Q{q:02d}   no plan")
            bad.append(q)
            continue
        report, summary = plans.compare(q, off, on, is_gpu, count_nodes)
        col = ""
        if since:
            then = read_plan(os.path.join(since, f"q{q:02d}_on_plan.json"))
            if then is None:
                col = f"{'no plan there':29s}  "
            else:
                same = plans.signature(then) == plans.signature(on)
                if not same:
                    moved.append(q)
                    report += ("\n-- Q%02d: the 'on' plan in %s (cost %.0f; now %.0f)\n"
                               % (q, since, then["Total Cost"], on["Total Cost"]))
                    report += "\n".join(plans.render(then, None)) + "\n"
                col = (f"{'same' if same else 'CHANGED'} "
                       f"{then['Total Cost']:.0f} -> {on['Total Cost']:.0f}").ljust(29) + "  "
        with open(os.path.join(args.plans, f"q{q:02d}.txt"), "w") as f:
            f.write(report)
        print(f"Q{q:02d}   {summary['gpu_nodes']:9d}  {summary['changed']:13d}  " + col
              + (", ".join(summary["serial"]) or "-"))
        if summary["serial"]:
            bad.append(q)
        if not plans_identity(q, off, on, summary, args.plans, differ):
            bad.append(q)
    if since:
        print(f"run.py: 'on' plans changed since {since}: "
              + (", ".join(f"Q{q:02d}" for q in moved) or "none"))
    for note in notes:
        print(f"run.py: note: {note}", file=sys.stderr)
    if differ:
        print("run.py: plans without a GPU join that are not PostgreSQL's own: "
              + ", ".join(f"Q{q:02d}" for q in differ), file=sys.stderr)
    if bad:
        print("run.py: plans with a serial subtree the native plan ran in parallel, "
              "without a GPU join and not native's, or none: "
              + ", ".join(f"Q{q:02d}" for q in sorted(set(bad))), file=sys.stderr)
        return 1
    return 0


def plans_identity(q, off, on, summary, outdir, differ):
    """--plans: a plan without a GPU join must be PostgreSQL's own, node by
    node with its costs (tpch/plans.py, native_identity).  False, with the
    difference printed and appended to the query's report, where it is not."""
    import plans
    diff = plans.native_identity(off, on, summary["gpu_nodes"])
    if diff is None:
        return True
    differ.append(q)
    print(f"Q{q:02d}   no GPU join, yet not native's plan: {diff}")
    with open(os.path.join(outdir, f"q{q:02d}.txt"), "a") as f:
        f.write(f"\n-- Q{q:02d}: no GPU join, yet not native's plan: {diff}\n")
    return False


def main(argv):
    args = parse_args(argv)
    if args.check_args:
        return 0
    if args.plans:
        return plans_all(args)
    results, info, notes = run_all(args)
    ran = what_ran(args, results, info)
    s = summary(results)
    for note in notes:
        print(f"run.py: note: {note}", file=sys.stderr)
    print()
    print_table(results, ran, s)
    chart = None
    if args.chart:
        if write_chart(args.chart, args, results, ran, s):
            chart = args.chart
            print(f"chart: {args.chart}")
    if args.report:
        write_report(args.report, args, results, ran, s, info, notes, chart)
        print(f"report: {args.report}")
    failed = [r for r in results if not r["ok"]]
    if failed:
        print(f"run.py: {len(failed)} queries differ or failed: "
              + ", ".join(f"Q{r['q']:02d}" for r in failed), file=sys.stderr)
    print(ran["closing"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
