"""Kattis problem packages (the ICPC / Kattis problem-package format) from a local copy.

A package is a folder with ``problem.yaml``; ``KattisEnv(path)`` (the id ``code-kattis-v3``) takes
one package or a folder of them; without one, the four example problems of Kattis' ``problemtools``
sources that ``scripts/fetch_kattis_examples.sh`` fetches (``$RLVR_KATTIS_EXAMPLES``, else
``~/.cache/rlvr-envs/kattis-examples``: ``examples_dir``). Each becomes a stdin/stdout task of the
contest family:

* cases: ``data/sample/**/*.in`` with their ``.ans`` (public, in path order), then
  ``data/secret/**/*.in`` (hidden); a sample shown only as an ``.interaction`` transcript has no
  case. Symbolic links are followed only inside the package.
* judging: the default validator becomes the built-in checker (tokens, letters ignoring case
  unless ``case_sensitive``; ``float_tolerance``/``float_absolute_tolerance``/
  ``float_relative_tolerance`` a float one); a custom output validator (one C, C++ or Python
  source, its local ``#include "..."`` headers inlined) a special judge, an interactive problem's
  an interactor, both speaking Kattis' protocol (``kattis_protocol``).
* ``canonical_solution``: the first of ``submissions/accepted`` in the task's first language (a
  Python file that Python 3 cannot compile, e.g. a Python 2 one, is not Python).
* a stated ``limits.time_limit`` (2023-07 format) is the per-case limit; legacy packages state
  none (Kattis derives it from the accepted submissions): ``rlvr-envs code calibrate`` measures one.
* a stated ``limits.memory`` (MiB) is ``answer["memory_limit_mb"]``: ``KattisVerifier`` lowers each
  solution process's address-space limit to it (never raises it; the sample's total bound stays
  the verifier's, so a language the runner bounds by the total alone, Java or Go, keeps that one).

Scoring problems (``type: scoring``) are judged pass/fail over all cases, and left out where
their own validator grades answers (``score.txt``: a score is not a pass); validators that need
flags of their own, several source files or a build script, and multi-pass problems are left out
(``env.skipped`` says why).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from rlvr_code.contests.envs import ContestEnv
from rlvr_code.contests.rows import Problem, Untestable, build_task
from rlvr_code.contests.verifier import ContestVerifier
from rlvr_code.envs import RowPlace, SourcedRow
from rlvr_code.limits import parse_seconds
from rlvr_code.verifier import CodeVerifier, accepted_languages
from rlvr_envs.errors import ConfigurationError, DataError, DataUnavailableError

_EXTENSIONS = {".py": "python", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c": "c"}
_SOLUTION_EXTENSIONS = {
    **_EXTENSIONS,
    ".java": "java",
    ".js": "javascript",
    ".go": "go",
    ".rs": "rust",
}
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"/\\]+)"[ \t]*$', re.MULTILINE)
_MAX_FILE = 64 << 20
"""Bytes of one test file read into a task."""
EXAMPLES_VAR = "RLVR_KATTIS_EXAMPLES"
FETCH_SCRIPT = "scripts/fetch_kattis_examples.sh"


def examples_dir() -> Path:
    """Where ``FETCH_SCRIPT`` puts Kattis' example packages: ``$RLVR_KATTIS_EXAMPLES``, else
    ``~/.cache/rlvr-envs/kattis-examples`` (the script's own default; keep the two the same)."""
    chosen = os.environ.get(EXAMPLES_VAR, "").strip()
    return Path(chosen).expanduser() if chosen else Path.home() / ".cache" / "rlvr-envs" / "kattis-examples"


def missing_examples(folder: Path) -> str | None:
    """Why ``folder`` is not a fetched copy of the examples (None when it is one)."""
    if (folder / "different" / "problem.yaml").is_file():
        return None
    return (
        f"code-kattis: no Kattis example packages in {folder}: run {FETCH_SCRIPT} (PyPI, ~1 s; "
        f"`make setup` runs it), set {EXAMPLES_VAR}, or pass data= a problem package folder or a folder of them"
    )


def package_dirs(root: str | Path) -> list[Path]:
    """``root`` if it is a package (holds ``problem.yaml``), else its sub-folders that are."""
    base = Path(root)
    if (base / "problem.yaml").is_file():
        return [base]
    if not base.is_dir():
        raise DataError(f"code-kattis: {str(base)!r} is not a folder")
    found = sorted(p for p in base.iterdir() if p.is_dir() and (p / "problem.yaml").is_file())
    if not found:
        raise DataError(f"code-kattis: no problem package (a folder with problem.yaml) in {str(base)!r}")
    return found


def _inside(package: Path, path: Path) -> bool:
    try:
        path.resolve(strict=True).relative_to(package.resolve())
    except (OSError, ValueError):
        return False
    return True


def _read(package: Path, path: Path) -> str:
    if not _inside(package, path):
        raise DataError(f"code-kattis: {path} points outside its package")
    if path.stat().st_size > _MAX_FILE:
        raise DataError(f"code-kattis: {path} is larger than {_MAX_FILE >> 20} MB")
    return path.read_text(encoding="utf-8", errors="replace")


def _cases(package: Path, group: str) -> list[tuple[str, str, Path]]:
    """``(input, answer, input path)`` of ``data/<group>/**/*.in`` in path order (an ``.in`` without
    its ``.ans`` is refused; an interactive problem's answers may be empty files)."""
    folder = package / "data" / group
    if not folder.is_dir():
        return []
    found = []
    for given in sorted(folder.rglob("*.in"), key=lambda p: p.relative_to(folder).parts):
        answer = given.with_suffix(".ans")
        if not answer.exists():
            raise DataError(f"code-kattis: {given} has no {answer.name}")
        found.append((_read(package, given), _read(package, answer), given))
    return found


def _yaml(path: Path) -> Mapping[str, Any]:
    try:
        import yaml
    except ImportError:
        raise ConfigurationError("code-kattis reads problem.yaml with PyYAML: pip install pyyaml") from None
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise DataError(f"code-kattis: {path} is not valid YAML: {exc}") from None
    if loaded is None:
        return {}
    if not isinstance(loaded, Mapping):
        raise DataError(f"code-kattis: {path} must hold a mapping")
    return loaded


def _statement(package: Path) -> str:
    for folder in ("statement", "problem_statement"):
        for name in ("problem.en.md", "problem.en.tex", "problem.md", "problem.tex"):
            path = package / folder / name
            if path.is_file():
                return _read(package, path)
    for path in sorted((package / "statement").glob("problem.*")) + sorted(
        (package / "problem_statement").glob("problem.*")
    ):
        if path.suffix in (".md", ".tex"):
            return _read(package, path)
    raise DataError(f"code-kattis: {package} has no problem statement")


def _name(config: Mapping[str, Any], package: Path) -> str:
    name = config.get("name")
    if isinstance(name, Mapping):
        name = name.get("en") or next(iter(name.values()), None)
    return str(name) if name else package.name


def _kind(config: Mapping[str, Any], package: Path, shipped_validator: bool = True) -> tuple[bool, bool]:
    """``(custom validator, interactive)`` from the legacy ``validation`` or 2023-07 ``type``.

    In the legacy format ``validation: custom`` names the package's ``output_validators/``; in the
    2023-07 format (``problem_format_version`` stated) a package that ships ``output_validator/``
    (or the legacy folder name) is judged by it, whatever its type: "if no custom output validator
    is specified, the default validator is used" (the format's Output Validator section). Judging
    such a package by the default validator refused every honest answer the ``.ans`` does not
    spell: a float within the tolerance the validator allows, any other valid answer of a
    multiple-answer problem (red team round 12). ``shipped_validator=False`` is ``code-kattis-v3``'s
    reading (the type alone names a custom validator).

    A scoring problem whose own validator grades each answer is left out: its exit 42 means "a
    valid answer, scored" (the score in ``score.txt``), so a pass/fail reward reading the 42
    would pay every feasible answer of an optimisation problem, the empty one included (red team
    round 11). That is the legacy ``validation: custom score`` and, in the 2023-07 format, where
    any output validator of a scoring problem may write ``score.txt``, ``type: scoring`` with a
    validator (the package ships one, whether or not this loader reads it). A scoring problem
    judged by the default validator, or by a legacy ``custom`` validator without ``score``
    (Kattis ignores a score.txt there), is pass/fail per case: kept."""
    kinds = config.get("type", "pass-fail")
    words = set(kinds.split() if isinstance(kinds, str) else [str(k) for k in kinds or ()])
    validation = str(config.get("validation") or "default").split()
    if "multi-pass" in words:
        raise Untestable(f"code-kattis: {config.get('name')!r} is multi-pass (not supported)")
    interactive = "interactive" in words or "interactive" in validation
    legacy = "problem_format_version" not in config
    shipped = any((package / folder).is_dir() for folder in ("output_validator", "output_validators"))
    custom = interactive or validation[0] == "custom" or "custom" in words
    custom = custom or (shipped_validator and not legacy and shipped)
    if ("score" in validation[1:] and custom) or (not legacy and "scoring" in words and (custom or shipped)):
        raise Untestable(
            f"code-kattis: {package.name} is a scoring problem whose validator grades answers (score.txt): "
            "its acceptance is a score, not a pass (not supported)"
        )
    return custom, interactive


def _words(value: Any, where: Path) -> list[str] | None:
    """Validator arguments as stated: a string split at whitespace (legacy ``*_flags``) or a list
    of strings (2023-07 ``output_validator_args``); None where not stated."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.split()
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
        return [str(v) for v in value]
    raise DataError(f"code-kattis: {where}: validator arguments must be a string or a list of strings")


def _legacy_flags(config: Mapping[str, Any], package: Path) -> list[str]:
    """``code-kattis-v3``'s reading: ``validator_flags``, else ``data/testdata.yaml``'s."""
    flags: Any = config.get("validator_flags")
    if flags is None:
        flags = _yaml(package / "data" / "testdata.yaml").get("output_validator_flags")
    if isinstance(flags, str):
        return flags.split()
    return [str(f) for f in flags or ()]


_GROUP_FILES = ("test_group.yaml", "testdata.yaml")  # 2023-07's name, then the legacy one
_ARG_KEYS = ("output_validator_args", "output_validator_flags")


def _stated_args(path: Path, cache: dict[Path, list[str] | None]) -> list[str] | None:
    if path not in cache:
        settings = _yaml(path) if path.is_file() else {}
        found = next((settings[key] for key in _ARG_KEYS if key in settings), None)
        cache[path] = _words(found, path)
    return cache[path]


def case_flags(config: Mapping[str, Any], package: Path, given: Path, cache: dict[Path, list[str] | None]) -> list[str]:
    """The output validator's arguments for the case whose input is ``given``, as the format
    states them: ``problem.yaml``'s ``validator_flags`` (legacy), then the case's own ``.yaml``
    (2023-07) or else the nearest test group's ``test_group.yaml``/``testdata.yaml`` from the
    case's folder up to ``data/`` (a group inherits its parent's unless it states its own)."""
    flags = list(_words(config.get("validator_flags"), package / "problem.yaml") or ())
    own = _stated_args(given.with_suffix(".yaml"), cache)
    if own is not None:
        return flags + own
    data = package / "data"
    folder = given.parent
    while True:
        for name in _GROUP_FILES:
            stated = _stated_args(folder / name, cache)
            if stated is not None:
                return flags + stated
        if folder == data or data not in folder.parents:
            return flags
        folder = folder.parent


def default_checker(flags: list[str]) -> dict[str, Any]:
    """The Kattis default validator's options as a built-in checker spec."""
    spec: dict[str, Any] = {"type": "tokens", "case_sensitive": "case_sensitive" in flags}
    if "space_change_sensitive" in flags:
        spec["space_sensitive"] = True  # each whitespace character compared (round 13: it was ignored)
    names = {
        "float_tolerance": ("abs_tol", "rel_tol"),
        "float_absolute_tolerance": ("abs_tol",),
        "float_relative_tolerance": ("rel_tol",),
    }
    at = 0
    while at < len(flags):
        flag = flags[at]
        if flag in names:
            try:
                value = float(flags[at + 1])
            except (IndexError, ValueError):
                raise DataError(f"code-kattis: validator flag {flag} needs a number") from None
            spec["type"] = "float"
            spec.setdefault("abs_tol", 0.0)
            spec.setdefault("rel_tol", 0.0)
            for key in names[flag]:
                spec[key] = value
            at += 2
            continue
        if flag not in ("case_sensitive", "space_change_sensitive"):
            raise DataError(f"code-kattis: unknown default validator flag {flag!r}")
        at += 1
    return spec


