#!/usr/bin/env python3
"""Checks tpch/plans.py's serial-regression rule and its identity with
PostgreSQL's plan on hand-made plans (the shapes of EXPLAIN (FORMAT JSON)),
so that run-all's plan checks flag what they must and nothing else.  Exits 1 on the first wrong answer."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tpch"))
import plans  # noqa: E402


def scan(rel, parallel=False, alias=None, rel_kind="Seq Scan"):
    n = {"Node Type": rel_kind, "Relation Name": rel, "Alias": alias or rel}
    if parallel:
        n["Parallel Aware"] = True
    return n


def node(kind, *kids, **props):
    n = {"Node Type": kind, "Plans": list(kids)}
    n.update(props)
    return n


def gpu(outer_scan=None, inner_scan=None, *kids):
    n = node("Custom Scan", *kids, **{"Custom Plan Provider": "GpuHashJoin"})
    if outer_scan:
        n["Parallel Outer Scan"] = outer_scan
    if inner_scan:
        n["Inner Scan"] = inner_scan
    return n


# PostgreSQL's Q18: the IN subquery aggregated in parallel, orders serial
native_q18 = node("Hash Join",
                  scan("orders"),
                  node("Hash", node("Aggregate",
                                    node("Gather", node("Aggregate",
                                                        scan("lineitem", True, "lineitem_1"))))))
# the H100's GPU plan at 3551738: the aggregate's scan whole in every participant
gpu_q18 = node("Gather",
               node("Hash Join",
                    gpu("orders", "customer"),
                    node("Hash", node("Aggregate", scan("lineitem", False, "lineitem_1")))))
# index lookups per outer row under a Gather follow the divided outer rows
native_q08 = node("Gather", node("Parallel Hash Join",
                                 scan("orders", True), node("Parallel Hash", scan("customer", True))))
gpu_q08 = node("Gather", node("Nested Loop",
                              node("Nested Loop", gpu("lineitem"),
                                   scan("orders", rel_kind="Index Scan")),
                              scan("customer", rel_kind="Index Scan")))
# a parallel GPU join's whole inner side, read by one participant
gpu_whole_inner = node("Gather", gpu("orders", "customer"))

cases = [
    ("Q18: a replicated serial aggregate", native_q18, gpu_q18, ["lineitem lineitem_1"]),
    ("Q08: index lookups under a Gather", native_q08, gpu_q08, []),
    ("a whole inner side", native_q08, gpu_whole_inner, ["customer customer"]),
    ("the same plan", native_q18, native_q18, []),
]
bad = 0
for name, off, on, want in cases:
    got = plans.serial_regressions(off, on)
    ok = got == want
    bad += not ok
    print(f"plans_check: {name}: {got} {'ok' if ok else 'WRONG, want ' + str(want)}")


# native_identity: a plan without a GPU join must be PostgreSQL's own, costs too
def costed(n, total, rows=100.0):
    n = dict(n, **{"Total Cost": total, "Plan Rows": rows})
    n["Plans"] = [dict(c) for c in n.get("Plans", [])]
    return n


native = costed(node("Hash Join", scan("orders"), node("Hash", scan("customer"))), 120.0)
identity_cases = [
    ("the same plan", native, costed(native, 120.0), 0, False),
    ("a cost raised on a native join", native, costed(native, 125.0), 0, True),
    ("rows raised on a native join", native, costed(native, 120.0, 5000.0), 0, True),
    ("another native plan", native,
     costed(node("Hash Join", scan("customer"), node("Hash", scan("orders"))), 110.0), 0, True),
    ("a child's cost changed", native,
     dict(native, Plans=[costed(scan("orders"), 9.0), native["Plans"][1]]), 0, True),
    ("a plan with a GPU join", native, costed(gpu("orders", "customer"), 90.0), 1, False),
]
for name, off, on, gpu_nodes, want in identity_cases:
    got = plans.native_identity(off, on, gpu_nodes)
    ok = (got is not None) == want
    bad += not ok
    print(f"plans_check: identity, {name}: {got or 'same'} "
          f"{'ok' if ok else 'WRONG, want ' + ('a difference' if want else 'none')}")
sys.exit(1 if bad else 0)
