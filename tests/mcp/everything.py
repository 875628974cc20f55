"""The official MCP Python SDK's client, through `tool-carrier mcp-proxy`,
to the reference server `@modelcontextprotocol/server-everything`, for
.ci/mcp: every message of one session recorded on both sides of the proxy
(tap.py) and compared. What the host sent must reach the server byte for
byte and in order; what the server sent must reach the host byte for byte
(in any order: a result being prepared may be overtaken), images aside.

Usage: everything.py TOOL_CARRIER PYTHON TAP_PY NODE SERVER_JS DIR
"""

import asyncio
import json
import sys
import warnings

from mcp import Client
from mcp.client.stdio import StdioServerParameters

tool_carrier, python, tap, node, server_js, folder = sys.argv[1:7]
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'ok' if ok else 'FAILED'}: {name}{': ' + detail if detail and not ok else ''}")


async def session():
    params = StdioServerParameters(
        command=python,
        args=[tap, f"{folder}/host", tool_carrier, "mcp-proxy", "--",
              python, tap, f"{folder}/server", node, server_js, "stdio"],
    )
    async with Client(params, mode="legacy") as client:
        tools = await client.list_tools()
        names = {t.name for t in tools.tools}
        check("tools/list", {"echo", "get-sum", "get-tiny-image"} <= names, str(sorted(names)))
        echoed = await client.call_tool("echo", {"message": "héllo \"there\"\n"})
        check("echo", "héllo" in echoed.content[0].text, repr(echoed.content))
        total = await client.call_tool("get-sum", {"a": 2, "b": 40})
        check("get-sum", "42" in total.content[0].text, repr(total.content))
        # The reference server's tiny PNG has a broken iCCP checksum (its
        # chunk's CRC does not match): not whole, so never sent as an
        # image, but as a text saying why.
        tiny = await client.call_tool("get-tiny-image", {})
        said = [c.text for c in tiny.content if c.type == "text"]
        check("get-tiny-image: a PNG that is not whole becomes a text saying why",
              any("not attached: corrupt or truncated PNG" in t and "CRC" in t for t in said), repr(said))
        await client.call_tool("get-annotated-message", {"messageType": "error", "includeImage": True})
        await client.call_tool("get-structured-content", {"location": "New York"})
        await client.call_tool("get-resource-links", {"count": 2})
        await client.list_prompts()
        resources = await client.list_resources()
        if resources.resources:
            await client.read_resource(resources.resources[0].uri)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            await client.send_ping()


asyncio.run(session())


def lines(path):
    with open(path, "rb") as f:
        return [l for l in f.read().split(b"\n") if l]


def media(v):
    """Whether a JSON value is an image block, an image blob, or the text
    the proxy put in an image's place."""
    return isinstance(v, dict) and (
        v.get("type") == "image"
        or str(v.get("mimeType", "")).startswith("image/")
        or (v.get("type") == "text" and str(v.get("text", "")).startswith("[image ")
            and "not attached" in str(v.get("text", "")))
    )


def media_aside(line):
    """The line as it came, or, where it holds media, as JSON without the
    media blocks (the proxy's to change)."""
    try:
        value = json.loads(line)
    except ValueError:
        return line

    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items()}
        if isinstance(v, list):
            return [strip(x) for x in v if not media(x)]
        return v

    stripped = strip(value)
    return line if stripped == value else json.dumps(stripped, sort_keys=True).encode()


host_in, server_in = lines(f"{folder}/host.in"), lines(f"{folder}/server.in")
check("every host message reached the server, byte for byte, in order",
      host_in == server_in, f"{len(host_in)} sent, {len(server_in)} received")
server_out, host_out = lines(f"{folder}/server.out"), lines(f"{folder}/host.out")
check("every server message reached the host, byte for byte (images aside)",
      sorted(map(media_aside, server_out)) == sorted(map(media_aside, host_out)),
      f"{len(server_out)} sent, {len(host_out)} received")
check("the session had traffic both ways", len(host_in) >= 10 and len(server_out) >= 10,
      f"{len(host_in)} / {len(server_out)}")
passed, failed = results.count(True), results.count(False)
print(f"mcp everything: {passed} passed, {failed} failed ({len(host_in)} messages to the server, {len(server_out)} from it)")
sys.exit(1 if failed else 0)
