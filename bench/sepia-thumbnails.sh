#!/usr/bin/env bash
# Times the sepia-thumbnails work with FilterWorkbench and with the libvips CLI, side by side.
#
# usage: bench/sepia-thumbnails.sh [PHOTO_DIR] [RUNS]
#   PHOTO_DIR  JPEG photos to process (default: Presets/samples)
#   RUNS       timed runs per tool after one warm-up (default: 7)
#
# Work per photo, for both tools: decode, fit to 512 px wide, sepia at intensity 0.8 (the
# identity blended with the classic sepia matrix), JPEG quality 85 without metadata, write.
#   workbench:  one process, `workbench run Presets/sepia-thumbnails.json PHOTO_DIR`
#   vips CLI:   per photo `vipsthumbnail` then `vips recomb`, two photos at a time (xargs -P2),
#               VIPS_CONCURRENCY=1, as the reference benchmark's peer (a) does.
# Prints every run's wall time and the medians. Needs libvips-tools for the vips CLI.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PHOTOS=$(cd "${1:-$ROOT/Presets/samples}" && pwd)
RUNS=${2:-7}
command -v vipsthumbnail >/dev/null || { echo "needs the vips CLI: apt-get install libvips-tools" >&2; exit 2; }

swift build -c release --package-path "$ROOT" >/dev/null 2>&1 || { echo "release build failed: run swift build -c release" >&2; exit 1; }
WORKBENCH="$ROOT/.build/release/workbench"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# The preset's matrix: (1 - 0.8) * identity + 0.8 * classic sepia.
awk 'BEGIN {
  split("0.393 0.769 0.189 0.349 0.686 0.168 0.272 0.534 0.131", s, " ");
  print "3 3";
  for (r = 0; r < 3; r++) {
    line = "";
    for (c = 0; c < 3; c++) { v = 0.8 * s[r * 3 + c + 1] + (r == c ? 0.2 : 0); line = line sprintf("%s%.4f", c ? " " : "", v) }
    print line
  }
}' > "$WORK/sepia.mat"

run_workbench() {
  rm -rf "$WORK/wb" && "$WORKBENCH" run "$ROOT/Presets/sepia-thumbnails.json" "$PHOTOS" --out "$WORK/wb" --quiet >/dev/null
}

run_vips() {
  rm -rf "$WORK/vips" && mkdir -p "$WORK/vips"
  find "$PHOTOS" -maxdepth 1 -iname '*.jp*g' -print0 | WORK="$WORK" VIPS_CONCURRENCY=1 xargs -0 -n1 -P2 sh -c '
    f=$1; b=$(basename "$f"); b=${b%.*}
    vipsthumbnail "$f" -s 512x -o "$WORK/vips/$b.v"
    vips recomb "$WORK/vips/$b.v" "$WORK/vips/$b.jpg[Q=85,strip]" "$WORK/sepia.mat"
    rm -f "$WORK/vips/$b.v"' sh
}

time_runs() {
  local fn=$1 times=()
  "$fn" # warm-up
  for _ in $(seq "$RUNS"); do
    local start end
    start=$(date +%s.%N); "$fn"; end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc -l)")
  done
  printf '%s\n' "${times[@]}"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

count=$(find "$PHOTOS" -maxdepth 1 -iname '*.jp*g' | wc -l)
wb=$(time_runs run_workbench)
vi=$(time_runs run_vips)
wb_median=$(echo "$wb" | median)
vi_median=$(echo "$vi" | median)
printf 'photos: %d in %s, %d runs each after a warm-up, %d cores\n' "$count" "$PHOTOS" "$RUNS" "$(nproc)"
printf '%-28s %10s %10s   %s\n' "tool" "median s" "img/s" "all runs (s)"
printf '%-28s %10.3f %10.1f   %s\n' "workbench (release)" "$wb_median" "$(echo "$count / $wb_median" | bc -l)" "$(echo $wb | xargs printf '%.3f ')"
printf '%-28s %10.3f %10.1f   %s\n' "vipsthumbnail + vips recomb" "$vi_median" "$(echo "$count / $vi_median" | bc -l)" "$(echo $vi | xargs printf '%.3f ')"
printf 'ratio vips CLI / workbench: %.2f\n' "$(echo "$vi_median / $wb_median" | bc -l)"
