"""The guard's counts in one compiled pass (round 10, issue 26's speed goal).

``guard.content_rejection`` reads the copies' starts and the figures of a response from one
kernel (``guard_jit.fused_figures``) over its tokens as UTF-8 bytes, for every response whose
tokens weigh a word each (ASCII, accented Latin, Cyrillic, Greek, Devanagari ...), where rounds
7 to 9 ran two kernels over ASCII responses only and Python's counts over any other. Compared
here: the kernel's starts and figures with the Python functions', and the guard's reasons with
those of the rounds 7-9 path (``guard._rejection``) on the labelled responses under their own and
other prompts, on the guard tests' degenerate and legitimate responses, and on texts in other
scripts and digits made here (scripts without spaces and digits other than 0-9 stay on the
Python path: ``token_bytes`` says None).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from rlvr_ifeval import copies_jit, guard, guard_jit, prose_jit
from rlvr_ifeval.scoring import build_checkers
from tests.ifeval.test_ifeval_guard_degenerate import DEGENERATE, LEGIT
from tests.ifeval.test_ifeval_verify_speed_equivalence import _rows


@pytest.fixture(scope="module")
def fused() -> Any:
    pytest.importorskip("numba", reason="without numba the Python path is the only one")
    # With numba, a kernel that fails its check at load is a failure here, not a silent fallback.
    assert prose_jit.load() and guard_jit.load_fused()
    return guard_jit.fused_kernel()


# Words of several scripts written with spaces, and digits: what the kernel must count as the
# Python functions do (a character is a code point, whatever its UTF-8 length).
WORDS = [
    "the", "a", "café", "über", "straße", "ж", "жжж", "мир", "дом", "ελλάδα", "α", "नमस्ते", "किताब",
    "12", "a1", "é9", "x9y", "9é9", "ñ", "ab", "naïve", "œuvre", "ǆ", "ﬁ", "한국어", "문장", "ᄀᄁ",
    "cafe\u0301", "e\u0301", "\u0301",  # (combining marks: decomposed accents)
]  # fmt: skip
OTHER_SCRIPTS = [
    "电动汽车安静又环保", "รถยนต์ไฟฟ้า", "٣٤ كتاب", "२०२४ में", "ＡＢＣ１２", "𝟘𝟙𝟚 x", "カタカナ", "ພາສາລາວ",
]  # fmt: skip


def _python(prompt: str, response: str) -> tuple[guard_jit.Figures, list[int]]:
    toks = guard.tokens(response)
    profile = guard.prompt_profile(prompt, "plain")
    starts = guard._copy_starts(toks, profile, None)  # (the Python scan: no kernel)
    rest = guard.strip_copies(toks, profile).rest
    figures = guard_jit.Figures(
        len(toks),
        int(guard.content_weight(toks)),
        len(rest),
        int(guard.content_weight(rest)),
        guard.distinct_ratio(rest),
        len(set(rest)),
        len(set(toks)),
    )
    return figures, starts


def _compare(kernel: Any, prompt: str, response: str) -> bool:
    """Whether the response went to the kernel; asserts its counts are Python's."""
    text, toks = guard.token_bytes(response)
    if toks is not None:
        assert toks == guard.tokens(response)
    if text is None:
        return False
    assert text.decode("utf-8").split() == guard.tokens(response)
    profile = guard.prompt_profile(prompt, "plain")
    fill = prose_jit.copies_kernels()[0]
    table = guard._vocabulary_table(profile, fill) if profile.k else None
    found = guard_jit.fused_figures(kernel, text, table, profile.k, guard.DIVERSITY_WINDOW)
    assert found == _python(prompt, response), (prompt[:80], response[:200])
    return True


