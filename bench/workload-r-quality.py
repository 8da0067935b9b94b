#!/usr/bin/env python3
"""Output quality for bench/workload-r.sh: [--ext EXT] PHOTO_DIR DIR... -> per DIR one line of
mean PSNR (dB) of its outputs at 480, 960 and 1920 px wide: the JPEGs (`jpeg`, the default) or
another of them (`--ext webp`).

The reference for each photo and width is made the slow, careful way: decoded at full size (no
DCT reduction), turned upright by EXIF, Lanczos-3 in floating point by libvips' resize. A tool's
`NAME-WIDTH.EXT` is compared with it (8-bit RGB; a row or column of difference in rounded
height is left out), and the PSNRs of the photos are averaged per width.
"""
import os
import sys

import numpy as np
import pyvips

WIDTHS = (480, 960, 1920)
pyvips.cache_set_max(0)
args = sys.argv[1:]
ext = "jpeg"
if args[:1] == ["--ext"]:
    ext, args = args[1], args[2:]
photos = args[0]
names = sorted(n for n in os.listdir(photos) if n.lower().endswith((".jpg", ".jpeg")))


def rgb(image):
    if image.bands < 3:
        image = image.colourspace("srgb")
    image = image[0:3]
    data = image.cast("float").write_to_memory()
    return np.ndarray(buffer=data, dtype=np.float32, shape=(image.height, image.width, 3)).astype(np.float64)


references = {}
for name in names:
    full = pyvips.Image.new_from_file(os.path.join(photos, name)).autorot().cast("float")
    stem = os.path.splitext(name)[0]
    for width in WIDTHS:
        scale = min(1.0, width / full.width)
        small = full.resize(scale, kernel="lanczos3") if scale < 1 else full
        references[(stem, width)] = np.clip(np.rint(rgb(small)), 0, 255)

for folder in args[1:]:
    means = []
    for width in WIDTHS:
        values = []
        for (stem, w), reference in references.items():
            path = os.path.join(folder, f"{stem}-{w}.{ext}")
            if w != width or not os.path.exists(path):
                continue
            out = rgb(pyvips.Image.new_from_file(path))
            h, wd = min(out.shape[0], reference.shape[0]), min(out.shape[1], reference.shape[1])
            mse = float(((out[:h, :wd] - reference[:h, :wd]) ** 2).mean())
            values.append(10 * np.log10(255 ** 2 / mse) if mse > 0 else 99.0)
        means.append("%.2f" % (sum(values) / len(values)) if values else "-")
    print(" ".join(means))
