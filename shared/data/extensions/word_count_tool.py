"""Example extension: a custom tool, `word_count`, and a `/words` command for people.

A tool from an extension is an AgentTool like the built-in ones: its parameters are a pydantic
model, the model sees its JSON Schema, and a failure is a raised exception. This one counts
lines, words and characters of a file in the project.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from pi.agent.tools import AgentTool, ProgressCallback, ToolResult
from pi.ai import AbortSignal
from pi.coding_agent.extensions.api import ExtensionAPI
from pi.coding_agent.tools.workspace import Workspace


class CountParams(BaseModel):
    path: str = Field(description="File to count, relative to the project folder")


def counts(text: str) -> str:
    return f"{len(text.splitlines())} lines, {len(text.split())} words, {len(text)} characters"


class WordCountTool(AgentTool[CountParams]):
    name = "word_count"
    description = "Count the lines, words and characters of a text file in the project."
    parameters = CountParams

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    async def execute(self, call_id: str, params: CountParams, signal: AbortSignal,
                      on_update: ProgressCallback) -> ToolResult:
        text = self.workspace.resolve(params.path).read_text(encoding="utf-8")
        return ToolResult.text(f"{params.path}: {counts(text)}")


def extension(api: ExtensionAPI) -> None:
    workspace = Workspace(api.cwd)
    api.register_tool(WordCountTool(workspace))

    def words(args: str) -> None:
        path = args or "README.md"
        api.ui.notify(f"{path}: {counts(workspace.resolve(path).read_text(encoding='utf-8'))}")

    api.register_command("words", "Count the words of a file (default README.md)", words)
