#!/usr/bin/env python3
"""Workload R in Pillow, written the way a careful user writes it: for each width the file
opened with `draft` (libjpeg's DCT scaling to at least the target), turned upright by EXIF,
resized with LANCZOS and `reducing_gap=2.0`, saved as WebP and as JPEG at quality 80. Two
worker processes.

usage: workload-r-pillow.py PHOTO_DIR OUT_DIR
"""
import os
import sys
from multiprocessing import Pool

from PIL import Image, ImageOps

WIDTHS = (480, 960, 1920)


def make(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    for width in WIDTHS:
        with Image.open(path) as opened:
            opened.draft("RGB", (width, max(1, round(opened.height * width / opened.width))))
            image = ImageOps.exif_transpose(opened).convert("RGB")
        if image.width > width:
            image = image.resize((width, max(1, round(image.height * width / image.width))), Image.LANCZOS, reducing_gap=2.0)
        image.save(os.path.join(OUT, f"{stem}-{width}.webp"), quality=80)
        image.save(os.path.join(OUT, f"{stem}-{width}.jpeg"), quality=80)


PHOTOS, OUT = sys.argv[1], sys.argv[2]
if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    paths = sorted(os.path.join(PHOTOS, f) for f in os.listdir(PHOTOS) if f.lower().endswith((".jpg", ".jpeg")))
    with Pool(2) as workers:
        for _ in workers.imap_unordered(make, paths):
            pass
