"""Instruction checks per second per core: rlvr_ifeval versus the IFEval reference (lm-eval).

Run: ``.venv/bin/python bench/ifeval_checks.py [--seconds 2]``

Both implementations check the same labelled responses (../shared/data: IFEval GPT-4
responses and IFBench sample outputs) in one process, i.e. on one core. Checkers are built
once per task (as a trainer reuses a task across a group of completions) and the text caches
are cleared before every pass, so no response is ever analysed "warm" twice. Time is this
process's CPU time (``time.process_time``), so other work on a shared machine does not count
against either side.

The peer is lm-eval's copy of Google's IFEval checkers (PyPI ``lm-eval``). It is imported
from an installed ``lm_eval`` or, failing that, from the wheel fetched with
``pip download lm-eval --no-deps`` (needs ``nltk``, ``langdetect`` and ``immutabledict``).
Offline there is no NLTK Punkt data, so the peer cannot run ``number_sentences`` and
``capital_word_frequency``; the head-to-head rows use the IFEval instructions both can run.
When the peer cannot be loaded at all the script says so and compares with a naive baseline
(rebuilding every checker for every check, as a per-call reward function would).
"""

from __future__ import annotations

import argparse
import importlib
import json
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
LANGUAGE_IDS = {"language:response_language", "change_case:english_capital", "change_case:english_lowercase"}
PEER_FILES = ("instructions.py", "instructions_registry.py", "instructions_util.py")


def load_rows() -> list[dict]:
    rows = []
    for name in ("ifeval_gpt4_responses_labeled.jsonl", "ifbench_responses_labeled.jsonl"):
        with (DATA / name).open(encoding="utf-8") as fh:
            rows.extend(json.loads(line) for line in fh if line.strip())
    return rows


def load_peer() -> tuple[object | None, str]:
    """lm-eval's IFEval registry module, or None with the reason."""
    try:
        return importlib.import_module("lm_eval.tasks.ifeval.instructions_registry"), "installed lm_eval"
    except Exception:
        pass
    workdir = Path(tempfile.mkdtemp(prefix="ifeval_peer_"))
    try:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "lm-eval==0.4.13", "-d", str(workdir)],
            check=True, capture_output=True, timeout=120,
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


def clear_caches() -> None:
    from rlvr_ifeval import language, text

    for fn in (text._sentence_spans, text._word_tokens, text._tokenize_chunk, text._rule_sentences,
               language.detect_language):
        fn.cache_clear()


def timed(run_pass: Callable[[], int], seconds: float) -> tuple[int, float]:
    checks, elapsed = 0, 0.0
    while elapsed < seconds:
        clear_caches()
        start = time.process_time()
        checks += run_pass()
        elapsed += time.process_time() - start
    return checks, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time budget per row of the table")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "envs" / "ifeval"))
    from rlvr_ifeval.envs import IFEvalVerifier
    from rlvr_ifeval.scoring import build_checker, build_checkers

    from rlvr_envs import Task

    rows = load_rows()
    ours = [(build_checkers(r["instruction_id_list"], r["kwargs"]), r["response"]) for r in rows]
    tasks = [Task(id=str(i), prompt=r["prompt"], answer={k: r[k] for k in ("instruction_id_list", "kwargs")})
             for i, r in enumerate(rows)]
    verifier = IFEvalVerifier(min_words=0)
    from rlvr_ifeval.language import fast_langdetect

    fast_langdetect("Chargement des profils avant la mesure.")  # langdetect's profiles load once per process

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

    table: list[tuple[str, str, int, float]] = []
    table.append(("rlvr_ifeval checker.check", "IFEval+IFBench, all", *timed(ours_pass(ours), args.seconds)))
    table.append(("rlvr_ifeval IFEvalVerifier.verify", "IFEval+IFBench, all", *timed(verify_pass, args.seconds)))
    no_language = [([c for c in cs if c.instruction_id not in LANGUAGE_IDS], r) for cs, r in ours]
    table.append(("rlvr_ifeval checker.check", "IFEval+IFBench, no language detection",
                  *timed(ours_pass(no_language), args.seconds)))

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
        table.append(("rlvr_ifeval checker.check", subset, *timed(ours_pass([(m, r) for m, _, r in runnable]),
                                                                 args.seconds)))
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

    print(f"{'implementation':<48} {'instruction set':<42} {'checks':>8} {'cpu s':>8} {'checks/s/core':>14}")
    for name, subset, checks, seconds in table:
        print(f"{name:<48} {subset:<42} {checks:>8} {seconds:>8.2f} {checks / seconds:>14,.0f}")


if __name__ == "__main__":
    main()
