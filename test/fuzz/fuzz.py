#!/usr/bin/env python3
"""gpuhash differential fuzzer: random join queries, GPU join off vs forced on.

For each seed it creates a handful of random tables (every key type, NULLs,
skew, extreme values, empty sides) in a schema of its own, generates random
queries over them (every join type, exact/fingerprint/cross-type/multi-column
keys, extra join clauses, WHERE over outer joins, subqueries, correlated ones,
LATERAL, CTEs, prepared generic plans, cursors and rescans) and runs each one
with `enable_gpuhashjoin = off` and with the GPU join forced on under a random
combination of stress settings.  The results are compared as multisets of
rows; a statement that fails must fail with the same SQLSTATE on both sides.
EXPLAIN of every forced-on query counts how often a GpuHashJoin was really
used.  Failing queries can be minimised to a self-contained repro script.

Everything is reproducible from the seed: query I of seed S is the same on
every run (`--seed S --only I`).  The server is the one psql reaches
(PGHOST, PGPORT, PGUSER, PGDATABASE or --dbname); gpuhash must be preloaded
or loadable with LOAD.  Python 3 standard library only.

  test/fuzz/fuzz.py --seed 7 --queries 200
  test/fuzz/fuzz.py --seeds-from 1 --seeds-to 50 --queries 200 --jobs 2
  test/fuzz/fuzz.py --seeds-from 1 --seeds-to 200 --queries 50 --jobs 2 --seed-jobs 8
  test/fuzz/fuzz.py --seed 7 --only 113 --minimize

The last line printed is "N passed, M failed"; the exit status is non-zero
when a query failed (or fewer queries than --min-gpu-fraction used the GPU join).
"""

import argparse
import collections
import concurrent.futures
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from minimize import Minimizer, category   # noqa: E402
from querygen import gen_unit              # noqa: E402
from runner import Runner, unique_schema   # noqa: E402
from schema import gen_schema, ICU_COLLATION   # noqa: E402


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--seed', type=int, default=1, help='seed of the tables and queries (default 1)')
    ap.add_argument('--seeds-from', type=int, help='first seed of a range (with --seeds-to)')
    ap.add_argument('--seeds-to', type=int, help='last seed of a range (inclusive)')
    ap.add_argument('--queries', type=int, default=100, help='queries per seed (default 100)')
    ap.add_argument('--only', help='run only these query numbers of the seed (comma list)')
    ap.add_argument('--minimize', action='store_true', help='minimise failing queries to repro scripts')
    ap.add_argument('--minimize-max', type=int, default=5,
                    help='minimise at most this many failing queries (default 5)')
    ap.add_argument('--minimize-budget', type=int, default=1500,
                    help='trials per minimisation (default 1500)')
    ap.add_argument('--minimize-time', type=int, default=600,
                    help='seconds per minimisation (default 600)')
    ap.add_argument('--out', help='directory for repro scripts (default: only printed)')
    ap.add_argument('--no-correlated-keys', '--no-correlated', dest='correlated_keys',
                    action='store_false',
                    help='no join keys that depend on an outer query level (a known bug class)')
    ap.add_argument('--jobs', type=int, default=1, help='psql sessions at once (default 1)')
    ap.add_argument('--batch', type=int, default=25, help='queries per psql process (default 25)')
    ap.add_argument('--seed-jobs', type=int, default=1,
                    help='seeds run at once, each with --jobs sessions (default 1)')
    ap.add_argument('--timeout', type=int, default=60, help='statement_timeout in seconds (default 60)')
    ap.add_argument('--dbname', help='database (default: psql\'s, PGDATABASE)')
    ap.add_argument('--psql', default='psql', help='psql binary (default: psql from PATH)')
    ap.add_argument('--min-gpu-fraction', type=float, default=0.5,
                    help='fail when fewer forced-on plans than this have a GpuHashJoin (default 0.5)')
    ap.add_argument('--keep', action='store_true', help='keep the fuzz schemas')
    ap.add_argument('--leak-check', choices=['auto', 'on', 'off'], default='auto',
                    help='after each query, check that the GPU service holds no table or staging '
                         'memory (needs gpuhash_info(), CREATE EXTENSION gpuhash, and no other '
                         'session running GPU joins); auto: on with --jobs 1 where gpuhash_info() '
                         'exists')
    ap.add_argument('--print-sql', action='store_true', help='print every query (no server needed)')
    ap.add_argument('-v', '--verbose', action='store_true')
    a = ap.parse_args(argv)
    if (a.seeds_from is None) != (a.seeds_to is None):
        ap.error('--seeds-from and --seeds-to go together')
    return a


