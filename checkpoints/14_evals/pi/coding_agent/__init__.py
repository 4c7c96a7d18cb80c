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

from pi.coding_agent.compaction.branch_summary import (
    BranchSummary,
    collect_entries_for_branch_summary,
    generate_branch_summary,
    prepare_branch_entries,
)
from pi.coding_agent.compaction.compact import (
    CompactionResult,
    SummaryError,
    SummaryOptions,
    compact,
)
from pi.coding_agent.compaction.cut_points import CutPoint, find_cut_point
from pi.coding_agent.compaction.prepare import (
    CompactionPreparation,
    FileOps,
    compute_file_lists,
    format_file_operations,
    prepare_compaction,
)
from pi.coding_agent.compaction.prompts import serialize_conversation
from pi.coding_agent.compaction.thresholds import (
    DEFAULT_COMPACTION_SETTINGS,
    CompactionSettings,
    compaction_threshold,
    should_compact,
)

from pi.coding_agent.resources.context_files import ContextFile, load_context_files
from pi.coding_agent.resources.discovery import discover_skills, load_skills, load_skills_from_dir
from pi.coding_agent.resources.frontmatter import (
    Collision,
    Diagnostic,
    FrontmatterError,
    parse_markdown,
)
from pi.coding_agent.resources.loader import (
    ResourceLoader,
    Resources,
    TrustedProjects,
    TrustPolicy,
    default_agent_dir,
    trust_everything,
    trust_nothing,
)
from pi.coding_agent.resources.prompt_templates import (
    PromptTemplate,
    expand_prompt_template,
    load_prompt_templates,
)
from pi.coding_agent.resources.skills import (
    LoadedSkills,
    Skill,
    SkillCommandError,
    expand_skill_command,
    format_skills_for_prompt,
)
from pi.coding_agent.resources.system_prompt import (
    BUILTIN_TOOL_PROMPTS,
    Guideline,
    ToolPrompt,
    build_system_prompt,
    tool_prompts_for,
)

from pi.coding_agent.extensions.api import (
    AgentStartChange,
    Command,
    Extension,
    ExtensionAPI,
    ExtensionError,
    ExtensionUI,
    InputChange,
    InputHandled,
    NoUI,
    ScriptedUI,
    ToolCallEvent,
    ToolResultEvent,
)
from pi.coding_agent.extensions.loader import LoadedExtensions, discover, load_extensions
from pi.coding_agent.extensions.runner import (
    EventRelay,
    ExtensionRunner,
    HandlerFailed,
    run_prompt,
    tool_hooks,
)

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
    "DEFAULT_COMPACTION_SETTINGS",
    "BranchSummary",
    "CompactionPreparation",
    "CompactionResult",
    "CompactionSettings",
    "CutPoint",
    "FileOps",
    "SummaryError",
    "SummaryOptions",
    "collect_entries_for_branch_summary",
    "compact",
    "compaction_threshold",
    "compute_file_lists",
    "find_cut_point",
    "format_file_operations",
    "generate_branch_summary",
    "prepare_branch_entries",
    "prepare_compaction",
    "serialize_conversation",
    "should_compact",
    "BUILTIN_TOOL_PROMPTS",
    "Collision",
    "ContextFile",
    "Diagnostic",
    "FrontmatterError",
    "Guideline",
    "LoadedSkills",
    "PromptTemplate",
    "ResourceLoader",
    "Resources",
    "Skill",
    "SkillCommandError",
    "ToolPrompt",
    "TrustPolicy",
    "TrustedProjects",
    "build_system_prompt",
    "default_agent_dir",
    "discover_skills",
    "expand_prompt_template",
    "expand_skill_command",
    "format_skills_for_prompt",
    "load_context_files",
    "load_prompt_templates",
    "load_skills",
    "load_skills_from_dir",
    "parse_markdown",
    "tool_prompts_for",
    "trust_everything",
    "trust_nothing",
    "AgentStartChange",
    "Command",
    "EventRelay",
    "Extension",
    "ExtensionAPI",
    "ExtensionError",
    "ExtensionRunner",
    "ExtensionUI",
    "HandlerFailed",
    "InputChange",
    "InputHandled",
    "LoadedExtensions",
    "NoUI",
    "ScriptedUI",
    "ToolCallEvent",
    "ToolResultEvent",
    "discover",
    "load_extensions",
    "run_prompt",
    "tool_hooks",
]
