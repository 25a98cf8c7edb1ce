#!/usr/bin/env python3
"""Differential fuzzer for the GPU aggregate over a join (GpuPreAgg with an
inner side, gpuhash.gpu_aggregate_join): everything PostgreSQL's
(gpuhash.gpu_aggregate and enable_gpuhashjoin off) vs all on, serial and
parallel, compared as multisets of text rows.

An outer table R (random rows of agg_fuzz.py's literal and bulk generators:
NULLs, duplicates, extremes, not-all-visible pages) joined INNER to an inner
side I, or outer preserving I (I LEFT JOIN R, R RIGHT JOIN I: R's quals in
the ON clause, a qual of I's in WHERE): a table with a unique key, duplicate keys, NULL keys, keys absent
from R, or empty; sometimes a join of two tables, a subquery or a UNION
ALL; a quarter
of the queries join R to two inner tables, each by its own key (a star of
two dimensions, EXPLAIN's "GPU Star Dimension 2"), sometimes with a clause
across them.  One or two
`=` clauses on integer-like keys (int2/int4/int8/date/bool/oid, int4 = int8
across types), sometimes further clauses over both sides; group keys and
aggregate operands from either side, integer arithmetic across them; CASE
forms; HAVING; ORDER BY/LIMIT.
Counts the on-plans holding a joined GpuPreAgg (EXPLAIN's "GPU Join:"),
and of those the outer joins' ("GPU Join Type: Left").

  test/fuzz/agg_join_fuzz.py --seed 1 --rounds 3 --queries 60
"""
import argparse
import os
import random
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agg_fuzz  # noqa: E402  (its literal and bulk generators, psql, SETUP)

JTYPES = ['int2', 'int4', 'int8', 'date', 'bool', 'oid']


def keyval(rng, t, ndv):
    """A literal of an integer-like join key type (None: NULL)."""
    if t == 'oid':
        return None if rng.random() < 0.08 else str(rng.randint(0, ndv))
    if t == 'int8' and rng.random() < 0.9:
        return None if rng.random() < 0.08 else str(rng.randint(-ndv, ndv))
    return agg_fuzz.lit(rng, t, ndv)


def key_bulk(t, ndv, shift):
    """A bulk expression for join key type t over about 2*ndv values."""
    c = '(floor(random() * %d)::int8 - %d + %d)' % (2 * ndv + 1, ndv, shift)
    nul = 'CASE WHEN random() < 0.05 THEN NULL ELSE %s END'
    if t == 'int2':
        e = '(%s %% 32000)::int2' % c
    elif t == 'int4':
        e = '%s::int4' % c
    elif t == 'int8':
        e = c
    elif t == 'date':
        e = "date '2000-01-01' + %s::int4" % c
    elif t == 'bool':
        e = '(%s %% 2 = 0)' % c
    else:
        e = 'abs(%s)::oid' % c
    return nul % e


def key_unique(t, shift):
    """A unique-valued key of type t from generate_series' i."""
    if t == 'int2':
        return '((i + %d) %% 32000)::int2' % shift
    if t == 'date':
        return "date '2000-01-01' + (i + %d)::int4" % shift
    if t == 'bool':
        return '(i % 2 = 0)'
    if t == 'oid':
        return '(i + %d)::oid' % abs(shift)
    return '(i + %d)::%s' % (shift, t)


