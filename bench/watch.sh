#!/usr/bin/env bash
# `workbench watch` on a folder, beside `run` over the same items, in one go.
#
# usage: bench/watch.sh PHOTO_DIR [COUNT]
#   PHOTO_DIR  JPEG photos (the reference corpus: ../shared/bench/make-corpus.sh DIR)
#   COUNT      photos in the burst (default 1000: small copies of the corpus, 160 px wide)
#
# Prints:
#   latency  each corpus photo renamed into the watched folder one at a time (the next once the
#            last one's output is there): seconds from the rename to the output, p50 and p90,
#            beside the item's own time as the watch reports it (its "ok … s" line) and the
#            difference, which is what watching adds;
#   burst    COUNT small photos renamed in at once: seconds to the last output and items/s,
#            beside `run` over the same COUNT files (a fresh output folder) and the ratio;
#   idle     CPU seconds the watch used over 10 s with nothing arriving, and its resident memory.
# The preset: thumbnail 256 px wide, JPEG quality 80 (bench/watch.json).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PHOTOS=$(cd "${1:?usage: bench/watch.sh PHOTO_DIR [COUNT]}" && pwd)
COUNT=${2:-1000}
. "$ROOT/bench/lib.sh"
needs "libvips-tools python3" vipsthumbnail python3
release_workbench
WORK=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"' EXIT
PRESET="$ROOT/bench/watch.json"
PY="$ROOT/bench/watch-latency.py"

median_of() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
p90_of() { sort -g | awk '{ v[NR] = $1 } END { i = int(NR * 0.9 + 0.5); if (i < 1) i = 1; print v[i] }'; }

start_watch() { # inbox out log
  "$WORKBENCH" watch "$PRESET" "$1" --out "$2" > "$3" 2>&1 &
  WATCH=$!
  PIDS+=("$WATCH")
  for _ in $(seq 600); do grep -q "Watching " "$3" && return; sleep 0.05; done
  echo "the watch did not start:" >&2; cat "$3" >&2; exit 1
}
stop_watch() { kill -TERM "$WATCH"; wait "$WATCH" || true; }

# Latency, one photo at a time.
mkdir -p "$WORK/lat/in" "$WORK/lat/out"
start_watch "$WORK/lat/in" "$WORK/lat/out" "$WORK/lat.log"
mapfile -t CORPUS < <(find "$PHOTOS" -maxdepth 1 -iname '*.jp*g' | sort)
python3 "$PY" latency "$WORK/lat/in" "$WORK/lat/out" "${CORPUS[@]}" > "$WORK/lat.times"
stop_watch
# The item's own seconds, from its line: "ok      lat-3 → lat-3.jpg (12.1 KiB, 0.05 s)".
sed -n 's/^ok      lat-\([0-9]*\) → .*, \([0-9.]*\) s)$/\1 \2/p' "$WORK/lat.log" | sort -n | awk '{ print $2 }' > "$WORK/lat.items"
paste "$WORK/lat.times" "$WORK/lat.items" | awk '{ print $1 - $2 }' > "$WORK/lat.added"
printf 'latency (%d photos, one at a time): rename → output p50 %.3f s, p90 %.3f s; the item itself p50 %.3f s; watching adds p50 %.3f s, p90 %.3f s\n' \
  "${#CORPUS[@]}" "$(median_of < "$WORK/lat.times")" "$(p90_of < "$WORK/lat.times")" "$(median_of < "$WORK/lat.items")" \
  "$(median_of < "$WORK/lat.added")" "$(p90_of < "$WORK/lat.added")"

# The burst: COUNT small photos, made once, renamed in at once; then run over the same files.
mkdir -p "$WORK/small" "$WORK/burst/in" "$WORK/burst/out" "$WORK/staging"
for f in "${CORPUS[@]}"; do vipsthumbnail "$f" -s 160x -o "$WORK/small/$(basename "${f%.*}").jpg[Q=90]" 2>/dev/null; done
mapfile -t SMALL < <(find "$WORK/small" -name '*.jpg' | sort)
for i in $(seq 0 $((COUNT - 1))); do cp "${SMALL[$((i % ${#SMALL[@]}))]}" "$WORK/staging/b-$i.jpg"; done
start_watch "$WORK/burst/in" "$WORK/burst/out" "$WORK/burst.log"
watch_s=$(python3 "$PY" burst "$WORK/burst/in" "$WORK/burst/out" "$WORK/staging")
idle=$(python3 "$PY" idle "$WATCH" 10)
stop_watch
run_s=$( { /usr/bin/time -f "%e" "$WORKBENCH" run "$PRESET" "$WORK/burst/in" --out "$WORK/run-out" --quiet >/dev/null; } 2>&1 | tail -1)
awk -v w="$watch_s" -v r="$run_s" -v n="$COUNT" 'BEGIN {
  printf "burst (%d photos at once): watch %.2f s (%.0f items/s), run %.2f s (%.0f items/s): watch at %.2fx run'"'"'s items/s\n", n, w, n / w, r, n / r, r / w }'
read -r cpu rss <<< "$idle"
printf 'idle (10 s, nothing arriving): %s CPU seconds, %s MiB resident\n' "$cpu" "$rss"
