"""Cost of the round-4 and round-5 relevance rules (issue 26): the response-language rule, the form
rules, the contrast by similarity and the pasted-answer rule (``rlvr_ifeval.pasted``; round 6's chance
and far-home rules: ``relevance_paste=2``).

Run: ``.venv/bin/python bench/ifeval_response_rules.py [--passes 3]``. Times, per response and in
this process's CPU time, ``response_language.wrong_language``, ``genre.not_verse`` +
``genre.too_short``, the contrast rules with and without ``pasted`` and the whole ``verify`` of
``ifeval-data-v3``, ``-v4`` and the newest ``ifeval-data`` (each id's flags read from its
registered kwargs; the same background) on the labelled responses (../shared/data) under their own prompts, in
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
    from rlvr_ifeval.pasted import shares_little_but_has_a_home as shares_little
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
    import rlvr_envs

    def flags(env_id: str) -> dict[str, Any]:
        kwargs = dict(rlvr_envs.registry.resolve(env_id).kwargs)
        kwargs.pop("env_name", None)
        return kwargs

    newest = rlvr_envs.registry.resolve("ifeval-data").id
    verifiers = {
        env_id: IFEvalVerifier(relevance_background=background, **flags(env_id))
        for env_id in dict.fromkeys(("ifeval-data-v3", "ifeval-data-v4", "ifeval-data-v5", newest))
    }
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
    pasting = background.variant(outrank=True, paste=True)
    chance = background.variant(outrank=True, paste=2)
    walked = [(pasting, p, t, f, contrast.matched_weights(background, f)) for p, t, f in units]
    walked_6 = [(chance, *rest) for _, *rest in walked]
    # Each response under the next row's prompt (a paste: the rules' long path, their walk too).
    shifted = [(units[k - 1][0], units[k - 1][1], units[k][2]) for k in range(len(units))]
    pastes_5 = [(pasting, p, t, f, contrast.matched_weights(background, f)) for p, t, f in shifted]
    pastes_6 = [(chance, *rest) for _, *rest in pastes_5]
    pairs = list(zip(tasks, [r["response"] for r in rows], strict=True))
    results = {
        "language rule, typical English answer (µs)": _per_call(wrong_language, typical, args.passes, clear),
        "language rule, every labelled response (µs)": _per_call(wrong_language, items, args.passes, clear),
        "form rules, every labelled response (µs)": _per_call(forms, items, args.passes, clear),
        "contrast rule, v3 (µs)": _per_call(background.answers_another, units, args.passes, clear),
        "contrast rule + similarity, v4 (µs)": _per_call(twin.answers_another, units, args.passes, clear),
        "contrast + similarity + pasted, v5 (µs)": _per_call(pasting.answers_another, units, args.passes, clear),
        # The new rule alone, on the postings walk the contrast rules have already made.
        "pasted rule alone, v5 (µs)": _per_call(shares_little, walked, args.passes, clear),
        "contrast + similarity + pasted round 6, v6 (µs)": _per_call(chance.answers_another, units, args.passes, clear),
        "pasted rule alone, round 6, v6 (µs)": _per_call(shares_little, walked_6, args.passes, clear),
        "pasted rule alone on pastes, v5 (µs)": _per_call(shares_little, pastes_5, args.passes, clear),
        "pasted rule alone on pastes, round 6, v6 (µs)": _per_call(shares_little, pastes_6, args.passes, clear),
    }
    for env_id, verifier in verifiers.items():
        results[f"verify {env_id} (µs)"] = _per_call(verifier.verify, pairs, args.passes, clear)
    print(f"{len(items)} labelled responses ({len(typical)} typical English); passes: {args.passes}")
    for name, value in results.items():
        print(f"{name:48s} {value:9.1f}")


if __name__ == "__main__":
    main()
