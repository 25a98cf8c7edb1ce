"""Minimiser of the gpuhash differential fuzzer.

Given a unit whose two sides differ, it shrinks, while the same kind of
difference (wrong rows, different error, crash) persists:
  1. the stress and forcing settings of the "on" side, one at a time;
  2. the way the query runs (prepared / cursor / CTAS / INSERT -> plain);
  3. the query tree (conjuncts, output columns, joins, outer -> inner, ...);
  4. the rows of every table it reads (delta debugging: chunks, then halves
     of chunks, down to single rows);
  5. the columns nobody references;
and prints a self-contained repro script.  Every trial runs in a schema of
its own that the minimiser creates and drops.
"""

import random
import re
import time

from querygen import reductions, walk, P
from runner import unique_schema, side_script
from schema import ICU_COLLATION, BigTable

ROWS_SHARE = 0.8
FORCE_ALL = [('gpuhash.setup_cost', '0'), ('gpuhash.min_gain', '0'), ('enable_hashjoin', 'off'), ('enable_mergejoin', 'off'),
             ('enable_nestloop', 'off')]
PARALLEL_NAMES = {'parallel_setup_cost', 'parallel_tuple_cost', 'min_parallel_table_scan_size',
                  'min_parallel_index_scan_size', 'max_parallel_workers_per_gather',
                  'force_parallel_mode'}


def category(outcome):
    if outcome is None or 'incomplete' in outcome.detail or 'crash' in outcome.detail:
        return 'crash'
    if 'SQLSTATE' in outcome.detail:
        return 'error'
    if 'still holds' in outcome.detail:
        return 'leak'
    return 'rows'


def nrows(rows):
    return rows if isinstance(rows, int) else len(rows)


def words(text):
    return set(re.findall(r'[A-Za-z_][A-Za-z0-9_]*', text))


