#!/usr/bin/env python3
"""Mean PSNR (dB) of a folder of thumbnails against a careful reference, for bench/small.sh:
IN_DIR OUT_DIR WIDTH [SAMPLE].

The reference of each input: a full decode (Pillow), then Lanczos-3 to the output's size in
floating point, each band on its own (Pillow's "F" mode). SAMPLE files at most (default 200),
spread over the folder; files a tool did not write are skipped.
"""
import math
import os
import sys

import numpy as np
from PIL import Image

src, out, width = sys.argv[1], sys.argv[2], int(sys.argv[3])
sample = int(sys.argv[4]) if len(sys.argv) > 4 else 200
names = sorted(n for n in os.listdir(out) if n.endswith(".jpg"))
names = names[:: max(1, len(names) // sample)][:sample]
scores = []
for name in names:
    with Image.open(os.path.join(out, name)) as made:
        made = made.convert("RGB")
        size = made.size
        ours = np.asarray(made, dtype=np.float64)
    with Image.open(os.path.join(src, name)) as original:
        bands = original.convert("RGB").split()
        reference = np.stack([np.asarray(b.convert("F").resize(size, Image.LANCZOS), dtype=np.float64) for b in bands], axis=2)
    mse = np.mean((ours - np.clip(reference, 0, 255)) ** 2)
    scores.append(99.0 if mse == 0 else 10 * math.log10(255 * 255 / mse))
print(f"{sum(scores) / max(1, len(scores)):.2f}")
