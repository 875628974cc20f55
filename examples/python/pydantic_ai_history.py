"""A pydantic-ai run (its FunctionModel, no network) whose tool returns a
screenshot, dumped as pydantic-ai stores histories
(`ModelMessagesTypeAdapter`), read back by tool-carrier and converted for
OpenAI Chat Completions, which takes no image in a tool message: it goes
in a user message after the results.

    python examples/python/pydantic_ai_history.py      (pip install pydantic-ai-slim)
"""

from __future__ import annotations

from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai.messages import BinaryContent, ModelMessage, ModelMessagesTypeAdapter, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

import tool_carrier

ROOT = Path(__file__).resolve().parents[2]


def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if len(messages) == 1:
        return ModelResponse(parts=[ToolCallPart("screenshot", {}, tool_call_id="call_1")])
    return ModelResponse(parts=[TextPart("The editor is open.")])


def main() -> list[str]:
    agent = Agent(FunctionModel(model))

    @agent.tool_plain
    def screenshot() -> BinaryContent:
        """The screen, as a PNG."""
        return BinaryContent(data=(ROOT / "examples/shots/editor.png").read_bytes(), media_type="image/png")

    result = agent.run_sync("Check the editor.")
    saved = ModelMessagesTypeAdapter.dump_json(result.all_messages())
    history = tool_carrier.import_history(saved, "pydantic-ai")
    request = tool_carrier.convert(history, "openai-chat")
    roles = [m["role"] for m in request.json()["messages"]]
    return [f"pydantic-ai: {history.tally}", f"openai-chat: {roles}, {request.report['images']} image sent"]


if __name__ == "__main__":
    print("\n".join(main()))
