#!/usr/bin/env bash
# Images for the web (issue targets), side by side in one run:
#   1. the full srcset — AVIF, WebP and JPEG at 480, 960 and 1920 px — made by workbench's whole
#      web job (Presets/responsive-images.json: the images, a page and a JSON entry each, the
#      index) and by pyvips (bench/web-srcset-pyvips.py; images only) with the same numbers
#      (AVIF Q 51 effort 3, WebP and JPEG Q 75) and with libvips' AVIF defaults (Q 50 effort 4,
#      the bytes and quality our AVIF defaults were chosen to match), RUNS paired runs, medians
#      of wall and CPU, the largest peak RSS of one process;
#   2. the placeholder (ThumbHash and dominant colour, `picture` with "as": "json") per photo,
#      from workbench's --report;
#   3. the markup alone for N items (`picture` without placeholder, bench/web-markup.json over N
#      copies of one small JPEG), from --report, with one worker (so the op's clock is not shared
#      with a neighbour's encode).
#
# usage: bench/web-srcset.sh PHOTO_DIR [RUNS] [N] [PYTHON]   (defaults 3 runs, 10000 items)
#   PHOTO_DIR  the reference corpus (../shared/bench/make-corpus.sh DIR: 25 photos)
#   PYTHON     a python with pyvips (pip install pyvips)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PHOTOS=$(cd "${1:?usage: bench/web-srcset.sh PHOTO_DIR [RUNS] [N] [PYTHON]}" && pwd)
RUNS=${2:-3}
N=${3:-10000}
PY=${4:-python3}
. "$ROOT/bench/lib.sh"
needs "time bc" /usr/bin/time bc
needs "libvips-tools" vips
"$PY" -c 'import pyvips' 2>/dev/null || { echo "needs pyvips for $PY (pip install pyvips)" >&2; exit 2; }
release_workbench
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export VIPS_CONCURRENCY=1
COUNT=$(find -L "$PHOTOS" -maxdepth 1 -name '*.jpg' | wc -l)

workbench() { rm -rf "$WORK/workbench"; "$WORKBENCH" run "$ROOT/Presets/responsive-images.json" "$PHOTOS" --out "$WORK/workbench" --quiet --report "$WORK/report.json" >/dev/null; }
pyvips() { rm -rf "$WORK/pyvips"; "$PY" "$ROOT/bench/web-srcset-pyvips.py" "$PHOTOS" "$WORK/pyvips"; }
pyvips_e4() { rm -rf "$WORK/pyvips_e4"; "$PY" "$ROOT/bench/web-srcset-pyvips.py" "$PHOTOS" "$WORK/pyvips_e4" 50 4; }
export -f workbench pyvips pyvips_e4
TOOLS=(workbench pyvips pyvips_e4)
export PHOTOS WORK WORKBENCH ROOT PY

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
bytes() { find "$1" -maxdepth 1 \( -name '*.avif' -o -name '*.webp' -o -name '*.jpeg' \) -printf '%s\n' | awk '{ s += $1 } END { print s }'; }

printf 'full srcset: %d photos, 9 images each (+ page, JSON and index for workbench), %d paired runs, %d cores\n' "$COUNT" "$RUNS" "$(nproc)"
printf '| tool | wall s | CPU s | peak RSS MiB | image bytes |\n|---|---|---|---|---|\n'
for tool in "${TOOLS[@]}"; do
  printf '| %s | %.2f | %.2f | %.0f | %s |\n' "$tool" "$(column_of $tool 1 | median)" "$(column_of $tool 2 | median)" \
    "$(echo "$(column_of $tool 3 | sort -g | tail -1) / 1024" | bc -l)" "$(bytes "$WORK/$tool")"
done
verdict() { [ "$(echo "$1" | bc -l)" = 1 ] && echo met || echo "NOT met"; }
rss_w=$(column_of workbench 3 | sort -g | tail -1)
for peer in pyvips pyvips_e4; do
  cpu_ratio=$(echo "$(column_of workbench 2 | median) / $(column_of $peer 2 | median)" | bc -l)
  rss_p=$(column_of $peer 3 | sort -g | tail -1)
  printf 'against %s: CPU %.2f× (target ≤ 0.8×: %s); peak RSS %.2f× (target ≤ 1: %s)\n' "$peer" "$cpu_ratio" "$(verdict "$cpu_ratio <= 0.8")" \
    "$(echo "$rss_w / $rss_p" | bc -l)" "$(verdict "$rss_w <= $rss_p")"
done

# The placeholder per photo: the JSON picture's time (decoding the 480 px file at 100 px, the
# ThumbHash and the colour) from the last run's report.
read -r p50 p95 < <(python3 - "$WORK/report.json" <<'PY'
import json, sys
# The two pictures share one op: the page's (with "placeholder": true) and the JSON's take alike.
op = next(o for o in json.load(open(sys.argv[1]))["ops"] if o["op"] == "picture")
print(f'{op["p50Seconds"] * 1000:.2f} {op["p95Seconds"] * 1000:.2f}')
PY
)
printf 'placeholder (ThumbHash + colour) a photo: p50 %s ms, p95 %s ms (target ≤ 2 ms: %s)\n' "$p50" "$p95" "$(verdict "$p50 <= 2")"

# The markup alone for N items: N links to one small JPEG.
mkdir -p "$WORK/many"
vips thumbnail "$(find -L "$PHOTOS" -maxdepth 1 -name '*.jpg' | sort | head -1)" "$WORK/small.jpg" 64
for i in $(seq -w 1 "$N"); do ln -s "$WORK/small.jpg" "$WORK/many/p$i.jpg"; done
"$WORKBENCH" run "$ROOT/bench/web-markup.json" "$WORK/many" --out "$WORK/markup" --quiet --jobs 1 --report "$WORK/markup.json" >/dev/null
total=$(python3 -c 'import json, sys; print(next(o for o in json.load(open(sys.argv[1]))["ops"] if o["op"] == "picture")["totalSeconds"])' "$WORK/markup.json")
printf 'markup for %d photos: %.3f s of picture (target ≤ 1 s for 10,000: %s)\n' "$N" "$total" "$(verdict "$total * 10000 / $N <= 1")"
