"""The message list an application hands to LiteLLM's `completion()`
(OpenAI's shape: `tool_calls`, `tool` messages, `image_url` parts),
converted by tool-carrier for Anthropic instead: the tool's result and
the screenshot the application sent after it in a user message (OpenAI
takes no image in a tool message) go in one user message, the
`tool_result` first, as Claude requires, the image fitted to its limits.

    python examples/python/litellm_messages.py
"""

from __future__ import annotations

import base64
from pathlib import Path

import tool_carrier

ROOT = Path(__file__).resolve().parents[2]


def main() -> list[str]:
    png = base64.b64encode((ROOT / "examples/shots/dashboard.png").read_bytes()).decode()
    messages = [
        {"role": "system", "content": "You test web pages."},
        {"role": "user", "content": "How does the dashboard look?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "screenshot", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "Captured."},
        {"role": "user", "content": [
            {"type": "text", "text": "The screenshot:"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}}]},
    ]
    request = tool_carrier.convert(messages, "anthropic")
    kinds = [
        m["content"] if isinstance(m["content"], str) else [b["type"] for b in m["content"]]
        for m in request.json()["messages"]
    ]
    return [f"anthropic: {kinds}", f"{request.report['tally']}"]


if __name__ == "__main__":
    print("\n".join(main()))
