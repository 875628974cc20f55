"""Record a real SQLiteSession database written by the OpenAI Agents SDK itself.

No network: a scripted Model subclass returns canned Responses-API output items
(validated into the openai SDK's pydantic ResponseOutputItem models, i.e. exactly
what the real OpenAIResponsesModel hands to the runner).

Usage: venv/bin/python record.py [OUTDIR]   (default: ./out)

Writes:
  OUTDIR/session.db        - the SQLite db (tables agent_sessions / agent_messages)
  OUTDIR/items.jsonl       - message_data column, one row per line, ORDER BY id
  OUTDIR/model_inputs.json - the `input` list the runner passed to each model call
  OUTDIR/get_items.json    - what SQLiteSession.get_items() returns
  OUTDIR/versions.json     - package versions
  OUTDIR/encrypted.db      - (if `cryptography` is importable) EncryptedSession over
                             SQLiteSession: two items stored as {"__enc__":1,...} envelopes
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import sqlite3
import struct
import sys
import zlib
from collections.abc import AsyncIterator
from typing import Any

import pydantic
from openai.types.responses import ResponseOutputItem

import agents
from agents import (
    Agent,
    AsyncComputer,
    ComputerTool,
    CustomTool,
    HostedMCPTool,
    LocalShellTool,
    ModelResponse,
    ModelSettings,
    Runner,
    SQLiteSession,
    ToolOutputFileContent,
    ToolOutputImage,
    ToolOutputText,
    Usage,
    function_tool,
    set_tracing_disabled,
)
from agents.models.interface import Model

SESSION_ID = "conv_fixture_1"
# Raw (non-Fernet) master key for the optional EncryptedSession fixture.
ENCRYPTION_KEY = "fixture-master-key-not-secret-0123456789"


# ---------------------------------------------------------------------------
# A tiny valid 1x1 PNG (built with zlib so the CRCs are correct).
# ---------------------------------------------------------------------------
def _png_1x1(rgba: tuple[int, int, int, int]) -> bytes:
    def chunk(tag: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + tag
            + data
            + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
        )

    ihdr = struct.pack(">IIBBBBB", 1, 1, 8, 6, 0, 0, 0)
    raw = b"\x00" + bytes(rgba)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


PNG_RED_B64 = base64.b64encode(_png_1x1((255, 0, 0, 255))).decode()
PNG_BLUE_B64 = base64.b64encode(_png_1x1((0, 0, 255, 255))).decode()
PNG_GREEN_B64 = base64.b64encode(_png_1x1((0, 255, 0, 255))).decode()
RED_URL = f"data:image/png;base64,{PNG_RED_B64}"
BLUE_URL = f"data:image/png;base64,{PNG_BLUE_B64}"
# A minimal one-page PDF with a valid cross-reference table.
PDF_B64 = (
    "JVBERi0xLjQKMSAwIG9iago8PCAvVHlwZSAvQ2F0YWxvZyAvUGFnZXMgMiAwIFIgPj4KZW5kb2JqCjIgMCBvYmoKPDwgL1R5"
    "cGUgL1BhZ2VzIC9LaWRzIFszIDAgUl0gL0NvdW50IDEgPj4KZW5kb2JqCjMgMCBvYmoKPDwgL1R5cGUgL1BhZ2UgL1BhcmVu"
    "dCAyIDAgUiAvTWVkaWFCb3ggWzAgMCA3MiA3Ml0gPj4KZW5kb2JqCnhyZWYKMCA0CjAwMDAwMDAwMDAgNjU1MzUgZiAKMDAw"
    "MDAwMDAwOSAwMDAwMCBuIAowMDAwMDAwMDU4IDAwMDAwIG4gCjAwMDAwMDAxMTUgMDAwMDAgbiAKdHJhaWxlcgo8PCAvU2l6"
    "ZSA0IC9Sb290IDEgMCBSID4+CnN0YXJ0eHJlZgoxODQKJSVFT0YK"
)

_OUTPUT_ADAPTER: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(ResponseOutputItem)


# ---------------------------------------------------------------------------
# Scripted model
# ---------------------------------------------------------------------------
class ScriptedModel(Model):
    """Returns canned outputs, one list per get_response call; records the inputs."""

    def __init__(self, script: list[list[dict[str, Any]]]):
        self.script = list(script)
        self.inputs: list[Any] = []
        self.n = 0

    async def get_response(
        self,
        system_instructions,
        input,
        model_settings,
        tools,
        output_schema,
        handoffs,
        tracing,
        *,
        previous_response_id=None,
        conversation_id=None,
        prompt=None,
        **kwargs: Any,
    ) -> ModelResponse:
        self.n += 1
        self.inputs.append(
            {
                "call": self.n,
                "system_instructions": system_instructions,
                "input": json.loads(json.dumps(input, default=str)),
            }
        )
        outputs = self.script.pop(0)
        # Same validation path as parsing a real /v1/responses JSON body.
        parsed = [_OUTPUT_ADAPTER.validate_python(o) for o in outputs]
        return ModelResponse(
            output=parsed,
            usage=Usage(requests=1, input_tokens=10, output_tokens=5, total_tokens=15),
            response_id=f"resp_{self.n:03d}",
        )

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        raise NotImplementedError


# ---------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------
@function_tool
def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny, 21C in {city}"


@function_tool
def get_chart(city: str) -> ToolOutputImage:
    """Render a temperature chart as an image."""
    return ToolOutputImage(image_url=BLUE_URL, detail="low")


@function_tool
def get_report(city: str) -> list[ToolOutputText | ToolOutputFileContent]:
    """Return a text summary plus a PDF report."""
    return [
        ToolOutputText(text=f"Report for {city}"),
        ToolOutputFileContent(file_data=f"data:application/pdf;base64,{PDF_B64}", filename="r.pdf"),
    ]


class FakeComputer(AsyncComputer):
    @property
    def environment(self):
        return "linux"

    @property
    def dimensions(self):
        return (1, 1)

    async def screenshot(self) -> str:
        return PNG_GREEN_B64  # base64 PNG, no data: prefix (SDK adds it)

    async def click(self, x, y, button):
        pass

    async def double_click(self, x, y):
        pass

    async def scroll(self, x, y, scroll_x, scroll_y):
        pass

    async def type(self, text):
        pass

    async def wait(self):
        pass

    async def move(self, x, y):
        pass

    async def keypress(self, keys):
        pass

    async def drag(self, path):
        pass


async def _grep_tool(ctx, input: str) -> str:
    return f"grep found 2 matches for {input!r}"


grep_tool = CustomTool(name="grep", description="grep the repo", on_invoke_tool=_grep_tool)
local_shell = LocalShellTool(executor=lambda req: "hello\n")
hosted_mcp = HostedMCPTool(
    tool_config={
        "type": "mcp",
        "server_label": "deepwiki",
        "server_url": "https://mcp.deepwiki.com/mcp",
        "require_approval": "always",
    },
    on_approval_request=lambda req: {"approve": True},
)


# ---------------------------------------------------------------------------
# Canned model outputs (shaped like real Responses API output JSON)
# ---------------------------------------------------------------------------
def msg(id_: str, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": id_,
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}],
        **extra,
    }


SCRIPT: list[list[dict[str, Any]]] = [
    # ---- run 1, call 1: reasoning + message + two parallel function calls
    [
        {
            "id": "rs_001",
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": "Need weather and a chart."}],
            "encrypted_content": "gAAAAABfakeEncryptedReasoningBlob==",
        },
        msg("msg_001", "Let me check the weather and draw a chart."),
        {
            "id": "fc_001",
            "type": "function_call",
            "call_id": "call_weather",
            "name": "get_weather",
            "arguments": '{"city":"Paris"}',
            "status": "completed",
        },
        {
            "id": "fc_002",
            "type": "function_call",
            "call_id": "call_chart",
            "name": "get_chart",
            "arguments": '{"city":"Paris"}',
            "status": "completed",
        },
    ],
    # ---- run 1, call 2: computer call (GA `actions` batch)
    [
        {
            "id": "rs_002",
            "type": "reasoning",
            "summary": [],
            "encrypted_content": "gAAAAABsecondBlob==",
        },
        {
            "id": "cu_001",
            "type": "computer_call",
            "call_id": "call_computer",
            "status": "completed",
            "pending_safety_checks": [],
            "actions": [
                {"type": "click", "x": 0, "y": 0, "button": "left"},
                {"type": "screenshot"},
            ],
        },
    ],
    # ---- run 1, call 3: final answer
    [msg("msg_002", "Paris is sunny, 21C. Chart attached above.")],
    # ---- run 2, call 4: hosted tools + custom tool + local shell + mcp approval
    [
        {
            "id": "ws_001",
            "type": "web_search_call",
            "status": "completed",
            "action": {"type": "search", "query": "paris weather"},
        },
        {
            "id": "fs_001",
            "type": "file_search_call",
            "status": "completed",
            "queries": ["paris"],
            "results": [
                {"file_id": "file_abc", "filename": "paris.txt", "score": 0.9, "text": "Paris..."}
            ],
        },
        {
            "id": "ig_001",
            "type": "image_generation_call",
            "status": "completed",
            "result": PNG_RED_B64,
        },
        {
            "id": "ci_001",
            "type": "code_interpreter_call",
            "status": "completed",
            "code": "print(1+1)",
            "container_id": "cntr_1",
            "outputs": [{"type": "logs", "logs": "2\n"}],
        },
        {
            "id": "mcpl_001",
            "type": "mcp_list_tools",
            "server_label": "deepwiki",
            "tools": [{"name": "ask", "input_schema": {"type": "object"}}],
        },
        {
            "id": "mcp_001",
            "type": "mcp_call",
            "server_label": "deepwiki",
            "name": "ask",
            "arguments": '{"q":"x"}',
            "output": "answer",
            "status": "completed",
        },
        {
            "id": "mcpr_001",
            "type": "mcp_approval_request",
            "server_label": "deepwiki",
            "name": "ask",
            "arguments": '{"q":"y"}',
        },
        {
            "id": "ctc_001",
            "type": "custom_tool_call",
            "call_id": "call_custom",
            "name": "grep",
            "input": "TODO",
        },
        {
            "id": "lsh_001",
            "type": "local_shell_call",
            "call_id": "call_shell",
            "status": "completed",
            "action": {"type": "exec", "command": ["echo", "hello"], "env": {}},
        },
    ],
    # ---- run 2, call 5: a function tool with a text+file list output
    [
        {
            "id": "fc_003",
            "type": "function_call",
            "call_id": "call_report",
            "name": "get_report",
            "arguments": '{"city":"Paris"}',
            "status": "completed",
        }
    ],
    # ---- run 2, call 6: server-side compaction item + final message
    [
        {"id": "cmp_001", "type": "compaction", "encrypted_content": "gAAAAABcompactedBlob=="},
        msg("msg_003", "All tools done."),
    ],
    # ---- run 3 (plain string input), call 7: refusal
    [
        {
            "id": "msg_004",
            "type": "message",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "refusal", "refusal": "I can't help with that."}],
        }
    ],
]


async def main(outdir: str) -> None:
    os.makedirs(outdir, exist_ok=True)
    db_path = os.path.join(outdir, "session.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db_path + suffix):
            os.remove(db_path + suffix)

    set_tracing_disabled(True)
    model = ScriptedModel(SCRIPT)
    agent = Agent(
        name="fixture-agent",
        instructions="You are a test agent. (instructions are NOT stored in the session)",
        model=model,
        model_settings=ModelSettings(parallel_tool_calls=True),
        tools=[
            get_weather,
            get_chart,
            get_report,
            ComputerTool(computer=FakeComputer()),
            grep_tool,
            local_shell,
            hosted_mcp,
        ],
    )
    session = SQLiteSession(SESSION_ID, db_path)

    # Run 1: multimodal user input (EasyInputMessage with explicit type)
    r1 = await Runner.run(
        agent,
        [
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "What's the weather in Paris? Here is a pic."},
                    {"type": "input_image", "image_url": RED_URL, "detail": "auto"},
                ],
            }
        ],
        session=session,
    )
    # Run 2: developer + system messages, and a user message with an input_file
    r2 = await Runner.run(
        agent,
        [
            {"role": "developer", "content": "Use every tool."},
            {"role": "system", "content": "System note."},
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Run all tools on this file."},
                    {
                        "type": "input_file",
                        "file_data": f"data:application/pdf;base64,{PDF_B64}",
                        "filename": "in.pdf",
                    },
                ],
            },
        ],
        session=session,
    )
    # Run 3: plain string input -> stored as {"content": "...", "role": "user"}
    # A pure refusal raises ModelRefusalError (turn_resolution.py ~L1203); we catch it
    # to observe what the session keeps.
    try:
        r3 = await Runner.run(agent, "Do something bad.", session=session)
        r3_out = r3.final_output
    except agents.ModelRefusalError as e:  # type: ignore[attr-defined]
        r3_out = f"ModelRefusalError: {e}"

    get_items = await session.get_items()
    session.close()

    with open(os.path.join(outdir, "get_items.json"), "w") as f:
        json.dump(get_items, f, indent=1)
    with open(os.path.join(outdir, "model_inputs.json"), "w") as f:
        json.dump(model.inputs, f, indent=1)

    conn = sqlite3.connect(db_path)
    rows = conn.execute(
        "select message_data from agent_messages where session_id=? order by id", (SESSION_ID,)
    ).fetchall()
    conn.close()
    rows_json = [json.loads(d) for (d,) in rows]
    with open(os.path.join(outdir, "items.jsonl"), "w") as f:
        for (data,) in rows:
            f.write(data + "\n")

    # Optional: the same user item through EncryptedSession(SQLiteSession) -> envelope rows.
    try:
        from agents.extensions.memory import EncryptedSession
    except ImportError:  # cryptography not installed
        EncryptedSession = None  # type: ignore[assignment]
    if EncryptedSession is not None:
        enc_path = os.path.join(outdir, "encrypted.db")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(enc_path + suffix):
                os.remove(enc_path + suffix)
        under = SQLiteSession(SESSION_ID, enc_path)
        enc = EncryptedSession(
            session_id=SESSION_ID,
            underlying_session=under,
            encryption_key=ENCRYPTION_KEY,
            ttl=10**9,
        )
        await enc.add_items([{"role": "user", "content": "h\u00e9llo"}, rows_json[1]])
        under.close()

    from importlib.metadata import version

    with open(os.path.join(outdir, "versions.json"), "w") as f:
        json.dump(
            {
                "openai-agents": version("openai-agents"),
                "openai": version("openai"),
                "python": sys.version.split()[0],
                "sqlite": sqlite3.sqlite_version,
            },
            f,
            indent=1,
        )
    print("final outputs:", r1.final_output, "|", r2.final_output, "|", r3_out)
    print(f"{len(rows)} rows written to {db_path}; model calls: {model.n}")
    assert not model.script, f"unused script entries: {len(model.script)}"


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "out")))
