#!/usr/bin/env bash
# How the direct path's AVIF defaults were chosen: bytes, CPU and SSIMULACRA2 of our encoder
# (CAVIFCodec: libavif with libaom, quantization matrices on) at Q 50–52 and speed 5–7, against
# libvips' heifsave at its defaults (Q 50, effort 4), each photo at WIDTH px as libvips'
# thumbnail makes it, scored against that thumbnail (the `ssimulacra2` PyPI package).
#
# usage: bench/avif-settings.sh PHOTO_DIR [PHOTOS] [WIDTH]   (default 8 photos at 960 px)
#   needs: gcc, libvips-dev, libavif-dev, python3 with `ssimulacra2` (pip install ssimulacra2)
# Prints one row a setting: total bytes and CPU against libvips', mean score and its difference.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${1:?usage: bench/avif-settings.sh PHOTO_DIR [PHOTOS] [WIDTH]}
COUNT=${2:-8}
WIDTH=${3:-960}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
gcc -O2 -o "$WORK/avif-settings" "$ROOT/bench/avif-settings.c" "$ROOT/Sources/CAVIFCodec/avif_codec.c" \
    -I"$ROOT/Sources/CAVIFCodec/include" $(pkg-config --cflags --libs vips libavif)
for photo in $(ls "$DIR"/*.jpg | head -n "$COUNT"); do
    "$WORK/avif-settings" "$photo" "$(basename "$photo" .jpg)" "$WORK" "$WIDTH"
done > "$WORK/list.csv"
python3 - "$WORK" <<'PY'
import collections, csv, os, statistics, subprocess, sys
from ssimulacra2 import compute_ssimulacra2
work = sys.argv[1]
totals = collections.defaultdict(lambda: [0, 0.0, []])
for name, setting, path, seconds in csv.reader(open(os.path.join(work, "list.csv"))):
    png = path + ".png"
    subprocess.run(["vips", "copy", path, png], check=True, capture_output=True)
    row = totals[setting]
    row[0] += os.path.getsize(path)
    row[1] += float(seconds)
    row[2].append(compute_ssimulacra2(os.path.join(work, f"{name}-ref.png"), png))
base = totals["libvips Q50 effort4"]
print(f"{'setting':22s} {'bytes':>9s} {'× libvips':>9s} {'CPU s':>7s} {'× libvips':>9s} {'SSIMULACRA2':>11s} {'Δ':>6s}")
for setting, (size, seconds, scores) in totals.items():
    mean = statistics.mean(scores)
    print(f"{setting:22s} {size:9d} {size / base[0]:9.2f} {seconds:7.2f} {seconds / base[1]:9.2f} {mean:11.2f} {mean - statistics.mean(base[2]):+6.2f}")
PY
