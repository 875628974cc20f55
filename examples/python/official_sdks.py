"""A converted body sent as it is with the official `anthropic` and
`openai` SDKs (Messages, Chat Completions, Responses) to a local mock
that records what arrives and answers with a recorded response; the
answer goes back into the conversation.

    python examples/python/official_sdks.py      (from the repository's root)

Prints, for each API, the path the SDK posted to, whether the body that
arrived is the one converted, and the tool calls read back.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anthropic
import openai

import tool_carrier

ROOT = Path(__file__).resolve().parents[2]
RESPONSES = ROOT / "tests/data/responses"
ANSWERS = {
    "/v1/messages": RESPONSES / "anthropic/tool_call.json",
    "/v1/chat/completions": RESPONSES / "openai-chat/tool_call.json",
    "/v1/responses": RESPONSES / "openai-responses/reasoning_call.json",
}


class Mock(BaseHTTPRequestHandler):
    received: list[tuple[str, dict]] = []

    def do_POST(self) -> None:  # noqa: N802 (the handler's name)
        body = self.rfile.read(int(self.headers["content-length"]))
        self.received.append((self.path, json.loads(body)))
        answer = ANSWERS[self.path].read_bytes()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: object) -> None:
        pass


def main() -> list[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Mock)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/v1"
    lines = []
    try:
        for provider in ("anthropic", "openai-chat", "openai-responses"):
            loop = tool_carrier.Conversation(provider, roots=[ROOT / "examples"])
            for record in (ROOT / "examples/screenshot-round.jsonl").read_text().splitlines():
                message = json.loads(record)
                loop.push(message["role"], message["content"])
            body = loop.request().json()
            if provider == "anthropic":
                client = anthropic.Anthropic(base_url=base.removesuffix("/v1"), api_key="mock")
                client.messages.create(**body)
            elif provider == "openai-chat":
                openai.OpenAI(base_url=base, api_key="mock").chat.completions.create(**body)
            else:
                openai.OpenAI(base_url=base, api_key="mock").responses.create(**body)
            path, arrived = Mock.received[-1]
            turn = loop.push_response(ANSWERS[path].read_text())
            names = [call["name"] for call in turn["calls"]]
            lines.append(f"{provider}: POST {path}, body as converted: {arrived == body}, calls {names}")
    finally:
        server.shutdown()
    return lines


if __name__ == "__main__":
    print("\n".join(main()))