def validator_source(package: Path) -> tuple[str, str]:
    """``(language, source)`` of the package's one output validator, its local headers inlined."""
    roots = [package / "output_validator", package / "output_validators"]
    candidates = [p for root in roots if root.is_dir() for p in sorted(root.rglob("*")) if p.is_file()]
    if any(p.name in ("build", "run", "Makefile") for p in candidates):
        raise Untestable(f"code-kattis: {package.name}'s validator is built by a script (not supported)")
    mains = [p for p in candidates if p.suffix in _EXTENSIONS]
    if len(mains) != 1:
        raise Untestable(f"code-kattis: {package.name} needs one validator source file, found {len(mains)}")
    main = mains[0]
    language = _EXTENSIONS[main.suffix]
    source = _read(package, main)
    if language != "python":
        seen: set[str] = set()

        def inline(found: re.Match[str]) -> str:
            header = main.parent / found.group(1)
            if not header.is_file():
                return found.group(0)  # a system header
            if found.group(1) in seen:
                return ""
            seen.add(found.group(1))
            return _INCLUDE.sub(inline, _read(package, header))

        source = _INCLUDE.sub(inline, source)
    return language, source


def _python3(source: str) -> bool:
    if source.startswith("#!") and "python2" in source.splitlines()[0]:
        return False
    try:
        compile(source, "<submission>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def accepted_submissions(package: Path) -> dict[str, list[str]]:
    """``{language: [source, ...]}`` of ``submissions/accepted`` (one-file submissions)."""
    folder = package / "submissions" / "accepted"
    found: dict[str, list[str]] = {}
    for path in sorted(folder.glob("*")) if folder.is_dir() else []:
        language = _SOLUTION_EXTENSIONS.get(path.suffix)
        if language is None or not path.is_file():
            continue
        source = _read(package, path)
        if language == "python" and not _python3(source):
            continue
        found.setdefault(language, []).append(source)
    return found


VALIDATORS = ("format", "v3")
"""How a package names its output validator: ``format`` (``code-kattis-v4``), as the format says
(a 2023-07 package that ships one uses it; arguments per test group and case); ``v3``, as
``code-kattis-v3`` read it (the type alone; ``validator_flags`` or ``data/testdata.yaml``'s only,
a custom validator with arguments left out)."""


def _validator_args(
    config: Mapping[str, Any], package: Path, given: list[Path], validators: str, custom: bool
) -> list[str]:
    """The one argument list every case's validator gets (a package whose cases differ is left
    out: a task has one checker)."""
    if validators == "v3":
        flags = _legacy_flags(config, package)
        if custom and flags:
            raise Untestable(f"code-kattis: {package.name}'s custom validator takes flags {flags} (not supported)")
        return flags
    cache: dict[Path, list[str] | None] = {}
    stated = {tuple(case_flags(config, package, path, cache)) for path in given}
    if len(stated) > 1:
        raise Untestable(
            f"code-kattis: {package.name}'s validator arguments differ between test cases "
            f"({len(stated)} lists; not supported)"
        )
    return list(next(iter(stated), ()))


def read_package(
    package: Path, language: str | list[str] = "python", validators: str = "format"
) -> tuple[Problem, dict[str, Any]]:
    """The package's problem and its ``{"checker": spec}`` (None for an interactive problem, whose
    validator is ``problem.interactor``); ``validators``: one of ``VALIDATORS``."""
    if validators not in VALIDATORS:
        raise ConfigurationError(f"code-kattis: validators must be one of {VALIDATORS}, got {validators!r}")
    config = _yaml(package / "problem.yaml")
    custom, interactive = _kind(config, package, shipped_validator=validators == "format")
    public, hidden = _cases(package, "sample"), _cases(package, "secret")
    if not public + hidden:
        raise Untestable(f"code-kattis: {package.name} has no test data")
    stated = config.get("limits")
    limits: Mapping[str, Any] = stated if isinstance(stated, Mapping) else {}
    solutions = accepted_submissions(package)
    first = accepted_languages(language)[0] if accepted_languages(language) else "python"
    metadata: dict[str, Any] = {"source": "kattis", "package": package.name}
    for key in ("source", "license", "uuid"):
        if isinstance(config.get(key), str):
            metadata["platform" if key == "source" else key] = config[key]
    if isinstance(limits.get("memory"), int):
        metadata["memory_limit_bytes"] = limits["memory"] << 20
    if isinstance(config.get("type"), str):
        metadata["kattis_type"] = config["type"]
    problem = Problem(
        id=f"kattis/{package.name}",
        statement=_statement(package).strip() + f"\n\n(Problem: {_name(config, package)})",
        inputs=[given for given, _, _ in public + hidden],
        outputs=[answer for _, answer, _ in public + hidden],
        public_count=len(public),
        solution=next(iter(solutions.get(first, ())), None),
        time_limit_s=parse_seconds(limits.get("time_limit")),
        metadata=metadata,
        files={},
    )
    flags = _validator_args(config, package, [path for _, _, path in public + hidden], validators, custom)
    if not custom:
        return problem, {"checker": default_checker(flags)}
    validator_language, source = validator_source(package)
    spec: dict[str, Any] = {"language": validator_language, "source": source, "protocol": "kattis"}
    if flags:
        spec["args"] = flags  # after input, answer and feedback_dir, as Kattis passes them
    if interactive:
        problem.interactor = spec
        return problem, {"checker": None}
    return problem, {"checker": {"type": "program", **spec}}


MEMORY_KEY = "memory_limit_mb"
"""In ``Task.answer``: the package's stated memory limit in MiB (``limits.memory``)."""


class KattisVerifier(ContestVerifier):
    """``ContestVerifier`` that also holds a task to its package's stated memory limit."""

    def task_limits(self, answer: dict[str, Any]) -> dict[str, Any]:
        limits = super().task_limits(answer)
        stated = answer.get(MEMORY_KEY)
        if isinstance(stated, int) and not isinstance(stated, bool) and stated > 0:
            limits["memory_mb"] = min(int(limits["memory_mb"]), stated)
        return limits


class KattisEnv(ContestEnv):
    """Problems in the Kattis problem-package format from a local copy.

    Args:
        data: a package folder (with ``problem.yaml``) or a folder of packages (alias ``path=``);
            default ``examples_dir()``, Kattis' example packages (``DataUnavailableError`` naming
            ``FETCH_SCRIPT`` where they were not fetched).
        language: as ``ContestEnv``; the reference is the first accepted submission in the first one.
        validators: how a package names its output validator (``VALIDATORS``): ``"format"``
            (``code-kattis-v4``, the default) or ``"v3"`` (``code-kattis-v3``).
    """

    env_name: ClassVar[str] = "code-kattis"
    verifier_class: ClassVar[type[CodeVerifier]] = KattisVerifier

    def __init__(
        self, data: Any = None, *, path: str | Path | None = None, validators: str = "format", **kwargs: Any
    ) -> None:
        if validators not in VALIDATORS:
            raise ConfigurationError(f"code-kattis: validators must be one of {VALIDATORS}, got {validators!r}")
        self.validators = validators
        root = data if data is not None else path
        if root is None:
            root = examples_dir()
            why = missing_examples(root)
            if why is not None:
                raise DataUnavailableError(why)
        if not isinstance(root, (str, os.PathLike)):
            raise ConfigurationError(
                "code-kattis reads a local copy: pass data= a problem package folder or a folder of them "
                f"({FETCH_SCRIPT} fetches problemtools' examples)"
            )
        self._judges: dict[str, dict[str, Any]] = {}
        kwargs.setdefault("file_io", False)
        super().__init__(Path(root).expanduser(), **kwargs)

    def _sourced_rows(self) -> list[SourcedRow]:
        source = str(self.data)
        return [(source, number, {"package": str(p)}) for number, p in enumerate(package_dirs(self.data), start=1)]

    def _row_task(self, index: int, place: RowPlace, row: Any) -> Any:
        try:
            problem, judge = read_package(Path(row["package"]), self.language, self.validators)
        except Untestable as exc:
            self.skipped.append(str(exc))
            return None
        checker = self.checkers.get(problem.id, judge["checker"])
        try:
            task = build_task(problem, place, language=self.language, checker=checker, time_factors=self.time_factors)
        except Untestable as exc:  # tests a program doing nothing, or answering blindly, passes
            self.skipped.append(str(exc))
            return None
        memory = problem.metadata.get("memory_limit_bytes")
        if task is not None and isinstance(memory, int) and isinstance(task.answer, dict):
            task.answer[MEMORY_KEY] = memory >> 20
        return task
