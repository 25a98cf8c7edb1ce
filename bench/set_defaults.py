#!/usr/bin/env python3
"""Make calibrate.py's settings the defaults of the source tree.

    bench/set_defaults.py calibrate.json [--only gpuhash.page_cpu_cost,...] [--dry-run]

Reads the "settings" of a calibrate.py --json file (a run on the GPU machine:
bench/device.sh calibrate) and writes each value as the setting's default
where the tree states it: src/gpuhash.c (the variable's initial value and its
DefineCustomRealVariable boot value), README.md's settings table and
ARCHITECTURE.md's cost table ("`gpuhash.X` (value)").  Prints what changed;
the regression tests' expected plans are then to be run and read again.
"""
import argparse
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def sub_one(text, pattern, value, what, changes, flags=0):
    m = re.search(pattern, text, flags)
    if not m:
        return text
    old = m.group(2)
    if old != value:
        changes.append(f"{what}: {old} -> {value}")
    return text[:m.start(2)] + value + text[m.end(2):]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json_file")
    ap.add_argument("--only", help="comma-separated setting names (default: all)")
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args(argv)
    with open(a.json_file) as f:
        settings = json.load(f)["settings"]
    if a.only:
        keep = {s.strip() for s in a.only.split(",")}
        unknown = keep - set(settings)
        if unknown:
            sys.exit(f"set_defaults.py: not in {a.json_file}: {', '.join(sorted(unknown))}")
        settings = {k: v for k, v in settings.items() if k in keep}
    files = {name: os.path.join(ROOT, name) for name in ("src/gpuhash.c", "README.md",
                                                          "ARCHITECTURE.md")}
    text = {name: open(path).read() for name, path in files.items()}
    changes = []
    for name, value in settings.items():
        var = "gpuhash_" + name.split(".", 1)[1]
        # plain decimals (5.2e-05 reads badly in a settings table)
        v = f"{float(value):.10f}".rstrip("0").rstrip(".") or "0"
        cv = v if ("." in v or "e" in v) else v + ".0"
        c = text["src/gpuhash.c"]
        if not re.search(rf"double\s+{var}\s*=", c):
            sys.exit(f"set_defaults.py: {var} not found in src/gpuhash.c")
        c = sub_one(c, rf"(double\s+{var}\s*=\s*)([-0-9.e]+)", cv, f"src/gpuhash.c {var}", changes)
        c = sub_one(c, rf'(DefineCustomRealVariable\("{re.escape(name)}",.*?&{var},\s*)([-0-9.e]+)',
                    cv, f"src/gpuhash.c {name} boot value", changes, re.S)
        text["src/gpuhash.c"] = c
        text["README.md"] = sub_one(text["README.md"], rf"(\| `{re.escape(name)}` \| )([-0-9.e]+)",
                                    v, f"README.md {name}", changes)
        text["ARCHITECTURE.md"] = sub_one(text["ARCHITECTURE.md"],
                                          rf"(`{re.escape(name)}` \()([-0-9.e]+)", v,
                                          f"ARCHITECTURE.md {name}", changes)
    for line in changes:
        print(line)
    if not changes:
        print("set_defaults.py: the defaults are these already")
    if not a.dry_run:
        for name, path in files.items():
            with open(path, "w") as f:
                f.write(text[name])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
