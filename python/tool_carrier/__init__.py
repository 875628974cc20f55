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

from . import _native, mcp, media
from ._native import (
    MediaError,
    OptionsError,
    ReadError,
    RefusedError,
    ResponseError,
    ToolCarrierError,
    __version__,
)

__all__ = [
    "Request",
    "History",
    "Fitted",
    "Migrated",
    "convert",
    "convert_async",
    "import_history",
    "inspect",
    "migrate",
    "fit",
    "models",
    "set_cache_limit",
    "media",
    "mcp",
    "ToolCarrierError",
    "RefusedError",
    "ReadError",
    "MediaError",
    "OptionsError",
    "ResponseError",
    "Conversation",
    "ResponseReader",
    "__version__",
]

class History:
    """A history read into the crate's records: ``records`` (dicts),
    ``jsonl`` (their JSON Lines), and what the reader said (``notes``,
    ``tally``). ``convert`` takes it as it is."""

    __slots__ = ("jsonl", "notes", "tally")

    def __init__(self, jsonl: bytes, report: Mapping[str, Any]) -> None:
        self.jsonl = jsonl
        self.notes: list[dict[str, Any]] = list(report["notes"])
        self.tally: str = report["tally"]

    @property
    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.jsonl.splitlines() if line.strip()]

    def __repr__(self) -> str:
        return f"<History {len(self.jsonl.splitlines())} records: {self.tally}>"


class Fitted:
    """A file fitted for a provider: its ``data`` (every byte not fitted as
    it was) and the ``report`` (``kept``, ``fitted``, ``left_out``,
    ``changed``, one item per payload)."""

    __slots__ = ("data", "report")

    def __init__(self, data: bytes, report: dict[str, Any]) -> None:
        self.data = data
        self.report = report


class Migrated:
    """A history with its legacy carriers declared: ``data`` and the
    ``report`` (counts, and the records left as they were with why)."""

    __slots__ = ("data", "report")

    def __init__(self, data: bytes, report: dict[str, Any]) -> None:
        self.data = data
        self.report = report


HistoryInput = Union[str, bytes, "os.PathLike[str]", Sequence[Mapping[str, Any]], History]
Input = Union[str, bytes, "os.PathLike[str]"]


def _input(value: Input) -> dict[str, Any]:
    """``data`` or ``path`` for a call taking a file's bytes or its path."""
    if isinstance(value, os.PathLike):
        return {"path": os.fspath(value)}
    if isinstance(value, bytes):
        return {"data": value}
    if isinstance(value, str):
        return {"data": value.encode()}
    raise TypeError(f"a path (os.PathLike), str or bytes, not {type(value).__name__}")


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


def _settings(
    model: str | None,
    tools: Sequence[Mapping[str, Any]] | str | None,
    roots: Iterable[str | os.PathLike[str]],
    params: Mapping[str, Any] | None,
    extra: Mapping[str, Any] | None,
    strict: bool,
    vision: bool,
) -> dict[str, Any]:
    """The keywords ``convert`` and ``Conversation`` share, as the
    extension takes them (definitions, settings and members as JSON)."""
    if tools is not None and not isinstance(tools, str):
        tools = json.dumps(list(tools))
    return {
        "model": model,
        "tools": tools,
        "roots": [os.fspath(r) for r in roots],
        "params": None if params is None else json.dumps(dict(params)),
        "extra": None if extra is None else json.dumps(dict(extra)),
        "strict": strict,
        "vision": vision,
    }


def _history_bytes(history: HistoryInput) -> tuple[bytes | None, str | None, str | None]:
    """The history's bytes or path, and the source a list implies."""
    if isinstance(history, History):
        return history.jsonl, None, None
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
    history: HistoryInput,
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
    native = _native.convert(
        provider,
        data=data,
        path=path,
        source=source if source is not None else implied,
        keep_unknown=keep_unknown,
        **_settings(model, tools, roots, params, extra, strict, vision),
    )
    return Request(native)


async def convert_async(history: HistoryInput, provider: str, **options: Any) -> Request:
    """``convert`` on a worker thread (``asyncio.to_thread``): the event
    loop runs on while the history is prepared."""
    return await asyncio.to_thread(convert, history, provider, **options)


