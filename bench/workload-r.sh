#!/usr/bin/env bash
# Workload R (the responsive srcset: each photo at 480, 960 and 1920 px wide, as WebP and JPEG
# at quality 80) with FilterWorkbench and its peers, side by side in one run.
#
# usage: bench/workload-r.sh PHOTO_DIR [RUNS] [PYTHON]
#   PHOTO_DIR  JPEG photos (the reference corpus: ../shared/bench/make-corpus.sh DIR)
#   RUNS       timed runs per tool after one warm-up, interleaved (default 3)
#   PYTHON     a python with pyvips, pillow and numpy (default python3); set one up with
#              python3 -m venv /tmp/w && /tmp/w/bin/pip install pyvips pillow numpy
#              Peers whose package is missing are skipped, and said so.
# Set BEFORE=/path/to/an/older/workbench to add it as a row (before/after a change).
#
# Tools: workbench = bench/workload-r.json (default settings: the direct path); libvips = the same
# with "engine": "libvips" on its decode; pyvips = bench/workload-r-pyvips.py
# (thumbnail per width, copy_memory, two saves); pillow = bench/workload-r-pillow.py (draft,
# LANCZOS, reducing_gap 2). Every tool uses both cores; libvips tools get VIPS_CONCURRENCY=1.
# Reported: median wall and CPU seconds (user + system), the largest peak RSS of one process,
# decodes per photo (workbench: from --report), and mean PSNR of the JPEG and the WebP outputs
# at each width against a careful reference (bench/workload-r-quality.py).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PHOTOS=$(cd "${1:?usage: bench/workload-r.sh PHOTO_DIR [RUNS] [PYTHON]}" && pwd)
RUNS=${2:-3}
PY=${3:-python3}
. "$ROOT/bench/lib.sh"
needs "time bc" /usr/bin/time bc
release_workbench
WORK=$(mktemp -d /dev/shm/workload-r.XXXXXX 2>/dev/null || mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export VIPS_CONCURRENCY=1
COUNT=$(find -L "$PHOTOS" -maxdepth 1 -iname '*.jp*g' | wc -l)

workbench() { rm -rf "$WORK/workbench"; "$WORKBENCH" run "$ROOT/bench/workload-r.json" "$PHOTOS" --out "$WORK/workbench" --quiet >/dev/null; }
libvips() { rm -rf "$WORK/libvips"; "$WORKBENCH" run "$ROOT/bench/workload-r.json" "$PHOTOS" --out "$WORK/libvips" --quiet --set image.engine=libvips >/dev/null; }
before() { rm -rf "$WORK/before"; "$BEFORE" run "$ROOT/bench/workload-r.json" "$PHOTOS" --out "$WORK/before" --quiet >/dev/null; }
pyvips() { rm -rf "$WORK/pyvips"; "$PY" "$ROOT/bench/workload-r-pyvips.py" "$PHOTOS" "$WORK/pyvips"; }
pillow() { rm -rf "$WORK/pillow"; "$PY" "$ROOT/bench/workload-r-pillow.py" "$PHOTOS" "$WORK/pillow"; }

TOOLS=(workbench libvips)
[ -n "${BEFORE:-}" ] && TOOLS+=(before)
if "$PY" -c 'import pyvips' 2>/dev/null; then TOOLS+=(pyvips); else echo "pyvips not found for $PY: skipped" >&2; fi
if "$PY" -c 'import PIL' 2>/dev/null; then TOOLS+=(pillow); else echo "Pillow not found for $PY: skipped" >&2; fi
export -f workbench libvips before pyvips pillow
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
# Decodes per photo: the "decodes" of each item in the run's --report (one per decode of a file's pixels).
decodes() {
  rm -rf "$WORK/count"
  "$1" run "$ROOT/bench/workload-r.json" "$PHOTOS" --out "$WORK/count" --quiet --report "$WORK/count.json" "${@:2}" >/dev/null
  python3 -c 'import json, sys; print(sum(len(i["decodes"]) for i in json.load(open(sys.argv[1]))["items"]))' "$WORK/count.json"
}
declare -A PSNR WEBP DECODES
DECODES[workbench]=$(printf "%.2f" "$(echo "$(decodes "$WORKBENCH") / $COUNT" | bc -l)")
DECODES_LIBVIPS=$(printf "%.2f" "$(echo "$(decodes "$WORKBENCH" --set image.engine=libvips) / $COUNT" | bc -l)")
DECODES[libvips]=$DECODES_LIBVIPS
DECODES[before]=-  # (its report does not say)
DECODES[pyvips]=3; DECODES[pillow]=3
if "$PY" -c 'import pyvips, numpy' 2>/dev/null; then
  i=0; while read -r value; do PSNR[${TOOLS[$i]}]=$value; i=$((i + 1)); done < <("$PY" "$ROOT/bench/workload-r-quality.py" "$PHOTOS" "${TOOLS[@]/#/$WORK/}")
  i=0; while read -r value; do WEBP[${TOOLS[$i]}]=$value; i=$((i + 1)); done < <("$PY" "$ROOT/bench/workload-r-quality.py" --ext webp "$PHOTOS" "${TOOLS[@]/#/$WORK/}")
fi
printf 'workload R: %d photos in %s, 6 files each, %d runs per tool after a warm-up, %d cores\n' "$COUNT" "$PHOTOS" "$RUNS" "$(nproc)"
printf '| tool | wall s (min–max) | CPU s | peak RSS MiB | decodes / photo | JPEG PSNR dB at 480 / 960 / 1920 | WebP PSNR dB |\n|---|---|---|---|---|---|---|\n'
for tool in "${TOOLS[@]}"; do
  wall=$(column_of "$tool" 1 | median); cpu=$(column_of "$tool" 2 | median)
  lo=$(column_of "$tool" 1 | sort -g | head -1); hi=$(column_of "$tool" 1 | sort -g | tail -1)
  rss=$(column_of "$tool" 3 | sort -g | tail -1)
  printf '| %s | %.2f (%.2f–%.2f) | %.2f | %.0f | %s | %s | %s |\n' "$tool" "$wall" "$lo" "$hi" "$cpu" "$(echo "$rss / 1024" | bc -l)" \
    "${DECODES[$tool]}" "${PSNR[$tool]:--}" "${WEBP[$tool]:--}"
done

# Issue 47's targets, from the medians above.
best_wall=1e9; best_cpu=1e9
for tool in pyvips pillow; do
  [ -f "$WORK/$tool.results" ] || continue
  w=$(column_of "$tool" 1 | median); c=$(column_of "$tool" 2 | median)
  best_wall=$(awk -v a="$w" -v b="$best_wall" 'BEGIN { print (a < b) ? a : b }')
  best_cpu=$(awk -v a="$c" -v b="$best_cpu" 'BEGIN { print (a < b) ? a : b }')
done
if [ -f "$WORK/pyvips.results" ]; then
  w=$(column_of workbench 1 | median); c=$(column_of workbench 2 | median)
  rss=$(column_of workbench 3 | sort -g | tail -1); prss=$(column_of pyvips 3 | sort -g | tail -1)
  echo "$w $best_wall $c $best_cpu" | awk '{ a = $1 / $2; b = $3 / $4
    printf "target: wall and CPU ≤ 0.8× the fastest peer: %s (wall %.2f×, CPU %.2f×)\n", (a <= 0.8 && b <= 0.8) ? "met" : "NOT met", a, b }'
  echo "$rss $prss" | awk '{ printf "target: peak RSS ≤ pyvips'"'"': %s (%.0f vs %.0f MiB)\n", ($1 <= $2) ? "met" : "NOT met", $1 / 1024, $2 / 1024 }'
  echo "${PSNR[workbench]:-} ${PSNR[pyvips]:-}" | awk 'NF == 6 { ok = ($1 >= $4 - 0.1 && $2 >= $5 - 0.1 && $3 >= $6 - 0.1)
    printf "target: PSNR no more than 0.1 dB under pyvims at each width: %s\n", ok ? "met" : "NOT met" }' | sed 's/pyvims/pyvips/'
  printf 'target: 1 decode per photo: %s\n' "$( [ "$(printf '%.0f' "${DECODES[workbench]}")" = 1 ] && echo met || echo "NOT met")"
fi
