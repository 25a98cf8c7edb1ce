"""Schema generator of the gpuhash differential fuzzer.

A seed gives a handful of small tables (t1..t5) with the same columns: every
key type the GPU join handles (exact 64-bit keys and fingerprint keys), each
table with its own row count (empty sides included), key domain, NULL rate,
skew (one heavy duplicate key) and rate of extreme values (0, the int2, int4
and int8 corners, values that alias in their low bits, infinities, NaN, -0,
numeric scales, char(n) padding, long text).
"""

import datetime
import random

# name -> SQL type.  "class" below is the type the query generator pairs keys by.
COLUMNS = [
    ('id', 'int4'),         # 1..n, unique, never NULL
    ('k', 'int4'),          # small skewed keys, safe for arithmetic
    ('x', 'int4'),          # 0..9 or NULL: filters and non-equi clauses
    ('i2', 'int2'),
    ('i4', 'int4'),
    ('i8', 'int8'),
    ('d', 'date'),
    ('ts', 'timestamp'),
    ('tz', 'timestamptz'),
    ('b', 'bool'),
    ('o', 'oid'),
    ('tx', 'text'),
    ('vc', 'varchar(12)'),
    ('ch', 'char(5)'),
    ('nu', 'numeric'),
    ('f4', 'float4'),
    ('f8', 'float8'),
    ('u', 'uuid'),
    ('iv', 'interval'),     # '1 day' = '24 hours', '1 mon' = '30 days'
    ('ar', 'int4[]'),
    ('j', 'jsonb'),
]
COLTYPE = dict(COLUMNS)
# the type class of each column, as the query generator sees it
COLCLASS = {'id': 'int4', 'k': 'int4', 'x': 'int4', 'i2': 'int2', 'i4': 'int4',
            'i8': 'int8', 'd': 'date', 'ts': 'timestamp', 'tz': 'timestamptz',
            'b': 'bool', 'o': 'oid', 'tx': 'text', 'vc': 'varchar', 'ch': 'bpchar',
            'nu': 'numeric', 'f4': 'float4', 'f8': 'float8', 'u': 'uuid',
            'iv': 'interval', 'ar': 'int4[]', 'j': 'jsonb'}

EPOCH = datetime.datetime(2000, 1, 1)


def q(s):
    return "'" + s.replace("'", "''") + "'"


def _lit(col, v, rng):
    """SQL literal of domain value v (an int >= 0) in column col."""
    if col in ('k', 'i4', 'o'):
        return str(v)
    if col == 'i2':
        return str(v % 32768)
    if col == 'i8':
        # some keys far above 2^32 whose low 32 bits equal a small key
        return str(v + (4294967296 if rng.random() < 0.15 else 0))
    if col == 'd':
        return q((EPOCH + datetime.timedelta(days=v)).strftime('%Y-%m-%d'))
    if col == 'ts':
        return q((EPOCH + datetime.timedelta(hours=v)).strftime('%Y-%m-%d %H:%M:%S'))
    if col == 'tz':
        return q((EPOCH + datetime.timedelta(hours=v)).strftime('%Y-%m-%d %H:%M:%S') + '+00')
    if col == 'b':
        return 'true' if v % 2 else 'false'
    if col in ('tx', 'vc', 'ch'):
        return q('k%d' % v)
    if col == 'nu':
        # 1 = 1.0 = 1.00: equal keys of different scales
        return rng.choice([str(v), '%d.0' % v, '%d.00' % v, '%d.5' % v])
    if col == 'f4':
        return rng.choice([str(v), '%d.5' % v])
    if col == 'f8':
        return rng.choice([str(v), '%d.5' % v])
    if col == 'u':
        return q('00000000-0000-0000-0000-%012x' % v)
    if col == 'iv':
        # equal intervals written differently
        return q(rng.choice(['%d days' % v, '%d hours' % (24 * v), '%d days' % v]))
    if col == 'ar':
        return q(rng.choice(['{%d}' % v, '{%d,%d}' % (v, v % 3)]))
    if col == 'j':
        return q(rng.choice(['{"a": %d}' % v, '{"a": %d, "b": [1, 2]}' % v, '%d' % v]))
    raise ValueError(col)


