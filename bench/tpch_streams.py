#!/usr/bin/env python3
"""Concurrent TPC-H streams: throughput of N sessions running queries at once.

Each stream is one psql session that runs the chosen queries in its own
order (rotated by the stream's number, as TPC-H's throughput test does),
with the given settings.  Reported: the wall time from the first start to
the last end, and queries per hour.  A stream whose query fails (or returns
other rows than the first stream's run of it, or with --check-native
than PostgreSQL's own join) fails the run.

  bench/tpch_streams.py --db tpch --streams 8 --queries 3,5,10,12,14 \
      --set max_parallel_workers_per_gather=2 --label one-gpu
"""
import argparse
import hashlib
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
QUERIES = os.path.join(HERE, "..", "tpch", "queries")


def stream_sql(order, settings):
    parts = ["\\set ON_ERROR_STOP 1"] + ["SET %s = %s;" % (k, v) for k, v in settings]
    for q in order:
        with open(os.path.join(QUERIES, "q%02d.sql" % q)) as f:
            body = f.read().strip().rstrip(";")
        parts.append("\\echo ==q%02d" % q)
        parts.append(body + ";")
    return "\n".join(parts) + "\n"


def run_stream(i, args, order, settings, out):
    t0 = time.time()
    r = subprocess.run([args.psql, "-X", "-At", "-d", args.db, "-f", "-"],
                       input=stream_sql(order, settings), capture_output=True, text=True)
    out[i] = (r.returncode, time.time() - t0, r.stdout, r.stderr)


def digests(stdout):
    """Per query: a digest of its rows, as a multiset."""
    d, cur, rows = {}, None, []
    for line in stdout.splitlines() + ["==end"]:
        if line.startswith("=="):
            if cur:
                d[cur] = hashlib.sha1("\n".join(sorted(rows)).encode()).hexdigest()
            cur, rows = line[2:], []
        else:
            rows.append(line)
    return d


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--db", default="tpch")
    p.add_argument("--streams", type=int, default=8)
    p.add_argument("--queries", default="3,5,10,12,14")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    p.add_argument("--runs", type=int, default=1, help="timed runs (median reported)")
    p.add_argument("--label", default="")
    p.add_argument("--psql", default="psql")
    p.add_argument("--check-native", action="store_true",
                   help="first run the queries once with enable_gpuhashjoin off: every stream's rows must equal them")
    args = p.parse_args()
    qs = [int(q) for q in args.queries.split(",")]
    settings = [tuple(s.split("=", 1)) for s in args.set]
    walls, ref = [], None
    if args.check_native:
        out = [None]
        run_stream(0, args, qs, settings + [("enable_gpuhashjoin", "off")], out)
        if out[0][0] != 0:
            sys.exit("native stream failed: %s" % out[0][3].strip()[-500:])
        ref = digests(out[0][2])
        print("native reference: %d queries in %.2f s" % (len(qs), out[0][1]), flush=True)
    for run in range(args.runs):
        out = [None] * args.streams
        th = []
        t0 = time.time()
        for i in range(args.streams):
            order = qs[i % len(qs):] + qs[:i % len(qs)]
            t = threading.Thread(target=run_stream, args=(i, args, order, settings, out))
            t.start()
            th.append(t)
        for t in th:
            t.join()
        wall = time.time() - t0
        for i, (rc, secs, so, se) in enumerate(out):
            if rc != 0:
                sys.exit("stream %d failed: %s" % (i, se.strip()[-500:]))
            d = digests(so)
            ref = ref or d
            bad = [q for q in d if d[q] != ref.get(q)]
            if bad:
                sys.exit("stream %d: rows differ from the %s in %s" % (
                    i, "native run's" if args.check_native else "first stream's", ", ".join(bad)))
        walls.append(wall)
        print("%s run %d: %d streams x %d queries in %.2f s (streams %.2f-%.2f s)" % (
            args.label, run + 1, args.streams, len(qs), wall,
            min(o[1] for o in out), max(o[1] for o in out)), flush=True)
    walls.sort()
    med = walls[len(walls) // 2]
    n = args.streams * len(qs)
    print("| %s | %d | %s | %.2f | %.0f |" % (args.label, args.streams, args.queries, med, n * 3600 / med))


if __name__ == "__main__":
    main()
