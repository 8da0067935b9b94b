#!/usr/bin/env bash
# Swift kernels against libvips, side by side in one run.
#
# usage: bench/kernels.sh [PHOTO] [RUNS] [PHOTO_DIR]
#   PHOTO      the photo to enlarge to 24 MP (6000×4000) and filter in memory (default: a sample)
#   RUNS       timed runs per measurement after one warm-up; the median is shown (default 5)
#   PHOTO_DIR  if given, workload W (bench/workload-w.json) is also timed on these photos with
#              sepia's engine "swift" and "vips", interleaved, RUNS runs each
#
# 1. kernel-bench: for every kernel filter with a libvips engine, MPix/s of the Swift engine and of
#    the libvips engine (building the node and computing every pixel into memory), with one and
#    with two libvips threads, and the ratio vips time / swift time (above 1: Swift is faster).
#    "boxBlur r20 vs conv" puts libvips' conv with a 41×41 box mask on the libvips side.
# 2. workload W with each sepia engine: median wall seconds.
# FILTERS=sepia,boxBlur limits step 1 to the filters whose labels start so.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PHOTO=${1:-$ROOT/Presets/samples/Bridge.jpg}
RUNS=${2:-5}
PHOTOS=${3:-}
swift build -c release --package-path "$ROOT" --product kernel-bench >/dev/null 2>&1 || { echo "release build failed: run swift build -c release --product kernel-bench" >&2; exit 1; }
unset VIPS_CONCURRENCY
"$ROOT/.build/release/kernel-bench" "$PHOTO" "$RUNS" ${FILTERS:+"$FILTERS"}

[ -n "$PHOTOS" ] || exit 0
swift build -c release --package-path "$ROOT" --product workbench >/dev/null 2>&1 || { echo "release build failed" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for engine in swift vips; do
  sed "s/\"op\": \"sepia\", \"intensity\": 1/\"op\": \"sepia\", \"intensity\": 1, \"engine\": \"$engine\"/" "$ROOT/bench/workload-w.json" > "$WORK/w-$engine.json"
  grep -q "\"engine\": \"$engine\"" "$WORK/w-$engine.json" || { echo "bench/workload-w.json changed: cannot set sepia's engine" >&2; exit 1; }
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
declare -A times
for run in $(seq 0 "$RUNS"); do
  for engine in swift vips; do
    start=$(date +%s.%N)
    "$ROOT/.build/release/workbench" run "$WORK/w-$engine.json" "$PHOTOS" --out "$WORK/out-$engine" --quiet >/dev/null
    end=$(date +%s.%N)
    [ "$run" -gt 0 ] && times[$engine]+="$(echo "$end - $start" | bc -l) "
  done
done
echo
echo "Workload W ($(ls "$PHOTOS" | grep -ci '\.jpe\?g$') photos), median wall seconds of $RUNS runs"
for engine in swift vips; do
  printf '  sepia engine %-6s %6.2f s\n' "$engine" "$(tr ' ' '\n' <<< "${times[$engine]}" | grep . | median)"
done
