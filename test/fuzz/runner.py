"""Runs fuzz units through psql and compares the two sides.

Many units go to one psql process as one script.  Each statement is framed
by markers that psql prints itself (\\echo), so rows, SQLSTATE and error
message of every statement come back in order on stdout:

    @@U <uid> off|on        a side of a unit begins
    @@S <n> <group>         a statement begins; its rows follow
    @@E <sqlstate>          it ended (00000: success)
    @@M <message>           its error message, when it failed
    @@D <uid>               the unit is complete

A unit whose output stops early (the server crashed, the connection was
lost) is run again on its own once the server is back.
"""

import collections
import os
import subprocess
import tempfile
import threading
import time

SEP = '\x1f'
NULL = '<NULL>'
MARK = '@@'


class Stmt:
    def __init__(self, n, group):
        self.n = n
        self.group = None if group == '-' else group
        self.state = None
        self.msg = ''
        self.rows = []


class Outcome:
    """The comparison of one unit: status is 'pass', 'fail' or 'skip' (a
    statement timed out, or the result was too big to compare)."""

    def __init__(self, unit, status, detail='', gpu=None, plan=None, error=None):
        self.unit = unit
        self.error = error          # first error of the off side, both sides failing alike
        self.status = status
        self.detail = detail
        self.gpu = gpu              # the forced-on plan has a GpuHashJoin (None: unknown)
        self.plan = plan or []


def sql_set(name, value):
    return "SET %s = '%s';" % (name, value.replace("'", "''"))


def stmt_block(n, sql, group):
    return '\n'.join([
        '\\echo %sS %d %s' % (MARK, n, group or '-'),
        sql + ';',
        '\\echo %sE :SQLSTATE' % MARK,
        '\\if :ERROR',
        '\\echo %sM :LAST_ERROR_MESSAGE' % MARK,
        '\\endif'])


LEAK_NONE = '0 tables, 0 MB staging'
# What the GPU service still holds, polled for up to 5 s: a cancelled
# request's staging slot comes back once the service has finished it.
LEAK_FUNC = """CREATE FUNCTION pg_temp.fz_held() RETURNS text LANGUAGE plpgsql AS $fz$
DECLARE r text;
BEGIN
  FOR i IN 1..50 LOOP
    SELECT tables_alive || ' tables, ' || staging_in_use_mb || ' MB staging' INTO r
      FROM gpuhash_info() LIMIT 1;
    EXIT WHEN r = '%s';
    PERFORM pg_sleep(0.1);
  END LOOP;
  RETURN r;
END $fz$;""" % LEAK_NONE
LEAK_SQL = 'SELECT pg_temp.fz_held()'


def side_script(unit, side, leak_check=False):
    out = ['\\echo %sU %s %s' % (MARK, unit.uid, side)]
    names = []
    settings = list(unit.common)
    if side == 'off':
        settings.append(('enable_gpuhashjoin', 'off'))
    else:
        settings += [('enable_gpuhashjoin', 'on')] + list(unit.on_settings)
    for k, v in settings:
        out.append(sql_set(k, v))
        names.append(k)
    n = 0
    if side == 'on':
        for sql, group in unit.explain():
            out.append(stmt_block(n, sql, group if group == 'X' else 'x'))
            n += 1
    for sql, group in unit.statements():
        out.append(stmt_block(n, sql, group))
        n += 1
    out += [s + ';' for s in unit.cleanup()]
    if leak_check and side == 'on':
        # the query is over: the GPU service holds nothing for it any more
        out.append(stmt_block(n, LEAK_SQL, 'L'))
    out += ['RESET %s;' % k for k in dict.fromkeys(names)]
    return '\n'.join(out)


MAX_ROWS = 200000


