"""The harness modules' text as the sandboxes receive it: comments cut.

Not a harness part (it runs on the host only). The Docker backend's one-shot program carries
both roles' modules in one command-line argument, which may not exceed 128 KiB on Linux
(``MAX_ARG_STRLEN``); the local sandboxes read theirs from a memory file (``harness_fd``).
Comments are a tenth of that text and mean nothing to the interpreter, so they stay in the
files and out of what the sandboxes receive.
"""

from __future__ import annotations

import io
import os
import threading
import tokenize

_cache: dict[str, str] = {}
_lock = threading.Lock()


def without_comments(source: str) -> str:
    """``source`` with every comment cut, each line's newline kept (it compiles to the same code
    objects, line numbers included). The tokenizer tells comments from ``#`` inside strings; a
    source it cannot read comes back unchanged (the interpreter then reports what is wrong with it)."""
    with _lock:
        known = _cache.get(source)
    if known is not None:
        return known
    lines = source.splitlines(keepends=True)
    try:
        comments = [
            t.start for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type == tokenize.COMMENT
        ]
    except (tokenize.TokenError, SyntaxError):
        return source
    for row, col in comments:
        line = lines[row - 1]
        lines[row - 1] = line[:col].rstrip() + line[len(line.rstrip("\r\n")) :]
    stripped = "".join(lines)
    with _lock:
        if len(_cache) > 64:
            _cache.clear()
        _cache[source] = stripped
    return stripped


def without_docstrings(source: str) -> str:
    """``source`` with every bare string statement (a docstring, a constant's note) emptied, its
    lines kept (the same line numbers; ``__doc__`` becomes blank, which the harness never reads).
    For the Docker backend's one argument, where a docstring costs room a module needs; a source
    that does not parse comes back unchanged."""
    import ast

    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return source
    lines = [line.encode() for line in source.splitlines(keepends=True)]
    spans = [
        (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
    ]
    for start, col, end, end_col in sorted(spans, reverse=True):  # from the end: earlier offsets stay right
        if end is None or end_col is None:
            continue
        blank = b'"""' + b"\n" * (end - start) + b'"""'
        lines[start - 1 : end] = [lines[start - 1][:col] + blank + lines[end - 1][end_col:]]
    return b"".join(lines).decode()


def harness_fd(source: str) -> int:
    """A memory file holding ``source``, for a sandbox's interpreter to read its harness from
    (``sandbox.bootstrap_source``): what it gets as an argument stays in its heap for life."""
    data = source.encode()
    fd = os.memfd_create("rlvr-harness", os.MFD_CLOEXEC)
    try:
        if os.pwrite(fd, data, 0) != len(data):
            raise OSError("the harness did not fit in a memory file")
    except BaseException:
        os.close(fd)
        raise
    return fd