def make_table(rng, name, cols, keycols, nrows, ndv, unique, shift):
    sql = ['DROP TABLE IF EXISTS %s CASCADE;' % name,
           'CREATE TABLE %s (%s) WITH (autovacuum_enabled = off);' %
           (name, ', '.join('%s %s' % c for c in cols))]
    nlit = 0 if unique else min(nrows, 200)
    rows = []
    for _ in range(nlit):
        vals = []
        for c, t in cols:
            if c == 'w':
                v = rng.choice([None, "'w'", "repeat('wide', 3000)"])
            else:
                v = (keyval if c in keycols else agg_fuzz.lit)(rng, t, max(ndv, 1))
                if v in ('-2147483648', '-32768', '-9223372036854775808'):
                    # abs() of these overflows: in a WHERE on R an error that
                    # depends on whether the plan reads R's row at all
                    v = v[:-1] + str(int(v[-1]) - 1)
                if v in ('1e308', '-1e308', '3.4e38', '-3.4e38'):
                    # joined rows repeat values: sums of these overflow or
                    # round by summation order (PostgreSQL's own too)
                    v = ('-' if v.startswith('-') else '') + '1048576'
            vals.append('NULL' if v is None else v)
        rows.append('(%s)' % ', '.join(vals))
    for i in range(0, len(rows), 100):
        sql.append('INSERT INTO %s VALUES %s;' % (name, ', '.join(rows[i:i + 100])))
    if nrows > nlit:
        exprs = []
        for c, t in cols:
            if c in keycols:
                exprs.append(key_unique(t, shift) if unique else key_bulk(t, ndv, shift))
            else:
                exprs.append(agg_fuzz.bulk_expr(t, max(ndv, 1), c == 'w'))
        sql.append('INSERT INTO %s SELECT %s FROM generate_series(1, %d) i;' %
                   (name, ', '.join(exprs), nrows - nlit))
    if nrows and not unique and rng.random() < 0.4:
        sql.append('INSERT INTO %s SELECT * FROM %s LIMIT 300;' % (name, name))
    sql.append('VACUUM ANALYZE %s;' % name)
    if nrows and rng.random() < 0.5:
        sql.append('UPDATE %s SET %s = NULL WHERE random() < 0.05;' % (name, cols[-2][0]))
        sql.append('DELETE FROM %s WHERE random() < 0.03;' % name)
    return sql


def make_schema(rng):
    """Outer tables jr0, jr1 and inner tables ji0..ji2; returns (sql, meta)."""
    sql = []
    meta = {}
    ndv = rng.choice([3, 20, 300, 3000])
    # the join key types: j0 int4 or int8 on either side (cross-type), j1
    # int8/int4, j2 one integer-like type shared by both sides
    j2t = rng.choice(JTYPES)
    for ti in range(2):
        name = 'jr%d' % ti
        cols = [('j0', rng.choice(['int4', 'int8'])), ('j1', rng.choice(['int4', 'int8', 'int2'])),
                ('j2', j2t)]
        cols += [('k%d' % i, rng.choice(agg_fuzz.KEYTYPES + JTYPES[:-1])) for i in range(2)]
        # numeric without a typmod (declined) seldom
        cols += [('v%d' % i, rng.choice(agg_fuzz.VALTYPES[:-1] if rng.random() < 0.85
                                        else agg_fuzz.VALTYPES)) for i in range(3)]
        cols += [('n0', 'numeric(12,2)'), ('n1', 'numeric(7,4)'), ('f0', 'float8'),
                 ('d0', 'date'), ('w', 'text')]
        nrows = rng.choice([0, rng.randint(1, 500), rng.randint(2000, 20000),
                            rng.randint(2000, 20000), rng.randint(20000, 60000)])
        if j2t == 'bool':
            # two key values: every row meets half the other side
            nrows = min(nrows, 4000)
        sql += make_table(rng, name, cols, ('j0', 'j1', 'j2'), nrows, ndv, False, 0)
        meta[name] = cols
    for ti in range(3):
        name = 'ji%d' % ti
        cols = [('j0', rng.choice(['int4', 'int8'])), ('j1', rng.choice(['int4', 'int8', 'int2'])),
                ('j2', j2t), ('g0', rng.choice(agg_fuzz.KEYTYPES + JTYPES[:-1])), ('g1', 'int4'),
                ('s', rng.choice(['text', 'varchar(6)', 'char(3)'])),
                ('m0', 'numeric(12,2)'), ('m1', 'numeric(7,4)'), ('f', 'float8'), ('d', 'date')]
        shape = rng.choice(['empty', 'unique', 'unique', 'dups', 'dups', 'absent', 'small'])
        unique = shape == 'unique'
        shift = rng.randint(-ndv, ndv) if shape != 'absent' else 10 * ndv + 7
        if shape == 'empty':
            nrows = 0
        elif shape == 'small':
            nrows = rng.randint(1, 20)
        elif unique:
            nrows = rng.randint(1, max(2 * ndv, 3))
        else:
            nrows = rng.randint(10, 3000)
        if j2t == 'bool':
            nrows = min(nrows, 200)
        sql += make_table(rng, name, cols, ('j0', 'j1', 'j2'), nrows, ndv, unique, shift)
        if unique and rng.random() < 0.5:
            sql.append('ALTER TABLE %s ADD PRIMARY KEY (j0);' % name)
        meta[name] = cols
    return '\n'.join(sql), meta


