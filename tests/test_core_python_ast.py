"""rlvr_envs.python_ast: ``ast.parse`` that pool and episode threads can share on CPython 3.11.

CPython 3.11 keeps the AST builder's depth count in interpreter-wide state, so two threads parsing
at once can make one fail with ``SystemError: AST constructor recursion depth mismatch`` on good
source (python/cpython#106905). The clean-clone CI of round 12 hit it in a code-episode test (an
MBPP task's tests parsed while another thread parsed): verification must not raise on that.
"""

from __future__ import annotations

import ast
import threading

import pytest

from rlvr_envs import python_ast
from rlvr_envs.python_ast import parse_expression, parse_module

NESTED = ("assert f(" + "[" * 40 + "1" + "]" * 40 + ") == [[], ['red'], ['green', 'red']]\n") * 20


def test_parses_as_ast_parse_does():
    assert ast.dump(parse_module(NESTED)) == ast.dump(ast.parse(NESTED))
    assert ast.dump(parse_expression("1 + 2*x")) == ast.dump(ast.parse("1 + 2*x", mode="eval"))
    with pytest.raises(SyntaxError):
        parse_module("def (")
    with pytest.raises(SyntaxError):
        parse_expression("x = 1")  # a statement is no expression


def test_a_depth_mismatch_from_another_threads_parse_is_retried(monkeypatch):
    real = ast.parse
    calls = {"n": 0}

    def flaky(source, mode="exec", **kwargs):
        calls["n"] += 1
        if calls["n"] == 1:
            raise SystemError("AST constructor recursion depth mismatch (before=162, after=28)")
        return real(source, mode=mode, **kwargs)

    monkeypatch.setattr(python_ast.ast, "parse", flaky)
    assert isinstance(parse_module("x = 1"), ast.Module)
    assert calls["n"] == 2


def test_other_errors_are_the_callers(monkeypatch):
    def broken(source, mode="exec", **kwargs):
        raise SystemError("something else")

    monkeypatch.setattr(python_ast.ast, "parse", broken)
    with pytest.raises(SystemError, match="something else"):
        parse_module("x = 1")

    def always(source, mode="exec", **kwargs):
        raise SystemError("AST constructor recursion depth mismatch (before=1, after=2)")

    monkeypatch.setattr(python_ast.ast, "parse", always)
    with pytest.raises(SystemError):  # bounded: never a loop
        parse_module("x = 1")


def test_threads_parsing_at_once_all_get_their_trees():
    expected = ast.dump(ast.parse(NESTED))
    errors: list[BaseException] = []
    wrong: list[str] = []

    def work():
        try:
            for _ in range(150):
                if ast.dump(parse_module(NESTED)) != expected:
                    wrong.append("tree")
        except BaseException as exc:  # the test reports whatever a thread met
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and not wrong, (errors[:3], wrong[:3])


def test_literal_eval_reads_strings_as_the_stdlib_does():
    for text in ("[1, (2, 'a'), {3: None}]", "  -1.5", "'\u4e2d'", "{1, 2}"):
        assert python_ast.literal_eval(text) == ast.literal_eval(text)
    for bad in ("f(1)", "x", "1 +", ""):
        with pytest.raises((ValueError, SyntaxError)):
            python_ast.literal_eval(bad)


# Code that runs in the verifier's own process (pool and episode threads) parses through
# python_ast. Sources that run in a sandboxed child (the judge harness, derived-input runners, the
# Python tool's server) or only as a CLI are single-threaded there and may use ast directly.
_CHILD_OR_CLI = {
    "_sandbox_batch.py",
    "_sandbox_judge.py",
    "_sandbox_speculate.py",
    "_sandbox_source.py",
    "_python_server.py",
    "scaffold.py",
    "python_ast.py",
}


def test_host_code_parses_only_through_python_ast():
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[1]
    raw = re.compile(r"(?<![\w.])ast\.parse\(|(?<![\w.])ast\.literal_eval\((?:text|source|candidate|line)\b")
    offenders = []
    for path in [*root.joinpath("rlvr_envs").rglob("*.py"), *root.joinpath("envs").rglob("*.py")]:
        if path.name in _CHILD_OR_CLI:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if raw.search(line):
                offenders.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
