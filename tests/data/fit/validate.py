"""Reads each fitted dead session of FOLDER back with its library's own
types: pydantic-ai's ModelMessagesTypeAdapter, LangChain's
messages_from_dict and load, the OpenAI SDK's ResponseInputItemParam (the
Agents SDK's session items). Any that does not validate fails the run."""
import json
import pathlib
import sys

import warnings

from pydantic import TypeAdapter

# `load` says it is in beta on every call.
warnings.filterwarnings("ignore", message="The function `load` is in beta")

folder = pathlib.Path(sys.argv[1])
checked = 0
for path in sorted(folder.iterdir()):
    text = path.read_bytes()
    if ".orig." in path.name:
        continue
    if path.name.startswith("pydantic-ai-"):
        from pydantic_ai.messages import ModelMessagesTypeAdapter

        messages = ModelMessagesTypeAdapter.validate_json(text)
        what = f"{len(messages)} messages (ModelMessagesTypeAdapter)"
    elif path.name.startswith("langchain-messages_to_dict"):
        from langchain_core.messages import messages_from_dict

        messages = messages_from_dict(json.loads(text))
        what = f"{len(messages)} messages (messages_from_dict)"
    elif path.name.startswith("langchain-dumpd"):
        from langchain_core.load import load

        messages = load(json.loads(text), allowed_objects="messages")
        what = f"{len(messages)} messages (load)"
    elif path.name.startswith("openai-agents-") and ".orig." not in path.name:
        from openai.types.responses import ResponseInputItemParam

        # The recording holds items the SDK's input type does not list (a
        # local shell call's output): each line fit changed must validate.
        adapter = TypeAdapter(ResponseInputItemParam)
        lines = text.decode().splitlines()
        stem = path.name.split(".")[0]
        orig = (folder / f"{stem}.orig.jsonl").read_text().splitlines()
        if len(lines) != len(orig):
            sys.exit(f"{path.name}: {len(lines)} lines, not {len(orig)}")
        changed = [l for l, o in zip(lines, orig) if l != o]
        for line in changed:
            adapter.validate_python(json.loads(line))
        what = f"{len(changed)} changed items (ResponseInputItemParam)"
    else:
        continue
    checked += 1
    print(f"{path.name}: {what}")
if checked == 0:
    sys.exit(f"no fitted file of a Python library in {folder}")
