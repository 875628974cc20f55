# The extension module's types; the package's own API is in __init__.py.
from os import PathLike

from typing import final

__all__ = [
    "__version__",
    "Request",
    "convert",
    "models",
    "ToolCarrierError",
    "RefusedError",
    "ReadError",
    "MediaError",
    "OptionsError",
]

__version__: str

class ToolCarrierError(Exception): ...

class RefusedError(ToolCarrierError):
    rule: str
    path: str
    source: str
    detail: str

class ReadError(ToolCarrierError):
    line: int | None

class MediaError(ToolCarrierError):
    notes: list[str]

class OptionsError(ToolCarrierError): ...

@final
class Request:
    @property
    def body(self) -> bytes: ...
    @property
    def provider(self) -> str: ...
    @property
    def model(self) -> str: ...
    @property
    def method(self) -> str: ...
    @property
    def url(self) -> str: ...
    @property
    def headers(self) -> list[tuple[str, str]]: ...
    @property
    def report_json(self) -> str: ...

def convert(
    provider: str,
    *,
    data: bytes | None = None,
    path: str | PathLike[str] | None = None,
    source: str | None = None,
    model: str | None = None,
    tools: str | None = None,
    roots: list[str | PathLike[str]] = ...,
    params: str | None = None,
    extra: str | None = None,
    strict: bool = False,
    vision: bool = True,
    keep_unknown: bool = False,
) -> Request: ...
def models() -> str: ...
