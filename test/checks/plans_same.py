#!/usr/bin/env python3
"""Every EXPLAIN (FORMAT JSON) plan of DIR_A against DIR_B, node by node with
every property (costs, rows, widths, GpuHashJoin's own lines): prints each
difference and a summary; exit 1 if any differ."""
import glob, json, os, sys
def load(p):
    t = open(p).read().strip()
    return json.loads(t)[0]["Plan"] if t else None
def walk(a, b, path, out):
    if type(a) != type(b):
        out.append(f"{path}: {a!r} -> {b!r}"); return
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                out.append(f"{path}.{k}: {a.get(k, '<absent>')!r} -> {b.get(k, '<absent>')!r}")
            else:
                walk(a[k], b[k], f"{path}.{k}" if k != "Plans" else path, out)
    elif isinstance(a, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} children -> {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{path}/{i}:{x.get('Node Type', '') if isinstance(x, dict) else ''}", out)
    elif a != b:
        out.append(f"{path}: {a!r} -> {b!r}")
da, db = sys.argv[1], sys.argv[2]
files = sorted(os.path.basename(p) for p in glob.glob(os.path.join(da, "q*_plan.json")))
nodes = same = 0; bad = []
for f in files:
    pa, pb = os.path.join(da, f), os.path.join(db, f)
    if not os.path.exists(pb):
        bad.append(f); print(f"{f}: missing in {db}"); continue
    a, b = load(pa), load(pb)
    out = []; walk(a, b, "", out)
    def count(n): return 1 + sum(count(c) for c in n.get("Plans", [])) if n else 0
    nodes += count(a)
    gpu = json.dumps(b).count('"GpuHashJoin"')
    if out:
        bad.append(f); print(f"{f}: DIFFERS"); print("\n".join("   " + l for l in out))
    else:
        same += 1
        print(f"{f}: identical ({count(a)} nodes, {gpu} GpuHashJoin, total cost {a['Total Cost']})")
print(f"\n{same} of {len(files)} plans identical ({nodes} nodes compared with all properties)"
      + ("" if not bad else "; differ: " + ", ".join(bad)))
sys.exit(1 if bad or not files else 0)