def inner_side(rng, meta):
    """SQL for I (aliased i) and its columns [(name, type)]."""
    k = rng.random()
    a = rng.choice(['ji0', 'ji1', 'ji2'])
    cols = meta[a]
    if k < 0.6:
        return a + ' i', cols
    names = [c for c, _ in cols]
    if k < 0.75:
        # a join of two tables as the inner side
        b = rng.choice([t for t in ('ji0', 'ji1', 'ji2') if t != a])
        on = rng.choice(['a.g1 = b.g1', 'a.j1 = b.j1', 'a.j2 = b.j2 AND a.g1 = b.g1'])
        take = {c: rng.choice(['a', 'b']) for c in names if c not in ('j0', 'j1', 'j2')}
        sel = ', '.join('a.%s' % c if c in ('j0', 'j1', 'j2') else '%s.%s' % (take[c], c)
                        for c in names)
        bt = dict(meta[b])
        cols = [(c, t if c in ('j0', 'j1', 'j2') or take[c] == 'a' else bt[c]) for c, t in cols]
        return '(SELECT %s FROM %s a JOIN %s b ON %s) i' % (sel, a, b, on), cols
    if k < 0.85:
        return '(SELECT * FROM %s WHERE %s) i' % (a, rng.choice(
            ['g1 > 0', 'm0 IS NOT NULL', "s LIKE 'a%'", 'j1 IS NULL OR g1 < 5'])), cols
    if k < 0.9:
        return '(SELECT DISTINCT ON (j0) * FROM %s ORDER BY j0, g1, m0, s, f, d, j1, j2, g0, m1) i' % a, cols
    if k < 0.95:
        # an Append under the join (its output named by the plan's map, not
        # by the children setrefs may leave): the table in two parts
        return ('(SELECT * FROM %s WHERE g1 > 2 UNION ALL SELECT * FROM %s WHERE g1 <= 2 OR g1 IS NULL) i'
                % (a, a)), cols
    return ('(SELECT j0, j1, j2, g0, count(*)::int4 AS g1, max(s) AS s, sum(m0) AS m0, '
            'min(m1) AS m1, max(f) AS f, min(d) AS d FROM %s GROUP BY j0, j1, j2, g0) i' % a,
            [(c, t) for c, t in cols])


def both_cond(rng, rc, ic):
    """A condition over both sides' columns."""
    rt, it = dict(rc), dict(ic)
    forms = [
        "i.s LIKE 'a%'", "i.s NOT LIKE '%b%'", 'i.g1 IN (1, 2, 3, -1)', 'i.m0 IS NULL',
        'r.n0 > i.m0', 'r.n1 <= i.m1', '(r.f0 < i.f OR i.s IS NULL)',
        'NOT (r.n0 = i.m0)', 'r.d0 BETWEEN i.d - 30 AND i.d + 30',
        'r.v0 IS NOT NULL AND i.g1 > 0', 'r.n0 * (1 - i.m1) > 0',
        '(i.g1 < 0 OR r.n1 > 0.5)', 'r.j1 < i.g1', 'i.d < r.d0',
        'r.f0 > 0 AND NOT i.s IS NULL', "i.s IN ('a', 'ab', '')",
        'i.m1 BETWEEN 0.1 AND 0.9',
    ]
    return rng.choice(forms)


