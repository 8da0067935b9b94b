#!/usr/bin/env bash
# Runs the sample presets (and the srcset) over a folder of photos under address-space limits
# (`ulimit -v`) from 96 MiB to 1 GiB, many times, and counts how each run ended: refused before
# any work (exit 2, with the advice), done (0) or some items failed (1) — and any abort (134,
# a signal) or hang (124), which must never happen. Then each preset once at the limit it
# advises, where every item must be made.
#
# usage: bench/memory-caps.sh PHOTO_DIR [RUNS]
#   PHOTO_DIR  JPEG photos (the reference corpus: ../shared/bench/make-corpus.sh DIR)
#   RUNS       runs in all (default 200), spread over the presets and limits
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PHOTOS=$(cd "${1:?usage: bench/memory-caps.sh PHOTO_DIR [RUNS]}" && pwd)
RUNS=${2:-200}
. "$ROOT/bench/lib.sh"
release_workbench
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
PRESETS="sepia-thumbnails responsive-images film-look watermark-sheet"
mkdir -p "$WORK/samples"
cp "$ROOT/Presets/samples/logo.png" "$WORK/samples/"
for p in $PRESETS; do
  sed -e 's#"\$schema": "schema/preset.schema.json",##' -e "s#\"glob\": \"samples/\*.jpg\"#\"glob\": \"$PHOTOS/*.jpg\"#" \
    "$ROOT/Presets/$p.json" > "$WORK/$p.json"
done
declare -A ended
bad=0
for i in $(seq 0 $((RUNS - 1))); do
  set -- $PRESETS
  shift $((i % 4))
  preset=$1
  mib=$((96 + (i * 37) % 929))
  set +e
  output=$( (ulimit -v $((mib << 10)); timeout 600 "$WORKBENCH" run "$WORK/$preset.json" --out "$WORK/out" --force -q 2>&1) )
  code=$?
  set -e
  rm -rf "$WORK/out"
  case $code in
    0|1|2|127) ;;
    *) bad=$((bad + 1)); echo "ulimit -v $((mib << 10)) $preset: exit $code"; echo "$output" | tail -3 ;;
  esac
  ended[$code]=$(( ${ended[$code]:-0} + 1 ))
done
echo "$RUNS runs, limits 96–1024 MiB: $(for c in "${!ended[@]}"; do printf 'exit %s ×%s; ' "$c" "${ended[$c]}"; done)aborts or hangs: $bad"
for p in $PRESETS; do
  set +e
  advice=$( (ulimit -v $((200 << 10)); "$WORKBENCH" run "$WORK/$p.json" --out "$WORK/out" -q 2>&1) | grep -o 'ulimit -v [0-9]*)' | head -1 | tr -dc 0-9)
  second=$( (ulimit -v "$advice"; "$WORKBENCH" run "$WORK/$p.json" --out "$WORK/out" -q 2>&1) | grep -o 'Raise the limit (ulimit -v [0-9]*)' | tr -dc 0-9)
  limit=${second:-$advice}
  result=$( (ulimit -v "$limit"; "$WORKBENCH" run "$WORK/$p.json" --out "$WORK/out" --force -q 2>&1) | tail -1)
  set -e
  rm -rf "$WORK/out"
  echo "$p at its advice (ulimit -v $limit): $result"
done
[ "$bad" = 0 ]
