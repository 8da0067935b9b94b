#!/usr/bin/env bash
# 1 MP crops that keep their metadata, one in six with an sRGB ICC profile (as photos from
# cameras and editors carry one) → 256 px wide → JPEG q80, with workbench and its peers, tools
# alternating; prints medians (issue 48's first workload, its sRGB part).
#
# usage: [MIX=wide] bench/profiled.sh PHOTO_DIR [ROUNDS] [PYTHON]
#   PHOTO_DIR  JPEG photos at least 1024×600 (the reference corpus: ../shared/bench/make-corpus.sh DIR)
#   ROUNDS     timed rounds after one warm-up (default 5)
#   PYTHON     a python with opencv-python-headless and pyvips (peers missing are skipped)
# Set BEFORE=/path/to/an/older/workbench to add it as a row. MIX=wide: two crops in three carry
# a profile instead, alternately sRGB and Adobe RGB (1998) (pixels converted into it, as an
# editor saves them).
# Crops are made once with `vips crop` (EXIF and XMP stay; every sixth gets libvips' sRGB
# profile) in /tmp/workbench-profiled; outputs go to /dev/shm when it exists.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PHOTOS=$(cd "${1:?usage: bench/profiled.sh PHOTO_DIR [ROUNDS] [PYTHON]}" && pwd)
ROUNDS=${2:-5}
PY=${3:-python3}
. "$ROOT/bench/lib.sh"
needs "time libvips-tools" /usr/bin/time vips
release_workbench
MIX=${MIX:-srgb}
D=/tmp/workbench-profiled-$MIX
if [ -d /dev/shm ]; then OUT=/dev/shm/workbench-profiled-out; else OUT=$D/out; fi
metadata_crops "$PHOTOS" "$D" "$MIX"
COUNT=$(find "$D/crops" -name '*.jpg' | wc -l)
cat > "$D/preset.json" <<JSON
{ "version": 1, "graph": [ { "id": "s", "op": "read" }, { "id": "d", "op": "decode" },
  { "id": "t", "op": "thumbnail", "width": 256 }, { "id": "e", "op": "encode", "format": "jpeg", "Q": 80 },
  { "id": "w", "op": "write", "path": "{name}.jpg" } ] }
JSON
export VIPS_CONCURRENCY=1
TOOLS=(workbench)
[ -n "${BEFORE:-}" ] && TOOLS+=(before)
"$PY" -c 'import cv2' 2>/dev/null && TOOLS+=(opencv) || echo "OpenCV not found for $PY: skipped" >&2
"$PY" -c 'import pyvips' 2>/dev/null && TOOLS+=(pyvips) || echo "pyvips not found for $PY: skipped" >&2
run() {
  rm -rf "$OUT/$1"; mkdir -p "$OUT/$1"
  case $1 in
    workbench) "$WORKBENCH" run "$D/preset.json" "$D/crops" --out "$OUT/$1" -q ;;
    before) "$BEFORE" run "$D/preset.json" "$D/crops" --out "$OUT/$1" -q ;;
    *) "$PY" "$ROOT/bench/small-peers.py" "$1" "$D/crops" "$OUT/$1" 256 ;;
  esac
}
: > "$D/times"
for round in $(seq 0 "$ROUNDS"); do
  for tool in "${TOOLS[@]}"; do
    /usr/bin/time -f "%e %U %S" -o "$D/time" bash -c "$(declare -f run); WORKBENCH='$WORKBENCH' BEFORE='${BEFORE:-}' D='$D' OUT='$OUT' PY='$PY' ROOT='$ROOT' run $tool" >/dev/null 2>&1
    [ "$round" -gt 0 ] && echo "$tool $(cat "$D/time")" >> "$D/times"
  done
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
if [ "$MIX" = wide ]; then carried="2 in 3 with a profile, sRGB or Adobe RGB"; else carried="$(( (COUNT + 5) / 6 )) with an sRGB profile"; fi
echo "$COUNT crops of 1024×600 with their metadata ($carried) → 256 px JPEG q80, $ROUNDS rounds, $(nproc) cores"
printf '| tool | wall s | CPU s | workbench ÷ tool (wall) |\n|---|---|---|---|\n'
wb=$(awk '$1 == "workbench" { print $2 }' "$D/times" | median)
for tool in "${TOOLS[@]}"; do
  wall=$(awk -v t="$tool" '$1 == t { print $2 }' "$D/times" | median)
  cpu=$(awk -v t="$tool" '$1 == t { print $3 + $4 }' "$D/times" | median)
  printf '| %s | %.2f | %.2f | %.2f |\n' "$tool" "$wall" "$cpu" "$(echo "$wb / $wall" | bc -l)"
done
