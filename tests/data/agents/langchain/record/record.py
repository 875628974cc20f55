"""Write a conversation with langchain-core's own message classes, saved the
two ways LangChain saves messages: `messages_to_dict` (what its chat
message histories store) and `dumpd` (its serializer, what LangGraph's
checkpoints hold).

Usage: python record.py OUTDIR      (pip install langchain-core==1.8.3)

Writes OUTDIR/messages_to_dict.json and OUTDIR/dumpd.json.

The conversation: a system prompt; the user's text and image (an
`image_url` data URL); the model's signed thinking, text and two parallel
calls (Anthropic-style content blocks, and `tool_calls`); one result of
text and an image (the v0 standard block, base64), one failed result
(`status="error"`); a call answered by an image in the v1 standard form
and an `image_url` URL; a last call answered by a PDF (v0 `file` block);
the final answer.
"""

import json
import sys
from pathlib import Path

from langchain_core.load import dumpd
from langchain_core.messages import (
    AIMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    messages_to_dict,
)

# A 1x1 PNG and a one-page PDF.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
PDF = (
    "JVBERi0xLjQKMSAwIG9iago8PCAvVHlwZSAvQ2F0YWxvZyAvUGFnZXMgMiAwIFIgPj4KZW5kb2JqCjIgMCBvYmoKPDwgL1R5"
    "cGUgL1BhZ2VzIC9LaWRzIFszIDAgUl0gL0NvdW50IDEgPj4KZW5kb2JqCjMgMCBvYmoKPDwgL1R5cGUgL1BhZ2UgL1BhcmVu"
    "dCAyIDAgUiAvTWVkaWFCb3ggWzAgMCA3MiA3Ml0gPj4KZW5kb2JqCnhyZWYKMCA0CjAwMDAwMDAwMDAgNjU1MzUgZiAKMDAw"
    "MDAwMDAwOSAwMDAwMCBuIAowMDAwMDAwMDU4IDAwMDAwIG4gCjAwMDAwMDAxMTUgMDAwMDAgbiAKdHJhaWxlcgo8PCAvU2l6"
    "ZSA0IC9Sb290IDEgMCBSID4+CnN0YXJ0eHJlZgoxODQKJSVFT0YK"
)

messages = [
    SystemMessage("You are a careful web tester."),
    HumanMessage(
        content=[
            {"type": "text", "text": "Here is the page I see. Check it and the logs."},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}"}},
        ]
    ),
    AIMessage(
        content=[
            {"type": "thinking", "thinking": "A screenshot and the log, at once.", "signature": "EqQBCkYIBxgCKkBsYW5nY2hhaW4tZml4dHVyZQ=="},
            {"type": "text", "text": "Taking a screenshot and reading the log."},
            {"type": "tool_use", "id": "toolu_01Shot", "name": "screenshot", "input": {"url": "http://localhost:3000"}},
            {"type": "tool_use", "id": "toolu_01Log", "name": "read_log", "input": {"path": "app.log"}},
        ],
        tool_calls=[
            {"name": "screenshot", "args": {"url": "http://localhost:3000"}, "id": "toolu_01Shot", "type": "tool_call"},
            {"name": "read_log", "args": {"path": "app.log"}, "id": "toolu_01Log", "type": "tool_call"},
        ],
        response_metadata={"model_name": "claude-sonnet-4-6", "stop_reason": "tool_use"},
        id="run-1",
        usage_metadata={"input_tokens": 120, "output_tokens": 40, "total_tokens": 160},
    ),
    ToolMessage(
        content=[
            {"type": "text", "text": "Screenshot of http://localhost:3000"},
            {"type": "image", "source_type": "base64", "data": PNG, "mime_type": "image/png"},
        ],
        tool_call_id="toolu_01Shot",
        name="screenshot",
    ),
    ToolMessage(content="ENOENT: app.log", tool_call_id="toolu_01Log", name="read_log", status="error"),
    AIMessage(
        content="Two more views.",
        tool_calls=[
            {"name": "chart", "args": {}, "id": "call_chart", "type": "tool_call"},
        ],
    ),
    ToolMessage(
        content=[
            {"type": "image", "base64": PNG, "mime_type": "image/png"},
            {"type": "image_url", "image_url": {"url": "https://example.com/chart.png"}},
        ],
        tool_call_id="call_chart",
    ),
    AIMessage(
        content="",
        tool_calls=[{"name": "report", "args": {"week": 48}, "id": "call_report", "type": "tool_call"}],
    ),
    ToolMessage(
        content=[
            {"type": "text", "text": "The weekly report."},
            {"type": "file", "source_type": "base64", "data": PDF, "mime_type": "application/pdf", "filename": "week-48.pdf"},
        ],
        tool_call_id="call_report",
        artifact={"rows": 3},
    ),
    AIMessage("The page renders, the chart rises, and the log is missing."),
]

out = Path(sys.argv[1] if len(sys.argv) > 1 else "out")
out.mkdir(parents=True, exist_ok=True)
(out / "messages_to_dict.json").write_text(json.dumps(messages_to_dict(messages), indent=2) + "\n")
(out / "dumpd.json").write_text(json.dumps(dumpd(messages), indent=2) + "\n")
