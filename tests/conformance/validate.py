"""Validate request bodies against each provider's official Python SDK.

Usage: validate.py DIR
       validate.py --self-test DIR

DIR holds one request body per file, named PROVIDER__CASE.json (PROVIDER is
a `tool-carrier convert --provider` name). Each body is checked against the
SDK's own request types, strictly: a body passes only if the SDK accepts it
AND gives back exactly the same JSON (so no member was silently dropped or
renamed on the way). Prints one line per body; exits 1 if any failed.

With --self-test, each valid body is broken in ways the provider's API
refuses (an unknown member, a wrong enum, a GIF for Gemini…) and every
broken copy must fail validation: proof the checks have teeth.

  anthropic         anthropic   MessageCreateParamsNonStreaming (pydantic)
  openai-chat       openai      CompletionCreateParamsNonStreaming (pydantic);
                                also openai-compatible and
                                openai-compatible-PROFILE bodies (less
                                the members Chat's types do not list:
                                the server's own, named)
  openai-responses  openai      ResponseCreateParamsNonStreaming (pydantic)
  (a body with `"stream": true` against the …Streaming variant)
  gemini, gemini-2  google-genai  types.Content for contents and
                                  systemInstruction, types.Tool for tools,
                                  types.ToolConfig for toolConfig,
                                  types.GenerationConfig for
                                  generationConfig, types.ServiceTier
                                  (pydantic, extra=forbid)
  bedrock           botocore    Converse input shape (ParamValidator, plus
                                  the shapes' patterns), and the rest-json
                                  serializer must write this very body
  ollama            ollama      ChatRequest / Message / Tool as the client
                                  posts them
"""

import base64
import binascii
import json
import pathlib
import re
import sys

from pydantic import TypeAdapter


class Invalid(Exception):
    pass


