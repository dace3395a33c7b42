"""Entry point of the ``code`` plugin: registers ``code-python``, ``code-humaneval``, ``code-mbpp``
and the contest sets ``code-contests``, ``code-taco``, ``code-apps``, ``code-livecodebench``,
``code-kattis`` (problem packages from a local copy).

Versions (a change that alters any reward of an honest answer bumps the version; the old one stays):

* ``code-python-v9`` (red team round 15): ``partial_credit`` counts as ``credit_tests="shaped"``
  (``rlvr_code.scoring``): a test two or more constants of a common shape pass (``[0]``, ``'a'``,
  ``2``...: ``assert len(f(4)) > 0``, ``assert f(11)[0] == 0``) pays nothing, so ``return [0]``
  earns 0 where it earned 0.5 on such a task; an honest partly right program's fraction on your
  own rows with such tests changes accordingly, all-or-nothing rewards do not. ``code-humaneval-v7``
  and ``code-mbpp-v7`` count so too with no bump: no test of theirs is such a test (measured: the
  seven constants' runs on all 164 HumanEval and 973 MBPP tasks discount no test ``"corrected"``
  kept), so no honest reward changes there.

* ``code-python-v8`` (red team round 12; ``code-humaneval`` and ``code-mbpp`` have no stdin/stdout
  rows and stay at ``-v7``): ``hidden_tests="stdio_rules"``: a stdin/stdout row whose two or more
  hidden cases all fit a cheap rule of the input that a shown case contradicts
  (``contests.input_rules``: the first number plus one, the last token, the sum after the
  first...) is left out at ``make`` (``env.skipped``) and refused by the verifier
  (``verifier_error``), as the contest ids leave such rows out since round 11: a program answering
  the examples from a table and the rule otherwise scored 1 under ``-v7``. Which rows load
  changes; no kept row's reward does.

* ``-v7`` (red team round 10): ``hidden_tests="rules"`` (``rlvr_code.derived.guard_rules``,
  ``rlvr_code.derived_rules``): a task whose hidden tests a cheap rule of the arguments passes
  (one argument itself, or its length, sum, largest or smallest, first or last item, sorted or
  reversed form, set of items; any of the first four arguments) also gets tests derived from its
  reference on the wide inputs, each such rule failing one: a program answering the prompt's
  example from a table and the rule otherwise scored 1 under v6 (MBPP/309 ``maximum``: the hidden
  tests all put the larger number first; 20 MBPP tasks over nine rules). A task whose reference
  answers by the rule everywhere (the rule is the function: ``len``, ``max``, sorting) keeps its
  tests. An honest answer on those tasks now also has to pass the derived tests.
* ``-v6`` (deprecated; red team round 9): ``hidden_tests="guard"`` (``rlvr_code.derived.guard``): a yes/no
  task with fewer than 8 hidden asserts (77 MBPP tasks had two, one True and one False: a program
  answering the prompt's example from a table and guessing otherwise passed 1 time in 4; 4
  HumanEval tasks had 2-3) gets tests derived from its reference up to 8, both answers about as
  common among them; where the inputs near the shown ones all get one answer, the reference runs
  on inputs further away (ints swept, strings and lists cut, repeated, reversed, flags flipped):
  that found a test for 9 of the 15 tasks one constant still passed under v5 (MBPP/20 Woodall
  numbers, MBPP/598 Armstrong numbers, HumanEval/54); the 6 left are tasks whose reference answers
  one value on every input tried (MBPP/336 "is it February", MBPP/816 "clear a tuple": the table is
  the function). An honest answer on those tasks now also has to pass the derived tests.
* ``-v5`` (deprecated; red team round 8): ``partial_credit`` no longer pays answers that ignore the task
  (``credit_tests="corrected"``, ``rlvr_code.scoring``): tests a constant (None, True, 0, '', [],
  ...) or the input echoed passes pay nothing, and the share the most common expected answer
  passes of the rest is chance, ``(passed - m) / (n - m)``. ``return True`` earned 0.6 on
  HumanEval/76 under v4; the best of eight constants averaged 0.26 on HumanEval's first 80
  tasks, 0.14 on MBPP's first 120. An honest partly right program's fraction changes
  accordingly; all-or-nothing rewards are unchanged.

* ``-v4`` (deprecated; red team round 7): a task whose hidden tests one answer passes (MBPP/3's two hidden
  asserts both expect True; 81 of MBPP's 974 tasks, 3 of HumanEval's) also gets tests derived
  from its reference, each one the reference answers otherwise (``hidden_tests="discriminate"``,
  ``derived.constant_passable``): a program answering the prompt's example from a table and that
  one answer otherwise (``return n != 2``) scored 1 all-or-nothing under v3. Such a task keeps its
  own tests where none can be derived (no reference, no mirrorable assert), never refused for it.
  An honest answer on those tasks now also has to pass the derived tests.
* ``-v3`` (deprecated): a task whose prompt shows every test (HumanEval/34, MBPP/37) gets hidden tests derived
  from its reference solution (``hidden_tests="derive"``, ``rlvr_code.derived``): a program
  answering the prompt's examples from a table scored 1 all-or-nothing under v2. A task where none
  can be derived (no reference, a stdin/stdout task) is left out at ``make`` (``env.skipped``) and
  refused by the verifier (``verifier_error`` naming why). An honest answer now also has to pass
  the derived tests on those tasks.
* ``-v2`` (deprecated): ``partial_credit`` counts only discriminating tests the prompt does not show
  (``credit_tests="hidden"``): a program answering the prompt's own examples from a table earned
  0.33-0.5 under v1 (red team round 5, ``rlvr-envs redteam --classes prompt_lookup``). An honest
  partly right program's fraction changes accordingly; all-or-nothing rewards are unchanged.
* ``-v1`` (deprecated): ``partial_credit`` counts only discriminating tests (asserts that use the solution and
  that a program doing nothing fails; ``rlvr_code.scoring``), so ``return None`` earns 0 and a
  partly right program's fraction no longer counts ``assert True`` lines or tests ``None`` passes.
* ``-v0`` (deprecated): ``partial_credit`` counts every reported assert line. All-or-nothing
  rewards are the same in both; so are the feedback of multi-turn episodes (public tests only,
  ``rlvr_code.feedback``) and the per-sample memory bound, which apply to every version.

The contest sets start at ``-v1`` (the family's current scoring); they never had a ``-v0``.
In every contest version (and ``code-kattis``) a row whose cases all stand in the statement is
left out (``env.skipped``), as the rows without tests or whose every case expects no output are:
the set's task list changes, no kept task's reward does, so no bump.

* contest ``-v5`` (red team round 15): a statement's precision words state a bound as its error
  words do ("with a precision of 10^{-6}", "с точностью до 10^{-6}", 精度, 精确到, 정밀도,
  précision, Genauigkeit, precisión, precisão; a number type's "double precision" is none), so an
  honest float answer to such a statement (an exact comparison under ``-v4``) now passes; and a
  bound is read only where it is the answer's (``contests.stated_bounds``: the sentence speaks of
  the answer, the output or its judging, or names the error's kind, and the error word is not owned
  by a story's noun), so a story's "the townsfolk's tolerance is 0.5" no longer gives a float
  checker at 0.5 (an answer off by 0.4 passed; an honest "3.0" for "3" there is now refused, as
  the tokens comparison refuses it). ``-v4`` (deprecated) keeps round 14's reading
  (``checker="auto-v4"``).
* contest ``-v4`` (deprecated; red team round 14): a statement's float tolerance is read in the languages
  contest sets are written in (``contests.stated_bounds``: Chinese 误差/绝对误差/相对误差, Japanese
  誤差, Korean 오차, Russian погрешность, Spanish, French, German, Portuguese; "within 10^-6 of the
  answer", "相差不超过"), and an error word about time or memory, a guarantee about the input or a
  lower bound is not read as one. An honest float answer to such a statement (an exact comparison
  under ``-v3``, which refused 0.3333333 for 0.33333333) now passes; ``-v3`` (deprecated) keeps the
  English reading (``checker="auto-english"``).
* contest ``-v3`` (deprecated) and ``code-kattis-v3`` (red team round 8): ``partial_credit`` counts as the
  ``-v5`` ids' does (``credit_tests="corrected"``): a case expecting ``YES``, ``0``, ``-1``... or
  the input itself pays nothing, and the most common expected output's share is chance, so
  ``print('YES')`` earns 0 where it earned the share of ``YES`` cases. An honest partly right
  program's fraction changes accordingly; all-or-nothing rewards are unchanged.
* contest ``-v2`` (deprecated): a set's stated per-case limit (set for C++) is scaled per language
  (``time_factors``, default ``limits.STATED_LIMIT_FACTORS``: Python 5x, Java and JavaScript 2x,
  Go 1.5x), so an honest Python answer between 1x and 5x the stated limit now passes; a problem
  whose statement names ``input.txt``/``output.txt`` is a file-I/O task (``file_io``).
* contest ``-v1`` (deprecated): the stated limit in every language, standard streams only.

``code-kattis`` started at ``-v2``, the contest sets' version then, whose scoring it shares
(stated limits scaled per language; Kattis packages state no file I/O, so ``file_io`` is off);
it never had a ``-v0`` or ``-v1``; ``-v2`` and ``-v3`` stay, deprecated, beside ``-v4``.

* ``code-kattis-v4`` (red team round 12): a package names its output validator as the problem
  package format says (``KattisEnv(validators="format")``): a 2023-07 package that ships
  ``output_validator/`` is judged by it whatever its ``type`` (v3 read the type alone and judged
  such a package by the default validator, refusing an honest float within the validator's
  tolerance and every valid answer but the ``.ans``'s), and the validator's arguments are read per
  test group and case (``output_validator_args``/``output_validator_flags`` in ``test_group.yaml``,
  ``testdata.yaml`` or the case's ``.yaml``, after ``problem.yaml``'s ``validator_flags``) and
  passed to a custom validator too (v3 left such a package out). Honest answers on those packages
  now pass; a package whose cases state different arguments is left out (``env.skipped``).

Red team round 13 changed no id's version: every change refuses only answers the task's own judge
rules out. A contest statement bounding the absolute error alone no longer accepts the relative
one (``checkers.stated_tolerances``; answers within the stated tolerance, and every contest
fixture's, keep their verdicts); Kattis' ``space_change_sensitive`` is followed (the example
packages state no flag); a special judge that accepts a constant on every case, or fails on its
own expected outputs and on garbage alike, refuses its task (``contests.checker_audit``: a task
list changes, as for rows left out, not a kept task's reward); and a completion holding a chat
template's turn marker outside its code is a ``format_error`` (no gold completion holds one).
"""

