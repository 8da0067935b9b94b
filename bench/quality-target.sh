#!/usr/bin/env bash
# Encoding to a quality target: 25 photos at 960 px as JPEG and WebP, each file at the lowest
# quality that scores SSIMULACRA2 80 (bench/quality-target.json), against the honest fixed-Q
# baseline: the lowest single Q at which every photo reaches 80, found by bisection with
# libvips' own savers and scored by the `ssimulacra2` PyPI package against libvips' thumbnail
# (bench/quality-target-peer.py). Then the same with a byte budget ("maxBytes": the baseline's
# mean file size), and the speed of our SSIMULACRA2 (`measure`, decode included) against the
# PyPI package's.
#
# Prints: every output's score (PyPI) against the target less 1, total bytes against the
# baseline's (target ≤ 0.8×), wall time against the fixed-Q run (≤ 2.5×, medians of RUNS
# paired runs), and for the budget run every file under it and the mean score at equal bytes.
#
# usage: bench/quality-target.sh PHOTO_DIR [RUNS] [COUNT] [PYTHON]   (default 3 runs, 25 photos)
#   needs: python with pyvips and ssimulacra2 (pip install pyvips ssimulacra2)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SOURCE=$(cd "${1:?usage: bench/quality-target.sh PHOTO_DIR [RUNS] [COUNT] [PYTHON]}" && pwd)
RUNS=${2:-3}
COUNT=${3:-25}
PY=${4:-python3}
GOAL=80
. "$ROOT/bench/lib.sh"
needs "time bc" /usr/bin/time bc
"$PY" -c 'import pyvips, ssimulacra2' 2>/dev/null || { echo "needs pyvips and ssimulacra2 for $PY (pip install pyvips ssimulacra2)" >&2; exit 2; }
release_workbench
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PHOTOS="$WORK/photos"; mkdir -p "$PHOTOS"
for photo in $(find -L "$SOURCE" -maxdepth 1 -name '*.jpg' | sort | head -n "$COUNT"); do ln -s "$photo" "$PHOTOS/"; done
peer() { "$PY" "$ROOT/bench/quality-target-peer.py" "$@"; }

echo "libvips' thumbnails and the fixed-Q baseline (bisection per photo, PyPI scores; minutes)…" >&2
peer refs "$PHOTOS" "$WORK"
QJ=$(peer baseline "$WORK" jpeg "$GOAL")
QW=$(peer baseline "$WORK" webp "$GOAL")

