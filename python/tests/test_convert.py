"""The Python package: each wrapped call, its errors, the GIL released
while it works, and bodies byte-identical to the command's."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import subprocess
import threading

import pytest

import tool_carrier as tc

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
ROUND = EXAMPLES / "screenshot-round.jsonl"
# The release command, built by `.ci/run` before this runs.
COMMAND = pathlib.Path(os.environ.get("TOOL_CARRIER_BIN", REPO / "target/release/tool-carrier"))


def test_the_version_is_the_crates():
    cargo = (REPO / "python/Cargo.toml").read_text()
    crate = (REPO / "Cargo.toml").read_text()
    line = next(l for l in crate.splitlines() if l.startswith("version = "))
    assert line in cargo.splitlines()
    assert f'version = "{tc.__version__}"' == line


def test_a_history_reads_from_a_path_text_bytes_or_a_list():
    text = ROUND.read_text()
    records = [json.loads(line) for line in text.splitlines() if line.strip()]
    bodies = {
        tc.convert(h, "anthropic", roots=[EXAMPLES]).body
        for h in (ROUND, text, text.encode(), records)
    }
    assert len(bodies) == 1
    request = tc.convert(ROUND, "anthropic", roots=[EXAMPLES])
    assert request.report["images"] == 2
    assert request.report["tally"] == "read 2 calls, 2 results, 2 images: all sent"
    assert request.method == "POST"
    assert request.url == "https://api.anthropic.com/v1/messages"
    assert request.json()["model"] == request.model


def test_chat_completions_messages_are_read_as_such():
    messages = [
        {"role": "user", "content": "Take a shot."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "shot", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "Done."},
    ]
    body = tc.convert(messages, "anthropic").json()
    blocks = [m["content"] for m in body["messages"]]
    assert [b["type"] for b in blocks[1]] == ["tool_use"]
    assert blocks[2][0]["type"] == "tool_result"
    assert blocks[2][0]["tool_use_id"] == "c1"


@pytest.mark.skipif(not COMMAND.exists(), reason="the release command is not built (cargo build --release -p tool-carrier-cli)")
@pytest.mark.parametrize("provider", ["anthropic", "openai-chat", "openai-responses", "gemini", "bedrock", "ollama"])
def test_bodies_are_byte_identical_to_the_commands(provider):
    params = {"max_tokens": 512, "stream": True}
    command = subprocess.run(
        [str(COMMAND), "convert", "--provider", provider, "--root", str(EXAMPLES), "--compact",
         "--tools", str(EXAMPLES / "tools.json"), "--param", "max_tokens=512", "--param", "stream=true",
         str(ROUND)],
        capture_output=True, check=True,
    )
    tools = json.loads((EXAMPLES / "tools.json").read_text())
    request = tc.convert(ROUND, provider, roots=[EXAMPLES], tools=tools, params=params)
    assert request.body == command.stdout.rstrip(b"\n")


def test_a_record_that_is_no_message_is_a_read_error_naming_its_line():
    with pytest.raises(tc.ReadError) as caught:
        tc.convert('{"role": "user", "content": "Hi."}\n{"role": "user"}\n', "anthropic")
    assert caught.value.line == 2
    assert 'no "content" member' in str(caught.value)
    with pytest.raises(tc.ReadError, match="no-such-file"):
        tc.convert(pathlib.Path("no-such-file.jsonl"), "anthropic")
    with pytest.raises(tc.ReadError, match="not \"records\", \"auto\""):
        tc.convert("{}", "anthropic", source="nonsense")
    with pytest.raises(TypeError, match="history"):
        tc.convert(42, "anthropic")  # type: ignore[arg-type]


def test_a_body_the_api_would_refuse_names_the_rule_and_where():
    schema = {"schema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}
    with pytest.raises(tc.RefusedError) as caught:
        tc.convert("Hi.\n".replace("Hi.", '{"role": "user", "content": "Hi."}'), "anthropic",
                   params={"response_format": schema})
    error = caught.value
    assert error.rule == "anthropic/output-schema"
    assert error.path == "$.output_config.format.schema"
    assert error.source.startswith("https://platform.claude.com/")
    assert "additionalProperties" in error.detail
    assert isinstance(error, tc.ToolCarrierError)


def test_settings_the_provider_does_not_take_are_options_errors():
    hello = [{"role": "user", "content": "Hi."}]
    with pytest.raises(tc.OptionsError, match="unknown key"):
        tc.convert(hello, "anthropic", params={"temprature": 1})
    with pytest.raises(tc.OptionsError, match="seed"):
        tc.convert(hello, "anthropic", params={"seed": 7})
    with pytest.raises(tc.OptionsError, match="unknown provider|provider"):
        tc.convert(hello, "anthropics")
    with pytest.raises(tc.OptionsError, match="extra member"):
        tc.convert(hello, "openai-chat", extra={"model": "x"})


def test_strict_refuses_failed_attachments_listing_them():
    with pytest.raises(tc.MediaError) as caught:
        tc.convert(ROUND, "anthropic", strict=True)  # no roots: local files refused
    assert len(caught.value.notes) == 2
    assert "not attached" in caught.value.notes[0]
    request = tc.convert(ROUND, "anthropic")
    assert [n["failure"] for n in request.report["notes"]] == [True, True]


def test_the_gil_is_released_while_a_history_is_read(tmp_path):
    # The conversion reads a FIFO no one has opened for writing: it waits
    # there until this thread, which needs the GIL to run, writes it.
    fifo = tmp_path / "history.jsonl"
    os.mkfifo(fifo)
    done: list[tc.Request] = []
    worker = threading.Thread(target=lambda: done.append(tc.convert(fifo, "gemini")))
    worker.start()
    with open(fifo, "w") as writer:
        writer.write('{"role": "user", "content": "Hi."}\n')
    worker.join(timeout=60)
    assert not worker.is_alive(), "the conversion held the GIL"
    assert done[0].json()["contents"][0]["parts"] == [{"text": "Hi."}]


def test_convert_async_runs_on_a_worker_thread():
    request = asyncio.run(tc.convert_async([{"role": "user", "content": "Hi."}], "ollama"))
    assert request.json()["messages"] == [{"role": "user", "content": "Hi."}]


def test_models_lists_the_facts():
    models = tc.models()
    ids = {m["id"] for m in models}
    assert "claude-sonnet-5-5" in ids and "gemini-3.8-flash" in ids


def test_the_readmes_python_example_runs_as_written(capsys, monkeypatch):
    readme = (REPO / "README.md").read_text()
    start = readme.index("```python\n") + len("```python\n")
    code = readme[start:readme.index("```", start)]
    monkeypatch.chdir(REPO)
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out.strip()
    shown = next(l for l in code.splitlines() if l.startswith("# https://"))
    assert printed == shown.removeprefix("# ")


def test_an_agents_transcript_is_imported_and_converted():
    history = tc.import_history(EXAMPLES / "claude-code-session.jsonl")
    assert history.records and all(set(r) >= {"role", "content"} for r in history.records)
    assert history.tally.startswith("read ")
    told = tc.import_history((EXAMPLES / "claude-code-session.jsonl").read_bytes(), "claude-code")
    assert told.jsonl == history.jsonl
    assert tc.convert(history, "openai-responses").json()["input"]
    with pytest.raises(tc.ReadError, match="source codex"):
        tc.import_history((EXAMPLES / "claude-code-session.jsonl").read_bytes(), "codex")


def test_inspect_classifies_each_record():
    lines, counts = tc.inspect(EXAMPLES / "legacy-history.jsonl")
    assert counts["records"] == len(lines) and counts["legacy"] > 0
    assert {"index", "role"} <= set(lines[0])


def test_migrate_declares_legacy_carriers_and_leaves_the_rest():
    migrated = tc.migrate(EXAMPLES / "legacy-history.jsonl")
    assert migrated.report["upgraded_native"] + migrated.report["upgraded_prompt"] > 0
    # Migrated once, migrated for good.
    again = tc.migrate(migrated.data)
    assert again.data == migrated.data
    assert again.report["upgraded_native"] + again.report["upgraded_prompt"] == 0


def test_fit_rewrites_an_oversized_screenshot_in_the_agents_own_format():
    original = (EXAMPLES / "claude-code-session.jsonl").read_bytes()
    fitted = tc.fit(EXAMPLES / "claude-code-session.jsonl", "anthropic")
    assert (fitted.report["format"], fitted.report["fitted"], fitted.report["left_out"]) == ("claude-code", 1, 0)
    assert fitted.data != original
    again = tc.fit(fitted.data, "anthropic")
    assert not again.report["changed"] and again.data == fitted.data
    with pytest.raises(tc.OptionsError):
        tc.fit(original, "anthropics")


RESPONSES = REPO / "tests/data/responses"


def test_a_conversation_runs_an_agent_loop():
    loop = tc.Conversation("anthropic", roots=[EXAMPLES])
    loop.push_user("Take a screenshot of the editor.")
    assert loop.request().json()["messages"][0]["role"] == "user"
    turn = loop.push_response((RESPONSES / "anthropic/tool_call.json").read_text())
    (call,) = turn["calls"]
    loop.push_result(call["id"], "Captured.", [("image", "shots/editor.png")])
    request = loop.request()
    assert request.report["images"] == 1
    assert len(loop) == 3 and loop.records[2]["role"] == "tool"
    loop.truncate(1)
    assert len(loop) == 1
    with pytest.raises(tc.ResponseError):
        loop.push_response((RESPONSES / "anthropic/error.json").read_text())
    with pytest.raises(tc.OptionsError, match="attachment kind"):
        loop.push_result("x", "y", [("picture", "a.png")])


def test_a_stream_read_in_chunks_of_any_size_is_the_whole_streams_turn():
    stream = (RESPONSES / "anthropic/parallel_calls.sse").read_bytes()
    whole = tc.Conversation("anthropic").push_response(stream)
    for size in (1, 7, 4096):
        reader = tc.ResponseReader("anthropic")
        for i in range(0, len(stream), size):
            reader.push(stream[i:i + size])
        assert reader.finish() == whole
    cut = tc.ResponseReader("anthropic")
    cut.push(stream[: len(stream) // 2])
    with pytest.raises(tc.ResponseError):
        cut.finish()
    loop = tc.Conversation("anthropic")
    loop.push_user("Go.")
    loop.push_assistant(whole)
    assert loop.records[1]["role"] == "assistant"


def test_media_prepare_fits_a_screenshot_for_the_model():
    prepared = tc.media.prepare(EXAMPLES / "shots/dashboard.png", "anthropic")
    report = prepared.report
    assert report["original"]["media_type"] == "image/png"
    assert prepared.data[:4] in (b"\x89PNG", b"\xff\xd8\xff\xe0", b"\xff\xd8\xff\xdb")
    assert max(report["width"], report["height"]) <= max(report["original"]["width"], report["original"]["height"])
    with pytest.raises(tc.MediaError):
        tc.media.prepare(b"\x89PNG\r\n\x1a\nnot really", "anthropic")
    with pytest.raises(TypeError):
        tc.media.prepare("shots/dashboard.png", "anthropic")  # type: ignore[arg-type]


def test_mcp_fit_result_keeps_every_byte_but_the_images():
    line = json.loads((EXAMPLES / "mcp-results.jsonl").read_text().splitlines()[0])
    result = line["result"]
    fitted = tc.mcp.fit_result(result, "openai-chat")
    assert [i["at"] for i in fitted.images] == ["content[1]"]
    out = json.loads(fitted.text)
    assert out["content"][0] == result["content"][0]
    text_only = '{"content":[{"type":"text","text":"ok"}]}'
    assert tc.mcp.fit_result(text_only, "gemini") == (text_only, [])
    with pytest.raises(tc.OptionsError, match="method"):
        tc.mcp.fit_result(text_only, "gemini", method="tools/list")
    for not_a_result, says in (("", "not JSON"), ("[1]", "not a JSON object"), (b"\xff", "not JSON")):
        with pytest.raises(tc.ReadError, match=says):
            tc.mcp.fit_result(not_a_result, "anthropic")


def test_the_shared_cache_changes_no_body():
    warm = [tc.convert(ROUND, p, roots=[EXAMPLES]).body for p in ("anthropic", "gemini", "anthropic")]
    tc.set_cache_limit(0)
    try:
        cold = [tc.convert(ROUND, p, roots=[EXAMPLES]).body for p in ("anthropic", "gemini", "anthropic")]
    finally:
        tc.set_cache_limit(64 << 20)
    assert warm == cold and warm[0] == warm[2] and warm[0] != warm[1]


@pytest.mark.parametrize("call", [
    lambda p: tc.convert(p, "anthropic"),
    lambda p: tc.import_history(p),
    lambda p: tc.inspect(p),
    lambda p: tc.migrate(p),
    lambda p: tc.fit(p, "anthropic"),
    lambda p: tc.media.prepare(p, "anthropic"),
])
def test_every_call_given_a_missing_file_raises_a_read_error_naming_it(call, tmp_path):
    missing = tmp_path / "gone.jsonl"
    with pytest.raises(tc.ReadError, match="gone.jsonl"):
        call(missing)


@pytest.mark.parametrize("call", [
    lambda: tc.convert("", "nobody"),
    lambda: tc.fit(b"", "nobody"),
    lambda: tc.media.prepare(b"x", "nobody"),
    lambda: tc.mcp.fit_result("{}", "nobody"),
    lambda: tc.Conversation("nobody"),
    lambda: tc.ResponseReader("nobody"),
])
def test_every_call_given_an_unknown_provider_raises_an_options_error(call):
    with pytest.raises(tc.OptionsError, match="nobody"):
        call()
