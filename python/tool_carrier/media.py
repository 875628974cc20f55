"""One image or PDF prepared for a provider's model, as a conversion (or
the MCP proxy) would send it: sniffed, resized to the model's processing
size and the API's limits, re-encoded where its type is not taken."""

from __future__ import annotations

import json
import os
from typing import Any, NamedTuple, Union

from . import _native

__all__ = ["Prepared", "prepare"]


class Prepared(NamedTuple):
    """The bytes sent, and ``report``: ``media_type``, ``width``,
    ``height``, ``resized``, ``original`` (what came in), ``model``."""

    data: bytes
    report: dict[str, Any]


def prepare(
    media: Union[bytes, "os.PathLike[str]"], provider: str, model: str | None = None
) -> Prepared:
    """Prepare ``media`` (its bytes, or a path) for ``provider``'s
    ``model`` (the API's default when ``None``). Raises ``MediaError``
    for bytes no model takes (corrupt, truncated, of no known type)."""
    if isinstance(media, os.PathLike):
        data, report = _native.prepare(provider, path=os.fspath(media), model=model)
    elif isinstance(media, bytes):
        data, report = _native.prepare(provider, data=media, model=model)
    else:
        raise TypeError(f"media: bytes or a path (os.PathLike), not {type(media).__name__}")
    return Prepared(data, json.loads(report))
