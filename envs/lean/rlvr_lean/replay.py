"""Kernel replay: every declaration of a checked file sent to the kernel again, in a process of its own.

Lean writes the checked file's environment to an ``.olean`` (``lean -o``); this module, run as
``python -m rlvr_lean.replay LIB OLEAN`` in a separate process, loads Lean's own library
(``libleanshared.so``) through ``ctypes`` and calls Lean's ``Lean.Environment.replay`` (what
lean4checker runs) on the module's constants over an empty environment: each definition, theorem,
axiom, opaque and inductive is type-checked by the kernel again, and every constructor and recursor
must be the one the kernel generates. A declaration that reached the environment without the
kernel's check (``debug.skipKernelTC``, or meta code calling ``addDeclWithoutChecking``) is
refused here, whatever the first process printed. Nothing of the completion runs here: the kernel
only type-checks terms.

Where it applies: a Lean whose C ABI is the one written here (``SUPPORTED``: 4.35, where ``IO``
functions take no world token and return one object). A module without imports (a ``prelude``
file, as on the Lean 4.35 test kernel, ``rlvr_lean.test_kernel``) is replayed over an empty
environment; a module with imports (a Mathlib header) over the environment Lean's own
``Lean.importModules`` builds from the imported ``.olean`` files (found through ``LEAN_PATH`` and
the toolchain's ``lib/lean``, as ``lean`` finds them). The imports are the task's header, loaded,
not checked again: only the checked module's own declarations are replayed.

``importModules`` (4.35: ``imports opts trustLevel plugins leakEnv loadExts level arts``, eight
arguments, read from ``l_Lean_importModules___boxed``) is given the module's own ``imports`` array
as ``readModuleData`` returned it, so no ``Import`` structure (a name and Boolean scalars whose
number changed across versions) is built by hand; ``Options.empty`` is Lean's own constant, the
plugin list a fresh empty array, and the artifacts map the empty tree (``Impl.leaf``, the boxed
scalar 1). Round 9's attempt segfaulted; this one is run on the test kernel by
``tests/lean/test_lean_redteam_round10.py`` (a module importing another, its replay and a forged
constant refused over the imported environment).

The objects passed to Lean are built by hand from Lean's documented object layout: a header of
8 bytes (reference count, size, field count, tag) and pointer fields after it. Those built here
are made persistent (reference count 0), so Lean never frees them; the process is short-lived.
"""

from __future__ import annotations

import ctypes
import json
import os
import re
import resource
import subprocess
import sys

SUPPORTED = ("4.35.",)
"""Lean versions whose C ABI this module is written for."""
_P = ctypes.c_void_p


def library_for(lean: str) -> str | None:
    """``libleanshared.so`` of the toolchain (or test kernel) that ``lean`` runs, when found."""
    root = os.path.dirname(os.path.dirname(os.path.realpath(lean)))
    for sub in (("lib", "lean"), ("lib",)):
        path = os.path.join(root, *sub, "libleanshared.so")
        if os.path.isfile(path):
            return path
    return None


def unsupported_reason(lean: str, timeout_s: float = 30) -> str | None:
    """None when replay can run for ``lean``; else why not, in words."""
    if library_for(lean) is None:
        return f"no libleanshared.so beside {lean}"
    try:
        out = subprocess.run([lean, "--version"], capture_output=True, text=True, timeout=timeout_s).stdout
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`{lean} --version` failed: {exc}"
    found = re.search(r"version (\d+\.\d+\.\d+)", out)
    if found is None or not found.group(1).startswith(SUPPORTED):
        return f"replay is written for Lean {', '.join(SUPPORTED)}x's C ABI; this Lean says {out.strip()[:80]!r}"
    return None


