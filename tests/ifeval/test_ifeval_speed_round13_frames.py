"""Round 13's speed work on round 12's stuffing rules gives the answers it gave before (issue 26).

``stuffing.framed_units`` now leaves through one compiled pass over the response's bytes
(``frames_jit``: the task's mentions counted, the pairs of words after and before a prompt word
counted, no string made), where round 12 tokenised every response into strings and read the same
exits with regexes over the joined tokens; a response whose only characters outside ASCII are not
letters (curly quotes, dashes) is read by it too, with those characters as spaces.
``mixed_script`` answers None at once for a Latin prompt over a response without a Greek or
Cyrillic letter. Compared with the path they replaced (``stuffing.ROUND_13`` off, as
``bench/_ifeval_speed_off.without_speed_round13`` sets it): random texts against the kernel's plain
reading, the labelled responses under their own and other prompts, round 12's hostile tables,
texts with characters outside ASCII, and whole verdicts of the newest training ids.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from rlvr_ifeval import frames_jit, prose_jit, relevance, stuffing
from rlvr_ifeval.scoring import build_checkers
from tests.ifeval.test_ifeval_round12_stuffing import LABELLED, MIXED, STUFFED, TASKS
from tests.ifeval.test_ifeval_verify_speed_equivalence import _cases, _newest_training_ids, _rows


@contextlib.contextmanager
def _round_12() -> Iterator[None]:
    saved = stuffing.ROUND_13, stuffing._alphabets_of, stuffing._kept_text
    stuffing.ROUND_13 = False
    stuffing._alphabets_of = stuffing._alphabets_of.__wrapped__  # type: ignore[assignment]
    stuffing._kept_text = stuffing._kept_text.__wrapped__  # type: ignore[assignment]
    try:
        yield
    finally:
        stuffing.ROUND_13, stuffing._alphabets_of, stuffing._kept_text = saved


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return _rows()


@pytest.fixture(scope="module")
def kernel() -> Any:
    pytest.importorskip("numba", reason="without numba the frames are read by regexes, as in round 12")
    prose_jit.load()
    found = prose_jit.frames_kernel()
    assert found is not None
    return found


def _framed_both(prompt: str, head: str, task: frozenset[str], needed: int) -> Any:
    now = stuffing.framed_units(prompt, head, task, needed)
    with _round_12():
        before = stuffing.framed_units(prompt, head, task, needed)
    assert now == before, (prompt[:60], head[:80])
    return now


def _task_units(prompt: str, checkers: Any) -> Any:
    return relevance.task_units(prompt, tuple(checkers), round9=True, round10=True)


PAIRS = [["dusk", "quiet"], ["the", "was"], ["a", "extraordinarilylongword"], ["quiet", "."], ["teal", "dusk"]]


def _random_text(rng: random.Random, vocabulary: list[str], ours: list[str], fillers: list[list[str]]) -> str:
    # Chunks: a word, or a prompt word beside two words of a small set (frames repeat), or two
    # prompt words with one word between (one mention).
    chunks: list[str] = []
    for _ in range(rng.randrange(0, 40)):
        kind = rng.randrange(4)
        pair = rng.choice(fillers) if rng.random() < 0.7 else rng.choices(vocabulary, k=2)
        mention = rng.choice(ours)
        if kind == 0:
            chunks.append(rng.choice(vocabulary))
        elif kind == 1:
            chunks += [mention, *pair]
        elif kind == 2:
            chunks += [*pair, mention]
        else:
            chunks += [*pair, mention, rng.choice(["and", "or", "of"]), rng.choice(ours), *pair[::-1]]
    return " ".join(chunks)


def test_the_kernel_reads_as_plainly_and_exits_only_where_round_12_finds_nothing(kernel) -> None:
    # Few words, so that pairs repeat: prompt words (some the task's), stop words, words of one
    # and two letters, words longer than a key, sentence marks and line ends.
    rng = random.Random(13)
    prompt_text = "Write a news report about choosing a laptop, tea and gardening."
    prompt = stuffing._prompt_units(prompt_text)
    task = frozenset({"laptop", "choosi", "news", "tea", "zebra"})
    stop = stuffing.STOP_WORDS
    vocabulary = [
        "laptop", "laptops", "choosing", "news", "reports", "tea", "teal", "gardening", "the", "and", "was",
        "about", "he", "a", "dusk", "quiet", "thought", "extraordinarilylongword", "internationalization",
        ".", "!", "\n", ";", ",", "3", "it's",
    ]  # fmt: skip
    ours = ["laptop", "laptops", "choosing", "news", "tea", "gardening", "reports"]
    counted = {"exit": 0, "exit past a repeated pair": 0, "Python reading": 0, "found": 0}
    for _ in range(3000):
        text = _random_text(rng, vocabulary, ours, PAIRS)
        data = np.frombuffer(text.encode("ascii").translate(frames_jit.ASCII_TOKENS), dtype=np.uint8)
        args = (frames_jit.keys(prompt), frames_jit.keys(prompt & task), frames_jit.keys(stop))
        named, full = kernel(data, *args, *frames_jit._LIMITS)
        assert (named, not full) == frames_jit.python_reading(text, prompt, task, stop), text
        with _round_12():
            # The strictest need (a large one: free units never reach it): round 12's answer.
            before = stuffing.framed_units(prompt_text, text, task, 99)
        if not full:
            assert before is None, text  # an exit is only ever where round 12 finds nothing
            counted["exit"] += 1
            lines = stuffing._kept_text(text)
            masked = ["\x01" if len(t) >= 3 and t[:6] in prompt else t for t in stuffing._tokens(text, lines)]
            counted["exit past a repeated pair"] += stuffing._may_frame(masked)
        else:
            counted["Python reading"] += 1
            counted["found"] += before is not None
    assert min(counted.values()) > 50, counted  # every answer was compared


def test_labelled_responses_frame_alike_and_exit_compiled(rows, kernel) -> None:
    rng = random.Random(13)
    compiled = checked = 0
    for row in rows:
        head = row["response"][: relevance.MAX_RELEVANCE_CHARS]
        for other in [row, *rng.sample(rows, 2)]:
            found = _task_units(other["prompt"], build_checkers(other["instruction_id_list"], other["kwargs"]))
            for needed in (1, max(1, found.needed), 99):
                _framed_both(other["prompt"], head, found.units, needed)
            reading = stuffing.compiled_reading(other["prompt"], head, found.units)
            compiled += reading is not None and reading[1]
            checked += 1
    # Round 12 read every one of these with regexes; most leave through the kernel now.
    assert compiled > 0.6 * checked, (compiled, checked)


@pytest.mark.parametrize("name", list(STUFFED), ids=list(STUFFED))
def test_stuffed_frames_are_found_either_way(name: str, kernel) -> None:
    found = 0
    for t in TASKS:
        text = STUFFED[name](t)
        checkers = build_checkers(t.answer["instruction_id_list"], t.answer["kwargs"])
        units = _task_units(t.prompt, checkers)
        for variant in (text, text.lower(), text.upper(), text.replace(" and ", " \u2014 and "), f"\u201c{text}\u201d"):
            found += _framed_both(t.prompt, variant, units.units, max(1, units.needed)) is not None
    # (the German and French frames hold letters outside ASCII: read by the regexes, still alike)
    assert found > 0


@pytest.mark.parametrize(
    "text",
    [
        "He thought about laptop \u2019n\u2019 news, then about laptop \u2019n\u2019 choosing \u2014 "
        "and about laptop \u2019n\u2019 news again\u2026 " * 3,
        "Caf\u00e9 talk: he thought about laptop and news. He thought about laptop and choosing. " * 3,
        "x\u00b2 he thought about laptop and news; x\u00b2 he thought about news and laptop. " * 3,
        "\ufb01ne: he thought about laptop and news\u3002he thought about choosing and news\u3002 " * 3,
        "\u0422he thought about laptop and news. \u03a4he thought about choosing and news. " * 3,
        "He thought about laptop and news\u00a0today. He thought about choosing and news\u00a0today. " * 3,
        "\u201cLaptops\u201d \u2014 a report \u2014 on choosing \u2014 for the news desk.\n" * 4,
    ],
)
def test_characters_outside_ascii_frame_alike(text: str, kernel) -> None:
    t = TASKS[0]
    checkers = build_checkers(t.answer["instruction_id_list"], t.answer["kwargs"])
    units = _task_units(t.prompt, checkers)
    for needed in (1, max(1, units.needed), 99):
        _framed_both(t.prompt, text, units.units, needed)


def test_mixed_script_alike(rows) -> None:
    prompts = [TASKS[0].prompt, "Напишите эссе о велосипеде.", "Γράψτε ένα δοκίμιο.", "Write about μm and Δx."]
    texts = [MIXED[name](t) for name in MIXED for t in TASKS[:2]] + [
        r["response"] for r in rows if not r["response"].isascii()
    ]
    texts += [
        "\u201cQuoted\u201d caf\u00e9 na\u00efve r\u00e9sum\u00e9 " * 10,
        "The word маяк and the word φάρος " * 10,
    ]
    found = 0
    for prompt in prompts:
        for text in texts:
            now = stuffing.mixed_script(prompt, text, ())
            with _round_12():
                assert stuffing.mixed_script(prompt, text, ()) == now, (prompt, text[:80])
            found += now is not None
    assert found > 0  # (the hostile table is still refused)


def test_labels_are_read_as_before(kernel) -> None:
    # ``label_only`` is unchanged; the whole rule over its table, on and off, as a guard that the
    # frame pass did not take a labelled text away from it.
    for name in LABELLED:
        for t in TASKS:
            text = LABELLED[name](t)
            checkers = build_checkers(t.answer["instruction_id_list"], t.answer["kwargs"])
            units = _task_units(t.prompt, checkers)
            now = stuffing.stuffed(t.prompt, text, checkers, units.units, units.needed, label_share=0.0)
            with _round_12():
                before = stuffing.stuffed(t.prompt, text, checkers, units.units, units.needed, label_share=0.0)
            assert now == before, name


def test_whole_verdicts_either_way(rows, kernel) -> None:
    verifiers = _newest_training_ids(rows)
    cases = list(_cases(rows, 1))[1::6]
    for name, verifier in verifiers.items():
        now = [verifier.verify(task, response) for task, response in cases]
        with _round_12():
            before = [verifier.verify(task, response) for task, response in cases]
        assert [v.model_dump() for v in now] == [v.model_dump() for v in before], name


def test_task_mentions_count_as_the_tokens_do(rows, kernel) -> None:
    # The shared reading's count: content words of the head (three letters or more, not stop
    # words) whose unit is the prompt's and the task's, over ``stuffing._tokens``' words.
    rng = random.Random(31)
    answered = 0
    for row in rows:
        head = row["response"][: relevance.MAX_RELEVANCE_CHARS]
        for other in [row, rng.choice(rows)]:
            task = _task_units(other["prompt"], build_checkers(other["instruction_id_list"], other["kwargs"])).units
            ours = stuffing._prompt_units(other["prompt"])
            plain = sum(
                1
                for t in stuffing._tokens(head)
                if len(t) >= 3 and t not in stuffing.STOP_WORDS and t[:6] in ours and t[:6] in task
            )
            counted = stuffing.task_mentions(other["prompt"], head, task)
            if counted is not None:
                assert counted == plain, (other["prompt"][:60], head[:60])
                answered += 1
    assert answered > len(rows)  # (most heads are read by the kernel)


def test_a_kernel_that_disagrees_is_not_used() -> None:
    # ``compile_kernel`` raises (and ``prose_jit.load`` leaves the frames to the regexes) when its
    # check fails: a kernel that always exits, or never does, fails it.
    assert not frames_jit.check(lambda *args: (0, 0))
    assert not frames_jit.check(lambda *args: (0, 1))
