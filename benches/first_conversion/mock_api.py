#!/usr/bin/env python3
"""A bounded stand-in for a provider's API on 127.0.0.1.

    mock_api.py PORT_FILE TIMES_FILE [REQUESTS] [TIMEOUT_S] [BODY_FILE]

Listens on a free port (written to PORT_FILE), and for each of REQUESTS
requests (2 by default), whatever its path, writes to TIMES_FILE the
wall-clock time its request line and headers arrived (the moment the
client sent it) and the body's length, reads the body whole (into
BODY_FILE, if given: the last one is kept), answers a minimal valid
Anthropic Messages response (other APIs' clients fail on it after sending,
which is all the bench asks of them), and exits after the last one, or
after TIMEOUT_S seconds (60 by default) in any case.
"""
import json
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler

port_file, times_file = sys.argv[1], sys.argv[2]
requests = int(sys.argv[3]) if len(sys.argv) > 3 else 2
timeout = float(sys.argv[4]) if len(sys.argv) > 4 else 60.0
body_file = sys.argv[5] if len(sys.argv) > 5 else None

ANSWER = json.dumps({
    "id": "msg_mock",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "ok"}],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}).encode()

seen = []
done = threading.Event()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        arrived = time.time()
        length = int(self.headers.get("Content-Length", "0"))
        remaining = length
        kept = open(body_file, "wb") if body_file else None
        while remaining:
            chunk = self.rfile.read(min(remaining, 1 << 20))
            if not chunk:
                break
            if kept:
                kept.write(chunk)
            remaining -= len(chunk)
        if kept:
            kept.close()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(ANSWER)))
        self.end_headers()
        self.wfile.write(ANSWER)
        self.wfile.flush()
        seen.append((arrived, length))
        with open(times_file, "a") as f:
            f.write(f"{arrived:.6f} {length}\n")
        if len(seen) >= requests:
            done.set()

    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


server = Server(("127.0.0.1", 0), Handler)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
import os  # noqa: E402

os.replace(port_file + ".tmp", port_file)
threading.Thread(target=server.serve_forever, daemon=True).start()
done.wait(timeout)
server.shutdown()
sys.exit(0 if done.is_set() else 1)