def agg_call(rng, rc, ic):
    rnum = ['r.%s' % c for c, t in rc if agg_fuzz.is_num(t)]
    inum = ['i.m0', 'i.m1', 'i.f', 'i.g1'] + ['i.%s' % c for c, t in ic if c in ('j0', 'j1')]
    num = rnum + inum
    k = rng.random()
    if k < 0.1:
        return 'count(*)'
    if k < 0.18:
        return 'count(%s)' % rng.choice(['r.v0', 'i.m0', 'i.s', 'r.w', 'i.d', 'r.k0'])
    if k < 0.33:
        a, b = rng.choice([('r.n0', 'i.m1'), ('i.m0', 'r.n1'), ('r.n0', 'r.n1'), ('i.m0', 'i.m1')])
        form = rng.choice(['%s * (1 - %s)' % (a, b), '%s * (1 - %s) * (1 + %s)' % (a, b, b),
                           '%s * %s' % (a, b)])
        return '%s(%s)' % (rng.choice(['sum', 'sum', 'avg']), form)
    if k < 0.48:
        c = both_cond(rng, rc, ic)
        x = rng.choice(['r.n0 * (1 - i.m1)', 'i.m0', 'r.n0', 'r.v0', 'i.f', '1'])
        tail = rng.choice([' ELSE 0 END', ' END', ' ELSE 0 END'])
        if x == '1':
            tail = ' ELSE 0 END'
        return '%s(CASE WHEN %s THEN %s%s)' % (rng.choice(['sum', 'sum', 'avg']), c, x, tail)
    if k < 0.56:
        # integer arithmetic over both sides' integer columns: an overflow is
        # the operator's error (integer or smallint out of range), both ways
        ints = (['r.%s' % c for c, t in rc if t in ('int2', 'int4', 'int8')] +
                ['i.g1'] + ['i.%s' % c for c, t in ic if c in ('j0', 'j1')])
        return '%s(%s %s %s)' % (rng.choice(['sum', 'sum', 'avg', 'min', 'max', 'count']),
                                 rng.choice(ints), rng.choice(['+', '-', '*']), rng.choice(ints))
    if k < 0.75:
        x = rng.choice(num)
        fl = x in ('i.f', 'r.f0') or dict((('r.' + c), t) for c, t in rc).get(x, '') == 'float8'
        return '%s(%s)' % ('sum' if fl and rng.random() < 0.85 else rng.choice(['sum', 'avg']), x)
    # numeric min/max and avg(float8) the planner declines: seldom
    return '%s(%s)' % (rng.choice(['min', 'max']),
                       rng.choice(['r.d0', 'i.d', 'r.f0', 'i.f', 'r.j1', 'i.j0', 'r.v1', 'i.g1',
                                   'r.d0', 'i.d', 'i.g1', 'r.j0'] + (['i.m0', 'r.n0'] if rng.random() < 0.1 else [])))


def r_qual(rng, rc):
    c, t = rng.choice([x for x in rc if x[0] != 'w'])
    return re.sub(r'\b%s\b' % c, 'r.' + c, agg_fuzz.qual(rng, [(c, t)]))


