"""Pulling the program out of a completion and building the sandbox's job from a task's answer.

Split from ``rlvr_code.verifier`` (which re-exports every name here) so that the verifier module
holds running and judging only: the rules for which fenced block is the answer, which language it
is, and what a task's answer must look like are read by the contest and tool modules too.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from rlvr_code.split import called_names, solution_names
from rlvr_envs.chat_markers import strip_turn_end
from rlvr_envs.errors import RlvrEnvsError
from rlvr_envs.python_ast import parse_module

FORMATS = ("humaneval", "asserts", "stdio")
# The fence and answer-tag readers are string scans, not findall of the patterns they replace
#   ```[ \t]*([A-Za-z0-9_+.\-]*)[^\n]*\n(.*?)(?:```|\Z)   and   <answer>(.*?)</answer>
# (DOTALL): those were tried at every opener, each try reading to the end of the text when no
# newline or closing tag followed, so 12,000 backticks or ``<answer>`` tags cost seconds of CPU (quadratic;
# bench/hostile_time.py). The scans give the same pairs (tests/test_core_hostile_time_round11.py
# compares them with the patterns).
_FENCE_HEAD = re.compile(r"[ \t]*([A-Za-z0-9_+.\-]*)")
_PYTHON_TAGS = {"", "python", "py", "python3", "py3"}


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """``(tag, body)`` of every fenced block in order; the last may run unclosed to the end.

    A fence opens at three backticks, its tag is the word after them, its body starts after the
    first newline and ends at the next three backticks (or the end of the text). With no newline
    after an opener, no later opener has one either: nothing more is fenced.
    """
    out: list[tuple[str, str]] = []
    at = text.find("```")
    while at >= 0:
        newline = text.find("\n", at + 3)
        if newline < 0:
            break
        head = _FENCE_HEAD.match(text, at + 3, newline)
        tag = head.group(1) if head is not None else ""
        end = text.find("```", newline + 1)
        if end < 0:
            out.append((tag, text[newline + 1 :]))
            break
        out.append((tag, text[newline + 1 : end]))
        at = text.find("```", end + 3)
    return out


def answer_tags(text: str) -> list[str]:
    """The text of every closed ``<answer>...</answer>`` pair, each closed at the first ``</answer>``."""
    out: list[str] = []
    at = text.find("<answer>")
    while at >= 0:
        end = text.find("</answer>", at + 8)
        if end < 0:
            break
        out.append(text[at + 8 : end])
        at = text.find("<answer>", end + 9)
    return out


def extract_code(completion: str) -> str:
    """The last fenced Python block of a completion, or the whole text when there is none.

    Reasoning inside ``<think>...</think>`` is skipped: the code a model drafts while
    thinking is not its answer.
    """
    text = completion
    if "</think>" in text:
        text = text.rsplit("</think>", 1)[1]
    blocks = [body for tag, body in fenced_blocks(text) if tag.lower() in _PYTHON_TAGS]
    if blocks:
        return blocks[-1].rstrip() + "\n"
    answers = answer_tags(text)
    if answers:
        return answers[-1].strip()
    return text


_TURN = re.compile(
    # A chat template's control token: ChatML's <|im_end|>/<|im_start|>, Llama 3's <|eot_id|> and
    # header ids, Phi's and Zephyr's <|assistant|>, <|endoftext|>, DeepSeek's <｜Assistant｜> ...
    r"<\s*[|｜][^<>\n]{1,40}?[|｜]\s*>"
    # ... Gemma's turn tags, Llama 2's and Mistral's [INST] / [/INST] ...
    r"|<\s*/?\s*(?:start_of_turn|end_of_turn)\s*>|\[\s*/?\s*INST\s*\]"
    # ... and the "Assistant:" turn of the plain-text dialogue format, after a blank line ("Human:"
    # alone is not one: prose uses it as a heading, as one labelled IFBench response does).
    r"|\n[ \t]*\n[ \t]*Assistant[ \t]*:",
    re.IGNORECASE,
)


def turn_marker(completion: str) -> str | None:
    """A chat template's turn marker in the completion's text outside its fenced code, or None.

    A completion is one turn. Text such as ``<|im_end|><|im_start|>assistant`` between two programs
    forges a second turn (red team round 13, ``role_marker``): a tokenizer reads it as the end of the
    policy's turn, and the family read the last program as a revision, so "a program that does
    nothing, a forged assistant turn, the right program" scored 1 and taught a policy to write turn
    markers. Inside a fenced block the text is the program's (a string a program prints is its
    business); outside, no honest answer writes one, except end markers with nothing after them.
    """
    if "<" not in completion and "[" not in completion and ":" not in completion:
        return None
    # The markers that only end the completion (a decoded end of turn, padding, a next turn opened
    # with only its role named) are read as the core's screen reads them (``Env.verify``): honest.
    completion = strip_turn_end(completion)
    outside: list[tuple[int, int]] = []  # the spans of text outside fenced blocks
    at = 0
    opener = completion.find("```")
    while opener >= 0:
        newline = completion.find("\n", opener + 3)
        if newline < 0:
            break
        outside.append((at, opener))
        end = completion.find("```", newline + 1)
        if end < 0:
            at = len(completion)
            break
        at = end + 3
        opener = completion.find("```", at)
    outside.append((at, len(completion)))
    for start, stop in outside:
        # A newline before each span: a fence's end begins a line, as "Assistant:" after it does.
        for found in _TURN.finditer("\n" + completion[start:stop]):
            if _TURN.sub("", completion[start + found.end() - 1 :]).strip():
                return found.group(0).strip()[:40]
            # Nothing but end markers after it: the end of the one turn, as a trainer's decoding
            # that keeps special tokens leaves it (``<|im_end|>``, ``<|eot_id|>``, ``<end_of_turn>``).
            return None
    return None


def accepted_languages(language: object) -> list[str]:
    """A task's ``language`` (a name or a list of names) as canonical names; [] if any is unknown."""
    from rlvr_code.languages import canonical

    names = language if isinstance(language, (list, tuple)) else [language]
    found = [canonical(name) for name in names]
    if not found or any(name is None for name in found):
        return []
    return list(dict.fromkeys(name for name in found if name is not None))


