"""``bench/ifeval_checks.py --rules``: CPU per ``verify`` of each rule of the newest ``ifeval-data``
id, every rule wrapped where its callers look it up."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable
from typing import Any

from _ifeval_common import clear_caches, load_rows
from _ifeval_goal import newest_training_ids

# The rules of a training id's verdict, as their callers look them up (module globals), so a
# wrapper sees every call. Inclusive times: a rule's time holds the rules it calls.
PROFILED_RULES = {
    "rlvr_ifeval.verifier": (
        "instruction_details", "no_content", "refusal", "content_rejection", "wrong_language", "not_verse",
        "too_short", "off_topic", "task_verdict", "own_text", "stuffed_text", "round13_text",
    ),
    # Round 12's rules (``stuffing``) and round 13's (``round13``, where that module is in the tree).
    "rlvr_ifeval.stuffing": ("restated_prompt", "mixed_script", "framed_units", "label_only", "compiled_reading"),
    "rlvr_ifeval.round13": ("restated_prompt", "aside_mentions", "label_by_chance"),
    "rlvr_ifeval.guard": (
        "tokens", "strip_copies", "content_weight", "weight", "diversity_units", "distinct_ratio",
        "repeated_ratio_at_most", "repeated_ratio", "_without_refusals", "token_bytes", "_counted_rejection",
        "_rejection",
    ),
    "rlvr_ifeval.guard_jit": ("fused_figures",),
    "rlvr_ifeval.relevance": (
        "salad_rejection", "not_language", "function_share", "_without_literals", "detect_language",
        "shuffled_prompt", "interleaved_prompt", "units", "task_units", "count_words_any_script",
    ),
    "rlvr_ifeval.salad": (
        "not_language", "function_share", "_without_literals", "detect_language", "shuffled_prompt",
        "interleaved_prompt",
    ),
    "rlvr_ifeval.contrast": ("matched_weights", "answers_another_prompt", "outranked"),
    "rlvr_ifeval.analysis": ("prose_words", "joined_words"),
    "rlvr_ifeval.prose_jit": ("counts", "vocabulary_flags"),
}  # fmt: skip


def rules_profile(repeats: int) -> None:
    """Where a verdict of the newest ``ifeval-data`` id goes: CPU microseconds per ``verify`` of
    each rule (inclusive), over ``repeats`` passes of the labelled responses with every
    per-text memo cleared before each pass (as the main table). Each wrapped call adds about a
    microsecond of its own, so the total runs a little above the table's rate."""
    from collections import Counter, defaultdict

    from rlvr_envs import Task
    from rlvr_ifeval.language import warm_up
    from rlvr_ifeval.verifier import IFEvalVerifier

    rows = load_rows()
    tasks = [
        Task(id=str(i), prompt=r["prompt"], answer={k: r[k] for k in ("instruction_id_list", "kwargs")})
        for i, r in enumerate(rows)
    ]
    env_id, verifier = newest_training_ids(rows)[0]
    warm_up()
    spent: dict[str, float] = defaultdict(float)
    calls: Counter[str] = Counter()

    def timed_rule(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label] += time.process_time() - start
                calls[label] += 1

        return run

    saved: list[tuple[Any, str, Any]] = []
    targets: list[tuple[Any, str]] = [
        (IFEvalVerifier, name) for name in ("verify", "_basic_degenerate", "degenerate", "_relevance")
    ]
    for module_name, names in PROFILED_RULES.items():
        try:
            module = importlib.import_module(module_name)
        except ImportError:  # (a rule module of a newer round than this tree's)
            continue
        targets += [(module, name) for name in names if callable(getattr(module, name, None))]
    for owner, name in targets:
        original = owner.__dict__[name]
        saved.append((owner, name, original))
        label = f"{owner.__name__.rsplit('.', 1)[-1]}.{name}"
        setattr(owner, name, timed_rule(label, original))
    try:
        for t, r in zip(tasks, rows):  # the tasks' checkers and prompt-derived tables, as a trainer keeps them
            verifier.verify(t, r["response"])
        spent.clear()
        calls.clear()
        for _ in range(repeats):
            clear_caches()
            for t, r in zip(tasks, rows):
                verifier.verify(t, r["response"])
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)
    n = calls["IFEvalVerifier.verify"]
    total = spent["IFEvalVerifier.verify"]
    print(f"{env_id}: {n} verdicts, {total / n * 1e6:.0f} us of CPU each (wrapped); per rule, inclusive:")
    print(f"{'rule':<40} {'us/verify':>10} {'share':>7} {'calls/verify':>13}")
    for label, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"{label:<40} {seconds / n * 1e6:>10.1f} {seconds / total:>7.1%} {calls[label] / n:>13.2f}")
