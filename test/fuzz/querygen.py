"""Query generator of the gpuhash differential fuzzer.

A query is a small tree of nodes (T: text, S: sequence, L: list, P: a
parameter of a prepared statement) that renders to SQL.  The tree is what the
minimiser shrinks: it removes items of lists (a WHERE or ON conjunct, an output
column, a GROUP BY key, a CTE) and replaces nodes by their simpler
alternatives (a join by one of its sides, an outer join by an inner one); the
aliases a removal leaves undefined take the conjuncts that use them along.

A Unit is one fuzz case: the query, how it runs (plain, PREPARE/EXECUTE with a
generic plan, a cursor fetched in chunks, a SCROLL cursor rewound and read
backwards, CREATE TABLE AS, INSERT ... SELECT), and the settings of the
"GPU join forced on" side (forcing and stress settings).
"""

import copy
import random

from schema import COLCLASS, _lit

INTS = ('int2', 'int4', 'int8')
TEXTS = ('text', 'varchar', 'bpchar')
EXACT = set(INTS) | {'date', 'timestamp', 'timestamptz', 'bool', 'oid'}
# types whose equal values may print differently (1.0 and 1.00, -0 and 0):
# never the output of GROUP BY, DISTINCT, min/max or an ORDER BY ... LIMIT
UNSAFE_PRINT = {'numeric', 'float4', 'float8', 'interval', 'jsonb', 'int4[]'}


# ----------------------------------------------------------------------
# the tree

class Ctx:
    def __init__(self, inline=True, execno=0):
        self.inline = inline        # parameters as literals (plain query)
        self.execno = execno        # which EXECUTE's values, when inline


class Node:
    def kids(self):
        return []

    def refs(self):
        r = set()
        for k in self.kids():
            r |= k.refs()
        return r

    def defs(self):
        r = set()
        for k in self.kids():
            r |= k.defs()
        return r

    def params(self):
        r = []
        for k in self.kids():
            r += k.params()
        return r

    def sql(self, ctx=None):
        return self.render(ctx or Ctx())


class T(Node):
    """Text, with the aliases it references and the ones it defines."""

    def __init__(self, text, refs=(), defs=()):
        self.text = text
        self._refs = set(refs)
        self._defs = set(defs)

    def refs(self):
        return set(self._refs)

    def defs(self):
        return set(self._defs)

    def render(self, ctx):
        return self.text


class S(Node):
    """A sequence of text and nodes; alts are simpler replacements."""

    def __init__(self, *parts, alts=(), defs=(), refs=()):
        self.parts = list(parts)
        self.alts = list(alts)
        self._defs = set(defs)
        self._refs = set(refs)

    def kids(self):
        return [p for p in self.parts if isinstance(p, Node)]

    def refs(self):
        return Node.refs(self) | self._refs

    def defs(self):
        return Node.defs(self) | self._defs

    def render(self, ctx):
        return ''.join(p if isinstance(p, str) else p.render(ctx) for p in self.parts)


class L(Node):
    """A list of items, at least `min` of them; rendered as
    pre + items joined by sep + post, or `empty` when there are none."""

    def __init__(self, items, sep=', ', min=0, pre='', post='', empty=''):
        self.items = list(items)
        self.sep = sep
        self.min = min
        self.pre = pre
        self.post = post
        self.empty = empty

    def kids(self):
        return list(self.items)

    def render(self, ctx):
        if not self.items:
            return self.empty
        return self.pre + self.sep.join(i.render(ctx) for i in self.items) + self.post


class P(Node):
    """Parameter $n of a prepared statement (int4), one value per EXECUTE."""

    def __init__(self, n, values):
        self.n = n
        self.values = list(values)

    def params(self):
        return [self]

    def render(self, ctx):
        if ctx.inline:
            return '%d' % self.values[ctx.execno]
        return '$%d' % self.n


def walk(node, out=None):
    """Rendered nodes in preorder (alternatives are not walked)."""
    if out is None:
        out = []
    out.append(node)
    for k in node.kids():
        walk(k, out)
    return out


def prune_dead(root, dead):
    """Drops the list items that reference an alias no longer defined."""
    changed = True
    while changed:
        changed = False
        for n in walk(root):
            if isinstance(n, L):
                keep = [i for i in n.items if not (i.refs() & dead)]
                if len(keep) < len(n.items) and len(keep) >= n.min:
                    n.items = keep
                    changed = True


def reductions(root):
    """Candidate reductions of the tree, as (description, function making a
    reduced copy).  Bigger steps first: node replacements, then list items."""
    nodes = walk(root)
    out = []
    for pos, n in enumerate(nodes):
        if isinstance(n, S):
            for j in range(len(n.alts)):
                out.append(('replace node %d by alternative %d' % (pos, j),
                            lambda pos=pos, j=j: _apply_alt(root, pos, j)))
    for pos, n in enumerate(nodes):
        if isinstance(n, L) and len(n.items) > n.min:
            for i in range(len(n.items)):
                out.append(('drop item %d of list %d' % (i, pos),
                            lambda pos=pos, i=i: _apply_drop(root, pos, i)))
    return out


def _replace(root, old, new):
    if root is old:
        return new
    for n in walk(root):
        if isinstance(n, S):
            n.parts = [new if p is old else p for p in n.parts]
        elif isinstance(n, L):
            n.items = [new if p is old else p for p in n.items]
    return root


def _apply_alt(root, pos, j):
    r = copy.deepcopy(root)
    n = walk(r)[pos]
    new = n.alts[j]
    dead = n.defs() - new.defs()
    r = _replace(r, n, new)
    if dead:
        prune_dead(r, dead)
    return r


def _apply_drop(root, pos, i):
    r = copy.deepcopy(root)
    n = walk(r)[pos]
    gone = n.items.pop(i)
    dead = gone.defs()
    if dead:
        prune_dead(r, dead)
    return r


# ----------------------------------------------------------------------
# relations the generator joins

class Col:
    def __init__(self, name, cls, origin):
        self.name = name        # as referenced: alias.name
        self.cls = cls          # type class
        self.origin = origin    # base column it comes from (weights, arithmetic)


class Rel:
    def __init__(self, alias, cols, size, base=False):
        self.alias = alias
        self.cols = cols
        self.size = size
        self.base = base        # a table: has system columns

    def col(self, origin):
        for c in self.cols:
            if c.origin == origin:
                return c
        return None


