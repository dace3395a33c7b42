"""Tools: schemas from signatures and docstrings, argument checks, the plugin registry, the calculator."""

from __future__ import annotations

import time
from importlib import metadata
from typing import Any, Literal, Optional

import jsonschema
import pytest

from rlvr_envs.episodes import (
    FunctionTool,
    ToolError,
    UnknownToolError,
    function_schema,
    get_tool,
    register_tool,
    resolve_tool,
    tool_names,
    validate_arguments,
)
from rlvr_envs.episodes import tools as tools_module
from rlvr_envs.episodes.calculator import CalculatorTool, evaluate
from rlvr_envs.episodes.testing import check_tool
from rlvr_envs.errors import PluginLoadError
from rlvr_envs.testing import ConformanceError


def search(
    query: str,
    limit: int = 5,
    mode: Literal["fast", "exact"] = "fast",
    tags: Optional[list[str]] = None,  # noqa: UP045 (the Optional spelling is what is tested)
    weights: dict[str, float] | None = None,
    pair: tuple[int, str] = (1, "a"),
    scale: float = 1.0,
    strict: bool = False,
    anything: Any = None,
) -> str:
    """Search the index for documents.

    Returns the best hits, one a line.

    Args:
        query: what to look for; may span
            two lines.
        limit (int): at most this many hits.
        mode: how hard to look.
        tags: only hits with one of these tags.

    Returns:
        the hits.
    """
    return f"{query}:{limit}"


def test_schema_from_signature_and_google_docstring():
    schema = function_schema(search)
    assert schema["name"] == "search"
    assert schema["description"] == "Search the index for documents. Returns the best hits, one a line."
    params = schema["parameters"]
    jsonschema.Draft202012Validator.check_schema(params)
    props = params["properties"]
    assert params["required"] == ["query"] and params["additionalProperties"] is False
    assert props["query"] == {"type": "string", "description": "what to look for; may span two lines."}
    assert props["limit"] == {"type": "integer", "description": "at most this many hits.", "default": 5}
    assert props["mode"]["enum"] == ["fast", "exact"]
    assert props["tags"]["type"] == ["array", "null"] and props["tags"]["items"] == {"type": "string"}
    assert props["weights"] == {"type": ["object", "null"], "additionalProperties": {"type": "number"}, "default": None}
    assert props["pair"]["prefixItems"] == [{"type": "integer"}, {"type": "string"}]
    assert props["scale"]["type"] == "number" and props["strict"]["type"] == "boolean"
    assert "type" not in props["anything"]


def test_schema_refuses_what_json_cannot_call():
    def star(*args: int) -> str:
        return ""

    def kw(**kw: int) -> str:
        return ""

    def pos(x: int, /) -> str:
        return ""

    def odd(x: complex) -> str:
        return ""

    def keys(x: dict[int, str]) -> str:
        return ""

    for fn in (star, kw, pos, odd, keys):
        with pytest.raises(TypeError):
            function_schema(fn)


ARG_CASES = [
    ({"query": "x"}, None),
    ({"query": "x", "limit": 3.0}, None),  # 3.0 is an integer to JSON
    ({}, "missing required argument 'query'"),
    ({"query": 1}, "query must be of type string, got integer"),
    ({"query": "x", "limit": "3"}, "limit must be of type integer, got string"),
    ({"query": "x", "limit": True}, "limit must be of type integer, got boolean"),
    ({"query": "x", "limit": 2.5}, "limit must be of type integer"),
    ({"query": "x", "mode": "slow"}, "mode must be one of"),
    ({"query": "x", "tags": ["a", 1]}, "tags[1] must be of type string"),
    ({"query": "x", "weights": {"a": "heavy"}}, "weights.a must be of type number"),
    ({"query": "x", "bogus": 1}, "unexpected argument 'bogus'"),
    ({"query": "x", "tags": None}, None),  # Optional: null allowed
    ({"query": "x", "limit": None}, "limit must be of type integer, got null"),
]


@pytest.mark.parametrize(("arguments", "error"), ARG_CASES)
def test_validate_arguments(arguments, error):
    schema = function_schema(search)["parameters"]
    problem = validate_arguments(schema, arguments)
    if error is None:
        assert problem is None
    else:
        assert problem is not None and error in problem
    # the checker agrees with a reference JSON-schema validator on every case
    assert (problem is None) == jsonschema.Draft202012Validator(schema).is_valid(arguments)


def test_function_tool_and_resolution():
    tool = resolve_tool(search)
    assert isinstance(tool, FunctionTool) and tool.name == "search"
    session = tool.open(None)
    assert session.call(query="q", limit=2) == "q:2"
    session.close()
    session.close()
    with pytest.raises(ToolError):
        session.call(query="q")
    assert resolve_tool("calculator").name == "calculator"
    with pytest.raises(TypeError):
        resolve_tool(42)
    with pytest.raises(UnknownToolError, match="no tool named 'nope'"):
        get_tool("nope")


