"""The import graph of the project: no circle, and no arrow from the core up to a family or the trainers.

Walks the source with ``ast`` (no module is imported): every ``import`` counts, at module level
or inside a function (a lazy import is still a dependency), except those under
``if TYPE_CHECKING:`` (annotations only). ``from rlvr_envs import X`` counts as an arrow to the
module that defines ``X`` (``rlvr_envs.__init__`` exports names lazily). Run it alone with
``pytest tests/test_core_imports.py``; ``python tests/test_core_imports.py`` prints the graph.
"""

from __future__ import annotations

import ast
import functools
import sys
from collections.abc import Iterator
from pathlib import Path

from rlvr_envs import python_ast

ROOT = Path(__file__).resolve().parents[1]
CORE = "rlvr_envs"
TRAINERS = "rlvr_trainers"


def packages() -> dict[str, Path]:
    """Top-level package name -> its directory, for the core, every family and the trainers."""
    found = {CORE: ROOT / CORE}
    for parent in [*sorted((ROOT / "envs").glob("*")), ROOT / "trainers"]:
        for pkg in sorted(parent.glob("rlvr_*")):
            if (pkg / "__init__.py").exists():
                found[pkg.name] = pkg
    return found


def module_name(path: Path, pkg_dir: Path) -> str:
    rel = path.relative_to(pkg_dir.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, current: str, is_package: bool) -> Iterator[tuple[str, list[str]]]:
    """(module, imported names) for every runtime import in ``tree``."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = current.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            yield target, [a.name for a in node.names]
        stack.extend(ast.iter_child_nodes(node))


def core_exports() -> dict[str, str]:
    tree = python_ast.parse_module((ROOT / CORE / "__init__.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "_EXPORTS" for t in node.targets):
            return ast.literal_eval(node.value)
    return {}


@functools.cache
def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (computed once per session; callers must not mutate it)."""
    pkgs = packages()
    files: dict[str, Path] = {}
    for pkg_dir in pkgs.values():
        for path in pkg_dir.rglob("*.py"):
            files[module_name(path, pkg_dir)] = path
    exports = core_exports()
    graph: dict[str, set[str]] = {}
    for mod, path in files.items():
        edges: set[str] = set()
        tree = python_ast.parse_module(path.read_text(encoding="utf-8"))
        for target, names in _imports(tree, mod, path.name == "__init__.py"):
            if target.split(".")[0] not in pkgs:
                continue
            if target == CORE and names:
                edges.update(exports.get(n, CORE) for n in names)
                continue
            # ``from pkg import submodule`` is an arrow to the submodule.
            subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in files]
            edges.update(subs or [target])
        # A package's __init__ is not a dependency of its own submodules for this purpose.
        graph[mod] = {e for e in edges if e in files and e != mod}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(max(10_000, sys.getrecursionlimit()))

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def upward_arrows(graph: dict[str, set[str]]) -> list[str]:
    """The core importing a family or the trainers, or a family importing the trainers.

    (A family may build on another family's verifiers, as the judge does on math and IFEval.)
    """
    bad = []
    for mod, deps in sorted(graph.items()):
        top = mod.split(".")[0]
        for dep in sorted(deps):
            dep_top = dep.split(".")[0]
            if (top == CORE and dep_top != CORE) or (top != TRAINERS and dep_top == TRAINERS):
                bad.append(f"{mod} -> {dep}")
    return bad


# Known circles or upward arrows being removed in the current round of work (none left); a line
# here names one until its change lands.
PENDING: set[str] = set()


def test_the_import_graph_has_no_circle():
    found = [" <-> ".join(c) for c in cycles(import_graph())]
    assert [c for c in found if c not in PENDING] == [], "import circles:\n" + "\n".join(found)


def test_no_arrow_goes_up_from_the_core_to_a_family_or_the_trainers():
    found = upward_arrows(import_graph())
    assert [a for a in found if a not in PENDING] == [], "\n".join(found)


def test_the_walker_sees_lazy_imports_and_skips_type_checking_ones():
    tree = python_ast.parse_module(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import rlvr_envs.env\n"
        "def f():\n    from rlvr_envs.runtime.factory import get_pool\n    from . import specs\n"
    )
    assert sorted(_imports(tree, "rlvr_envs.registration", False)) == [
        ("rlvr_envs", ["specs"]),  # import_graph() turns it into an arrow to rlvr_envs.specs
        ("rlvr_envs.runtime.factory", ["get_pool"]),
        ("typing", ["TYPE_CHECKING"]),
    ]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


RUNTIME_NAMES = ("pool", "worker", "zygote", "handle", "jobs", "wire", "backend", "backends", "dispatch", "ray")
"""What the runtime's modules are named for: at the top of ``rlvr_envs`` any of these (or its
``_``-prefixed form, or a ``*pool*``/``*worker*`` module) means runtime code left outside
``rlvr_envs/runtime/``, where "how does a verification run" is answered from one folder."""


def loose_runtime_modules(core: Path = ROOT / CORE) -> list[str]:
    """Top-level modules or packages of the core named like runtime code (see ``RUNTIME_NAMES``)."""
    found = []
    for path in sorted(core.iterdir()):
        if path.name == "runtime" or path.name.startswith("__"):
            continue
        if path.suffix == ".py":
            name = path.stem
        elif path.is_dir() and (path / "__init__.py").exists():
            name = path.name
        else:
            continue
        bare = name.lstrip("_")
        if bare in RUNTIME_NAMES or any(word in bare for word in ("pool", "worker", "zygote")):
            found.append(path.name)
    return found


def test_the_runtime_lives_in_one_folder_with_no_loose_modules_left():
    assert loose_runtime_modules() == [], "runtime modules outside rlvr_envs/runtime/"
    graph = import_graph()
    # Nothing in the runtime reaches up to the env, the registry, the adapters or the server: they
    # call the runtime, never the other way round.
    up = sorted(
        f"{mod} -> {dep}"
        for mod, deps in graph.items()
        if mod.startswith(f"{CORE}.runtime")
        for dep in deps
        if dep.startswith(CORE)
        and not dep.startswith(f"{CORE}.runtime")
        and dep not in {f"{CORE}.types", f"{CORE}.verifier", f"{CORE}.errors"}
    )
    assert up == [], "\n".join(up)


def test_the_loose_module_check_fails_on_each_old_name(tmp_path):
    core = tmp_path / CORE
    core.mkdir()
    (core / "__init__.py").write_text("")
    (core / "env.py").write_text("")
    (core / "runtime").mkdir()
    (core / "runtime" / "__init__.py").write_text("")
    assert loose_runtime_modules(core) == []
    for name in ("pool.py", "_worker.py", "zygote.py", "_handle.py", "_pool_jobs.py", "_pool_verbs.py"):
        (core / name).write_text("")
        assert loose_runtime_modules(core) == [name]
        (core / name).unlink()
    (core / "backends").mkdir()
    (core / "backends" / "__init__.py").write_text("")
    assert loose_runtime_modules(core) == ["backends"]


if __name__ == "__main__":
    g = import_graph()
    for m in sorted(g):
        print(m, "->", ", ".join(sorted(g[m])) or "-")
    print("\ncircles:", cycles(g) or "none")
    print("upward arrows:", upward_arrows(g) or "none")
