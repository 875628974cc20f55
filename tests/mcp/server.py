"""An MCP server written with the official Python SDK (MCPServer, stdio) for
.ci/mcp: tools that return a large screenshot PNG, a truncated one and text,
and a resource that is a PNG. The images are made here, with zlib alone.

Usage: server.py DIR   (the images it serves are also written to DIR, so
the client can ask `tool-carrier media` what a model would get)
"""

import os
import struct
import sys
import zlib

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.types import Image


def png(width: int, height: int, seed: int) -> bytes:
    """A screenshot-like RGB PNG: a title bar, then rows of dark runs."""
    rows = []
    for y in range(height):
        if y < 40:
            row = bytes((60, 60, 70)) * width
        else:
            row = bytearray(b"\xf4\xf4\xf4" * width)
            if (y - 40) % 28 < 14:
                x = 20 + (y * 7 + seed) % 50
                while x + 30 < width:
                    row[x * 3:(x + 24) * 3] = b"\x20\x20\x28" * 24
                    x += 40 + (x * 13 + y + seed) % 30
            row = bytes(row)
        rows.append(b"\x00" + row)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(b"".join(rows), 6)) + chunk(b"IEND", b""))


folder = sys.argv[1]
SHOT = png(2880, 1800, 1)
PAGE = png(1600, 2400, 2)
with open(os.path.join(folder, "shot.png"), "wb") as f:
    f.write(SHOT)
with open(os.path.join(folder, "page.png"), "wb") as f:
    f.write(PAGE)

server = MCPServer("proxy-test")


@server.tool()
def screenshot() -> list:
    """A screenshot of the whole screen."""
    return ["Captured the screen.", Image(data=SHOT, format="png")]


@server.tool()
def broken() -> list:
    """A screenshot cut off in transfer."""
    return ["Captured, partly.", Image(data=SHOT[:5000], format="png")]


@server.tool()
def echo(text: str) -> str:
    """The text given."""
    return text


@server.resource("screen://page", mime_type="image/png")
def page() -> bytes:
    """A page as an image."""
    return PAGE


if __name__ == "__main__":
    server.run("stdio")