def seeds_of(a):
    if a.seeds_from is not None:
        return list(range(a.seeds_from, a.seeds_to + 1))
    return [a.seed]


def describe(unit, outcome):
    lines = ['FAILED %s  (rerun: test/fuzz/fuzz.py --seed %s --only %s --minimize)' % (
        unit.uid, unit.uid.split(':')[0], unit.uid.split(':')[1]),
        '  run as: %s%s' % (unit.wrapper, ', %d executions' % unit.nexec if unit.wrapper == 'prepared' else ''),
        '  on-side settings: ' + ', '.join('%s=%s' % s for s in unit.on_settings + unit.common),
        '  features: ' + ' '.join(sorted(unit.features))]
    for sql, _ in unit.statements():
        lines.append('  | ' + sql)
    lines += ['  ' + line for line in outcome.detail.splitlines()]
    if outcome.plan:
        lines += ['  plan (on):'] + ['    ' + p for p in outcome.plan]
    return '\n'.join(lines)


def drop_schema(runner, schema, tries=5):
    """Drops a seed's schema.  After an interrupted run a killed psql's
    backend may still be running a query of it (until its statement_timeout),
    and the drop can deadlock with it: tried again a few times."""
    for i in range(tries):
        try:
            runner.sql('DROP SCHEMA IF EXISTS %s CASCADE;' % schema)
            return
        except RuntimeError as e:
            if i == tries - 1 or 'deadlock detected' not in str(e):
                print('fuzz: could not drop %s: %s' % (schema, e), file=sys.stderr)
                return
            time.sleep(2)


