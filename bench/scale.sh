#!/usr/bin/env bash
# How a run's cost grows with its number of items: N small distinct JPEGs through
# thumbnail 64 -> JPEG q80, then a rerun that finds them all up to date.
#
# usage: bench/scale.sh [N...]            (default: 10000 100000 1000000)
#   SRC=photo.jpg  the photo the inputs are made from (default: the first sample photo)
#   SCALE_DIR=dir  where inputs and outputs go (default /tmp/workbench-scale; 1M items take
#                  about 4 GB of inputs and 2 GB of outputs there)
#
# Inputs: one 128 px wide JPEG, copied N times with a different comment segment each (valid,
# distinct bytes, so every content hash differs). Made once per N and kept for the next time.
# Per N it prints: first run wall, items/s, peak RSS (GNU time); the rerun's wall and peak RSS;
# the manifest log's bytes per item and how many bytes the rerun added to it (0: a record found
# unchanged is not written again); with strace present, the write calls per item a 10,000-item
# run makes to the manifest.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NS=${*:-10000 100000 1000000}
D=${SCALE_DIR:-/tmp/workbench-scale}
SRC=${SRC:-$ROOT/Tests/Support/Photos/camera-cups.jpg}
. "$ROOT/bench/lib.sh"
needs "libvips-tools time python3 bc" vips /usr/bin/time python3 bc
release_workbench
BIN=$WORKBENCH
mkdir -p "$D"
[ -f "$D/base.jpg" ] || vips thumbnail "$SRC" "$D/base.jpg[Q=85,strip]" 128
cat > "$D/thumbs.json" <<'JSON'
{ "version": 1, "graph": [ { "id": "s", "op": "read" }, { "id": "d", "op": "decode" },
  { "id": "t", "op": "thumbnail", "width": 64 }, { "id": "e", "op": "encode", "format": "jpeg", "Q": 80 },
  { "id": "w", "op": "write", "path": "{name}.jpg" } ] }
JSON

printf '| items | first run s | items/s | peak RSS MiB | rerun s | rerun peak RSS MiB | manifest B/item | rerun adds B |\n|---|---|---|---|---|---|---|---|\n'
for N in $NS; do
  IN=$D/in-$N
  if [ ! -f "$IN/.done" ]; then
    rm -rf "$IN"; mkdir -p "$IN"
    python3 - "$D/base.jpg" "$IN" "$N" <<'PY'
import sys
base, out, n = open(sys.argv[1], "rb").read(), sys.argv[2], int(sys.argv[3])
for i in range(n):
    comment = b"item %d" % i
    segment = b"\xff\xfe" + (len(comment) + 2).to_bytes(2, "big") + comment
    with open("%s/img%07d.jpg" % (out, i), "wb") as f:
        f.write(base[:2] + segment + base[2:])
PY
    touch "$IN/.done"
  fi
  O=$D/out-$N; rm -rf "$O"
  /usr/bin/time -f '%e %M' -o "$D/first" "$BIN" run "$D/thumbs.json" "$IN" --out "$O" -q >/dev/null 2>"$D/err" || { echo "run of $N failed:" >&2; tail -3 "$D/err" >&2; }
  log=$(stat -c %s "$O/workbench-manifest.jsonl" 2>/dev/null || echo 0)
  /usr/bin/time -f '%e %M' -o "$D/rerun" "$BIN" run "$D/thumbs.json" "$IN" --out "$O" -q >/dev/null 2>"$D/err" || { echo "rerun of $N failed:" >&2; tail -3 "$D/err" >&2; }
  after=$(stat -c %s "$O/workbench-manifest.jsonl" 2>/dev/null || echo 0)
  read -r w1 m1 < "$D/first"; read -r w2 m2 < "$D/rerun"
  printf '| %d | %.1f | %.0f | %.0f | %.2f | %.0f | %.0f | %d |\n' "$N" "$w1" "$(echo "$N / $w1" | bc -l)" "$(echo "$m1 / 1024" | bc -l)" \
    "$w2" "$(echo "$m2 / 1024" | bc -l)" "$(echo "$log / $N" | bc -l)" "$((after - log))"
done

if command -v strace >/dev/null && [ -f "$D/in-10000/.done" ]; then
  rm -rf "$D/out-strace"
  strace -f -qq -e trace=openat,write -o "$D/strace" "$BIN" run "$D/thumbs.json" "$D/in-10000" --out "$D/out-strace" -q >/dev/null 2>&1 || true
  fd=$(grep -o 'openat([^)]*workbench-manifest.jsonl[^)]*) = [0-9]*' "$D/strace" 2>/dev/null | tail -1 | awk '{print $NF}')
  writes=$(grep -c "write($fd," "$D/strace" 2>/dev/null || echo 0)
  printf 'manifest writes for 10000 items: %d (%.2f per item)\n' "$writes" "$(echo "$writes / 10000" | bc -l)"
fi