class Minimizer:
    def __init__(self, runner, tables, unit, outcome, budget=400, time_limit=600, log=print):
        self.runner = runner
        self.tables = {t.name: t for t in tables}
        # rows of a table; a big table's row count
        self.rows = {t.name: (t.n if isinstance(t, BigTable) else list(t.rows)) for t in tables}
        self.cols = {t.name: list(t.cols) for t in tables}
        self.unit = unit
        self.kind = category(outcome)
        self.outcome = outcome
        self.budget = budget
        self.deadline = time.time() + time_limit
        self.trials = 0
        self.schema = unique_schema('fzmin')
        self.created = None
        self.log = log

    # ---- trials
    def text(self, unit):
        return '\n'.join(s for s, _ in unit.statements() + unit.explain())

    def used_tables(self, unit):
        w = words(self.text(unit))
        return [n for n in sorted(self.tables) if n in w]

    def setup_sql(self, unit, rows, cols):
        out = [ICU_COLLATION] if 'fz_ci' in words(self.text(unit)) else []
        for n in self.used_tables(unit):
            out.append(self.tables[n].sql(cols=cols[n], rows=rows[n]))
        return '\n'.join(out)

    def exhausted(self, share=1.0):
        return self.trials >= self.budget * share or time.time() > self.deadline

    def fails(self, unit, rows=None, cols=None):
        """Does the unit still differ the same way?"""
        if self.exhausted():
            return False
        self.trials += 1
        rows = rows or self.rows
        cols = cols or self.cols
        setup = self.setup_sql(unit, rows, cols)
        if setup != self.created:
            try:
                self.runner.sql('DROP SCHEMA IF EXISTS %s CASCADE; CREATE SCHEMA %s;\nSET search_path = %s;\n%s'
                                % (self.schema, self.schema, self.schema, setup))
            except RuntimeError as e:
                self.log('  minimise: setup failed: %s' % str(e)[:300])
                self.created = None
                self.runner.wait_server()
                return False
            self.created = setup
        outs, _ = self.runner.run_batch(self.schema, [unit])
        o = outs[0]
        if o is None:
            self.runner.wait_server()
            ok = self.kind == 'crash'
        else:
            ok = o.status == 'fail' and category(o) == self.kind
        if ok and o is not None:
            self.outcome = o
        return ok

    # ---- steps
    def try_unit(self, unit, what):
        if self.fails(unit):
            self.unit = unit
            self.log('  minimise: %s (trial %d)' % (what, self.trials))
            return True
        return False

    def reduce_settings(self):
        on = self.unit.on_settings
        if any(k in PARALLEL_NAMES for k, _ in on):
            self.try_unit(self.unit.copy(on_settings=[s for s in on if s[0] not in PARALLEL_NAMES]),
                          'parallel settings dropped')
        i = 0
        while i < len(self.unit.on_settings) and not self.exhausted():
            s = self.unit.on_settings
            if not self.try_unit(self.unit.copy(on_settings=s[:i] + s[i + 1:]), 'setting %s dropped' % (s[i],)):
                i += 1

    def reduce_wrapper(self):
        u = self.unit
        if u.wrapper == 'plain':
            return
        for e in range(u.nexec):
            v = u.copy(wrapper='plain', nexec=1, common=[c for c in u.common if c[0] != 'plan_cache_mode'])
            for p in walk(v.query):
                if isinstance(p, P):
                    p.values = [p.values[e]]
            if self.try_unit(v, 'run as a plain query (values of execution %d)' % e):
                return
        if u.wrapper == 'prepared' and u.nexec > 1:
            for e in range(u.nexec):
                v = u.copy(nexec=1)
                for p in walk(v.query):
                    if isinstance(p, P):
                        p.values = [p.values[e]]
                if self.try_unit(v, 'one EXECUTE (values of execution %d)' % e):
                    return
        if u.wrapper in ('cursor', 'scroll'):
            if u.wrapper == 'scroll' and self.try_unit(u.copy(wrapper='cursor'), 'no SCROLL'):
                u = self.unit
            if u.fetch:
                self.try_unit(u.copy(fetch=[]), 'FETCH ALL only')

    def reduce_tree(self):
        changed = True
        while changed and not self.exhausted():
            changed = False
            cur = self.unit.query.sql()
            for desc, f in reductions(self.unit.query):
                if self.exhausted():
                    break
                try:
                    q = f()
                except Exception:       # noqa: BLE001 (a reduction that does not apply)
                    continue
                if q.sql() == cur:
                    continue
                if self.try_unit(self.unit.copy(query=q), desc):
                    changed = True
                    break

    def thin_rows(self):
        """Random subsets of every table at once: the tables keep their
        relative sizes, so the planner tends to keep the failing plan (a
        table shrunk alone often turns the join around)."""
        rng = random.Random(self.unit.uid)
        for frac in (0.5, 0.5, 0.5, 0.5, 0.3, 0.3, 0.2, 0.1):
            for _ in range(6):
                names = [n for n in self.used_tables(self.unit)
                         if isinstance(self.rows[n], list) and len(self.rows[n]) > 2]
                if not names or self.exhausted(ROWS_SHARE / 2):
                    return
                cand = dict(self.rows)
                for n in names:
                    rows = self.rows[n]
                    keep = sorted(rng.sample(range(len(rows)), max(1, int(len(rows) * (1 - frac)))))
                    cand[n] = [rows[i] for i in keep]
                if self.fails(self.unit, rows=cand):
                    self.rows = cand
                    self.log('  minimise: every table thinned by %d%%: %s (trial %d)' % (
                        100 * frac, ', '.join('%s %d' % (n, len(cand[n])) for n in names), self.trials))
                    break

    def reduce_rows(self):
        """ddmin over every table's rows, again until no table shrinks; at
        most 80% of the trials, the rest is for the steps after."""
        self.thin_rows()
        while not self.exhausted(ROWS_SHARE):
            before = sum(nrows(r) for r in self.rows.values())
            self.reduce_rows_once()
            if sum(nrows(r) for r in self.rows.values()) == before:
                return

    def reduce_rows_once(self):
        # smallest first: the hashed side is usually the smaller one, and a
        # probe side shrunk below it turns the join around
        for name in sorted(self.used_tables(self.unit), key=lambda n: nrows(self.rows[n])):
            rows = self.rows[name]
            if not isinstance(rows, list):
                # a big table: halve its row count while the difference stays
                while rows > 1 and not self.exhausted(ROWS_SHARE) and \
                        self.fails(self.unit, rows=dict(self.rows, **{name: rows // 2})):
                    rows //= 2
                    self.rows[name] = rows
                self.log('  minimise: %s down to %d rows (trial %d)' % (name, rows, self.trials))
                continue
            if not rows:
                continue
            if self.fails(self.unit, rows=dict(self.rows, **{name: []})):
                self.rows[name] = []
                self.log('  minimise: %s emptied (trial %d)' % (name, self.trials))
                continue
            n = 2
            while len(rows) >= 2 and not self.exhausted(ROWS_SHARE):
                chunk = (len(rows) + n - 1) // n
                reduced = False
                # ddmin: a chunk alone, then all but a chunk
                for i in range(0, len(rows), chunk):
                    if n <= 2 or self.exhausted(ROWS_SHARE):
                        break
                    cand = rows[i:i + chunk]
                    if self.fails(self.unit, rows=dict(self.rows, **{name: cand})):
                        rows = cand
                        self.rows[name] = rows
                        n = 2
                        reduced = True
                        break
                for i in range(0, len(rows), chunk):
                    if reduced or self.exhausted(ROWS_SHARE):
                        break
                    cand = rows[:i] + rows[i + chunk:]
                    if self.fails(self.unit, rows=dict(self.rows, **{name: cand})):
                        rows = cand
                        self.rows[name] = rows
                        n = max(n - 1, 2)
                        reduced = True
                if not reduced:
                    if n >= len(rows):
                        break
                    n = min(len(rows), n * 2)
            self.log('  minimise: %s down to %d rows (trial %d)' % (name, len(rows), self.trials))

    def reduce_cols(self):
        w = words(self.text(self.unit))
        cols = {n: [c for c in cs if c in w] or cs[:1] for n, cs in self.cols.items()}
        if cols != self.cols and self.fails(self.unit, cols=cols):
            self.cols = cols
            self.log('  minimise: unused columns dropped (trial %d)' % self.trials)
        # a column another alias's reference kept: one at a time
        for n in self.used_tables(self.unit):
            for c in list(self.cols[n]):
                if len(self.cols[n]) > 1 and not self.exhausted():
                    cand = dict(self.cols, **{n: [x for x in self.cols[n] if x != c]})
                    if self.fails(self.unit, cols=cand):
                        self.cols = cand

    def run(self):
        t0 = time.time()
        if not self.fails(self.unit) and not self.fails(self.unit):
            self.log('  minimise: %s does not differ when run again alone; not minimised' % self.unit.uid)
            return False
        self.reduce_settings()
        self.reduce_wrapper()
        self.reduce_tree()
        # fewer rows make other plans cheaper: keep them out while shrinking
        on = self.unit.on_settings
        names = {k for k, _ in on}
        extra = [s for s in FORCE_ALL if s[0] not in names]
        if extra:
            self.try_unit(self.unit.copy(on_settings=on + extra), 'every other join kept out for now')
        self.reduce_rows()
        self.reduce_tree()
        self.reduce_settings()
        self.reduce_cols()
        self.log('  minimise: %d trials, %.1f s' % (self.trials, time.time() - t0))
        try:
            self.runner.sql('DROP SCHEMA IF EXISTS %s CASCADE;' % self.schema)
        except RuntimeError:
            pass
        return True

    # ---- output
    def repro(self):
        """The self-contained script: tables, then each side's settings and
        statements (EXPLAIN first on the forced-on side)."""
        u = self.unit
        out = ['-- gpuhash fuzz repro: seed %s, query %s (minimised; %s)' % (
            u.uid.split(':')[0], u.uid.split(':')[1], self.kind),
            '-- run: psql -X -f THIS_FILE (gpuhash loaded); the two results should be equal',
            '-- observed:']
        out += ['--   ' + line for line in self.outcome.detail.splitlines()]
        out.append('SET client_min_messages = warning;')
        for n in self.used_tables(u):
            out.append('DROP TABLE IF EXISTS %s;' % n)
        if 'fz_ci' in words(self.text(u)):
            out.append('DROP COLLATION IF EXISTS fz_ci;')
        out.append(self.setup_sql(u, self.rows, self.cols))
        out.append('SET extra_float_digits = 3;')
        for side in ('off', 'on'):
            out.append('-- GPU join %s' % side)
            for line in side_script(u, side, leak_check=self.kind == 'leak').splitlines():
                if line.startswith('\\') or line.startswith('RESET') or line in (
                        'ROLLBACK;', 'DROP TABLE IF EXISTS fzt;', 'DEALLOCATE ALL;'):
                    continue
                out.append(line)
            names = [k for k, _ in u.common] + (['enable_gpuhashjoin'] if side == 'off' else
                                                [k for k, _ in u.on_settings])
            out += ['RESET %s;' % k for k in dict.fromkeys(names)]
        return '\n'.join(out) + '\n'

