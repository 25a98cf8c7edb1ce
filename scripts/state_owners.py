#!/usr/bin/env python3
"""Who owns the parts of GpuJoinState, and who else writes them; call circles
between the files of src/.

  scripts/state_owners.py            counts (assignments to another part's fields, by file
                                     and by part), then the call circles
  scripts/state_owners.py -v         each foreign assignment, file:line

A field belongs to the part of the sub-struct it sits in (gs->inner.vals is
part "inner"); a field still at the top of GpuJoinState to the part that
TOP_LEVEL names.  A part is owned by the files OWNERS names; an assignment
(=, op=, ++, --) to a part's field, or to anything reached through it
(gs->oscan->pending = ...), from a file outside the owners counts as foreign.
The statistics (gs->stats) are counters every step adds to: counted apart.

Call circles: an edge A -> B when .c file A calls a function with external
linkage defined in .c file B; a header's static inline function is its
callers' code (its calls are theirs).  Every strongly connected set of more
than one file is a circle.

Exits 1 when it finds a foreign assignment or a circle (test/run-all.sh runs
it), 0 when there is none.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
SRC = os.path.join(ROOT, 'src')

# part -> the files that own it (may assign its fields)
OWNERS = {
    'setup': ['executor/node_setup.c'],
    'outer': ['executor/node_setup.c', 'scan/heap_scan.c', 'scan/page_scan.c'],
    'inner_src': ['executor/node_setup.c', 'scan/heap_scan.c', 'scan/page_inner.c'],
    'inner': ['inner/inner_store.c', 'inner/inner_store.h', 'inner/shared_inner.c'],
    'kf': ['executor/keyfilter.c', 'executor/keyfilter.h'],
    'table': ['executor/join_table.c', 'executor/join_table.h'],
    'probe': ['executor/probe_pipeline.c', 'executor/probe_internal.h'],
    # the state machine: executor.c, and the start and end of a scan that
    # scan_start.c holds for it and for a chain's levels
    'step': ['executor/executor.c', 'executor/scan_start.c'],
    'batches': ['inner/batch.c'],
    'rows': ['executor/rows.c'],
    'chain': ['executor/chain.c', 'executor/chain_probe.c', 'executor/chain_rows.c',
              'executor/chain_internal.h'],
    'parallel': ['executor/parallel.c', 'executor/parallel_build.c',
                 'executor/parallel_internal.h', 'inner/parallel_split.c'],
    'stats': [],
}

# fields still at the top of GpuJoinState -> their part (with the names the
# key filter's and the batches' fields had before they moved into kf and hb,
# so that an older tree is counted alike)
TOP_LEVEL = {
    'setup': 'css info inner_plan n_outer_cols n_inner_cols outer_keep n_outer_keep inner_keep '
             'n_inner_keep outer_keys inner_keys outer_keys_plain inner_keys_plain qual filter '
             'key_econtext inner_key_params gate forms_no_rows bare_matches fp_mask fill_outer '
             'fill_inner cxt cleanup outer_desc inner_desc ident_keep',
    'outer': 'outer_ps oscan page',
    'inner_src': 'inner_ps iscan ipage',
    'inner': 'inner_cxt inner_vals inner_nulls inner_keys_arr n_inner n_inner_all inner_cap '
             'matched shared_matched nk_vals nk_nulls nk_keys n_nk nk_cap shared_area '
             'shared_rowptrs row_vals row_nulls mem_used null_seq',
    'kf': 'kf kf_on kf_words kf_nwords kf_tested kf_passed',
    'table': 'table device scheme built owns_table table_owner_pid table_version',
    'probe': 'pb pb_head pb_count cb batch_cap prefill n_prefill prefill_head prefill_cxt '
             'outer_done first_outer',
    'step': 'step cur cur_match cur_matched phase fill_pos',
    'batches': 'hb nbatch curbatch can_batch nbatch_original nbatch_outstart grow_enabled '
               'mem_limit inner_files outer_files files_cap inner_spill_slot spill_cxt',
    'rows': 'spill_vals spill_nulls',
    'chain': 'chain chain_member outer_is_level no_prefill carrier carrier_level',
    'parallel': 'shared split_shared split split_reported',
    'stats': 'stats',
}
FIELD_PART = {f: p for p, fs in TOP_LEVEL.items() for f in fs.split()}

# receivers that point to a GpuJoinState
RECV = r'(?:\bgs|\btop|\bbottom|\bbelow|->gs|\.gs)'
ACCESS = re.compile(RECV + r'->(\w+)((?:\[[^\]\n]*\]|\.\w+|->\w+)*)\s*([-+*/|&^]?=(?!=)|\+\+|--)')
PREFIX = re.compile(r'(?:\+\+|--)\s*' + RECV + r'->(\w+)')


def files(exts=('.c', '.h')):
    for d, _, fs in os.walk(SRC):
        for f in sorted(fs):
            if f.endswith(exts):
                p = os.path.join(d, f)
                yield os.path.relpath(p, SRC), open(p, encoding='utf-8').read()


def strip_comments(s):
    s = re.sub(r'/\*.*?\*/', lambda m: '\n' * m.group(0).count('\n'), s, flags=re.S)
    return re.sub(r'//[^\n]*', '', s)


def foreign_assignments():
    out = []
    for rel, text in files():
        body = strip_comments(text)
        for m in list(ACCESS.finditer(body)) + list(PREFIX.finditer(body)):
            field = m.group(1)
            part = FIELD_PART.get(field)
            if part is None:
                continue
            if part == 'stats' or rel in OWNERS[part]:
                if part == 'stats':
                    out.append((rel, body.count('\n', 0, m.start()) + 1, 'stats', field, True))
                continue
            out.append((rel, body.count('\n', 0, m.start()) + 1, part, field, False))
    return out


DEF = re.compile(r'^(?!static\b)[A-Za-z_][\w \*]*\n(\w+)\(', re.M)
INLINE = re.compile(r'^static inline [\w \*]*\n(\w+)\(', re.M)
CALL = re.compile(r'\b(\w+)\s*\(')


def call_graph(detail=None):
    defs = {}
    inline_calls = {}
    texts = {}
    for rel, text in files():
        body = strip_comments(text)
        # declarations are not calls
        body = re.sub(r'^extern [^;]*;', '', body, flags=re.M)
        texts[rel] = body
        if rel.endswith('.h'):
            # a header's inline functions: their calls are their callers'
            for m in INLINE.finditer(body):
                end = body.find('\n}\n', m.end())
                inline_calls[m.group(1)] = [c.group(1) for c in
                                            CALL.finditer(body, m.end(), end)]
        else:
            for m in DEF.finditer(body):
                defs.setdefault(m.group(1), rel)

    def callees(name, seen):
        if name in defs:
            yield name
        elif name in inline_calls and name not in seen:
            seen.add(name)
            for c in inline_calls[name]:
                yield from callees(c, seen)

    edges = {}
    for rel, body in texts.items():
        if rel.endswith('.h'):
            continue
        for m in CALL.finditer(body):
            for fn in callees(m.group(1), set()):
                callee = defs[fn]
                if callee != rel:
                    edges.setdefault(rel, set()).add(callee)
                    if detail is not None:
                        detail.setdefault((rel, callee), set()).add(fn)
    return edges


def sccs(edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    nodes = set(edges) | {b for bs in edges.values() for b in bs}
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main():
    verbose = '-v' in sys.argv
    fa = foreign_assignments()
    foreign = [a for a in fa if not a[4]]
    stats = [a for a in fa if a[4]]
    print('assignments to another part\'s fields of GpuJoinState: %d' % len(foreign))
    byfile, bypart = {}, {}
    for rel, line, part, field, _ in foreign:
        byfile[rel] = byfile.get(rel, 0) + 1
        bypart[part] = bypart.get(part, 0) + 1
    for rel, n in sorted(byfile.items(), key=lambda x: -x[1]):
        print('  %-32s %d' % (rel, n))
    print('by part written:')
    for p, n in sorted(bypart.items(), key=lambda x: -x[1]):
        print('  %-32s %d (owners: %s)' % (p, n, ', '.join(OWNERS[p])))
    print('statistics counters (gs->stats), counted apart: %d' % len(stats))
    if verbose:
        for rel, line, part, field, _ in sorted(foreign):
            print('  %s:%d %s (%s)' % (rel, line, field, part))
    detail = {}
    circles = sccs(call_graph(detail))
    print('call circles between files of src/ (strongly connected sets): %d' % len(circles))
    for c in circles:
        print('  ' + ' '.join(c))
        if verbose:
            for (a, b), fns in sorted(detail.items()):
                if a in c and b in c:
                    print('    %s -> %s: %s' % (a, b, ' '.join(sorted(fns))))
    return 1 if foreign or circles else 0


if __name__ == '__main__':
    sys.exit(main())
