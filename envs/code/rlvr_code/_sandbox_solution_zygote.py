"""The solution zygote's start: warmed up so that each sample process forks from it cheaply.

Part of the solution harness (the last module, after ``_sandbox_solution``). A sample process
pays a copy-on-write fault for every page it writes that it shares with the zygote; what every
sample would do first (set its environment, look up ``capset``, specialise the serving code)
is done here once, before the first fork.
"""

# -- wire imports (stripped in the sandbox) --
from __future__ import annotations

import json
import os
import socket
import sys

from rlvr_code._sandbox_solution import (
    _LINUX_CAPABILITY_VERSION_3,
    SolutionZygote,
    _cap_structs,
    _libc,
    serve_solution,
)
from rlvr_code._sandbox_wire import libc, send, start_zygote

# -- end wire imports --


def sample_environment(workdir: str) -> None:
    """The environment every sample process gets, set once in the zygote (a fork inherits it;
    nothing in the zygote changes it): exactly these four variables."""
    os.environ.clear()
    os.environ.update({"PATH": "/usr/bin:/bin", "HOME": workdir, "TMPDIR": workdir, "LANG": "C.UTF-8"})


def warm_capabilities() -> None:
    """Run, in the zygote, the ctypes path ``drop_capabilities`` takes in each sample process.

    ``capget`` goes through the same lookups and argument conversions as ``capset`` and changes
    nothing; afterwards a sample process finds them done instead of redoing them on pages it
    shares copy-on-write with the zygote (each first write there costs a page copy).
    """
    import ctypes

    header_type, data_type = _cap_structs()
    libc = _libc()
    for _ in range(WARM_ROUNDS):
        header, data = header_type(_LINUX_CAPABILITY_VERSION_3, 0), data_type()
        libc.capget(ctypes.byref(header), data)
        libc.capset  # noqa: B018  (the lookup caches the function on the library object)
        ctypes.get_errno()


WARM_ROUNDS = 16
"""Runs of each warmed path in the zygote: CPython 3.11 specialises a function's bytecode in
place after its first few calls, and a sample process that did this itself would write (and so
copy) every page holding the code it runs."""
_REHEARSAL_PROGRAM = (
    "def f(*args, **kwargs):\n"
    "    if args and args[0] == 'raise':\n"
    "        raise ValueError('rehearsal')\n"
    "    return [args, kwargs, 1.5, 'x', None, True, {1: 2}, (1,), {3}, frozenset(), b'y', 2j, len, len(args)]\n"
    "class C:\n"
    "    pass\n"
    "def g():\n"
    "    return C()\n"
)
_REHEARSAL_CALLS: list = [
    ["call", ["name", "f"], ["L", [["I", "1"], ["S", "a"], ["L", [["F", "0.5"]]]]], ["D", [[["S", "k"], ["N"]]]]],
    ["call", ["name", "f"], ["L", [["S", "raise"]]], ["D", []]],
    ["lookup", "f"],
    ["call", ["name", "h"], ["L", []], ["D", []]],
    ["batch", [[["name", "f"], ["L", [["T", [["B", True]]]]], ["D", []]], [["name", "f"], ["L", []], ["D", []]]]],
    ["batch", [[["name", "g"], ["L", []], ["D", []]], [["name", "f"], ["L", []], ["D", []]]]],
]


def rehearse() -> None:
    """Serve a trusted program of our own in the zygote, as a sample process would (load it,
    answer calls, single and batched, results and errors), so that the code a sample process
    runs is already specialised and its lookups cached when the zygote forks one."""
    for _ in range(WARM_ROUNDS):
        mine, theirs = socket.socketpair()
        try:
            for message in _REHEARSAL_CALLS:
                send(theirs.fileno(), message)
            theirs.shutdown(socket.SHUT_WR)
            serve_solution(_REHEARSAL_PROGRAM, mine.fileno())
            theirs.setblocking(False)
            try:
                while theirs.recv(1 << 16):
                    pass
            except BlockingIOError:
                pass
        finally:
            mine.close()
            theirs.close()


def release_free_memory() -> None:
    """Hand the C heap's free pages back to the kernel before the first fork.

    What the warm-up freed stays mapped otherwise, and every fork would copy its page-table
    entries and every exit tear them down (the bootstrap did the same after compiling the
    harness). ``malloc_trim`` returns it (glibc; elsewhere nothing happens).
    """
    try:
        libc().malloc_trim(0)
    except Exception:
        pass


def run_solution_sandbox(config: dict) -> None:
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    _cap_structs()
    start_zygote()
    zygote = SolutionZygote(config)
    sample_environment(zygote.workdir)
    warm_capabilities()
    rehearse()
    import gc

    gc.collect()
    gc.freeze()  # what the warm-up made, out of the collector's reach too (see ``start_zygote``)
    release_free_memory()
    zygote.serve()


if __name__ == "__main__":
    run_solution_sandbox(json.loads(sys.argv[1]))
