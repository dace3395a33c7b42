"""Contest presets: ``code-contests`` (CodeContests), ``code-taco``, ``code-apps`` and
``code-livecodebench`` (LiveCodeBench code generation), from the Hub or a local copy.

Each loads its set's rows (``data=``/``path=``: a local copy in any form the core loader reads;
else the Hub through ``rlvr_envs.data.load_hub``, which fails at ``make`` with the option to use
when the Hub cannot be reached) and maps them through ``sets`` and ``rows`` into stdio or asserts
tasks verified by ``ContestVerifier``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

from rlvr_code.contests.rows import Untestable, build_task
from rlvr_code.contests.sets import apps_problem, codecontests_problem, livecodebench_problem, taco_problem
from rlvr_code.envs import CodeEnv, RowPlace, SourcedRow, _data_or_path, _hub_hint
from rlvr_code.limits import STATED_LIMIT_FACTORS, stated_limit_factors
from rlvr_code.verifier import accepted_languages
from rlvr_envs.data import hub_offline_reason, load_hub
from rlvr_envs.errors import ConfigurationError, DataError
from rlvr_envs.formats import PromptFormat
from rlvr_envs.types import Task

_SHOWN = {"cpp": "C++", "javascript": "JavaScript", "java": "Java (the program declares class Main)"}


def language_format(accepted: list[str]) -> PromptFormat:
    """The prompt format of a task set answered in ``accepted`` languages (the ``code`` format
    asks for Python): one fenced block tagged with its language, which the verifier routes by."""
    names = " or ".join(_SHOWN.get(name, name.capitalize()) for name in accepted)
    tags = ", ".join(f"```{name}" for name in accepted)
    return PromptFormat(
        name="code-" + "-".join(accepted),
        system_prompt=None,
        instruction=f"Write your solution in {names} inside one code block fenced with its language ({tags}).",
        answer_template="{answer}",  # gold completions arrive fenced (CodeEnv.gold_completion)
        format_pattern=r".*```[A-Za-z0-9_+.\-]+[ \t]*\n.*?```.*",
    )


class ContestEnv(CodeEnv):
    """A contest set. Options beyond ``code-python``'s:

    Args:
        data: a local copy (alias ``path=``) with the set's own columns; without it, the Hub.
        split: the split to load (default ``test``; of a local ``DatasetDict`` too).
        language: the language(s) a completion may answer in, ``"python"`` (default), ``"cpp"``,
            or a list (the completion's fence tag chooses); problems that call a function stay Python.
        checker: ``"auto"`` (default: a float checker at the tolerance the statement states, in
            any language it is written in (``-v5``; ``"auto-v4"``: round 14's reading, ``-v4``;
            ``"auto-english"``: in English only, ``-v3``),
            else whitespace-insensitive tokens), ``None`` (lines, exactly, as ``code-python``) or a
            checker spec (``rlvr_code.contests.checkers``) for every task.
        checkers: ``{task id: checker spec}`` for the problems that need their own, e.g. a special
            judge for a problem with many right answers (the sets ship none); an id that names
            no task of the set is refused.
        time_factors: ``{language: factor}``: the set's stated per-case limit (set for C++) times
            the factor of the language a completion answers in (``-v2`` default:
            ``limits.STATED_LIMIT_FACTORS``, e.g. Python 5x, Java 2x; a language not named: 1x);
            ``None`` (``-v1``): the stated limit in every language.
        file_io: a stdin/stdout problem whose statement names ``input.txt``/``output.txt`` reads
            and writes those files (``answer["io"]``; default True; ``-v1``: False).
    """

    hub_name: ClassVar[str] = ""
    hub_file: ClassVar[str] = "rows.jsonl"
    default_split: ClassVar[str] = "test"
    public_metadata_keys: ClassVar[tuple[str, ...]] = (
        "source",
        "platform",
        "difficulty",
        "language",
        "case_time_limit_s",
    )

    def __init__(
        self,
        data: Any = None,
        *,
        path: str | Path | None = None,
        language: str | list[str] = "python",
        checker: Any = "auto",
        checkers: Mapping[str, Any] | None = None,
        time_factors: Mapping[str, float] | None = STATED_LIMIT_FACTORS,
        file_io: bool = True,
        **kwargs: Any,
    ) -> None:
        accepted = accepted_languages(language)
        if not accepted:
            raise ConfigurationError(f"{self.env_name}: unknown language {language!r}")
        if accepted != ["python"] and kwargs.get("prompt_format") is None:
            kwargs["prompt_format"] = language_format(accepted)
        if checkers is not None and not isinstance(checkers, Mapping):
            raise ConfigurationError(f"{self.env_name}: checkers= maps task ids to checker specs")
        try:
            self.time_factors = None if time_factors is None else stated_limit_factors(time_factors)
        except ValueError as exc:
            raise ConfigurationError(f"{self.env_name}: time_factors: {exc}") from None
        self.file_io = bool(file_io)
        self.language = language
        self.checker = checker
        self.checkers = dict(checkers or {})
        super().__init__(_data_or_path(self.env_name, data, path), **kwargs)
        if self.skipped:
            warnings.warn(
                f"{self.env_name}: left out {len(self.skipped)} rows without tests or without a test the prompt "
                "hides (env.skipped), "
                f"e.g. {self.skipped[0]}",
                stacklevel=2,
            )
        unknown = sorted(set(self.checkers) - {task.id for task in self._loaded})
        if unknown:
            raise ConfigurationError(f"{self.env_name}: checkers= names tasks the set does not have: {unknown[:5]}")

    @property
    def path(self) -> Any:
        return self.data

    def _hub_files(self) -> list[str] | None:
        """Files of the Hub repository to read (a set whose loading script ``datasets`` no longer
        runs); None: the repository's own layout."""
        return None

    def _sourced_rows(self) -> list[SourcedRow]:
        if self.data is not None:
            return self._user_rows(self.split)
        split = self.split or self.default_split
        hint = _hub_hint(self.env_name, self.hub_file)
        files = self._hub_files()
        # Offline, no data_files: load_hub then fails at once naming data= (it cannot tell a
        # repository's files from local ones, so it does not check the Hub for them).
        data_files = {split: files} if files is not None and hub_offline_reason() is None else None
        rows = load_hub(self.hub_name, split=split, env_name=self.env_name, option_hint=hint, data_files=data_files)
        return [(f"{self.hub_name}[{split}]", number, row) for number, row in enumerate(rows, start=1)]

    def _problem(self, row: Mapping[str, Any], place: RowPlace, index: int) -> Any:
        raise NotImplementedError

    def _build(self, rows: list[SourcedRow]) -> list[Task]:
        tasks = super()._build(rows)
        if not tasks and self.skipped:
            raise DataError(f"{self.env_name}: no row holds a test ({len(self.skipped)} rows, e.g. {self.skipped[0]})")
        return tasks

    def _row_task(self, index: int, place: RowPlace, row: Any) -> Task | None:
        try:
            problem = self._problem(row, place, index)
            checker = self.checkers.get(problem.id, self.checker)
            return build_task(
                problem,
                place,
                language=self.language,
                checker=checker,
                time_factors=self.time_factors,
                file_io=self.file_io,
            )
        except Untestable as exc:  # no tests, or tests a program doing nothing passes
            self.skipped.append(str(exc))
            return None


class CodeContestsEnv(ContestEnv):
    """CodeContests (DeepMind): public, private and generated tests, the stated time limit.

    Args:
        generated_tests: include ``generated_tests`` as hidden cases (default True).
    """

    env_name: ClassVar[str] = "code-contests"
    hub_name: ClassVar[str] = "deepmind/code_contests"
    hub_file: ClassVar[str] = "code_contests_test.jsonl"

    def __init__(self, data: Any = None, *, generated_tests: bool = True, **kwargs: Any) -> None:
        self.generated_tests = bool(generated_tests)
        super().__init__(data, **kwargs)

    def _problem(self, row: Mapping[str, Any], place: RowPlace, index: int) -> Any:
        first = accepted_languages(self.language)[0]
        return codecontests_problem(row, place, language=first, generated=self.generated_tests)


class TacoEnv(ContestEnv):
    """TACO (BAAI): stdin/stdout and call-based (``fn_name``) problems, the stated time limit."""

    env_name: ClassVar[str] = "code-taco"
    hub_name: ClassVar[str] = "BAAI/TACO"
    hub_file: ClassVar[str] = "taco_test.jsonl"

    def _problem(self, row: Mapping[str, Any], place: RowPlace, index: int) -> Any:
        return taco_problem(row, place, index)


class AppsEnv(ContestEnv):
    """APPS: stdin/stdout and call-based problems, difficulty introductory/interview/competition.

    Args:
        level: ``"all"`` (default), ``"introductory"``, ``"interview"`` or ``"competition"``: the
            rows whose ``difficulty`` is that (the Hub's configs by that name need its loading
            script, which ``datasets`` 4+ no longer runs; its ``train.jsonl``/``test.jsonl`` load).
    """

    env_name: ClassVar[str] = "code-apps"
    hub_name: ClassVar[str] = "codeparrot/apps"
    hub_file: ClassVar[str] = "apps_test.jsonl"
    levels: ClassVar[tuple[str, ...]] = ("all", "introductory", "interview", "competition")

    def __init__(self, data: Any = None, *, level: str = "all", **kwargs: Any) -> None:
        if level not in self.levels:
            raise ConfigurationError(f"code-apps: unknown level {level!r}; choose one of {self.levels}")
        self.level = level
        super().__init__(data, **kwargs)

    def _sourced_rows(self) -> list[SourcedRow]:
        rows = super()._sourced_rows()
        if self.level == "all":
            return rows
        return [(s, n, r) for s, n, r in rows if isinstance(r, Mapping) and r.get("difficulty") == self.level]

    def _problem(self, row: Mapping[str, Any], place: RowPlace, index: int) -> Any:
        return apps_problem(row, place, index)


def _lcb_file(release: int) -> str:
    return "test.jsonl" if release == 1 else f"test{release}.jsonl"


LCB_FILES: dict[str, list[str]] = {
    **{f"release_v{n}": [_lcb_file(r) for r in range(1, n + 1)] for n in range(1, 7)},
    **{f"v{n}": [_lcb_file(n)] for n in range(1, 7)},
    "release_latest": [_lcb_file(r) for r in range(1, 7)],
}
"""LiveCodeBench's releases as its files on the Hub (its loading script's mapping)."""


class LiveCodeBenchEnv(ContestEnv):
    """LiveCodeBench code generation: stdin/stdout (AtCoder, Codeforces) and functional (LeetCode).

    Args:
        version: ``release_v1`` ... ``release_v6`` (default ``release_v5``; ``release_latest`` is
            v6): the problems up to that release, as the set's loading script names them, read from
            its files (``test.jsonl``, ``test2.jsonl``...: one per release); ``v1`` ... ``v6``: the
            problems that release added.
    """

    env_name: ClassVar[str] = "code-livecodebench"
    hub_name: ClassVar[str] = "livecodebench/code_generation_lite"
    hub_file: ClassVar[str] = "livecodebench_test.jsonl"

    def __init__(self, data: Any = None, *, version: str = "release_v5", **kwargs: Any) -> None:
        if version not in LCB_FILES:
            raise ConfigurationError(
                f"code-livecodebench: unknown version {version!r}; choose one of {sorted(LCB_FILES)}"
            )
        self.version = version
        super().__init__(data, **kwargs)

    def _hub_files(self) -> list[str] | None:
        return LCB_FILES[self.version]

    def _problem(self, row: Mapping[str, Any], place: RowPlace, index: int) -> Any:
        return livecodebench_problem(row, place)
