#!/usr/bin/env python3
"""Print criterion medians and crate/baseline ratios from target/criterion.

Run after `cargo bench`; pairs each `<group>/crate/<case>` with
`<group>/baseline/<case>` (and named pairs given on the command line as
`group/a:group/b`) from the same run.
"""
import json
import pathlib
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "target/criterion")


def median_ns(bench_dir):
    est = bench_dir / "new" / "estimates.json"
    if not est.exists():
        return None
    return json.loads(est.read_text())["median"]["point_estimate"]


def fmt(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


if not root.is_dir():
    sys.exit(f"ratios.py: no {root}: run the benches first (cargo bench)")

rows = []
for group in sorted(p for p in root.iterdir() if p.is_dir() and p.name != "report"):
    crate = group / "crate"
    if crate.is_dir():
        for case in sorted(c for c in crate.iterdir() if c.is_dir() and c.name != "report"):
            a = median_ns(case)
            b = median_ns(group / "baseline" / case.name)
            if a and b:
                rows.append((f"{group.name}/{case.name}", fmt(a), fmt(b), b / a))
    else:
        for bench in sorted(c for c in group.iterdir() if c.is_dir() and c.name != "report"):
            if bench.name.startswith("baseline_"):
                continue
            a = median_ns(bench)
            base = group / ("baseline_" + bench.name)
            b = median_ns(base) if base.is_dir() else None
            rows.append((f"{group.name}/{bench.name}", fmt(a) if a else "-", fmt(b) if b else "-", (b / a) if (a and b) else None))

print("| bench | crate | baseline | baseline / crate |")
print("|---|---:|---:|---:|")
for name, a, b, r in rows:
    print(f"| {name} | {a} | {b} | {'%.2f×' % r if r else '-'} |")
