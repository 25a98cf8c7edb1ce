#!/usr/bin/env python3
"""Measure the planner constants of gpuhash on the running server.

On the server the PG* variables point at (gpuhash loaded, its device as
configured: GPU or host twin), serial plans over synthetic tables, each
query timed with one warm-up and the median of --runs:

  - the fixed cost of a GPU join: a 1000 x 1000 join, less its two scans;
  - the cost per inner row built: inner sides of growing size against a
    small outer side (slope of the time, less the inner scan's);
  - the cost per inner row kept for output: the same inner sides with an
    int and a text column read above the join, against keys only
    (gpuhash.kept_row_cost);
  - the same where the inner side is a join's output (calib_inner joined
    to a 977-row table below the join): what it adds to a table's kept row
    is gpuhash.kept_join_row_cost;
  - the cost per outer row probed (scan, key, probe wait): outer sides of
    growing size whose keys all miss (slope, less the outer scan's);
  - the cost per match emitted: the same outer side with every key
    matching, against every key missing (gpuhash.match_row_cost);
  - the page path (gpuhash.page_scan on; the measures above run with it
    off): per outer page handed over and per tuple the walker walks, from
    every-key-missing joins over a narrow and a wide table at two sizes
    each (gpuhash.page_cpu_cost, gpuhash.page_row_cost), and per record
    handed back and emitted, every key matching against every key missing
    (gpuhash.page_match_cost);
  - with --parallel W: the per-inner-row and per-kept-row build costs of a
    parallel-aware join with W workers, every participant reading a share
    of the inner side (the GPU join's Parallel Inner Scan, PostgreSQL's
    Parallel Hash), as wall time and as participant time (wall time times
    the participants).  Q12 at SF 10 built 15 M orders rows with a kept
    column this way in 778 ms a participant on the H100, more than the
    serial constants predict.

The same joins run as PostgreSQL's hash join (enable_gpuhashjoin off,
merge and nested loop joins off) for its figures. Times become cost units
through PostgreSQL's own hash join: its measured time per inner row against
what the planner charges it per inner row (cpu_operator_cost per key and
cpu_tuple_cost), so that the GPU join's constants are on the scale that the
native join they compete with is costed on. Prints both and the settings
that match the measurement:

    bench/calibrate.py [--rows N] [--runs 5] [--db NAME] [--keep] [--parallel W] [--json FILE]

It prints the settings as SET commands and as postgresql.conf lines, and
with --json writes them with every measure to FILE (bench/device.sh
calibrate runs it on the GPU machine).

Creates and drops tables calib_*. The defaults in the README come from a
run on the H100 recorded in bench/history/journal-2026.md.
"""
import argparse
import json
import statistics
import subprocess
import sys

SERIAL = ["SET max_parallel_workers_per_gather = 0", "SET jit = off",
          "SET work_mem = '1GB'", "SET enable_mergejoin = off", "SET enable_nestloop = off"]
# A build cost far above the default keeps the smaller side the built one,
# as the measures below assume: at the defaults the planner may build the
# larger side of a join whose smaller side is a filtered scan.  Costs choose
# the plan only; what is timed is the same work.
# The tuple path's constants are measured with the page path off; the page
# path's (page_path below) with it on.
GPU = SERIAL + ["SET enable_gpuhashjoin = on", "SET enable_hashjoin = off",
                "SET gpuhash.min_gain = 0", "SET gpuhash.build_row_cost = 0.1",
                "SET gpuhash.page_scan = off"]
PAGES = [s for s in GPU if "page_scan" not in s] + ["SET gpuhash.page_scan = on"]
NATIVE = SERIAL + ["SET enable_gpuhashjoin = off", "SET enable_hashjoin = on"]


class Db:
    def __init__(self, name):
        self.name = name

    def run(self, sql, settings=()):
        script = "".join(s + ";\n" for s in settings) + sql + "\n"
        r = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", self.name],
                           input=script, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("calibrate.py: psql failed on %s\n%s" % (sql[:120], r.stderr))
        return r.stdout

    def plan(self, query, settings):
        out = self.run("EXPLAIN (FORMAT JSON) " + query, settings)
        return json.loads(out)[0]["Plan"]

    def ms(self, query, settings, runs):
        """Median execution time: one warm-up, then runs (EXPLAIN ANALYZE, TIMING OFF)."""
        times = []
        for i in range(runs + 1):
            out = self.run("EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) " + query, settings)
            if i > 0:
                times.append(json.loads(out)[0]["Execution Time"])
        return statistics.median(times)


