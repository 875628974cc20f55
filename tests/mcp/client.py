"""The official MCP Python SDK's client driving `tool-carrier mcp-proxy` in
front of server.py, for .ci/mcp: over stdio, and over the Streamable HTTP
transport (`mcp-proxy --http`, the SDK's streamable-HTTP client), each
negotiating 2026-07-28 and the initialize handshake. Each check prints one
line; the last line says how many passed and failed.

Usage: client.py TOOL_CARRIER PYTHON SERVER_PY DIR
"""

import asyncio
import base64
import json
import signal
import struct
import subprocess
import sys
import warnings

from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

tool_carrier, python, server_py, folder = sys.argv[1:5]
results = []


def check(name: str, ok: bool, detail: str = "") -> None:
    results.append(ok)
    print(f"{'ok' if ok else 'FAILED'}: {name}{': ' + detail if detail and not ok else ''}")


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


def expected(path: str) -> tuple[int, int]:
    """What `tool-carrier media` says the model gets for the file."""
    out = subprocess.run([tool_carrier, "media", "--provider", "anthropic", "--json", path],
                         check=True, capture_output=True, text=True).stdout
    sent = json.loads(out)["final"]
    return sent["width"], sent["height"]


PROXY = ["mcp-proxy", "--provider", "anthropic"]
SERVER = ["--", python, server_py, folder]


async def session(mode: str, server) -> None:
    """Every check, on a connection to `server` (stdio parameters or the
    proxy's URL) negotiated as `mode` says: 'auto' probes `server/discover`
    (2026-07-28), 'legacy' shakes hands with `initialize`."""
    print(f"-- {'stdio' if isinstance(server, StdioServerParameters) else 'http'}, mode {mode}")
    async with Client(server, mode=mode) as client:
        tools = await client.list_tools()
        names = sorted(t.name for t in tools.tools)
        check("tools/list passes through", names == ["broken", "echo", "screenshot"], str(names))

        echoed = await client.call_tool("echo", {"text": "héllo \"there\"\n"})
        check("a text result passes through",
              [c.text for c in echoed.content] == ["héllo \"there\"\n"], repr(echoed.content))

        shot = await client.call_tool("screenshot", {})
        kinds = [c.type for c in shot.content]
        check("the screenshot result keeps its blocks", kinds == ["text", "image"], str(kinds))
        image = shot.content[1]
        size = png_size(base64.b64decode(image.data))
        want = expected(f"{folder}/shot.png")
        check("the screenshot comes back at the model's processing size", size == want, f"{size} != {want}")
        check("the screenshot is still a PNG", image.mime_type == "image/png", image.mime_type)
        scale = (image.meta or {}).get("dev.tool-carrier/scale", {})
        check("the screenshot's _meta says its scale",
              scale.get("original") == {"width": 2880, "height": 1800}
              and scale.get("sent") == {"width": size[0], "height": size[1]}, repr(image.meta))

        broken = await client.call_tool("broken", {})
        texts = [c.text for c in broken.content if c.type == "text"]
        check("a truncated image becomes a text saying why",
              len(texts) == 2 and "not attached: corrupt or truncated PNG" in texts[1], repr(texts))

        page = await client.read_resource("screen://page")
        blob = page.contents[0]
        size = png_size(base64.b64decode(blob.blob))
        want = expected(f"{folder}/page.png")
        check("a resource image comes back at the model's processing size", size == want, f"{size} != {want}")

        # The SDK warns that ping is gone from 2026-07-28, in either mode.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if mode == "legacy":
                await client.send_ping()
                check("ping passes through", True)
            else:
                # No ping in 2026-07-28: the server's error comes back as it is.
                try:
                    await client.send_ping()
                    check("an error response passes through", False, "ping was answered")
                except MCPError as e:
                    check("an error response passes through", e.code == -32601, str(e))


stdio = StdioServerParameters(command=tool_carrier, args=PROXY + SERVER)
asyncio.run(session("auto", stdio))
asyncio.run(session("legacy", stdio))

# The same over HTTP: the proxy serves /mcp and prints its address first.
proxy = subprocess.Popen([tool_carrier, *PROXY, "--http", "127.0.0.1:0", *SERVER],
                         stdout=subprocess.PIPE, text=True)
try:
    first = proxy.stdout.readline().strip()
    check("mcp-proxy --http says where it listens", first.startswith("listening on http://"), first)
    url = first.removeprefix("listening on ") + "/mcp"
    asyncio.run(session("auto", url))
    asyncio.run(session("legacy", url))
finally:
    proxy.send_signal(signal.SIGTERM)
    status = proxy.wait(timeout=30)
check("mcp-proxy --http stops on SIGTERM with status 0", status == 0, str(status))
passed, failed = results.count(True), results.count(False)
print(f"mcp: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
