#!/usr/bin/env bash
# Plugin kernels against the same kernel built in, side by side in one run.
#
# usage: bench/plugins.sh PHOTO_DIR [RUNS] [COUNT]
#   PHOTO_DIR  photos to run (e.g. the corpus of ../shared/bench/make-corpus.sh); the first COUNT
#   RUNS       timed runs of each variant, interleaved, after one warm-up each (default 5)
#   COUNT      photos used (default 20)
#
# The workload: each photo decoded at full size, toned sepia by a Swift kernel, thumbnailed to
# 800 px, written as PNG. Three variants run the same kernel code (bench/plugin-sepia links the
# workbench's own ColourMatrixKernel sources into a plugin):
#   built-in    "op": "sepia", "engine": "swift"
#   in-process  "op": "benchsepia.sepia", "isolation": "none"    (the plugin's library, dlopen'ed)
#   isolated    "op": "benchsepia.sepia"                         (a helper process, shared memory)
#   unsandboxed the isolated preset with WORKBENCH_PLUGIN_SANDBOX=off (the helper unconfined)
# Prints the median wall seconds of each and the ratios the plugin targets name.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PHOTOS=${1:?usage: bench/plugins.sh PHOTO_DIR [RUNS] [COUNT]}
RUNS=${2:-5}
COUNT=${3:-20}
swift build -c release --package-path "$ROOT" --product workbench >/dev/null 2>&1 || { echo "release build failed: run swift build -c release --product workbench" >&2; exit 1; }
WB="$ROOT/.build/release/workbench"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$WB" plugin build "$ROOT/bench/plugin-sepia" --to "$WORK/plugins" >/dev/null 2>&1 || { echo "building bench/plugin-sepia failed" >&2; exit 1; }
mkdir -p "$WORK/photos"
ls "$PHOTOS"/*.jpg | head -n "$COUNT" | while read -r photo; do ln -s "$photo" "$WORK/photos/"; done

preset() {  # name, the filter node's JSON
  cat > "$WORK/$1.json" <<JSON
{ "version": 1, "inputs": { "glob": "photos/*.jpg" },
  "graph": [ { "id": "source", "op": "read" }, { "id": "image", "op": "decode" }, $2,
             { "id": "thumb", "op": "thumbnail", "width": 800 },
             { "id": "png", "op": "encode", "format": "png" }, { "id": "save", "op": "write", "path": "{name}.png" } ] }
JSON
}
preset built-in '{ "id": "tone", "op": "sepia", "engine": "swift" }'
preset in-process '{ "id": "tone", "op": "benchsepia.sepia", "isolation": "none" }'
preset isolated '{ "id": "tone", "op": "benchsepia.sepia" }'

cp "$WORK/isolated.json" "$WORK/unsandboxed.json"
VARIANTS="built-in in-process isolated unsandboxed"
run() {
  local sandbox=on
  [ "$1" = unsandboxed ] && sandbox=off
  WORKBENCH_PLUGIN_SANDBOX=$sandbox "$WB" run "$WORK/$1.json" --plugin-path "$WORK/plugins" --out "$WORK/out-$1" --force -q >/dev/null
}
for v in $VARIANTS; do run "$v"; done  # warm-up: page cache, helper start
for ((i = 0; i < RUNS; i++)); do
  for v in $VARIANTS; do
    start=$(date +%s.%N); run "$v"; end=$(date +%s.%N)
    echo "$v $(echo "$end - $start" | bc)" >> "$WORK/times"
  done
done
median() { grep "^$1 " "$WORK/times" | awk '{print $2}' | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
B=$(median built-in); P=$(median in-process); I=$(median isolated); U=$(median unsandboxed)
echo "Sepia kernel on $(ls "$WORK/photos" | wc -l) photos at full size, then thumbnail 800 px, PNG; median of $RUNS runs, wall s"
printf "%-12s %8s\n" variant seconds
printf "%-12s %8.3f\n" built-in "$B" in-process "$P" isolated "$I" unsandboxed "$U"
printf "in-process / built-in: %.3f×   (target ≤ 1.05×)\n" "$(echo "$P / $B" | bc -l)"
printf "isolated / in-process: %.3f×   (target ≤ 1.3×)\n" "$(echo "$I / $P" | bc -l)"
printf "isolated (sandboxed) / unsandboxed: %.3f×   (target ≤ 1.02×)\n" "$(echo "$I / $U" | bc -l)"
