#!/usr/bin/env python3
"""The full srcset (AVIF, WebP and JPEG at 480, 960 and 1920 px) in pyvips at workbench's
defaults, for bench/web-srcset.sh: AVIF Q 51 effort 3, WebP and JPEG Q 75.

usage: web-srcset-pyvips.py IN_DIR OUT_DIR [AVIF_Q] [AVIF_EFFORT]   (default 51 and 3)
Every *.jpg in IN_DIR: thumbnail per width (libvips' shrink-on-load, never enlarged), made once
in memory (copy_memory), then saved in each format. 2 worker processes; libvips' operation cache off.
"""
import os, sys
from multiprocessing import Pool
import pyvips

WIDTHS = [480, 960, 1920]

def work(path):
    out = sys.argv[2]
    q, effort = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (51, 3)
    name = os.path.splitext(os.path.basename(path))[0]
    for w in WIDTHS:
        im = pyvips.Image.thumbnail(path, w, height=100000, size="down").copy_memory()
        im.heifsave(f"{out}/{name}-{w}.avif", Q=q, effort=effort, compression="av1")
        im.webpsave(f"{out}/{name}-{w}.webp", Q=75)
        im.jpegsave(f"{out}/{name}-{w}.jpeg", Q=75)

if __name__ == "__main__":
    pyvips.cache_set_max(0); os.makedirs(sys.argv[2], exist_ok=True)
    files = sorted(os.path.join(sys.argv[1], f) for f in os.listdir(sys.argv[1]) if f.endswith(".jpg"))
    with Pool(2) as pool:
        list(pool.imap_unordered(work, files))
