#!/usr/bin/env bash
# 500 small images from a local server that adds 50 ms to every response, fetched 8 at a time,
# by workbench and by `curl --parallel --parallel-max 8`, in one run, against the ideal
# (500 × 50 ms / 8 = 3.125 s).
#
# usage: bench/downloads.sh [COUNT] [RUNS]     (defaults 500 and 3)
# The server is the tests' (Tests/Support/test_server.py, python3); the images are the bundled
# samples, each URL distinct so nothing is coalesced.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
COUNT=${1:-500}
RUNS=${2:-3}
command -v curl >/dev/null || { echo "needs curl (apt-get install curl)" >&2; exit 2; }
swift build -c release --package-path "$ROOT" --product workbench >/dev/null 2>&1 || { echo "release build failed" >&2; exit 1; }
WORK=$(mktemp -d)
exec 3> >(python3 "$ROOT/Tests/Support/test_server.py" "$ROOT/Presets/samples" > "$WORK/port")
trap 'exec 3>&-; rm -rf "$WORK"' EXIT
for _ in $(seq 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
PORT=$(head -1 "$WORK/port")

SAMPLES=(Bridge.jpg Picture_0B.jpg Wine.jpg aitzgorri.jpg seeding.jpg sunset.jpg)
: > "$WORK/urls.txt"; : > "$WORK/curl.txt"
for i in $(seq 0 $((COUNT - 1))); do
  url="http://127.0.0.1:$PORT/slow/${SAMPLES[$((i % 6))]}?delay=0.05&n=$i"
  echo "$url" >> "$WORK/urls.txt"
  printf 'url = "%s"\noutput = "%s/curl/%d.jpg"\n' "$url" "$WORK" "$i" >> "$WORK/curl.txt"
done
cat > "$WORK/preset.json" <<JSON
{"version": 1, "inputs": {"file": "urls.txt"}, "queues": {"net": {"concurrency": 8}},
 "graph": [{"op": "download"}, {"op": "write", "path": "{index}.jpg"}]}
JSON

run_workbench() { rm -rf "$WORK/wb"; "$ROOT/.build/release/workbench" run "$WORK/preset.json" --out "$WORK/wb" --quiet >/dev/null; }
run_curl() { rm -rf "$WORK/curl"; mkdir -p "$WORK/curl"; curl --silent --fail --parallel --parallel-max 8 --config "$WORK/curl.txt"; }
seconds() { local start end; start=$(date +%s.%N); "$1"; end=$(date +%s.%N); echo "$end - $start" | bc -l; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

run_workbench; run_curl # warm-up
wb=""; cu=""
for _ in $(seq "$RUNS"); do wb+="$(seconds run_workbench)"$'\n'; cu+="$(seconds run_curl)"$'\n'; done
ideal=$(echo "$COUNT * 0.05 / 8" | bc -l)
wbm=$(echo -n "$wb" | median); cum=$(echo -n "$cu" | median)
printf '%d downloads, 50 ms added per response, 8 at a time; medians of %d runs\n' "$COUNT" "$RUNS"
printf '| tool | wall s | / ideal (%.3f s) |\n|---|---|---|\n' "$ideal"
printf '| workbench | %.3f | %.2f |\n' "$wbm" "$(echo "$wbm / $ideal" | bc -l)"
printf '| curl --parallel --parallel-max 8 | %.3f | %.2f |\n' "$cum" "$(echo "$cum / $ideal" | bc -l)"
printf 'files: workbench %d, curl %d\n' "$(ls "$WORK/wb" | wc -l)" "$(ls "$WORK/curl" | wc -l)"
