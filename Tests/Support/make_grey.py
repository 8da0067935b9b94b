#!/usr/bin/env python3
"""Writes an 8-bit greyscale PNG: a diagonal gradient with rings, for sepia tests.

usage: make_grey.py OUT.png WIDTH HEIGHT
"""
import math
import struct
import sys
import zlib


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def main():
    path, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rows = bytearray()
    for y in range(height):
        rows.append(0)  # filter: none
        for x in range(width):
            base = 40 + 160 * (x + y) / (width + height)
            ring = 25 * math.sin(math.hypot(x - width / 2, y - height / 2) / 12)
            rows.append(max(0, min(255, int(base + ring))))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 6)) + chunk(b"IEND", b""))


if __name__ == "__main__":
    main()
