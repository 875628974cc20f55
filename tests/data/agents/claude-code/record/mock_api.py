#!/usr/bin/env python3
"""A stand-in for the Anthropic Messages API on 127.0.0.1, for recording
what the real Claude Code CLI writes (record.sh). It answers every
`POST /v1/messages` by the state of the conversation it is sent:

- the last user message holds tool results: a closing text;
- the last user message asks for "screenshots": a thinking block (with a
  signature), a text, and two parallel `Read` calls, one of a PNG that
  exists and one of a file that does not (so one result is an error);
- anything else: a short text.

Streamed (SSE) when the request asks for it, as the API streams. Every
request is appended to the log given as the third argument.

    mock_api.py PORT_FILE WORKDIR LOG
"""
import json, sys, http.server, itertools

PORT_FILE, WORKDIR, LOG = sys.argv[1], sys.argv[2], sys.argv[3]
ids = itertools.count(1)


def last_user(messages):
    for m in reversed(messages):
        if m.get("role") == "user":
            c = m.get("content")
            return c if isinstance(c, list) else [{"type": "text", "text": c or ""}]
    return []


def answer(body):
    blocks = last_user(body.get("messages", []))
    if any(b.get("type") == "tool_result" for b in blocks):
        return [{"type": "text", "text": "The dashboard matches the mockup; the second file is missing."}], "end_turn"
    said = " ".join(b.get("text", "") for b in blocks if b.get("type") == "text")
    if "screenshots" in said and any(t.get("name") == "Read" for t in body.get("tools", [])):
        return [
            {"type": "thinking", "thinking": "Both files can be read at once.",
             "signature": "EqQBCkYIBhgCKkDmockSignatureForTheRecordedSession0123456789"},
            {"type": "text", "text": "Reading both screenshots."},
            {"type": "tool_use", "id": "toolu_01Dashboard%02d" % next(ids), "name": "Read",
             "input": {"file_path": WORKDIR + "/shots/dashboard.png"}},
            {"type": "tool_use", "id": "toolu_01Missing%02d" % next(ids), "name": "Read",
             "input": {"file_path": WORKDIR + "/shots/missing.png"}},
        ], "tool_use"
    return [{"type": "text", "text": "Noted."}], "end_turn"


def events(message, blocks, stop):
    yield "message_start", {"type": "message_start", "message": dict(message, content=[], stop_reason=None)}
    for i, b in enumerate(blocks):
        kind = b["type"]
        if kind == "text":
            start, delta = {"type": "text", "text": ""}, {"type": "text_delta", "text": b["text"]}
        elif kind == "thinking":
            start, delta = {"type": "thinking", "thinking": ""}, {"type": "thinking_delta", "thinking": b["thinking"]}
        else:
            start = {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}
        yield "content_block_start", {"type": "content_block_start", "index": i, "content_block": start}
        yield "content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta}
        if kind == "thinking":
            yield "content_block_delta", {"type": "content_block_delta", "index": i,
                                          "delta": {"type": "signature_delta", "signature": b["signature"]}}
        yield "content_block_stop", {"type": "content_block_stop", "index": i}
    yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                            "usage": {"output_tokens": 12}}
    yield "message_stop", {"type": "message_stop"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def reply(self, status, kind, data):
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        with open(LOG, "a") as log:
            log.write(json.dumps({"path": self.path, "body": body}) + "\n")
        if not self.path.startswith("/v1/messages") or "count_tokens" in self.path:
            return self.reply(200, "application/json", b'{"input_tokens": 10}')
        blocks, stop = answer(body)
        message = {"id": "msg_rec%04d" % next(ids), "type": "message", "role": "assistant",
                   "model": body.get("model", "claude"), "content": blocks, "stop_reason": stop,
                   "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 12}}
        if body.get("stream"):
            out = "".join("event: %s\ndata: %s\n\n" % (e, json.dumps(d)) for e, d in events(message, blocks, stop))
            return self.reply(200, "text/event-stream", out.encode())
        self.reply(200, "application/json", json.dumps(message).encode())

    def do_GET(self):
        self.reply(404, "application/json", b"{}")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(PORT_FILE, "w") as f:
    f.write(str(server.server_address[1]))
server.serve_forever()
