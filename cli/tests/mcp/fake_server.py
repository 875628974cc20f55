"""A tiny MCP server for the mcp-proxy tests (stdio, one JSON-RPC message a line).

Usage: fake_server.py DIR EXIT_CODE

* Every line it reads is appended, as read, to DIR/received.
* `initialize` and `ping` are answered; `tools/call` with the name NAME
  answers with the result in DIR/NAME.json (its bytes as they are), or
  writes the lines of DIR/NAME.raw as they are, with __ID__ replaced by the
  request's id and __TOKEN__ by its `_meta.progressToken`; the names `exit`
  (arguments.code) and `kill` end the server after writing a notification,
  and `hold` is never answered.
* At the end of its input it writes DIR/exited and exits with EXIT_CODE.
"""

import json
import os
import signal
import sys

folder, code = sys.argv[1], int(sys.argv[2])
out = sys.stdout.buffer


def send(data: bytes) -> None:
    out.write(data)
    out.flush()


def answer(id_text: bytes, result: bytes) -> None:
    send(b'{"jsonrpc":"2.0","id":' + id_text + b',"result":' + result + b"}\n")


for line in sys.stdin.buffer:
    with open(os.path.join(folder, "received"), "ab") as f:
        f.write(line)
    try:
        message = json.loads(line)
    except ValueError:
        continue
    if not isinstance(message, dict) or "id" not in message or "method" not in message:
        continue
    id_text = json.dumps(message["id"]).encode()
    method = message["method"]
    if method == "initialize":
        answer(id_text, b'{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}')
    elif method == "ping":
        answer(id_text, b"{}")
    elif method == "tools/call":
        params = message.get("params") or {}
        name = params.get("name", "")
        if name in ("exit", "kill"):
            send(b'{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"bye"}}\n')
            if name == "kill":
                os.kill(os.getpid(), signal.SIGKILL)
            sys.exit(int((params.get("arguments") or {}).get("code", 0)))
        if name == "hold":
            continue
        path = os.path.join(folder, name)
        if os.path.exists(path + ".raw"):
            token = json.dumps((params.get("_meta") or {}).get("progressToken")).encode()
            with open(path + ".raw", "rb") as f:
                send(f.read().replace(b"__ID__", id_text).replace(b"__TOKEN__", token))
        else:
            with open(path + ".json", "rb") as f:
                answer(id_text, f.read().rstrip(b"\n"))
    else:
        send(b'{"jsonrpc":"2.0","id":' + id_text + b',"error":{"code":-32601,"message":"Method not found"}}\n')

with open(os.path.join(folder, "exited"), "a") as f:
    f.write("yes")
sys.exit(code)
