#!/usr/bin/env bash
# Our SSIMULACRA2 against libjxl's C++ one (tools/ssimulacra2.cc, what its `ssimulacra2` tool
# runs), on the same pairs, both single-threaded, decoding not counted: each photo's 960 px
# thumbnail against its JPEG at Q 60 and Q 85 (libvips' own thumbnail and saver).
#
# Debian 12's libjxl (0.7) has no SSIMULACRA2: this needs a libjxl source tree of 0.8 or later
# (Debian 13's `apt-get source jpeg-xl` gives 0.11.2; its third_party/highway must hold Highway
# ≥ 1.0.7, e.g. Debian 13's `apt-get source highway`). The script configures it (cmake), builds
# its `ssimulacra2` target once (about 25 minutes on 2 cores), and links
# bench/ssimulacra2-libjxl.cc against the same objects.
#
# usage: bench/ssimulacra2-libjxl.sh LIBJXL_SOURCE PHOTO_DIR [COUNT]   (default 5 photos)
#   prints per pair: our ms, libjxl's ms, both scores; then the medians and the ratio.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SOURCE=$(cd "${1:?usage: bench/ssimulacra2-libjxl.sh LIBJXL_SOURCE PHOTO_DIR [COUNT]}" && pwd)
PHOTOS=$(cd "${2:?usage: bench/ssimulacra2-libjxl.sh LIBJXL_SOURCE PHOTO_DIR [COUNT]}" && pwd)
COUNT=${3:-5}
. "$ROOT/bench/lib.sh"
needs "cmake pkg-config libvips-tools bc" cmake pkg-config vips bc
[ -f "$SOURCE/tools/ssimulacra2.cc" ] || { echo "$SOURCE has no tools/ssimulacra2.cc: libjxl 0.8 or later, please" >&2; exit 2; }
BUILD="$SOURCE/build-workbench"
if [ ! -x "$BUILD/tools/ssimulacra2" ]; then
  echo "building libjxl's ssimulacra2 in $BUILD (once; about 25 minutes on 2 cores)…" >&2
  cmake -S "$SOURCE" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DJPEGXL_ENABLE_TOOLS=ON -DJPEGXL_ENABLE_DEVTOOLS=ON \
    -DJPEGXL_ENABLE_BENCHMARK=OFF -DJPEGXL_ENABLE_EXAMPLES=OFF -DJPEGXL_ENABLE_MANPAGES=OFF -DJPEGXL_ENABLE_SJPEG=OFF \
    -DJPEGXL_ENABLE_OPENEXR=OFF -DJPEGXL_ENABLE_JPEGLI=OFF -DJPEGXL_FORCE_SYSTEM_BROTLI=ON -DJPEGXL_FORCE_SYSTEM_LCMS2=ON \
    -DJPEGXL_ENABLE_SKCMS=OFF -DJPEGXL_ENABLE_DOXYGEN=OFF -DJPEGXL_ENABLE_JNI=OFF -DJPEGXL_ENABLE_VIEWERS=OFF \
    -DJPEGXL_ENABLE_PLUGINS=OFF >/dev/null
  make -C "$BUILD" -j"$(nproc)" ssimulacra2 >/dev/null
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Their harness: the tool's own objects and libraries, our main (the link line cmake wrote for
# the tool, with its main object swapped for ours).
LINK="$BUILD/tools/CMakeFiles/ssimulacra2.dir/link.txt"
FLAGS="$BUILD/tools/CMakeFiles/ssimulacra2.dir/flags.make"
CXX_FLAGS=$(sed -n 's/^CXX_FLAGS = //p' "$FLAGS"); CXX_DEFINES=$(sed -n 's/^CXX_DEFINES = //p' "$FLAGS")
CXX_INCLUDES=$(sed -n 's/^CXX_INCLUDES = //p' "$FLAGS")
( cd "$BUILD/tools"
  eval "c++ $CXX_DEFINES $CXX_INCLUDES $CXX_FLAGS -c '$ROOT/bench/ssimulacra2-libjxl.cc' -o '$WORK/theirs.o'"
  eval "$(sed -e "s#CMakeFiles/ssimulacra2.dir/ssimulacra2_main.cc.o#$WORK/theirs.o#" -e "s# -o ssimulacra2 # -o $WORK/theirs #" "$LINK")" )

# Ours: the kernel as SwiftPM builds it (bench/ssimulacra2-speed.c; its "one pair from nothing").
CLANG=$(command -v clang || echo cc)
"$CLANG" -O2 -ffp-contract=off "$ROOT/bench/ssimulacra2-speed.c" "$ROOT/Sources/CMetrics/ssimulacra2.c" "$ROOT/Sources/CMetrics/levels.c" \
  -I "$ROOT/Sources/CMetrics/include" -I "$ROOT/Sources/CMetrics" $(pkg-config --cflags --libs vips) -lm -lpthread -o "$WORK/ours"

printf '%-28s %4s %10s %12s %10s %12s\n' pair Q "ours ms" "libjxl ms" "ours" "libjxl"
for photo in $(find -L "$PHOTOS" -maxdepth 1 -name '*.jpg' | sort | head -n "$COUNT"); do
  name=$(basename "$photo" .jpg)
  vips thumbnail "$photo" "$WORK/ref.png" 960 --height 100000
  for q in 60 85; do
    vips copy "$WORK/ref.png" "$WORK/cand.jpg[Q=$q]" && vips copy "$WORK/cand.jpg" "$WORK/cand.png"
    read -r prepare first _ score _ < <("$WORK/ours" "$WORK/ref.png" "$WORK/cand.png")
    read -r theirs theirscore < <("$WORK/theirs" "$WORK/ref.png" "$WORK/cand.png")
    ours=$(echo "$prepare + $first" | bc)
    printf '%-28s %4d %10.1f %12.1f %10.3f %12.3f\n' "$name" "$q" "$ours" "$theirs" "$score" "$theirscore"
    echo "$ours $theirs" >> "$WORK/times"
  done
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
o=$(awk '{ print $1 }' "$WORK/times" | median); t=$(awk '{ print $2 }' "$WORK/times" | median)
printf '\nmedian a pair: ours %.1f ms, libjxl %.1f ms: ours %.2f× its speed\n' "$o" "$t" "$(echo "scale=3; $t / $o" | bc)"
