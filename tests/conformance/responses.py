"""Validate recorded provider responses against each provider's official
Python SDK response types.

Usage: responses.py DIR [DIR…]
       responses.py --self-test DIR [DIR…]

Each DIR is a folder of response folders named by provider
(tests/data/responses/PROVIDER/NAME.EXT), or one provider's folder itself
when its name is `anthropic-…` (examples/loop is Anthropic's). A `.json`
file is a response body (or, for Gemini, a JSON array of stream chunks);
`.sse` is a Server-Sent Events stream; `.jsonl` / `.ndjson` are JSON Lines
streams (Bedrock's ConverseStream events, Ollama's chunks). Every body and
every event is validated against the SDK's own type, strictly: pydantic
models must not carry a member the type does not declare (the SDKs' models
keep unknown members quietly, so a misspelt one would pass), and Bedrock's
against botocore's output shapes. Error bodies and events are checked
against the SDK's error type where it has one, else the documented shape.
Prints one line per file; exits 1 if any failed.

  anthropic         Message; RawMessageStreamEvent (and ping, error)
  openai-chat       ChatCompletion; ChatCompletionChunk
  openai-responses  Response; ResponseStreamEvent
  gemini            GenerateContentResponse (body and each chunk)
  bedrock           Converse output shape; ConverseStreamOutput members
  ollama            ChatResponse (body and each line)
"""

import json
import pathlib
import sys

from pydantic import BaseModel, TypeAdapter


class Invalid(Exception):
    pass


