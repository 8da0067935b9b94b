#!/usr/bin/env python3
"""Workload R in pyvips, written the way its documentation suggests: for each width one
`thumbnail` from the file (so libvips shrinks on load), its pixels computed once
(`copy_memory`), then saved as WebP and as JPEG at Q 80. Two worker processes, libvips'
operation cache off (as a batch tool would).

usage: workload-r-pyvips.py PHOTO_DIR OUT_DIR
"""
import os
import sys
from multiprocessing import Pool

import pyvips

WIDTHS = (480, 960, 1920)


def make(path):
    stem = os.path.splitext(os.path.basename(path))[0]
    for width in WIDTHS:
        image = pyvips.Image.thumbnail(path, width, height=10_000_000).copy_memory()
        image.webpsave(os.path.join(OUT, f"{stem}-{width}.webp"), Q=80)
        image.jpegsave(os.path.join(OUT, f"{stem}-{width}.jpeg"), Q=80)


PHOTOS, OUT = sys.argv[1], sys.argv[2]
if __name__ == "__main__":
    pyvips.cache_set_max(0)
    os.makedirs(OUT, exist_ok=True)
    paths = sorted(os.path.join(PHOTOS, f) for f in os.listdir(PHOTOS) if f.lower().endswith((".jpg", ".jpeg")))
    with Pool(2) as workers:
        for _ in workers.imap_unordered(make, paths):
            pass
