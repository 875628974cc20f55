"""The official Python SDKs with their base URL at the gateway.

    sdk.py API GATEWAY_URL IMAGE OUT_DIR

Sends, for API (anthropic, openai-chat or openai-responses), one request
and one streamed request holding IMAGE (a PNG) through the SDK's own
client, and writes the bytes the client received to OUT_DIR/answer and
OUT_DIR/stream; the SDK must also parse both (its high-level calls).
"""

import base64
import pathlib
import sys

api, url, image, out = sys.argv[1:5]
out = pathlib.Path(out)
png = base64.b64encode(pathlib.Path(image).read_bytes()).decode()
data_url = "data:image/png;base64," + png

if api == "anthropic":
    import anthropic

    client = anthropic.Anthropic(base_url=url, api_key="sk-ant-test", default_headers={"x-test": "1"})
    params = dict(
        model="claude-sonnet-4-5",
        max_tokens=1024,
        tools=[{"name": "screenshot", "description": "Take one", "input_schema": {"type": "object", "properties": {}}}],
        messages=[
            {"role": "user", "content": "Look at the screen."},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "screenshot", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                {"type": "text", "text": "shot"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}},
            ]}]},
        ],
    )
    raw = client.messages.with_raw_response.create(**params)
    (out / "answer").write_bytes(raw.http_response.content)
    assert raw.parse().content, "the SDK reads the answer"
    with client.messages.with_streaming_response.create(**params, stream=True) as r:
        (out / "stream").write_bytes(b"".join(r.iter_bytes()))
    with client.messages.stream(**params) as stream:
        assert stream.get_final_message().content, "the SDK reads the stream"
elif api in ("openai-chat", "openai-responses"):
    import openai

    client = openai.OpenAI(base_url=url + "/v1", api_key="sk-test", default_headers={"x-test": "1"})
    if api == "openai-chat":
        create = client.chat.completions
        params = dict(model="gpt-5", messages=[{"role": "user", "content": [
            {"type": "text", "text": "What is on the screen?"},
            {"type": "image_url", "image_url": {"url": data_url}},
        ]}])
    else:
        create = client.responses
        params = dict(model="gpt-5", input=[{"role": "user", "content": [
            {"type": "input_text", "text": "What is on the screen?"},
            {"type": "input_image", "image_url": data_url, "detail": "auto"},
        ]}])
    raw = create.with_raw_response.create(**params)
    (out / "answer").write_bytes(raw.http_response.content)
    assert raw.parse().id, "the SDK reads the answer"
    with create.with_streaming_response.create(**params, stream=True) as r:
        (out / "stream").write_bytes(b"".join(r.iter_bytes()))
    events = list(create.create(**params, stream=True))
    assert events, "the SDK reads the stream"
else:
    sys.exit(f"unknown API {api}")
