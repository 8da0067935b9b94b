#!/usr/bin/env python3
"""Workload W with pyvips, for bench/workload-w.sh: PHOTO_DIR OUT_DIR.

Two threads, one libvips thread each (VIPS_CONCURRENCY=1), no operation cache; per photo:
thumbnail to 512 px wide from the file (shrink-on-load), grey made sRGB, the classic sepia
matrix through recomb, JPEG quality 85.
"""
import os
import sys
from concurrent.futures import ThreadPoolExecutor

os.environ.setdefault("VIPS_CONCURRENCY", "1")
import pyvips  # noqa: E402  (reads VIPS_CONCURRENCY when it loads)

photos, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
pyvips.cache_set_max(0)
sepia = pyvips.Image.new_from_array([[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]])


def one(name):
    image = pyvips.Image.thumbnail(os.path.join(photos, name), 512, height=10_000_000)
    if image.bands < 3:
        image = image.colourspace("srgb")
    image.recomb(sepia).jpegsave(os.path.join(out, os.path.splitext(name)[0] + ".jpg"), Q=85)


names = sorted(n for n in os.listdir(photos) if n.lower().endswith((".jpg", ".jpeg")))
with ThreadPoolExecutor(2) as pool:
    list(pool.map(one, names))