def main(argv):
    a = parse_args(argv)
    opts = {'correlated_keys': a.correlated_keys, 'icu': True}
    seeds = seeds_of(a)
    only = [int(x) for x in a.only.split(',')] if a.only else None

    if a.print_sql:
        for s in seeds:
            tables = gen_schema(s)
            for i in only or range(a.queries):
                u = gen_unit(tables, s, i, opts)
                print('-- %s %s %s' % (u.uid, u.wrapper, ' '.join(sorted(u.features))))
                for sql, _ in u.statements():
                    print(sql + ';')
        return 0

    runner = Runner(psql=a.psql, dbname=a.dbname, timeout_s=a.timeout, verbose=a.verbose)
    try:
        runner.sql('SHOW gpuhash.scheme;')
    except RuntimeError:
        runner.load = True
        try:
            runner.sql('SHOW gpuhash.scheme;')
        except RuntimeError as e:
            print('fuzz: gpuhash is neither preloaded nor loadable: %s' % e, file=sys.stderr)
            print('0 passed, 0 failed')
            return 2
        print('gpuhash is not preloaded: each session LOADs it')
    device = runner.sql("SELECT current_setting('gpuhash.device');").strip()
    has_info = runner.sql("SELECT count(*) FROM pg_proc WHERE proname = 'gpuhash_info';").strip() != '0'
    runner.leak_check = a.leak_check == 'on' or (a.leak_check == 'auto' and a.jobs == 1 and a.seed_jobs <= 1 and has_info)
    # non-deterministic collations need ICU
    opts['icu'] = runner.sql("SELECT count(*) FROM pg_collation WHERE collprovider = 'i';").strip() != '0'
    print('fuzz: seeds %s, %d queries each, gpuhash.device = %s%s' % (
        '%d..%d' % (seeds[0], seeds[-1]) if len(seeds) > 1 else seeds[0],
        len(only) if only else a.queries, device,
        '' if a.correlated_keys else ', no correlated keys') +
        (', leak check' if runner.leak_check else ''), flush=True)

    t0 = time.time()
    passed = failed = timeouts = errored = 0
    gpu_yes = gpu_known = 0
    feat_n = collections.Counter()
    feat_gpu = collections.Counter()
    failures = []       # (tables, unit, outcome)

    def report(o):
        if o.status == 'fail':
            print(describe(o.unit, o), flush=True)
        elif o.status == 'skip' and a.verbose:
            print('%s: skipped: %s\n  | %s' % (o.unit.uid, o.detail, o.unit.statements()[0][0]),
                  flush=True)
        elif o.error and a.verbose:
            print('%s: both sides failed alike: %s\n  | %s' % (
                o.unit.uid, o.error, o.unit.statements()[0][0]), flush=True)

    def run_seed(s):
        """Seed s's tables made, its queries run, its schema dropped."""
        ts = time.time()
        tables = gen_schema(s)
        schema = unique_schema('fz%d' % s)
        units = [gen_unit(tables, s, i, opts) for i in (only or range(a.queries))]
        try:
            runner.sql('CREATE SCHEMA %s;\nSET search_path = %s;\n%s' % (
                schema, schema, '\n'.join(t.sql() for t in tables)))
            if opts['icu']:
                runner.sql(ICU_COLLATION, schema)
            outs = runner.run_units(schema, units, jobs=a.jobs, batch=a.batch, on_outcome=report)
        except BaseException:
            # a TERM or ^C: the other jobs' psql go too before the drop
            runner.stop()
            raise
        finally:
            if not a.keep:
                drop_schema(runner, schema)
        return s, tables, outs, ts

    if a.seed_jobs <= 1:
        done = (run_seed(s) for s in seeds)
        pool = None
    else:
        # several seeds at once, each in a schema of its own (a long run on a
        # machine of many cores: --jobs alone keeps about 2 of them busy)
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=a.seed_jobs)
        done = (f.result() for f in concurrent.futures.as_completed(
            [pool.submit(run_seed, s) for s in seeds]))
    try:
        for s, tables, outs, ts in done:
            sp = sf = st = 0
            for o in outs:
                if o.error:
                    errored += 1
                if o.status == 'pass':
                    sp += 1
                elif o.status == 'skip':
                    st += 1
                else:
                    sf += 1
                    failures.append((tables, o.unit, o))
                for f in o.unit.features:
                    feat_n[f] += 1
                    if o.gpu:
                        feat_gpu[f] += 1
                if o.gpu is not None:
                    gpu_known += 1
                    gpu_yes += bool(o.gpu)
            passed += sp
            failed += sf
            timeouts += st
            print('seed %d: %d passed, %d failed%s, GpuHashJoin in %d of %d plans (tables %s) %.1f s' % (
                s, sp, sf, ', %d skipped (timeout or too big)' % st if st else '',
                sum(1 for o in outs if o.gpu), len(outs),
                ' '.join('%s:%d' % (t.name, t.size) for t in tables), time.time() - ts), flush=True)
            if a.verbose:
                for t in tables:
                    print('  %s: %s' % (t.name, ', '.join('%s %s' % kv for kv in sorted(t.info.items()))))
    except BaseException:
        runner.stop()
        if pool:
            pool.shutdown(wait=True, cancel_futures=True)
        raise
    if pool:
        pool.shutdown()

    if a.minimize and failures:
        for tables, unit, o in failures[:a.minimize_max]:
            print('\nminimising %s (%s)' % (unit.uid, category(o)), flush=True)
            m = Minimizer(runner, tables, unit, o, budget=a.minimize_budget, time_limit=a.minimize_time,
                          log=lambda s: print(s, flush=True))
            if m.run():
                text = m.repro()
                print('---- repro %s ----\n%s---- end of repro ----' % (unit.uid, text), flush=True)
                if a.out:
                    os.makedirs(a.out, exist_ok=True)
                    path = os.path.join(a.out, 'repro-%s.sql' % unit.uid.replace(':', '-'))
                    with open(path, 'w') as f:
                        f.write(text)
                    print('written to %s' % path)

    total = passed + failed + timeouts
    print('\ncoverage (queries, with a GpuHashJoin in the forced-on plan):')
    print('  ' + ', '.join('%s %d/%d' % (f, feat_gpu[f], feat_n[f]) for f in sorted(feat_n)))
    frac = gpu_yes / gpu_known if gpu_known else 0.0
    print('GpuHashJoin in %d of %d forced-on plans (%.0f%%); %d failed alike on both sides; '
          '%d skipped (timeout or too big); %.1f s' % (gpu_yes, gpu_known, 100 * frac, errored, timeouts,
                                                    time.time() - t0))
    if failures:
        print('failed: ' + ' '.join(u.uid for _, u, _ in failures))
    rc = 0
    if failed:
        rc = 1
    if total and frac < a.min_gpu_fraction:
        print('fuzz: only %.0f%% of the forced-on plans used a GpuHashJoin (want %.0f%%)' % (
            100 * frac, 100 * a.min_gpu_fraction))
        rc = 1
    print('%d passed, %d failed' % (passed, failed))
    return rc


if __name__ == '__main__':
    # a TERM ends the run like ^C: psql children killed, schemas dropped
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main(sys.argv[1:]))