def test_the_kernel_counts_as_python_on_labelled_responses(fused) -> None:
    rows = _rows()
    rng = random.Random(10)
    counted = outside_ascii = 0
    for row in rows:
        went = _compare(fused, row["prompt"], row["response"])
        counted += went
        outside_ascii += went and not row["response"].isascii()
        _compare(fused, rng.choice(rows)["prompt"], row["response"])
    assert counted > 0.9 * len(rows)
    assert outside_ascii >= 20  # (responses outside ASCII were counted by the kernel too)


def test_the_kernel_counts_as_python_on_random_texts_in_several_scripts(fused) -> None:
    rng = random.Random(26)
    for _ in range(400):
        prompt_words = rng.sample(WORDS, rng.randint(1, 8))
        prompt = " ".join(rng.choice(prompt_words) for _ in range(rng.randint(0, 30)))
        n = rng.choice([0, 1, 2, 3, 49, 50, 51, 99, 100, 101, rng.randint(0, 400)])
        words = [rng.choice(WORDS if rng.random() < 0.6 else prompt_words) for _ in range(n)]
        separators = [rng.choice([" ", "  ", ", ", "\n", "--", "...", "\u2014", "\u00a0", "\u201d "]) for _ in words]
        response = rng.choice(["", " ", "(", "\u00bf"]) + "".join(w + s for w, s in zip(words, separators, strict=True))
        # Cased differently from the prompt: tokens are casefolded on both sides.
        _compare(fused, prompt, response.upper() if rng.random() < 0.2 else response)


@pytest.mark.parametrize("other", OTHER_SCRIPTS)
def test_scripts_without_spaces_and_other_digits_stay_on_the_python_path(other: str) -> None:
    text, toks = guard.token_bytes(f"café et {other} encore")
    assert text is None and toks == guard.tokens(f"café et {other} encore")


def _cases() -> list[tuple[str, str, tuple[Any, ...], int]]:
    rows = _rows()
    rng = random.Random(7)
    cases: list[tuple[str, str, tuple[Any, ...], int]] = []
    for row in rows:
        checkers = tuple(build_checkers(row["instruction_id_list"], row["kwargs"]))
        cases.append((row["prompt"], row["response"], checkers, 5))
        cases.append((rng.choice(rows)["prompt"], row["response"], checkers, 8))
    for case in DEGENERATE + LEGIT:
        task: Any = case[1]
        (prompt, ids, kwargs), response = task, case[2]
        cases.append((prompt, response, tuple(build_checkers(ids, kwargs)), 8))
    repeat = tuple(build_checkers(["combination:repeat_prompt"], [{"prompt_to_repeat": "Écris un poème sur la mer."}]))
    plain = tuple(build_checkers(["punctuation:no_comma"], [{}]))
    keywords = tuple(build_checkers(["keywords:existence"], [{"keywords": ["océan", "мир"]}]))
    prompt = "Écris un poème sur la mer et le ciel, sans virgule."
    for response, checkers in (
        ("Écris un poème sur la mer et le ciel " * 6, plain),  # an echo, accented
        ("Écris un poème sur la mer. " + "Les vagues chantent sous la lune. " * 3, repeat),
        ("océan мир " * 30, keywords),  # only the keywords
        ("мир " * 120, plain),  # one word over and over
        ("la mer est grande et le ciel est bleu, les vagues dansent " * 9, plain),  # a passage repeated
        ("12 34 é 5 ж 67 89 " * 10, plain),  # single letters among numbers
        ("Je suis désolé, je ne peux pas.", plain),
        ("La mer s'étend sous le ciel. Les mouettes crient au-dessus des vagues.", plain),
        ("Море шумит под небом, чайки кричат над волнами и ветер поёт.", plain),
        ("समुद्र के ऊपर आसमान नीला है और लहरें गाती हैं।", plain),
    ):
        cases.append((prompt, response, checkers, 5))
    return cases


