#!/usr/bin/env python3
"""Join benchmark through PostgreSQL: native hash join vs GpuHashJoin.

On a scratch cluster (gpuhash preloaded), a 10^7-row outer table joins a
10^6-row inner table, on unique inner keys and on keys repeated 8 times.
For each, `SELECT count(*)` and a projecting join (both sides' columns
carried through the join into an aggregate) run with enable_gpuhashjoin off
(PostgreSQL's plan: a hash join, given work_mem enough for one batch) and
on; serial (max_parallel_workers_per_gather = 0), one warm-up, median of 5.

    bench/pg_join_bench.py [--outer N] [--inner N] [--runs 5] [--device gpu|host]
                           [--report FILE.md]

Needs gpuhash installed (make install). Prints a table and the EXPLAIN
ANALYZE of the GPU plans (where the time goes).
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def psql(sql, env, db="postgres"):
    r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-At", "-d", db], input=sql,
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("psql failed: %s\n%s" % (sql[:200], r.stderr))
    return r.stdout


def timed(query, settings, runs, env, db):
    """Median wall time (ms) of `runs` executions after one warm-up, in one session."""
    script = "\n".join(settings) + "\n\\timing on\n" + "\n".join([query + ";"] * (runs + 1)) + "\n"
    r = subprocess.run(["psql", "-X", "-v", "ON_ERROR_STOP=1", "-d", db], input=script,
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("query failed: %s\n%s" % (query, r.stderr))
    times = [float(x) for x in re.findall(r"^Time: ([0-9.]+) ms", r.stdout, re.M)]
    results = re.findall(r"^\s*(-?[0-9]+)\s*$", r.stdout, re.M)
    return statistics.median(times[1:]), results[-1] if results else None


def pgbench_tps(script, settings, clients, seconds, env):
    """Transactions per second of `clients` sessions running script."""
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write("\n".join(settings) + "\n" + script + ";\n")
        path = f.name
    os.chmod(path, 0o644)
    r = subprocess.run(["pgbench", "-n", "-c", str(clients), "-j", str(clients), "-T", str(seconds),
                        "-f", path, "postgres"], env=env, capture_output=True, text=True)
    os.unlink(path)
    if r.returncode != 0:
        sys.exit("pgbench failed:\n" + r.stderr)
    m = re.search(r"tps = ([0-9.]+)", r.stdout)
    return float(m.group(1))


def overhead_and_throughput(a, env):
    """Fixed cost of a tiny GPU join (warm service), and 8 sessions at once."""
    psql("""
        CREATE TABLE tiny_a AS SELECT g AS k, g % 10 AS v FROM generate_series(1, 1000) g;
        CREATE TABLE tiny_b AS SELECT g AS k, g % 7 AS v FROM generate_series(1, 1000) g;
        CREATE TABLE mid_o AS SELECT (g * 7919::int8 % 100000 + 1)::int4 AS k, (g % 100)::int4 AS v
          FROM generate_series(1, 1000000) g;
        CREATE TABLE mid_i AS SELECT g::int4 AS k, (g % 13)::int4 AS p FROM generate_series(1, 100000) g;
        VACUUM ANALYZE tiny_a; VACUUM ANALYZE tiny_b; VACUUM ANALYZE mid_o; VACUUM ANALYZE mid_i;
        """, env)
    off = ["SET enable_gpuhashjoin = off;"]
    on = ["SET enable_gpuhashjoin = on;", "SET enable_hashjoin = off;", "SET enable_mergejoin = off;",
          "SET gpuhash.setup_cost = 0;"]
    tiny = "SELECT count(*) FROM tiny_a a JOIN tiny_b b ON a.k = b.k"
    t_off, r_off = timed(tiny, off, 21, env, "postgres")
    t_on, r_on = timed(tiny, on, 21, env, "postgres")
    mid = "SELECT sum(o.v + i.p) FROM mid_o o JOIN mid_i i ON o.k = i.k"
    tps_off = pgbench_tps(mid, off, 8, 15, env)
    tps_on = pgbench_tps(mid, on, 8, 15, env)
    return ["| fixed cost of a 1000 x 1000 row join (median of 21) | native ms | gpuhash ms | overhead ms | same |",
            "|---|---|---|---|---|",
            "| %s | %.2f | %.2f | %.2f | %s |" % ("count(*)", t_off, t_on, t_on - t_off,
                                                "yes" if r_off == r_on else "NO"),
            "",
            "| 8 concurrent sessions, 10^6 x 10^5 projecting join, 15 s | native tps | gpuhash tps | ratio |",
            "|---|---|---|---|",
            "| pgbench -c 8 | %.1f | %.1f | %.2f |" % (tps_off, tps_on, tps_on / tps_off)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--outer", type=int, default=10_000_000)
    ap.add_argument("--inner", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--device", choices=["gpu", "host"], default="gpu")
    ap.add_argument("--port", type=int, default=55450)
    ap.add_argument("--report", help="also write the table to FILE.md")
    a = ap.parse_args()

    pgdir = tempfile.mkdtemp(prefix="gpuhash-bench.")
    os.chmod(pgdir, 0o755)
    env = dict(os.environ, PGHOST=pgdir, PGPORT=str(a.port), PGUSER="postgres")
    scratch = os.path.join(ROOT, "scripts", "pg-scratch.sh")
    subprocess.run([scratch, "start", pgdir, str(a.port), "-c", "shared_preload_libraries=gpuhash",
                    "-c", "shared_buffers=4GB", "-c", "work_mem=2GB", "-c", "jit=off",
                    "-c", "max_parallel_workers_per_gather=0", "-c", "fsync=off",
                    "-c", "gpuhash.device=" + a.device], check=True)
    try:
        n, m, d = a.outer, a.inner, a.inner // 8
        print("loading: outer %d rows, inner %d rows (unique) and %d rows (%d keys x 8)" % (n, m, m, d),
              flush=True)
        psql(f"""
            CREATE TABLE outer_t AS
              SELECT (g * 7919::int8 % {m} + 1)::int4 AS ku, (g * 7919::int8 % {d} + 1)::int4 AS kd,
                     (g % 1000)::int4 AS v
              FROM generate_series(1, {n}) g;
            CREATE TABLE inner_u AS SELECT g::int4 AS k, (g % 977)::int4 AS p FROM generate_series(1, {m}) g;
            CREATE TABLE inner_d AS SELECT (g % {d} + 1)::int4 AS k, (g % 977)::int4 AS p
              FROM generate_series(1, {m}) g;
            VACUUM ANALYZE outer_t; VACUUM ANALYZE inner_u; VACUUM ANALYZE inner_d;
            """, env)
        queries = [
            ("count, unique keys", "SELECT count(*) FROM outer_t o JOIN inner_u i ON o.ku = i.k"),
            ("projecting, unique keys", "SELECT sum(o.v + i.p) FROM outer_t o JOIN inner_u i ON o.ku = i.k"),
            ("count, 8x duplicates", "SELECT count(*) FROM outer_t o JOIN inner_d i ON o.kd = i.k"),
            ("projecting, 8x duplicates", "SELECT sum(o.v + i.p) FROM outer_t o JOIN inner_d i ON o.kd = i.k"),
        ]
        off = ["SET enable_gpuhashjoin = off;"]
        on = ["SET enable_gpuhashjoin = on;", "SET enable_hashjoin = off;", "SET enable_mergejoin = off;"]
        rows = []
        for name, q in queries:
            t_off, r_off = timed(q, off, a.runs, env, "postgres")
            t_on, r_on = timed(q, on, a.runs, env, "postgres")
            rows.append((name, t_off, t_on, t_off / t_on, r_off == r_on))
            print("  %-28s native %9.1f ms   gpuhash %9.1f ms   ratio %5.2f   same result: %s"
                  % (name, t_off, t_on, t_off / t_on, r_off == r_on), flush=True)
        table = ["| query | native hash join ms | gpuhash (%s) ms | native / gpuhash | same result |" % a.device,
                 "|---|---|---|---|---|"]
        for name, t_off, t_on, ratio, same in rows:
            table.append("| %s | %.1f | %.1f | %.2f | %s |" % (name, t_off, t_on, ratio, "yes" if same else "NO"))
        print("\n" + "\n".join(table))
        print("\nnative plan, %s:" % queries[0][0])
        print(psql("SET enable_gpuhashjoin = off; EXPLAIN (COSTS OFF) " + queries[0][1] + ";", env))
        for name, q in queries[1:2] + queries[3:4]:
            print("\nEXPLAIN ANALYZE (gpuhash), %s:" % name)
            print(psql("SET enable_hashjoin = off; SET enable_mergejoin = off; "
                       "EXPLAIN (ANALYZE, COSTS OFF) " + q + ";", env))
        extra = overhead_and_throughput(a, env)
        table += [""] + extra
        print("\n".join(extra))
        if a.report:
            with open(a.report, "w") as f:
                f.write("\n".join(table) + "\n")
        if not all(r[4] for r in rows):
            sys.exit("results differ")
    finally:
        subprocess.run([scratch, "stop", pgdir])
        subprocess.run(["rm", "-rf", pgdir])


if __name__ == "__main__":
    main()