def extract_for(completion: str, accepted: list[str]) -> tuple[str | None, str, str | None]:
    """``(language, code, problem)``: the last fenced block in an accepted language.

    A completion whose code is fenced in another language, or not fenced at all when only
    non-Python languages are accepted, gives a ``problem`` (``format_error``).
    """
    from rlvr_code.languages import language_for_tag

    text = completion.rsplit("</think>", 1)[1] if "</think>" in completion else completion
    blocks = [(tag.lower(), body) for tag, body in fenced_blocks(text)]
    for tag, body in reversed(blocks):
        language = language_for_tag(tag)
        if language in accepted and (tag or language == "python"):
            return language, body.rstrip() + "\n", None
    if not text.strip():
        return None, "", "the completion holds no code"
    if blocks:
        tags = sorted({tag or "(untagged)" for tag, _ in blocks})
        return "", blocks[-1][1], f"the code is fenced as {', '.join(tags)}; the task accepts {', '.join(accepted)}"
    if "python" in accepted:
        return "python", extract_code(completion), None
    return "", text, f"no fenced code block in {', '.join(accepted)} (e.g. ```{accepted[0]})"


def _parse(code: str):
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return parse_module(code)
    except (SyntaxError, ValueError):
        return None


def reference_imports(code: str) -> dict[str, list[str | None]]:
    """Names a reference solution binds by top-level imports: name -> [module, attribute or None].

    A test written against the reference may use them without importing them itself (``math``
    in ``assert math.isclose(...)``); the judge then resolves them by importing the same module
    itself, never by asking the solution under test, which could bind ``math`` to a fake.
    """
    # Parsed once per reference (every sample of a task has the same one); a fresh copy each time.
    return {name: list(where) for name, where in _reference_imports(code).items()}


@functools.lru_cache(maxsize=4096)
def _reference_imports(code: str) -> dict[str, list[str | None]]:
    import ast

    tree = _parse(code)
    found: dict[str, list[str | None]] = {}
    for node in tree.body if tree is not None else ():
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found[alias.asname] = [alias.name, None]
                else:
                    top = alias.name.split(".")[0]
                    found[top] = [top, None]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    found[alias.asname or alias.name] = [node.module, alias.name]
    return found


class TaskFormatError(RlvrEnvsError, ValueError):
    """A task's answer does not follow any of the code formats."""


def build_job(answer: Any, code: str) -> dict[str, Any]:
    """The sandbox job for one task answer and one extracted program."""
    if not isinstance(answer, dict):
        raise TaskFormatError(f"a code task's answer must be a dict, got {type(answer).__name__}")
    kind = answer.get("format")
    if kind == "humaneval":
        context = str(answer.get("context") or "")
        # A body-only completion continues the prompt's stub; a full definition redefines it.
        program = context.rstrip("\n") + "\n" + code if context else code
        return {
            "kind": "humaneval",
            "program": program,
            "context": context,
            "test": str(answer["test"]),
            "entry_point": str(answer["entry_point"]),
            "solution_names": [str(answer["entry_point"])],
            "judge_imports": reference_imports(str(answer.get("canonical_solution") or "")),
        }
    if kind == "asserts":
        tests = answer.get("tests")
        if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
            raise TaskFormatError("an 'asserts' task needs 'tests', a list of assert statements")
        reference = str(answer.get("canonical_solution") or "")
        names = answer.get("solution_names")
        if names is None:
            # Without a declared interface: the reference's functions and classes, else whatever
            # the tests call by a bare name (so a function named like a module, ``calendar(3)``,
            # still comes from the solution).
            names = solution_names(reference) if reference.strip() else called_names(tests)
        return {
            "kind": "asserts",
            "program": code,
            "setup": str(answer.get("setup") or ""),
            "tests": tests,
            "solution_names": [str(n) for n in names],
            "judge_imports": reference_imports(reference),
        }
    if kind == "stdio":
        cases = answer.get("cases")
        if not isinstance(cases, list) or not all(
            isinstance(c, dict) and "input" in c and "output" in c for c in cases
        ):
            raise TaskFormatError("a 'stdio' task needs 'cases', a list of {'input', 'output'}")
        return {
            "kind": "stdio",
            "program": code,
            "cases": [{"input": str(c["input"]), "output": str(c["output"])} for c in cases],
        }
    raise TaskFormatError(f"unknown code task format {kind!r}; expected one of {FORMATS}")
