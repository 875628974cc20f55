"""MCP tool results with their images fitted for a model, every other
byte as the server wrote it (what ``tool-carrier mcp-proxy`` does to each
result it passes)."""

from __future__ import annotations

import json
from typing import Any, Mapping, NamedTuple, Union

from . import _native

__all__ = ["Fitted", "fit_result"]


class Fitted(NamedTuple):
    """The result's JSON text, and ``images``: where each image was
    (``content[1]``), whether it changed, and what was done, in words."""

    text: str
    images: list[dict[str, Any]]


def fit_result(
    result: Union[str, bytes, Mapping[str, Any]],
    provider: str,
    *,
    model: str | None = None,
    method: str = "tools/call",
) -> Fitted:
    """Fit the images of one result of ``method`` (``tools/call``,
    ``resources/read`` or ``tasks/result``): a ``CallToolResult`` (or
    ``ReadResourceResult``) as JSON text, bytes or a dict. An image that
    cannot be prepared becomes a text block saying why; text that is no
    JSON object raises ``ReadError``."""
    if isinstance(result, bytes):
        result = result.decode(errors="replace")
    elif not isinstance(result, str):
        result = json.dumps(dict(result))
    text, report = _native.fit_result(result, provider, model=model, method=method)
    return Fitted(text, json.loads(report)["images"])
