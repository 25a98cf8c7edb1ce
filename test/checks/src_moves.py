#!/usr/bin/env python3
"""test/checks/src_moves.py A B [--raw]: is src/ at B src/ at A moved and split?

The multiset of non-blank, non-comment, whitespace-normalised source lines of
src/ at A against B: lines that only moved between files cancel out.  Unless
--raw, first normalised alike at both commits for what a split renames:
#include lines, header guards, 'static'/'static inline', extern prototypes,
the svc_/gpuhash_ prefix a helper gets when it leaves its file, and fields
regrouped into sub-structs (gs->step.X, gs->hb.X -> gs->X; gs->kf.X ->
gs->kf_X).  Prints the counts for all of src/ and per room (src/planner,
src/executor, ...; moves between rooms show in both), then every line left,
with the files that hold it: what is neither a move nor a rename."""
import collections
import re
import subprocess
import sys

a, b = sys.argv[1], sys.argv[2]
RAW = "--raw" in sys.argv[3:]
RULES = [(r"\bstatic inline\s+", ""), (r"\bstatic\s+", ""),
         (r"\b(svc|gpuhash)_(\w+)", r"\2"),
         (r"->step\.", "->"), (r"->hb\.", "->"), (r"->kf\.", "->kf_"), (r"\bkf\.", "kf_")]


def git(*args):
    return subprocess.run(["git", *args], capture_output=True, text=True, check=True).stdout


def file_lines(commit, f):
    text = re.sub(r"/\*.*?\*/", " ", git("show", f"{commit}:{f}"), flags=re.S)
    if not RAW:
        text = re.sub(r"^extern [^;{]*;", "", text, flags=re.M | re.S)
    c = collections.Counter()
    for l in text.splitlines():
        l = " ".join(re.sub(r"//.*", "", l).split())
        if not l:
            continue
        if not RAW:
            if l.startswith("#include") or (re.match(r"#(ifndef|define|endif)\b", l)
                                            and ("_H" in l or l == "#endif")):
                continue
            for p, r in RULES:
                l = re.sub(p, r, l)
        c[l] += 1
    return c


def tree(commit):
    return {f: file_lines(commit, f)
            for f in git("ls-tree", "-r", "--name-only", commit, "--", "src/").split()}


def room(f):
    parts = f.split("/")
    return parts[1] if len(parts) > 2 else "(top)"


ta, tb = tree(a), tree(b)
kind = "raw" if RAW else "normalised"
for name in ["src/"] + sorted({room(f) for f in list(ta) + list(tb)}):
    ca = sum((c for f, c in ta.items() if name == "src/" or room(f) == name), collections.Counter())
    cb = sum((c for f, c in tb.items() if name == "src/" or room(f) == name), collections.Counter())
    print(f"{name:10s} {kind} code lines {sum(ca.values()):6d} -> {sum(cb.values()):6d}; "
          f"only at {a}: {sum((ca - cb).values()):4d}, only at {b}: {sum((cb - ca).values()):4d}")
ca = sum(ta.values(), collections.Counter())
cb = sum(tb.values(), collections.Counter())
for title, d, t in ((f"only at {a}", ca - cb, ta), (f"only at {b}", cb - ca, tb)):
    print(f"\n== {title} ==")
    rows = []
    for l, n in d.items():
        files = sorted(f[4:] for f, c in t.items() if l in c)
        rows.append((files, l, n))
    for files, l, n in sorted(rows):
        where = ", ".join(files) if len(files) <= 3 else f"{len(files)} files"
        print(f"{n:3d}  [{where}]  {l}")