from __future__ import annotations

from typing import Any

_CONTEST_V4 = (
    'v4 reads no precision words ("with a precision of 10^-6", "с точностью", 精度: an honest float answer '
    "fails) and reads a story's tolerance (\"the townsfolk's tolerance is 0.5\") as a bound on the answer; use -v5"
)
_CONTEST_V3 = (
    "v3 reads a statement's float tolerance in English only: a statement in another language (误差, 誤差, 오차, "
    "погрешность, erreur...) gets an exact comparison and an honest float answer fails; use -v5"
)
_CONTEST_V2 = "v2's partial_credit pays a constant output the share of cases expecting it (print('YES')); use -v5"
_CONTEST_V1 = (
    "v1 gives every language the limit the set states for C++ (Python fails at 1-5x it) and no file I/O; use -v5"
)
_V6 = (
    "v6 pays a program answering the prompt's example from a table and a cheap rule otherwise (the first "
    "argument echoed, its length, largest item...) on tasks whose hidden tests fit the rule (MBPP/309: 20 "
    "MBPP tasks); use -v7"
)
_V5 = (
    "v5 pays a guess on yes/no tasks with two hidden asserts 1 time in 4 (77 MBPP tasks) and a table plus a "
    "constant on 15 tasks; use -v7"
)
_V4 = (
    "v4's partial_credit pays a constant answer the share of tests expecting it (return True: 0.6 on "
    "HumanEval/76); use -v7"
)
_V3 = (
    "v3 pays a program answering the prompt's example from a table and one value otherwise on tasks whose "
    "hidden tests all expect that value (MBPP/3: 81 MBPP tasks, 3 HumanEval); use -v7"
)
_V2 = (
    "v2 pays a program hardcoding the prompt's examples on tasks whose prompt shows every test "
    "(HumanEval/34, MBPP/37); use -v7"
)
_V1 = "v1's partial_credit counts tests the prompt shows (hardcoding its examples earned 0.33-0.5); use -v7"
_V0 = "v0's partial_credit counts assert lines that never call the solution (return None earned 0.1-0.2); use -v7"
_PYTHON_V7 = (
    "v7 pays a program answering a stdin/stdout row's examples from a table and a cheap rule of the input "
    "otherwise where the row's hidden cases all fit the rule (the first number plus one, the last token); use -v9"
)
_PYTHON_V8 = (
    "v8's partial_credit pays a constant answer of the right shape on weak tests (return [0]: 0.5 on a task "
    "asserting len(f(4)) > 0 and f(11)[0] == 0); use -v9"
)
_KATTIS_V3 = (
    "v3 judges a 2023-07 package that ships an output validator by the default one (a float within the "
    "validator's tolerance, another valid answer: refused) and leaves out custom validators with arguments; use -v4"
)
_IDS = (
    (
        "code-python",
        "rlvr_code.envs:CodeEnv",
        {
            "size": None,
            "user_data": True,
            "data_source": "your own data (data=: path, rows or dataset; split=, limit=, columns=)",
            "description": "Python tasks from your data (asserts, HumanEval-style check() or stdin/stdout cases), "
            "verified in a bubblewrap sandbox",
        },
    ),
    (
        "code-humaneval",
        "rlvr_code.envs:HumanEvalEnv",
        {
            "size": 164,
            "data_source": "openai/openai_humaneval (Hub) or data= (alias path=)",
            "description": "HumanEval: complete a function, checked by its check(candidate) tests in a sandbox",
        },
    ),
    (
        "code-mbpp",
        "rlvr_code.envs:MbppEnv",
        {
            "size": 974,
            "data_source": "google-research-datasets/mbpp, config full (Hub) or data= (alias path=); split=",
            "difficulty_fields": ("split",),
            "description": "MBPP: write a function from a description, checked by its assert statements in a sandbox",
        },
    ),
)

