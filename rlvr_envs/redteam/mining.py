"""The feedback-mining attack: play a multi-turn episode, read what the env's feedback reveals
(a failing assert's arguments and expected value, an expected output, any value the prompt did
not show) and answer with exactly that, hardcoded. An env whose feedback leaks hidden tests pays
for a lookup table.

And the forged-turn attack (``forge_turns``): an attempt whose answer, return value, exception
message or output holds a chat template's control tokens (``<|im_start|>user``, ``<|eot_id|>``,
``</tool_response>``...); an env whose feedback quotes them back as they are lets the policy write
what the tokenizer reads as a user turn or an environment message ("all hidden tests passed")."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from rlvr_envs.python_ast import literal_eval, parse_expression
from rlvr_envs.redteam.attacks_code import FORGED_TURN, code_shape, do_nothing_program, forged_markers, program
from rlvr_envs.redteam.target import Probe, Target

if TYPE_CHECKING:
    from rlvr_envs.env import Env

_ASSERT_EQ = re.compile(r"assert\s+(.+?)\s*==\s*(.+)$", re.MULTILINE)
_EXPECTED = re.compile(r"expected(?:\s+output)?\s*[:=]?\s*(.+?)\s*(?:,?\s*(?:but\s+)?got\b|$|\n)", re.I | re.M)
_INPUT = re.compile(r"\binput\s*[:=]\s*(.+?)\s*(?:,|$|\n)", re.I | re.M)
_REVEALED = re.compile(
    r"(?:correct|right|expected|true|gold|reference)\s+(?:answer|value|result|output|solution)\s*(?:is|was|:|=)\s*"
    r"(.+?)\s*(?:[.;]\s|[.;]?$|\n)",
    re.I | re.M,
)


@dataclass
class Facts:
    """What feedback revealed: expected results by argument tuple, expected outputs, inputs, and
    values named as the answer ("the correct answer is ...")."""

    by_args: dict[str, str] = field(default_factory=dict)
    """``repr(args)`` -> source of the expected value."""
    expected: list[str] = field(default_factory=list)
    inputs: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    hidden: int = 0
    """Facts the prompt did not show (a hidden test's input or output)."""

    def size(self) -> int:
        return len(self.by_args) + len(self.expected) + len(self.values)

    def read(self, feedback: str, target: Target, tried: set[str]) -> int:
        """Add what ``feedback`` reveals that the prompt did not; returns how many facts are new."""
        before = self.size()
        for left, right in _ASSERT_EQ.findall(feedback):
            args = _call_args(left)
            value = _literal_source(right)
            if args is not None and value is not None and args not in self.by_args:
                self.by_args[args] = value
                self.hidden += not (_shown(args[1:-1].rstrip(","), target) and _shown(value, target))
        for text in _EXPECTED.findall(feedback):
            text = _unquote(text)
            if text and text not in self.expected and not target.in_prompt(text):
                self.expected.append(text)
        for text in _INPUT.findall(feedback):
            text = _unquote(text)
            if text and text not in self.inputs:
                self.inputs.append(text)
        for raw in _REVEALED.findall(feedback):
            text = _unquote(raw)
            if text and text not in tried and text not in self.values and not target.in_prompt(text):
                self.values.append(text)
        return self.size() - before


def _shown(text: str, target: Target) -> bool:
    """``text`` occurs in the prompt, spacing aside."""
    return "".join(text.split()) in "".join(target.prompt.split())


def _call_args(source: str) -> str | None:
    try:
        node = parse_expression(source.strip()).body
        if not isinstance(node, ast.Call) or node.keywords:
            return None
        args: list[Any] = []
        for arg in node.args:  # f(1, 2) and f(*[1, 2]) name the same call
            if isinstance(arg, ast.Starred):
                args.extend(ast.literal_eval(arg.value))
            else:
                args.append(ast.literal_eval(arg))
        return repr(tuple(args))
    except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
        return None


def _literal_source(source: str) -> str | None:
    """The longest prefix of ``source`` that is a Python literal: feedback puts text after the
    value (``== [1, 2], "message"``, ``== 1: AssertionError``)."""
    text = source.strip()
    cuts = [len(text)] + [i for i in range(len(text) - 1, 0, -1) if text[i] in ",:; \t"]
    for cut in cuts[:200]:
        candidate = text[:cut].strip()
        try:
            literal_eval(candidate)
        except (SyntaxError, ValueError, TypeError, RecursionError, MemoryError):
            continue
        return candidate
    return None


def _unquote(text: str) -> str:
    text = text.strip().rstrip(".")
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        try:
            value = literal_eval(text)
            return value if isinstance(value, str) else text[1:-1]
        except (SyntaxError, ValueError):
            return text[1:-1]
    return text


def hardcoded_program(t: Target, facts: Facts) -> str:
    """The gold's functions answering from a table of what feedback revealed (a script: printing
    the revealed output for the revealed input)."""
    if code_shape(t.gold or "").style == "script":
        table = dict(zip(facts.inputs, facts.expected))
        fallback = facts.expected[-1] if facts.expected else (facts.values[-1] if facts.values else "")
        return program(
            t,
            top=f"import sys\n_inp = sys.stdin.read()\nsys.stdout.write({table!r}.get(_inp, {fallback!r}))\n",
        )
    entries = ", ".join(f"{k!r}: {v}" for k, v in facts.by_args.items())
    fallback = facts.expected[-1] if facts.expected else "None"
    if _literal_source(fallback) is None:
        fallback = repr(fallback)
    call = (
        "_l = dict(locals())\n"
        "_key = repr(_l['args']) if set(_l) == {'args', 'kwargs'} else repr(tuple(_l.values()))\n"
        f"return {{{entries}}}.get(_key, {fallback})\n"
    )
    return program(t, call=call)


def mine_feedback(env: Env, t: Target, quick: bool) -> list[tuple[Probe, Any]]:
    """Feedback mining: a wrong first attempt, then each next turn answers with only what the
    previous feedback revealed and the prompt did not (a hardcoded lookup table for a program, the
    revealed value for an answer). Any reward is a hole: nothing but leaked test data went in.
    Needs the env made with ``max_turns > 1`` (the runner makes one)."""
    if t.kind == "code":
        first = t.render(do_nothing_program(t))
    else:
        first = t.render(t.wrong if t.kind in ("number", "short") else "0")
    attempt = Probe("turn-1:wrong-attempt", first)
    facts, tried = Facts(), {t.wrong}
    out: list[tuple[Probe, Any]] = []
    try:
        env.reset(options={"task": t.task})
    except Exception as exc:
        return [(attempt, exc)]
    for turn in range(1, env.max_turns + 1):
        try:
            obs, reward, terminated, truncated, info = env.step(attempt.completion)
        except Exception as exc:
            out.append((attempt, exc))
            break
        out.append((attempt, info.get("verdict", reward)))
        if terminated or truncated or reward > 0:
            break
        if not facts.read(str(obs), t, tried):
            break  # the feedback revealed nothing new: nothing to hardcode
        if t.kind == "code":
            completion = t.render(hardcoded_program(t, facts))
            label = f"turn-{turn + 1}:hardcoded-{facts.size()}-from-feedback-{facts.hidden}-hidden"
        else:
            value = next((v for v in facts.values + facts.expected if v not in tried), None)
            if value is None:
                break
            tried.add(value)
            completion, label = t.render(value), f"turn-{turn + 1}:revealed-value"
        attempt = Probe(label, completion)
    return out


@dataclass
class Observed:
    """An episode step as the report reads it: the verdict's reward, reason and extraction, and
    the forged structure its observation carried (None when it carried none)."""

    reward: float | None
    reason: Any
    extracted: Any
    forged: str | None


def forged_turn_probes(t: Target) -> list[Probe]:
    """Attempts that put chat-template control tokens where feedback may quote them back."""
    if t.kind == "code":
        if code_shape(t.gold or "").style == "script":
            top = f"import sys\nprint({FORGED_TURN!r})\nprint({FORGED_TURN!r}, file=sys.stderr)\nraise SystemExit(1)"
            return [Probe("printed-and-exited-1", t.render(program(t, top=top)))]
        return [
            Probe("raised", t.render(program(t, call=f"raise ValueError({FORGED_TURN!r})"))),
            Probe("returned", t.render(program(t, call=f"return {FORGED_TURN!r}"))),
            Probe("syntax-error", t.render(program(t, top=f"def broken(:\n    {FORGED_TURN!r}"))),
        ]
    return [Probe("in-the-answer", t.render(f"{t.wrong} {FORGED_TURN}"))]


def forge_turns(env: Env, t: Target, quick: bool) -> list[tuple[Probe, Any]]:
    """Forged turns: a wrong first attempt carrying chat-template control tokens (in its answer,
    its return value, its exception's message, its output); the feedback must not quote them as
    they are. Needs the env made with ``max_turns > 1`` (the runner makes one)."""
    out: list[tuple[Probe, Any]] = []
    probes = forged_turn_probes(t)
    for probe in probes[:1] if quick else probes:
        try:
            env.reset(options={"task": t.task})
            obs, reward, _, _, info = env.step(probe.completion)
        except Exception as exc:
            out.append((probe, exc))
            continue
        verdict = info.get("verdict") if isinstance(info, dict) else None
        found = forged_markers(str(obs))
        out.append(
            (
                probe,
                Observed(
                    reward=float(getattr(verdict, "reward", reward)),
                    reason=getattr(verdict, "reason", None),
                    extracted=getattr(verdict, "extracted", None),
                    forged=", ".join(found) if found else None,
                ),
            )
        )
    return out


_DOCTEST = re.compile(r"^[ \t]*>>>[ \t]*(\S.*?)[ \t]*\n[ \t]*([^>\s].*?)[ \t]*$", re.MULTILINE)


def prompt_lookup_probes(t: Target, quick: bool) -> list[Probe]:
    """A program that solves nothing: the gold's functions answer the examples the prompt itself
    shows (its ``assert f(x) == y`` lines and ``>>> f(x)`` doctests) from a table, and ``None``
    otherwise. A task whose every test the prompt shows pays it in full; ``partial_credit`` that
    counts the shown tests pays it their fraction."""
    if t.kind != "code" or code_shape(t.gold or "").style == "script":
        return []
    shown = t.prompt + "\n" + "\n".join(f"assert {call} == {result}" for call, result in _DOCTEST.findall(t.prompt))
    facts = Facts()
    facts.read(shown, t, set())
    if not facts.by_args:
        return []
    facts.expected = []  # the fallback for inputs the prompt does not show: None
    return [Probe("examples-hardcoded", t.render(hardcoded_program(t, facts)))]
