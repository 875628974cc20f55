# The extension module's types; the package's own API is in __init__.py.
from os import PathLike

from typing import final

__all__ = [
    "__version__",
    "Request",
    "convert",
    "models",
    "set_cache_limit",
    "import_history",
    "inspect",
    "migrate",
    "fit",
    "prepare",
    "fit_result",
    "Conversation",
    "ResponseReader",
    "ToolCarrierError",
    "RefusedError",
    "ReadError",
    "MediaError",
    "OptionsError",
    "ResponseError",
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
class ResponseError(ToolCarrierError): ...

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
def set_cache_limit(max_bytes: int) -> None: ...
def import_history(
    *,
    data: bytes | None = None,
    path: str | PathLike[str] | None = None,
    source: str | None = None,
    keep_unknown: bool = False,
) -> tuple[bytes, str]: ...
def inspect(
    *, data: bytes | None = None, path: str | PathLike[str] | None = None
) -> tuple[str, str]: ...
def migrate(
    *, data: bytes | None = None, path: str | PathLike[str] | None = None
) -> tuple[bytes, str]: ...
def fit(
    provider: str,
    *,
    data: bytes | None = None,
    path: str | PathLike[str] | None = None,
    model: str | None = None,
    keep_images: int | None = None,
) -> tuple[bytes, str]: ...

@final
class Conversation:
    def __new__(
        cls,
        provider_name: str,
        *,
        model: str | None = None,
        tools: str | None = None,
        roots: list[str | PathLike[str]] = ...,
        params: str | None = None,
        extra: str | None = None,
        strict: bool = False,
        vision: bool = True,
    ) -> Conversation: ...
    def push(self, role: str, content: str) -> None: ...
    def push_user(self, text: str) -> None: ...
    def push_result(
        self,
        call_id: str,
        body: str,
        attachments: list[tuple[str, str]] = ...,
        failed: bool = False,
    ) -> None: ...
    def push_response(self, text: str) -> str: ...
    def push_assistant(self, turn: str) -> None: ...
    def request(self) -> Request: ...
    def records_jsonl(self) -> str: ...
    def truncate(self, len: int) -> None: ...
    def __len__(self) -> int: ...

@final
class ResponseReader:
    def __new__(cls, provider_name: str) -> ResponseReader: ...
    def push(self, chunk: bytes) -> None: ...
    def finish(self) -> str: ...

def prepare(
    provider: str,
    *,
    data: bytes | None = None,
    path: str | PathLike[str] | None = None,
    model: str | None = None,
) -> tuple[bytes, str]: ...
def fit_result(
    result: str, provider: str, *, model: str | None = None, method: str = "tools/call"
) -> tuple[str, str]: ...
