"""``rlvr-envs new NAME --tool``: a tool plugin package a third party fills in.

What it writes is what every tool needs and nothing more: the entry point in the group
``rlvr_envs.tools`` (so ``make(id, tools=["NAME"])`` finds it once installed), a function whose
signature and Google-style docstring are the schema, and a test that runs the conformance
check (``check_tool``) and an episode with the tool.
"""

from __future__ import annotations

import re
from pathlib import Path

from rlvr_envs.errors import ConfigurationError

__all__ = ["render_tool_package", "write_tool_package"]

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,40}$")

_PYPROJECT = """\
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "rlvr-envs-tool-{dist}"
version = "0.1.0"
description = "The {name} tool for rlvr-envs episodes"
requires-python = ">=3.10"
dependencies = ["rlvr-envs"]

[project.optional-dependencies]
test = ["pytest"]

[project.entry-points."rlvr_envs.tools"]
{name} = "{package}.tool:make_tool"

[tool.setuptools.packages.find]
include = ["{package}*"]
"""

_TOOL = '''\
"""The {name} tool: what the model may call during an episode (see rlvr-envs docs/episodes.md).

It runs in the env's process and cannot be interrupted, so it must be bounded by construction:
check sizes before doing work, and raise ToolError for anything the model should read. A tool
that runs code or keeps a process subclasses rlvr_envs.episodes.RuntimeTool instead.
"""

from __future__ import annotations

from rlvr_envs.episodes import FunctionTool, ToolError

MAX_TEXT_CHARS = 100_000


def {name}(text: str, unique: bool = False) -> str:
    """Count the words of a text.

    Args:
        text: the text whose words are counted.
        unique: count each distinct word once.
    """
    if len(text) > MAX_TEXT_CHARS:
        raise ToolError(f"the text is longer than {{MAX_TEXT_CHARS}} characters")
    words = text.split()
    return str(len(set(words)) if unique else len(words))


def make_tool() -> FunctionTool:
    """The entry point (group rlvr_envs.tools): the tool, its schema from the signature and docstring."""
    return FunctionTool({name})
'''

_TEST = '''\
"""The {name} tool keeps the tool contract and works inside an episode."""

from __future__ import annotations

import json

from rlvr_envs import DatasetEnv, Task
from rlvr_envs.episodes import EpisodeEnv
from rlvr_envs.episodes.testing import check_tool
from rlvr_envs.testing import ExactAnswerVerifier

from {package}.tool import make_tool


class OneTask(DatasetEnv):
    def _load_tasks(self):
        return [Task(id="count", prompt="How many words are in 'a b a'?", answer="3")]


def test_the_tool_keeps_the_contract():
    check_tool(make_tool())


def test_the_schema_comes_from_the_docstring():
    tool = make_tool()
    assert tool.name == "{name}"
    assert tool.parameters["required"] == ["text"]
    assert tool.parameters["properties"]["text"]["description"] == "the text whose words are counted."


def test_an_episode_calls_the_tool_then_answers():
    env = EpisodeEnv(OneTask(ExactAnswerVerifier(), isolation="inline"), tools=[make_tool()], max_turns=3)
    env.reset(seed=0)
    call = {{"type": "function", "function": {{"name": "{name}", "arguments": json.dumps({{"text": "a b a"}})}}}}
    _, _, terminated, _, info = env.step({{"role": "assistant", "content": "", "tool_calls": [call]}})
    assert not terminated and info["tool_messages"][0]["content"] == "3"
    _, reward, terminated, _, _ = env.step("The answer is \\\\boxed{{3}}.")
    assert terminated and reward == 1.0
'''

_README = """\
# rlvr-envs-tool-{dist}

The `{name}` tool for rlvr-envs episodes: `rlvr_envs.make(env_id, tools=["{name}"])` once
installed (`pip install -e .`). Edit `{package}/tool.py`: the function's signature and
Google-style docstring are the schema the model sees. `pytest` runs the tool conformance check
(`rlvr_envs.episodes.testing.check_tool`) and an episode with the tool.
"""


def render_tool_package(name: str) -> dict[str, str]:
    """Relative path -> text of the package for the tool ``name`` (a Python identifier)."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ConfigurationError(f"a tool name is a lowercase identifier (letters, digits, _), got {name!r}")
    package = f"rlvr_tool_{name}"
    fields = {"name": name, "package": package, "dist": name.replace("_", "-")}
    return {
        "pyproject.toml": _PYPROJECT.format(**fields),
        "README.md": _README.format(**fields),
        f"{package}/__init__.py": f'"""The {name} tool for rlvr-envs episodes."""\n',
        f"{package}/tool.py": _TOOL.format(**fields),
        "tests/test_tool.py": _TEST.format(**fields),
    }


def write_tool_package(name: str, out: str | Path, *, force: bool = False) -> Path:
    """Write the package to ``out/rlvr-envs-tool-NAME``; refuses a non-empty directory unless ``force``."""
    files = render_tool_package(name)
    root = Path(out) / f"rlvr-envs-tool-{name.replace('_', '-')}"
    if root.exists() and any(root.iterdir()) and not force:
        raise ConfigurationError(f"{root} exists and is not empty (pass force=True / --force to write into it)")
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root