KEYW = {'k': 6, 'i4': 3, 'i2': 2, 'i8': 3, 'd': 2, 'ts': 2, 'tz': 1, 'o': 1, 'tx': 3, 'vc': 1,
        'ch': 2, 'nu': 2, 'f4': 1, 'f8': 2, 'u': 2, 'id': 1, 'b': 0.3, 'x': 0.3,
        'iv': 1, 'ar': 1, 'j': 1}


def is_true(node):
    return isinstance(node, T) and node.text == 'true'


def eq_ok(a, b):
    if a in INTS and b in INTS:
        return True
    if a in TEXTS and b in TEXTS:
        return True
    if a == b:
        return True
    s = {a, b}
    if s == {'float4', 'float8'}:
        return True
    if 'numeric' in s and (s - {'numeric'}) <= set(INTS):
        return True
    if s == {'oid', 'int4'}:
        return True
    return False


def is_exact_pair(a, b):
    if a in INTS and b in INTS:
        return True
    return a == b and a in EXACT


# ----------------------------------------------------------------------
# the generator

class QueryGen:
    def __init__(self, tables, rng, opts):
        self.tables = tables
        self.rng = rng
        self.opts = opts                    # dict: correlated_keys (bool)
        self.nalias = 0
        self.params = []                    # P nodes, when the query is prepared
        self.use_params = False
        self.nexec = 1
        self.features = set()
        self.key_mode = 'any'
        self.ctes = []                      # (name, Rel) available as leaves
        self.want_cte = False               # the next leaf reads a CTE

    def alias(self, p='a'):
        self.nalias += 1
        return '%s%d' % (p, self.nalias)

    def chance(self, p):
        return self.rng.random() < p

    def param(self, lo, hi):
        n = len(self.params) + 1
        p = P(n, [self.rng.randint(lo, hi) for _ in range(self.nexec)])
        self.params.append(p)
        self.features.add('param')
        return p

    def const(self, lo, hi):
        """A constant, or a parameter in a prepared query."""
        if self.use_params and self.chance(0.5):
            return self.param(lo, hi)
        return T(str(self.rng.randint(lo, hi)))

    # ---- leaves
    def base_rel(self, small=False):
        cands = [t for t in self.tables if t.size <= 3000]
        if len(cands) < len(self.tables) and self.chance(0.12):
            # the big table, now and then
            cands = [t for t in self.tables if t.size > 3000]
        if small:
            cands = [t for t in self.tables if t.size <= 120] or \
                sorted(self.tables, key=lambda t: t.size)[:1]
        t = self.rng.choice(cands)
        a = self.alias('a')
        rel = Rel(a, [Col(c, COLCLASS[c], c) for c in t.cols], t.size, base=True)
        if t.size == 0:
            self.features.add('empty')
        return T('%s %s' % (t.name, a), defs={a}), rel

    def leaf(self, depth, outer):
        r = self.rng.random()
        if self.ctes and (r < 0.25 or self.want_cte):
            self.want_cte = False
            name, crel = self.rng.choice(self.ctes)
            a = self.alias('w')
            rel = Rel(a, crel.cols, crel.size)
            return T('%s %s' % (name, a), refs={name}, defs={a}), rel
        if depth < 2 and r < 0.35:
            return self.derived(depth + 1, outer)
        return self.base_rel()

    # ---- keys and clauses
    def key_pair(self, lrel, rrel, mode=None, relaxed=False):
        mode = mode or self.key_mode
        small = relaxed or (lrel.size <= 300 and rrel.size <= 300)
        cands = []
        for lc in lrel.cols:
            for rc in rrel.cols:
                if not eq_ok(lc.cls, rc.cls):
                    continue
                exact = is_exact_pair(lc.cls, rc.cls)
                if mode == 'exact' and not exact:
                    continue
                if mode == 'fp' and exact:
                    continue
                w = KEYW.get(lc.origin, 1) * KEYW.get(rc.origin, 1)
                if not small and ('b' in (lc.origin, rc.origin) or 'x' in (lc.origin, rc.origin)):
                    continue
                if lc.origin == rc.origin:
                    w *= 3
                elif 'numeric' in (lc.cls, rc.cls) and lc.cls != rc.cls:
                    w *= 0.3
                cands.append((w, lc, rc))
        if not cands:
            return None
        tot = sum(w for w, _, _ in cands)
        r = self.rng.random() * tot
        for w, lc, rc in cands:
            r -= w
            if r <= 0:
                return lc, rc
        return cands[-1][1], cands[-1][2]

    def key_side(self, rel, col, outer):
        """alias.col, sometimes an expression of it; refs."""
        e = '%s.%s' % (rel.alias, col.name)
        refs = {rel.alias}
        r = self.rng.random()
        if col.origin == 'k' and col.cls == 'int4':
            if outer and self.opts.get('correlated_keys', True) and r < 0.5:
                o = self.rng.choice(outer)
                oc = o.col('x') or o.col('k')
                if oc is not None and oc.cls in INTS:
                    self.features.add('corr_key')
                    return S('(%s + %s.%s)' % (e, o.alias, oc.name), refs=refs | {o.alias})
            if self.use_params and r < 0.5:
                self.features.add('param_key')
                return S('(%s + ' % e, self.param(-2, 2), ')', refs=refs)
            if r < 0.6:
                self.features.add('expr_key')
                return T(self.rng.choice(['(%s + 1)', '(%s * 2)', 'coalesce(%s, 0)', '(%s - 1)']) % e, refs)
        if col.origin in ('tx', 'vc') and r < 0.12:
            self.features.add('expr_key')
            return T(self.rng.choice(['lower(%s)', '(%s || \'\')', 'rtrim(%s)']) % e, refs)
        if col.cls == 'text' and self.opts.get('icu') and self.chance(0.05):
            # a non-deterministic collation: the key must stay PostgreSQL's
            self.features.add('nondeterministic_collation')
            return T('(%s COLLATE fz_ci)' % e, refs)
        return T(e, refs)

    def key_conj(self, lrel, rrel, outer=(), mode=None, relaxed=False):
        p = self.key_pair(lrel, rrel, mode, relaxed)
        if p is None:
            return None
        lc, rc = p
        self.features.add('exact' if is_exact_pair(lc.cls, rc.cls) else 'fp')
        if lc.cls != rc.cls:
            self.features.add('crosstype')
        ls = self.key_side(lrel, lc, outer)
        rs = self.key_side(rrel, rc, outer)
        if self.chance(0.5):
            ls, rs = rs, ls
        return S(ls, ' = ', rs)

    def keys(self, lrel, rrel, outer=()):
        n = self.rng.choice([1, 1, 1, 2, 2, 3])
        if n > 1:
            self.features.add('multikey')
        out = []
        for _ in range(n):
            c = self.key_conj(lrel, rrel, outer)
            if c is not None:
                out.append(c)
        if not out:
            c = self.key_conj(lrel, rrel, outer, mode='any', relaxed=True)
            if c is not None:
                out.append(c)
        return out

    def extra_conj(self, lrel, rrel):
        la, ra = lrel.alias, rrel.alias
        self.features.add('extra_clause')
        opts = []
        lx, rx = lrel.col('x'), rrel.col('x')
        lid, rid = lrel.col('id'), rrel.col('id')
        lt, rt = lrel.col('tx'), rrel.col('tx')
        lk = lrel.col('k')
        if lx and rx:
            opts += ['%s.%s < %s.%s' % (la, lx.name, ra, rx.name),
                     '%s.%s <> %s.%s' % (la, lx.name, ra, rx.name),
                     '%s.%s + %s.%s > 5' % (la, lx.name, ra, rx.name)]
        if lid and rid:
            opts.append('(%s.%s + %s.%s) %% 3 = 0' % (la, lid.name, ra, rid.name))
        if lt and rt:
            opts.append('%s.%s < %s.%s' % (la, lt.name, ra, rt.name))
        if lk and rx:
            opts.append('%s.%s IS DISTINCT FROM %s.%s' % (la, lk.name, ra, rx.name))
        if lx and rx and lk:
            opts.append('(%s.%s = %s.%s OR %s.%s IS NULL)' % (la, lx.name, ra, rx.name, la, lk.name))
        if not opts:
            c = self.one_side_filter(rrel)
            if isinstance(c, T) and c.text == 'true':
                c = self.one_side_filter(lrel)
            return c
        return T(self.rng.choice(opts), {la, ra})

    def one_side_filter(self, rel):
        a = rel.alias
        c = {x.origin: x for x in rel.cols}
        opts = []
        if 'x' in c:
            n = c['x'].name
            opts += [('%s.%s IS NULL' % (a, n), None), ('coalesce(%s.%s, 0) < ' % (a, n), (0, 9)),
                     ('%s.%s > ' % (a, n), (0, 9)), ('%s.%s <> ' % (a, n), (0, 9))]
        if 'id' in c:
            n = c['id'].name
            opts += [('(%s.%s IS NULL OR %s.%s %% 2 = 0)' % (a, n, a, n), None),
                     ('%s.%s %% 4 <> 0' % (a, n), None)]
        if 'k' in c:
            n = c['k'].name
            opts += [('%s.%s IS NOT NULL' % (a, n), None), ('%s.%s < ' % (a, n), (0, 50))]
        if 'b' in c:
            opts.append(('%s.%s' % (a, c['b'].name), None))
        if 'tx' in c:
            opts.append(("%s.%s LIKE 'k1%%'" % (a, c['tx'].name), None))
        if 'nu' in c:
            opts.append(('%s.%s > 1' % (a, c['nu'].name), None))
        if 'i8' in c:
            opts.append(('%s.%s > 0' % (a, c['i8'].name), None))
        opts += self.typed_filters(a, c)
        if not opts:
            return T('true')
        text, rng_ = self.rng.choice(opts)
        if rng_ is None:
            return T(text, {a})
        return S(text, self.const(*rng_), refs={a})

    def typed_filters(self, a, c):
        """Scan filters an absorbed scan evaluates in place (scan_filter.c):
        integer, date and timestamp comparisons (date against timestamp
        too), string equality and IN lists, with NULL elements."""
        lit = lambda col: _lit(col, self.rng.randint(0, 300), self.rng)
        col = lambda o: '%s.%s' % (a, c[o].name)
        opts = []
        if 'd' in c:
            opts += [('%s >= %s' % (col('d'), lit('d')), None),
                     ("%s < date %s + interval '20 days'" % (col('d'), lit('d')), None),
                     ('%s IN (%s, %s, NULL)' % (col('d'), lit('d'), lit('d')), None),
                     ("%s BETWEEN %s AND %s" % (col('d'), lit('d'), lit('d')), None)]
        if 'ts' in c:
            opts += [('%s > date %s' % (col('ts'), lit('d')), None),
                     ('%s <= %s' % (col('ts'), lit('ts')), None)]
        if 'ts' in c and 'd' in c:
            opts.append(('%s > %s' % (col('ts'), col('d')), None))
        if 'tz' in c:
            opts.append(('%s >= %s' % (col('tz'), lit('tz')), None))
        if 'i2' in c:
            opts += [('%s < %s' % (col('i2'), lit('i2')), None),
                     ('%s IN (0, %s, -32768, 32767)' % (col('i2'), lit('i2')), None)]
        if 'i2' in c and 'k' in c:
            opts.append(('%s <= %s' % (col('i2'), col('k')), None))
        if 'i4' in c:
            opts.append(('%s <> 2147483647' % col('i4'), None))
        for o in ('tx', 'vc', 'ch'):
            if o in c:
                opts += [('%s = %s' % (col(o), lit(o)), None),
                         ('%s IN (%s, %s, NULL)' % (col(o), lit(o), lit(o)), None),
                         ('%s <> %s' % (col(o), lit(o)), None)]
        return opts

    def corr_filter(self, rel, outer):
        """A clause of this level that references an outer level (not a key)."""
        o = self.rng.choice(outer)
        ox, rx = o.col('x'), rel.col('x')
        ok, rk = o.col('k'), rel.col('k')
        self.features.add('correlated')
        opts = []
        if ox and rx:
            opts += ['%s.%s = %s.%s' % (rel.alias, rx.name, o.alias, ox.name),
                     '%s.%s <= %s.%s' % (rel.alias, rx.name, o.alias, ox.name)]
        if ok and rk:
            opts += ['%s.%s > %s.%s' % (rel.alias, rk.name, o.alias, ok.name)]
        if ox:
            opts.append('%s.%s IS NOT NULL' % (o.alias, ox.name))
        if not opts:
            return T('true')
        return T(self.rng.choice(opts), {rel.alias, o.alias})

    # ---- join trees
    def join_tree(self, nrels, depth=0, outer=(), allow_outer=True, allow_nonequi=True):
        """(node, rels): nrels relations joined left-deep, sometimes bushy."""
        node, rel = self.leaf(depth, outer)
        rels = [rel]
        left = node
        while len(rels) < nrels:
            if nrels - len(rels) >= 2 and self.chance(0.2):
                rnode, rrels = self.join_tree(2, depth, outer, allow_outer, False)
                rnode = S('(', rnode, ')')
                self.features.add('bushy')
            else:
                rnode, rrel = self.leaf(depth, outer)
                rrels = [rrel]
            kind = 'JOIN'
            if allow_outer:
                kind = self.rng.choice(['JOIN', 'JOIN', 'LEFT JOIN', 'LEFT JOIN', 'RIGHT JOIN', 'FULL JOIN'])
            self.features.add({'JOIN': 'inner', 'LEFT JOIN': 'left', 'RIGHT JOIN': 'right',
                               'FULL JOIN': 'full'}[kind])
            lrel = self.rng.choice(rels)
            rrel = self.rng.choice(rrels)
            conj = []
            if allow_nonequi and len(rrels) > 1 and kind != 'FULL JOIN' and self.chance(0.3):
                # a join without keys above a GPU join: a nested loop that rescans it
                self.features.add('nestloop_over')
                conj.append(self.extra_conj(lrel, rrel))
            else:
                conj += self.keys(lrel, rrel, outer)
                for lr in rels:
                    if conj:
                        break
                    for rr in rrels:
                        # another pair of the two sides may share a key type
                        if self.key_pair(lr, rr, 'any', True):
                            lrel, rrel = lr, rr
                            conj += self.keys(lrel, rrel, outer)
                            break
                if not conj and len(rrels) == 1:
                    # no key type in common: a base table instead
                    rnode, rrel = self.base_rel()
                    rrels = [rrel]
                    conj += self.keys(lrel, rrel, outer)
                if not conj:
                    # nothing to hash on: a nested loop
                    conj.append(self.extra_conj(lrel, rrel))
                    if kind == 'FULL JOIN':
                        kind = 'LEFT JOIN'
                if self.chance(0.3):
                    conj.append(self.extra_conj(lrel, rrel))
                if self.chance(0.15):
                    conj.append(self.one_side_filter(self.rng.choice([lrel, rrel])))
                if outer and self.chance(0.3):
                    conj.append(self.corr_filter(rrel, outer))
            conj = [c for c in conj if not is_true(c)][:1] if all(is_true(c) for c in conj) else \
                [c for c in conj if not is_true(c)]
            on = L(conj or [T('true')], ' AND ', min=1)
            if kind == 'JOIN':
                alts = [left, rnode]
            else:
                alts = [left, rnode, S(left, ' JOIN ', rnode, ' ON ', on)]
            left = S(left, ' %s ' % kind, rnode, ' ON ', on, alts=alts)
            rels += rrels
        return left, rels

    def derived(self, depth, outer):
        """(SELECT ... ) alias: a filtered, grouped, DISTINCT or joined subquery."""
        self.features.add('derived')
        n = self.rng.choice([1, 1, 2])
        node, rels = self.join_tree(n, depth, outer, allow_outer=self.chance(0.5))
        a = self.alias('s')
        kind = self.rng.choice(['plain', 'group', 'distinct', 'offset'])
        cols = []
        items = []
        pick = self.pick_cols(rels, self.rng.randint(1, 4), safe=kind in ('group', 'distinct'),
                              keyable=True)
        if not pick:
            # only values that print differently when equal: no GROUP BY, DISTINCT
            kind = 'offset'
            pick = self.pick_cols(rels, self.rng.randint(1, 4), keyable=True)
        for i, (r, c) in enumerate(pick):
            name = 'o%d' % (i + 1)
            items.append(T('%s.%s AS %s' % (r.alias, c.name, name), {r.alias}))
            cols.append(Col(name, c.cls, c.origin))
        where = L([c for c in (self.one_side_filter(self.rng.choice(rels))
                               for _ in range(self.rng.choice([0, 0, 1]))) if not is_true(c)],
                  ' AND ', pre=' WHERE ')
        if kind == 'group':
            gb = [T(i.text.split(' AS ')[0], i.refs()) for i in items]
            items.append(T('count(*) AS cnt'))
            cols.append(Col('cnt', 'int8', 'cnt'))
            body = S('SELECT ', L(items, min=1), ' FROM ', node, where, ' GROUP BY ', L(gb, min=1))
        elif kind == 'distinct':
            body = S('SELECT DISTINCT ', L(items, min=1), ' FROM ', node, where)
        elif kind == 'offset':
            body = S('SELECT ', L(items, min=1), ' FROM ', node, where, ' OFFSET 0')
        else:
            body = S('SELECT ', L(items, min=1), ' FROM ', node, where)
        size = max(r.size for r in rels)
        return S('(', body, ') ', a, defs={a}), Rel(a, cols, size)

    def pick_cols(self, rels, n, safe=False, keyable=False):
        out = []
        if n == 0:
            return out
        if keyable:
            r = self.rng.choice(rels)
            cs = [c for c in r.cols if c.origin in (
                ('k', 'k', 'i4', 'i8', 'i2') if self.chance(0.7) else ('tx', 'd', 'ch', 'u', 'nu', 'f8'))
                and not (safe and c.cls in UNSAFE_PRINT)]
            if cs:
                out.append((r, self.rng.choice(cs)))
                n -= 1
        for _ in range(n):
            r = self.rng.choice(rels)
            cs = [c for c in r.cols if not (safe and c.cls in UNSAFE_PRINT)]
            if not cs:
                continue
            # prefer key-ish columns
            c = self.rng.choice(cs if self.chance(0.5) else
                                [c for c in cs if c.origin in ('id', 'k', 'x')] or cs)
            if (r, c) not in out:
                out.append((r, c))
        if not out:
            for r in rels:
                cs = [c for c in r.cols if not (safe and c.cls in UNSAFE_PRINT)]
                if cs:
                    out.append((r, cs[0]))
                    break
        return out

    # ---- sublinks
    def sublink_conj(self, rels, outer_small):
        """EXISTS / NOT EXISTS / IN / NOT IN over a subquery with its own join."""
        kind = self.rng.choice(['EXISTS', 'EXISTS', 'NOT EXISTS', 'NOT EXISTS', 'IN', 'NOT IN'])
        n = self.rng.choice([1, 1, 2])
        node, srels = self.join_tree(n, 1, rels, allow_outer=self.chance(0.3))
        orel = self.rng.choice(rels)
        srel = self.rng.choice(srels)
        self.features.add({'EXISTS': 'semi', 'NOT EXISTS': 'anti', 'IN': 'semi_in',
                           'NOT IN': 'not_in'}[kind])
        if n > 1:
            self.features.add('sublink_join')
        where = []
        if kind in ('EXISTS', 'NOT EXISTS'):
            where += self.keys(orel, srel) if self.chance(0.9) else []
            body_items = T('1')
        else:
            p = self.key_pair(orel, srel)
            if p is None:
                return None
            oc, sc = p
            ncols = 2 if self.chance(0.2) else 1
            ocols, scols = ['%s.%s' % (orel.alias, oc.name)], ['%s.%s' % (srel.alias, sc.name)]
            if ncols == 2:
                p2 = self.key_pair(orel, srel)
                if p2:
                    ocols.append('%s.%s' % (orel.alias, p2[0].name))
                    scols.append('%s.%s' % (srel.alias, p2[1].name))
            body_items = T(', '.join(scols), {srel.alias})
            lhs = ocols[0] if len(ocols) == 1 else '(' + ', '.join(ocols) + ')'
        if self.chance(0.3):
            where.append(self.extra_conj(orel, srel) if kind in ('EXISTS', 'NOT EXISTS')
                         else self.one_side_filter(srel))
        if self.chance(0.3):
            where.append(self.one_side_filter(srel))
        where = [c for c in where if not is_true(c)]
        body = S('SELECT ', body_items, ' FROM ', node, L(where, ' AND ', pre=' WHERE '))
        if kind in ('EXISTS', 'NOT EXISTS'):
            c = S(kind, ' (', body, ')')
        else:
            c = S(lhs, ' %s (' % kind, body, ')', refs={orel.alias})
        if self.chance(0.15) and outer_small:
            # under an OR it stays a SubPlan, rescanned per outer row
            self.features.add('sublink_or')
            c = S('(', self.one_side_filter(orel), ' OR ', c, ')')
        return c

    def scalar_item(self, rels, name):
        """(SELECT agg FROM a JOIN b ... correlated) AS name"""
        self.features.add('scalar_sub')
        node, srels = self.join_tree(self.rng.choice([2, 2, 1]), 1, rels,
                                     allow_outer=self.chance(0.3))
        where = []
        if self.chance(0.6):
            where.append(self.corr_filter(self.rng.choice(srels), rels))
        if len(srels) == 1:
            where += self.keys(rels[0], srels[0], [])
        r = self.rng.choice(srels)
        aggs = ['count(*)']
        for fn, origin in (('count', 'id'), ('sum', 'x'), ('max', 'k'), ('count', 'tx')):
            c = r.col(origin)
            if c is not None:
                aggs.append('%s(%s.%s)' % (fn, r.alias, c.name))
        agg = self.rng.choice(aggs)
        where = L(where, ' AND ', pre=' WHERE ')
        kind = self.rng.random()
        if kind < 0.2:
            # EXISTS as a value: the join stops at its first row, then rescans
            self.features.add('exists_item')
            body = S('SELECT 1 FROM ', node, where)
            return S('EXISTS (', body, ') AS %s' % name)
        safe = [(rr, c) for rr in srels for c in rr.cols if c.cls not in UNSAFE_PRINT]
        if kind < 0.4 and safe:
            # the first row in a total order: stopped early, then rescanned
            self.features.add('limit_sub')
            rr, c = self.rng.choice(safe)
            e = '%s.%s' % (rr.alias, c.name)
            body = S('SELECT ', T(e, {rr.alias}), ' FROM ', node, where,
                     ' ORDER BY 1 NULLS FIRST LIMIT 1')
            return S('(', body, ') AS %s' % name)
        body = S('SELECT ', T(agg, {r.alias}), ' FROM ', node, where)
        return S('(', body, ') AS %s' % name)

    def lateral_item(self, rels):
        """, LATERAL (SELECT ... FROM a JOIN b ... correlated) l"""
        self.features.add('lateral')
        node, srels = self.join_tree(self.rng.choice([2, 2, 1]), 1, rels,
                                     allow_outer=self.chance(0.3))
        where = []
        if self.chance(0.7) or len(srels) == 1:
            where.append(self.corr_filter(self.rng.choice(srels), rels))
        a = self.alias('l')
        cols = []
        if self.chance(0.4):
            items = [T('count(*) AS o1')]
            cols.append(Col('o1', 'int8', 'cnt'))
            r = self.rng.choice(srels)
            if r.col('k'):
                items.append(T('max(%s.%s) AS o2' % (r.alias, r.col('k').name), {r.alias}))
                cols.append(Col('o2', 'int4', 'k'))
        else:
            items = []
            for i, (r, c) in enumerate(self.pick_cols(srels, self.rng.randint(1, 3), keyable=True)):
                items.append(T('%s.%s AS o%d' % (r.alias, c.name, i + 1), {r.alias}))
                cols.append(Col('o%d' % (i + 1), c.cls, c.origin))
        tail = ''
        if len(items) > 1 or 'count(*)' not in items[0].text:
            if all(c.cls not in UNSAFE_PRINT for c in cols) and self.chance(0.3):
                # a few rows in a total order: the join is stopped early, then rescanned
                self.features.add('limit_sub')
                tail = ' ORDER BY %s LIMIT %d' % (', '.join('%d NULLS FIRST' % (i + 1) for i in range(len(items))),
                                                 self.rng.choice([1, 2, 5]))
        body = S('SELECT ', L(items, min=1), ' FROM ', node, L(where, ' AND ', pre=' WHERE '), tail)
        if self.chance(0.3):
            join = S(' LEFT JOIN LATERAL (', body, ') ', a, ' ON true', defs={a})
        else:
            join = S(', LATERAL (', body, ') ', a, defs={a})
        return join, Rel(a, cols, 10)

    def cte(self):
        name = 'cte%d' % (len(self.ctes) + 1)
        self.features.add('cte')
        node, rels = self.join_tree(self.rng.choice([1, 2, 2]), 1, (), allow_outer=self.chance(0.4))
        cols = []
        items = []
        for i, (r, c) in enumerate(self.pick_cols(rels, self.rng.randint(2, 4), keyable=True)):
            items.append(T('%s.%s AS o%d' % (r.alias, c.name, i + 1), {r.alias}))
            cols.append(Col('o%d' % (i + 1), c.cls, c.origin))
        mat = self.rng.choice(['', 'MATERIALIZED ', 'NOT MATERIALIZED '])
        node = S('%s AS %s(' % (name, mat), 'SELECT ', L(items, min=1), ' FROM ', node, ')',
                 defs={name})
        self.ctes.append((name, Rel(name, cols, max(r.size for r in rels))))
        return node

    def recursive_cte(self):
        """WITH RECURSIVE: the recursive term joins the work table (its
        rows change at every step) with a table, a few steps deep."""
        name = 'rcte%d' % (len(self.ctes) + 1)
        self.features.add('recursive_cte')
        bnode, brel = self.base_rel(small=self.chance(0.5))
        start = self.rng.choice([3, 10, 40])
        base = S('SELECT %s.k, %s.x, 0 FROM ' % (brel.alias, brel.alias), bnode,
                 ' WHERE %s.id <= %d' % (brel.alias, start), refs={brel.alias})
        w = self.alias('r')
        wrel = Rel(w, [Col('o1', 'int4', 'k'), Col('o2', 'int4', 'x'), Col('depth', 'int4', 'id')], start)
        rnode, rrel = self.base_rel()
        key = self.rng.choice(['%s.k = %s.o1 + 1', '%s.k = %s.o1', '%s.i4 = %s.o1', '%s.i8 = %s.o1 * 2',
                               '%s.x = %s.o2'])
        conj = [T(key % (rrel.alias, w), {rrel.alias, w})]
        if self.chance(0.3):
            conj.append(self.extra_conj(wrel, rrel))
        depth = self.rng.choice([1, 2, 3])
        union = self.rng.choice([' UNION ALL ', ' UNION '])
        rec = S('SELECT %s.k, %s.x, %s.depth + 1 FROM %s %s JOIN ' % (rrel.alias, rrel.alias, w, name, w),
                rnode, ' ON ', L(conj, ' AND ', min=1), ' WHERE %s.depth < %d' % (w, depth),
                refs={rrel.alias, w})
        node = S('%s(o1, o2, depth) AS (' % name, base, union, rec, ')', defs={name})
        self.ctes.append((name, Rel(name, wrel.cols, start * 10)))
        return node

    def union_query(self):
        """Two joins under UNION ALL (a Parallel Append of GPU joins, with
        the parallel settings) or UNION."""
        self.features.add('union')
        template = self.rng.choice([['k'], ['k', 'id'], ['tx', 'x'], ['i8', 'd'], ['id']])
        branches = []
        for _ in range(self.rng.choice([2, 2, 2, 3])):
            node, rels = self.join_tree(self.rng.choice([1, 2, 2]))
            items = []
            for i, origin in enumerate(template):
                have = [r for r in rels if r.col(origin)]
                if have:
                    r = self.rng.choice(have)
                    items.append(T('%s.%s AS u%d' % (r.alias, r.col(origin).name, i + 1), {r.alias}))
                else:
                    items.append(T('NULL::%s AS u%d' % (COLCLASS[origin], i + 1)))
            where = []
            if self.chance(0.4):
                c = self.one_side_filter(self.rng.choice(rels))
                if not is_true(c):
                    where.append(c)
            branches.append(S('SELECT ', L(items, min=1), ' FROM ', node,
                              L(where, ' AND ', pre=' WHERE ')))
        op = ' UNION ALL ' if self.chance(0.8) else ' UNION '
        return L(branches, op, min=1)

    def expr_item(self, rels, n):
        """An output column the join's projection computes: an expression
        over both sides, a whole row, a system column."""
        rng = self.rng
        r1, r2 = rng.choice(rels), rng.choice(rels)
        opts = []
        k1, k2 = r1.col('k'), r2.col('k')
        if k1 and k2:
            opts.append(('(%s.%s + %s.%s)' % (r1.alias, k1.name, r2.alias, k2.name), 'expr_output'))
        t1, t2 = r1.col('tx'), r2.col('tx')
        if t1 and t2:
            opts.append(('coalesce(%s.%s, %s.%s)' % (r2.alias, t2.name, r1.alias, t1.name), 'expr_output'))
        opts.append(('%s::text' % r1.alias, 'whole_row'))
        opts.append(('(%s IS NULL)' % r1.alias, 'whole_row'))
        if r1.base:
            opts.append(('%s.ctid' % r1.alias, 'system_column'))
            opts.append(('%s.tableoid::regclass' % r1.alias, 'system_column'))
        e, feat = rng.choice(opts)
        self.features.add(feat)
        return T('%s AS e%d' % (e, n), {r1.alias, r2.alias} if e.count('.') > 1 else {r1.alias})

    # ---- the query
    def query(self):
        """The top-level SELECT (a node) and whether its output prints exactly."""
        rng = self.rng
        self.key_mode = rng.choice(['any', 'any', 'exact', 'fp'])
        shape = rng.choice(['join', 'join', 'join', 'semi', 'scalar', 'lateral', 'cte', 'cte',
                            'rescan', 'union'])
        self.features.add('shape_' + shape)
        if shape == 'union':
            return self.union_query()
        with_ = []
        recursive = False
        if shape == 'cte':
            if self.chance(0.3):
                with_.append(self.recursive_cte())
                recursive = True
            else:
                with_.append(self.cte())
            if self.chance(0.3):
                with_.append(self.cte())
            self.want_cte = True
        where = []
        lateral = None
        if shape in ('scalar', 'lateral'):
            # a small outer side: the subquery runs (and its joins rescan) per row
            node, rel = self.base_rel(small=True)
            rels = [rel]
            if self.chance(0.3):
                node2, rel2 = self.base_rel(small=True)
                k = self.keys(rel, rel2)
                node = S(node, ' JOIN ', node2, ' ON ', L(k, ' AND ', min=1), alts=[node])
                rels.append(rel2)
            where.append(S('%s.id <= ' % rel.alias, T(str(rng.choice([5, 20, 40]))), refs={rel.alias}))
            if shape == 'lateral':
                lateral, lrel = self.lateral_item(rels)
                rels = rels + [lrel]
        elif shape == 'rescan':
            # a nested loop without keys over a GPU join: the join is rescanned
            # per outer row (enable_material off), or its output materialised
            node, rel = self.base_rel(small=True)
            rnode, rrels = self.join_tree(2, 1, (), allow_outer=self.chance(0.4), allow_nonequi=False)
            kind = rng.choice(['JOIN', 'LEFT JOIN'])
            self.features.add('nestloop_over')
            on = L([self.extra_conj(rel, rng.choice(rrels))], ' AND ', min=1)
            node = S(node, ' %s (' % kind, rnode, ') ON ', on, alts=[node])
            rels = [rel] + rrels
            where.append(S('%s.id <= ' % rel.alias, T(str(rng.choice([3, 10, 30]))), refs={rel.alias}))
        else:
            n = rng.choice([1, 2, 2, 2, 3, 3, 4]) if shape != 'semi' else rng.choice([1, 1, 2])
            if shape == 'join' and n == 1:
                n = 2
            node, rels = self.join_tree(n)
        small = all(r.size <= 120 for r in rels)
        if shape == 'semi' or self.chance(0.15):
            c = self.sublink_conj(rels, small or shape in ('scalar', 'lateral'))
            if c is not None:
                where.append(c)
        for _ in range(rng.choice([0, 0, 1, 1, 2])):
            c = self.one_side_filter(rng.choice(rels))
            if not is_true(c):
                where.append(c)

        items = []
        exact_print = True
        agg = shape != 'scalar' and self.chance(0.3)
        group = []
        if agg:
            self.features.add('agg')
            for i, (r, c) in enumerate(self.pick_cols(rels, rng.choice([0, 1, 1, 2]), safe=True)):
                e = '%s.%s' % (r.alias, c.name)
                group.append(T(e, {r.alias}))
                items.append(T('%s AS g%d' % (e, i + 1), {r.alias}))
            for i in range(rng.randint(1, 3)):
                r = rng.choice(rels)
                c = {x.origin: x for x in r.cols}
                opts = ['count(*)']
                if 'id' in c:
                    opts.append('count(%s.%s)' % (r.alias, c['id'].name))
                if 'x' in c:
                    opts += ['sum(%s.%s)' % (r.alias, c['x'].name), 'avg(%s.%s)' % (r.alias, c['x'].name)]
                if 'k' in c:
                    opts += ['min(%s.%s)' % (r.alias, c['k'].name),
                             'count(DISTINCT %s.%s)' % (r.alias, c['k'].name)]
                if 'tx' in c:
                    opts.append('max(%s.%s)' % (r.alias, c['tx'].name))
                if 'i8' in c:
                    opts.append('sum(%s.%s)' % (r.alias, c['i8'].name))
                items.append(T('%s AS a%d' % (rng.choice(opts), i + 1), {r.alias}))
        else:
            for i, (r, c) in enumerate(self.pick_cols(rels, rng.randint(1, 4))):
                items.append(T('%s.%s AS c%d' % (r.alias, c.name, i + 1), {r.alias}))
                if c.cls in UNSAFE_PRINT:
                    exact_print = False
            if self.chance(0.3):
                e = self.expr_item(rels, len(items) + 1)
                if e is not None:
                    items.append(e)
                    if '::text AS' in e.text or 'IS NULL) AS' in e.text:
                        # a row with -0 or 1.00 in it: no ORDER BY ... LIMIT over it
                        exact_print = False
        if shape == 'scalar':
            for i in range(rng.choice([1, 1, 2])):
                items.append(self.scalar_item(rels, 'q%d' % (i + 1)))
        parts = []
        if with_:
            parts += [L(with_, ', ', min=0, pre='WITH RECURSIVE ' if recursive else 'WITH ', post=' ')]
        parts += ['SELECT ', L(items, min=1), ' FROM ', node]
        if lateral is not None:
            parts.append(L([lateral]))
        parts.append(L(where, ' AND ', pre=' WHERE '))
        if group:
            parts.append(L(group, ', ', pre=' GROUP BY '))
            if self.chance(0.2):
                parts.append(L([T('count(*) > 1')], pre=' HAVING '))
        if not agg and exact_print and self.chance(0.1):
            self.features.add('limit')
            parts.append(T(' ORDER BY %s LIMIT %d' % (
                ', '.join(str(i + 1) for i in range(len(items))), rng.choice([1, 5, 50]))))
        elif not agg and self.chance(0.07):
            # how many of the first n rows: min(n, all), whichever rows come
            # first; the join is stopped early (mid-batch, in the service)
            self.features.add('limit_count')
            n = rng.choice([1, 3, 20, 100])
            return S('SELECT count(*) AS n FROM (', S(*parts), ' LIMIT %d) fz_limited' % n,
                     alts=[S(*parts)])
        return S(*parts)


