#!/usr/bin/env python3
# How JPEG XL's default effort was chosen: bytes, CPU and SSIMULACRA2 of libvips' jxlsave at
# efforts 3-7 and a few Q, against our AVIF default (Q 51, effort 3), 8 photos at 960 px as
# libvips' thumbnail makes them, scored against that thumbnail (`pip install pyvips ssimulacra2`).
# usage: VIPS_CONCURRENCY=1 python3 bench/jxl-settings.py PHOTO_DIR
import os, sys, tempfile, time, statistics
import pyvips
from ssimulacra2 import compute_ssimulacra2
photos = sorted(p for p in os.listdir(sys.argv[1]) if p.endswith(".jpg"))[:8]
settings = [("avif Q51 e3", "heifsave", dict(Q=51, effort=3, compression="av1")),
            ("jxl libvips default (d1 e7)", "jxlsave", {}),
            ("jxl Q75 e7", "jxlsave", dict(Q=75, effort=7)),
            ("jxl Q75 e5", "jxlsave", dict(Q=75, effort=5)),
            ("jxl Q75 e4", "jxlsave", dict(Q=75, effort=4)),
            ("jxl Q75 e3", "jxlsave", dict(Q=75, effort=3)),
            ("jxl Q68 e5", "jxlsave", dict(Q=68, effort=5)),
            ("jxl Q60 e5", "jxlsave", dict(Q=60, effort=5))]
work = tempfile.mkdtemp()
rows = {s[0]: [0, 0.0, []] for s in settings}
for p in photos:
    t = pyvips.Image.thumbnail(os.path.join(sys.argv[1], p), 960)
    ref = os.path.join(work, f"{p}.ref.png"); t.write_to_file(ref)
    t = pyvips.Image.new_from_file(ref)
    for name, saver, opts in settings:
        out = os.path.join(work, f"{p}.{name.replace(' ', '_')}" + (".avif" if saver == "heifsave" else ".jxl"))
        c0 = time.process_time()
        getattr(t, saver)(out, **opts)
        c1 = time.process_time()
        png = out + ".png"; pyvips.Image.new_from_file(out).write_to_file(png)
        r = rows[name]; r[0] += os.path.getsize(out); r[1] += c1 - c0; r[2].append(compute_ssimulacra2(ref, png))
b = rows["avif Q51 e3"]
print(f"{'setting':28s} {'bytes':>9s} {'×AVIF':>5s} {'CPU':>8s} {'×AVIF':>5s} {'score':>6s}")
for name, (size, cpu, scores) in rows.items():
    print(f"{name:28s} {size:9d} {size/b[0]:5.2f} {cpu:7.2f}s {cpu/b[1]:5.2f} {statistics.mean(scores):6.2f}")