EXTREMES = {
    'k': ['0', '-1', '-3'],
    'i2': ['0', '-32768', '32767', '-1', '255', '256'],
    'i4': ['0', '-2147483648', '2147483647', '-1', '65535', '65536', '32767'],
    'i8': ['0', '-9223372036854775808', '9223372036854775807', '4294967295',
           '4294967296', '-4294967296', '-1', '2147483647', '-2147483648',
           '-9223372036854775807'],
    'd': ["'infinity'", "'-infinity'", "'2000-01-01'", "'1999-12-31'",
          "'4713-01-01 BC'", "'5874897-12-31'"],
    'ts': ["'infinity'", "'-infinity'", "'2000-01-01 00:00:00'",
           "'1999-12-31 23:59:59.999999'", "'4713-01-01 00:00:00 BC'",
           "'294276-12-31 23:59:59.999999'"],
    'tz': ["'infinity'", "'-infinity'", "'2000-01-01 00:00:00+00'",
           "'1999-12-31 23:59:59.999999+00'", "'2000-01-01 01:00:00+01'"],
    'b': ['true', 'false'],
    'o': ['0', '4294967295', '2147483648', '1'],
    'tx': ["''", "' '", "'k1 '", "'K1'", "'k0'", "'\u00fc'", "repeat('ab', 1500)",
           "repeat('xy', 40)",
           # 3.2 kB that does not compress: stored out of line (TOAST)
           "(SELECT string_agg(md5(g::text), '') FROM generate_series(1, 100) g)"],
    'vc': ["''", "' '", "'k1 '", "'k0'", "'\u00fc'"],
    'ch': ["''", "'k1 '", "'k1'", "'  k1'", "'\u00fc'"],
    'nu': ["'NaN'", "'-0'", "'0.000'", "'1e20'", "'-1e-20'", "'Infinity'",
           "'-Infinity'", "'1.000000000000000000001'", "'100000000000000000000'"],
    'f4': ["'NaN'", "'-0'", "'0'", "'Infinity'", "'-Infinity'", "'0.1'",
           "'16777217'", "'1e-45'", "'3.4e38'"],
    'f8': ["'NaN'", "'-0'", "'0'", "'Infinity'", "'-Infinity'", "'0.1'",
           "'16777217'", "'1e308'", "'5e-324'"],
    'u': ["'ffffffff-ffff-ffff-ffff-ffffffffffff'", "'00000000-0000-0000-0000-000000000000'",
          "'00000000-0000-0001-0000-000000000000'"],
    'iv': ["'1 mon'", "'30 days'", "'720 hours'", "'0'", "'-0 days'", "'1 day -24 hours'",
           "'178000000 years'", "'-178000000 years'"],
    'ar': ["'{}'", "'{NULL}'", "'{0}'", "'{1,NULL}'", "'{-2147483648,2147483647}'"],
    'j': ["'null'", "'{}'", "'[]'", "'{\"a\": null}'", "'\"k1\"'", "'1.0'", "'1'"],
}


class Table:
    def __init__(self, name, rows, info, indexes):
        self.name = name
        self.cols = [c for c, _ in COLUMNS]
        self.rows = rows            # list of tuples of SQL literals, in self.cols order
        self.info = info            # how it was generated (-v prints it)
        self.indexes = indexes      # column names with an index

    @property
    def size(self):
        return len(self.rows)

    def sql(self, cols=None, rows=None):
        """CREATE TABLE + INSERT + index + ANALYZE, for the given columns/rows."""
        cols = cols or self.cols
        rows = self.rows if rows is None else rows
        idx = [self.cols.index(c) for c in cols]
        name = self.name
        out = ['CREATE TABLE %s (%s);' % (name, ', '.join('%s %s' % (c, COLTYPE[c]) for c in cols))]
        for i in range(0, len(rows), 500):
            chunk = rows[i:i + 500]
            out.append('INSERT INTO %s VALUES\n  %s;' % (
                name, ',\n  '.join('(' + ', '.join(r[j] for j in idx) + ')' for r in chunk)))
        for c in self.indexes:
            if c in cols:
                # text keys may be 3 kB: more than a btree entry takes
                out.append('CREATE INDEX ON %s%s (%s);' % (name, ' USING hash' if c == 'tx' else '', c))
        out.append('ANALYZE %s;' % name)
        return '\n'.join(out)