def no_extras(value, path="$"):
    """Refuse members a pydantic model kept without declaring them."""
    if isinstance(value, BaseModel):
        extra = getattr(value, "model_extra", None) or {}
        if extra:
            raise Invalid(f"{path}: undeclared member(s) {sorted(extra)}")
        for name in type(value).model_fields:
            no_extras(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            no_extras(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            no_extras(item, f"{path}.{key}")


def dropped(given, kept, path):
    """Members of `given` that validation dropped (models that ignore
    unknown members keep no trace of them but their absence)."""
    if isinstance(given, dict) and isinstance(kept, dict):
        for key, item in given.items():
            if key not in kept:
                raise Invalid(f"{path}: undeclared member {key!r}")
            dropped(item, kept[key], f"{path}.{key}")
    elif isinstance(given, list) and isinstance(kept, list):
        for i, (a, b) in enumerate(zip(given, kept)):
            dropped(a, b, f"{path}[{i}]")


def typed(type_, data, what):
    adapter = TypeAdapter(type_)
    try:
        value = adapter.validate_python(data)
    except Exception as e:  # pydantic.ValidationError in all its forms
        raise Invalid(f"{what}: {e}") from None
    no_extras(value, what)
    dropped(data, adapter.dump_python(value, mode="json", by_alias=True), what)


def sse_events(text):
    """The data of each event (the WHATWG rules, as the crate reads them)."""
    events, data = [], []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if line == "":
            if data:
                events.append("\n".join(data))
            data = []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if field == "data":
            data.append(value)
    if data:
        events.append("\n".join(data))
    return events


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


# Anthropic ------------------------------------------------------------------


def anthropic_error(data, what):
    from anthropic.types import ErrorResponse

    typed(ErrorResponse, data, what)


def anthropic(path, text):
    from anthropic.types import Message, RawMessageStreamEvent

    if path.suffix == ".json":
        data = json.loads(text)
        if data.get("type") == "error":
            anthropic_error(data, "error body")
            return "ErrorResponse"
        typed(Message, data, "body")
        return "Message"
    for n, raw in enumerate(sse_events(text), 1):
        event = json.loads(raw)
        kind = event.get("type")
        if kind == "ping":
            if event != {"type": "ping"}:
                raise Invalid(f"event {n}: a ping with members {sorted(event)}")
        elif kind == "error":
            anthropic_error(event, f"event {n} (error)")
        else:
            typed(RawMessageStreamEvent, event, f"event {n} ({kind})")
    return "RawMessageStreamEvent"


# OpenAI ---------------------------------------------------------------------


def openai_error(data, what):
    from openai.types.shared import ErrorObject

    if set(data) != {"error"}:
        raise Invalid(f"{what}: an error body has only `error`, not {sorted(data)}")
    typed(ErrorObject, data["error"], f"{what}.error")


def openai_chat(path, text):
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    if path.suffix == ".json":
        data = json.loads(text)
        if "error" in data:
            openai_error(data, "error body")
            return "ErrorObject"
        typed(ChatCompletion, data, "body")
        return "ChatCompletion"
    events = sse_events(text)
    for n, raw in enumerate(events, 1):
        if raw == "[DONE]":
            if n != len(events):
                raise Invalid(f"event {n}: [DONE] before the end")
            continue
        chunk = json.loads(raw)
        if "error" in chunk:
            openai_error(chunk, f"event {n}")
            continue
        typed(ChatCompletionChunk, chunk, f"event {n}")
    return "ChatCompletionChunk"


def openai_responses(path, text):
    from openai.types.responses import Response, ResponseStreamEvent

    if path.suffix == ".json":
        data = json.loads(text)
        if set(data) == {"error"}:
            openai_error(data, "error body")
            return "ErrorObject"
        typed(Response, data, "body")
        return "Response"
    for n, raw in enumerate(sse_events(text), 1):
        event = json.loads(raw)
        typed(ResponseStreamEvent, event, f"event {n} ({event.get('type')})")
    return "ResponseStreamEvent"


# Gemini ---------------------------------------------------------------------


def gemini_error(data, what):
    error = data.get("error")
    if set(data) != {"error"} or not isinstance(error, dict):
        raise Invalid(f"{what}: an error body is {{\"error\": {{…}}}}")
    if not isinstance(error.get("code"), int) or not isinstance(error.get("message"), str):
        raise Invalid(f"{what}: the error needs an integer code and a message")


def gemini(path, text):
    from google.genai.types import GenerateContentResponse

    def chunk(data, what):
        if "error" in data:
            gemini_error(data, what)
        else:
            typed(GenerateContentResponse, data, what)

    if path.suffix == ".json":
        data = json.loads(text)
        if isinstance(data, list):
            for n, item in enumerate(data, 1):
                chunk(item, f"chunk {n}")
        else:
            chunk(data, "body")
        return "GenerateContentResponse"
    for n, raw in enumerate(sse_events(text), 1):
        chunk(json.loads(raw), f"event {n}")
    return "GenerateContentResponse"


# Bedrock --------------------------------------------------------------------


def bedrock_shapes():
    import botocore.session

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    converse = model.operation_model("Converse").output_shape
    stream = model.operation_model("ConverseStream").output_shape.members["stream"]
    return converse, stream


def botocore_valid(data, shape, what):
    from botocore.validate import ParamValidator

    report = ParamValidator().validate(data, shape)
    if report.has_errors():
        raise Invalid(f"{what}: {report.generate_report()}")


def bedrock_client_error(data):
    """The error as botocore hands it over (`ClientError.response`): its
    code must be one of the errors the Converse operation declares."""
    import botocore.session

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    declared = {e.name for e in model.operation_model("Converse").error_shapes}
    error = data.get("Error")
    if not isinstance(error, dict) or not isinstance(error.get("Message"), str):
        raise Invalid("error body: `Error` needs a `Message`")
    if error.get("Code") not in declared:
        raise Invalid(f"error body: {error.get('Code')!r} is none of Converse's errors {sorted(declared)}")


def bedrock(path, text):
    converse, stream = bedrock_shapes()
    if path.suffix == ".json":
        data = json.loads(text)
        if set(data) <= {"Error", "ResponseMetadata"}:
            bedrock_client_error(data)
            return "botocore ClientError (Converse errors)"
        errors = set(data) & set(stream.members) - {
            "messageStart",
            "contentBlockStart",
            "contentBlockDelta",
            "contentBlockStop",
            "messageStop",
            "metadata",
        }
        if errors:
            botocore_valid(data, stream, "error body")
            return "ConverseStreamOutput (exception)"
        botocore_valid(data, converse, "body")
        return "Converse output"
    for n, event in enumerate(json_lines(text), 1):
        if len(event) != 1:
            raise Invalid(f"line {n}: an event has one member, not {sorted(event)}")
        botocore_valid(event, stream, f"line {n}")
    return "ConverseStreamOutput"


# Ollama ---------------------------------------------------------------------


def ollama(path, text):
    from ollama import ChatResponse

    items = [json.loads(text)] if path.suffix == ".json" else json_lines(text)
    for n, data in enumerate(items, 1):
        if "error" in data:
            if set(data) != {"error"} or not isinstance(data["error"], str):
                raise Invalid(f"line {n}: an error is {{\"error\": \"…\"}}")
            continue
        typed(ChatResponse, data, f"line {n}")
    return "ChatResponse"


VALIDATORS = {
    "anthropic": anthropic,
    "openai-chat": openai_chat,
    "openai-compatible": openai_chat,
    "openai-responses": openai_responses,
    "gemini": gemini,
    "gemini-2": gemini,
    "bedrock": bedrock,
    "ollama": ollama,
}


def folders(root):
    if root.name.split("-")[0] in VALIDATORS or root.name in VALIDATORS:
        yield root.name, root
        return
    if root.name == "loop":  # examples/loop: the mock Anthropic session
        yield "anthropic", root
        return
    for sub in sorted(p for p in root.iterdir() if p.is_dir()):
        yield sub.name, sub


def self_test(roots):
    """Every response body with an undeclared member, or its type spoiled,
    must be refused: proof the checks have teeth."""
    caught = missed = 0
    for root in roots:
        for provider, folder in folders(root):
            validate = VALIDATORS[provider]
            for path in sorted(folder.glob("*.json")):
                body = json.loads(path.read_text())
                if not isinstance(body, dict):
                    continue
                spoiled = [
                    ("an undeclared member", {**body, "bogus_member": 1}),
                    ("a wrong type", {k: ([] if isinstance(v, (str, dict)) else v) for k, v in body.items()}),
                ]
                for name, broken in spoiled:
                    try:
                        validate(path, json.dumps(broken))
                    except Invalid:
                        caught += 1
                        continue
                    missed += 1
                    print(f"MISSED  {provider}/{path.name}: {name} was accepted")
    print(f"self-test: {caught} broken responses refused, {missed} accepted")
    return 1 if missed or not caught else 0


def main():
    if sys.argv[1] == "--self-test":
        return self_test(map(pathlib.Path, sys.argv[2:]))
    failed = total = 0
    for root in map(pathlib.Path, sys.argv[1:]):
        for provider, folder in folders(root):
            validate = VALIDATORS.get(provider)
            if validate is None:
                print(f"FAIL  {folder}: no validator for {provider!r}")
                failed += 1
                continue
            for path in sorted(folder.iterdir()):
                if path.suffix not in (".json", ".sse", ".jsonl", ".ndjson"):
                    continue
                total += 1
                try:
                    against = validate(path, path.read_text())
                    print(f"pass  {provider:16} {path.name:32} {against}")
                except (Invalid, json.JSONDecodeError) as e:
                    failed += 1
                    lines = str(e).strip().splitlines()
                    shown = "\n      ".join(lines[:8]) + ("\n      …" if len(lines) > 8 else "")
                    print(f"FAIL  {provider:16} {path.name:32} {shown}")
    if not total:
        print("no responses found", file=sys.stderr)
        return 1
    print(f"{total - failed}/{total} responses valid")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
