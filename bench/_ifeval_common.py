"""What bench/ifeval_checks.py and bench/ifeval_hostile.py share: the labelled rows, the memos to
forget between passes, CPU timing."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"


def load_rows() -> list[dict]:
    rows: list[dict] = []
    for name in ("ifeval_gpt4_responses_labeled.jsonl", "ifbench_responses_labeled.jsonl"):
        with (DATA / name).open(encoding="utf-8") as fh:
            rows.extend(json.loads(line) for line in fh if line.strip())
    return rows


def clear_caches() -> None:
    """Forget everything derived from response text: per-text analyses and the memos of
    chunks, words and syllables that a long-running worker would keep warm."""
    from rlvr_ifeval import analysis, checkers_ifbench, langdetect_exact, language, stuffing, text

    for fn in (
        analysis.analyse,
        text._sentence_spans,
        text._word_tokens,
        text._tokenize_chunk,
        text._rule_sentences,
        text._rule_marked,
        text._word_runs,
        language.detect_language,
        checkers_ifbench._syllables,
        stuffing._compiled_reading,
    ):
        fn.cache_clear()
    # (memoised per head since round 13; ``without_speed_round13`` puts the plain function there)
    getattr(stuffing._kept_text, "cache_clear", lambda: None)()
    langdetect_exact.clear_text_memos()
    text.clear_chunk_memos()


def cpu_runs(run: Callable[[], object], repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        clear_caches()  # the per-text memos would make every repeat after the first free
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return times
