"""Round 14's speed work on round 13's aside rule gives the answers it gave before (issue 26).

``asides.aside_mentions`` now reads its response through one compiled pass over the kept text's
bytes (``asides_jit``: the prompt's words, content words, sentences, runs, edges, cores and free
mentions, no string made), where round 13 tokenised every response into Python strings and walked
its sentences over lists. Compared with the path it replaced (``asides.ROUND_14`` off, as
``bench/_ifeval_speed_off.without_speed_round14`` sets it): random texts built to have asides,
the labelled responses under their own and other prompts, round 13's hostile tables, texts with
characters outside ASCII, and whole verdicts of the newest training ids.

Also here: ``frames_jit``'s pass (round 13) sized its token arrays at half the text's bytes, but a
sentence mark is a token of its own, so an unspaced run of them ("a.b.c.d...") wrote past the
arrays' ends (numba checks no bounds): heap corruption, a crashed worker. The test below runs it in
a child process, which died before the fix.
"""

from __future__ import annotations

import contextlib
import random
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from rlvr_ifeval import asides, asides_jit, prose_jit, relevance, stuffing
from rlvr_ifeval.relevance_units import STOP_WORDS
from rlvr_ifeval.scoring import build_checkers
from tests.ifeval.test_ifeval_round13_stuffing import ASIDES, BAKERY, KEYWORD_TASKS, LIGHTHOUSE, TASKS, _rotated
from tests.ifeval.test_ifeval_verify_speed_equivalence import _cases, _newest_training_ids, _rows


@contextlib.contextmanager
def _round_13() -> Iterator[None]:
    saved = asides.ROUND_14
    asides.ROUND_14 = False
    try:
        yield
    finally:
        asides.ROUND_14 = saved


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return _rows()


@pytest.fixture(scope="module")
def kernel() -> Any:
    pytest.importorskip("numba", reason="without numba the asides are read in Python, as in round 13")
    prose_jit.load()
    found = prose_jit.asides_kernel()
    assert found is not None
    return found


def _task_units(prompt: str, checkers: Any) -> Any:
    return relevance.task_units(prompt, tuple(checkers), round9=True, round10=True)


def _asides_both(prompt: str, head: str, task: frozenset[str], needed: int) -> Any:
    now = asides.aside_mentions(prompt, head, task, needed)
    with _round_13():
        before = asides.aside_mentions(prompt, head, task, needed)
    assert now == before, (prompt[:60], head[:80])
    return now


CORES = [
    "the keeper trimmed every wick and polished the brass lens until morning came",
    "she folded the dough on the floured table",
    "gulls circled",
    "a delivery boy stacked the warm bread in baskets on his handcart near the old granite harbour",
]
FRAMES = ["while he thought about {}", "as {} came to mind", "recalling {}", "{}", "his mind on {} and {}"]


def _random_text(rng: random.Random, ours: list[str], glue: list[str]) -> str:
    # Sentences: a core with a mention at its end or start (an aside), in its middle, none, or a
    # run of prompt words alone; the marks between them varied, unspaced runs of marks too.
    out: list[str] = []
    ours = ours if rng.random() < 0.7 else [rng.choice(ours)]  # (one word in every aside: a refrain)
    for _ in range(rng.randrange(0, 12)):
        core = rng.choice(CORES).split()
        frame = rng.choice(FRAMES).format(*(rng.choice(ours) for _ in range(2)))
        kind = rng.choice((0, 0, 0, 1, 1, 2, 3, 4))  # (asides mostly: the refusals' branches too)
        if kind == 0:
            words = [*core, frame]
        elif kind == 1:
            words = [frame, *core]
        elif kind == 2:
            cut = rng.randrange(len(core) + 1)
            words = [*core[:cut], frame, *core[cut:]]
        elif kind == 3:
            words = core
        else:
            words = [rng.choice(ours) for _ in range(rng.randrange(1, 5))]
        words += rng.choices(glue, k=rng.randrange(3))
        out.append(" ".join(words) + rng.choice([". ", "! ", "\n", "; ", "...", ".\n\n", " ", ":"]))
    return "".join(out)


def test_the_kernel_reads_as_python_does(kernel) -> None:
    rng = random.Random(14)
    ours = stuffing._prompt_units("Write a report about winter weather in Siberian towns and laptops.")
    task = frozenset({"winter", "weathe", "siberi", "zebra"})
    words = ["winter", "weather", "siberian", "towns", "laptops", "report", "reports", "writes", "winterish"]
    glue = ["the", "and", "was", "a", "of", "extraordinarilylongword", "internationalization", "it's", "3"]
    counted = {"exit": 0, "read through": 0, "one filler": 0}
    for _ in range(3000):
        text = stuffing._kept_text(_random_text(rng, words, glue))
        got = asides_jit.read(kernel, text, ours, task, STOP_WORDS, asides.BOUNDS)
        assert got == asides.python_reading(text, ours, task), text
        counted["exit" if got is None else "read through"] += 1
        counted["one filler"] += got is not None and got[3] < asides.MIN_FILLERS
    assert min(counted.values()) > 15, counted  # every branch was compared (seeded: the same texts each run)


def test_labelled_responses_read_alike(rows, kernel) -> None:
    rng = random.Random(14)
    compiled = checked = 0
    for row in rows:
        head = row["response"][: relevance.MAX_RELEVANCE_CHARS]
        text = stuffing._kept_text(asides._inserts_last(head))
        for other in [row, *rng.sample(rows, 2)]:
            found = _task_units(other["prompt"], build_checkers(other["instruction_id_list"], other["kwargs"]))
            for needed in (1, max(1, found.needed)):
                _asides_both(other["prompt"], head, found.units, needed)
            ours = stuffing._prompt_units(other["prompt"])
            got = asides._compiled(text, ours, found.units)
            if got is not asides._UNREAD:
                # (before the task-mentions exit too: the whole reading compared, not only its ends)
                assert got == asides.python_reading(text, ours, found.units), (other["prompt"][:60], head[:60])
                compiled += 1
            checked += 1
    assert compiled > 0.8 * checked, (compiled, checked)  # most are read by the kernel