class BigTable(Table):
    """A table of 70,000 to 140,000 rows made on the server from
    generate_series: outer sides longer than a batch (65,536 rows by
    default) and than the key filter's sample.  Its rows are expressions of
    the row number, so the minimiser shrinks only its row count."""

    def __init__(self, name, n, domain, heavy_every):
        Table.__init__(self, name, None, dict(n=n, domain=domain, heavy_every=heavy_every), [])
        self.n = n
        d = domain
        v = '((g * 7) %% %d)' % d
        self.exprs = {
            'id': 'g',
            'k': 'CASE WHEN g %% 97 = 0 THEN NULL WHEN g %% %d = 0 THEN 0 ELSE (g * 7919) %% %d END'
                 % (heavy_every, d),
            'x': 'CASE WHEN g % 11 = 0 THEN NULL ELSE g % 10 END',
            'i2': '((g * 13) %% %d)::int2' % min(d, 32767),
            'i4': 'CASE WHEN g %% 1009 = 0 THEN 2147483647 ELSE (g * 31) %% %d END' % d,
            'i8': '((g * 17) %% %d)::int8 + CASE WHEN g %% 13 = 0 THEN 4294967296 ELSE 0 END' % d,
            'd': "date '2000-01-01' + (g * 3) %% %d" % d,
            'ts': "timestamp '2000-01-01' + ((g * 5) %% %d) * interval '1 hour'" % d,
            'tz': "timestamptz '2000-01-01 00:00:00+00' + ((g * 5) %% %d) * interval '1 hour'" % d,
            'b': 'g % 3 = 0',
            'o': '((g * 11) %% %d)::oid' % d,
            'tx': "CASE WHEN g %% 89 = 0 THEN NULL ELSE 'k' || %s END" % v,
            'vc': "('k' || %s)::varchar(12)" % v,
            'ch': "('k' || %s)::char(5)" % v,
            'nu': 'round(%s::numeric, g %% 3)' % v,
            'f4': '(%s + CASE WHEN g %% 2 = 0 THEN 0.5 ELSE 0 END)::float4' % v,
            'f8': '(%s + CASE WHEN g %% 2 = 0 THEN 0.5 ELSE 0 END)::float8' % v,
            'u': "('00000000-0000-0000-0000-' || lpad(to_hex(%s), 12, '0'))::uuid" % v,
            'iv': "%s * interval '1 day'" % v,
            'ar': 'ARRAY[%s]' % v,
            'j': "jsonb_build_object('a', %s)" % v,
        }

    @property
    def size(self):
        return self.n

    def sql(self, cols=None, rows=None):
        cols = cols or self.cols
        n = self.n if rows is None else rows
        return '\n'.join([
            'CREATE TABLE %s (%s);' % (self.name, ', '.join('%s %s' % (c, COLTYPE[c]) for c in cols)),
            'INSERT INTO %s SELECT %s FROM generate_series(1, %d) g;' % (
                self.name, ', '.join(self.exprs[c] for c in cols), n),
            'ANALYZE %s;' % self.name])


SMALL = [0, 1, 2, 5, 12, 30, 60]
MEDIUM = [40, 100, 250, 500]
LARGE = [600, 1200, 2500]


def gen_table(rng, name, n):
    # at most ~20 rows a key on average: duplicates multiply through joins
    domain = rng.choice([d for d in (3, 10, 40, 200, 1000, 3000) if d * 20 >= n])
    # skew multiplies through a join tree: heavy only on small tables
    if n >= 600:
        skew = rng.choice([0.0, 0.02, 0.05])
    elif n > 60:
        skew = rng.choice([0.0, 0.0, 0.05, 0.1])
    else:
        skew = rng.choice([0.0, 0.0, 0.2, 0.5])
    nullp = rng.choice([0.0, 0.03, 0.1, 0.3])
    extremep = rng.choice([0.0, 0.02, 0.1, 0.25])
    heavy = rng.choice([0, 1, rng.randrange(domain)])
    info = dict(n=n, domain=domain, skew=skew, nulls=nullp, extremes=extremep, heavy=heavy)
    rows = []
    for i in range(1, n + 1):
        row = [str(i)]
        for col, _ in COLUMNS[1:]:
            if col == 'x':
                row.append('NULL' if rng.random() < 0.1 else str(rng.randrange(10)))
                continue
            r = rng.random()
            if r < nullp:
                row.append('NULL')
            elif r < nullp + extremep:
                row.append(rng.choice(EXTREMES[col]))
            elif r < nullp + extremep + skew:
                row.append(_lit(col, heavy, rng))
            else:
                row.append(_lit(col, rng.randrange(domain), rng))
        rows.append(tuple(row))
    indexes = [c for c in ('k', 'i4', 'id', 'tx') if rng.random() < 0.15]
    return Table(name, rows, info, indexes)


def gen_schema(seed):
    """The tables of one seed: t1..t5, one small (often empty or tiny),
    the others of mixed sizes."""
    rng = random.Random('gpuhash-fuzz-schema:%s' % seed)
    sizes = [rng.choice(SMALL), rng.choice(SMALL + MEDIUM), rng.choice(MEDIUM),
             rng.choice(MEDIUM + LARGE), rng.choice(LARGE)]
    rng.shuffle(sizes)
    tables = [gen_table(rng, 't%d' % (i + 1), n) for i, n in enumerate(sizes)]
    # a big table in a third of the seeds (drawn apart: t1..t5 stay as they were)
    big = random.Random('gpuhash-fuzz-big:%s' % seed)
    if big.random() < 0.33:
        tables.append(BigTable('t6', big.choice([70000, 100000, 140000]),
                               big.choice([500, 5000, 50000]), big.choice([20, 50, 1000])))
    return tables


# a case-insensitive collation: keys compared under it must stay PostgreSQL's
ICU_COLLATION = ("CREATE COLLATION fz_ci (provider = icu, locale = 'und-u-ks-level2', "
                 "deterministic = false);")