_CONTEST_IDS = (
    (
        "code-contests",
        "rlvr_code.contests.envs:CodeContestsEnv",
        {
            "size": 165,
            "data_source": "deepmind/code_contests (Hub; split=test, valid or train) or data= (alias path=)",
            "difficulty_fields": ("difficulty", "cf_rating"),
            "description": "CodeContests: stdin/stdout problems with public, private and generated tests, "
            "the stated time limit per case, token or float-tolerance checking; language= python, cpp, ...",
        },
    ),
    (
        "code-taco",
        "rlvr_code.contests.envs:TacoEnv",
        {
            "size": 1000,
            "data_source": "BAAI/TACO (Hub; split=test or train) or data= (alias path=)",
            "difficulty_fields": ("difficulty",),
            "description": "TACO: stdin/stdout and call-based problems with the stated time limit",
        },
    ),
    (
        "code-apps",
        "rlvr_code.contests.envs:AppsEnv",
        {
            "size": 5000,
            "data_source": "codeparrot/apps (Hub; split=test or train, level=) or data= (alias path=)",
            "difficulty_fields": ("difficulty",),
            "description": "APPS: stdin/stdout and call-based problems, introductory to competition level",
        },
    ),
    (
        "code-livecodebench",
        "rlvr_code.contests.envs:LiveCodeBenchEnv",
        {
            "size": None,
            "data_source": "livecodebench/code_generation_lite (Hub; version=release_v5) or data= (alias path=)",
            "difficulty_fields": ("difficulty",),
            "description": "LiveCodeBench code generation: AtCoder/Codeforces stdin/stdout and LeetCode "
            "functional problems, public and hidden tests",
        },
    ),
)


