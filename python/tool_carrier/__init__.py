"""Agent histories with tool-result attachments, turned into request bodies
each LLM provider accepts: images prepared, every documented rule checked
before a byte leaves.

    >>> import tool_carrier
    >>> request = tool_carrier.convert(
    ...     [{"role": "user", "content": "Hello."}], "anthropic")
    >>> request.url
    'https://api.anthropic.com/v1/messages'
    >>> request.json()["messages"][0]["content"][0]["text"]
    'Hello.'

Every call releases the GIL while it reads, prepares and writes, so a
thread pool (or ``asyncio.to_thread``) runs conversions side by side.
``Request`` objects are immutable and safe to share between threads.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any, Iterable, Mapping, Sequence, Union

from . import _native
from ._native import (
    MediaError,
    OptionsError,
    ReadError,
    RefusedError,
    ToolCarrierError,
    __version__,
)

__all__ = [
    "Request",
    "convert",
    "convert_async",
    "models",
    "ToolCarrierError",
    "RefusedError",
    "ReadError",
    "MediaError",
    "OptionsError",
    "__version__",
]

History = Union[str, bytes, "os.PathLike[str]", Sequence[Mapping[str, Any]]]


class Request:
    """A request body for one provider, where it goes, and what became of
    the history's attachments."""

    __slots__ = ("_native", "_report")

    def __init__(self, native: Any) -> None:
        self._native = native
        self._report: dict[str, Any] | None = None

    @property
    def body(self) -> bytes:
        """The body as compact JSON bytes: send them as they are."""
        return self._native.body

    def json(self) -> dict[str, Any]:
        """The body as a dict, e.g. for ``client.messages.create(**request.json())``."""
        return json.loads(self._native.body)

    @property
    def provider(self) -> str:
        return self._native.provider

    @property
    def model(self) -> str:
        return self._native.model

    @property
    def method(self) -> str:
        return self._native.method

    @property
    def url(self) -> str:
        return self._native.url

    @property
    def headers(self) -> dict[str, str]:
        """Headers the request needs besides authentication and the content type."""
        return dict(self._native.headers)

    @property
    def report(self) -> dict[str, Any]:
        """What became of the attachments: counts sent, notes left in their
        place, and the notes of settings and tools."""
        if self._report is None:
            self._report = json.loads(self._native.report_json)
        return self._report

    def __repr__(self) -> str:
        return f"<Request {self.provider} {self.model}: {len(self.body)} bytes>"


def _history_bytes(history: History) -> tuple[bytes | None, str | None, str | None]:
    """The history's bytes or path, and the source a list implies."""
    if isinstance(history, os.PathLike):
        return None, os.fspath(history), None
    if isinstance(history, bytes):
        return history, None, None
    if isinstance(history, str):
        return history.encode(), None, None
    if isinstance(history, (list, tuple)):
        records = all(
            isinstance(m, Mapping)
            and set(m) <= {"role", "content", "cache"}
            and isinstance(m.get("content"), str)
            for m in history
        )
        lines = "\n".join(json.dumps(m, ensure_ascii=False) for m in history)
        if records:
            return lines.encode(), None, None
        # Chat Completions messages (tool_calls, tool_call_id, parts).
        return json.dumps(list(history), ensure_ascii=False).encode(), None, "openai-chat"
    raise TypeError(
        "history: a path (os.PathLike), str or bytes of JSON Lines, or a list of "
        f"message dicts, not {type(history).__name__}"
    )


def convert(
    history: History,
    provider: str,
    *,
    model: str | None = None,
    tools: Sequence[Mapping[str, Any]] | str | None = None,
    roots: Iterable[str | os.PathLike[str]] = (),
    params: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
    source: str | None = None,
    strict: bool = False,
    vision: bool = True,
    keep_unknown: bool = False,
) -> Request:
    """Convert a history into a request body for ``provider``.

    ``history`` is a path (``pathlib.Path``), ``str`` or ``bytes`` of JSON
    Lines (the crate's records), or a list of message dicts: records
    (``{"role", "content"}``) or Chat Completions messages. ``source``
    names another format: ``"auto"``, a provider (its request body or
    message list) or an agent (its transcript: ``"claude-code"``,
    ``"codex"``, …). ``tools`` are definitions (a list or JSON text);
    ``params`` the generation settings (``max_tokens``,
    ``response_format``, …); ``extra`` members added to the body by
    dotted path; ``roots`` the folders local files may be read from.

    Raises ``ReadError`` (the history), ``OptionsError`` (a setting the
    provider or model does not take), ``RefusedError`` (the body would be
    refused by the API, with its ``rule``, ``path`` and ``source``) and
    ``MediaError`` (attachments failed, with ``strict``).
    """
    data, path, implied = _history_bytes(history)
    if tools is not None and not isinstance(tools, str):
        tools = json.dumps(list(tools))
    native = _native.convert(
        provider,
        data=data,
        path=path,
        source=source if source is not None else implied,
        model=model,
        tools=tools,
        roots=[os.fspath(r) for r in roots],
        params=None if params is None else json.dumps(dict(params)),
        extra=None if extra is None else json.dumps(dict(extra)),
        strict=strict,
        vision=vision,
        keep_unknown=keep_unknown,
    )
    return Request(native)


async def convert_async(history: History, provider: str, **options: Any) -> Request:
    """``convert`` on a worker thread (``asyncio.to_thread``): the event
    loop runs on while the history is prepared."""
    return await asyncio.to_thread(convert, history, provider, **options)


def models() -> list[dict[str, Any]]:
    """The models the built-in facts describe: id, family, APIs, limits,
    retirement dates, each with its source."""
    return json.loads(_native.models())
