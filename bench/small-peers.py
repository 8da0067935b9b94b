#!/usr/bin/env python3
"""The small-image workloads with a peer tool, for bench/small.sh: TOOL IN_DIR OUT_DIR WIDTH [FORMAT].

TOOL is opencv, pillow or pyvips. Two worker processes, each library on one thread; per file:
decode (at a reduced DCT scale where the library offers one and the photo is at least twice the
target), resize to WIDTH px wide, JPEG quality 80. FORMAT (pyvips only, for bench/formats.sh):
jpg (default), webp (quality 80) or png (libvips' default compression); inputs are the folder's
.jpg and .png files.
"""
import os
import sys
from multiprocessing import Pool

TOOL, SRC, DST, WIDTH = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
FORMAT = sys.argv[5] if len(sys.argv) > 5 else "jpg"
OPTIONS = "" if FORMAT == "png" else "[Q=80]"


def setup():
    global work
    if TOOL == "opencv":
        import cv2
        cv2.setNumThreads(1)

        def work(name):
            # IMREAD_REDUCED_COLOR_2: libjpeg decodes at half size, as the OpenCV row does.
            image = cv2.imread(os.path.join(SRC, name), cv2.IMREAD_REDUCED_COLOR_2)
            h, w = image.shape[:2]
            if w < WIDTH:
                image = cv2.imread(os.path.join(SRC, name), cv2.IMREAD_COLOR)
                h, w = image.shape[:2]
            image = cv2.resize(image, (WIDTH, max(1, round(h * WIDTH / w))), interpolation=cv2.INTER_AREA)
            cv2.imwrite(os.path.join(DST, name), image, [cv2.IMWRITE_JPEG_QUALITY, 80])
    elif TOOL == "pillow":
        from PIL import Image

        def work(name):
            with Image.open(os.path.join(SRC, name)) as image:
                image.draft("RGB", (WIDTH, WIDTH))
                h = max(1, round(image.height * WIDTH / image.width))
                image.convert("RGB").resize((WIDTH, h), Image.LANCZOS).save(os.path.join(DST, name), quality=80)
    elif TOOL == "pyvips":
        os.environ["VIPS_CONCURRENCY"] = "1"
        import pyvips
        pyvips.cache_set_max(0)

        def work(name):
            out = os.path.splitext(name)[0] + "." + FORMAT
            pyvips.Image.thumbnail(os.path.join(SRC, name), WIDTH).write_to_file(os.path.join(DST, out) + OPTIONS)
    else:
        sys.exit(f"unknown tool {TOOL}")


def run(name):
    work(name)


if __name__ == "__main__":
    os.makedirs(DST, exist_ok=True)
    names = sorted(n for n in os.listdir(SRC) if n.endswith((".jpg", ".png")))
    with Pool(2, initializer=setup) as pool:
        for _ in pool.imap_unordered(run, names, chunksize=64):
            pass
