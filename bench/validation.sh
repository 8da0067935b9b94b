#!/usr/bin/env bash
# Validation time against graph size: writes linear presets of 1,000, 10,000 and 100,000 nodes
# and a 1,000,000-character op name, and times `workbench validate` on each (medians of RUNS).
# Usage: bench/validation.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
swift build -c release --product workbench >/dev/null
BIN=.build/release/workbench
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
python3 - "$DIR" <<'PY'
import json, sys
folder = sys.argv[1]
for n in (1000, 10000, 100000):
    graph = [{"id": "s", "op": "read"}, {"id": "d", "op": "decode"}]
    graph += [{"id": f"n{i}", "op": "brightness", "amount": 1.0} for i in range(n - 4)]
    graph += [{"id": "e", "op": "encode", "format": "png"}, {"id": "w", "op": "write", "path": "{name}.png"}]
    json.dump({"version": 1, "graph": graph}, open(f"{folder}/nodes-{n}.json", "w"))
json.dump({"version": 1, "graph": [{"op": "x" * 1000000}]}, open(f"{folder}/long-op.json", "w"))
PY
printf "%-28s %10s\n" "preset" "median s"
for name in nodes-1000 nodes-10000 nodes-100000 long-op; do
    times=()
    for _ in $(seq "$RUNS"); do
        start=$(date +%s.%N)
        "$BIN" validate "$DIR/$name.json" >/dev/null 2>&1 || true
        end=$(date +%s.%N)
        times+=("$(awk "BEGIN { print $end - $start }")")
    done
    median=$(printf "%s\n" "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
    printf "%-28s %10.3f\n" "$name" "$median"
done
