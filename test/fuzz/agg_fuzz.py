#!/usr/bin/env python3
"""Differential fuzzer for the GPU aggregate (GpuPreAgg): gpuhash.gpu_aggregate
off vs on, serial and parallel, compared as multisets of text rows.

Random tables (every walkable type, NULLs, duplicates, extremes, NaN and
infinities, -0, numeric with and without typmods, char/varchar/text keys with
trailing spaces, empty strings and multibyte characters, wide TOASTed values,
not-all-visible pages) and random aggregate queries over them.  Each query
runs four times (off/on x max_parallel_workers_per_gather 0/2); the on runs
are EXPLAINed and counted when their plan holds a GpuPreAgg.  Needs python3
and psql; reaches the server through PGHOST/PGPORT/PGUSER.

  test/fuzz/agg_fuzz.py --seed 1 --queries 200
"""
import argparse
import random
import re
import subprocess
import sys

TYPES = ['int2', 'int4', 'int8', 'float4', 'float8', 'numeric(12,2)',
         'numeric(7,4)', 'numeric', 'numeric(5,-2)', 'numeric(3,5)', 'date',
         'timestamp', 'timestamptz', 'time', 'bool', 'char(3)', 'char(1)',
         'varchar(6)', 'text', 'char(8)']
# char(25) and varchar(30): wide group keys (more than 64 bits) with others
KEYTYPES = ['int2', 'int4', 'int8', 'date', 'bool', 'char(3)', 'char(1)',
            'varchar(6)', 'text', 'char(8)', 'timestamp', 'time', 'char(25)',
            'varchar(30)', 'int8']
NUMTYPES = ['int2', 'int4', 'int8', 'float4', 'float8', 'numeric(12,2)',
            'numeric(7,4)', 'numeric', 'numeric(5,-2)', 'numeric(3,5)']
ORDTYPES = NUMTYPES + ['date', 'timestamp', 'timestamptz', 'time', 'char(3)',
                       'varchar(6)', 'text']
# mostly types the GPU folds, some it declines (numeric without typmod)
VALTYPES = ['int2', 'int4', 'int8', 'float4', 'float8', 'numeric(12,2)',
            'numeric(12,2)', 'numeric(7,4)', 'numeric(15,2)', 'numeric(5,-2)',
            'numeric(3,5)', 'numeric(12,2)', 'int4', 'numeric']
MINTYPES = ['int2', 'int4', 'int8', 'float4', 'float8', 'date', 'timestamp',
            'timestamptz', 'time', 'numeric(12,2)']
# up to and past a wide key's 48 bytes
STRS = ['', ' ', 'a', 'a ', 'ab', 'ab ', 'abc', 'A', 'é', 'éé', 'x y',
        'long value', 'zzzzzz', 'aé ', 'a value of more than eight', 'x' * 25,
        'y' * 48, 'z' * 49]


