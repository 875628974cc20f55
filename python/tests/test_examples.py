"""The examples in examples/python, each run as it is: the official SDKs
against a local mock, LangChain's and pydantic-ai's saved histories, and
LiteLLM's message list. A library that is not installed skips its example,
saying which (.ci/python installs them all)."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples/python"


def run(name: str) -> list[str]:
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main()


def test_the_official_sdks_send_the_body_as_converted():
    pytest.importorskip("anthropic", reason="the anthropic SDK is not installed")
    pytest.importorskip("openai", reason="the openai SDK is not installed")
    lines = run("official_sdks")
    assert lines == [
        "anthropic: POST /v1/messages, body as converted: True, calls ['get_weather']",
        "openai-chat: POST /v1/chat/completions, body as converted: True, calls ['get_weather']",
        "openai-responses: POST /v1/responses, body as converted: True, calls ['record_entry']",
    ]


def test_a_langchain_history_converts_for_gemini_2_and_bedrock():
    pytest.importorskip("langchain_core", reason="langchain-core is not installed")
    lines = run("langchain_history")
    assert lines[0].endswith("1 image block: all kept")
    assert lines[1:] == [
        "gemini-2: 1 image sent, read 1 call, 1 result, 1 image: all sent",
        "bedrock: 1 image sent, read 1 call, 1 result, 1 image: all sent",
    ]


def test_a_pydantic_ai_history_converts_for_chat_completions():
    pytest.importorskip("pydantic_ai", reason="pydantic-ai-slim is not installed")
    lines = run("pydantic_ai_history")
    assert lines[1] == "openai-chat: ['user', 'assistant', 'tool', 'user', 'assistant'], 1 image sent"


def test_litellms_message_list_converts_for_anthropic():
    assert run("litellm_messages") == [
        "anthropic: ['How does the dashboard look?', ['tool_use'], ['tool_result', 'text', 'image']]",
        "read 1 call, 1 result, 1 image: all sent",
    ]
