#!/usr/bin/env python3
"""Workload W with OpenCV (opencv-python-headless), for bench/workload-w.sh: PHOTO_DIR OUT_DIR.

Two worker processes, OpenCV itself on one thread each. Per photo: the JPEG's width read from
its frame header, then imread at the largest libjpeg DCT reduction (1/2, 1/4, 1/8) that keeps at
least twice the target width (the same headroom libvips' thumbnail keeps), INTER_AREA down to
512 px wide, the sepia matrix through cv2.transform (saturating), JPEG quality 85.
"""
import os
import sys
from multiprocessing import Pool

import cv2
import numpy as np

TARGET = 512
# WORKLOAD_W_RESAMPLER=lanczos: the resampler libvips uses, for a like-for-like row.
RESAMPLER = cv2.INTER_LANCZOS4 if os.environ.get("WORKLOAD_W_RESAMPLER") == "lanczos" else cv2.INTER_AREA
# Rows and columns reversed: OpenCV keeps pixels as BGR.
SEPIA = np.array([[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]], dtype=np.float32)[::-1, ::-1].copy()
REDUCED = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}


def jpeg_width(path):
    with open(path, "rb") as f:
        head = f.read(1 << 16)
    at = 2
    while at + 9 < len(head):
        if head[at] != 0xFF:
            at += 1
            continue
        marker = head[at + 1]
        if marker in (0xC0, 0xC1, 0xC2):
            return int.from_bytes(head[at + 7:at + 9], "big")
        at += 2 + int.from_bytes(head[at + 2:at + 4], "big")
    return 0


def one(job):
    source, target = job
    width, scale = jpeg_width(source), 1
    while scale < 8 and width // (2 * scale) >= 2 * TARGET:
        scale *= 2
    image = cv2.imread(source, REDUCED[scale])
    height = max(1, round(image.shape[0] * TARGET / image.shape[1]))
    image = cv2.resize(image, (TARGET, height), interpolation=RESAMPLER)
    cv2.imwrite(target, cv2.transform(image, SEPIA), [cv2.IMWRITE_JPEG_QUALITY, 85])


if __name__ == "__main__":
    photos, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    jobs = [(os.path.join(photos, n), os.path.join(out, os.path.splitext(n)[0] + ".jpg"))
            for n in sorted(os.listdir(photos)) if n.lower().endswith((".jpg", ".jpeg"))]
    with Pool(2, initializer=cv2.setNumThreads, initargs=(1,)) as pool:
        for _ in pool.imap_unordered(one, jobs):
            pass
