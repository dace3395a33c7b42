"""The saved parser prediction cache (``rlvr_math.parser_snapshot``) and its generic corpus.

The cache is class-level state of the generated parser, so each measurement runs in a fresh
interpreter: one that loads the shipped snapshot and one that builds its cache from nothing
must convert every answer to the same expression (by ``srepr``), and the first must build
far fewer DFA states while doing so (the snapshot is really in use).
"""

from __future__ import annotations

import gzip
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rlvr_math import parser_snapshot, shape_corpus
from tests.helpers.data import math_answers, read_jsonl, shared_dir

_PROBE = textwrap.dedent(
    """
    import json, sys
    from rlvr_math import parse_replay, parser_snapshot
    mode, answers_path = sys.argv[1], sys.argv[2]
    if mode == "none":
        parser_snapshot._loaded = False  # as if no snapshot matched: build the cache from nothing
    elif mode == "after-math-verify":
        from math_verify import parse
        parse("$\\frac{1}{2}x + 3 = y$")  # math-verify predicts some decisions first
        assert parser_snapshot.load()
    elif mode != "shipped":
        assert parser_snapshot.load(__import__("pathlib").Path(mode)) is False
    import sympy
    from rlvr_math import latex_parse
    from antlr4.atn.ParserATNSimulator import ParserATNSimulator
    built = 0
    real = ParserATNSimulator.computeTargetState
    def counting(self, dfa, previous, t):
        global built
        built += 1
        return real(self, dfa, previous, t)
    ParserATNSimulator.computeTargetState = counting
    convert = latex_parse._machinery()[0]
    results = []
    for latex in json.load(open(answers_path)):
        parse_replay.forget()  # every parse predicts; none is replayed
        try:
            results.append(sympy.srepr(convert(latex)))
        except Exception as exc:
            results.append("error: " + type(exc).__name__)
    print(json.dumps({"loaded": bool(parser_snapshot._loaded), "built": built, "results": results}))
    """
)


def _answers() -> list[str]:
    return math_answers(math500_every=3)


