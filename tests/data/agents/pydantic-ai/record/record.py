"""Record a real pydantic-ai conversation (no network) and dump it with ModelMessagesTypeAdapter.

Usage: python record.py OUTDIR

Written for pydantic-ai-slim 2.68.0; also runs on 1.107.x (without the ToolFailed tool) for comparison.

Writes:
  OUTDIR/messages.json      ModelMessagesTypeAdapter.dump_json(result.all_messages(), indent=2)
  OUTDIR/facts.json         versions + base64 facts about the PNG bytes used, for test assertions
  OUTDIR/roundtrip_ok.txt   'ok' if validate_json(dump) re-dumps byte-identically
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
import sys
import zlib
from pathlib import Path

import pydantic
import pydantic_ai
from pydantic_ai import Agent, ModelRetry, RunContext
from pydantic_ai.capabilities import HandleDeferredToolCalls

try:  # pydantic-ai >= 2.x; absent in 1.x (the script still runs there, without the 'broken' tool)
    from pydantic_ai.exceptions import ToolFailed
except ImportError:  # pragma: no cover
    ToolFailed = None
from pydantic_ai.messages import (
    BinaryContent,
    ImageUrl,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturn,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults, ToolDenied
from pydantic_ai.usage import RequestUsage


# --------------------------------------------------------------------------- tiny valid PNGs
def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack('>I', len(data)) + tag + data + struct.pack('>I', binascii.crc32(tag + data) & 0xFFFFFFFF)


def png_1x1(r: int, g: int, b: int) -> bytes:
    ihdr = struct.pack('>IIBBBBB', 1, 1, 8, 2, 0, 0, 0)  # 1x1, 8-bit, RGB
    raw = bytes([0, r, g, b])  # filter byte 0 + one RGB pixel
    # A tEXt chunk makes the file length not a multiple of 3, so the base64 ends in '=' padding.
    text = _chunk(b'tEXt', b'Comment\x00xy')
    return (
        b'\x89PNG\r\n\x1a\n' + _chunk(b'IHDR', ihdr) + text + _chunk(b'IDAT', zlib.compress(raw, 9)) + _chunk(b'IEND', b'')
    )


def find_png(need_plus: bool, need_slash: bool, start: int = 0) -> bytes:
    """First 1x1 PNG whose *standard* base64 contains '+' and/or '/' (so URL-safe has '-' / '_')."""
    for i in range(start, 256**3):
        png = png_1x1((i >> 16) & 255, (i >> 8) & 255, i & 255)
        s = base64.b64encode(png).decode()
        if (not need_plus or '+' in s) and (not need_slash or '/' in s) and len(png) % 3 != 0:
            return png
    raise RuntimeError('no png found')


PNG_USER = find_png(need_plus=True, need_slash=True)  # user prompt image
PNG_TOOL = find_png(need_plus=True, need_slash=True, start=1000)  # returned directly by a tool
PNG_TOOLRETURN = find_png(need_plus=True, need_slash=True, start=2000)  # ToolReturn.content image
PNG_GALLERY = find_png(need_plus=True, need_slash=True, start=3000)  # inside a list tool return


# --------------------------------------------------------------------------- tools
flaky_calls = {'n': 0}


def build_agent() -> Agent[None, str]:
    agent = Agent(
        FunctionModel(model_fn, model_name='fixture-model'),
        system_prompt='You are a fixture generator. Be terse.',
        instructions='Always call tools when asked.',
        output_type=[str, DeferredToolRequests],
        capabilities=[HandleDeferredToolCalls(handler=deny_everything)],
    )

    @agent.tool_plain
    def get_image() -> BinaryContent:
        """Return a PNG image directly (tool-return content is a BinaryContent)."""
        return BinaryContent(data=PNG_TOOL, media_type='image/png')

    @agent.tool_plain
    def get_report(topic: str) -> ToolReturn:
        """Return a ToolReturn whose extra `content` becomes a following user-prompt part."""
        return ToolReturn(
            return_value={'topic': topic, 'status': 'ok', 'rows': 3},
            content=['Chart for the report:', BinaryContent(data=PNG_TOOLRETURN, media_type='image/png')],
            metadata={'internal_ref': 'r-42'},
        )

    @agent.tool_plain
    def get_gallery() -> list[object]:
        """Return a list mixing text, a BinaryContent and an ImageUrl (list tool-return content)."""
        return [
            'two images follow',
            BinaryContent(data=PNG_GALLERY, media_type='image/png', vendor_metadata={'detail': 'low'}),
            ImageUrl(url='https://example.com/gallery/cat.jpg'),
        ]

    @agent.tool_plain
    def flaky(x: int) -> str:
        """Raises ModelRetry on first call -> ToolReturnPart(outcome='retried') in 2.x (was RetryPromptPart)."""
        flaky_calls['n'] += 1
        if flaky_calls['n'] == 1:
            raise ModelRetry(f'x={x} is too small, try a bigger number')
        return f'flaky ok with x={x}'

    if ToolFailed is not None:

        @agent.tool_plain
        def broken() -> str:
            """Raises ToolFailed -> ToolReturnPart(outcome='failed')."""
            raise ToolFailed('backend is down')

    @agent.tool_plain(requires_approval=True)
    def delete_everything() -> str:
        """Requires approval; the HandleDeferredToolCalls handler denies it -> outcome='denied'."""
        return 'deleted'  # never runs

    return agent


def deny_everything(ctx: RunContext[None], requests: DeferredToolRequests) -> DeferredToolResults:
    return requests.build_results(
        approvals={c.tool_call_id: ToolDenied('Denied by policy: destructive operation.') for c in requests.approvals}
    )


# --------------------------------------------------------------------------- scripted model
def model_fn(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    step = sum(isinstance(m, ModelResponse) for m in messages)
    if step == 0:
        return ModelResponse(
            parts=[
                ThinkingPart(
                    content='The user wants an image and a report. I will call two tools.',
                    signature='EqQBCkYIBxgCKkBvZml4dHVyZS1zaWduYXR1cmU=',
                    provider_name='anthropic',
                ),
                TextPart(content='Let me fetch both.'),
                ToolCallPart(tool_name='get_image', args={}, tool_call_id='call_img_1'),
                ToolCallPart(tool_name='get_report', args='{"topic": "sales"}', tool_call_id='call_rep_1'),
            ],
            usage=RequestUsage(input_tokens=120, output_tokens=40, cache_read_tokens=10, details={'reasoning_tokens': 12}),
            provider_name='anthropic',
            provider_response_id='msg_fixture_001',
            provider_details={'stop_reason': 'tool_use'},
            finish_reason='tool_call',
        )
    if step == 1:
        return ModelResponse(
            parts=[
                ToolCallPart(tool_name='flaky', args={'x': 1}, tool_call_id='call_flaky_1'),
                ToolCallPart(tool_name='get_gallery', args=None, tool_call_id='call_gal_1'),
                *([ToolCallPart(tool_name='broken', args='{}', tool_call_id='call_broken_1')] if ToolFailed else []),
                ToolCallPart(tool_name='delete_everything', args={}, tool_call_id='call_del_1'),
            ],
            finish_reason='tool_call',
        )
    if step == 2:
        return ModelResponse(
            parts=[ToolCallPart(tool_name='flaky', args={'x': 100}, tool_call_id='call_flaky_2')],
            finish_reason='tool_call',
        )
    return ModelResponse(
        parts=[TextPart(content='All done: image, report, gallery fetched; broken failed; delete was denied.')],
        finish_reason='stop',
    )


# --------------------------------------------------------------------------- main
def main() -> None:
    outdir = Path(sys.argv[1] if len(sys.argv) > 1 else 'out')
    outdir.mkdir(parents=True, exist_ok=True)
    agent = build_agent()
    result = agent.run_sync(
        [
            'Describe this picture, then fetch an image and a sales report.',
            BinaryContent(data=PNG_USER, media_type='image/png', identifier='user-photo-1'),
            ImageUrl(url='https://example.com/images/photo.png', vendor_metadata={'detail': 'high'}),
        ]
    )
    messages = result.all_messages()
    dumped = ModelMessagesTypeAdapter.dump_json(messages, indent=2)
    (outdir / 'messages.json').write_bytes(dumped)

    # round trip check
    reloaded = ModelMessagesTypeAdapter.validate_json(dumped)
    redumped = ModelMessagesTypeAdapter.dump_json(reloaded, indent=2)
    (outdir / 'roundtrip_ok.txt').write_text('ok\n' if redumped == dumped else 'DIFFERENT\n')

    facts = {
        'pydantic_ai_slim': pydantic_ai.__version__,
        'pydantic': pydantic.VERSION,
        'output': result.output if isinstance(result.output, str) else repr(result.output),
        'pngs': {
            name: {
                'len': len(data),
                'std_b64': base64.b64encode(data).decode(),
                'urlsafe_b64': base64.urlsafe_b64encode(data).decode(),
            }
            for name, data in [
                ('user', PNG_USER),
                ('tool', PNG_TOOL),
                ('toolreturn_content', PNG_TOOLRETURN),
                ('gallery', PNG_GALLERY),
            ]
        },
    }
    (outdir / 'facts.json').write_text(json.dumps(facts, indent=2) + '\n')
    print(f'wrote {outdir / "messages.json"} ({len(dumped)} bytes), output={facts["output"]!r}')


if __name__ == '__main__':
    main()
