#!/usr/bin/env python3
"""How busy a run kept its CPU workers, from a `workbench run --trace` file.

usage: bench/busy.py TRACE.json

For each `cpu N` lane: the share of the run (first span's start to last span's end, over every
lane) during which a body ran on it; then the mean over the CPU lanes. Gaps are a worker idle:
nothing ready for it (waiting on a read, or the last items of the run on the other workers).
"""
import json
import sys

events = json.load(open(sys.argv[1]))["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in events if e.get("name") == "thread_name"}
spans = [e for e in events if e.get("ph") == "X"]
start = min(e["ts"] for e in spans)
end = max(e["ts"] + e["dur"] for e in spans)
busy = {}
for e in spans:
    if names.get(e["tid"], "").startswith("cpu"):
        busy[e["tid"]] = busy.get(e["tid"], 0.0) + e["dur"]
wall = end - start
for tid in sorted(busy):
    print(f"{names[tid]}: {100 * busy[tid] / wall:.1f}% busy")
print(f"cpu workers: {100 * sum(busy.values()) / (wall * len(busy)):.1f}% busy over {wall / 1e6:.2f} s")
