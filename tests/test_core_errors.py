"""Every public exception of every package derives from ``RlvrEnvsError``.

The check reads the source (no imports: the trainers' and Ray's modules are heavy), resolves each
class's bases through the module's own imports, and walks up to a built-in. A class whose name
starts with ``_``, or that lives in a private module (``rlvr_code._sandbox_wire``: the sandbox's
side, which imports the standard library only), never reaches a user and is exempt; warnings are
categories, not errors, and exempt too.
"""

from __future__ import annotations

import ast
import builtins
from functools import cache
from pathlib import Path

from rlvr_envs import python_ast

REPO = Path(__file__).resolve().parents[1]
PACKAGES = {
    "rlvr_envs": REPO / "rlvr_envs",
    "rlvr_math": REPO / "envs" / "math" / "rlvr_math",
    "rlvr_code": REPO / "envs" / "code" / "rlvr_code",
    "rlvr_ifeval": REPO / "envs" / "ifeval" / "rlvr_ifeval",
    "rlvr_reasoning_gym": REPO / "envs" / "reasoning_gym" / "rlvr_reasoning_gym",
    "rlvr_lean": REPO / "envs" / "lean" / "rlvr_lean",
    "rlvr_judge": REPO / "envs" / "judge" / "rlvr_judge",
    "rlvr_trainers": REPO / "trainers" / "rlvr_trainers",
}
BASE = "rlvr_envs.errors.RlvrEnvsError"


def _modules() -> dict[str, Path]:
    found = {}
    for package, root in PACKAGES.items():
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


MODULES = _modules()


@cache
def _read(module: str) -> tuple[dict[str, list[ast.expr]], dict[str, str]]:
    """(class name -> base expressions, local name -> what it was imported as) of one module."""
    path = MODULES[module]
    tree = python_ast.parse_module(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    classes: dict[str, list[ast.expr]] = {}
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name not in classes:
            classes[node.name] = list(node.bases)
        elif isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*anchor, source] if source else anchor)
            for alias in node.names:
                names[alias.asname or alias.name] = f"{source}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:  # `import a.b` binds a; `import a.b as c` binds c to a.b
                bound = alias.asname or alias.name.split(".")[0]
                names[bound] = alias.name if alias.asname else bound
    return classes, names


def _dotted(expr: ast.expr) -> str | None:
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        head = _dotted(expr.value)
        return f"{head}.{expr.attr}" if head else None
    return None


def _resolve(module: str, name: str) -> str | None:
    """The qualified name of ``name`` as seen from ``module``: ``pkg.mod.Class`` or ``builtins.X``."""
    classes, names = _read(module)
    head, _, rest = name.partition(".")
    if not rest and head in classes:
        return f"{module}.{head}"
    if head in names:
        target = names[head] + (f".{rest}" if rest else "")
        owner, _, cls = target.rpartition(".")
        if owner in MODULES:
            return _resolve(owner, cls)
        if target in MODULES:  # `from pkg import module` then module.Class: handled by the rest
            return None
        return target
    if not rest and isinstance(getattr(builtins, head, None), type):
        return f"builtins.{head}"
    return None


@cache
def _ancestors(qualified: str) -> frozenset[str]:
    owner, _, cls = qualified.rpartition(".")
    if owner == "builtins":
        return frozenset(f"builtins.{c.__name__}" for c in getattr(builtins, cls).__mro__)
    if owner not in MODULES or cls not in _read(owner)[0]:
        return frozenset({qualified})
    found = {qualified}
    for base in _read(owner)[0][cls]:
        name = _dotted(base)
        resolved = _resolve(owner, name) if name else None
        if resolved:
            found |= _ancestors(resolved)
    return frozenset(found)


def public_exceptions() -> dict[str, frozenset[str]]:
    out = {}
    for module in MODULES:
        if any(part.startswith("_") for part in module.split(".")):
            continue
        for cls in _read(module)[0]:
            ancestors = _ancestors(f"{module}.{cls}")
            if cls.startswith("_") or "builtins.BaseException" not in ancestors:
                continue
            if "builtins.Warning" in ancestors:
                continue
            out[f"{module}.{cls}"] = ancestors
    return out


def test_the_walk_sees_the_exceptions_it_must_judge():
    found = public_exceptions()
    # A walk that resolved nothing would pass vacuously: these are known to exist, some through
    # another module's class (SandboxUnavailable -> SandboxError) or a relative import.
    for name in (
        "rlvr_envs.errors.DataError",
        "rlvr_envs.serve.protocol.BadRequest",
        "rlvr_code.sandbox.SandboxUnavailable",
        "rlvr_reasoning_gym.generation.DatasetConfigError",
        "rlvr_trainers.config.ConfigError",
    ):
        assert name in found, name
    assert len(found) >= 40


def test_every_public_exception_derives_from_rlvr_envs_error():
    strays = sorted(name for name, ancestors in public_exceptions().items() if BASE not in ancestors)
    assert strays == [], f"derive these from rlvr_envs.errors.RlvrEnvsError: {strays}"


def test_the_data_required_error_is_one_class_with_one_base():
    from rlvr_envs.errors import ConfigurationError, DataRequiredError, DataUnavailableError

    assert DataRequiredError.__bases__ == (DataUnavailableError,)
    assert not issubclass(DataRequiredError, (TypeError, ConfigurationError))
