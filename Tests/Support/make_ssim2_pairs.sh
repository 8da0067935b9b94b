#!/bin/sh
# Makes the pairs SSIMULACRA2 is checked on, with the vips command-line tool (not the code under
# test): the sample photos cut to sizes from 8 × 8 to 4 MP, every third one grey, each against
# itself and against lossy encodes (JPEG, WebP, AVIF at several qualities) and a blur, all as
# PNGs. Usage: make_ssim2_pairs.sh SAMPLES_DIR OUT_DIR; writes OUT_DIR/pairs.tsv
# ("original<TAB>distorted<TAB>label" a line).
set -eu
samples=$1
out=$2
mkdir -p "$out"
: > "$out/pairs.tsv"
n=0
photos="Bridge sunset Wine aitzgorri seeding Picture_0B"
for size in 8x8 9x12 13x8 16x16 31x17 64x48 100x75 256x171 640x427 1024x683 1600x1067 2448x1632; do
    w=${size%x*}
    h=${size#*x}
    n=$((n + 1))
    # One photo a size, in turn; two at the largest sizes, with fewer distortions (the
    # reference takes seconds a pair there).
    set -- $photos
    shift $((n % 6))
    picked=$1
    if [ "$w" -ge 1600 ]; then picked="$picked Wine"; fi
    for photo in $picked; do
        base="$out/$photo-$size"
        vips thumbnail "$samples/$photo.jpg" "$base.png" "$w" --height "$h" --size force
        kind=colour
        if [ $((n % 3)) -eq 0 ] && [ "$photo" != Wine ]; then
            vips colourspace "$base.png" "$base-grey.png" b-w
            mv "$base-grey.png" "$base.png"
            kind=grey
        fi
        if [ "$w" -ge 1600 ]; then
            distortions="jpeg:30 webp:60 avif:45"
        else
            distortions="same jpeg:10 jpeg:40 jpeg:75 jpeg:92 webp:20 webp:60 webp:90 avif:30 avif:60 blur:0.8"
        fi
        for d in $distortions; do
            kindof=${d%%:*}
            value=${d#*:}
            dist="$base-$kindof-$value.png"
            case $kindof in
                same) cp "$base.png" "$dist" ;;
                jpeg) vips jpegsave "$base.png" "$dist.jpg" --Q "$value" && vips copy "$dist.jpg" "$dist" ;;
                webp) vips webpsave "$base.png" "$dist.webp" --Q "$value" && vips copy "$dist.webp" "$dist" ;;
                avif) vips heifsave "$base.png" "$dist.avif" --Q "$value" --compression av1 --effort 2 && vips copy "$dist.avif" "$dist" ;;
                blur) vips gaussblur "$base.png" "$dist" "$value" ;;
            esac
            printf '%s\t%s\t%s %s %s\n' "$base.png" "$dist" "$size" "$kind" "$d" >> "$out/pairs.tsv"
        done
    done
done
