#!/usr/bin/env python3
"""Workload R-AVIF in pyvips, for bench/r-avif.sh: every *.jpg at 480, 960 and 1920 px as AVIF at
libvips' heifsave defaults (Q 50, effort 4; compression av1).

usage: r-avif-pyvips.py IN_DIR OUT_DIR
Thumbnail per width (shrink-on-load, never enlarged), made once in memory, saved. 2 worker
processes; libvips' operation cache off.
"""
import os, sys
from multiprocessing import Pool
import pyvips

def work(path):
    name = os.path.splitext(os.path.basename(path))[0]
    for w in [480, 960, 1920]:
        im = pyvips.Image.thumbnail(path, w, height=100000, size="down").copy_memory()
        im.heifsave(f"{sys.argv[2]}/{name}-{w}.avif", Q=50, effort=4, compression="av1")

if __name__ == "__main__":
    pyvips.cache_set_max(0); os.makedirs(sys.argv[2], exist_ok=True)
    files = sorted(os.path.join(sys.argv[1], f) for f in os.listdir(sys.argv[1]) if f.endswith(".jpg"))
    with Pool(2) as pool:
        list(pool.imap_unordered(work, files))
