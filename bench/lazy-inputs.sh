#!/usr/bin/env bash
# Shows that memory does not grow with the length of the input list: runs the same preset over a
# 10,000-line and a 1,000,000-line `inputs.file` list and prints each run's peak RSS.
# Every input is a missing file, so each item fails fast with its own message: the run is all
# scheduling, reading the list and reporting.
#
# usage: bench/lazy-inputs.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
swift build -c release --package-path "$ROOT" --product workbench >/dev/null 2>&1 \
  || { echo "release build failed: run swift build -c release" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for n in 10000 1000000; do
  awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) print "/nonexistent/" i ".jpg" }' > "$WORK/list-$n.txt"
  printf '{"version": 1, "inputs": {"file": "list-%s.txt"}, "graph": [{"op": "read"}, {"op": "write", "path": "{index}"}]}\n' \
    "$n" > "$WORK/preset-$n.json"
  /usr/bin/time -f "$n inputs: %e s wall, peak RSS %M KiB" \
    "$ROOT/.build/release/workbench" run "$WORK/preset-$n.json" --out "$WORK/out" --quiet >/dev/null || true
done
