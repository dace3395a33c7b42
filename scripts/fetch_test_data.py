#!/usr/bin/env python3
"""Fetch the peer test data from its public sources into a folder (default ``../shared/data``).

    python scripts/fetch_test_data.py [FOLDER] [--only NAME ...] [--mirrors DIR] [--check REFERENCE]

The test suite reads other projects' test data (tests/helpers/data.py; docs/test-data.md says
which tests need which file). This script downloads the files that are plain copies or simple
re-shapes of a public file, each from a pinned commit, and writes them in the layout the tests
read. It needs the network (GitHub), the standard library only, and writes nothing but FOLDER.

Ten more files are *derived*: test cases pulled out of other projects' pytest files with their
labels, labelled response sets merged from several files, Lean cases assembled from three
sources. The scripts that built them are not public, so this script cannot rebuild them: it
names them and their sources, and the tests that need them keep skipping (with that reason)
until the folder holds them. Nothing is made up to fill the gap.

``--mirrors DIR`` reads the same commits from local bare git mirrors (``DIR/owner+name/repo``)
instead of the network; ``--check REFERENCE`` compares what was written, row by row, with an
existing copy of the data (how this script was checked against the copy CI uses).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import re
import subprocess
import sys
import tarfile
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FOLDER = REPO_ROOT.parent / "shared" / "data"
TIMEOUT_S = 60


# -- where the bytes come from ---------------------------------------------------------------------
class GitHub:
    """Files and folders of a repository at a commit, over HTTPS."""

    def file(self, repo: str, commit: str, path: str) -> bytes:
        return _get(f"https://raw.githubusercontent.com/{repo}/{commit}/{path}")

    def folder(self, repo: str, commit: str, path: str) -> dict[str, bytes]:
        archive = tarfile.open(fileobj=io.BytesIO(_get(f"https://codeload.github.com/{repo}/tar.gz/{commit}")))
        found = {}
        for member in archive.getmembers():
            inner = member.name.split("/", 1)[1] if "/" in member.name else ""
            if member.isfile() and inner.startswith(path.rstrip("/") + "/"):
                handle = archive.extractfile(member)
                if handle is not None:
                    found[inner[len(path.rstrip("/")) + 1 :]] = handle.read()
        if not found:
            raise FileNotFoundError(f"{repo}@{commit} has no folder {path}")
        return found


class Mirrors:
    """The same, read from local bare git mirrors: ``DIR/owner+name/repo``."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _git(self, repo: str, *args: str) -> bytes:
        where = self.root / repo.replace("/", "+") / "repo"
        return subprocess.run(["git", "-C", str(where), *args], check=True, capture_output=True).stdout

    def file(self, repo: str, commit: str, path: str) -> bytes:
        return self._git(repo, "show", f"{commit}:{path}")

    def folder(self, repo: str, commit: str, path: str) -> dict[str, bytes]:
        names = self._git(repo, "ls-tree", "-r", "--name-only", commit, "--", path).decode().splitlines()
        prefix = path.rstrip("/") + "/"
        return {name[len(prefix) :]: self.file(repo, commit, name) for name in names}


def _get(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"User-Agent": "rlvr-envs fetch_test_data"})
    with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
        return response.read()


Source = GitHub | Mirrors


# -- what is built from them -----------------------------------------------------------------------
@dataclass(frozen=True)
class Item:
    name: str
    origin: str
    build: Callable[[Source], dict[str, bytes]]
    """Relative path -> bytes (one file, or a folder's files)."""


def _jsonl(raw: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in raw.decode("utf-8").splitlines() if line.strip()]


