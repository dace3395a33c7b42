"""Cost of the round-4 relevance rules (issue 26): the response-language rule, the form rules and
the contrast by similarity.

Run: ``.venv/bin/python bench/ifeval_response_rules.py [--passes 3]``. Times, per response and in
this process's CPU time, ``response_language.wrong_language``, ``genre.not_verse`` +
``genre.too_short`` and the whole ``verify`` of ``ifeval-data-v3`` against ``ifeval-data-v4``
(the same background) on the labelled responses (../shared/data) under their own prompts, in
one process. Per-prompt work is cached as in a trainer (a task is reused across its group of
completions); the language detector's per-text memo is cleared before every pass, so no
response is detected warm. "typical" is English prose of 200-400 words (ASCII).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
FILES = ("ifeval_gpt4_responses_labeled.jsonl", "ifbench_responses_labeled.jsonl")


def _rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for name in FILES:
        with open(DATA / name, encoding="utf-8") as handle:
            rows.extend(json.loads(line) for line in handle if line.strip())
    return rows


def _per_call(fn: Any, items: list[tuple[Any, ...]], passes: int, clear: Any) -> float:
    """Median over passes of the mean CPU µs per call."""
    means = []
    for _ in range(passes):
        clear()
        start = time.process_time()
        for item in items:
            fn(*item)
        means.append((time.process_time() - start) / len(items) * 1e6)
    return statistics.median(means)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "envs" / "ifeval"))
    from rlvr_envs.types import Task
    from rlvr_ifeval import contrast, language
    from rlvr_ifeval.genre import not_verse, too_short
    from rlvr_ifeval.response_language import wrong_language
    from rlvr_ifeval.scoring import build_checkers
    from rlvr_ifeval.verifier import IFEvalVerifier

    language.warm_up()
    rows = _rows()
    checkers = [tuple(build_checkers(r["instruction_id_list"], r["kwargs"])) for r in rows]
    items = [(r["prompt"], r["response"], c) for r, c in zip(rows, checkers, strict=True)]
    typical = [x for x in items if x[1].isascii() and 200 <= len(x[1].split()) <= 400]
    background = contrast.Background.build((r["prompt"], c) for r, c in zip(rows, checkers, strict=True))
    if background is None:
        raise SystemExit("the labelled data gave no background (fewer than two prompts with task units)")
    tasks = [
        Task(id=str(i), prompt=r["prompt"], answer={k: r[k] for k in ("instruction_id_list", "kwargs")})
        for i, r in enumerate(rows)
    ]
    v3 = IFEvalVerifier(relevance="contrast", relevance_background=background)
    v4 = IFEvalVerifier(
        relevance="contrast",
        relevance_background=background,
        relevance_language=True,
        relevance_genre=True,
        relevance_outrank=True,
    )
    for x in items:  # per-prompt caches, as a trainer's second completion of a task finds them
        wrong_language(*x), not_verse(*x), too_short(*x)
    clear = language.detect_language.cache_clear

    def forms(prompt: str, response: str, found: Any) -> Any:
        return not_verse(prompt, response, found) or too_short(prompt, response, found)

    from rlvr_ifeval import relevance

    units = [
        (r["prompt"], relevance.task_units(r["prompt"], c).units, relevance.units(r["response"]))
        for r, c in zip(rows, checkers, strict=True)
    ]
    twin = background.outranking()
    pairs = list(zip(tasks, [r["response"] for r in rows], strict=True))
    results = {
        "language rule, typical English answer (µs)": _per_call(wrong_language, typical, args.passes, clear),
        "language rule, every labelled response (µs)": _per_call(wrong_language, items, args.passes, clear),
        "form rules, every labelled response (µs)": _per_call(forms, items, args.passes, clear),
        "contrast rule, v3 (µs)": _per_call(background.answers_another, units, args.passes, clear),
        "contrast rule + similarity, v4 (µs)": _per_call(twin.answers_another, units, args.passes, clear),
        "verify ifeval-data-v3 (µs)": _per_call(v3.verify, pairs, args.passes, clear),
        "verify ifeval-data-v4 (µs)": _per_call(v4.verify, pairs, args.passes, clear),
    }
    print(f"{len(items)} labelled responses ({len(typical)} typical English); passes: {args.passes}")
    for name, value in results.items():
        print(f"{name:48s} {value:9.1f}")


if __name__ == "__main__":
    main()