class _EP:
    """A stand-in entry point (importlib.metadata.EntryPoint's load/name/value)."""

    def __init__(self, name: str, target: Any = None, error: Exception | None = None) -> None:
        self.name, self.value, self._target, self._error, self.dist = name, f"fake:{name}", target, error, None

    def load(self) -> Any:
        if self._error is not None:
            raise self._error
        return self._target


def test_plugins_load_lazily_and_a_broken_one_fails_alone(monkeypatch):
    loaded = []

    def factory(limit: int = 3) -> FunctionTool:
        loaded.append(limit)
        return FunctionTool(search, name="searcher")

    fake = {"searcher": _EP("searcher", factory), "broken": _EP("broken", error=ImportError("no module named zz"))}
    monkeypatch.setattr(tools_module, "_entry_points", fake)
    assert {"searcher", "broken", "calculator"} <= set(tool_names())
    assert loaded == []  # listing names imports nothing
    assert get_tool("searcher", limit=7).name == "searcher" and loaded == [7]
    with pytest.raises(PluginLoadError, match="'broken'.*no module named zz"):
        get_tool("broken")
    assert get_tool("calculator").name == "calculator"  # the others still load


def test_the_real_entry_point_group_is_read(monkeypatch):
    monkeypatch.setattr(tools_module, "_entry_points", None)
    tool_names()
    assert tools_module._entry_points is not None
    assert set(tools_module._entry_points) == {ep.name for ep in metadata.entry_points(group="rlvr_envs.tools")}


def test_register_tool_at_run_time(monkeypatch):
    monkeypatch.setattr(tools_module, "_registered", {})
    tool = FunctionTool(search)
    register_tool(tool)
    assert get_tool("search") is tool
    with pytest.raises(ValueError, match="different tool"):
        register_tool(FunctionTool(search))
    with pytest.raises(TypeError, match="takes no options"):
        get_tool("search", limit=1)


# -- calculator -------------------------------------------------------------------------------------
VALUES = [
    ("2+3*4", "14"),
    ("123456789 * 987654321", "121932631112635269"),
    ("2**100", str(2**100)),
    ("7/2", "3.5"),
    ("8/2", "4"),
    ("7//2", "3"),
    ("-7 % 3", "2"),
    ("2^10", "1024"),
    ("3 × 4 ÷ 2 − 1", "5"),
    ("sqrt(144)", "12"),
    ("round(pi, 3)", "3.142"),
    ("factorial(20)", "2432902008176640000"),
    ("gcd(12, 18)", "6"),
    ("max(1, 5, 3) - min(4, 2)", "3"),
    ("log(8, 2)", "3"),
]


@pytest.mark.parametrize(("expression", "value"), VALUES)
def test_calculator_values(expression, value):
    session = CalculatorTool().open(None)
    assert session.call(expression=expression) == value


HOSTILE = [
    "9**9**9**9",
    "10**10**10",
    "2**4097",
    "(10**1000)*(10**1000)*(10**1000)*(10**1000)",
    "factorial(100000)",
    "factorial(-1)",
    "1/0",
    "1%0",
    "(-8)**0.5",
    "exp(1000)",
    "1e308*10",
    "2.5**1e10",
    "sqrt(-1)",
    "round(1, 10**9)",
    "(" * 300 + "1" + ")" * 300,
    "-" * 400 + "1",
    "1+" * 300 + "1",
    "__import__('os').system('true')",
    "().__class__",
    "[x for x in range(10**9)]",
    "'a'*10**9",
    "lambda: 1",
    "True + 1",
    "abs(x=1)",
    "min(*[1,2])",
    "1 if 1 else 2",
    "1 < 2",
    "1 << 10000",
    "",
    "\udcff",
    "1" * 501,
    "9" * 499 + "*" + "9" * 499,
    "nan",
]


@pytest.mark.parametrize("expression", HOSTILE)
def test_calculator_refuses_hostile_input_quickly(expression):
    started = time.perf_counter()
    with pytest.raises(ToolError):
        evaluate(expression)
    assert time.perf_counter() - started < 0.5


def test_calculator_passes_the_tool_conformance_check():
    check_tool(CalculatorTool())


def test_check_tool_finds_a_misbehaving_tool():
    def divide(a: int, b: int) -> str:
        """Divide.

        Args:
            a: numerator.
            b: denominator.
        """
        return str(a / b)  # ZeroDivisionError instead of ToolError

    with pytest.raises(ConformanceError, match="raised ZeroDivisionError"):
        check_tool(FunctionTool(divide))

    def slow(text: str) -> str:
        """Slow on long text."""
        if len(text) > 1000:
            time.sleep(0.3)
        return "ok"

    with pytest.raises(ConformanceError, match="past its budget"):
        check_tool(FunctionTool(slow), call_timeout_s=0.2)