def lit(rng, t, ndv):
    """A random literal of type t (None is NULL); ndv bounds the domain."""
    if rng.random() < 0.08:
        return None
    r = rng.random()
    if t == 'int2':
        if r < 0.03:
            return rng.choice(['32767', '-32768'])
        return str(rng.randint(-min(ndv, 32000), min(ndv, 32000)))
    if t == 'int4':
        if r < 0.03:
            return rng.choice(['2147483647', '-2147483648'])
        return str(rng.randint(-ndv, ndv))
    if t == 'int8':
        if r < 0.03:
            return rng.choice(['9223372036854775807', '-9223372036854775808',
                               '4611686018427387904'])
        return str(rng.randint(-ndv, ndv) * rng.choice([1, 1, 1000000007]))
    if t in ('float4', 'float8'):
        if r < 0.005:
            return rng.choice(['3.4e38', '-3.4e38'] if t == 'float4' else ['1e308', '-1e308'])
        if r < 0.06:
            return "'%s'" % rng.choice(['NaN', 'Infinity', '-Infinity', '-0'])
        # binary fractions: sums exact in any order
        return repr(rng.randint(-ndv * 4, ndv * 4) / 1024.0)
    if t == 'numeric(15,2)':
        t = 'numeric(12,2)'
    if t.startswith('numeric'):
        if t == 'numeric' and r < 0.05:
            return "'%s'" % rng.choice(['NaN', 'Infinity', '-Infinity'])
        if t == 'numeric' and r < 0.1:
            return "'NaN'"
        if t != 'numeric' and r < 0.02:
            return "'NaN'"
        if t == 'numeric(12,2)':
            if r < 0.03:
                return rng.choice(['9999999999.99', '-9999999999.99'])
            return '%d.%02d' % (rng.randint(-ndv, ndv), rng.randint(0, 99))
        if t == 'numeric(7,4)':
            return '%d.%04d' % (rng.randint(-999, 999), rng.randint(0, 9999))
        if t == 'numeric(5,-2)':
            return str(rng.randint(-9999999, 9999999))
        if t == 'numeric(3,5)':
            return '0.00%03d' % rng.randint(0, 999)
        # numeric without typmod: varied display scales
        return rng.choice(['1.0', '1.00', '0.000', '-2.5', '3', '1e20',
                           '123456789012345678901234567890.123',
                           '%d.%d' % (rng.randint(-ndv, ndv), rng.randint(0, 999))])
    if t == 'date':
        if r < 0.03:
            return "'%s'" % rng.choice(['infinity', '-infinity', '4713-01-01 BC'])
        return "date '2000-01-01' + %d" % rng.randint(-ndv, ndv)
    if t in ('timestamp', 'timestamptz'):
        if r < 0.03:
            return "'%s'" % rng.choice(['infinity', '-infinity'])
        return "'2000-01-01 00:00'::%s + %d * interval '1 second'" % (t, rng.randint(-ndv, ndv) * 3601)
    if t == 'time':
        return "time '00:00' + %d * interval '1 second'" % rng.randint(0, min(ndv, 86399))
    if t == 'bool':
        return rng.choice(['true', 'false'])
    s = rng.choice(STRS) if ndv < 1000 or r < 0.5 else 'k%d' % rng.randint(0, ndv)
    if t == 'char(1)':
        s = s[:1]
    if t in ('char(3)',):
        s = s[:3]
    if t == 'varchar(6)':
        s = s[:6]
    if t == 'char(8)':
        s = s[:8]
    if t == 'char(25)':
        s = s[:25]
    if t == 'varchar(30)':
        s = s[:30]
    return "'%s'" % s