_KATTIS = (
    "code-kattis",
    "rlvr_code.contests.kattis:KattisEnv",
    {
        "size": None,
        "data_source": "a local copy of ICPC / Kattis problem packages (data= or path=: a package folder or a folder "
        "of them); default $RLVR_KATTIS_EXAMPLES or ~/.cache/rlvr-envs/kattis-examples, Kattis' four example "
        "problems that scripts/fetch_kattis_examples.sh fetches (make setup runs it)",
        "description": "Kattis problem packages: stdin/stdout problems judged by the package's own default, "
        "custom or interactive validator over its sample and secret data; language= python, cpp, ...",
    },
)


# Tasks -v6 leaves out at ``make`` (``env.skipped``) of the set's rows: MBPP/367's two hidden
# asserts expect True and False, the prompt shows every test and none can be derived, so a guess
# passed it 1 time in 4; the registry's size is what ``make`` loads, not the set's row count.
_V6_LEFT_OUT = {"code-mbpp": ("MBPP/367",)}


def _v6_options(name: str, options: dict[str, Any]) -> dict[str, Any]:
    left_out = _V6_LEFT_OUT.get(name, ())
    if not left_out or options.get("size") is None:
        return options
    rows = int(options["size"])
    note = f" ({rows - len(left_out)} of the set's {rows} rows: {', '.join(left_out)} left out, no test derivable)"
    return {**options, "size": rows - len(left_out), "description": str(options["description"]) + note}


