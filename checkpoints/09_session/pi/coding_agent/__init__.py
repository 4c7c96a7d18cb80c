"""pi.coding_agent: the top layer, like Pi's pi-coding-agent: tools that work on real files.

It builds on pi.agent (the tool contract) and pi.ai (content blocks, the abort signal); neither
of those may import anything from here.
"""

from pi.coding_agent.tools.bash import BashTool
from pi.coding_agent.tools.edit import EditTool
from pi.coding_agent.tools.find import FindTool
from pi.coding_agent.tools.grep import GrepTool
from pi.coding_agent.tools.ls import LsTool
from pi.coding_agent.tools.read import ReadTool
from pi.coding_agent.tools.sets import (
    DEFAULT_TOOL_NAMES,
    READ_ONLY_TOOL_NAMES,
    coding_tools,
    default_tools,
    read_only_tools,
    select_tools,
)
from pi.coding_agent.tools.truncate import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    GREP_MAX_LINE_LENGTH,
    TruncationResult,
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
)
from pi.coding_agent.tools.workspace import FileLocks, Workspace, WorkspaceError
from pi.coding_agent.tools.write import WriteTool

from pi.coding_agent.messages import (
    BashExecutionMessage,
    BranchSummaryMessage,
    CompactionSummaryMessage,
    CustomMessage,
    convert_to_llm,
)
from pi.coding_agent.session.context import ModelRef, SessionContext, build_context
from pi.coding_agent.session.entries import SessionEntry, SessionHeader
from pi.coding_agent.session.entries import SessionError
from pi.coding_agent.session.entries import fixed_clock, random_ids, sequential_ids
from pi.coding_agent.session.reader import LoadedSession, read_session
from pi.coding_agent.session.storage import sessions_root, start_session
from pi.coding_agent.session.tokens import (
    ContextTokens,
    calculate_context_tokens,
    estimate_context_tokens,
    estimate_tokens,
)
from pi.coding_agent.session.tree import SessionTree
from pi.coding_agent.session.writer import SessionWriter, fork_session

__all__ = [
    "DEFAULT_MAX_BYTES",
    "DEFAULT_MAX_LINES",
    "DEFAULT_TOOL_NAMES",
    "GREP_MAX_LINE_LENGTH",
    "READ_ONLY_TOOL_NAMES",
    "BashTool",
    "EditTool",
    "FileLocks",
    "FindTool",
    "GrepTool",
    "LsTool",
    "ReadTool",
    "TruncationResult",
    "Workspace",
    "WorkspaceError",
    "WriteTool",
    "coding_tools",
    "default_tools",
    "format_size",
    "read_only_tools",
    "select_tools",
    "truncate_head",
    "truncate_line",
    "truncate_tail",
    "BashExecutionMessage",
    "BranchSummaryMessage",
    "CompactionSummaryMessage",
    "ContextTokens",
    "CustomMessage",
    "LoadedSession",
    "ModelRef",
    "SessionContext",
    "SessionEntry",
    "SessionError",
    "SessionHeader",
    "SessionTree",
    "SessionWriter",
    "build_context",
    "calculate_context_tokens",
    "convert_to_llm",
    "estimate_context_tokens",
    "estimate_tokens",
    "fixed_clock",
    "fork_session",
    "random_ids",
    "read_session",
    "sequential_ids",
    "sessions_root",
    "start_session",
]