def make_schema(rng, tables):
    """SQL creating the tables; returns (sql, {name: [(col, type)]})."""
    sql = []
    meta = {}
    for ti in range(tables):
        name = 'af%d' % ti
        cols = [('k%d' % i, rng.choice(KEYTYPES)) for i in range(3)]
        cols += [('v%d' % i, rng.choice(VALTYPES)) for i in range(6)]
        cols += [('o%d' % i, rng.choice(MINTYPES)) for i in range(2)]
        cols += [('w', 'text')]
        meta[name] = cols
        sql.append('DROP TABLE IF EXISTS %s;' % name)
        sql.append('CREATE TABLE %s (%s) WITH (autovacuum_enabled = off);' %
                   (name, ', '.join('%s %s' % c for c in cols)))
        for c, t in cols:
            if c != 'w' and (t.startswith('numeric') or t == 'text' or t.startswith('varchar') or t.startswith('char')) \
                    and rng.random() < 0.25:
                sql.append('ALTER TABLE %s ALTER COLUMN %s SET STORAGE %s;' %
                           (name, c, rng.choice(['PLAIN', 'MAIN'])))
        shape = rng.choice(['empty', 'one', 'small', 'mid', 'mid', 'many'])
        if shape == 'empty':
            nrows, ndv = 0, 5
        elif shape == 'one':
            nrows, ndv = rng.randint(1, 3000), 0
        elif shape == 'small':
            nrows, ndv = rng.randint(1, 300), rng.choice([2, 5, 50])
        elif shape == 'mid':
            nrows, ndv = rng.randint(1000, 20000), rng.choice([3, 30, 1000])
        else:
            nrows, ndv = rng.randint(50000, 120000), 100000
        # explicit rows with specials
        nlit = min(nrows, 300)
        rows = []
        for _ in range(nlit):
            vals = []
            for c, t in cols:
                if c == 'w':
                    v = rng.choice([None, "'w'", "repeat('wide', 3000)",
                                    "(SELECT string_agg(md5(g::text), '') FROM generate_series(1, 200) g)"])
                else:
                    v = lit(rng, t, max(ndv, 1) if ndv else 1)
                vals.append('NULL' if v is None else v)
            rows.append('(%s)' % ', '.join(vals))
        if rows:
            for i in range(0, len(rows), 100):
                sql.append('INSERT INTO %s VALUES %s;' % (name, ', '.join(rows[i:i + 100])))
        if nrows > nlit:
            # bulk rows: random casts of random() in range
            exprs = []
            for c, t in cols:
                exprs.append(bulk_expr(t, max(ndv, 1), c == 'w'))
            sql.append('INSERT INTO %s SELECT %s FROM generate_series(1, %d) i;' %
                       (name, ', '.join(exprs), nrows - nlit))
        # duplicates
        if nrows and rng.random() < 0.5:
            sql.append('INSERT INTO %s SELECT * FROM %s LIMIT 500;' % (name, name))
        sql.append('VACUUM ANALYZE %s;' % name)
        # MVCC: pages not all-visible, deletes, aborted inserts
        if nrows and rng.random() < 0.7:
            sql.append('UPDATE %s SET %s = NULL WHERE random() < 0.05;' % (name, cols[3][0]))
            sql.append('DELETE FROM %s WHERE random() < 0.05;' % name)
            sql.append('BEGIN; INSERT INTO %s SELECT * FROM %s LIMIT 1000; ROLLBACK;' % (name, name))
        if rng.random() < 0.3:
            sql.append('ALTER TABLE %s ALTER COLUMN w SET STORAGE EXTERNAL;' % name)
        if rng.random() < 0.5:
            # columns added with defaults (attmissingval) and a dropped one
            sql.append("ALTER TABLE %s ADD COLUMN v6 int4 DEFAULT 7, ADD COLUMN v7 numeric(12,2) "
                       "DEFAULT 1.50, ADD COLUMN k3 text DEFAULT 'dflt', ADD COLUMN v8 int8;" % name)
            sql.append('ALTER TABLE %s DROP COLUMN o1;' % name)
            cols[:] = [c for c in cols if c[0] != 'o1'] + [('v6', 'int4'), ('v7', 'numeric(12,2)'),
                                                          ('k3', 'text'), ('v8', 'int8')]
            if nrows:
                sql.append('INSERT INTO %s SELECT * FROM %s LIMIT 50;' % (name, name))
    return '\n'.join(sql), meta


def bulk_expr(t, ndv, wide):
    r = 'floor(random() * %d)::int8' % (2 * ndv + 1)
    c = '(%s - %d)' % (r, ndv)
    nul = 'CASE WHEN random() < 0.05 THEN NULL ELSE %s END'
    if wide:
        return "CASE WHEN random() < 0.01 THEN repeat(md5(i::text), 100) ELSE 'w' || i % 7 END"
    if t == 'int2':
        e = '(%s %% 32000)::int2' % c
    elif t == 'int4':
        e = '%s::int4' % c
    elif t == 'int8':
        e = '%s * 1000003' % c
    elif t in ('float4', 'float8'):
        e = '(%s / 1024.0)::%s' % (c, t)
    elif t in ('numeric(12,2)', 'numeric(15,2)'):
        e = '(%s / 100.0)::%s' % (c, t)
    elif t == 'numeric(7,4)':
        e = '((%s %% 999) + random())::numeric(7,4)' % c
    elif t == 'numeric(5,-2)':
        e = '(%s * 37 %% 9999999)::numeric(5,-2)' % c
    elif t == 'numeric(3,5)':
        e = '(random() / 1000)::numeric(3,5)'
    elif t == 'numeric':
        e = "(%s / (1 + i %% 3))::numeric" % c
    elif t == 'date':
        e = "date '2000-01-01' + %s::int4" % c
    elif t in ('timestamp', 'timestamptz'):
        e = "'2000-01-01'::%s + %s * interval '61 seconds'" % (t, c)
    elif t == 'time':
        e = "time '00:00' + (%s %% 86399) * interval '1 second'" % c
    elif t == 'bool':
        e = '(%s %% 2 = 0)' % c
    elif t == 'char(1)':
        e = "substr('AB é', (%s %% 4)::int4 + 1, 1)::char(1)" % c
    elif t == 'char(3)':
        e = "(ARRAY['', ' ', 'a', 'a ', 'ab', 'abc', 'é', 'éé'])[abs(%s %% 8)::int4 + 1]::char(3)" % c
    elif t == 'char(8)':
        e = "('c' || %s)::char(8)" % c
    elif t == 'varchar(6)':
        e = "(ARRAY['', ' ', 'a', 'a ', 'ab', 'abc', 'é', 'éé', 'v' || %s])[abs(%s %% 9)::int4 + 1]::varchar(6)" % (c, c)
    elif t == 'char(25)':
        e = "(ARRAY['', ' ', 'UNITED KINGDOM', 'é', 'c' || %s, repeat('n', 25)])[abs(%s %% 6)::int4 + 1]::char(25)" % (c, c)
    elif t == 'varchar(30)':
        e = "(ARRAY['', 'a ', 'STANDARD POLISHED BRASS', 'éé', 'v' || %s, repeat('w', 30)])[abs(%s %% 6)::int4 + 1]::varchar(30)" % (c, c)
    else:
        e = "(ARRAY['', ' ', 'a', 'a ', 'ab', 'long long text', 't' || %s, repeat('y', 48), repeat('z', 49)])[abs(%s %% 9)::int4 + 1]" % (c, c)
    return nul % e