class _Lean:
    """The few entry points of Lean's library that replay needs, and object access by layout."""

    def __init__(self, library: str) -> None:
        lib = ctypes.CDLL(library, mode=ctypes.RTLD_GLOBAL)
        signatures: dict[str, tuple[list, object]] = {
            "lean_initialize_runtime_module": ([], None),
            "lean_initialize": ([], None),
            "lean_io_mark_end_initialization": ([], None),
            "lean_init_task_manager": ([], None),
            "lean_mk_string": ([ctypes.c_char_p], _P),
            "lean_alloc_object": ([ctypes.c_size_t], _P),
            "lean_mk_array": ([_P, _P], _P),
            "lean_io_error_to_string": ([_P], _P),
            "l_Lean_readModuleData": ([_P], _P),
            "l_Lean_mkEmptyEnvironment": ([ctypes.c_uint32], _P),
            "l_Lean_Environment_replay": ([_P, _P], _P),
            "l_Lean_initSearchPath": ([_P, _P], _P),
            # imports, opts, trustLevel : UInt32, plugins, leakEnv, loadExts : Bool, level : OLeanLevel, arts
            "l_Lean_importModules": (
                [_P, _P, ctypes.c_uint32, _P, ctypes.c_uint8, ctypes.c_uint8, ctypes.c_uint8, _P],
                _P,
            ),
        }
        for name, (args, res) in signatures.items():
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = args, res
        self.lib = lib
        lib.lean_initialize_runtime_module()
        lib.lean_initialize()
        lib.lean_io_mark_end_initialization()
        lib.lean_init_task_manager()

    @staticmethod
    def field(obj: int, i: int) -> int:
        return ctypes.c_void_p.from_address(obj + 8 + 8 * i).value or 0

    @staticmethod
    def tag(obj: int) -> int:
        return ctypes.c_uint8.from_address(obj + 7).value

    @staticmethod
    def array(obj: int) -> list[int]:
        size = ctypes.c_size_t.from_address(obj + 8).value
        return [ctypes.c_void_p.from_address(obj + 24 + 8 * i).value or 0 for i in range(size)]

    @staticmethod
    def box(n: int) -> int:
        return (n << 1) | 1

    @staticmethod
    def string(obj: int) -> str:
        """A Lean ``String``: header, size, capacity, length, then the UTF-8 bytes with a NUL."""
        size = ctypes.c_size_t.from_address(obj + 8).value
        return ctypes.string_at(obj + 32, max(0, size - 1)).decode("utf-8", "replace")

    def ctor(self, tag: int, fields: list[int]) -> int:
        size = 8 + 8 * len(fields)
        obj = self.lib.lean_alloc_object(size)
        ctypes.c_int32.from_address(obj).value = 0  # persistent: Lean never frees it
        ctypes.c_uint16.from_address(obj + 4).value = size
        ctypes.c_uint8.from_address(obj + 6).value = len(fields)
        ctypes.c_uint8.from_address(obj + 7).value = tag
        for i, value in enumerate(fields):
            ctypes.c_void_p.from_address(obj + 8 + 8 * i).value = value
        return obj

    def io(self, result: int, what: str) -> int:
        """The value of an ``IO`` result (tag 0), or ``RuntimeError`` with Lean's message."""
        if self.tag(result) != 0:
            message = self.lib.lean_io_error_to_string(self.field(result, 0))
            raise RuntimeError(f"{what}: {self.string(message)}")
        return self.field(result, 0)


def load(lean: _Lean, olean: str) -> tuple[list[int], list[int], int]:
    """The module's constant names, their ``ConstantInfo``s and how many modules it imports."""
    module = _module(lean, olean)
    imports = lean.array(lean.field(module, 0))
    return lean.array(lean.field(module, 1)), lean.array(lean.field(module, 2)), len(imports)


def _module(lean: _Lean, olean: str) -> int:
    """The ``ModuleData`` of ``olean``: pointer fields imports, constNames, constants,
    extraConstNames, entries (in a compacted region: persistent, never freed)."""
    pair = lean.io(lean.lib.l_Lean_readModuleData(lean.lib.lean_mk_string(olean.encode())), "reading the module")
    return lean.field(pair, 0)


_OLEAN_LEVEL_PRIVATE = 2  # OLeanLevel: exported, server, private (everything, as a module without `module`)
_EMPTY_TREE = 1  # Std.DTreeMap.Internal.Impl.leaf, the second constructor with no fields: lean_box(1)


def imported_environment(lean: _Lean, olean: str, sysroot: str) -> int:
    """The environment of ``olean``'s imports, built by Lean's ``importModules`` (the search path:
    ``LEAN_PATH`` and ``sysroot/lib/lean``, as ``lean`` itself searches)."""
    lib = lean.lib
    lean.io(lib.l_Lean_initSearchPath(lib.lean_mk_string(sysroot.encode()), lean.box(0)), "the search path")
    imports = lean.field(_module(lean, olean), 0)  # Array Import, as the module recorded it
    options = ctypes.c_void_p.in_dll(lib, "l_Lean_Options_empty").value
    plugins = lib.lean_mk_array(lean.box(0), lean.box(0))
    env = lib.l_Lean_importModules(imports, options, 0, plugins, 0, 0, _OLEAN_LEVEL_PRIVATE, lean.box(_EMPTY_TREE))
    return lean.io(env, "importing the module's imports")