def _dump(rows: Iterable[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")


GSM8K = ("openai/grade-school-math", "3101c7d5072418e28b9008a6636bde82a006892c", "grade_school_math/data/test.jsonl")


def gsm8k(src: Source) -> dict[str, bytes]:
    rows = []
    for index, row in enumerate(_jsonl(src.file(*GSM8K))):
        raw = row["answer"].rsplit("####", 1)[1].strip()
        rows.append(
            {
                "problem": row["question"],
                "answer": raw.replace(",", ""),
                "answer_raw": raw,
                "solution": row["answer"],
                "index": index,
                "source": "openai/grade-school-math@3101c7d50724:grade_school_math/data/test.jsonl",
            }
        )
    return {"": _dump(rows)}


MATH500 = ("ZubinGou/math-evaluation-harness", "db77bc6bb2a17c90ed2d63e88ebd8c40a82858c5", "data/math_oai/test.jsonl")


def math500(src: Source) -> dict[str, bytes]:
    note = (
        "openai/prm800k prm800k/math_splits/test.jsonl (LFS oid sha256:35dc4108...; bytes obtained from "
        "ZubinGou/math-evaluation-harness@db77bc6bb2a1:data/math_oai/test.jsonl, sha256 verified identical)"
    )
    rows = [{**row, "source": note} for row in _jsonl(src.file(*MATH500))]
    return {"": _dump(rows)}


AIME24 = ("QwenLM/Qwen2.5-Math", "a45202bd16f1ec06f433442dc1152d0074773465", "evaluation/data/aime24/test.jsonl")
MATHARENA = ("eth-sri/matharena", "81f103e38b1df076afa65ee0a3ffbe148d42e6d2")


def aime(src: Source) -> dict[str, bytes]:
    rows = []
    for row in _jsonl(src.file(*AIME24)):
        match = re.search(r"(\d{4})_AIME_(I+)_Problems/Problem_(\d+)", row["url"])
        if match is None:
            raise ValueError(f"unexpected AIME 2024 url {row['url']!r}")
        year, part, number = match.groups()
        rows.append(
            {
                "problem": row["problem"],
                "answer": _integer(str(row["answer"])),
                "answer_raw": str(row["answer"]),
                "year": int(year),
                "contest": f"AIME {year} {part}",
                "problem_number": int(number),
                "solution": row["solution"],
                "url": row["url"],
                "source": f"QwenLM/Qwen2.5-Math@a45202bd16f1:evaluation/data/aime24/test.jsonl (answer cross-checked "
                f"with eth-sri/matharena@81f103e38b1d:data/aime/aime_2024_{part}/answers.csv)",
            }
        )
    for part in ("I", "II"):
        folder = f"data/aime/aime_2025_{part}"
        answers = csv.DictReader(io.StringIO(src.file(*MATHARENA, f"{folder}/answers.csv").decode("utf-8")))
        for entry in answers:
            number = int(entry["id"])
            rows.append(
                {
                    "problem": src.file(*MATHARENA, f"{folder}/problems/{number}.tex").decode("utf-8").strip(),
                    "answer": _integer(entry["answer"]),
                    "answer_raw": entry["answer"],
                    "year": 2025,
                    "contest": f"AIME 2025 {part}",
                    "problem_number": number,
                    "solution": None,
                    "url": None,
                    "source": f"eth-sri/matharena@81f103e38b1d:{folder}/problems/{number}.tex + answers.csv (data dir "
                    "removed from HEAD in 5e8b18c03490; upstream now points to HF MathArena/aime_2025)",
                }
            )
    rows.sort(key=lambda r: (r["year"], r["contest"], r["problem_number"]))
    return {"": _dump(rows)}


def _integer(answer: str) -> str:
    """AIME answers are integers 0-999; Qwen's file writes some with leading zeros ("025")."""
    text = answer.strip()
    return str(int(text)) if text.isdigit() else text


HUMANEVAL = ("openai/human-eval", "6d43fb980f9fee3c892a914eda09951f772ad10d", "data/HumanEval.jsonl.gz")


def humaneval(src: Source) -> dict[str, bytes]:
    rows = _jsonl(gzip.decompress(src.file(*HUMANEVAL)))
    return {"": _dump({**r, "source": "openai/human-eval@6d43fb980f9f:data/HumanEval.jsonl.gz"} for r in rows)}


MBPP = ("OckBench/OckBench", "b72752a0ba5989d3c212675ec60d3eedcd838628", "data/mbpp.jsonl")
MBPP_SPLITS = ((1, 10, "prompt"), (11, 510, "test"), (511, 600, "validation"), (601, 974, "train"))


def mbpp(src: Source) -> dict[str, bytes]:
    rows = []
    for row in _jsonl(src.file(*MBPP)):
        split = next(name for low, high, name in MBPP_SPLITS if low <= int(row["task_id"]) <= high)
        note = (
            "OckBench/OckBench@b72752a0ba59:data/mbpp.jsonl (third-party mirror of google-research/google-research "
            "mbpp/mbpp.jsonl; see PROVENANCE.md)"
        )
        rows.append({**row, "split": split, "source": note})
    return {"": _dump(rows)}


# The bytes of Google's instruction_following_eval/data/input_data.jsonl (google-research is too large
# to clone; the data collector checked this mirror's copy against Google's file).
IFEVAL = ("josejg/instruction_following_eval", "0c495b2f95155e8b10acb919ae283bfb4d5be6e2")
IFEVAL_DIR = "instruction_following_eval/data"
IFBENCH = ("allenai/IFBench", "db69a6f05689830b0068b8f1529ebcfd2f3b164c")
MINIF2F = ("deepseek-ai/DeepSeek-Prover-V1.5", "2c4ba9119eef74d0d611f494261b2c5bae98c69a", "datasets/minif2f.jsonl")


def minif2f(src: Source) -> dict[str, bytes]:
    keep = ("name", "split", "header", "formal_statement", "informal_prefix")
    note = "deepseek-ai/DeepSeek-Prover-V1.5@2c4ba9119eef:datasets/minif2f.jsonl"
    rows = [{**{k: r[k] for k in keep}, "source": note, "license": "MIT"} for r in _jsonl(src.file(*MINIF2F))]
    return {"": _dump(sorted(rows, key=lambda r: r["name"]))}


def copy(repo: str, commit: str, path: str) -> Callable[[Source], dict[str, bytes]]:
    return lambda src: {"": src.file(repo, commit, path)}


def folder(repo: str, commit: str, path: str, licence: str) -> Callable[[Source], dict[str, bytes]]:
    """A folder of a repository, with the repository's licence beside it."""

    def build(src: Source) -> dict[str, bytes]:
        return {**src.folder(repo, commit, path), licence: src.file(repo, commit, "LICENSE")}

    return build


REPL = ("leanprover-community/repl", "8948401ab4924499421c94b7facdfca5ff27d81d")
KIMINA = ("project-numina/kimina-lean-server", "fb2393de3461db35eda4c714e3fd21187e92ec90")

ITEMS = [
    Item("gsm8k_test.jsonl", "openai/grade-school-math test.jsonl, answer after ####", gsm8k),
    Item("math500.jsonl", "MATH-500 (PRM800K's test split)", math500),
    Item("aime.jsonl", "AIME 2024 (Qwen2.5-Math) + AIME 2025 I/II (MathArena)", aime),
    Item("humaneval.jsonl", "openai/human-eval HumanEval.jsonl.gz", humaneval),
    Item("mbpp.jsonl", "MBPP (the OckBench mirror the tests were checked with) + split", mbpp),
    Item("ifeval_input_data.jsonl", "IFEval input_data.jsonl", copy(*IFEVAL, f"{IFEVAL_DIR}/input_data.jsonl")),
    Item("ifbench_test.jsonl", "allenai/IFBench IFBench_test.jsonl", copy(*IFBENCH, "data/IFBench_test.jsonl")),
    Item("minif2f_statements.jsonl", "DeepSeek-Prover-V1.5 miniF2F statements", minif2f),
    Item("lean_repl_transcripts", "the Lean REPL's own test suite", folder(*REPL, "test", "LICENSE.repl")),
    Item("kimina_server_match", "kimina-lean-server replies", folder(*KIMINA, "tests/match", "LICENSE.kimina")),
]  # fmt: skip

DERIVED = {
    "math_verify_cases.jsonl": "huggingface/Math-Verify@5d148cfaaf99 tests/*.py parametrize lists",
    "math_verify_extraction_cases.jsonl": "Math-Verify@5d148cfaaf99 test_string_extraction.py, test_configs.py",
    "math_equiv_other_cases.jsonl": "hendrycks/math math_equivalence_test.py, verl and open-instruct grader tests",
    "ifeval_unit_cases.jsonl": "google-research instruction_following_eval/instructions_test.py assertions",
    "ifeval_gpt4_responses_labeled.jsonl": "IFEval's GPT-4 responses + a third-party run's strict/loose labels",
    "ifbench_instructions.json": "the instruction registries of allenai/IFBench, open-instruct IFEvalG and IFEval",
    "ifbench_unit_cases.jsonl": "allenai/IFBench@db69a6f05689 instructions_test.py assertions",
    "ifbench_responses_labeled.jsonl": "allenai/IFBench sample_output.jsonl + eval_results_{strict,loose}.jsonl",
    "code_peer_cases.jsonl": "volcengine/verl@b178a3cd56f5 sandbox tests (stdin/stdout cases and expected verdicts)",
    "lean_cases.jsonl": "kimina-lean-server recorded outputs, the Lean REPL's tests, miniF2F `sorry` negatives",
}  # fmt: skip
"""Files built by the data collector's own scripts (not public): named, never faked."""


def _write(target: Path, files: dict[str, bytes]) -> int:
    if list(files) == [""]:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[""])
        return 1
    for rel, data in files.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return len(files)


UNCLAIMED = {"canonical_passes_locally"}
"""A field the reference copy carries from running every canonical solution; this script runs
nothing, so it does not write it, and --check does not compare it."""


def _compare(written: Path, reference: Path) -> str:
    """'same' or what differs; JSONL files are compared row by row, other files byte by byte."""
    if written.is_dir():
        ours = {p.relative_to(written) for p in written.rglob("*") if p.is_file()}
        theirs = {p.relative_to(reference) for p in reference.rglob("*") if p.is_file()}
        differ = [str(p) for p in sorted(ours & theirs) if (written / p).read_bytes() != (reference / p).read_bytes()]
        missing, extra = sorted(map(str, theirs - ours)), sorted(map(str, ours - theirs))
        return (
            "same"
            if not (differ or missing or extra)
            else f"differ {differ[:3]} missing {missing[:3]} extra {extra[:3]}"
        )
    if written.suffix == ".jsonl":
        ours_rows, their_rows = _jsonl(written.read_bytes()), _jsonl(reference.read_bytes())
        if len(ours_rows) != len(their_rows):
            return f"{len(ours_rows)} rows, the reference has {len(their_rows)}"
        for number, (a, b) in enumerate(zip(ours_rows, their_rows), 1):
            a, b = ({k: v for k, v in row.items() if k not in UNCLAIMED} for row in (a, b))
            if a != b:
                keys = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
                return f"row {number} differs in {keys}"
        return "same"
    return "same" if written.read_bytes() == reference.read_bytes() else "bytes differ"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "folder", nargs="?", default=str(DEFAULT_FOLDER), help="where to write (default ../shared/data)"
    )
    parser.add_argument("--only", nargs="+", metavar="NAME", help="fetch only these files or folders")
    parser.add_argument("--mirrors", type=Path, help="read from local bare git mirrors DIR/owner+name/repo")
    parser.add_argument("--check", type=Path, metavar="REFERENCE", help="compare each written item with this folder")
    args = parser.parse_args(argv)
    out = Path(args.folder).expanduser().resolve()
    source: Source = Mirrors(args.mirrors) if args.mirrors else GitHub()
    unknown = set(args.only or ()) - {i.name for i in ITEMS} - set(DERIVED)
    if unknown:
        parser.error(f"unknown names {sorted(unknown)}; fetchable: {[i.name for i in ITEMS]}")
    failed = 0
    for item in ITEMS:
        if args.only and item.name not in args.only:
            continue
        try:
            count = _write(out / item.name, item.build(source))
        except Exception as exc:  # one unreachable source must not stop the others
            failed += 1
            print(f"FAILED   {item.name}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        line = f"fetched  {item.name} ({count} file{'s' if count > 1 else ''}): {item.origin}"
        if args.check:
            line += f"  [check: {_compare(out / item.name, args.check / item.name)}]"
        print(line)
    for name, origin in DERIVED.items():
        if args.only and name not in args.only:
            continue
        state = "present" if (out / name).exists() else "absent: its tests skip"
        print(f"derived  {name} ({state}): built from {origin} by scripts that are not public")
    print(f"\n{out}: point RLVR_TEST_DATA here if it is not ../shared/data beside the repository")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
