#!/usr/bin/env bash
# Issue 48's targets in one run: real-world files on the fast lane. Runs bench/profiled.sh (sRGB
# and wide mixes), bench/formats.sh and workload W's peak memory at 1× and 10× the photos, then
# prints each target with its bar and whether it is met.
#
# usage: bench/real-world.sh PHOTO_DIR [ROUNDS] [PYTHON]
#   PHOTO_DIR  JPEG photos (the reference corpus: ../shared/bench/make-corpus.sh DIR)
#   ROUNDS     timed rounds of each script (default 5); W's peaks are medians of 3 runs
#   PYTHON     a python with opencv-python-headless and pyvips
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PHOTOS=$(cd "${1:?usage: bench/real-world.sh PHOTO_DIR [ROUNDS] [PYTHON]}" && pwd)
ROUNDS=${2:-5}
PY=${3:-python3}
. "$ROOT/bench/lib.sh"
needs time /usr/bin/time
release_workbench
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$ROOT/bench/profiled.sh" "$PHOTOS" "$ROUNDS" "$PY" | tee "$WORK/srgb"
MIX=wide "$ROOT/bench/profiled.sh" "$PHOTOS" "$ROUNDS" "$PY" | tee "$WORK/wide"
"$ROOT/bench/formats.sh" "$PHOTOS" "$ROUNDS" "$PY" | tee "$WORK/formats"

# W's peak RSS (GNU time's %M, KiB), the median of 3 runs, over the photos TIMES times.
peak() {
  local times=$1 in="$WORK/in-$1"
  mkdir -p "$in"
  for i in $(seq "$times"); do
    find "$PHOTOS" -maxdepth 1 -iname '*.jp*g' | while read -r f; do ln -sf "$f" "$in/$i-$(basename "$f")"; done
  done
  for run in 1 2 3; do
    rm -rf "$WORK/out"
    /usr/bin/time -f '%M' -o "$WORK/time" "$WORKBENCH" run "$ROOT/bench/workload-w.json" "$in" --out "$WORK/out" -q >/dev/null
    cat "$WORK/time"
  done | sort -n | sed -n 2p
}
w1=$(peak 1); w10=$(peak 10)

# The workbench ÷ tool column of a table row: ratio FILE FIRST_CELL [SECOND_CELL].
ratio() { awk -F'|' -v a="$2" -v b="${3:-}" '{ for (i = 1; i <= NF; i++) gsub(/ /, "", $i) } $2 == a && (b == "" || $3 == b) { print $(NF - 1) }' "$1"; }
verdict() { awk -v v="$1" -v bar="$2" 'BEGIN { print (v != "" && v + 0 <= bar + 0) ? "met" : "not met" }'; }
row() { printf '| %s | %s | ≤ %s | %s |\n' "$1" "${2:-–}" "$3" "$(verdict "$2" "$3")"; }

echo
echo "Issue 48's targets"
printf '| target | measured | bar | |\n|---|---|---|---|\n'
row "1 MP crops, 1 in 6 sRGB-profiled → JPEG: wall ÷ OpenCV" "$(ratio "$WORK/srgb" opencv)" 0.9
row "1 MP crops, 2 in 3 sRGB or Adobe RGB → JPEG: wall ÷ OpenCV" "$(ratio "$WORK/wide" opencv)" 0.9
row "crops → WebP q80: CPU ÷ pyvips" "$(ratio "$WORK/formats" webp pyvips)" 0.8
row "product PNGs → PNG: CPU ÷ pyvips" "$(ratio "$WORK/formats" png pyvips)" 0.8
row "product PNGs → WebP q80: CPU ÷ pyvips" "$(ratio "$WORK/formats" png2webp pyvips)" 0.8
row "W default, peak RSS MiB at 1×" "$((w1 / 1024))" 100
row "W default, peak RSS MiB at 10×" "$((w10 / 1024))" 100