def star_query(rng, meta, r, rc):
    """R joined to two inner tables (i, i2), each by its own key over R's
    columns, sometimes a clause across them: a star of two dimensions."""
    a, b = rng.sample(['ji0', 'ji1', 'ji2'], 2)
    ic, i2c = meta[a], meta[b]
    ka, kb = rng.sample(['j0', 'j1', 'j2'], 2)
    on = ['r.%s = i.%s' % (ka, ka), 'r.%s = i2.%s' % (kb, kb)]
    if rng.random() < 0.4:
        on.append(rng.choice(['i.g1 <= i2.g1', 'i.d < i2.d + 100', '(i.s = i2.s OR i2.g1 > 0)',
                              'i.m0 + i2.m0 > r.n0', 'r.j1 < i.g1 + i2.g1']))
    if rng.random() < 0.3:
        on.append(both_cond(rng, rc, ic))
    gcand = ['r.j2', 'i.g1', 'i2.g1', 'i.d', 'i2.d', 'r.d0', 'i2.j0']
    gs = rng.sample(gcand, rng.choice([0, 1, 1, 2]))
    aggs = [agg_call(rng, rc, ic) for _ in range(rng.randint(1, 3))]
    aggs += [rng.choice(['sum(i2.m0)', 'count(i2.s)', 'min(i2.d)', 'max(i2.g1)', 'avg(i2.m1)',
                         'sum(r.n0 * (1 - i2.m1))', 'sum(CASE WHEN i2.g1 > 0 THEN i.m0 ELSE 0 END)',
                         'sum(r.j1 * i2.g1)', 'max(i.g1 - i2.g1)', 'sum(r.j0 + i2.j1)'])
             for _ in range(rng.randint(1, 2))]
    sel = gs + aggs
    rng.shuffle(sel)
    q = 'SELECT %s FROM %s r JOIN %s i ON %s JOIN %s i2 ON %s' % (
        ', '.join(sel), r, a, on[0], b, ' AND '.join(on[1:]))
    if rng.random() < 0.4:
        q += ' WHERE ' + r_qual(rng, rc)
    if gs:
        q += ' GROUP BY ' + ', '.join(gs)
    if rng.random() < 0.15:
        q += ' HAVING count(*) > %d' % rng.choice([0, 1, 5])
    return q


