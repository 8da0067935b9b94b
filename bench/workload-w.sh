#!/usr/bin/env bash
# Workload W (each photo: resize to 512 px wide, sepia, JPEG quality 85, on both cores) with
# FilterWorkbench and its peers, side by side in one run, against the decode floor.
#
# usage: bench/workload-w.sh PHOTO_DIR [RUNS] [PYTHON]
#   PHOTO_DIR  JPEG photos (the reference corpus: ../shared/bench/make-corpus.sh DIR)
#   RUNS       timed runs per tool after one warm-up, interleaved (default 7)
#   PYTHON     a python with the peers' packages (default python3); set one up with
#              python3 -m venv /tmp/w && /tmp/w/bin/pip install pyvips pillow opencv-python-headless numpy
#              Peers whose package is missing are skipped, and said so.
# Set X10=1 to run the same photos ten times over (symlinks) and see whether memory stays flat.
# Set BEFORE=/path/to/an/older/workbench to add it as a row (before/after a change), and PEERS=0
# to leave out the peers (the floor and workbench's rows only).
#
# Tools: decode floor = `djpeg -scale 1/8` on every photo, two at a time (libjpeg-turbo-progs);
# workbench = bench/workload-w.json (libvips' headroom, the default), workbench_fast = the same with
# `--set thumb.fastShrink=true` (the smallest DCT scale that covers 512 px); opencv = bench/workload-w-opencv.py (INTER_AREA, its
# resampler for shrinking) and opencv_lanczos (INTER_LANCZOS4: libvips' kind of resampler);
# pillow = bench/workload-w-pillow.py; pyvips = bench/workload-w-pyvips.py; vips CLI =
# vipsthumbnail then vips recomb per photo, two at a time; libvips C = bench/workload-w.c (the
# same work and process settings written directly against libvips, built with gcc if present).
# Every tool uses both cores; libvips tools get VIPS_CONCURRENCY=1.
# Reported: median wall and CPU seconds (user + system), the largest peak RSS of one process
# (GNU time's %M: for the Python peers that is one worker), wall and CPU as multiples of the
# decode floor, and output quality as PSNR against a careful reference (full decode, Lanczos-3,
# sepia in floating point: bench/workload-w-quality.py, needs pyvips and numpy).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PHOTOS=$(cd "${1:?usage: bench/workload-w.sh PHOTO_DIR [RUNS] [PYVIPS_PYTHON]}" && pwd)
RUNS=${2:-7}
PY=${3:-python3}
. "$ROOT/bench/lib.sh"
needs "libjpeg-turbo-progs libvips-tools time bc" djpeg vipsthumbnail /usr/bin/time bc
release_workbench
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export VIPS_CONCURRENCY=1

if [ "${X10:-0}" = 1 ]; then
  mkdir -p "$WORK/photos"
  for i in $(seq 10); do
    find "$PHOTOS" -maxdepth 1 -iname '*.jp*g' | while read -r f; do ln -s "$f" "$WORK/photos/$i-$(basename "$f")"; done
  done
  PHOTOS="$WORK/photos"
fi
COUNT=$(find -L "$PHOTOS" -maxdepth 1 -iname '*.jp*g' | wc -l)

awk 'BEGIN { print "3 3"; print "0.393 0.769 0.189"; print "0.349 0.686 0.168"; print "0.272 0.534 0.131" }' > "$WORK/sepia.mat"

floor() { find -L "$PHOTOS" -maxdepth 1 -iname '*.jp*g' -print0 | xargs -0 -n1 -P2 sh -c 'djpeg -scale 1/8 "$1" >/dev/null' sh; }
workbench() { rm -rf "$WORK/workbench"; "$WORKBENCH" run "$ROOT/bench/workload-w.json" "$PHOTOS" --out "$WORK/workbench" --quiet >/dev/null; }
before() { rm -rf "$WORK/before"; "$BEFORE" run "$ROOT/bench/workload-w.json" "$PHOTOS" --out "$WORK/before" --quiet >/dev/null; }
workbench_fast() { rm -rf "$WORK/workbench_fast"; "$WORKBENCH" run "$ROOT/bench/workload-w.json" "$PHOTOS" --set thumb.fastShrink=true --out "$WORK/workbench_fast" --quiet >/dev/null; }
pyvips() { rm -rf "$WORK/pyvips"; "$PY" "$ROOT/bench/workload-w-pyvips.py" "$PHOTOS" "$WORK/pyvips"; }
opencv() { rm -rf "$WORK/opencv"; "$PY" "$ROOT/bench/workload-w-opencv.py" "$PHOTOS" "$WORK/opencv"; }
opencv_lanczos() { rm -rf "$WORK/opencv_lanczos"; WORKLOAD_W_RESAMPLER=lanczos "$PY" "$ROOT/bench/workload-w-opencv.py" "$PHOTOS" "$WORK/opencv_lanczos"; }
pillow() { rm -rf "$WORK/pillow"; "$PY" "$ROOT/bench/workload-w-pillow.py" "$PHOTOS" "$WORK/pillow"; }
vipscli() {
  rm -rf "$WORK/vipscli"; mkdir -p "$WORK/vipscli"
  find -L "$PHOTOS" -maxdepth 1 -iname '*.jp*g' -print0 | WORK="$WORK" xargs -0 -n1 -P2 sh -c '
    f=$1; b=$(basename "$f"); b=${b%.*}
    vipsthumbnail "$f" -s 512x -o "$WORK/vipscli/$b.v"
    vips recomb "$WORK/vipscli/$b.v" "$WORK/vipscli/$b.jpg[Q=85]" "$WORK/sepia.mat" 2>/dev/null ||
      { vips colourspace "$WORK/vipscli/$b.v" "$WORK/vipscli/$b.s.v" srgb && vips recomb "$WORK/vipscli/$b.s.v" "$WORK/vipscli/$b.jpg[Q=85]" "$WORK/sepia.mat"; }
    rm -f "$WORK/vipscli/$b.v" "$WORK/vipscli/$b.s.v"' sh
}

