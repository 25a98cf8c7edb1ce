"""Plan comparison for run.py --plans: the plans of a query with the GPU join
off and on, each node of the "on" plan marked when no identical subtree is in
the "off" plan, and the relations the "off" plan scans in parallel (a
parallel-aware scan) that the "on" plan scans serially.

A plan is EXPLAIN (FORMAT JSON)'s "Plan" object.  A GPU join that absorbed a
Seq Scan shows it as an "Outer Scan" / "Inner Scan" property (with "Parallel"
in front when the scan is parallel), not as a child: it counts as a scan of
that relation at the join's place.
"""

ABSORBED = ("Outer Scan", "Parallel Outer Scan", "Inner Scan", "Parallel Inner Scan")


def children(node):
    return node.get("Plans", [])


def label(node):
    """One line for a node, as EXPLAIN's text format would start it."""
    kind = node.get("Node Type", "?")
    if kind == "Custom Scan":
        kind = f"Custom Scan ({node.get('Custom Plan Provider', '?')})"
    if node.get("Parallel Aware"):
        kind = "Parallel " + kind
    parts = [kind]
    if node.get("Join Type") and kind not in ("Hash",):
        parts.append(node["Join Type"])
    if node.get("Relation Name"):
        rel = node["Relation Name"]
        alias = node.get("Alias")
        parts.append(f"on {rel}" + (f" {alias}" if alias and alias != rel else ""))
    for key in ABSORBED:
        if key in node:
            parts.append(f"[{key}: {node[key]}]")
    if node.get("Workers Planned") is not None:
        parts.append(f"workers {node['Workers Planned']}")
    return " ".join(parts)


def signature(node):
    """A subtree's identity: its nodes' labels, children in order."""
    return "(" + label(node) + "".join(signature(c) for c in children(node)) + ")"


def subtree_signatures(node, out=None):
    out = {} if out is None else out
    sig = signature(node)
    out[sig] = out.get(sig, 0) + 1
    for c in children(node):
        subtree_signatures(c, out)
    return out


def render(node, known, depth=0, lines=None):
    """The plan as indented lines; '*' marks a node whose subtree is new."""
    lines = [] if lines is None else lines
    new = known is not None and signature(node) not in known
    lines.append(("* " if new else "  ") + "  " * depth + label(node))
    for c in children(node):
        render(c, known, depth + 1, lines)
    return lines


def count_changed(node, known):
    n = 1 if signature(node) not in known else 0
    return n + sum(count_changed(c, known) for c in children(node))


def scans(node, gathered=False, per_row=False, out=None):
    """(relation with alias, divided) for every scan of the plan.  A scan is
    divided among a parallel plan's participants where it is parallel aware
    itself (a Parallel Seq Scan, a GPU join's "Parallel Outer Scan"), or
    where it runs per outer row of a nested loop under a Gather (an index
    lookup follows the divided outer rows).  A plain scan under a Gather
    is otherwise run whole by every participant (a Hash Join's inner side)
    or by one of them (a parallel GPU join's whole inner side): serial
    work, which is what issue 13's check looks for.  Q18 at SF 10 ran the IN
    subquery's aggregate over all of lineitem in each of 7 participants that
    way, where PostgreSQL's plan divided the scan."""
    out = [] if out is None else out
    gathered = gathered or node.get("Node Type") in ("Gather", "Gather Merge")
    if node.get("Relation Name"):
        rel = node["Relation Name"]
        alias = node.get("Alias") or rel
        out.append((f"{rel} {alias}", bool(node.get("Parallel Aware")) or (gathered and per_row)))
    for key in ABSORBED:
        if key in node:
            words = node[key].split()
            rel, alias = words[0], words[-1]
            out.append((f"{rel} {alias}", key.startswith("Parallel")))
    for i, c in enumerate(children(node)):
        inner_loop = node.get("Node Type") == "Nested Loop" and i == 1
        scans(c, gathered, per_row or inner_loop, out)
    return out


def serial_regressions(off_plan, on_plan):
    """Relations the 'off' plan reads in parallel and the 'on' plan serially."""
    off = scans(off_plan)
    on = scans(on_plan)
    parallel_off = {r for r, par in off if par}
    serial_on = {r for r, par in on if not par}
    parallel_on = {r for r, par in on if par}
    return sorted(r for r in parallel_off if r in serial_on and r not in parallel_on)


def compare(q, off_plan, on_plan, is_gpu_join, count_nodes):
    """The report text of one query and its summary."""
    known = subtree_signatures(off_plan)
    lines = [f"-- Q{q:02d}: GPU join on ('*': a subtree not in the off plan)"]
    lines += render(on_plan, known)
    lines += ["", f"-- Q{q:02d}: GPU join off"]
    lines += render(off_plan, None)
    regress = serial_regressions(off_plan, on_plan)
    if regress:
        lines += ["", "-- read in parallel when off, serially when on: " + ", ".join(regress)]
    summary = {"q": q, "gpu_nodes": count_nodes(on_plan, is_gpu_join),
               "changed": count_changed(on_plan, known), "serial": regress}
    return "\n".join(lines) + "\n", summary


def first_difference(a, b, path="Plan"):
    """Where two EXPLAIN (FORMAT JSON) plans differ, node by node with every
    property (costs, rows, widths, keys, filters), or None when they are the
    same.  A plan that has no GPU join must be PostgreSQL's own: gpuhash
    prices only its own paths and changes none of PostgreSQL's."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=lambda k: (k == "Plans", k)):
            if key not in a or key not in b:
                return f"{path}: '{key}' only {'off' if key in a else 'on'}"
            d = first_difference(a[key], b[key], f"{path}.{key}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} entries off, {len(b)} on"
        for i, (x, y) in enumerate(zip(a, b)):
            label_x = label(x) if isinstance(x, dict) else ""
            d = first_difference(x, y, f"{path}[{i}]" + (f" ({label_x})" if label_x else ""))
            if d:
                return d
        return None
    return None if a == b else f"{path}: {a!r} off, {b!r} on"


def native_identity(off_plan, on_plan, gpu_nodes):
    """None where the 'on' plan holds a GPU join or equals the 'off' plan;
    else the first difference."""
    if gpu_nodes:
        return None
    return first_difference(off_plan, on_plan)
