#!/usr/bin/env python3
"""The Python package's first and second conversion of the history
litellm_calls.py builds (the same OpenAI Chat messages, screenshots as
data URIs in user messages), each body POSTed to the mock as a client
would send it.

    package_calls.py PROVIDER MODEL SHOTS_DIR PORT START_FILE

Writes START_FILE as litellm_calls.py does: the history building's start
and end, and the second call's start.
"""
import base64
import http.client
import pathlib
import sys
import time

import tool_carrier

provider, model, shots, port, start_file = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3]), int(sys.argv[4]), sys.argv[5]

built_from = time.time()
messages = [{"role": "system", "content": "You operate a desktop."}]
for n, path in enumerate(sorted(shots.glob("shot-*.png"))):
    call = f"call_{n}"
    messages.append({"role": "assistant", "content": None, "tool_calls": [
        {"id": call, "type": "function", "function": {"name": "screenshot", "arguments": "{}"}}]})
    messages.append({"role": "tool", "tool_call_id": call, "content": "Took a screenshot."})
    uri = "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()
    messages.append({"role": "user", "content": [{"type": "image_url", "image_url": {"url": uri}}]})
built_to = time.time()
tools = [{"name": "screenshot", "description": "Take a screenshot.",
          "input_schema": {"type": "object", "properties": {}}}]


def call():
    request = tool_carrier.convert(messages, provider, model=model, tools=tools, params={"max_tokens": 64})
    connection = http.client.HTTPConnection("127.0.0.1", port)
    connection.request("POST", "/", body=request.body, headers={"content-type": "application/json"})
    connection.getresponse().read()
    connection.close()


call()
second = time.time()
call()
pathlib.Path(start_file).write_text(f"{built_from:.6f}\n{built_to:.6f}\n{second:.6f}\n")
