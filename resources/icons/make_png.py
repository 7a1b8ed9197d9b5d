#!/usr/bin/env python3
"""Writes tilescope.png (64x64) from the same cell layout as tilescope.svg, with no image
library: Qt 6 reads PNG without the optional Qt SVG module, which the app does not need."""
import struct
import zlib

SIZE = 64
BG = (0x1E, 0x2A, 0x33)
CELLS = [["009E73", "009E73", "E69F00"], ["009E73", "009E73", "D55E00"], ["009E73", "E69F00", "D55E00"]]


def pixel(x, y):
    if not (2 <= x < 62 and 2 <= y < 62):
        return (0, 0, 0, 0)
    if 8 <= x < 56 and 8 <= y < 56:
        cx, cy = (x - 8) // 16, (y - 8) // 16
        if (x - 8) % 16 in (0, 15) or (y - 8) % 16 in (0, 15):
            return BG + (255,)
        c = CELLS[cy][cx]
        rgb = tuple(int(c[i:i + 2], 16) for i in (0, 2, 4))
        d = ((x - 32) ** 2 + (y - 32) ** 2) ** 0.5
        if 7.5 <= d <= 10.5 or (38 <= x <= 48 and 38 <= y <= 48 and abs(x - y) <= 2):
            return (255, 255, 255, 255)
        return rgb + (255,)
    return BG + (255,)


rows = b"".join(b"\x00" + bytes(v for x in range(SIZE) for v in pixel(x, y)) for y in range(SIZE))


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", SIZE, SIZE, 8, 6, 0, 0, 0))
png += chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
with open(__file__.replace("make_png.py", "tilescope.png"), "wb") as f:
    f.write(png)