def check(lean: _Lean, names: list[int], constants: list[int], env: int | None = None) -> dict[str, object]:
    """``Lean.Environment.replay`` of ``names`` -> ``constants`` over ``env`` (default: an empty
    environment)."""
    if len(names) != len(constants):
        return {"ok": None, "error": "the module's names and constants differ in number"}
    # Std.HashMap Name ConstantInfo: {size, buckets} with one bucket, an association list
    # (cons key value tail), so that every hash lands in it
    bucket = lean.box(0)
    for name, info in zip(names, constants, strict=True):
        bucket = lean.ctor(1, [name, info, bucket])
    buckets = lean.lib.lean_mk_array(lean.box(1), bucket)
    ctypes.c_int32.from_address(buckets).value = 0
    table = lean.ctor(0, [lean.box(len(names)), buckets])
    if env is None:
        env = lean.io(lean.lib.l_Lean_mkEmptyEnvironment(0), "an empty environment")
    try:
        lean.io(lean.lib.l_Lean_Environment_replay(table, env), "replay")
    except RuntimeError as exc:
        return {"ok": False, "error": str(exc)[:2000]}
    return {"ok": True, "constants": len(names)}


def replay(library: str, olean: str, sysroot: str | None = None) -> dict[str, object]:
    """Replays ``olean``'s constants into the environment of its imports (empty when it has none):
    ``{"ok": True, "constants": n}``, ``{"ok": False, "error": the kernel's message}``, or
    ``{"ok": None, "error": why not}``. ``sysroot``: the toolchain's root (default: two levels
    above ``library``, where ``lib/lean`` holds Init's ``.olean`` files on a toolchain)."""
    lean = _Lean(library)
    names, constants, imports = load(lean, olean)
    if not imports:
        return check(lean, names, constants)
    folder = os.path.dirname(library)  # `<root>/lib/lean/` on a toolchain, `<root>/lib/` on the test kernel
    root = sysroot or os.path.dirname(os.path.dirname(folder) if os.path.basename(folder) == "lean" else folder)
    try:
        env = imported_environment(lean, olean, root)
    except RuntimeError as exc:
        return {"ok": None, "error": f"the imports could not be loaded: {exc}"[:2000]}
    return {**check(lean, names, constants, env), "imports": imports}


def run_checker(
    argv: list[str], budget_s: float, address_space_mb: float, max_rss_mb: float, lean_path: str | None = None
) -> dict[str, object]:
    """Runs ``python -m rlvr_lean.replay …`` (``argv``) within the budget: its JSON answer, or
    ``{"timeout": True}``, or ``{"ok": None, "error": …}`` when it gave none. ``lean_path``: the
    ``LEAN_PATH`` the checked file's imports were found through."""

    def limits() -> None:  # in the child between fork and exec
        cap = int(max(address_space_mb, max_rss_mb) * 1024 * 1024)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        resource.setrlimit(resource.RLIMIT_CPU, (int(budget_s) + 2, int(budget_s) + 3))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=budget_s,
            env={
                "PATH": "/usr/bin:/bin",
                "PYTHONPATH": os.pathsep.join(sys.path),
                **({"LEAN_PATH": lean_path} if lean_path else {}),
            },
            start_new_session=True,
            preexec_fn=limits,
        )
    except subprocess.TimeoutExpired:
        return {"timeout": True}
    except OSError as exc:
        return {"ok": None, "error": f"the replay could not start: {exc}"}
    lines = done.stdout.strip().splitlines()
    try:
        answer = json.loads(lines[-1]) if lines else None
    except ValueError:
        answer = None
    if not isinstance(answer, dict):
        return {"ok": None, "error": f"the replay gave no answer (exit {done.returncode}): {done.stderr[-300:]}"}
    return answer


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print("usage: python -m rlvr_lean.replay LIBLEANSHARED OLEAN [SYSROOT]", file=sys.stderr)
        return 2
    try:
        result = replay(argv[0], argv[1], argv[2] if len(argv) == 3 else None)
    except (OSError, RuntimeError, AttributeError) as exc:
        result = {"ok": None, "error": f"{type(exc).__name__}: {exc}"[:2000]}
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
