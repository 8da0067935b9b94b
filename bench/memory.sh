#!/usr/bin/env bash
# Whether memory stays flat as the work grows: workload W (bench/workload-w.json) over the
# photos once, ten times and a hundred times over (symlinks with distinct names), each in a
# fresh output folder. Prints peak RSS (GNU time's %M) and wall time per size, and the peak as
# a multiple of the 1x run's: flat means every ratio within 0.9-1.1.
#
# usage: bench/memory.sh PHOTO_DIR [TIMES...]     (default TIMES: 1 10 100)
#   PHOTO_DIR  JPEG photos (the reference corpus: ../shared/bench/make-corpus.sh DIR)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PHOTOS=$(cd "${1:?usage: bench/memory.sh PHOTO_DIR [TIMES...]}" && pwd)
shift
TIMES=${*:-1 10 100}
. "$ROOT/bench/lib.sh"
needs time /usr/bin/time
release_workbench
BIN=$WORKBENCH
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

printf '| photos | wall s | img/s | peak RSS MiB | peak / 1x |\n|---|---|---|---|---|\n'
first=""
for times in $TIMES; do
  mkdir -p "$WORK/in-$times"
  for i in $(seq "$times"); do
    find "$PHOTOS" -maxdepth 1 -iname '*.jp*g' | while read -r f; do ln -sf "$f" "$WORK/in-$times/$i-$(basename "$f")"; done
  done
  count=$(find "$WORK/in-$times" -maxdepth 1 -name '*.jp*g' | wc -l)
  rm -rf "$WORK/out"
  /usr/bin/time -f '%e %M' -o "$WORK/time" "$BIN" run "$ROOT/bench/workload-w.json" "$WORK/in-$times" --out "$WORK/out" -q >/dev/null
  read -r wall rss < "$WORK/time"
  [ -n "$first" ] || first=$rss
  printf '| %d | %.2f | %.1f | %.0f | %.2f |\n' "$count" "$wall" "$(echo "$count / $wall" | bc -l)" "$(echo "$rss / 1024" | bc -l)" "$(echo "$rss / $first" | bc -l)"
  rm -rf "$WORK/in-$times"
done