def unit_script(unit, timeout_s, max_rows=MAX_ROWS, leak_check=False):
    """Both sides of a unit.  First the query's row count, GPU join off, on
    the server: a result too big to compare (skew multiplied through a join
    tree) skips the unit instead of filling psql's memory; so does a count
    that times out.  A count that fails otherwise lets the two sides run
    and their errors be compared.  The count has a third of the time."""
    guard_timeout = max(1, timeout_s // 3)
    guard = ['\\set fz_big true',
             "SET statement_timeout = '%ds';" % guard_timeout,
             'SET enable_gpuhashjoin = off;'] + ['%s' % sql_set(k, v) for k, v in unit.common] + [
             'SELECT count(*) > %d AS fz_big FROM (%s) fz_count \\gset' % (max_rows, unit.inline_sql()),
             '\\if :ERROR',
             "SELECT :'SQLSTATE' = '57014' AS fz_big \\gset",
             '\\endif',
             'RESET enable_gpuhashjoin;'] + ['RESET %s;' % k for k, _ in unit.common] + [
             "SET statement_timeout = '%ds';" % timeout_s,
             '\\if :fz_big',
             '\\echo %sB %s' % (MARK, unit.uid),
             '\\else']
    return '\n'.join(guard + [side_script(unit, 'off'), side_script(unit, 'on', leak_check), '\\endif',
                              '\\echo %sD %s' % (MARK, unit.uid)])


def parse(out):
    """uid -> {'off': [Stmt], 'on': [Stmt], 'done': bool}"""
    res = collections.OrderedDict()
    cur = None
    stmt = None
    for line in out.split('\n'):
        if line.startswith(MARK):
            tag, _, rest = line[2:].partition(' ')
            if tag == 'U':
                uid, side = rest.split(' ')
                cur = res.setdefault(uid, {'off': [], 'on': [], 'done': False})[side]
                stmt = None
                continue
            if tag == 'S':
                n, group = rest.split(' ')
                stmt = Stmt(int(n), group)
                continue
            if tag == 'E' and stmt is not None:
                stmt.state = rest.strip()
                cur.append(stmt)
                continue
            if tag == 'M' and cur:
                cur[-1].msg = rest
                continue
            if tag == 'D':
                res.setdefault(rest.strip(), {'off': [], 'on': [], 'done': False})['done'] = True
                continue
            if tag == 'B':
                res.setdefault(rest.strip(), {'off': [], 'on': [], 'done': False})['big'] = True
                continue
        if stmt is not None and stmt.state is None:
            stmt.rows.append(line)
    return res


def _show_rows(rows, limit=8):
    rows = sorted(rows)
    s = ['      ' + r.replace(SEP, ' | ') for r in rows[:limit]]
    if len(rows) > limit:
        s.append('      ... %d more' % (len(rows) - limit))
    return s


def plan_features(plan):
    """What the forced-on plan did with its GPU joins, for the coverage
    summary: join types, fingerprint keys, parallel-aware, inside a SubPlan
    or InitPlan (rescanned with new parameters), below a Nested Loop or a
    Gather that is itself below one (rescanned)."""
    feats = set()
    stack = []                      # (indent, label) of the ancestors
    for line in plan:
        text = line.strip()
        ind = len(line) - len(line.lstrip())
        if text.startswith('->'):
            label = text[2:].strip()
        elif text.startswith(('SubPlan', 'InitPlan')):
            label = text
        elif not stack and text:
            label = text            # the top node
        else:
            if text.startswith('Join Type:') and stack and 'GpuHashJoin' in stack[-1][1]:
                feats.add('plan:gpu_' + text.split(':', 1)[1].strip().lower())
            elif text.startswith('Key Match: fingerprint'):
                feats.add('plan:gpu_fingerprint')
            elif text.startswith('Chain Levels:'):
                feats.add('plan:gpu_chain')
            elif text.startswith(('Outer Filter:', 'Inner Filter:')):
                feats.add('plan:gpu_scan_filter')
            continue
        while stack and stack[-1][0] >= ind:
            stack.pop()
        if 'GpuHashJoin' in label:
            above = [lab for _, lab in stack]
            if label.startswith('Parallel'):
                feats.add('plan:gpu_parallel_aware')
            if any(lab.startswith(('SubPlan', 'InitPlan')) for lab in above):
                feats.add('plan:gpu_in_subplan')
            if any(lab.startswith('Nested Loop') for lab in above):
                feats.add('plan:gpu_under_nestloop')
            if any(lab.startswith(('Gather', 'Parallel Append')) for lab in above):
                feats.add('plan:gpu_in_parallel_plan')
            if any(lab.startswith('Parallel Append') for lab in above):
                feats.add('plan:gpu_under_parallel_append')
            if any(lab.startswith('Recursive Union') for lab in above):
                feats.add('plan:gpu_in_recursive_union')
        stack.append((ind, label))
    return feats


def compare(unit, r):
    """Outcome of one parsed unit."""
    if r.get('big'):
        return Outcome(unit, 'skip', 'more than %d rows, or the count timed out: not compared' % MAX_ROWS)
    on_all = r['on']
    plan = [row for s in on_all if s.group == 'X' for row in s.rows]
    explain = [s for s in on_all if s.group == 'X']
    gpu = None
    if explain and explain[0].state == '00000':
        gpu = any('GpuHashJoin' in row for row in plan)
        unit.features |= plan_features(plan)
    off = [s for s in r['off']]
    on = [s for s in on_all if s.group not in ('X', 'x', 'L')]
    leak = [s for s in on_all if s.group == 'L']
    stmts = unit.statements()
    if not r['done'] or len(off) != len(stmts) or len(on) != len(stmts):
        return Outcome(unit, 'fail', 'incomplete output (server crash or lost connection)', gpu, plan)
    if any(s.state == '57014' for s in off + on):
        return Outcome(unit, 'skip', 'statement_timeout', gpu, plan)
    problems = []
    if leak and leak[0].state == '00000' and leak[0].rows != [LEAK_NONE]:
        problems.append('after the query the GPU service still holds: %s' % ' '.join(leak[0].rows))
    for i, (a, b) in enumerate(zip(off, on)):
        if a.state != b.state:
            problems.append('statement %d (%s): SQLSTATE off %s%s, on %s%s' % (
                i, stmts[i][0][:60], a.state, ' (%s)' % a.msg if a.msg else '',
                b.state, ' (%s)' % b.msg if b.msg else ''))
        elif a.group is not None and len(a.rows) != len(b.rows):
            problems.append('statement %d (%s): %d rows off, %d rows on' % (
                i, stmts[i][0][:60], len(a.rows), len(b.rows)))
    groups = {}
    for side, ss in (('off', off), ('on', on)):
        for s in ss:
            if s.group is not None and s.state == '00000':
                groups.setdefault(s.group, {'off': collections.Counter(), 'on': collections.Counter()})
                groups[s.group][side].update(s.rows)
    for g, sides in sorted(groups.items()):
        if sides['off'] != sides['on']:
            only_off = list((sides['off'] - sides['on']).elements())
            only_on = list((sides['on'] - sides['off']).elements())
            problems.append('result %s differs: %d rows off, %d rows on; %d only off, %d only on' % (
                g, sum(sides['off'].values()), sum(sides['on'].values()), len(only_off), len(only_on)))
            if only_off:
                problems += ['    only with the GPU join off:'] + _show_rows(only_off)
            if only_on:
                problems += ['    only with the GPU join on:'] + _show_rows(only_on)
    if problems:
        return Outcome(unit, 'fail', '\n'.join(problems), gpu, plan)
    err = next(('%s %s' % (s.state, s.msg) for s in off if s.state != '00000'), None)
    return Outcome(unit, 'pass', '', gpu, plan, err)


class Runner:
    def __init__(self, psql='psql', dbname=None, timeout_s=30, load=False, verbose=False):
        self.leak_check = False     # only where no other session runs GPU joins
        self.psql = psql
        self.dbname = dbname
        self.timeout_s = timeout_s
        self.load = load
        self.verbose = verbose
        self.stopping = False       # stop(): no further batch starts
        self.live = set()           # psql processes running now
        self.live_lock = threading.Lock()

    def stop(self):
        """Ends the run (a TERM or ^C): no batch starts after this, and the
        psql processes running now are killed (their backends then end at
        client_connection_check_interval, so the schema can be dropped)."""
        self.stopping = True
        with self.live_lock:
            for p in self.live:
                p.kill()

    def cmd(self, extra=()):
        c = [self.psql, '-X', '-q', '-A', '-t', '-F', SEP, '-P', 'null=' + NULL,
             '-v', 'ON_ERROR_STOP=0']
        if self.dbname:
            c += ['-d', self.dbname]
        return c + list(extra)

    def preamble(self, schema):
        p = ['SET client_min_messages = warning;']
        if self.load:
            p.append("LOAD 'gpuhash';")
        if schema:
            p.append('SET search_path = %s, public;' % schema)
        p += ["SET statement_timeout = '%ds';" % self.timeout_s,
              "SET client_connection_check_interval = '1s';",
              'SET extra_float_digits = 3;']
        if self.leak_check:
            p.append(LEAK_FUNC)
        return '\n'.join(p)

    def run_script(self, script, timeout=None, stoppable=True):
        """(returncode, stdout, stderr) of psql running script (stdin);
        stop() kills it if stoppable."""
        with tempfile.TemporaryFile() as err:
            p = subprocess.Popen(self.cmd(['-f', '-']), stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=err)
            if stoppable:
                with self.live_lock:
                    self.live.add(p)
                    if self.stopping:
                        p.kill()
            try:
                out, _ = p.communicate(script.encode(), timeout=timeout)
                rc = p.returncode
            except subprocess.TimeoutExpired:
                p.kill()
                out, _ = p.communicate()
                rc = 124
            finally:
                with self.live_lock:
                    self.live.discard(p)
            err.seek(0)
            e = err.read()
        return rc, out.decode(errors='replace'), e.decode(errors='replace')

    def sql(self, sql, schema=None):
        """Runs setup SQL; raises on error."""
        script = self.preamble(schema).replace("SET client_min_messages = warning;",
                                               "SET client_min_messages = warning;\n\\set ON_ERROR_STOP 1")
        rc, out, err = self.run_script(script + '\n' + sql + '\n', stoppable=False)
        if rc != 0:
            raise RuntimeError('psql failed (%d): %s' % (rc, err.strip()[-2000:]))
        return out

    def wait_server(self, limit=90):
        t0 = time.time()
        while time.time() - t0 < limit:
            rc, out, _ = self.run_script('SELECT 1;', timeout=20)
            if rc == 0 and out.strip() == '1':
                return True
            time.sleep(1)
        return False

    def run_batch(self, schema, units):
        """Outcomes of units run in one psql process (in order)."""
        script = self.preamble(schema) + '\n' + '\n'.join(
            unit_script(u, self.timeout_s, leak_check=self.leak_check) for u in units) + '\n'
        limit = 120 + len(units) * self.timeout_s * 4
        rc, out, err = self.run_script(script, timeout=limit)
        res = parse(out)
        outcomes = []
        for u in units:
            r = res.get(u.uid)
            if r is None or not r['done']:
                outcomes.append(None)       # not run, or cut off
            else:
                outcomes.append(compare(u, r))
        if None in outcomes and self.verbose:
            print('  psql stopped (rc %d): %s' % (rc, err.strip()[-500:]), flush=True)
        return outcomes, err

    def run_units(self, schema, units, jobs=1, batch=40, on_outcome=None):
        """Outcomes of all units; a unit cut off by a crash is retried alone."""
        batches = [units[i:i + batch] for i in range(0, len(units), batch)]
        results = {}
        lock = threading.Lock()

        def work(todo):
            while todo and not self.stopping:
                outs, err = self.run_batch(schema, todo)
                if self.stopping:
                    return
                rest = []
                for i, (u, o) in enumerate(zip(todo, outs)):
                    if o is None:
                        # cut off: the first one retried alone, the others again
                        if not self.wait_server():
                            raise RuntimeError('the server did not come back')
                        o2, err2 = self.run_batch(schema, [u])
                        o = o2[0]
                        if o is None:
                            o = Outcome(u, 'fail', 'server crash or lost connection '
                                        '(twice, the second time alone)\n    psql: ' +
                                        ' | '.join(err2.strip().splitlines()[-3:]))
                            self.wait_server()
                        rest = todo[i + 1:]
                        with lock:
                            results[u.uid] = o
                            if on_outcome:
                                on_outcome(o)
                        break
                    with lock:
                        results[u.uid] = o
                        if on_outcome:
                            on_outcome(o)
                todo = rest

        if jobs <= 1:
            for b in batches:
                work(b)
        else:
            queue = list(batches)
            qlock = threading.Lock()
            errors = []

            def worker():
                while True:
                    with qlock:
                        if not queue or self.stopping:
                            return
                        b = queue.pop(0)
                    try:
                        work(b)
                    except Exception as e:      # noqa: BLE001
                        errors.append(e)
                        return

            ts = [threading.Thread(target=worker) for _ in range(jobs)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            if errors:
                raise errors[0]
        return [results[u.uid] for u in units]


def unique_schema(prefix):
    return '%s_%d_%d' % (prefix, os.getpid(), int(time.time() * 1000) % 100000)