def test_the_guard_gives_the_reasons_of_the_rounds_7_to_9_path(fused) -> None:
    cases = _cases()
    fast = [guard.content_rejection(p, "plain", r, c, m) for p, r, c, m in cases]
    before = [guard._rejection(p, "plain", r, c, m) for p, r, c, m in cases]
    assert fast == before
    # The rules the figures feed were reached, outside ASCII too.
    assert {guard.FEW_DISTINCT, guard.REPEATED, guard.NO_WORDS, guard.ECHO, guard.LITERALS} <= set(fast)
    outside = {f for f, (_, r, _, _) in zip(fast, cases, strict=True) if not r.isascii()}
    assert {guard.FEW_DISTINCT, guard.ECHO, guard.LITERALS} <= outside


def test_one_kernel_pass_and_no_round_9_kernels(fused, monkeypatch) -> None:
    # Rounds 7-9 tokenised and hashed an ASCII response twice (the copies' kernel, then the
    # figures' kernel) and left any other response to Python's counts: neither is called now.
    def not_called(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the round-9 path ran")

    monkeypatch.setattr(copies_jit.Vocabulary, "starts", not_called)
    monkeypatch.setattr(guard_jit, "figures", not_called)
    monkeypatch.setattr(guard, "strip_copies", not_called)
    calls = []
    real = guard_jit.fused_figures

    def counted(*args: Any) -> Any:
        calls.append(args[1])
        return real(*args)

    monkeypatch.setattr(guard_jit, "fused_figures", counted)
    checkers = tuple(build_checkers(["punctuation:no_comma"], [{}]))
    prompt = "Write an essay about the sea and the sky."
    for response in (
        "The sea and the sky meet at the horizon where the light changes all day long.",
        "La mer et le ciel se rejoignent à l'horizon où la lumière change toute la journée.",
        "Море и небо встречаются на горизонте где свет меняется весь день.",
    ):
        assert guard.content_rejection(prompt, "plain", response, checkers, 5) is None
    assert len(calls) == 3


def _fnv(token: bytes) -> int:
    h = guard_jit._HASH_START
    for byte in token:
        h = ((h ^ byte) * guard_jit._HASH_PRIME) & 0xFFFF_FFFF_FFFF_FFFF
    return h


def test_tokens_made_to_collide_are_counted_in_python(fused) -> None:
    # 300 distinct accented tokens sharing their hash's low 10 bits (the kernel's table of 1,024
    # slots for them): the kernel gives up and the Python path counts, in linear time.
    rng = random.Random(5)
    found: list[str] = []
    while len(found) < 300:
        token = "é" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(6))
        if _fnv(token.encode("utf-8")) & 1023 == 0 and token not in found:
            found.append(token)
    response = " ".join(found)
    text, _ = guard.token_bytes(response)
    assert text is not None and guard_jit.fused_figures(fused, text, None, 0, guard.DIVERSITY_WINDOW) is None
    checkers = tuple(build_checkers(["punctuation:no_comma"], [{}]))
    prompt = "Write an essay about gardens."
    assert guard.content_rejection(prompt, "plain", response, checkers, 8) == guard._rejection(
        prompt, "plain", response, checkers, 8
    )


def test_with_the_copies_kernels_off_the_guard_counts_without_the_fused_pass(fused, monkeypatch) -> None:
    # The round-7 switch (``bench/_ifeval_speed_off.py``) takes the copies' kernels away while the
    # figures' kernel stays: the fused pass, which reads the prompt's table through them, stands
    # aside (it raised a TypeError there before) and the verdicts stay the same.
    cases = _cases()[:200]
    fast = [guard.content_rejection(p, "plain", r, c, m) for p, r, c, m in cases]
    guard.prompt_profile.cache_clear()  # (prompts' tables made anew, without the kernels)
    guard._guard_plan.cache_clear()
    monkeypatch.setattr(prose_jit, "_COPIES", (None, None))
    monkeypatch.setattr(prose_jit, "_started", True)  # (no background load meanwhile)
    assert [guard.content_rejection(p, "plain", r, c, m) for p, r, c, m in cases] == fast
