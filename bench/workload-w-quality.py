#!/usr/bin/env python3
"""Output quality for bench/workload-w.sh: PHOTO_DIR DIR... -> one PSNR (dB) per DIR.

The reference for each photo is made the slow, careful way: decoded at full size (no DCT
reduction), Lanczos-3 down to 512 px wide in linear steps by libvips' resize, the sepia matrix
in floating point. Each tool's JPEG is compared with it over all photos (mean squared error of
8-bit RGB, pooled), so the number says how close a tool's resampling and rounding come to an
exact result, JPEG q85 included alike for every tool.
"""
import os
import sys

import numpy as np
import pyvips

pyvips.cache_set_max(0)
photos = sys.argv[1]
names = sorted(n for n in os.listdir(photos) if n.lower().endswith((".jpg", ".jpeg")))
SEPIA = np.array([[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]])


def pixels(image):
    if image.bands < 3:
        image = image.colourspace("srgb")
    return np.ndarray(buffer=image[0:3].write_to_memory(), dtype=np.uint8,
                      shape=(image.height, image.width, 3)).astype(np.float64)


references = {}
for name in names:
    full = pyvips.Image.new_from_file(os.path.join(photos, name), access="sequential").autorot()
    if full.bands < 3:
        full = full.colourspace("srgb")
    small = full[0:3].resize(512 / full.width, kernel="lanczos3")
    rgb = np.ndarray(buffer=small.cast("float").write_to_memory(), dtype=np.float32,
                     shape=(small.height, small.width, 3)).astype(np.float64)
    references[os.path.splitext(name)[0]] = np.clip(rgb @ SEPIA.T, 0, 255)

for folder in sys.argv[2:]:
    squared, count = 0.0, 0
    for stem, reference in references.items():
        candidates = [f for f in os.listdir(folder) if os.path.splitext(f)[0] == stem]
        if not candidates:
            continue
        out = pixels(pyvips.Image.new_from_file(os.path.join(folder, candidates[0])))
        h, w = min(out.shape[0], reference.shape[0]), min(out.shape[1], reference.shape[1])
        squared += float(((out[:h, :w] - reference[:h, :w]) ** 2).sum())
        count += h * w * 3
    print("%.2f" % (10 * np.log10(255 ** 2 / (squared / count))) if count else "-")