def is_num(t):
    return t in NUMTYPES or t == 'numeric(15,2)'


def agg_call(rng, cols):
    numc = [c for c, t in cols if is_num(t)]
    ordc = [c for c, t in cols if t in ORDTYPES]
    nnc = [c for c, t in cols if t.startswith('numeric(')]
    k = rng.random()
    if k < 0.12:
        return 'count(*)'
    if k < 0.2:
        return 'count(%s)' % rng.choice([c for c, _ in cols])
    if k < 0.35 and len(nnc) >= 2:
        a, b = rng.sample(nnc, 2)
        c = rng.choice(nnc)
        form = rng.choice(['%s * %s' % (a, b), '%s * (1 - %s)' % (a, b),
                           '%s * (1 - %s) * (1 + %s)' % (a, b, c),
                           '%s * (1 + %s)' % (a, b)])
        return '%s(%s)' % (rng.choice(['sum', 'sum', 'avg']), form)
    intc = [c for c, t in cols if t in ('int2', 'int4', 'int8')]
    if k < 0.45 and intc:
        # integer arithmetic: an overflow is the operator's error, both ways
        return '%s(%s %s %s)' % (rng.choice(['sum', 'sum', 'avg', 'min', 'max', 'count']),
                                 rng.choice(intc), rng.choice(['+', '-', '*']), rng.choice(intc))
    if k < 0.7:
        return '%s(%s)' % (rng.choice(['sum', 'avg']), rng.choice(numc))
    if rng.random() < 0.8:
        ordc = [c for c, t in cols if t in ORDTYPES and not t.startswith('numeric')] or ordc
    return '%s(%s)' % (rng.choice(['min', 'max']), rng.choice(ordc))


def qual(rng, cols):
    c, t = rng.choice(cols)
    k = rng.random()
    if c == 'w':
        return rng.choice(["w LIKE 'w%'", 'length(w) > 10', 'w IS NULL'])
    if k < 0.15:
        return '%s IS %sNULL' % (c, rng.choice(['', 'NOT ']))
    if is_num(t):
        v = rng.choice(['0', '1', '-5', '100', '1000000'])
        if k < 0.3:
            return 'abs(%s) < %s' % (c, v)
        if k < 0.4:
            c2, _ = rng.choice(cols)
            return '(%s > %s OR %s IS NULL)' % (c, v, c2)
        return '%s %s %s' % (c, rng.choice(['<', '<=', '>', '>=', '=', '<>']), v)
    if t in ('date', 'timestamp', 'timestamptz'):
        return "%s %s '2000-01-01'" % (c, rng.choice(['<', '>=', '<>']))
    if t == 'text' or t.startswith('varchar') or t.startswith('char'):
        return rng.choice(["%s LIKE 'a%%'" % c, "%s = 'a'" % c, "%s > 'a'" % c,
                           "%s <> ''" % c, 'length(%s) < 2' % c])
    if t == 'bool':
        return c
    return 'true'


