#!/usr/bin/env python3
"""PNG files of every kind the PNG decoder meets, written chunk by chunk: OUT_DIR.

Each colour type (grey, grey+alpha, RGB, RGBA, palette), with and without tRNS, grey and
palettes at 1, 2 and 4 bits, 16-bit ones (with tRNS too), Adam7-interlaced ones, every row
filter (a different one each row), the image data split over several IDAT chunks, and the kinds
the decoder must leave to libpng: animated, a CRC that does not match, a file cut short, a
palette index past the palette, a zlib stream one row short.
"""
import os
import struct
import sys
import zlib

OUT = sys.argv[1]
W, H = 37, 23


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def filtered(rows, bpp):
    """Each row with filter (row index mod 5), as an encoder would apply it."""
    out, previous = b"", bytes(len(rows[0]))
    for y, row in enumerate(rows):
        kind = y % 5
        line = bytearray()
        for x, value in enumerate(row):
            left = row[x - bpp] if x >= bpp else 0
            up = previous[x]
            corner = previous[x - bpp] if x >= bpp else 0
            predictor = [0, left, up, (left + up) // 2, paeth(left, up, corner)][kind]
            line.append((value - predictor) & 255)
        out += bytes([kind]) + bytes(line)
        previous = row
    return out


def png(name, colour_type, rows, bpp, extra=b"", depth=8, interlace=0, split=1, tweak=None, stream=None):
    header = struct.pack(">IIBBBBB", W, H, depth, colour_type, 0, 0, interlace)
    data = zlib.compress(stream if stream is not None else filtered(rows, bpp), 6)
    parts = [data[i * len(data) // split:(i + 1) * len(data) // split] for i in range(split)]
    body = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + extra + b"".join(chunk(b"IDAT", p) for p in parts) + chunk(b"IEND", b"")
    if tweak:
        body = tweak(body)
    open(os.path.join(OUT, name + ".png"), "wb").write(body)


def samples(channels, seed):
    return [bytes((x * 7 + y * 13 + c * 71 + seed * 31 + (x * y) % 17) & 255 for x in range(W) for c in range(channels))
            for y in range(H)]


palette = bytes(v for i in range(40) for v in ((i * 6) & 255, (255 - i * 5) & 255, (i * 37) & 255))
indices = [bytes((x + y * 3) % 40 for x in range(W)) for y in range(H)]
os.makedirs(OUT, exist_ok=True)
png("grey", 0, samples(1, 1), 1)
png("grey-alpha", 4, samples(2, 2), 2)
png("rgb", 2, samples(3, 3), 3)
png("rgba", 6, samples(4, 4), 4)
png("rgb-split", 2, samples(3, 5), 3, split=4)
png("palette", 3, indices, 1, chunk(b"PLTE", palette))
png("palette-trns", 3, indices, 1, chunk(b"PLTE", palette) + chunk(b"tRNS", bytes((i * 9) & 255 for i in range(25))))
grey = samples(1, 6)
png("grey-trns", 0, grey, 1, chunk(b"tRNS", struct.pack(">H", grey[3][5])))
rgb = samples(3, 7)
png("rgb-trns", 2, rgb, 3, chunk(b"tRNS", struct.pack(">HHH", rgb[2][0], rgb[2][1], rgb[2][2])))
png("text-and-gamma", 2, samples(3, 8), 3, chunk(b"gAMA", struct.pack(">I", 45455)) + chunk(b"tEXt", b"Comment\0made for a test"))


def packed(rows, depth):
    """Rows of small values packed most significant bits first, each row padded to a byte."""
    out = []
    for row in rows:
        bits = "".join(format(v, "0%db" % depth) for v in row)
        bits += "0" * (-len(bits) % 8)
        out.append(bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8)))
    return out


for depth in (1, 2, 4):
    values = [[(x * 3 + y * 5 + x * y) % (1 << depth) for x in range(W)] for y in range(H)]
    png("grey-%dbit" % depth, 0, packed(values, depth), 1, depth=depth)
    png("palette-%dbit" % depth, 3, packed(values, depth), 1, chunk(b"PLTE", palette[:3 << depth]), depth=depth)
values = [[(x + y) % 4 for x in range(W)] for y in range(H)]
png("grey-2bit-trns", 0, packed(values, 2), 1, chunk(b"tRNS", struct.pack(">H", 2)), depth=2)
png("palette-2bit-trns", 3, packed(values, 2), 1, chunk(b"PLTE", palette[:12]) + chunk(b"tRNS", bytes([0, 128])), depth=2)


def wide(channels, seed):
    """16-bit rows, big-endian, with high and low bytes that differ."""
    return [bytes(b for x in range(W) for c in range(channels)
                  for b in struct.pack(">H", (x * 1009 + y * 2713 + c * 7919 + seed * 131 + x * y * 17) & 0xFFFF)) for y in range(H)]


png("grey16", 0, wide(1, 1), 2, depth=16)
png("grey16-alpha", 4, wide(2, 2), 4, depth=16)
png("rgb16", 2, wide(3, 3), 6, depth=16)
png("rgba16", 6, wide(4, 4), 8, depth=16)
grey16 = wide(1, 5)
png("grey16-trns", 0, grey16, 2, chunk(b"tRNS", grey16[4][6:8]), depth=16)
rgb16 = wide(3, 6)
png("rgb16-trns", 2, rgb16, 6, chunk(b"tRNS", rgb16[1][12:18]), depth=16)
png("rgba-opaque", 6, [bytes(v if i % 4 != 3 else 255 for i, v in enumerate(row)) for row in samples(4, 15)], 4)


def adam7(rows, depth, channels):
    """`rows` (per pixel `channels` samples, 8-bit values, 16-bit pairs or packed small ones)
    as Adam7's seven passes, each filtered on its own, as one stream."""
    size = max(1, depth // 8) * channels
    if depth < 8:
        pixels = [[(row[x * depth // 8] >> (8 - depth - x * depth % 8)) & ((1 << depth) - 1) for x in range(W)] for row in rows]
    else:
        pixels = [[row[x * size:(x + 1) * size] for x in range(W)] for row in rows]
    stream = b""
    for px, py, dx, dy in [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]:
        sub = [row[px::dx] for row in pixels[py::dy]]
        if not sub or not sub[0]:
            continue
        packed_rows = packed(sub, depth) if depth < 8 else [b"".join(row) for row in sub]
        stream += filtered(packed_rows, max(1, size))
    return stream


interlaced = samples(3, 10)
png("interlaced", 2, None, 3, interlace=1, stream=adam7(interlaced, 8, 3))
alpha16 = wide(4, 11)
png("interlaced-rgba16", 6, None, 8, depth=16, interlace=1, stream=adam7(alpha16, 16, 4))
small = packed([[(x * 3 + y * 5 + x * y) % 4 for x in range(W)] for y in range(H)], 2)
png("interlaced-palette-2bit", 3, None, 1, chunk(b"PLTE", palette[:12]) + chunk(b"tRNS", bytes([0, 128])), depth=2, interlace=1,
    stream=adam7(small, 2, 1))
# Left to libpng.
png("animated", 2, samples(3, 11), 3, chunk(b"acTL", struct.pack(">II", 1, 0)))
png("bad-crc", 2, samples(3, 12), 3, tweak=lambda b: b[:40] + bytes([b[40] ^ 1]) + b[41:])
png("cut-short", 2, samples(3, 13), 3, tweak=lambda b: b[: len(b) * 2 // 3])
png("index-past-palette", 3, [bytes(45 if x == 3 else x % 40 for x in range(W)) for _ in range(H)], 1, chunk(b"PLTE", palette))
png("row-short", 2, samples(3, 14)[:-1], 3)
