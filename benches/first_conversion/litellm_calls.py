#!/usr/bin/env python3
"""LiteLLM's first and second call on a history of screenshot rounds.

    litellm_calls.py PROVIDER SHOTS_DIR PORT START_FILE

Imports litellm, builds the history from SHOTS_DIR/shot-NN.png the way an
agent hands it over (OpenAI Chat messages: a `screenshot` tool call, its
text result, and the screenshot as a data URI in a user message after it),
then calls `litellm.completion` twice for PROVIDER (anthropic,
openai-chat, openai-responses or gemini) against the mock on
127.0.0.1:PORT. Writes to START_FILE, one a line: the wall-clock time the
history building started and ended (left out of the first call's time:
an agent already holds its history), and the time the second call began.
"""
import base64
import pathlib
import sys
import time

import litellm

provider, shots, port, start_file = sys.argv[1], pathlib.Path(sys.argv[2]), sys.argv[3], sys.argv[4]
model, api_base = {
    "anthropic": ("anthropic/claude-haiku-4-5", f"http://127.0.0.1:{port}/v1/messages"),
    "openai-chat": ("openai/gpt-5.1", f"http://127.0.0.1:{port}/v1"),
    "openai-responses": ("openai/responses/gpt-5.1", f"http://127.0.0.1:{port}/v1"),
    "gemini": ("gemini/gemini-3.1-pro-preview", f"http://127.0.0.1:{port}"),
}[provider]

built_from = time.time()
messages = [{"role": "system", "content": "You operate a desktop."}]
for n, path in enumerate(sorted(shots.glob("shot-*.png"))):
    call = f"call_{n}"
    messages.append({
        "role": "assistant",
        "content": None,
        "tool_calls": [{
            "id": call,
            "type": "function",
            "function": {"name": "screenshot", "arguments": "{}"},
        }],
    })
    messages.append({"role": "tool", "tool_call_id": call, "content": "Took a screenshot."})
    uri = "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()
    messages.append({"role": "user", "content": [{"type": "image_url", "image_url": {"url": uri}}]})
built_to = time.time()
tools = [{
    "type": "function",
    "function": {
        "name": "screenshot",
        "description": "Take a screenshot.",
        "parameters": {"type": "object", "properties": {}},
    },
}]


def call():
    try:
        litellm.completion(
            model=model,
            messages=messages,
            tools=tools,
            max_tokens=64,
            api_base=api_base,
            api_key="mock-key",
            num_retries=0,
        )
    except Exception:  # noqa: BLE001
        # The mock answers as Anthropic does; the request has been sent.
        pass


call()
second = time.time()
call()
pathlib.Path(start_file).write_text(f"{built_from:.6f}\n{built_to:.6f}\n{second:.6f}\n")