def _probe(mode: str, answers: list[str], tmp_path: Path) -> dict:
    answers_path = tmp_path / "answers.json"
    answers_path.write_text(json.dumps(answers), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, mode, str(answers_path)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _shipped() -> tuple[dict, dict]:
    with gzip.open(parser_snapshot.SNAPSHOT_PATH, "rb") as fh:
        return parser_snapshot._unpack(fh.read())


def _write(path: Path, header: dict, arrays: dict) -> None:
    path.write_bytes(gzip.compress(parser_snapshot._pack(header, arrays), compresslevel=1))


def test_the_shipped_snapshot_is_for_the_installed_parser():
    # If this fails after an upgrade of latex2sympy2_extended or antlr4, the snapshot is
    # not used (verdicts unchanged, first parses slower): regenerate it with
    # `python -m rlvr_math.build_snapshot` and commit the file.
    header, arrays = _shipped()
    assert header["key"] == parser_snapshot.grammar_key()
    assert len(arrays["st_flags"]) > 10_000


def test_answers_convert_the_same_with_the_snapshot_and_it_saves_prediction_work(tmp_path):
    answers = _answers()
    assert len(answers) > 300
    with_snapshot = _probe("shipped", answers, tmp_path)
    from_nothing = _probe("none", answers, tmp_path)
    # Decisions math-verify has predicted keep their own cache; the others get the saved one.
    partly = _probe("after-math-verify", answers, tmp_path)
    assert with_snapshot["loaded"] and partly["loaded"] and not from_nothing["loaded"]
    for probe in (with_snapshot, partly):
        differing = [(latex, a, b) for latex, a, b in zip(answers, probe["results"], from_nothing["results"]) if a != b]
        assert differing == []
    assert sum(not r.startswith("error") for r in with_snapshot["results"]) > 0.8 * len(answers)  # a real comparison
    # The snapshot was built from generic answers, none of these: most prediction steps for
    # them are found in it anyway.
    assert with_snapshot["built"] < 0.5 * from_nothing["built"], (with_snapshot["built"], from_nothing["built"])
    assert partly["built"] < 0.5 * from_nothing["built"], (partly["built"], from_nothing["built"])


def test_a_loaded_snapshot_writes_back_byte_for_byte(tmp_path):
    # Loading rebuilds every state, context and predicate (in a process with its own string
    # hash seed); writing them out again from there must give the same bytes, fingerprints
    # included, so nothing is lost or altered on the way and the fingerprints are portable.
    again = tmp_path / "again.bin.gz"
    code = (
        "import pathlib, sys\n"
        "from rlvr_math import parser_snapshot, snapshot_writer\n"
        "assert parser_snapshot.load()\n"
        "snapshot_writer.dump(pathlib.Path(sys.argv[1]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(again)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert gzip.decompress(again.read_bytes()) == gzip.decompress(parser_snapshot.SNAPSHOT_PATH.read_bytes())


def _foreign(path: Path) -> None:
    _write(path, {"key": "2:other:0123456789abcdef", "predicates": [], "dfas": []}, {})


def _truncated(path: Path) -> None:
    blob = gzip.decompress(parser_snapshot.SNAPSHOT_PATH.read_bytes())
    path.write_bytes(gzip.compress(blob[: len(blob) // 2], compresslevel=1))


def _edge_out_of_range(path: Path) -> None:
    header, arrays = _shipped()
    arrays["edges"][1] = len(arrays["st_flags"]) + 5
    _write(path, header, arrays)


def _context_after_its_child(path: Path) -> None:
    header, arrays = _shipped()
    child = next(i for i, kind in enumerate(arrays["ctx_kind"]) if kind == 1 and arrays["ctx_a"][i] >= 0)
    arrays["ctx_a"][child] = child  # a context its own parent: a cycle
    _write(path, header, arrays)


def _offsets_disagree(path: Path) -> None:
    header, arrays = _shipped()
    arrays["st_configs_at"][-1] -= 1
    _write(path, header, arrays)


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_bytes(b"not gzip at all"),
        lambda path: path.write_bytes(gzip.compress(b"RLVRDFA\x00junk")),
        _foreign,
        _truncated,
        _edge_out_of_range,
        _context_after_its_child,
        _offsets_disagree,
    ],
    ids=["not-gzip", "junk", "other-grammar", "truncated", "edge-out-of-range", "context-cycle", "offsets"],
)
def test_a_damaged_or_foreign_snapshot_is_not_installed_and_parsing_still_works(damage, tmp_path):
    path = tmp_path / "snapshot.bin.gz"
    damage(path)
    answers = ["\\frac{3}{4}x + 1", "(1, 2]", "\\begin{pmatrix} 1 & 2 \\end{pmatrix}"]
    result = _probe(str(path), answers, tmp_path)
    assert not result["loaded"]
    assert result["results"][0] == "Add(Mul(Rational(3, 4), Symbol('x', real=True)), Integer(1))"
    assert all(not r.startswith("error") for r in result["results"])


# -- the corpus -----------------------------------------------------------------------------------


def _squashed(text: str) -> str:
    return re.sub(r"\s+", "", text.replace("\\\\", "\\"))


def test_the_corpus_is_fixed_and_covers_the_constructs_answers_use():
    corpus = shape_corpus.corpus()
    assert corpus == shape_corpus.corpus()
    assert len(set(corpus)) > 0.9 * len(corpus)
    joined = "\n".join(corpus)
    for construct in (
        "\\frac",
        "\\sqrt",
        "^",
        "_",
        "\\pi",
        "\\le",
        "=",
        "\\cup",
        "\\infty",
        "\\begin{pmatrix}",
        "\\text{",
        "\\%",
        "\\$",
        "^\\circ",
        ":",
        "\\{",
        "\\sum",
        "\\int",
        "\\binom",
        "!",
        "|",
    ):
        assert construct in joined, construct


def test_no_corpus_answer_is_an_answer_of_the_shared_data():
    # The snapshot must not be a copy of what the benchmark and the tests time or check.
    data_answers: set[str] = set()
    for path in sorted(shared_dir().glob("*.jsonl")):
        for row in read_jsonl(path.name):
            for key in ("gold", "pred", "answer", "expected_answer"):
                value = row.get(key)
                if isinstance(value, str):
                    data_answers.add(_squashed(value.strip().strip("$")))
    assert len(data_answers) > 1000
    shared = {a for a in shape_corpus.corpus() if _squashed(a) in data_answers}
    # Short answers coincide by chance (a number, a letter, "30^\\circ", "\\text{(B)}", "\\$36"):
    # a shape every corpus has. Anything longer in common would be a copy.
    assert sorted(a for a in shared if len(_squashed(a)) > 12) == []
