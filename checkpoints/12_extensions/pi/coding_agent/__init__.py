"""pi.coding_agent: the top layer, like Pi's pi-coding-agent: tools that work on real files.

It builds on pi.agent and pi.ai, which never import from here; the facade lists what code
outside this package uses."""

from pi.coding_agent.tools.bash import BashTool
from pi.coding_agent.tools.edit import EditTool
from pi.coding_agent.tools.read import ReadTool
from pi.coding_agent.tools.sets import coding_tools
from pi.coding_agent.tools.workspace import Workspace, WorkspaceError
from pi.coding_agent.tools.write import WriteTool

from pi.coding_agent.messages import convert_to_llm
from pi.coding_agent.session.context import build_context
from pi.coding_agent.session.entries import SessionError, fixed_clock, sequential_ids
from pi.coding_agent.session.reader import read_session
from pi.coding_agent.session.storage import start_session
from pi.coding_agent.session.tree import SessionTree
from pi.coding_agent.session.writer import SessionWriter

from pi.coding_agent.compaction.branch import (collect_entries_for_branch_summary,
                                               generate_branch_summary)
from pi.coding_agent.compaction.thresholds import DEFAULT_COMPACTION_SETTINGS, CompactionSettings
from pi.coding_agent.compaction.utils import SummaryError

from pi.coding_agent.resources.loader import ResourceLoader, Resources, trust_everything
from pi.coding_agent.resources.system_prompt import tool_prompts_for

from pi.coding_agent.extensions.api import ExtensionAPI, ScriptedUI, ToolCallEvent
from pi.coding_agent.extensions.loader import LoadedExtensions, discover, load_extensions
from pi.coding_agent.extensions.runner import ExtensionRunner, tool_hooks

__all__ = [
    "BashTool", "EditTool", "ReadTool", "Workspace", "WorkspaceError", "WriteTool",
    "coding_tools",
    "SessionError", "SessionTree", "SessionWriter", "build_context", "convert_to_llm",
    "fixed_clock", "read_session", "sequential_ids", "start_session",
    "DEFAULT_COMPACTION_SETTINGS", "CompactionSettings", "SummaryError",
    "collect_entries_for_branch_summary", "generate_branch_summary",
    "ResourceLoader", "Resources", "tool_prompts_for", "trust_everything",
    "ExtensionAPI", "ExtensionRunner", "LoadedExtensions", "ScriptedUI", "ToolCallEvent",
    "discover", "load_extensions", "tool_hooks",
]