def import_history(
    history: Input, source: str = "auto", *, keep_unknown: bool = False
) -> History:
    """Read an agent's transcript, a provider's request body or response,
    or an MCP result (``source``: ``"auto"`` tells it by its shape, or name
    the format) into the crate's records."""
    jsonl, report = _native.import_history(
        **_input(history), source=source, keep_unknown=keep_unknown
    )
    return History(jsonl, json.loads(report))


def inspect(history: Input) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Each record classified (carrier kind, attachments, legacy markers),
    as ``tool-carrier inspect --json`` prints it, and the counts."""
    lines, counts = _native.inspect(**_input(history))
    return [json.loads(line) for line in lines.splitlines()], json.loads(counts)


def migrate(history: Input) -> Migrated:
    """Upgrade legacy carriers to declared ones, every other byte kept."""
    data, report = _native.migrate(**_input(history))
    return Migrated(data, json.loads(report))


def fit(
    file: Input,
    provider: str,
    *,
    model: str | None = None,
    keep_images: int | None = None,
) -> Fitted:
    """Fit each image an agent's file stores for ``provider``, in the
    agent's own format. Writing it back over a live file safely is the
    command's ``tool-carrier fit`` (it locks and replaces atomically)."""
    data, report = _native.fit(provider, **_input(file), model=model, keep_images=keep_images)
    return Fitted(data, json.loads(report))


class Conversation:
    """An agent's records across turns, for one provider: each turn's
    request is built from what earlier turns prepared (an image seen
    before is not decoded again).

    Use it from one thread at a time: a call made while another thread is
    inside one raises ``RuntimeError``; ``request()`` releases the GIL.
    """

    __slots__ = ("_native",)

    def __init__(
        self,
        provider: str,
        *,
        model: str | None = None,
        tools: Sequence[Mapping[str, Any]] | str | None = None,
        roots: Iterable[str | os.PathLike[str]] = (),
        params: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
        strict: bool = False,
        vision: bool = True,
    ) -> None:
        self._native = _native.Conversation(
            provider, **_settings(model, tools, roots, params, extra, strict, vision)
        )

    def push(self, role: str, content: str) -> None:
        """Append a record as it is."""
        self._native.push(role, content)

    def push_user(self, text: str) -> None:
        self._native.push_user(text)

    def push_result(
        self,
        call_id: str,
        body: str,
        attachments: Iterable[tuple[str, str]] = (),
        *,
        failed: bool = False,
    ) -> None:
        """Append a tool's result with the attachments it declares, as
        ``(kind, target)`` pairs: ``("image", "shots/a.png")``."""
        self._native.push_result(call_id, body, list(attachments), failed)

    def push_response(self, text: str | bytes) -> dict[str, Any]:
        """Read the provider's answer (a body or a whole stream), append it
        and return it: ``{"text", "calls": [{"id", "name", "arguments"}]}``."""
        if isinstance(text, bytes):
            text = text.decode()
        return json.loads(self._native.push_response(text))

    def push_assistant(self, turn: Mapping[str, Any]) -> None:
        """Append an assistant turn, as ``ResponseReader.finish`` gives it."""
        self._native.push_assistant(json.dumps(dict(turn)))

    def request(self) -> Request:
        return Request(self._native.request())

    @property
    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self._native.records_jsonl().splitlines()]

    def truncate(self, length: int) -> None:
        """Keep the first ``length`` records (undo a turn)."""
        self._native.truncate(length)

    def __len__(self) -> int:
        return len(self._native)


class ResponseReader:
    """A provider's streamed answer read as its chunks arrive, split
    anywhere: ``push`` each, then ``finish`` for the assistant turn. Use
    it from the thread that made it (another raises an error)."""

    __slots__ = ("_native",)

    def __init__(self, provider: str) -> None:
        self._native = _native.ResponseReader(provider)

    def push(self, chunk: bytes) -> None:
        self._native.push(chunk)

    def finish(self) -> dict[str, Any]:
        return json.loads(self._native.finish())


def set_cache_limit(max_bytes: int) -> None:
    """Bound the media every conversion of this process shares once
    prepared (64 MB by default: an agent's next turn does not decode and
    resize again the screenshots its last turn sent); 0 turns it off.
    What it held is dropped. Bodies are the same with it or without it."""
    _native.set_cache_limit(max_bytes)


def models() -> list[dict[str, Any]]:
    """The models the built-in facts describe: id, family, APIs, limits,
    retirement dates, each with its source."""
    return json.loads(_native.models())
