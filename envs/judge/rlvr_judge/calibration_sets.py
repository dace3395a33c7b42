"""Calibration sets whose labels come from the hub's own programs, built at run time.

Nothing here ships third-party data: the builders read the labelled response files where they
lie (``../shared/data`` in this repository's tests, or a user's path) and derive rows of
``{"prompt", "rubric" | "reference", "response", "label", "criteria_labels"?}``.

- ``ifeval_rows``: IFEval / IFBench responses; the rubric's criteria are the instructions' text
  (``kind="judge"``), the labels the reference checkers' strict verdicts.
- ``math_rows``: ``math-arith`` tasks with completions in equivalent and wrong forms; the labels
  are ``rlvr_math``'s verifier verdicts.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from rlvr_envs.errors import DataUnavailableError

IFEVAL_FILES = {"ifeval": "ifeval_gpt4_responses_labeled.jsonl", "ifbench": "ifbench_responses_labeled.jsonl"}

_DESCRIPTIONS = {
    "punctuation:no_comma": "The response contains no commas.",
    "detectable_format:number_highlighted_sections": "At least {num_highlights} sections are highlighted with markdown, like *highlighted section*.",  # noqa: E501
    "length_constraints:number_words": "The response has {relation} {num_words} words.",
    "length_constraints:number_sentences": "The response has {relation} {num_sentences} sentences.",
    "length_constraints:number_paragraphs": "The response has exactly {num_paragraphs} paragraphs, separated by the markdown divider ***.",  # noqa: E501
    "detectable_format:title": "The response includes a title wrapped in double angular brackets, like <<title>>.",
    "change_case:english_lowercase": "The entire response is in English and in lowercase letters only.",
    "change_case:english_capital": "The entire response is in English and in capital letters only.",
    "detectable_format:json_format": "The entire response is wrapped in JSON format.",
    "startend:quotation": "The entire response is wrapped in double quotation marks.",
    "startend:end_checker": "The response ends with the exact phrase \u201c{end_phrase}\u201d, with nothing after it.",
    "detectable_content:postscript": "The response ends with a postscript starting with {postscript_marker}.",
    "detectable_content:number_placeholders": "The response contains at least {num_placeholders} placeholders in square brackets, like [address].",  # noqa: E501
    "detectable_format:number_bullet_lists": "The response has exactly {num_bullets} markdown bullet points.",
    "keywords:existence": "The response includes the keywords {keywords}.",
    "keywords:forbidden_words": "The response does not include the words {forbidden_words}.",
    "keywords:frequency": "The word \u201c{keyword}\u201d appears {relation} {frequency} times.",
    "keywords:letter_frequency": "The letter \u201c{letter}\u201d appears {let_relation} {let_frequency} times.",
    "language:response_language": "The entire response is in the language with code {language}.",
    "detectable_format:multiple_sections": "The response has {num_sections} sections, each marked with \u201c{section_spliter} X\u201d.",  # noqa: E501
    "combination:repeat_prompt": "The response first repeats the request word for word, then answers it.",
    "combination:two_responses": "The response gives two different responses separated by six asterisks ******.",
    "detectable_format:constrained_response": "The response is one of: \u201cMy answer is yes.\u201d, \u201cMy answer is no.\u201d, \u201cMy answer is maybe.\u201d",  # noqa: E501
    "change_case:capital_word_frequency": "Words in all capital letters appear {capital_relation} {capital_frequency} times.",  # noqa: E501
    "length_constraints:nth_paragraph_first_word": "There are {num_paragraphs} paragraphs and paragraph {nth_paragraph} starts with the word \u201c{first_word}\u201d.",  # noqa: E501
}


def describe_instruction(instruction_id: str, kwargs: dict[str, Any] | None) -> str:
    """A criterion's text for one instruction: a plain sentence where known, else the id and arguments."""
    args = {k: v for k, v in (kwargs or {}).items() if v is not None}
    template = _DESCRIPTIONS.get(instruction_id)
    if template is not None:
        try:
            return template.format(**args)
        except (KeyError, IndexError):
            pass
    shown = ", ".join(f"{k}={v!r}" for k, v in args.items())
    name = instruction_id.replace(":", ": ").replace("_", " ")
    return f"The response follows the instruction \u201c{name}\u201d" + (f" ({shown})." if shown else ".")


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        raise DataUnavailableError(f"no labelled response file at {path}; pass --data-dir (or data_dir=) to its folder")
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def ifeval_rows(suite: str, data_dir: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """Labelled rows for ``suite`` (``ifeval`` or ``ifbench``) from the labelled response file in ``data_dir``."""
    if suite not in IFEVAL_FILES:
        raise ValueError(f"suite must be one of {sorted(IFEVAL_FILES)}, got {suite!r}")
    rows = []
    for row in _read_jsonl(Path(data_dir).expanduser() / IFEVAL_FILES[suite]):
        ids, kwargs, labels = row["instruction_id_list"], row.get("kwargs") or [], row.get("reference_strict")
        if not isinstance(labels, list) or len(labels) != len(ids) or not isinstance(row.get("response"), str):
            continue
        rubric = [
            {"text": describe_instruction(i, kwargs[n] if n < len(kwargs) else {}), "weight": 1, "group": i}
            for n, i in enumerate(ids)
        ]
        rows.append({
            "id": f"{suite}-{row['key']}", "prompt": row["prompt"], "rubric": rubric, "response": row["response"],
            "label": bool(row["reference_strict_all"]), "criteria_labels": [bool(x) for x in labels],
            "label_source": f"{suite} reference checkers (strict), see ../shared/data/PROVENANCE.md",
        })  # fmt: skip
        if limit is not None and len(rows) >= limit:
            break
    return rows


def math_rows(n_tasks: int = 40, seed: int = 0, level: int = 6) -> list[dict[str, Any]]:
    """``math-arith`` tasks with completions in equivalent and in wrong forms, labelled by the math verifier."""
    import rlvr_envs
    from rlvr_math.verifier import MathVerifier

    env = rlvr_envs.make("math-arith", level=level)
    verifier = MathVerifier()
    rng = random.Random(seed)
    rows = []
    for task in env.sample(n_tasks, seed=seed):
        gold = str(task.answer)
        value = _as_float(gold)
        forms = [f"So the answer is \\boxed{{{gold}}}.", f"The answer is {gold}."]
        if value is not None and "/" in gold:
            forms.append(f"As a decimal that is \\boxed{{{value:.6g}}}.")
            num, den = gold.split("/")
            forms.append(f"\\boxed{{\\frac{{{num}}}{{{den}}}}}")
        if value is not None:
            forms.append(f"\\boxed{{{_wrong(gold, rng)}}}")
            forms.append(f"The result is \\boxed{{{_wrong(gold, rng)}}}.")
            forms.append(f"It is either {gold} or {_wrong(gold, rng)}, so \\boxed{{{gold}, {_wrong(gold, rng)}}}.")
        for j, completion in enumerate(forms):
            verdict = verifier.verify(task, completion)
            rows.append({
                "id": f"{task.id}#{j}", "prompt": task.prompt, "reference": gold, "response": completion,
                "label": verdict.passed, "label_source": "rlvr_math MathVerifier",
            })  # fmt: skip
    return rows


def _as_float(text: str) -> float | None:
    try:
        if "/" in text:
            a, b = text.split("/")
            return int(a) / int(b)
        return float(text)
    except (ValueError, ZeroDivisionError):
        return None


def _wrong(gold: str, rng: random.Random) -> str:
    if "/" in gold:
        a, b = gold.split("/")
        return f"{int(a) + rng.choice([-1, 1, 2])}/{b}"
    return str(int(float(gold)) + rng.choice([-2, -1, 1, 10]))


def builtin_labels(name: str, data_dir: str | Path | None, limit: int | None = None) -> list[dict[str, Any]]:
    """A named calibration set: ``ifeval``, ``ifbench`` (need ``data_dir``) or ``math-arith``."""
    if name == "math-arith":
        return math_rows(n_tasks=max(1, (limit or 240) // 6))[:limit]
    if name in IFEVAL_FILES:
        if data_dir is None:
            raise DataUnavailableError(
                f"the {name} calibration set is built from {IFEVAL_FILES[name]}; pass --data-dir"
            )
        return ifeval_rows(name, data_dir, limit)
    raise ValueError(f"unknown calibration set {name!r}: a .jsonl path, or one of ifeval, ifbench, math-arith")