def query(rng, table, cols):
    keys = [c for c, t in cols if c.startswith('k')]
    ng = rng.choice([0, 0, 1, 1, 1, 2, 3])
    gs = rng.sample(keys, ng)
    if rng.random() < 0.05:
        # a value column as a group key too (many groups)
        gs.append(rng.choice([c for c, t in cols if c.startswith('v')]))
    aggs = [agg_call(rng, cols) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.15:
        aggs[0] = rng.choice(['coalesce(%s, NULL) IS NULL', '(%s)::text', 'count(*) + 0 * 1 * (%s IS NULL)::int'.replace('count(*) + ', '')]) % aggs[0]
    rng.shuffle(gs)
    sel = gs + aggs
    rng.shuffle(sel)
    q = 'SELECT %s FROM %s' % (', '.join(sel), table)
    nq = rng.choice([0, 0, 1, 1, 2])
    if nq:
        q += ' WHERE ' + ' AND '.join(qual(rng, cols) for _ in range(nq))
        if rng.random() < 0.1:
            q += ' AND false'
    if gs:
        q += ' GROUP BY ' + ', '.join(gs)
    if rng.random() < 0.25:
        q += ' HAVING ' + rng.choice(['count(*) > %d' % rng.choice([0, 1, 2, 10]),
                                      '%s IS NOT NULL' % agg_call(rng, cols),
                                      'count(%s) > 1 OR %s IS NULL' % (rng.choice(cols)[0], agg_call(rng, cols))])
    return q


SETUP = """SET client_min_messages = warning;
SET extra_float_digits = 3;
SET gpuhash.setup_cost = 0;
SET gpuhash.min_gain = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET statement_timeout = '60s';
"""

# --set NAME=VALUE: settings for every run of the round (off and on alike)
EXTRA_SETS = []


def setup():
    return SETUP + ''.join("SET %s = '%s';\n" % kv for kv in EXTRA_SETS)


def psql(script, dbname):
    p = subprocess.run(['psql', '-X', '-A', '-t', '-q', '-v', 'ON_ERROR_STOP=0',
                        '-d', dbname], input=script, capture_output=True, text=True)
    return p.stdout


def outcome(res, i, par):
    """Query i's sorted result lines off and on, and its plan, at parallel par."""
    off = sorted(l for l in res.get(('@@Q', i, par, 'off'), ['<missing>']) if l != '')
    on = sorted(l for l in res.get(('@@Q', i, par, 'on'), ['<missing>']) if l != '')
    return off, on, res.get(('@@E', i, par), [])


def report_failure(seed, i, q, bad, verbose):
    """Prints query i's differing rows, bad a list of (par, off, on, plan)."""
    print('FAIL seed %d query %d: %s' % (seed, i, q))
    for par, off, on, plan in bad:
        so, sn = set(off), set(on)
        print('  parallel %d: off-only %s' % (par, sorted(so - sn)[:6]))
        print('               on-only  %s' % sorted(sn - so)[:6])
        if verbose:
            print('  plan:\n    ' + '\n    '.join(plan))


def run_round(seed, nq, dbname, verbose):
    rng = random.Random(seed)
    schema, meta = make_schema(rng, rng.randint(2, 4))
    out = subprocess.run(['psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', dbname],
                         input='SET client_min_messages = warning;\n' + schema,
                         capture_output=True, text=True)
    if out.returncode:
        print('schema failed (seed %d): %s' % (seed, out.stderr[-2000:]))
        return 0, 1, 0, 0
    queries = []
    for _ in range(nq):
        t = rng.choice(sorted(meta))
        queries.append(query(rng, t, meta[t]))
    parts = [setup()]
    for i, q in enumerate(queries):
        t = q.split(' FROM ')[1].split()[0]
        tx = None
        if rng.random() < 0.12:
            # in the transaction that changed the table (deterministic changes)
            k = meta[t][1][0]
            tx = rng.choice(['DELETE FROM %s WHERE %s IS NULL' % (t, k),
                             'UPDATE %s SET %s = NULL WHERE %s IS NOT NULL' % (t, meta[t][3][0], k),
                             'INSERT INTO %s SELECT * FROM %s WHERE %s IS NULL' % (t, t, k)])
            queries[i] = '/* after %s */ %s' % (tx, q)
        for par in (0, 2):
            for mode in ('off', 'on'):
                if tx:
                    parts.append('BEGIN; %s;' % tx)
                parts.append('SET gpuhash.gpu_aggregate = %s; SET max_parallel_workers_per_gather = %d;' % (mode, par))
                if mode == 'on':
                    parts.append('\\echo @@E %d %d' % (i, par))
                    parts.append('EXPLAIN (COSTS OFF) %s;' % q)
                parts.append('\\echo @@Q %d %d %s' % (i, par, mode))
                parts.append('%s;' % q)
                parts.append('\\if :ERROR\n\\echo @@ERR :SQLSTATE\n\\endif')
                if tx:
                    parts.append('ROLLBACK;')
    text = psql('\n'.join(parts) + '\n', dbname)
    res = {}
    cur = None
    for line in text.split('\n'):
        if line.startswith('@@Q ') or line.startswith('@@E '):
            f = line.split()
            cur = (f[0], int(f[1]), int(f[2])) + tuple(f[3:])
            res[cur] = []
        elif cur is not None:
            res[cur].append(line)
    # why the planner declined: its DEBUG1 lines, in order with the markers
    dparts = [setup(), 'SET max_parallel_workers_per_gather = 0;', '\\o /dev/stderr']
    for i, q in enumerate(queries):
        dparts.append('\\qecho @@D %d' % i)
        dparts.append('SET client_min_messages = debug1; EXPLAIN (COSTS OFF) %s; SET client_min_messages = warning;' % q)
    p = subprocess.run('psql -X -A -t -q -d %s 2>&1' % dbname, shell=True,
                       input='\n'.join(dparts) + '\n', capture_output=True, text=True)
    why = {}
    for line in p.stdout.split('\n'):
        if 'no GPU aggregate' in line:
            r = line.split('no GPU aggregate:', 1)[1].strip()
            why[r] = why.get(r, 0) + 1
    for r, n in sorted(why.items(), key=lambda x: -x[1]):
        print('  declined %d: %s' % (n, r))
    passed = failed = used = ons = owned = 0
    for i, q in enumerate(queries):
        bad = []
        for par in (0, 2):
            off, on, plan = outcome(res, i, par)
            ons += 1
            if any('GpuPreAgg' in l for l in plan):
                used += 1
            if any('Group Owners' in l for l in plan):
                owned += 1
            if off != on:
                bad.append((par, off, on, plan))
        if bad:
            failed += 1
            report_failure(seed, i, q, bad, verbose)
        else:
            passed += 1
    if owned:
        print('  owned groups (a Finalize per participant) in %d on-plans' % owned)
    return passed, failed, used, ons


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--rounds', type=int, default=1)
    ap.add_argument('--queries', type=int, default=100)
    ap.add_argument('--dbname', default='postgres')
    ap.add_argument('--verbose', action='store_true')
    ap.add_argument('--set', action='append', default=[], metavar='NAME=VALUE',
                    help='a setting for every run, e.g. gpuhash.resident_groups=on')
    a = ap.parse_args()
    for kv in a.set:
        name, _, value = kv.partition('=')
        if not re.match(r'^[A-Za-z_][A-Za-z0-9_.]*$', name) or "'" in value:
            ap.error('--set takes NAME=VALUE, not %r' % kv)
        EXTRA_SETS.append((name, value))
    tp = tf = tu = to = 0
    for s in range(a.seed, a.seed + a.rounds):
        p, f, u, o = run_round(s, a.queries, a.dbname, a.verbose)
        print('seed %d: %d passed, %d failed, GpuPreAgg in %d of %d on-plans' % (s, p, f, u, o))
        tp, tf, tu, to = tp + p, tf + f, tu + u, to + o
    print('%d passed, %d failed, GpuPreAgg in %d of %d on-plans' % (tp, tf, tu, to))
    return 1 if tf else 0


if __name__ == '__main__':
    sys.exit(main())
