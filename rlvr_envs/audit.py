"""Verifier audit: zero-reward completions whose answer looks close to the gold, for a person to read.

When rewards do not rise, the first suspect is the verifier rejecting right answers (a false
negative is silent: it looks exactly like a policy that has not learned yet). This module
scans stored samples that scored 0 and picks those whose extracted answer is numerically
equal or near the gold, contains it, or differs from it only in formatting. It decides
nothing: each case is written out with its evidence for review.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rlvr_envs.difficulty.store import PassRateStore
    from rlvr_envs.env import Env
    from rlvr_envs.types import Task

_TEXT_MACRO = re.compile(r"\\(?:text|mathrm|textbf|mathbf|operatorname|mbox)\s*\{([^{}]*)\}")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]+)\}\s*\{([^{}]+)\}")
_NOISE = re.compile(r"\\left|\\right|\\!|\\,|\\;|\\:|\\ |\^\{?\\circ\}?|\\%|%|\$|\s+")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def canonical(text: str) -> str:
    """A formatting-blind form of an answer: TeX wrappers, spacing, ``$``, ``%``, degrees and case dropped."""
    s = _TEXT_MACRO.sub(r"\1", text)
    s = _FRAC.sub(r"(\1)/(\2)", s)
    s = _NOISE.sub("", s)
    s = s.replace("{", "").replace("}", "").replace("\\", "").rstrip(".").lower()
    s = re.sub(r"^(?:[a-z]\w*=)", "", s)  # "x=5" reads as "5"
    return re.sub(r"(?<=\d),(?=\d{3}\b)", "", s)  # thousands separators


def parse_number(text: str) -> float | None:
    """The value of an answer that is a plain number, fraction or TeX fraction; else None."""
    s = canonical(text)
    if s.startswith("(") and s.endswith(")") and s.count("(") == 1:
        s = s[1:-1]
    try:
        if re.fullmatch(r"\(?[-+]?\d+\)?/\(?[-+]?\d+\)?", s):
            num, den = s.replace("(", "").replace(")", "").split("/")
            return float(Fraction(int(num), int(den))) if int(den) != 0 else None
        if _NUMBER.fullmatch(s):
            value = float(s)
            return value if math.isfinite(value) else None
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    return None


def _contains_bounded(haystack: str, needle: str) -> bool:
    """``needle`` occurs in ``haystack`` as a whole token (5 is not in 15, -5 or 5.5)."""
    if not needle or needle == haystack:
        return False
    # A sign or decimal point before the needle changes its value: -5 and 2.5 do not contain 5.
    pattern = r"(?<![0-9a-z.+\-])" + re.escape(needle) + r"(?![0-9a-z]|\.\d)"
    return re.search(pattern, haystack) is not None


def closeness(extracted: str, gold: str, rel_tol: float = 1e-2) -> list[str]:
    """How a wrong answer resembles the gold: any of ``numerically_equal``, ``numerically_near``,
    ``formatting_only``, ``contains_gold``, ``inside_gold``; empty when it does not."""
    kinds = []
    a, b = parse_number(extracted), parse_number(gold)
    if a is not None and b is not None:
        if math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12):
            kinds.append("numerically_equal")
        elif math.isclose(a, b, rel_tol=rel_tol, abs_tol=1e-6):
            kinds.append("numerically_near")
    ca, cb = canonical(extracted), canonical(gold)
    if ca and ca == cb and extracted.strip() != gold.strip():
        kinds.append("formatting_only")
    elif ca and cb and "numerically_equal" not in kinds:
        # Containment keeps word boundaries (spaces), which the canonical form drops.
        la, lb = _loose(extracted), _loose(gold)
        if _contains_bounded(la, lb):
            kinds.append("contains_gold")
        elif len(la) >= 2 and _contains_bounded(lb, la):
            kinds.append("inside_gold")
    return kinds


def _loose(text: str) -> str:
    s = _TEXT_MACRO.sub(r"\1", text).replace("$", "")
    return re.sub(r"\\left|\\right", "", s).strip().rstrip(".").lower()


@dataclass
class NearMiss:
    env_id: str
    task_id: str
    task_fingerprint: str
    sample_index: int
    prompt: str
    gold: str
    extracted: str
    kinds: list[str]
    reason: str
    completion_tail: str
    same_answer_count: int = 1
    """Zero-reward samples of this task with the same (canonical) extracted answer."""


@dataclass
class AuditResult:
    env_id: str
    sampler: str
    scanned: int = 0
    zero_reward: int = 0
    near_misses: list[NearMiss] = field(default_factory=list)
    by_kind: dict[str, int] = field(default_factory=dict)

    def render(self) -> str:
        lines = [
            f"audit {self.env_id}  sampler {self.sampler}",
            f"  samples scanned {self.scanned}, zero reward {self.zero_reward}, "
            f"close to the gold {sum(m.same_answer_count for m in self.near_misses)} "
            f"({len(self.near_misses)} distinct answers written)",
        ]
        for kind, count in sorted(self.by_kind.items()):
            lines.append(f"  {kind:<20} {count}")
        for m in self.near_misses[:5]:
            lines.append(
                f"  e.g. task {m.task_id}: gold {m.gold!r:.60} vs extracted {m.extracted!r:.60} ({', '.join(m.kinds)})"
            )
        return "\n".join(lines)


def gold_text(task: Task, env: Env | None) -> str:
    if env is not None:
        try:
            text = env.answer_text(task)
        except Exception:  # an env that cannot render this task's gold: fall back to the raw answer
            text = None
        if isinstance(text, str):
            return text
    answer = task.answer
    return answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False, default=str)


def audit(
    store: PassRateStore,
    env_id: str,
    sampler: str | None = None,
    *,
    env: Env | None = None,
    limit: int = 200,
    rel_tol: float = 1e-2,
    seed: int = 0,
    tail_chars: int = 600,
) -> AuditResult:
    """Zero-reward samples close to the gold in ``store``: at most ``limit`` distinct cases, drawn with ``seed``."""
    key = store.resolve_sampler(env_id, sampler)
    result = AuditResult(env_id, key)
    records = {r.task_fingerprint: r for r in store.task_records(env_id, key)}
    result.scanned = sum(r.samples for r in records.values())
    cases: dict[tuple[str, str], NearMiss] = {}
    golds: dict[str, str] = {}
    for sample in store.samples(env_id, key, failed_only=True):
        if sample.reward != 0:
            continue
        result.zero_reward += 1
        record = records.get(sample.task_fingerprint)
        if record is None or not sample.extracted:
            continue
        if sample.task_fingerprint not in golds:
            golds[sample.task_fingerprint] = gold_text(record.task, env)
        gold = golds[sample.task_fingerprint]
        kinds = closeness(sample.extracted, gold, rel_tol)
        if not kinds:
            continue
        case_key = (sample.task_fingerprint, canonical(sample.extracted))
        if case_key in cases:
            cases[case_key].same_answer_count += 1
            continue
        cases[case_key] = NearMiss(
            env_id,
            record.task.id,
            sample.task_fingerprint,
            sample.index,
            record.task.prompt,
            gold,
            sample.extracted,
            kinds,
            sample.reason,
            sample.completion[-tail_chars:],
        )
    chosen = list(cases.values())
    if len(chosen) > limit:
        chosen = random.Random(seed).sample(chosen, limit)
    result.near_misses = sorted(chosen, key=lambda m: (m.task_id, m.sample_index))
    for miss in result.near_misses:
        for kind in miss.kinds:
            result.by_kind[kind] = result.by_kind.get(kind, 0) + miss.same_answer_count
    return result


def write_audit(misses: Sequence[NearMiss], path: str | Path) -> Path:
    """JSONL (one case per line) or, for a ``.md`` path, a Markdown page to read through."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() == ".md":
        parts = ["# Verifier audit: zero-reward answers close to the gold\n"]
        for i, m in enumerate(misses, 1):
            parts.append(
                f"## {i}. {m.env_id} / {m.task_id} (sample {m.sample_index}, x{m.same_answer_count})\n\n"
                f"- why flagged: {', '.join(m.kinds)}; verdict: {m.reason}\n- gold: `{m.gold}`\n"
                f"- extracted: `{m.extracted}`\n\n**Prompt**\n\n```\n{m.prompt[:1500]}\n```\n\n"
                f"**End of completion**\n\n```\n{m.completion_tail}\n```\n"
            )
        path.write_text("\n".join(parts), encoding="utf-8")
        return path
    with path.open("w", encoding="utf-8") as fh:
        for m in misses:
            fh.write(json.dumps(asdict(m), ensure_ascii=False) + "\n")
    return path