def query(rng, meta):
    r = rng.choice(['jr0', 'jr1'])
    if rng.random() < 0.25:
        return star_query(rng, meta, r, meta[r])
    rc = meta[r]
    isql, ic = inner_side(rng, meta)
    it = dict(ic)
    rt = dict(rc)
    nk = rng.choice([1, 1, 1, 2])
    keys = rng.sample(['j0', 'j1', 'j2'], nk)
    on = ['r.%s = i.%s' % (k, k) for k in keys]
    if rng.random() < 0.35:
        on.append(both_cond(rng, rc, ic))
        if rng.random() < 0.3:
            on.append(both_cond(rng, rc, ic))
    rng.shuffle(on)
    # group keys: mostly fixed-width ones (wide text keys exceed the GPU key)
    gcand = ['r.j2', 'r.j0', 'i.g1', 'i.j0', 'i.d', 'r.d0', 'r.j1', 'i.j2']
    gcand += rng.sample(['r.k0', 'r.k1', 'i.g0', 'i.s'], 1)
    gs = rng.sample(gcand, rng.choice([0, 1, 1, 1, 2]))
    if len(gs) == 2 and rng.random() < 0.7:
        # two keys fit the GPU's 64-bit key when narrow
        gs = rng.sample(['r.d0', 'i.g1', 'i.d', 'r.j2'], 2)
    aggs = [agg_call(rng, rc, ic) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.5:
        aggs.append(rng.choice(['count(*)', 'count(r.j0)', 'count(r.v0)']))
    sel = gs + aggs
    rng.shuffle(sel)
    nq = rng.choice([0, 0, 1, 1, 2])
    if rng.random() < 0.3:
        # an outer join preserving I: R's quals decide matching (ON), I's filter (WHERE)
        on += [r_qual(rng, rc) for _ in range(nq)]
        rng.shuffle(on)
        if rng.random() < 0.5:
            q = 'SELECT %s FROM %s LEFT JOIN %s r ON %s' % (', '.join(sel), isql, r,
                                                            ' AND '.join(on))
        else:
            q = 'SELECT %s FROM %s r RIGHT JOIN %s ON %s' % (', '.join(sel), r, isql,
                                                             ' AND '.join(on))
        if rng.random() < 0.3:
            q += ' WHERE ' + rng.choice(['i.g1 > 0', 'i.s IS NOT NULL', 'i.m0 < 100',
                                         'r.n0 IS NULL OR r.n0 > 0'])
    else:
        q = 'SELECT %s FROM %s r JOIN %s ON %s' % (', '.join(sel), r, isql, ' AND '.join(on))
        if nq:
            q += ' WHERE ' + ' AND '.join(r_qual(rng, rc) for _ in range(nq))
    if gs:
        q += ' GROUP BY ' + ', '.join(gs)
    if rng.random() < 0.2:
        q += ' HAVING ' + rng.choice(['count(*) > %d' % rng.choice([0, 1, 2, 10]),
                                      '%s IS NOT NULL' % agg_call(rng, rc, ic)])
    if rng.random() < 0.15:
        q += ' ORDER BY %s LIMIT %d' % (', '.join(str(i + 1) for i in range(len(sel))),
                                        rng.choice([1, 3, 10]))
    return q


OFF = 'SET gpuhash.gpu_aggregate = off; SET enable_gpuhashjoin = off;'
# the GPU's per-page and per-row costs at 0: the joined GpuPreAgg wins at
# these small sizes over the GpuHashJoin and PostgreSQL's aggregate above it
ON = ('SET gpuhash.gpu_aggregate = on; SET gpuhash.gpu_aggregate_join = on; '
      'SET enable_gpuhashjoin = on; SET gpuhash.page_cpu_cost = 0; SET gpuhash.page_row_cost = 0; '
      'SET gpuhash.build_row_cost = 0; SET gpuhash.kept_row_cost = 0;')
TILT = ' SET gpuhash.match_row_cost = 1; SET gpuhash.page_match_cost = 1;'


def run_round(seed, nq, dbname, verbose, shared_dim):
    rng = random.Random(seed)
    schema, meta = make_schema(rng)
    out = subprocess.run(['psql', '-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', dbname],
                         input='SET client_min_messages = warning;\n' + schema,
                         capture_output=True, text=True)
    if out.returncode:
        print('schema failed (seed %d): %s' % (seed, out.stderr[-2000:]))
        return 0, 1, 0, 0, 0, 0
    queries = [query(rng, meta) for _ in range(nq)]
    # most queries: the GPU join's match costs raised, so that the joined
    # GpuPreAgg beats a GpuHashJoin under PostgreSQL's aggregate (a tie at
    # these sizes); the others keep them (GpuHashJoins inside inner sides)
    tilt = [TILT if rng.random() < 0.75 else ' RESET gpuhash.match_row_cost; RESET gpuhash.page_match_cost;'
            for _ in queries]
    parts = [agg_fuzz.SETUP]
    for i, q in enumerate(queries):
        for par in (0, 2):
            for mode in ('off', 'on'):
                parts.append('%s SET max_parallel_workers_per_gather = %d;' %
                             (OFF if mode == 'off' else ON + tilt[i], par))
                if mode == 'on' and shared_dim:
                    parts.append('SET gpuhash.shared_dimension = %s;' % rng.choice(['on', 'off']))
                if mode == 'on':
                    parts.append('\\echo @@E %d %d' % (i, par))
                    parts.append('EXPLAIN (COSTS OFF) %s;' % q)
                parts.append('\\echo @@Q %d %d %s' % (i, par, mode))
                parts.append('%s;' % q)
                parts.append('\\if :ERROR\n\\echo @@ERR :SQLSTATE\n\\endif')
    p = subprocess.run(['psql', '-X', '-A', '-t', '-q', '-v', 'ON_ERROR_STOP=0', '-d', dbname],
                       input='\n'.join(parts) + '\n', capture_output=True, text=True)
    text = p.stdout
    errs = [l for l in p.stderr.split('\n') if 'ERROR' in l or 'server closed' in l or 'FATAL' in l]
    res = {}
    cur = None
    for line in text.split('\n'):
        if line.startswith('@@Q ') or line.startswith('@@E '):
            f = line.split()
            cur = (f[0], int(f[1]), int(f[2])) + tuple(f[3:])
            res[cur] = []
        elif cur is not None:
            res[cur].append(line)
    # why the planner declined: its DEBUG1 lines
    dparts = [agg_fuzz.SETUP, ON + TILT, 'SET max_parallel_workers_per_gather = 0;', '\\o /dev/stderr']
    for q in queries:
        dparts.append('SET client_min_messages = debug1; EXPLAIN (COSTS OFF) %s; '
                      'SET client_min_messages = warning;' % q)
    p = subprocess.run('psql -X -A -t -q -d %s 2>&1' % dbname, shell=True,
                       input='\n'.join(dparts) + '\n', capture_output=True, text=True)
    why = {}
    for line in p.stdout.split('\n'):
        if 'no GPU aggregate' in line:
            r = line.split('no GPU aggregate', 1)[1].strip()
            why[r] = why.get(r, 0) + 1
    for r, n in sorted(why.items(), key=lambda x: -x[1])[:8]:
        print('  declined %d: %s' % (n, r))
    passed = failed = used = ons = outer = stars = timeouts = 0
    for i, q in enumerate(queries):
        bad = []
        slow = False
        for par in (0, 2):
            timed = [m for m in ('off', 'on') if '@@ERR 57014' in res.get(('@@Q', i, par, m), [])]
            for mode in timed:
                print('TIMEOUT seed %d query %d parallel %d %s: %s' % (seed, i, par, mode, q))
            off, on, plan = agg_fuzz.outcome(res, i, par)
            ons += 1
            if any('GPU Join:' in l or 'GPU Star Dimension 1:' in l for l in plan):
                used += 1
                outer += any('GPU Join Type: Left' in l for l in plan)
                stars += any('GPU Star Dimension 2:' in l for l in plan)
            elif verbose and par == 0:
                print('NOJOIN %s\n    %s' % (q, '\n    '.join(plan)))
            # a side past the statement timeout has no result to compare
            # (slow, not wrong: printed above, counted apart)
            if timed:
                slow = True
            elif off != on:
                bad.append((par, off, on, plan))
        if bad:
            failed += 1
            agg_fuzz.report_failure(seed, i, q, bad, verbose)
        elif slow:
            timeouts += 1
        else:
            passed += 1
    for e in sorted(set(errs))[:10]:
        print('  stderr: %s' % e)
    print('  outer joins preserving I in %d, stars of dimensions in %d of the joined on-plans'
          % (outer, stars))
    return passed, failed, used, ons, len(errs), timeouts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--rounds', type=int, default=1)
    ap.add_argument('--queries', type=int, default=60)
    ap.add_argument('--dbname', default='postgres')
    ap.add_argument('--verbose', action='store_true')
    a = ap.parse_args()
    chk = subprocess.run(['psql', '-X', '-A', '-t', '-q', '-d', a.dbname, '-c',
                          "SELECT current_setting('gpuhash.shared_dimension', true) IS NOT NULL"],
                         capture_output=True, text=True).stdout.strip()
    shared_dim = chk == 't'
    tp = tf = tu = to = te = tt = 0
    for s in range(a.seed, a.seed + a.rounds):
        p, f, u, o, e, t = run_round(s, a.queries, a.dbname, a.verbose, shared_dim)
        print('seed %d: %d passed, %d failed, %d timed out, joined GpuPreAgg in %d of %d '
              'on-plans, %d errors' % (s, p, f, t, u, o, e), flush=True)
        tp, tf, tu, to, te, tt = tp + p, tf + f, tu + u, to + o, te + e, tt + t
    print('%d passed, %d failed, %d timed out, joined GpuPreAgg in %d of %d on-plans, %d errors'
          % (tp, tf, tt, tu, to, te))
    return 1 if tf else 0


if __name__ == '__main__':
    sys.exit(main())
