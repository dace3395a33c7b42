"""Episodes: multi-turn, tool-using environments over any single-turn family (docs/episodes.md).

``rlvr_envs.make(id, tools=[...])`` builds an ``EpisodeEnv``; this package holds the episode
runner (``env``), how a turn is read (``actions``, ``parsers``), the tool protocol, schema
derivation and plugin registry (``tools``, ``schema``), tools whose state lives in a runtime
session (``runtime_tool``), the built-in ``calculator``, per-turn
shaping and the conformance checks for episode envs and third-party tools (``testing``).
"""

from __future__ import annotations

from rlvr_envs.episodes.env import EPISODE_OPTIONS, EpisodeEnv, split_episode_options
from rlvr_envs.episodes.parsers import (
    HermesParser,
    JsonParser,
    ParsedTurn,
    QwenXmlParser,
    ToolCall,
    ToolCallParser,
    get_tool_call_parser,
    parser_names,
    register_tool_call_parser,
)
from rlvr_envs.episodes.runtime_tool import RuntimeSession, RuntimeTool
from rlvr_envs.episodes.schema import function_schema, validate_arguments
from rlvr_envs.episodes.shaping import EpisodeShaping
from rlvr_envs.episodes.tools import (
    TOOL_ENTRY_POINT_GROUP,
    FunctionTool,
    Tool,
    ToolContext,
    ToolError,
    ToolSession,
    ToolSessionLost,
    UnknownToolError,
    get_tool,
    openai_schema,
    register_tool,
    resolve_tool,
    tool_names,
)

__all__ = [
    "EPISODE_OPTIONS",
    "TOOL_ENTRY_POINT_GROUP",
    "EpisodeEnv",
    "EpisodeShaping",
    "FunctionTool",
    "HermesParser",
    "JsonParser",
    "ParsedTurn",
    "QwenXmlParser",
    "RuntimeSession",
    "RuntimeTool",
    "Tool",
    "ToolCall",
    "ToolCallParser",
    "ToolContext",
    "ToolError",
    "ToolSession",
    "ToolSessionLost",
    "UnknownToolError",
    "function_schema",
    "get_tool",
    "get_tool_call_parser",
    "openai_schema",
    "parser_names",
    "register_tool",
    "register_tool_call_parser",
    "resolve_tool",
    "split_episode_options",
    "tool_names",
    "validate_arguments",
]