libvipsc() { rm -rf "$WORK/c"; mkdir -p "$WORK/c"; find -L "$PHOTOS" -maxdepth 1 -iname '*.jp*g' -print0 | xargs -0 "$WORK/workload-w-c" "$WORK/c"; }

TOOLS=(floor workbench workbench_fast)
[ -n "${BEFORE:-}" ] && TOOLS+=(before)
if [ "${PEERS:-1}" = 0 ]; then PY=/nonexistent-python; fi
if "$PY" -c 'import cv2, numpy' 2>/dev/null; then TOOLS+=(opencv opencv_lanczos); else echo "opencv-python-headless not found for $PY: skipped" >&2; fi
if "$PY" -c 'import PIL' 2>/dev/null; then TOOLS+=(pillow); else echo "Pillow not found for $PY: skipped" >&2; fi
if "$PY" -c 'import pyvips' 2>/dev/null; then TOOLS+=(pyvips); else echo "pyvips not found for $PY: skipped" >&2; fi
[ "${PEERS:-1}" = 0 ] || TOOLS+=(vipscli)
if [ "${PEERS:-1}" != 0 ] && command -v gcc >/dev/null && gcc -O2 "$ROOT/bench/workload-w.c" -o "$WORK/workload-w-c" $(pkg-config --cflags --libs vips) -lpthread 2>/dev/null; then
  TOOLS+=(libvipsc)
else
  echo "gcc or libvips-dev missing: the libvips C row is skipped" >&2
fi
export -f floor workbench workbench_fast before pyvips opencv opencv_lanczos pillow vipscli libvipsc
export PHOTOS WORK WORKBENCH BEFORE ROOT PY

measure() { # tool -> "wall cpu rss_kib"
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" bash -c "$1" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$WORK/time"
}

for tool in "${TOOLS[@]}"; do measure "$tool" >/dev/null; done # warm-up
for run in $(seq "$RUNS"); do
  for tool in "${TOOLS[@]}"; do measure "$tool" >> "$WORK/$tool.results"; done
done

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
column_of() { awk -v c="$2" '{ print $c }' "$WORK/$1.results"; }
floor_wall=$(column_of floor 1 | median); floor_cpu=$(column_of floor 2 | median)
printf 'workload W: %d photos in %s, %d runs per tool after a warm-up, %d cores\n' "$COUNT" "$PHOTOS" "$RUNS" "$(nproc)"
declare -A PSNR
if "$PY" -c 'import pyvips, numpy' 2>/dev/null; then
  DIRS=(); for tool in "${TOOLS[@]}"; do [ -d "$WORK/$tool" ] && [ "$tool" != libvipsc ] && DIRS+=("$tool"); done
  i=0; while read -r value; do PSNR[${DIRS[$i]}]=$value; i=$((i + 1)); done < <("$PY" "$ROOT/bench/workload-w-quality.py" "$PHOTOS" "${DIRS[@]/#/$WORK/}")
fi
[ -n "${OPENCV_WALL:-}" ] || OPENCV_WALL=$( [ -f "$WORK/opencv.results" ] && column_of opencv 1 | median || echo 0)
printf '| tool | wall s (min–max) | CPU s | peak RSS MiB | img/s | wall / floor | CPU / floor | wall / OpenCV | PSNR dB |\n|---|---|---|---|---|---|---|---|---|\n'
for tool in "${TOOLS[@]}"; do
  wall=$(column_of "$tool" 1 | median); cpu=$(column_of "$tool" 2 | median)
  lo=$(column_of "$tool" 1 | sort -g | head -1); hi=$(column_of "$tool" 1 | sort -g | tail -1)
  rss=$(column_of "$tool" 3 | sort -g | tail -1)
  vs=-; [ "$OPENCV_WALL" != 0 ] && vs=$(printf '%.2f' "$(echo "$wall / $OPENCV_WALL" | bc -l)")
  printf '| %s | %.3f (%.3f–%.3f) | %.2f | %.0f | %.1f | %.2f | %.2f | %s | %s |\n' "$tool" "$wall" "$lo" "$hi" "$cpu" "$(echo "$rss / 1024" | bc -l)" \
    "$(echo "$COUNT / $wall" | bc -l)" "$(echo "$wall / $floor_wall" | bc -l)" "$(echo "$cpu / $floor_cpu" | bc -l)" "$vs" "${PSNR[$tool]:--}"
done

# Issue 36's target 3, from the medians above: the default and the fast scale.
if [ "$OPENCV_WALL" != 0 ]; then
  for tool in workbench workbench_fast; do
    [ -f "$WORK/$tool.results" ] || continue
    wall=$(column_of "$tool" 1 | median)
    echo "$wall $OPENCV_WALL $floor_wall $tool" | awk '{ o = $1 / $2; f = $1 / $3
      printf "target (large photos, %s): wall ≤ 0.75× OpenCV and ≤ 1.1× the decode floor: %s (%.2f×, %.2f×)\n", $4, (o <= 0.75 && f <= 1.1) ? "met" : "NOT met", o, f }'
  done
fi