# ----------------------------------------------------------------------
# units: a query, how it runs, with which settings

FORCE = [('gpuhash.setup_cost', '0'), ('gpuhash.build_row_cost', '0'),
         ('gpuhash.min_gain', '0')]
PARALLEL = [('parallel_setup_cost', '0'), ('parallel_tuple_cost', '0'),
            ('min_parallel_table_scan_size', '0'), ('min_parallel_index_scan_size', '0'),
            ('max_parallel_workers_per_gather', '2')]


class Unit:
    def __init__(self, uid, query, wrapper, nexec, fetch, on_settings, common, features):
        self.uid = uid
        self.query = query              # Node
        self.wrapper = wrapper          # plain prepared cursor scroll ctas insert
        self.nexec = nexec
        self.fetch = fetch              # FETCH chunk sizes
        self.on_settings = on_settings  # [(name, value)] of the forced-on side
        self.common = common            # [(name, value)] of both sides
        self.features = features

    def copy(self, **kw):
        u = copy.copy(self)
        u.query = copy.deepcopy(self.query)
        u.on_settings = list(self.on_settings)
        u.common = list(self.common)
        for k, v in kw.items():
            setattr(u, k, v)
        return u

    def qsql(self, execno=0):
        return self.query.sql(Ctx(inline=self.wrapper != 'prepared', execno=execno))

    def inline_sql(self):
        """The query with the parameters' first values in place."""
        return self.query.sql(Ctx(inline=True, execno=0))

    def statements(self):
        """[(sql, group)]: group names the multiset a statement's rows go to;
        None for statements whose rows are not compared (setup)."""
        q = self.qsql()
        w = self.wrapper
        if w == 'plain':
            return [(q, 'r')]
        if w == 'prepared':
            ps = self.query.params()
            n = max([p.n for p in ps], default=0)
            vals = {p.n: p.values for p in ps}
            out = [('PREPARE fzp%s AS %s' % ('(' + ', '.join(['int4'] * n) + ')' if n else '', q), None)]
            for e in range(self.nexec):
                args = ', '.join(str(vals[i][e]) if i in vals else '0' for i in range(1, n + 1))
                out.append(('EXECUTE fzp%s' % ('(%s)' % args if n else ''), 'e%d' % e))
            out.append(('DEALLOCATE fzp', None))
            return out
        if w in ('cursor', 'scroll'):
            out = [('BEGIN', None),
                   ('DECLARE fzc %sCURSOR FOR %s' % ('SCROLL ' if w == 'scroll' else '', q), None)]
            for n in self.fetch:
                out.append(('FETCH %d FROM fzc' % n, 'f'))
            out.append(('FETCH ALL FROM fzc', 'f'))
            if w == 'scroll':
                out += [('FETCH BACKWARD ALL FROM fzc', 'b'),
                        ('MOVE ABSOLUTE 0 IN fzc', None),
                        ('FETCH ALL FROM fzc', 'g'),
                        ('MOVE ABSOLUTE 0 IN fzc', None)]
                for n in self.fetch:
                    out.append(('FETCH %d FROM fzc' % n, 'h'))
                out.append(('FETCH ALL FROM fzc', 'h'))
            out.append(('COMMIT', None))
            return out
        if w == 'ctas':
            return [('CREATE TEMP TABLE fzt AS %s' % q, None), ('SELECT * FROM fzt', 'r'),
                    ('DROP TABLE fzt', None)]
        if w == 'insert':
            return [('CREATE TEMP TABLE fzt AS %s WITH NO DATA' % q, None),
                    ('INSERT INTO fzt %s' % q, None), ('SELECT * FROM fzt', 'r'),
                    ('DROP TABLE fzt', None)]
        raise ValueError(w)

    def explain(self):
        """The EXPLAIN run on the forced-on side before the statements."""
        if self.wrapper == 'prepared':
            st = self.statements()
            return [st[0], ('EXPLAIN (COSTS OFF) ' + st[1][0], 'X'), ('DEALLOCATE fzp', None)]
        if self.wrapper == 'insert':
            return [('CREATE TEMP TABLE fzt AS %s WITH NO DATA' % self.qsql(), None),
                    ('EXPLAIN (COSTS OFF) INSERT INTO fzt %s' % self.qsql(), 'X'),
                    ('DROP TABLE fzt', None)]
        return [('EXPLAIN (COSTS OFF) ' + self.qsql(), 'X')]

    def cleanup(self):
        return {'cursor': ['ROLLBACK'], 'scroll': ['ROLLBACK'], 'prepared': ['DEALLOCATE ALL'],
                'ctas': ['DROP TABLE IF EXISTS fzt'], 'insert': ['DROP TABLE IF EXISTS fzt']}.get(self.wrapper, [])