def first_difference(a, b, path="$"):
    """Where two JSON values differ, or None."""
    if type(a) is not type(b):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a == b:
            return None
        return f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a:
                return f"{path}.{key}: added by the SDK"
            if key not in b:
                return f"{path}.{key}: dropped by the SDK (not a known field)"
            d = first_difference(a[key], b[key], f"{path}.{key}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items vs {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if a != b:
        return f"{path}: {str(a)[:60]!r} vs {str(b)[:60]!r}"
    return None


def same(original, echoed):
    d = first_difference(original, echoed)
    if d:
        raise Invalid(d)


_STRICT = {}


def strict(tp):
    """The same type with every TypedDict closed (unknown keys refused) and
    every `Iterable[X]` read as `list[X]`.

    The SDKs' params are TypedDicts, which pydantic lets carry unknown keys,
    and their `Iterable` members, which pydantic validates lazily (and, in a
    union, may consume while trying another member); neither would show a
    wrong body.
    """
    import collections.abc
    import typing

    import typing_extensions as te

    if isinstance(tp, type) and te.is_typeddict(tp):
        if tp in _STRICT:
            return _STRICT[tp]
        _STRICT[tp] = tp  # a recursive reference keeps the original
        hints = typing.get_type_hints(tp, include_extras=True)
        fields = {}
        for key, hint in hints.items():
            # `from __future__ import annotations` hides Required[...] from
            # __required_keys__ (a key of a total=False class marked
            # Required reads as optional): the resolved hint, below, has
            # the last word. Keys a class inherits keep their base's
            # totality there.
            required = key in getattr(tp, "__required_keys__", ())
            while te.get_origin(hint) in (te.Required, te.NotRequired):
                required = te.get_origin(hint) is te.Required
                hint = te.get_args(hint)[0]
            wrap = te.Required if required else te.NotRequired
            fields[key] = wrap[strict(hint)]
        closed = te.TypedDict(tp.__name__, fields, total=False)
        config = dict(getattr(tp, "__pydantic_config__", {}) or {})
        config["extra"] = "forbid"
        closed.__pydantic_config__ = config
        _STRICT[tp] = closed
        return closed
    origin = te.get_origin(tp)
    if origin is None:
        return tp
    args = te.get_args(tp)
    if origin is te.Annotated:
        return te.Annotated[(strict(args[0]), *tp.__metadata__)]
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        return typing.Union[tuple(strict(a) for a in args)]
    if origin is te.Literal:
        return tp
    if origin in (collections.abc.Iterable, collections.abc.Sequence, list):
        return list[strict(args[0])] if args else list
    if origin in (dict, collections.abc.Mapping):
        return dict[strict(args[0]), strict(args[1])] if args else dict
    name = getattr(origin, "__name__", "") or getattr(tp, "__name__", "")
    if name == "SequenceNotStr":
        return list[strict(args[0])]
    return tp


def typed_params(type_, body):
    """Validate with pydantic (closed TypedDicts, eager lists) and dump back."""
    adapter = TypeAdapter(strict(type_))
    try:
        value = adapter.validate_python(body)
        echoed = adapter.dump_python(value, mode="json")
    except Exception as e:  # pydantic.ValidationError, in all its forms
        raise Invalid(str(e)) from None
    same(body, echoed)


def streamed(module, prefix, body):
    """The SDK's request type for `body`: its `…Streaming` variant when the
    body asks for a stream, else `…NonStreaming`."""
    name = prefix + ("Streaming" if body.get("stream") is True else "NonStreaming")
    return getattr(module, name), name


def anthropic(body):
    from anthropic.types import message_create_params as m

    tp, name = streamed(m, "MessageCreateParams", body)
    typed_params(tp, body)
    return f"anthropic {name}"


def openai_chat(body):
    from openai.types.chat import completion_create_params as c

    tp, name = streamed(c, "CompletionCreateParams", body)
    typed_params(tp, body)
    return f"openai {name}"


def openai_compatible(body):
    """A compatible server's body as Chat Completions; the members Chat's
    types do not list are the server's own (its profile's business: vLLM's
    `repetition_penalty`, …), named and left out of the check."""
    import typing

    from openai.types.chat import completion_create_params as c

    known = set(typing.get_type_hints(c.CompletionCreateParamsNonStreaming))
    own = sorted(k for k in body if k not in known)
    checked = {k: v for k, v in body.items() if k in known}
    said = openai_chat(checked)
    return said + (f" (the server's own: {', '.join(own)})" if own else "")


def openai_responses(body):
    from openai.types.responses import response_create_params as r

    tp, name = streamed(r, "ResponseCreateParams", body)
    typed_params(tp, body)
    return f"openai {name}"


def b64_equal(a, b):
    def decode(s):
        s = s.replace("-", "+").replace("_", "/")
        return base64.b64decode(s + "=" * (-len(s) % 4), validate=True)

    try:
        return decode(a) == decode(b)
    except (binascii.Error, ValueError):
        return False


BYTES_FIELDS = {"data", "thoughtSignature"}


def same_modulo_base64(original, echoed, path="$"):
    """Like `same`, but bytes fields compare by their decoded bytes (the SDK
    writes URL-safe base64 back)."""
    if isinstance(original, dict) and isinstance(echoed, dict):
        for key in sorted(set(original) | set(echoed)):
            if key not in echoed:
                raise Invalid(f"{path}.{key}: dropped by the SDK (not a known field)")
            if key not in original:
                raise Invalid(f"{path}.{key}: added by the SDK")
            a, b = original[key], echoed[key]
            if key in BYTES_FIELDS and isinstance(a, str) and isinstance(b, str):
                if not b64_equal(a, b):
                    raise Invalid(f"{path}.{key}: bytes differ")
                # The API reads standard base64; make sure that is what we wrote.
                if not re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", a) and key == "data":
                    raise Invalid(f"{path}.{key}: not standard base64")
                continue
            same_modulo_base64(a, b, f"{path}.{key}")
    elif isinstance(original, list) and isinstance(echoed, list):
        if len(original) != len(echoed):
            raise Invalid(f"{path}: {len(original)} items vs {len(echoed)}")
        for i, (a, b) in enumerate(zip(original, echoed)):
            same_modulo_base64(a, b, f"{path}[{i}]")
    else:
        same(original, echoed)


def gemini(body):
    from google.genai import types

    allowed = {"contents", "systemInstruction", "tools", "toolConfig", "generationConfig",
               "safetySettings", "cachedContent", "store", "serviceTier"}
    extra = set(body) - allowed
    if extra:
        raise Invalid(f"unknown top-level members {sorted(extra)}")
    if not isinstance(body.get("contents"), list):
        raise Invalid("contents must be a list")
    adapter = TypeAdapter(list[types.Content])
    checks = [("contents", adapter, body["contents"])]
    if "systemInstruction" in body:
        checks.append(("systemInstruction", TypeAdapter(types.Content), body["systemInstruction"]))
    if "tools" in body:
        checks.append(("tools", TypeAdapter(list[types.Tool]), body["tools"]))
    if "toolConfig" in body:
        checks.append(("toolConfig", TypeAdapter(types.ToolConfig), body["toolConfig"]))
    if "generationConfig" in body:
        checks.append(("generationConfig", TypeAdapter(types.GenerationConfig), body["generationConfig"]))
    if "serviceTier" in body:
        checks.append(("serviceTier", TypeAdapter(types.ServiceTier), body["serviceTier"]))
    if "store" in body and not isinstance(body["store"], bool):
        raise Invalid(f"store: {body['store']!r} is not a boolean")
    import warnings

    for name, ta, value in checks:
        try:
            # google-genai only warns on an enum value it does not know
            # ("NEVER is not a valid FunctionCallingConfigMode"); the API
            # refuses it, so the warning is an error here.
            with warnings.catch_warnings():
                warnings.simplefilter("error", UserWarning)
                parsed = ta.validate_json(json.dumps(value))
        except Exception as e:
            raise Invalid(f"{name}: {e}") from None
        echoed = ta.dump_python(parsed, mode="json", by_alias=True, exclude_none=True)
        same_modulo_base64(value, echoed, f"$.{name}")
    for i, content in enumerate(body["contents"]):
        if content.get("role") not in ("user", "model"):
            raise Invalid(f"$.contents[{i}].role: {content.get('role')!r}")
    if find(body, lambda o: o.get("mimeType") == "image/gif") is not None:
        raise Invalid("Gemini refuses GIF (image/gif inline data)")
    return "google-genai types.Content"


def bedrock(body):
    import botocore.session
    from botocore.serialize import create_serializer
    from botocore.validate import ParamValidator

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    op = model.operation_model("Converse")
    params = json.loads(json.dumps(body))
    params["modelId"] = "anthropic.claude-sonnet-4-5-20250929-v1:0"

    def blobs_to_bytes(value, shape):
        # Boto3 callers pass raw bytes for blobs; the JSON body has base64.
        if shape.type_name == "structure" and isinstance(value, dict):
            for k, v in value.items():
                if k in shape.members:
                    m = shape.members[k]
                    if m.type_name == "blob" and isinstance(v, str):
                        try:
                            value[k] = base64.b64decode(v, validate=True)
                        except (binascii.Error, ValueError):
                            raise Invalid(f"{k}: not standard base64") from None
                    else:
                        blobs_to_bytes(v, m)
        elif shape.type_name == "list" and isinstance(value, list):
            for v in value:
                blobs_to_bytes(v, shape.member)

    blobs_to_bytes(params, op.input_shape)
    report = ParamValidator().validate(params, op.input_shape)
    if report.has_errors():
        raise Invalid(report.generate_report())

    def patterns(value, shape, path):
        # ParamValidator checks types, required members and lengths; the
        # model's patterns and enums are checked here.
        pattern = shape.metadata.get("pattern")
        if pattern and isinstance(value, str) and not re.fullmatch(pattern, value):
            raise Invalid(f"{path}: {value!r} does not match {pattern}")
        enum = getattr(shape, "enum", None)
        if enum and isinstance(value, str) and value not in enum:
            raise Invalid(f"{path}: {value!r} is not one of {list(enum)}")
        if shape.type_name == "structure" and isinstance(value, dict):
            if shape.metadata.get("document"):
                return
            if shape.metadata.get("union") and len(value) != 1:
                raise Invalid(f"{path}: a union holds exactly one member, not {sorted(value)}")
            for k, v in value.items():
                patterns(v, shape.members[k], f"{path}.{k}")
        elif shape.type_name == "list" and isinstance(value, list):
            for i, v in enumerate(value):
                patterns(v, shape.member, f"{path}[{i}]")

    patterns(params, op.input_shape, "$")
    sent = create_serializer("rest-json").serialize_to_request(params, op)
    same(body, json.loads(sent["body"]))
    return "botocore bedrock-runtime Converse input"


def ollama(body):
    from ollama._client import _copy_messages
    from ollama._types import ChatRequest

    extra = set(body) - set(ChatRequest.model_fields)
    if extra:
        raise Invalid(f"unknown top-level members {sorted(extra)}")
    try:
        rest = {k: v for k, v in body.items() if k != "messages"}
        request = ChatRequest(messages=list(_copy_messages(body["messages"])), **rest)
        sent = request.model_dump(mode="json", exclude_none=True)
    except Exception as e:
        raise Invalid(str(e)) from None
    same(body, sent)
    return "ollama ChatRequest"


VALIDATORS = {
    "anthropic": anthropic,
    "openai-chat": openai_chat,
    "openai-compatible": openai_compatible,
    "openai-responses": openai_responses,
    "gemini": gemini,
    "gemini-2": gemini,
    "bedrock": bedrock,
    "ollama": ollama,
}


def api(provider):
    """The API a body was written for: an OpenAI-compatible server's body
    (`openai-compatible` or `openai-compatible-PROFILE`) is Chat
    Completions."""
    if provider == "openai-compatible" or provider.startswith("openai-compatible-"):
        return "openai-compatible"
    return provider


def find(value, predicate):
    """The first object (depth first) that `predicate` accepts."""
    if isinstance(value, dict):
        if predicate(value):
            return value
        children = value.values()
    elif isinstance(value, list):
        children = value
    else:
        return None
    for child in children:
        found = find(child, predicate)
        if found is not None:
            return found
    return None


def mutations(provider, body):
    """Broken copies of a valid body, each of which must fail: proof that
    the validator would notice that kind of mistake."""
    import copy

    def mutate(name, edit):
        b = copy.deepcopy(body)
        try:
            edit(b)
        except (AttributeError, KeyError, IndexError, TypeError):
            return None  # this body has nothing to break that way
        return name, b

    def set_in(pred, key, value):
        def edit(b):
            find(b, pred)[key] = value
        return edit

    def rename(pred, old, new):
        def edit(b):
            obj = find(b, pred)
            obj[new] = obj.pop(old)
        return edit

    has = lambda k: (lambda o: k in o)
    typed = lambda t: (lambda o: o.get("type") == t)
    candidates = {
        "anthropic": [
            ("unknown member", set_in(typed("tool_result"), "tool_use_idx", "x")),
            ("bad media type", set_in(lambda o: o.get("type") == "base64", "media_type", "image/bmp")),
            ("no max_tokens", lambda b: b.pop("max_tokens")),
            ("image in a text block", set_in(typed("text"), "source", {"type": "url", "url": "x"})),
            ("tool without a schema", rename(has("input_schema"), "input_schema", "parameters")),
            ("tool_choice of no known type", set_in(has("tool_choice"), "tool_choice", {"type": "never"})),
            ("service tier not an enum value", set_in(has("service_tier"), "service_tier", "gold")),
        ],
        "openai-chat": [
            ("image in a tool message", set_in(lambda o: o.get("role") == "tool", "content",
                                               [{"type": "image_url", "image_url": {"url": "x"}}])),
            ("unknown nested member", set_in(has("url"), "uri", "x")),
            ("bad role", set_in(lambda o: o.get("role") == "tool", "role", "function_result")),
            ("tool of no known type", set_in(typed("function"), "type", "func")),
            ("tool_choice not a mode", set_in(has("tool_choice"), "tool_choice", "never")),
        ],
        "openai-responses": [
            ("bad output item", set_in(typed("input_image"), "type", "image")),
            ("unknown member", set_in(typed("function_call"), "tool_call_id", "x")),
            ("output not a list or string", set_in(typed("function_call_output"), "output", {"a": 1})),
            ("function tool without strict", lambda b: [t.pop("strict") for t in b["tools"]]),
        ],
        "gemini": [
            ("snake_case member", rename(has("inlineData"), "inlineData", "inline_data")),
            # A content's role (the system instruction has parts and no role).
            ("bad role", set_in(lambda o: "parts" in o and "role" in o, "role", "tool")),
            ("a GIF", set_in(has("mimeType"), "mimeType", "image/gif")),
            ("args not an object", set_in(has("args"), "args", "x")),
            ("declaration member misspelt", rename(has("parametersJsonSchema"), "parametersJsonSchema", "parameters_json_schemas")),
            ("calling mode not an enum value", set_in(has("mode"), "mode", "NEVER")),
            ("generation setting misspelt", rename(has("candidateCount"), "candidateCount", "candidate_count")),
            ("service tier not an enum value", set_in(has("serviceTier"), "serviceTier", "gold")),
        ],
        "bedrock": [
            ("id outside the pattern", set_in(has("toolUseId"), "toolUseId", "call 1")),
            ("image format not in the enum", set_in(has("format"), "format", "bmp")),
            ("bytes not base64", set_in(has("bytes"), "bytes", "!!")),
            ("two union members", set_in(has("bytes"), "s3Location", {"uri": "s3://b/k"})),
            ("role not in the enum", set_in(has("role"), "role", "tool")),
            ("toolSpec without inputSchema", lambda b: find(b, has("toolSpec"))["toolSpec"].pop("inputSchema")),
            ("tool name outside the pattern", set_in(has("inputSchema"), "name", "a.b")),
        ],
        "ollama": [
            ("unknown member", set_in(lambda o: o.get("role") == "tool", "tool_call_id", "x")),
            ("image not base64", set_in(has("images"), "images", ["not base64!"])),
            ("arguments not an object", set_in(has("arguments"), "arguments", "x")),
            ("tool function not an object", set_in(has("function"), "function", "x")),
        ],
    }
    candidates["gemini-2"] = candidates["gemini"]
    candidates["openai-compatible"] = candidates["openai-chat"]
    return [m for m in (mutate(n, e) for n, e in candidates[provider]) if m]


def self_test(folder):
    """Every mutation of every body must be refused."""
    caught = missed = 0
    for path in sorted(folder.glob("*__*.json")):
        provider = api(path.stem.split("__", 1)[0])
        body = json.loads(path.read_text())
        for name, broken in mutations(provider, body):
            try:
                VALIDATORS[provider](broken)
            except Invalid:
                caught += 1
                continue
            missed += 1
            print(f"MISSED  {path.stem}: {name} was accepted")
    print(f"self-test: {caught} broken bodies refused, {missed} accepted")
    return 1 if missed or not caught else 0


def main():
    if sys.argv[1] == "--self-test":
        return self_test(pathlib.Path(sys.argv[2]))
    folder = pathlib.Path(sys.argv[1])
    files = sorted(folder.glob("*__*.json"))
    if not files:
        print(f"no request bodies in {folder}", file=sys.stderr)
        return 1
    failed = 0
    seen = set()
    for path in files:
        provider, case = path.stem.split("__", 1)
        seen.add(api(provider))
        body = json.loads(path.read_text())
        try:
            against = VALIDATORS[api(provider)](body)
            print(f"pass  {provider:16} {case:28} {against}")
        except Invalid as e:
            failed += 1
            lines = str(e).strip().splitlines()
            shown = "\n      ".join(lines[:8]) + ("\n      …" if len(lines) > 8 else "")
            print(f"FAIL  {provider:16} {case:28} {shown}")
    missing = set(VALIDATORS) - seen
    if missing:
        print(f"FAIL  no bodies for {sorted(missing)}")
        failed += 1
    print(f"{len(files) - failed if failed <= len(files) else 0}/{len(files)} request bodies valid")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
