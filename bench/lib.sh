# What the bench scripts share; sourced by them (after setting ROOT), not run.

# needs "PACKAGES" TOOL...: stops (exit 2) naming the Debian packages when a tool is missing.
needs() {
  local packages=$1
  shift
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "needs $tool (apt-get install $packages)" >&2; exit 2; }
  done
}

# release_workbench: builds the release binary quietly and sets WORKBENCH to its path.
release_workbench() {
  swift build -c release --package-path "$ROOT" --product workbench >/dev/null 2>&1 \
    || { echo "release build failed: run swift build -c release" >&2; exit 1; }
  WORKBENCH="$ROOT/.build/release/workbench"
}

# metadata_crops PHOTO_DIR DIR MIX: 1024×600 crops of the photos with `vips crop` (EXIF and XMP
# stay) in DIR/crops, made once: MIX=srgb, every sixth with libvips' sRGB profile; MIX=wide, two
# in three with a profile, alternately sRGB and Adobe RGB (1998) (pixels converted into it, as an
# editor saves them).
metadata_crops() {
  local PHOTOS=$1 D=$2 MIX=$3 p w h x y k i name options
  [ -f "$D/crops/.done" ] && return
  rm -rf "$D/crops"; mkdir -p "$D/crops"
  # An Adobe RGB (1998) display profile (D50 primaries, gamma 2.2), written field by field.
  python3 - "$D/adobe.icc" <<'PY'
import struct, sys
def xyz(x, y, z): return b"XYZ " + bytes(4) + b"".join(struct.pack(">i", round(v * 65536)) for v in (x, y, z))
name = b"Adobe RGB (1998) (bench)"
desc = b"desc" + bytes(4) + struct.pack(">I", len(name) + 1) + name + b"\0" + bytes(8) + bytes(3) + bytes(67)
curve = b"curv" + bytes(4) + struct.pack(">I", 1) + b"\x02\x33" + bytes(2)
tags = [(b"desc", desc), (b"cprt", b"text" + bytes(4) + b"No copyright\0"), (b"wtpt", xyz(0.9642, 1.0, 0.8249)),
        (b"rXYZ", xyz(0.6097, 0.3111, 0.0195)), (b"gXYZ", xyz(0.2053, 0.6257, 0.0609)), (b"bXYZ", xyz(0.1492, 0.0632, 0.7446)),
        (b"rTRC", curve), (b"gTRC", curve), (b"bTRC", curve)]
start, table, bodies = 128 + 4 + 12 * len(tags), struct.pack(">I", len(tags)), b""
for signature, body in tags:
    table += signature + struct.pack(">II", start + len(bodies), len(body))
    bodies += body + bytes(-len(body) % 4)
header = struct.pack(">I", start + len(bodies)) + bytes(4) + b"\x02\x10\0\0" + b"mntrRGB XYZ " + bytes(12) + b"acsp" + bytes(24)
header += bytes(4) + b"".join(struct.pack(">i", round(v * 65536)) for v in (0.9642, 1.0, 0.8249)) + bytes(48)
open(sys.argv[1], "wb").write(header + table + bodies)
PY
  i=0
  for p in "$PHOTOS"/*.jpg; do
    w=$(vipsheader -f width "$p" 2>/dev/null); h=$(vipsheader -f height "$p" 2>/dev/null)
    [ "$w" -gt 1024 ] && [ "$h" -gt 600 ] || continue
    for k in $(seq 0 11); do
      x=$(( (k * 137) % (w - 1024) )); y=$(( (k * 89) % (h - 600) ))
      name="$D/crops/crop$(printf %04d $i).jpg"
      if [ "$MIX" = wide ]; then
        case $((i % 3)) in
          0) vips crop "$p" "$name[Q=90]" "$x" "$y" 1024 600 2>/dev/null ;;
          1) vips crop "$p" "$name[Q=90,profile=srgb]" "$x" "$y" 1024 600 2>/dev/null ;;
          2) vips crop "$p" "$D/crop.v" "$x" "$y" 1024 600 2>/dev/null
             # A grey photo has no RGB to convert: it stays plain.
             vips icc_transform "$D/crop.v" "$name[Q=90]" "$D/adobe.icc" --input-profile srgb 2>/dev/null \
               || vips crop "$p" "$name[Q=90]" "$x" "$y" 1024 600 2>/dev/null ;;
        esac
      else
        if [ $((i % 6)) -eq 0 ]; then options="[Q=90,profile=srgb]"; else options="[Q=90]"; fi
        vips crop "$p" "$name$options" "$x" "$y" 1024 600 2>/dev/null
      fi
      i=$((i + 1))
    done
  done
  touch "$D/crops/.done"
}