def stress_settings(rng):
    s = []
    r = rng.random()
    if r < 0.3:
        s.append(('gpuhash.batch_rows', '1'))
    elif r < 0.6:
        s.append(('gpuhash.batch_rows', '7'))
    elif r < 0.7:
        s.append(('gpuhash.batch_rows', str(rng.choice([2, 64, 1000]))))
    r = rng.random()
    if r < 0.25:
        s.append(('gpuhash.fingerprint_bits', '1'))
    elif r < 0.5:
        s.append(('gpuhash.fingerprint_bits', '4'))
    # every scheme of the core, and auto's choice among them (the default)
    s.append(('gpuhash.scheme', rng.choice(['gph', 'fks', 'linear', 'cuckoo', 'hashgraph',
                                            'dycuckoo', 'auto'])))
    if rng.random() < 0.5:
        s.append(('gpuhash.outer_filter', 'off'))
    if rng.random() < 0.15:
        s.append(('gpuhash.load_factor', rng.choice(['0.05', '0.9'])))
    if rng.random() < 0.15:
        # tables in the backend instead of the GPU service (no parallel GPU joins then)
        s.append(('gpuhash.use_service', 'off'))
    if rng.random() < 0.08:
        # the join's expressions compiled (where the server has JIT)
        s += [('jit', 'on'), ('jit_above_cost', '0')]
    if rng.random() < 0.25:
        s += PARALLEL
        if rng.random() < 0.5:
            s.append(('force_parallel_mode', 'on'))
        if rng.random() < 0.4:
            # little memory: a parallel join whose inner side outgrows it splits
            s += [('work_mem', '64kB'), ('hash_mem_multiplier', '1')]
    if rng.random() < 0.25:
        # semi and anti joins only built on their preserved side (right_paths.c)
        s.append(('gpuhash.right_semi_anti', 'only'))
    return s


