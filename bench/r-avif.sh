#!/usr/bin/env bash
# Workload R-AVIF (each photo at 480, 960 and 1920 px as AVIF), workbench at its defaults
# (bench/r-avif.json: Q 51, effort 3, the direct path) against pyvips at libvips' defaults
# (bench/r-avif-pyvips.py: Q 50, effort 4), RUNS paired runs: medians of wall and CPU and their
# ratios, the largest peak RSS of one process, total bytes, and the mean SSIMULACRA2 of every
# file against libvips' thumbnail at its width (the `ssimulacra2` PyPI package).
#
# usage: bench/r-avif.sh PHOTO_DIR [RUNS] [COUNT] [PYTHON]   (default 3 runs, the first 8 photos)
#   needs: python with pyvips and ssimulacra2 (pip install pyvips ssimulacra2)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SOURCE=$(cd "${1:?usage: bench/r-avif.sh PHOTO_DIR [RUNS] [COUNT] [PYTHON]}" && pwd)
RUNS=${2:-3}
COUNT=${3:-8}
PY=${4:-python3}
. "$ROOT/bench/lib.sh"
needs "time bc" /usr/bin/time bc
"$PY" -c 'import pyvips, ssimulacra2' 2>/dev/null || { echo "needs pyvips and ssimulacra2 for $PY (pip install pyvips ssimulacra2)" >&2; exit 2; }
release_workbench
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
export VIPS_CONCURRENCY=1
PHOTOS="$WORK/photos"; mkdir -p "$PHOTOS"
for photo in $(find -L "$SOURCE" -maxdepth 1 -name '*.jpg' | sort | head -n "$COUNT"); do ln -s "$photo" "$PHOTOS/"; done

workbench() { rm -rf "$WORK/workbench"; "$WORKBENCH" run "$ROOT/bench/r-avif.json" "$PHOTOS" --out "$WORK/workbench" --quiet >/dev/null; }
pyvips() { rm -rf "$WORK/pyvips"; "$PY" "$ROOT/bench/r-avif-pyvips.py" "$PHOTOS" "$WORK/pyvips"; }
export -f workbench pyvips
export PHOTOS WORK WORKBENCH ROOT PY
measure() { # tool -> "wall cpu rss_kib"
  /usr/bin/time -f "%e %U %S %M" -o "$WORK/time" bash -c "$1" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; exit 1; }
  awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$WORK/time"
}
for tool in workbench pyvips; do measure "$tool" >/dev/null; done # warm-up
for run in $(seq "$RUNS"); do
  for tool in workbench pyvips; do measure "$tool" >> "$WORK/$tool.results"; done
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
column_of() { awk -v c="$2" '{ print $c }' "$WORK/$1.results"; }
"$PY" - "$PHOTOS" "$WORK" <<'PY' > "$WORK/quality"
import os, statistics, sys
import pyvips
from ssimulacra2 import compute_ssimulacra2
photos, work = sys.argv[1], sys.argv[2]
for tool in ["workbench", "pyvips"]:
    scores, total = [], 0
    for name in sorted(os.listdir(photos)):
        stem = os.path.splitext(name)[0]
        for w in [480, 960, 1920]:
            ref = os.path.join(work, f"ref-{stem}-{w}.png")
            if not os.path.exists(ref):
                pyvips.Image.thumbnail(os.path.join(photos, name), w, height=100000, size="down").write_to_file(ref)
            avif = os.path.join(work, tool, f"{stem}-{w}.avif")
            png = avif + ".png"
            pyvips.Image.new_from_file(avif).write_to_file(png)
            scores.append(compute_ssimulacra2(ref, png))
            total += os.path.getsize(avif)
    print(tool, total, f"{statistics.mean(scores):.2f}")
PY
printf 'R-AVIF: %d photos × 480/960/1920 AVIF, %d paired runs after a warm-up, %d cores\n' "$COUNT" "$RUNS" "$(nproc)"
printf '| tool | wall s | CPU s | peak RSS MiB | bytes | SSIMULACRA2 |\n|---|---|---|---|---|---|\n'
for tool in workbench pyvips; do
  read -r _ bytes score < <(grep "^$tool " "$WORK/quality")
  printf '| %s | %.2f | %.2f | %.0f | %s | %s |\n' "$tool" "$(column_of $tool 1 | median)" "$(column_of $tool 2 | median)" \
    "$(echo "$(column_of $tool 3 | sort -g | tail -1) / 1024" | bc -l)" "$bytes" "$score"
done
verdict() { [ "$(echo "$1" | bc -l)" = 1 ] && echo met || echo "NOT met"; }
wall=$(echo "$(column_of workbench 1 | median) / $(column_of pyvips 1 | median)" | bc -l)
cpu=$(echo "$(column_of workbench 2 | median) / $(column_of pyvips 2 | median)" | bc -l)
read -r _ wb ws < <(grep "^workbench " "$WORK/quality"); read -r _ pb ps < <(grep "^pyvips " "$WORK/quality")
bytes=$(echo "$wb / $pb" | bc -l); delta=$(echo "$ws - $ps" | bc -l)
printf 'wall %.2f× and CPU %.2f× (targets ≤ 0.5×: %s, %s); bytes %.3f× (≤ 1.05×: %s); SSIMULACRA2 %+.2f (≥ −1: %s)\n' \
  "$wall" "$cpu" "$(verdict "$wall <= 0.5")" "$(verdict "$cpu <= 0.5")" "$bytes" "$(verdict "$bytes <= 1.05")" "$delta" "$(verdict "$delta >= -1")"
