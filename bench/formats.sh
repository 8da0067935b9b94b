#!/usr/bin/env bash
# Issue 48's other outputs and inputs, with workbench and pyvips, tools alternating; prints the
# medians and workbench's CPU as a multiple of pyvips' (the target: at most 0.8):
#   webp   the 1 MP crops of bench/profiled.sh (metadata kept, one in six sRGB-profiled)
#          → 256 px WebP q80
#   png    product shots: 800×800 8-bit RGBA PNGs (a photo cut to an ellipse on a transparent
#          background), made from the same photos → 256 px PNG
#   png2webp  the same PNGs → 256 px WebP q80
#
# usage: bench/formats.sh PHOTO_DIR [ROUNDS] [PYTHON]
#   PHOTO_DIR  JPEG photos at least 1024×800 (the reference corpus: ../shared/bench/make-corpus.sh DIR)
#   ROUNDS     timed rounds after one warm-up (default 5)
#   PYTHON     a python with pyvips (without it only workbench runs)
# Set BEFORE=/path/to/an/older/workbench to add it as a row. Inputs are made once in
# /tmp/workbench-formats; outputs go to /dev/shm when it exists.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PHOTOS=$(cd "${1:?usage: bench/formats.sh PHOTO_DIR [ROUNDS] [PYTHON]}" && pwd)
ROUNDS=${2:-5}
PY=${3:-python3}
. "$ROOT/bench/lib.sh"
needs "time libvips-tools" /usr/bin/time vips
release_workbench
D=/tmp/workbench-formats
if [ -d /dev/shm ]; then OUT=/dev/shm/workbench-formats-out; else OUT=$D/out; fi
metadata_crops "$PHOTOS" "$D" srgb
if [ ! -f "$D/products/.done" ]; then
  rm -rf "$D/products"; mkdir -p "$D/products"
  # One mask for all: opaque inside an ellipse, transparent outside, with a soft edge.
  vips black "$D/mask.v" 800 800
  vips draw_circle "$D/mask.v" 255 400 400 360 --fill
  vips gaussblur "$D/mask.v" "$D/soft.v" 4
  vips cast "$D/soft.v" "$D/alpha.v" uchar
  i=0
  for p in "$PHOTOS"/*.jpg; do
    w=$(vipsheader -f width "$p" 2>/dev/null); h=$(vipsheader -f height "$p" 2>/dev/null)
    [ "$w" -gt 800 ] && [ "$h" -gt 800 ] || continue
    for k in $(seq 0 5); do
      x=$(( (k * 211) % (w - 800) )); y=$(( (k * 97) % (h - 800) ))
      vips crop "$p" "$D/crop.v" "$x" "$y" 800 800 2>/dev/null
      # A grey photo gets its grey in all three bands, as a product shot would have.
      vips colourspace "$D/crop.v" "$D/rgb.v" srgb 2>/dev/null
      vips bandjoin "$D/rgb.v $D/alpha.v" "$D/products/product$(printf %04d $i).png" 2>/dev/null
      i=$((i + 1))
    done
  done
  touch "$D/products/.done"
fi
preset() { # FORMAT EXTRA
  cat > "$D/$1.json" <<JSON
{ "version": 1, "graph": [ { "id": "s", "op": "read" }, { "id": "d", "op": "decode" },
  { "id": "t", "op": "thumbnail", "width": 256 }, { "id": "e", "op": "encode", "format": "$1"$2 },
  { "id": "w", "op": "write", "path": "{name}.$1" } ] }
JSON
}
preset webp ', "Q": 80'
preset png ''
export VIPS_CONCURRENCY=1
TOOLS=(workbench)
[ -n "${BEFORE:-}" ] && TOOLS+=(before)
"$PY" -c 'import pyvips' 2>/dev/null && TOOLS+=(pyvips) || echo "pyvips not found for $PY: skipped" >&2
run() { # TOOL JOB
  local inputs=crops format=webp
  case $2 in png) inputs=products format=png ;; png2webp) inputs=products ;; esac
  rm -rf "$OUT/$1"; mkdir -p "$OUT/$1"
  case $1 in
    workbench) "$WORKBENCH" run "$D/$format.json" "$D/$inputs" --out "$OUT/$1" -q ;;
    before) "$BEFORE" run "$D/$format.json" "$D/$inputs" --out "$OUT/$1" -q ;;
    *) "$PY" "$ROOT/bench/small-peers.py" "$1" "$D/$inputs" "$OUT/$1" 256 "$format" ;;
  esac
}
: > "$D/times"
JOBS=(webp png png2webp)
for round in $(seq 0 "$ROUNDS"); do
  for job in "${JOBS[@]}"; do
    for tool in "${TOOLS[@]}"; do
      /usr/bin/time -f "%e %U %S" -o "$D/time" bash -c "$(declare -f run); WORKBENCH='$WORKBENCH' BEFORE='${BEFORE:-}' D='$D' OUT='$OUT' PY='$PY' ROOT='$ROOT' run $tool $job" >/dev/null 2>&1
      [ "$round" -gt 0 ] && echo "$job $tool $(cat "$D/time")" >> "$D/times"
    done
  done
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "$(find "$D/crops" -name '*.jpg' | wc -l) crops, $(find "$D/products" -name '*.png' | wc -l) product PNGs, $ROUNDS rounds, $(nproc) cores"
printf '| job | tool | wall s | CPU s | workbench CPU ÷ tool CPU |\n|---|---|---|---|---|\n'
for job in "${JOBS[@]}"; do
  wb=$(awk -v j="$job" '$1 == j && $2 == "workbench" { print $4 + $5 }' "$D/times" | median)
  for tool in "${TOOLS[@]}"; do
    wall=$(awk -v j="$job" -v t="$tool" '$1 == j && $2 == t { print $3 }' "$D/times" | median)
    cpu=$(awk -v j="$job" -v t="$tool" '$1 == j && $2 == t { print $4 + $5 }' "$D/times" | median)
    printf '| %s | %s | %.2f | %.2f | %.2f |\n' "$job" "$tool" "$wall" "$cpu" "$(echo "$wb / $cpu" | bc -l)"
  done
done