def gen_unit(tables, seed, index, opts):
    rng = random.Random('gpuhash-fuzz-query:%s:%s' % (seed, index))
    g = QueryGen(tables, rng, opts)
    r = rng.random()
    wrapper = 'plain'
    if r < 0.2:
        wrapper = 'prepared'
    elif r < 0.3:
        wrapper = 'cursor'
    elif r < 0.4:
        wrapper = 'scroll'
    elif r < 0.45:
        wrapper = 'ctas'
    elif r < 0.5:
        wrapper = 'insert'
    if wrapper == 'prepared':
        g.use_params = True
        g.nexec = rng.choice([2, 3])
    q = g.query()
    if wrapper == 'prepared' and not g.params:
        g.nexec = 1
    on = list(FORCE)
    if rng.random() < 0.85:
        on.append(('enable_hashjoin', 'off'))
    if rng.random() < 0.85:
        on.append(('enable_mergejoin', 'off'))
    if rng.random() < 0.3:
        on.append(('enable_nestloop', 'off'))
    if rng.random() < (0.6 if 'shape_rescan' in g.features else 0.2):
        on.append(('enable_material', 'off'))
    on += stress_settings(rng)
    # one fingerprint bit makes every probe of a big table a quadratic recheck
    big = max([t.size for t in tables if t.name in q.sql().split()] + [0])
    if big > 300 and ('gpuhash.fingerprint_bits', '1') in on:
        on[on.index(('gpuhash.fingerprint_bits', '1'))] = ('gpuhash.fingerprint_bits', '4')
    if big > 3000:
        # 100,000 rows: no quadratic rechecks, no probe per row
        on = [('gpuhash.fingerprint_bits', '16') if s == ('gpuhash.fingerprint_bits', '4') else
              ('gpuhash.batch_rows', '64') if s == ('gpuhash.batch_rows', '1') else s for s in on]
        g.features.add('big_table')
    common = []
    if wrapper == 'prepared':
        common.append(('plan_cache_mode', 'force_generic_plan'))
    feats = set(g.features) | {'wrap_' + wrapper}
    fetch = [rng.choice([1, 3, 7, 50]) for _ in range(rng.randint(1, 3))]
    return Unit('%s:%s' % (seed, index), q, wrapper, g.nexec, fetch, on, common, feats)
