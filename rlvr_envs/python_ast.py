"""``ast.parse`` that threads may share, on the CPython this project runs (3.11).

CPython 3.11 counts the depth of the tree it builds in state shared by the interpreter, not by the
thread: two threads parsing at once can make one of them fail with ``SystemError: AST constructor
recursion depth mismatch`` (python/cpython#106905) on perfectly good source. Verifiers parse model
output and task tests from pool and episode threads, so the family code parses through here: one
lock for the parses made here, and a retry for a mismatch caused by a parse made elsewhere (another
library's). Any other error is the caller's, as with ``ast.parse``.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()
_ATTEMPTS = 3


def parse_module(source: str) -> ast.Module:
    """``ast.parse(source)``, safe to call from several threads."""
    tree = _parse(source, "exec")
    if not isinstance(tree, ast.Module):  # what ast.parse returns in this mode
        raise TypeError(f"expected a module, got {type(tree).__name__}")
    return tree


def parse_expression(source: str) -> ast.Expression:
    """``ast.parse(source, mode="eval")``, safe to call from several threads."""
    tree = _parse(source, "eval")
    if not isinstance(tree, ast.Expression):
        raise TypeError(f"expected an expression, got {type(tree).__name__}")
    return tree


def literal_eval(source: str) -> object:
    """``ast.literal_eval(source)`` for a string, safe to call from several threads (the stdlib
    one parses the string with ``ast.parse``)."""
    return ast.literal_eval(parse_expression(source.lstrip(" \t")))


def _parse(source: str, mode: str) -> ast.AST:
    for attempt in range(_ATTEMPTS):
        with _LOCK:
            try:
                return ast.parse(source, mode=mode)
            except SystemError as exc:
                if "recursion depth mismatch" not in str(exc) or attempt == _ATTEMPTS - 1:
                    raise
    raise RuntimeError("unreachable")  # the last attempt returns or raises