@pytest.mark.parametrize("name", list(ASIDES), ids=list(ASIDES))
def test_round_13s_asides_are_found_either_way(name: str, kernel) -> None:
    found = 0
    for t in TASKS:
        text = ASIDES[name](t)
        units = _task_units(t.prompt, build_checkers(t.answer["instruction_id_list"], t.answer["kwargs"]))
        for variant in (text, text.lower(), text.upper(), text.replace(". ", ".\n"), f"\u201c{text}\u201d"):
            found += _asides_both(t.prompt, variant, units.units, max(1, units.needed)) is not None
    assert found > 0  # (the hostile table is still refused; German and French read in Python)


@pytest.mark.parametrize("essay", [BAKERY, LIGHTHOUSE], ids=["bakery", "lighthouse"])
def test_keyword_asides_are_found_either_way(essay: tuple[str, ...], kernel) -> None:
    found = 0
    for t in KEYWORD_TASKS:
        units = _task_units(t.prompt, build_checkers(t.answer["instruction_id_list"], t.answer["kwargs"]))
        found += _asides_both(t.prompt, _rotated(essay, t), units.units, max(1, units.needed)) is not None
    assert found == len(KEYWORD_TASKS)


@pytest.mark.parametrize(
    "shape",
    [
        "{} \u2014 while he thought about {}\u2026",
        "\u201c{}\u201d, recalling {}.",
        "{} as {} came to mind\u3002",
        "Caf\u00e9 {} with {} somewhere in his head.",
        "{}\u00a0as {} came to mind.",
        "{} \u2013 {} \u2013 and the lens.",
    ],
)
def test_characters_outside_ascii_read_alike(shape: str, kernel) -> None:
    t = TASKS[1]
    units = _task_units(t.prompt, build_checkers(t.answer["instruction_id_list"], t.answer["kwargs"]))
    fillers = ["winter", "siberian", "winter towns", "towns", "siberian", "winter", "towns", "winter"]
    text = " ".join(shape.format(s, w) for s, w in zip(LIGHTHOUSE, fillers))
    for needed in (1, max(1, units.needed)):
        _asides_both(t.prompt, text, units.units, needed)


def test_inserts_move_alike_stretch_by_stretch(rows) -> None:
    # Round 14 rewrites each stretch between sentence marks on its own, and only a stretch that
    # holds an opener: the same text as one pass of the pattern over the whole head.
    rng = random.Random(41)
    alphabet = [
        "a",
        "bc",
        " ",
        " ",
        "\t",
        "(",
        ")",
        "[",
        "]",
        "-",
        " - ",
        "\u2014",
        "\u2013",
        ".",
        ";",
        "\n",
        "!",
        "x y",
    ]
    texts = [row["response"][: relevance.MAX_RELEVANCE_CHARS] for row in rows]
    texts += ["".join(rng.choices(alphabet, k=rng.randrange(1, 120))) for _ in range(4000)]
    texts += [ASIDES[name](t) for name in ("brackets-inside", "dashes-inside") for t in TASKS]
    moved = 0
    for text in texts:
        now = asides._inserts_last(text)
        with _round_13():
            before = asides._inserts_last(text)
        assert now == before, text[:120]
        moved += now != text
    assert moved > 500, moved


def test_whole_verdicts_either_way(rows, kernel) -> None:
    verifiers = _newest_training_ids(rows)
    cases = list(_cases(rows, 1))[2::6]
    for name, verifier in verifiers.items():
        now = [verifier.verify(task, response) for task, response in cases]
        with _round_13():
            before = [verifier.verify(task, response) for task, response in cases]
        assert [v.model_dump() for v in now] == [v.model_dump() for v in before], name


_REFERENCE = (asides.python_reading, STOP_WORDS, asides.BOUNDS)


def test_a_kernel_that_disagrees_is_not_used() -> None:
    # ``asides`` checks the kernel before its first use and keeps its Python reading when the check
    # fails: a kernel that always exits, or one that never finds a second filler, fails it.
    empty, none = np.zeros(0, np.int64), np.zeros(1, np.int64)
    assert not asides_jit.check(lambda *args: (0, 0, 0, 0, empty, none), *_REFERENCE)
    assert not asides_jit.check(lambda *args: (1, 4, 0, 0, np.ones(4, np.int64), np.arange(5)), *_REFERENCE)


_UNSPACED_MARKS = """
from rlvr_ifeval import frames_jit, prose_jit, stuffing
prose_jit.load()
kernel = prose_jit.frames_kernel()
assert kernel is not None
prompt, task = frozenset({"laptop", "news"}), frozenset({"laptop"})
for text in ("x." * 20000 + " laptop laptop laptop", ".!?" * 20000, "a;b:c\\n" * 9000):
    got = frames_jit.read(kernel, text, prompt, task, stuffing.STOP_WORDS)
    assert got == frames_jit.python_reading(text, prompt, task, stuffing.STOP_WORDS), text[:20]
print("ok")
"""


def test_unspaced_sentence_marks_stay_inside_the_frames_kernels_arrays(kernel) -> None:
    # In a child: before the fix the kernel wrote past its arrays and the process died
    # ("corrupted double-linked list", SIGABRT) or went on with a corrupted heap.
    done = subprocess.run([sys.executable, "-c", _UNSPACED_MARKS], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", (done.returncode, done.stderr[-500:])
