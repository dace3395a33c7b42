"""Instruction checks per second per core: rlvr_ifeval versus the IFEval reference (lm-eval).

Run: ``.venv/bin/python bench/ifeval_checks.py [--seconds 2]``; ``--hostile`` instead times the
quadratic inputs of issue 21 (runs of newlines) against the reference's own patterns;
``--sweep`` times every checker on each pathological 1 MB input of ``tests/ifeval/test_ifeval_hostile.py``
and lists the (checker, input) pairs over 50 ms of CPU, cold (every memo cleared before each check).

Both implementations check the same labelled responses (../shared/data: IFEval GPT-4
responses and IFBench sample outputs) in one process, i.e. on one core. Checkers are built
once per task (as a trainer reuses a task across a group of completions). Everything derived
from response text is forgotten before every pass: the per-text analyses (sentences, tokens,
word runs, detected language) and the memos a long-running worker would keep warm (Treebank
chunks, syllable counts, normalised characters), so no response or word is ever analysed
"warm" twice. What stays loaded is data that does not depend on the responses: langdetect's
profiles (as a matrix and hash table), its character normalisation tabulated for the Basic
Multilingual Plane, and the seeded random stream. Time is this process's
CPU time (``time.process_time``), so other work on a shared machine does not count against
either side (it still slows both through shared caches). "checks/s/core" is the mean over
passes but the first; "best pass" is the fastest single pass, the one least disturbed by other
work; "first pass" is the first, which also builds what each row derives from the tasks alone
(a trainer builds it once per task: ``timed``).

The peer is lm-eval's copy of Google's IFEval checkers (PyPI ``lm-eval``). It is imported
from an installed ``lm_eval`` or, failing that, from the wheel fetched with
``pip download lm-eval --no-deps`` (needs ``nltk``, ``langdetect`` and ``immutabledict``).
Offline there is no NLTK Punkt data, so the peer cannot run ``number_sentences`` and
``capital_word_frequency``; the head-to-head rows use the IFEval instructions both can run.
When the peer cannot be loaded at all the script says so and compares with a naive baseline
(rebuilding every checker for every check, as a per-call reward function would).

The training ids' rows (guard rules and relevance gate on top of the checks) include the newest
registered ``ifeval-data`` and ``ifeval-synth`` ids, made by the registry with their own kwargs
(whatever ids are newest when it runs), each printed beside issue 26's goal (``GOAL``). The
newest ``ifeval-data`` is timed three times in the same run: as the rules run now, with the
relevance gate's word counts in Python instead of numba's kernels (``rlvr_ifeval.prose_jit``,
loaded by ``warm_up``), and with the rules as they were before the issue-26 speed work
(``tests/ifeval/ifeval_reference_rules.py``, which the tests compare verdict for verdict with
the fast path). ``--goal`` times only the newest training ids, beside the same ids with the speed
work of the latest rounds switched off (``_ifeval_goal.LEVELS``), in turn and in paired passes.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from _ifeval_common import ROOT, load_rows  # bench/ is the script's folder
from _ifeval_goal import GOAL, goal_table, newest_training_ids, timed
from _ifeval_rules import rules_profile
from _ifeval_speed_off import without_speed_round7

LANGUAGE_IDS = {"language:response_language", "change_case:english_capital", "change_case:english_lowercase"}
PEER_FILES = ("instructions.py", "instructions_registry.py", "instructions_util.py")


def load_peer() -> tuple[ModuleType | None, str]:
    """lm-eval's IFEval registry module, or None with the reason."""
    try:
        return importlib.import_module("lm_eval.tasks.ifeval.instructions_registry"), "installed lm_eval"
    except Exception:
        pass
    workdir = Path(tempfile.mkdtemp(prefix="ifeval_peer_"))
    try:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "lm-eval==0.4.13", "-d", str(workdir)],
            check=True,
            capture_output=True,
            timeout=120,
        )
        wheel = next(workdir.glob("lm_eval-*.whl"))
        with zipfile.ZipFile(wheel) as zf:
            for name in PEER_FILES:
                zf.extract(f"lm_eval/tasks/ifeval/{name}", workdir)
        for package in ("lm_eval", "lm_eval/tasks", "lm_eval/tasks/ifeval"):
            (workdir / package / "__init__.py").write_text("")  # skip lm-eval's heavy package init
        sys.path.insert(0, str(workdir))
        return importlib.import_module("lm_eval.tasks.ifeval.instructions_registry"), wheel.name.split("-py3")[0]
    except Exception as exc:
        return None, f"{type(exc).__name__}: {exc}"[:200]


