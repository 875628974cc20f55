"""A LangChain conversation (langchain-core's own message classes, a
screenshot returned by a tool) saved as LangChain saves it
(`messages_to_dict`), read back by tool-carrier and converted for Gemini
and Bedrock, neither of which LangChain's history can be replayed to as
it is (Gemini 2 and Bedrock's other models take no image in a tool result).

    python examples/python/langchain_history.py      (pip install langchain-core)
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage, messages_to_dict

import tool_carrier

ROOT = Path(__file__).resolve().parents[2]


def main() -> list[str]:
    png = base64.b64encode((ROOT / "examples/shots/editor.png").read_bytes()).decode()
    messages = [
        HumanMessage("Check the editor."),
        AIMessage("", tool_calls=[{"name": "screenshot", "args": {}, "id": "call_1", "type": "tool_call"}]),
        ToolMessage(
            content=[
                {"type": "text", "text": "The editor:"},
                {"type": "image", "source_type": "base64", "mime_type": "image/png", "data": png},
            ],
            tool_call_id="call_1",
        ),
    ]
    saved = json.dumps(messages_to_dict(messages)).encode()
    history = tool_carrier.import_history(saved, "langchain")
    lines = [f"langchain: {history.tally}"]
    for provider, model in (("gemini-2", "gemini-2.5-flash"), ("bedrock", "us.meta.llama4-maverick-17b-instruct-v1:0")):
        request = tool_carrier.convert(history, provider, model=model)
        lines.append(f"{provider}: {request.report['images']} image sent, {request.report['tally']}")
    return lines


if __name__ == "__main__":
    print("\n".join(main()))
