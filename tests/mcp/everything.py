"""The official MCP Python SDK's client, through `tool-carrier mcp-proxy`,
to the reference server `@modelcontextprotocol/server-everything`, for
.ci/mcp: every message of one session recorded on both sides of the proxy
and compared, over stdio and over the Streamable HTTP transport (each of
its two revisions: the initialize handshake, 2026-07-28). What the host sent
must reach the server byte for byte (over stdio in order; over HTTP each
POST is on its own, so in any order); what the server sent must reach the
host byte for byte (in any order: a result being prepared may be
overtaken), images aside.

The server's side is recorded by tap.py; the host's over stdio by tap.py,
over HTTP by the SDK's own HTTP client through a transport that keeps each
POST's body and each message of each answer (a JSON body, or an SSE
event's data).

Usage: everything.py TOOL_CARRIER PYTHON TAP_PY NODE SERVER_JS DIR
"""

import asyncio
import glob
import json
import os
import signal
import subprocess
import sys
import warnings

import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

tool_carrier, python, tap, node, server_js, folder = sys.argv[1:7]
results = []


def check(name, ok, detail=""):
    results.append(ok)
    print(f"{'ok' if ok else 'FAILED'}: {name}{': ' + detail if detail and not ok else ''}")


class Recorded(httpx2.AsyncByteStream):
    """An answer's body passed on as it comes, its messages kept once it
    ends: a JSON body whole, an SSE stream's events' data."""

    def __init__(self, inner, kind, into):
        self.inner, self.kind, self.into, self.body = inner, kind, into, bytearray()

    async def __aiter__(self):
        async for chunk in self.inner:
            self.body += chunk
            yield chunk

    async def aclose(self):
        await self.inner.aclose()
        if self.kind.startswith("application/json") and self.body:
            self.into.append(bytes(self.body))
        elif self.kind.startswith("text/event-stream"):
            for event in bytes(self.body).split(b"\n\n"):
                data = [l[5:].removeprefix(b" ") for l in event.split(b"\n") if l.startswith(b"data:")]
                if data:
                    self.into.append(b"\n".join(data))


class Tap(httpx2.AsyncBaseTransport):
    """The SDK's HTTP transport, recording what crosses it."""

    def __init__(self, sent, received):
        self.inner, self.sent, self.received = httpx2.AsyncHTTPTransport(), sent, received

    async def handle_async_request(self, request):
        if request.method == "POST":
            self.sent.append(request.content)
        response = await self.inner.handle_async_request(request)
        kind = response.headers.get("content-type", "")
        return httpx2.Response(response.status_code, headers=response.headers,
                               stream=Recorded(response.stream, kind, self.received),
                               extensions=response.extensions)

    async def aclose(self):
        await self.inner.aclose()


async def session(server, mode):
    async with Client(server, mode=mode) as client:
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


def lines(*paths):
    out = []
    for path in paths:
        with open(path, "rb") as f:
            out += [l for l in f.read().split(b"\n") if l]
    return out


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


def compare(name, host_in, server_in, server_out, host_out, ordered):
    same = host_in == server_in if ordered else sorted(host_in) == sorted(server_in)
    check(f"{name}: every host message reached the server, byte for byte{', in order' if ordered else ''}",
          same, f"{len(host_in)} sent, {len(server_in)} received")
    check(f"{name}: every server message reached the host, byte for byte (images aside)",
          sorted(map(media_aside, server_out)) == sorted(map(media_aside, host_out)),
          f"{len(server_out)} sent, {len(host_out)} received")
    check(f"{name}: the session had traffic both ways", len(host_in) >= 10 and len(server_out) >= 10,
          f"{len(host_in)} / {len(server_out)}")
    print(f"   {name}: {len(host_in)} messages to the server, {len(server_out)} from it")


server_cmd = [python, tap, None, node, server_js, "stdio"]

# Over stdio: the proxy between two taps.
where = f"{folder}/stdio"
os.makedirs(where, exist_ok=True)
stdio = StdioServerParameters(
    command=python,
    args=[tap, f"{where}/host", tool_carrier, "mcp-proxy", "--",
          *[a if a else f"{where}/server" for a in server_cmd]],
)
asyncio.run(session(stdio, "legacy"))
compare("stdio", lines(f"{where}/host.in"), lines(f"{where}/server.in"),
        lines(f"{where}/server.out"), lines(f"{where}/host.out"), ordered=True)

# Over HTTP, once with each revision's way of connecting.
for mode in ("legacy", "auto"):
    where = f"{folder}/http-{mode}"
    os.makedirs(where, exist_ok=True)
    proxy = subprocess.Popen(
        [tool_carrier, "mcp-proxy", "--http", "127.0.0.1:0", "--",
         *[a if a else f"{where}/server-{{pid}}" for a in server_cmd]],
        stdout=subprocess.PIPE, text=True)
    sent, received = [], []
    try:
        url = proxy.stdout.readline().strip().removeprefix("listening on ") + "/mcp"
        client = httpx2.AsyncClient(transport=Tap(sent, received), timeout=httpx2.Timeout(30, read=300))
        asyncio.run(session(streamable_http_client(url, http_client=client), mode))
    finally:
        proxy.send_signal(signal.SIGTERM)
        status = proxy.wait(timeout=30)
    check(f"http {mode}: the proxy stopped with status 0", status == 0, str(status))
    servers = sorted(glob.glob(f"{where}/server-*.in"))
    compare(f"http {mode}", [bytes(b) for b in sent], lines(*servers),
            lines(*[p[:-3] + ".out" for p in servers]), received, ordered=False)

passed, failed = results.count(True), results.count(False)
print(f"mcp everything: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
