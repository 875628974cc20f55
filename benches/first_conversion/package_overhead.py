#!/usr/bin/env python3
"""The package's per-call cost on a small history (a user's message, a
call and its result; no media): `tool_carrier.convert` from a list of
dicts, from the history's JSON Lines bytes, and the extension's own
`convert` on those bytes (no Python layer), each the median of RUNS
rounds of CALLS calls.

    package_overhead.py [CALLS] [RUNS]
"""
import json
import statistics
import sys
import time

import tool_carrier
from tool_carrier import _native

calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
records = [
    {"role": "user", "content": "Open the settings page."},
    {"role": "assistant", "content": json.dumps({"content": None, "tool_calls": [
        {"id": "c1", "name": "open", "arguments": "{\"page\": \"settings\"}"}]})},
    {"role": "tool", "content": json.dumps({"tool_call_id": "c1", "content": "Opened.", "attachments": []})},
]
jsonl = "".join(json.dumps(r) + "\n" for r in records).encode()
ways = {
    "convert(list of dicts)": lambda: tool_carrier.convert(records, "anthropic"),
    "convert(bytes)": lambda: tool_carrier.convert(jsonl, "anthropic"),
    "_native.convert(bytes)": lambda: _native.convert("anthropic", data=jsonl),
}
medians = {}
for name, way in ways.items():
    way()
for _ in range(runs):
    for name, way in ways.items():
        start = time.perf_counter()
        for _ in range(calls):
            way()
        medians.setdefault(name, []).append((time.perf_counter() - start) / calls)
native = statistics.median(medians["_native.convert(bytes)"])
print(f"per call, median of {runs} rounds of {calls} (3 records, Anthropic):")
for name, times in medians.items():
    t = statistics.median(times)
    print(f"  {name:26} {t * 1e6:7.1f} µs  ({t / native:.2f}× the extension's own)")
