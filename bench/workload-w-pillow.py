#!/usr/bin/env python3
"""Workload W with Pillow, for bench/workload-w.sh: PHOTO_DIR OUT_DIR.

Two worker processes. Per photo: JPEG draft mode (libjpeg's DCT reduction, keeping at least
twice the target size), RGB, Lanczos down to 512 px wide with reducing_gap 2 (a box reduce
first, as libvips does), the sepia matrix through convert, JPEG quality 85.
"""
import os
import sys
from multiprocessing import Pool

from PIL import Image

TARGET = 512
SEPIA = (0.393, 0.769, 0.189, 0, 0.349, 0.686, 0.168, 0, 0.272, 0.534, 0.131, 0)


def one(job):
    source, target = job
    with Image.open(source) as image:
        height = max(1, round(image.height * TARGET / image.width))
        image.draft("RGB", (2 * TARGET, 2 * height))
        image = image.convert("RGB").resize((TARGET, height), Image.LANCZOS, reducing_gap=2.0)
        image.convert("RGB", SEPIA).save(target, "JPEG", quality=85)


if __name__ == "__main__":
    photos, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    jobs = [(os.path.join(photos, n), os.path.join(out, os.path.splitext(n)[0] + ".jpg"))
            for n in sorted(os.listdir(photos)) if n.lower().endswith((".jpg", ".jpeg"))]
    with Pool(2) as pool:
        for _ in pool.imap_unordered(one, jobs):
            pass