def has_node(plan, pred):
    return pred(plan) or any(has_node(c, pred) for c in plan.get("Plans", []))


def has_gpu_join(plan):
    return has_node(plan, lambda n: n.get("Custom Plan Provider") == "GpuHashJoin")


def has_hash_join(plan):
    return has_node(plan, lambda n: n.get("Node Type") == "Hash Join")


def builds(plan, rel):
    """Is rel the side built: the GPU join's inner scan, or under the Hash?"""
    def gpu(n):
        return (n.get("Custom Plan Provider") == "GpuHashJoin" and
                (n.get("Inner Scan", "") + n.get("Parallel Inner Scan", "")).startswith(rel))

    def native(n):
        return n.get("Node Type") == "Hash" and has_node(n, lambda m: m.get("Relation Name") == rel)
    return has_node(plan, gpu) or has_node(plan, native)


def slope(xs, ys):
    """Least-squares slope of ys over xs."""
    mx, my = statistics.mean(xs), statistics.mean(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den


def build_slopes(db, settings, n, runs, plan_ok, scan_ms_of, what, inner="calib_inner i"):
    """ms per inner row built, and per row kept on top of that, over inner
    sizes: calib_inner's rows with k <= n/8, n/4, n/2 (inner: calib_inner
    alone, or a join of it) against the whole outer side, whose keys all miss
    (km < 0), then the same with two inner columns read above the join
    (kept, never emitted); each less its inner side's own time.  Also the
    last plan."""
    xs, ys, yk, pl = [], [], [], None
    for s in (n // 8, n // 4, n // 2):
        q = ("SELECT count(*) FROM calib_outer o JOIN %s ON o.km = i.k "
             "WHERE i.k <= %d" % (inner, s))
        qk = q.replace("count(*)", "count(i.p), count(i.t)")
        for qq in (q, qk):
            pl = db.plan(qq, settings)
            if not plan_ok(pl):
                sys.exit(f"calibrate.py: no {what} in: {qq}")
        scan = scan_ms_of(s)
        xs.append(s)
        ys.append(db.ms(q, settings, runs) - scan)
        yk.append(db.ms(qk, settings, runs) - scan)
    inner = slope(xs, ys)
    return inner, slope(xs, yk) - inner, pl


def builds_join(plan):
    """Is the side built a join: the GPU join's inner child, or under the Hash?"""
    def is_join(n):
        return n.get("Custom Plan Provider") == "GpuHashJoin" or n.get("Node Type", "").endswith("Join")

    # a custom scan's children are "child": with the outer side absorbed (or
    # a scan), the join among them is the inner side
    def gpu(n):
        return (n.get("Custom Plan Provider") == "GpuHashJoin" and
                any(c.get("Parent Relationship") in ("Inner", "child") and is_join(c)
                    for c in n.get("Plans", [])))

    def native(n):
        return n.get("Node Type") == "Hash" and any(is_join(c) for c in n.get("Plans", []))
    return has_node(plan, gpu) or has_node(plan, native)


def is_parallel_build(plan):
    """A parallel-aware join whose participants all read the inner side."""
    def gpu(n):
        return (n.get("Custom Plan Provider") == "GpuHashJoin" and n.get("Parallel Aware")
                and n.get("Parallel Inner Scan", "").startswith("calib_inner"))

    def native(n):
        return n.get("Node Type") == "Hash" and n.get("Parallel Aware") and \
            has_node(n, lambda m: m.get("Relation Name") == "calib_inner" and m.get("Parallel Aware"))
    return has_node(plan, gpu) or has_node(plan, native)


def workers_planned(plan):
    if plan.get("Workers Planned"):
        return plan["Workers Planned"]
    return next((w for w in map(workers_planned, plan.get("Plans", [])) if w), None)


def parallel_build(db, a, n, unit):
    """--parallel W: the build of a partial inner side, every key missing."""
    par = [s for s in SERIAL if "max_parallel_workers_per_gather" not in s] + [
        f"SET max_parallel_workers_per_gather = {a.parallel}", "SET parallel_setup_cost = 0",
        "SET parallel_tuple_cost = 0", "SET min_parallel_table_scan_size = 0",
        "SET parallel_leader_participation = on"]
    gpu = par + [s for s in GPU if s not in SERIAL]
    native = par + [s for s in NATIVE if s not in SERIAL]
    scan_settings = par + ["SET enable_gpuhashjoin = off"]
    rows = {}
    for mode, settings in (("gpuhash", gpu), ("native", native)):
        inner, kept, pl = build_slopes(
            db, settings, n, a.runs, is_parallel_build,
            lambda s: db.ms(f"SELECT count(*) FROM calib_inner WHERE k <= {s}", scan_settings,
                            a.runs), f"parallel {mode} build of calib_inner")
        rows[mode] = (inner, kept, (workers_planned(pl) or a.parallel) + 1)
    print()
    print(f"parallel build, {a.parallel} workers asked (participants as planned, the leader "
          "included); participant time = wall time x participants")
    print("| measure | gpuhash wall ms | gpuhash participant units | native wall ms | "
          "native participant units |")
    print("|---|---:|---:|---:|---:|")
    for i, label in ((0, "per inner row built"), (1, "per inner row kept (2 columns)")):
        g, nv = rows["gpuhash"], rows["native"]
        print(f"| {label} | {g[i]:.6f} | {g[i] * g[2] / unit:.5f} | {nv[i]:.6f} | "
              f"{nv[i] * nv[2] / unit:.5f} |")
    print(f"participants: gpuhash {rows['gpuhash'][2]}, native {rows['native'][2]}")


def page_requests(plan):
    """Page requests of the plan's GPU joins (EXPLAIN ANALYZE, VERBOSE)."""
    n = plan.get("Page Requests", 0) if plan.get("Custom Plan Provider") == "GpuHashJoin" else 0
    return n + sum(page_requests(c) for c in plan.get("Plans", []))


def rows_per_page(db, table):
    return float(db.run(f"SELECT reltuples / relpages FROM pg_class WHERE oid = '{table}'::regclass"))


def page_tables(n):
    """The page path's outer tables by shape, (name, rows) a size: narrow,
    about 200 rows a page (calib_outer and its half), and wide, a 384-byte
    column after the key (about 19 rows a page; the walker does not deform
    it)."""
    return {"narrow": [("calib_narrow_h", n // 2), ("calib_outer", n)],
            "wide": [("calib_wide_h", n // 8), ("calib_wide", n // 4)]}


def page_path(db, n, runs):
    """The page path's constants (scan/page_scan.c), in ms: per outer page
    the CPU hands over and per tuple the walker walks, from every-key-missing
    joins over a narrow table (many rows a page) and a wide one (few), each
    at two sizes: the slope of the time per row is c_row + c_page / (rows a
    page) for each shape, two equations for the two.  Per record handed back
    and emitted: the whole narrow outer side against half of calib_inner,
    every key that half holds matching against every key missing."""
    slopes = {}
    tables = page_tables(n)
    for shape in ("narrow", "wide"):
        xs, ys = [], []
        for t, rows in tables[shape]:
            q = f"SELECT count(*) FROM {t} o JOIN calib_small i ON o.km = i.k"
            if not has_gpu_join(db.plan(q, PAGES)):
                sys.exit(f"calibrate.py: no GPU join in: {q}")
            xs.append(rows)
            ys.append(db.ms(q, PAGES, runs))
            pl = json.loads(db.run("EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) " + q, PAGES))[0]["Plan"]
            if page_requests(pl) <= 0:
                sys.exit(f"calibrate.py: the page path did not run in: {q}")
        slopes[shape] = ((ys[1] - ys[0]) / (xs[1] - xs[0]), rows_per_page(db, t))
    (sn, rn), (sw, rw) = slopes["narrow"], slopes["wide"]
    page = (sw - sn) / (1.0 / rw - 1.0 / rn)
    row = sn - page / rn
    # half of calib_inner built, so that it, the smaller side, is the one
    # built and calib_outer's pages are walked: n / 2 matches
    hit_q = f"SELECT count(*) FROM calib_outer o JOIN calib_inner i ON o.k = i.k WHERE i.k <= {n // 2}"
    miss_q = hit_q.replace("o.k = i.k", "o.km = i.k")
    for q in (hit_q, miss_q):
        if not (has_gpu_join(db.plan(q, PAGES)) and builds(db.plan(q, PAGES), "calib_inner")):
            sys.exit(f"calibrate.py: no GPU join building calib_inner in: {q}")
        pl = json.loads(db.run("EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) " + q, PAGES))[0]["Plan"]
        if page_requests(pl) <= 0:
            sys.exit(f"calibrate.py: the page path did not run in: {q}")
    match = (db.ms(hit_q, PAGES, runs) - db.ms(miss_q, PAGES, runs)) / (n // 2)
    return {"page": page, "page_row": row, "page_match": match,
            "rows_per_page_narrow": rn, "rows_per_page_wide": rw}


TABLES = ("calib_tiny_a, calib_tiny_b, calib_inner, calib_outer, calib_small, calib_dim, "
          "calib_narrow_h, calib_wide, calib_wide_h")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2_000_000,
                    help="largest table (default 2,000,000 rows)")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per query (default 5)")
    ap.add_argument("--db", default="postgres")
    ap.add_argument("--keep", action="store_true", help="keep the calib_* tables")
    ap.add_argument("--parallel", type=int, default=0, metavar="W",
                    help="also measure a parallel build with W workers (default: not)")
    ap.add_argument("--json", metavar="FILE",
                    help="also write the measures and the settings to FILE (JSON)")
    a = ap.parse_args(argv)
    db = Db(a.db)
    n = a.rows
    sizes = [n // 4, n // 2, n]

    print("calibrate.py: loading (largest table %d rows)" % n, flush=True)
    db.run("CREATE EXTENSION IF NOT EXISTS gpuhash")
    db.run(f"""
        DROP TABLE IF EXISTS {TABLES};
        CREATE TABLE calib_tiny_a AS SELECT g AS k, g % 10 AS v FROM generate_series(1, 1000) g;
        CREATE TABLE calib_tiny_b AS SELECT g AS k, g % 7 AS v FROM generate_series(1, 1000) g;
        -- inner keys 1..n; the outer keys of a "miss" run are negative
        CREATE TABLE calib_inner AS SELECT g::int4 AS k, (g % 977)::int4 AS p,
            md5(g::text) AS t FROM generate_series(1, {n}) g;
        CREATE TABLE calib_outer AS SELECT (g * 7919::int8 % {n} + 1)::int4 AS k,
            -(g * 7919::int8 % {n} + 1)::int4 AS km, (g % 1000)::int4 AS v
          FROM generate_series(1, {n}) g;
        CREATE TABLE calib_small AS SELECT g::int4 AS k FROM generate_series(1, 1000) g;
        -- one row per calib_inner.p: joined below a join, it makes the
        -- inner side a join's output of calib_inner's rows
        CREATE TABLE calib_dim AS SELECT g::int4 AS p, g AS w FROM generate_series(0, 976) g;
        -- the page path's outer tables (page_tables): every page all-visible
        CREATE TABLE calib_narrow_h AS SELECT * FROM calib_outer WHERE k <= {n // 2};
        CREATE TABLE calib_wide AS SELECT k, km, v, repeat(md5(k::text), 12) AS pad
          FROM calib_outer WHERE k <= {n // 4};
        CREATE TABLE calib_wide_h AS SELECT * FROM calib_wide WHERE k <= {n // 8};
        VACUUM ANALYZE {TABLES};
    """)

    # ms per cost unit: the server's Seq Scan, timed against its plan
    scan_q = "SELECT count(*) FROM calib_outer"
    scan_ms = db.ms(scan_q, SERIAL, a.runs)
    scan_cost = db.plan(scan_q, SERIAL)["Total Cost"]
    scan_unit = scan_ms / scan_cost

    def scan_ms_of(table, rows):
        return db.ms(f"SELECT count(*) FROM {table} WHERE k <= {rows}", SERIAL, a.runs)

    results = {}
    for mode, settings, check in (("gpuhash", GPU, has_gpu_join), ("native", NATIVE, has_hash_join)):
        r = {}
        tiny = "SELECT count(*) FROM calib_tiny_a a JOIN calib_tiny_b b ON a.k = b.k"
        if not check(db.plan(tiny, settings)):
            sys.exit(f"calibrate.py: the {mode} plan of the tiny join has no {mode} join")
        r["fixed"] = db.ms(tiny, settings, a.runs) - 2 * db.ms("SELECT count(*) FROM calib_tiny_a",
                                                               SERIAL, a.runs)

        # per inner row built and kept (build_slopes): the inner side stays
        # the smaller one, so it is the one built
        r["inner_row"], r["kept_row"], _ = build_slopes(
            db, settings, n, a.runs,
            lambda pl: check(pl) and builds(pl, "calib_inner"),
            lambda s: scan_ms_of("calib_inner", s), f"{mode} join building calib_inner")

        # per inner row of a join's output kept: the same, with calib_inner
        # joined to calib_dim below the join (join_collapse_limit 1 keeps it
        # there), less that lower join's own time; what a kept row costs
        # beyond a table's is kept_join_row_cost
        lower = "(calib_inner i JOIN calib_dim d ON i.p = d.p)"
        jset = settings + ["SET join_collapse_limit = 1"]
        _, r["kept_join_row"], _ = build_slopes(
            db, jset, n, a.runs,
            lambda pl: check(pl) and builds_join(pl),
            lambda s: db.ms(f"SELECT count(*) FROM {lower} WHERE i.k <= {s}", jset, a.runs),
            f"{mode} join building a join's output", inner=lower)

        # per outer row, every key missing: outer rows with k <= size, joined
        # on km (< 0) with the small table
        xs, ys, miss = [], [], {}
        for s in sizes:
            q = ("SELECT count(*) FROM calib_outer o JOIN calib_small i ON o.km = i.k "
                 "WHERE o.k <= %d" % s)
            if not check(db.plan(q, settings)):
                sys.exit(f"calibrate.py: no {mode} join in: {q}")
            xs.append(s)
            miss[s] = db.ms(q, settings, a.runs)
            ys.append(miss[s] - scan_ms_of("calib_outer", s))
        r["outer_row"] = slope(xs, ys)

        # per match: the whole outer side against the whole inner side, every
        # key matching, against every key missing (same build, same probes)
        hit = db.ms("SELECT count(*) FROM calib_outer o JOIN calib_inner i ON o.k = i.k",
                    settings, a.runs)
        nohit = db.ms("SELECT count(*) FROM calib_outer o JOIN calib_inner i ON o.km = i.k",
                      settings, a.runs)
        r["match"] = (hit - nohit) / n
        results[mode] = r

    # Cost units from PostgreSQL's own hash join: it charges each inner row
    # cpu_operator_cost per key to hash and cpu_tuple_cost to insert
    # (final_cost_hashjoin), so its measured time per inner row says what a
    # unit is worth in a join.  (A Seq Scan's time against its cost is shown
    # too: page costs assume reads from disk, and the two scales differ.)
    cpu_operator_cost = float(db.run("SHOW cpu_operator_cost").strip())
    cpu_tuple_cost = float(db.run("SHOW cpu_tuple_cost").strip())
    unit = results["native"]["inner_row"] / (cpu_operator_cost + cpu_tuple_cost)
    print()
    print("one cost unit: %.6f ms by the native hash join's build, %.6f ms by the Seq Scan"
          % (unit, scan_unit))
    print()
    print("| measure | gpuhash ms | native ms | gpuhash units | native units |")
    print("|---|---:|---:|---:|---:|")
    for key, label in (("fixed", "fixed cost of a join"), ("inner_row", "per inner row built"),
                       ("kept_row", "per inner row kept (2 columns)"),
                       ("kept_join_row", "per inner row of a join kept (2 columns)"),
                       ("outer_row", "per outer row probed (no match)"),
                       ("match", "per match emitted")):
        g, nv = results["gpuhash"][key], results["native"][key]
        print(f"| {label} | {g:.6f} | {nv:.6f} | {g / unit:.5f} | {nv / unit:.5f} |")

    # gpuhash's model (src/planner/costs.c): per inner row cpu_operator_cost per key
    # + build_row_cost; per outer row cpu_operator_cost per key (less half a
    # cpu_tuple_cost for an absorbed scan), with no setting of its own: the
    # probe's residue is printed, not set; per
    # match match_row_cost, where a hash join is charged cpu_tuple_cost;
    # per inner row whose columns are kept kept_row_cost, where a hash
    # join's insert is charged cpu_tuple_cost
    g = results["gpuhash"]
    setup = max(g["fixed"] / unit, 0.0)
    build = max(g["inner_row"] / unit - cpu_operator_cost, 0.0)
    probe = max(g["outer_row"] / unit - cpu_operator_cost + 0.5 * cpu_tuple_cost, 0.0)
    match = max(g["match"] / unit, 0.0)
    kept = max(g["kept_row"] / unit, 0.0)
    kept_join = max((g["kept_join_row"] - g["kept_row"]) / unit, 0.0)
    print()
    print("-- settings matching this server; a native match measured %.5f units, "
          "charged cpu_tuple_cost = %g" % (results["native"]["match"] / unit, cpu_tuple_cost))
    print(f"SET gpuhash.setup_cost = {setup:.1f};")
    print(f"SET gpuhash.build_row_cost = {build:.5f};")
    print(f"-- per outer row probed beyond cpu_operator_cost per key: {probe:.5f} (no setting)")
    print(f"SET gpuhash.match_row_cost = {match:.5f};")
    print(f"SET gpuhash.kept_row_cost = {kept:.5f};")
    print(f"SET gpuhash.kept_join_row_cost = {kept_join:.5f};")

    # The page path (page_price.c): per page handed over, per tuple walked,
    # per record handed back and emitted, each the whole of its time (the
    # model charges them in place of the Seq Scan's CPU per tuple, its
    # quals, the keys and match_row_cost; the pages' seq_page_cost stays,
    # as every scan of the table pays it)
    pg = page_path(db, n, a.runs)
    page_cpu = max(pg["page"] / unit, 0.0)
    page_row = max(pg["page_row"] / unit, 0.0)
    page_match = max(pg["page_match"] / unit, 0.0)
    print()
    print("page path: %.6f ms a page, %.7f ms a tuple walked, %.6f ms a record handed back "
          "(rows a page %.0f narrow, %.0f wide)"
          % (pg["page"], pg["page_row"], pg["page_match"], pg["rows_per_page_narrow"],
             pg["rows_per_page_wide"]))
    print(f"SET gpuhash.page_cpu_cost = {page_cpu:.5f};")
    print(f"SET gpuhash.page_row_cost = {page_row:.6f};")
    print(f"SET gpuhash.page_match_cost = {page_match:.5f};")

    settings = {"gpuhash.setup_cost": round(setup, 1), "gpuhash.build_row_cost": round(build, 5),
                "gpuhash.match_row_cost": round(match, 5), "gpuhash.kept_row_cost": round(kept, 5),
                "gpuhash.kept_join_row_cost": round(kept_join, 5),
                "gpuhash.page_cpu_cost": round(page_cpu, 5),
                "gpuhash.page_row_cost": round(page_row, 6),
                "gpuhash.page_match_cost": round(page_match, 5)}
    print()
    print("-- the same as postgresql.conf lines")
    for k, v in settings.items():
        print(f"{k} = {v:g}")
    if a.json:
        device = db.run("SHOW gpuhash.device").strip()
        with open(a.json, "w") as f:
            json.dump({"rows": n, "runs": a.runs, "device": device,
                       "cpu_operator_cost": cpu_operator_cost, "cpu_tuple_cost": cpu_tuple_cost,
                       "unit_ms": unit, "seqscan_unit_ms": scan_unit,
                       "ms": {"gpuhash": results["gpuhash"], "native": results["native"],
                              "page": pg},
                       "probe_residue_units": probe, "settings": settings}, f, indent=1)
        print(f"calibrate.py: wrote {a.json}")
    if a.parallel > 0:
        parallel_build(db, a, n, unit)
    if not a.keep:
        db.run(f"DROP TABLE {TABLES}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