def register_envs() -> None:
    from rlvr_envs import register

    for name, entry_point, options in _IDS:
        given = {"hidden_tests": "as_given"}
        register(f"{name}-v0", entry_point, kwargs={"credit_tests": "all", **given}, deprecated=_V0, **options)
        register(
            f"{name}-v1", entry_point, kwargs={"credit_tests": "discriminating", **given}, deprecated=_V1, **options
        )
        register(f"{name}-v2", entry_point, kwargs={"credit_tests": "hidden", **given}, deprecated=_V2, **options)
        derived = {"credit_tests": "hidden", "hidden_tests": "derive"}
        register(f"{name}-v3", entry_point, kwargs=derived, deprecated=_V3, **options)
        discriminate = {**derived, "hidden_tests": "discriminate"}
        register(f"{name}-v4", entry_point, kwargs=discriminate, deprecated=_V4, **options)
        corrected = {**discriminate, "credit_tests": "corrected"}
        register(f"{name}-v5", entry_point, kwargs=corrected, deprecated=_V5, **options)
        guarded = {**corrected, "hidden_tests": "guard"}
        register(f"{name}-v6", entry_point, kwargs=guarded, deprecated=_V6, **_v6_options(name, options))
        rules = {**guarded, "hidden_tests": "rules"}
        if name == "code-python":  # the one id with stdin/stdout rows of its own
            register(f"{name}-v7", entry_point, kwargs=rules, deprecated=_PYTHON_V7, **options)
            stdio_rules = {**guarded, "hidden_tests": "stdio_rules"}
            register(f"{name}-v8", entry_point, kwargs=stdio_rules, deprecated=_PYTHON_V8, **options)
            register(f"{name}-v9", entry_point, kwargs={**stdio_rules, "credit_tests": "shaped"}, **options)
            continue
        # no bump: no HumanEval or MBPP test is one "shaped" discounts and "corrected" kept (measured)
        register(f"{name}-v7", entry_point, kwargs={**rules, "credit_tests": "shaped"}, **_v6_options(name, options))
    for contest, contest_entry, contest_options in _CONTEST_IDS:
        register(
            f"{contest}-v1",
            contest_entry,
            kwargs={"time_factors": None, "file_io": False, "checker": "auto-english"},
            deprecated=_CONTEST_V1,
            **contest_options,
        )
        english = {"checker": "auto-english"}  # -v1 to -v3 read a statement's tolerance in English only
        register(f"{contest}-v2", contest_entry, kwargs=english, deprecated=_CONTEST_V2, **contest_options)
        register(
            f"{contest}-v3",
            contest_entry,
            kwargs={**english, "credit_tests": "corrected"},
            deprecated=_CONTEST_V3,
            **contest_options,
        )
        register(
            f"{contest}-v4",
            contest_entry,
            kwargs={"credit_tests": "corrected", "checker": "auto-v4"},
            deprecated=_CONTEST_V4,
            **contest_options,
        )
        register(f"{contest}-v5", contest_entry, kwargs={"credit_tests": "corrected"}, **contest_options)
    kattis, kattis_entry, kattis_options = _KATTIS
    register(f"{kattis}-v2", kattis_entry, deprecated=_CONTEST_V2.replace("-v5", "-v4"), **kattis_options)
    corrected = {"credit_tests": "corrected"}
    register(
        f"{kattis}-v3", kattis_entry, kwargs={**corrected, "validators": "v3"}, deprecated=_KATTIS_V3, **kattis_options
    )
    register(f"{kattis}-v4", kattis_entry, kwargs={**corrected, "validators": "format"}, **kattis_options)