# The fixed-Q run: the same graph at the baseline's Q for each format.
sed "s/\"target\": { \"ssimulacra2\": 80 }/\"jpeg\": { \"Q\": $QJ }, \"webp\": { \"Q\": $QW }/" "$ROOT/bench/quality-target.json" > "$WORK/fixed.json"
run() { rm -rf "$WORK/$2"; "$WORKBENCH" run "$1" "$PHOTOS" --out "$WORK/$2" --quiet --report "$WORK/$2.report" >/dev/null; }
measure() { # preset out -> "wall cpu"
  /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$WORKBENCH" run "$1" "$PHOTOS" --out "$WORK/$2" --quiet >/dev/null 2>"$WORK/err" \
    || { cat "$WORK/err" >&2; exit 1; }
  awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$WORK/time"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
measure "$WORK/fixed.json" fixed >/dev/null; measure "$ROOT/bench/quality-target.json" target >/dev/null # warm-up
for r in $(seq "$RUNS"); do
  rm -rf "$WORK/fixed" "$WORK/target"
  measure "$WORK/fixed.json" fixed >> "$WORK/fixed.times"
  measure "$ROOT/bench/quality-target.json" target >> "$WORK/target.times"
done

# The budget run: each file within the baseline's mean file size of its format.
for fmt in jpeg webp; do
  total=$(find "$WORK/fixed" -name "*.$fmt" -printf '%s\n' | awk '{ s += $1 } END { print s }')
  echo "$fmt $((total / COUNT))" >> "$WORK/budgets"
done
BJ=$(awk '$1 == "jpeg" { print $2 }' "$WORK/budgets"); BW=$(awk '$1 == "webp" { print $2 }' "$WORK/budgets")
# One budget a node: the JPEG and WebP encodes as two nodes.
"$PY" - "$ROOT/bench/quality-target.json" "$WORK/budget.json" "$BJ" "$BW" <<'PY'
import json, sys
preset = json.load(open(sys.argv[1]))
graph = [n for n in preset["graph"] if n["id"] not in ("encoded", "save")]
for fmt, budget in (("jpeg", int(sys.argv[3])), ("webp", int(sys.argv[4]))):
    graph.append({"id": f"enc-{fmt}", "op": "encode", "from": "resized", "format": fmt, "target": {"maxBytes": budget}})
    graph.append({"id": f"save-{fmt}", "op": "write", "path": "{name}." + fmt})
preset["graph"] = graph
json.dump(preset, open(sys.argv[2], "w"))
PY
run "$WORK/budget.json" budget
run "$ROOT/bench/quality-target.json" target

# Our SSIMULACRA2's speed alone (bench/ssimulacra2-speed.c, built with the toolchain's clang as
# SwiftPM builds it): the first photo's thumbnail against its JPEG at Q 60, as the PyPI package
# is timed (peer speed). Decoding is not counted on our side; the package's PNG loading is.
needs "libvips-dev" pkg-config
CLANG=$(command -v clang || echo cc)
"$CLANG" -O2 -ffp-contract=off "$ROOT/bench/ssimulacra2-speed.c" "$ROOT/Sources/CMetrics/ssimulacra2.c" "$ROOT/Sources/CMetrics/levels.c" \
  -I "$ROOT/Sources/CMetrics/include" -I "$ROOT/Sources/CMetrics" \
  $(pkg-config --cflags --libs vips) -lm -lpthread -o "$WORK/ssim2-speed"
PYPI=$(peer speed "$WORK")
first=$(ls "$WORK/ref" | head -1)
read -r PREPARE FIRST AGAIN _ < <("$WORK/ssim2-speed" "$WORK/ref/$first" "$WORK/speed.jpg.png")

for fmt in jpeg webp; do
  peer score "$WORK" "$WORK/fixed" "$fmt" > "$WORK/fixed.$fmt"
  peer score "$WORK" "$WORK/target" "$fmt" > "$WORK/target.$fmt"
  peer score "$WORK" "$WORK/budget" "$fmt" > "$WORK/budget.$fmt"
done

col() { awk -v c="$2" '{ print $c }' "$1"; }
printf 'Quality target: %d photos at 960 px, JPEG and WebP, SSIMULACRA2 %d (PyPI package, against libvips'"'"' thumbnail); %d paired runs, %d cores\n' \
  "$COUNT" "$GOAL" "$RUNS" "$(nproc)"
printf 'fixed-Q baseline (lowest Q at which every photo reaches %d): JPEG Q %s, WebP Q %s\n\n' "$GOAL" "$QJ" "$QW"
printf '%-6s %12s %12s %7s %10s %10s %8s\n' format "fixed bytes" "target bytes" ratio "min score" "mean score" "met"
for fmt in jpeg webp; do
  fb=$(col "$WORK/fixed.$fmt" 3 | awk '{ s += $1 } END { print s }'); tb=$(col "$WORK/target.$fmt" 3 | awk '{ s += $1 } END { print s }')
  minimum=$(col "$WORK/target.$fmt" 2 | sort -g | head -1); mean=$(col "$WORK/target.$fmt" 2 | awk '{ s += $1 } END { printf "%.2f", s / NR }')
  ratio=$(echo "scale=3; $tb / $fb" | bc)
  met=$( (( $(echo "$ratio <= 0.8 && $minimum >= $GOAL - 1" | bc) )) && echo met || echo "NOT met")
  printf '%-6s %12d %12d %6.3f× %10.2f %10.2f %8s\n' "$fmt" "$fb" "$tb" "$ratio" "$minimum" "$mean" "$met"
done
fw=$(col "$WORK/fixed.times" 1 | median); tw=$(col "$WORK/target.times" 1 | median)
fc=$(col "$WORK/fixed.times" 2 | median); tc=$(col "$WORK/target.times" 2 | median)
ratio=$(echo "scale=2; $tw / $fw" | bc)
printf '\nwall: fixed-Q %.2f s, target %.2f s: %.2f× (target ≤ 2.5×: %s); CPU %.2f s against %.2f s\n' "$fw" "$tw" "$ratio" \
  "$( (( $(echo "$ratio <= 2.5" | bc) )) && echo met || echo "NOT met")" "$tc" "$fc"

printf '\nbyte budget (each file within the baseline'"'"'s mean size: JPEG %d, WebP %d bytes):\n' "$BJ" "$BW"
printf '%-6s %8s %12s %12s %14s %14s\n' format "over" "fixed bytes" "budget bytes" "fixed mean" "budget mean"
for fmt in jpeg webp; do
  budget=$([ "$fmt" = jpeg ] && echo "$BJ" || echo "$BW")
  over=$(col "$WORK/budget.$fmt" 3 | awk -v b="$budget" '$1 > b { n++ } END { print n + 0 }')
  fb=$(col "$WORK/fixed.$fmt" 3 | awk '{ s += $1 } END { print s }'); bb=$(col "$WORK/budget.$fmt" 3 | awk '{ s += $1 } END { print s }')
  fm=$(col "$WORK/fixed.$fmt" 2 | awk '{ s += $1 } END { printf "%.2f", s / NR }'); bm=$(col "$WORK/budget.$fmt" 2 | awk '{ s += $1 } END { printf "%.2f", s / NR }')
  printf '%-6s %8d %12d %12d %14s %14s\n' "$fmt" "$over" "$fb" "$bb" "$fm" "$bm"
done

pairs=$(echo "$PREPARE + $FIRST" | bc)
printf '\nSSIMULACRA2 at 960 px (PyPI package: %.0f ms a pair, loading included):\n' "$(echo "$PYPI * 1000" | bc)"
printf '  ours, one pair from nothing (prepare %.1f ms + score %.1f ms): %.1f ms, %.0f× faster\n' "$PREPARE" "$FIRST" "$pairs" \
  "$(echo "scale=1; $PYPI * 1000 / $pairs" | bc)"
printf '  ours, each further candidate against a prepared original (a search): %.1f ms, %.0f× faster\n' "$AGAIN" \
  "$(echo "scale=1; $PYPI * 1000 / $AGAIN" | bc)"