@contextlib.contextmanager
def _without_task_cache() -> Iterator[None]:
    """``verify`` as it was before the per-task cache (issue 30): the checkers looked up by the
    answer's canonical JSON on every call, every verdict sized through validation."""
    from rlvr_ifeval import task_cache, verifier
    from rlvr_ifeval.scoring import cached_checkers

    class NoCache(task_cache.TaskCache):
        def plan(self, task: Any, canonical: Any) -> task_cache.TaskPlan:
            return task_cache.TaskPlan(task.answer, cached_checkers(canonical(task.answer)), plain=False)

    saved = verifier._TASKS
    verifier._TASKS = NoCache()
    try:
        yield
    finally:
        verifier._TASKS = saved


@contextlib.contextmanager
def _without_prose_kernels() -> Iterator[None]:
    """The relevance gate's word counts as they were before ``rlvr_ifeval.prose_jit`` (Python
    sets over the words of ``analysis``): the same verdicts, timed in the same run."""
    from rlvr_ifeval import prose_jit

    saved = prose_jit._KERNEL, prose_jit._FLAGS, prose_jit._started
    prose_jit._KERNEL = prose_jit._FLAGS = None
    prose_jit._started = True  # (no background load meanwhile)
    try:
        yield
    finally:
        prose_jit._KERNEL, prose_jit._FLAGS, prose_jit._started = saved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time budget per row of the table")
    parser.add_argument("--hostile", action="store_true", help="time hostile inputs against the reference patterns")
    parser.add_argument("--repeats", type=int, default=3, help="repeats per hostile row")
    parser.add_argument("--sweep", action="store_true", help="every checker on every 1 MB hostile input")
    parser.add_argument("--warm", action="store_true", help="with --sweep: keep memos between checks")
    parser.add_argument("--only", default="", help="with --sweep: instruction ids containing this")
    parser.add_argument("--rules", action="store_true", help="CPU per verify of each rule, newest training id")
    parser.add_argument("--pairs", type=int, default=5, help="with --goal: paired passes now / speed work off")
    parser.add_argument(
        "--goal",
        action="store_true",
        help="only the newest training ids, with and without the speed work of rounds 7-11",
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "envs" / "ifeval"))
    if args.hostile or args.sweep:
        from ifeval_hostile import hostile, sweep

        if args.hostile:
            hostile(args.repeats)
        else:
            sweep(cold=not args.warm, only=args.only)
        return
    if args.rules:
        rules_profile(args.repeats)
        return
    if args.goal:
        goal_table(args.seconds, args.pairs)
        return
    from rlvr_envs import Task
    from rlvr_ifeval.envs import IFEvalVerifier
    from rlvr_ifeval.scoring import build_checker, build_checkers

    rows = load_rows()
    ours = [(build_checkers(r["instruction_id_list"], r["kwargs"]), r["response"]) for r in rows]
    tasks = [
        Task(id=str(i), prompt=r["prompt"], answer={k: r[k] for k in ("instruction_id_list", "kwargs")})
        for i, r in enumerate(rows)
    ]
    verifier = IFEvalVerifier(min_words=0)
    from rlvr_ifeval.language import warm_up

    # What a pool worker loads when it unpickles the verifier (langdetect's profiles, numba's
    # kernels), before any budgeted call; response-independent, so outside the timing.
    warm_up()

    def ours_pass(items: list) -> Callable[[], int]:
        def run() -> int:
            n = 0
            for checkers, response in items:
                for checker in checkers:
                    checker.check(response)
                    n += 1
            return n

        return run

    def verify_pass() -> int:
        return sum(len(verifier.verify(t, r["response"]).details["instructions"]) for t, r in zip(tasks, rows))

    from rlvr_ifeval.contrast import Background

    # The newest training ids, as the registry makes them: ifeval-data over these rows (its
    # background is their prompts, built at make, outside the timing) and ifeval-synth (its
    # background is the generator's topics) checking the same responses.
    newest = newest_training_ids(rows)
    data_id = newest[0][0]

    def newest_pass(verifier_: Any) -> Callable[[], int]:
        def run() -> int:
            return sum(len(verifier_.verify(t, r["response"]).details["instructions"]) for t, r in zip(tasks, rows))

        return run

    # ifeval-data-v3 / ifeval-synth-v4: guard v2 rules + the contrast gate, the background being
    # these rows' prompts (what make("ifeval-data-v3", data=rows) builds once, outside the timing).
    background = Background.build((r["prompt"], cs) for r, (cs, _) in zip(rows, ours))
    training_v3 = IFEvalVerifier(relevance="contrast", relevance_background=background)

    def training_v3_pass() -> int:
        return sum(len(training_v3.verify(t, r["response"]).details["instructions"]) for t, r in zip(tasks, rows))

    # ifeval-data-v2 / ifeval-synth-v3: guard v1 + relevance gate
    training = IFEvalVerifier(relevance="overlap", guard_rules="v1")

    def training_pass() -> int:
        return sum(len(training.verify(t, r["response"]).details["instructions"]) for t, r in zip(tasks, rows))

    # ifeval-data-v1 / ifeval-synth-v2: no language rule
    training_v0 = IFEvalVerifier(relevance="overlap-v0", guard_rules="v1")

    def training_v0_pass() -> int:
        return sum(len(training_v0.verify(t, r["response"]).details["instructions"]) for t, r in zip(tasks, rows))

    table: list[tuple[str, str, int, float, float, float]] = []
    table.append(("rlvr_ifeval checker.check", "IFEval+IFBench, all", *timed(ours_pass(ours), args.seconds)))
    table.append(("rlvr_ifeval IFEvalVerifier.verify", "IFEval+IFBench, all", *timed(verify_pass, args.seconds)))
    with _without_task_cache():
        table.append(
            ("verify, before issue 30 (no task cache)", "IFEval+IFBench, all", *timed(verify_pass, args.seconds))
        )
    goal_rows: list[int] = []
    for env_id, newest_verifier in newest:
        goal_rows.append(len(table))
        table.append(
            (
                f"verify, {env_id} (newest training id)",
                "IFEval+IFBench, all",
                *timed(newest_pass(newest_verifier), args.seconds),
            )
        )
    with without_speed_round7():
        table.append(
            (
                f"verify, {data_id}, speed work of round 7 off",
                "IFEval+IFBench, all",
                *timed(newest_pass(newest[0][1]), args.seconds),
            )
        )
    with _without_prose_kernels():
        table.append(
            (
                f"verify, {data_id}, word counts in Python (no prose_jit)",
                "IFEval+IFBench, all",
                *timed(newest_pass(newest[0][1]), args.seconds),
            )
        )
    sys.path.insert(0, str(ROOT))
    from tests.ifeval.ifeval_reference_rules import installed

    with installed():  # the guard's and the gate's rules as they were before the issue-26 speed work
        table.append(
            (
                f"verify, {data_id}, rules before speed work",
                "IFEval+IFBench, all",
                *timed(newest_pass(newest[0][1]), args.seconds),
            )
        )
    table.append(
        (
            "verify, ifeval-data-v3/synth-v4 (guard v2+contrast)",
            "IFEval+IFBench, all",
            *timed(training_v3_pass, args.seconds),
        )
    )
    table.append(
        ("verify, training ids v2/v3 (guard v1+overlap)", "IFEval+IFBench, all", *timed(training_pass, args.seconds))
    )
    table.append(
        ("verify, training ids v1/v2 (no language rule)", "IFEval+IFBench, all", *timed(training_v0_pass, args.seconds))
    )
    language_only = [([c for c in cs if c.instruction_id in LANGUAGE_IDS], r) for cs, r in ours]
    table.append(
        (
            "rlvr_ifeval checker.check",
            "IFEval+IFBench, the 3 language-detection ids",
            *timed(ours_pass(language_only), args.seconds),
        )
    )
    from rlvr_ifeval import langdetect_exact, language

    # The same checks without numba's kernels (langdetect_jit): the numpy and string paths a
    # machine without numba runs (same labels; shows what compiling saves).
    compiled = language.set_compiled(False)
    table.append(
        (
            "rlvr_ifeval, numpy walk (no numba)",
            "IFEval+IFBench, the 3 language-detection ids",
            *timed(ours_pass(language_only), args.seconds),
        )
    )
    language.set_compiled(compiled)
    if not langdetect_exact.engine().compiled:
        print("(numba's kernels are unavailable here: every rlvr_ifeval row used the numpy walk)")
    from rlvr_ifeval.language import langdetect_language

    def langdetect_pass() -> int:
        # What those checks would cost with langdetect itself (seeded) as the detector: one
        # detection per response, skipped where the case test already fails the check.
        n = 0
        for checkers, response in language_only:
            if any(
                c.instruction_id == "language:response_language"
                or (response.isupper() if c.instruction_id.endswith("capital") else response.islower())
                for c in checkers
            ):
                langdetect_language(response)
            n += len(checkers)
        return n

    table.append(
        (
            "langdetect.detect (seed 0) as the detector",
            "IFEval+IFBench, the 3 language-detection ids",
            *timed(langdetect_pass, args.seconds),
        )
    )
    no_language = [([c for c in cs if c.instruction_id not in LANGUAGE_IDS], r) for cs, r in ours]
    table.append(
        (
            "rlvr_ifeval checker.check",
            "IFEval+IFBench, no language detection",
            *timed(ours_pass(no_language), args.seconds),
        )
    )

    peer, peer_source = load_peer()
    ifeval_rows = [r for r in rows if isinstance(r["key"], int)]
    if peer is not None:
        registry = peer.INSTRUCTION_DICT
        runnable: list[tuple[list, list, str]] = []
        for row in ifeval_rows:
            mine, theirs = [], []
            for iid, kw in zip(row["instruction_id_list"], row["kwargs"]):
                instruction = registry[iid](iid)
                instruction.build_description(**kw)
                try:
                    instruction.check_following(row["response"])
                except LookupError:
                    continue  # needs NLTK data that is not available offline
                theirs.append(instruction)
                mine.append(build_checker(iid, kw))
            runnable.append((mine, theirs, row["response"]))

        def peer_pass() -> int:
            n = 0
            for _, theirs, response in runnable:
                for instruction in theirs:
                    instruction.check_following(response)
                    n += 1
            return n

        subset = "IFEval, checks the peer can run offline"
        peer_no_language = [(m, [t for t in th if t.id not in LANGUAGE_IDS], r) for m, th, r in runnable]
        table.append(
            ("rlvr_ifeval checker.check", subset, *timed(ours_pass([(m, r) for m, _, r in runnable]), args.seconds))
        )
        table.append((f"lm-eval IFEval ({peer_source})", subset, *timed(peer_pass, args.seconds)))
        subset = "same, no language detection"
        mine_nl = [([c for c in m if c.instruction_id not in LANGUAGE_IDS], r) for m, _, r in runnable]
        table.append(("rlvr_ifeval checker.check", subset, *timed(ours_pass(mine_nl), args.seconds)))
        runnable = peer_no_language
        table.append((f"lm-eval IFEval ({peer_source})", subset, *timed(peer_pass, args.seconds)))
    else:
        print(f"reference implementation unavailable ({peer_source}); comparing with a naive baseline")

        def naive_pass() -> int:
            n = 0
            for row in ifeval_rows:
                for iid, kw in zip(row["instruction_id_list"], row["kwargs"]):
                    build_checker(iid, kw).check(row["response"])
                    n += 1
            return n

        table.append(("naive: rebuild checker per check", "IFEval", *timed(naive_pass, args.seconds)))

    print(
        f"{'implementation':<52} {'instruction set':<46} {'checks':>7} {'cpu s':>6} "
        f"{'checks/s/core':>13} {'best pass':>10} {'first pass':>10}"
    )
    for name, subset, checks, seconds, best, first in table:
        print(
            f"{name:<52} {subset:<46} {checks:>7} {seconds:>6.2f} {checks / seconds:>13,.0f} {best:>10,.0f} "
            f"{first:>10,.0f}"
        )
    for i in goal_rows:
        name, _, checks, seconds, best, first = table[i]
        rate = checks / seconds
        verdict = "met" if rate >= GOAL else "NOT met"
        print(
            f"goal {GOAL:,} checks/s/core, {name}: {rate:,.0f} mean, {best:,.0f} best pass, "
            f"{first:,.0f} first pass: {verdict}"
        )


if __name__ == "__main__":
    main()
