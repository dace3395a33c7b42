"""What a red-team run found: per attack class, how many wrong answers earned reward, with
examples; as JSON, Markdown and a short text summary."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

SCHEMA = "rlvr-envs-redteam/1"
_PREVIEW_CHARS = 300


@dataclass
class Outcome:
    """One probe and what the env gave it."""

    attack: str
    variant: str
    task_id: str
    completion: Any
    expect_wrong: bool | None
    reward: float | None = None
    reason: str | None = None
    extracted: Any = None
    error: str | None = None
    """Set when verification raised (it never may)."""
    forged: str | None = None
    """What an observation carried back that the policy chose and that reads as the chat's
    structure (a control token, a tool-result frame): a forged turn, a hole whatever the reward."""

    error_is_hole: bool = False
    """The probe made a ``verifier_error`` a hole (``Probe.error_is_hole``)."""

    @property
    def hole(self) -> bool:
        """A wrong answer that earned reward, an observation the policy forged, or an
        infrastructure failure the answer chose."""
        rewarded = self.expect_wrong is True and self.reward is not None and self.reward > 0
        induced = self.error_is_hole and self.reason == "verifier_error"
        return rewarded or induced or self.forged is not None

    @property
    def label(self) -> str:
        return "raised" if self.error is not None else (self.reason or "?")

    def example(self) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "variant": self.variant,
            "completion": preview(self.completion),
            "completion_chars": len(self.completion) if isinstance(self.completion, (str, bytes)) else None,
            "reward": self.reward,
            "reason": self.reason,
            "extracted": preview(self.extracted, 120) if self.extracted is not None else None,
            "error": self.error,
            **({"forged": self.forged} if self.forged is not None else {}),
        }


def preview(value: Any, limit: int = _PREVIEW_CHARS) -> str:
    """A readable, bounded form of a completion: text cut at ``limit`` characters with its length
    noted; control characters, surrogates and bytes shown escaped."""
    if isinstance(value, bytes):
        shown = repr(value[:limit])
        return shown + (f" ... ({len(value)} bytes)" if len(value) > limit else "")
    text = value if isinstance(value, str) else repr(value)
    cut = text[:limit]
    if any((ord(c) < 32 and c not in "\n\t") or 0xD800 <= ord(c) <= 0xDFFF for c in cut):
        cut = repr(cut)[1:-1]
    return cut + (f" ... ({len(text):,} chars)" if len(text) > limit else "")


@dataclass
class ClassResult:
    name: str
    doc: str
    needs: str
    tasks: int = 0
    """Tasks the class applied to."""
    outcomes: list[Outcome] = field(default_factory=list)
    note: str | None = None
    exempt: str | None = None
    """Why the env declares this class's rewards intended (``Env.redteam_exempt``): its holes are
    shown but not counted."""

    @property
    def applicable(self) -> bool:
        return self.tasks > 0

    @property
    def holes(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.hole]

    @property
    def raised(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.error is not None]

    @property
    def honest(self) -> list[Outcome]:
        """Probes that restate the gold in another form (``expect_wrong`` False): controls."""
        return [o for o in self.outcomes if o.expect_wrong is False]

    @property
    def honest_refused(self) -> list[Outcome]:
        """Honest restatements that earned nothing: false negatives, reported apart from holes
        (a verifier may refuse a notation on purpose; the family owner decides)."""
        return [o for o in self.honest if o.error is None and not (o.reward is not None and o.reward > 0)]

    @property
    def status(self) -> str:
        if not self.applicable:
            return "n/a"
        if self.holes:
            return "EXEMPT" if self.exempt else "HOLE"
        return "RAISED" if self.raised else "ok"

    def summary(self, max_examples: int) -> dict[str, Any]:
        wrong = [o for o in self.outcomes if o.expect_wrong is True]
        shown = (self.holes + self.raised)[:max_examples]
        return {
            "name": self.name,
            "status": self.status,
            "doc": self.doc,
            "tasks": self.tasks,
            "probes": len(self.outcomes),
            "expected_wrong": len(wrong),
            "holes": len(self.holes),
            "tasks_with_holes": len({o.task_id for o in self.holes}),
            "raised": len(self.raised),
            "max_reward_of_a_hole": max((o.reward or 0.0 for o in self.holes), default=None),
            "by_reason": dict(Counter(o.label for o in self.outcomes).most_common()),
            "hole_variants": dict(Counter(o.variant for o in self.holes).most_common()),
            "honest_checked": len(self.honest),
            "honest_refused": len(self.honest_refused),
            "honest_refused_variants": dict(Counter(o.variant for o in self.honest_refused).most_common()),
            "not_applicable": None if self.applicable else f"needs {self.needs}",
            "exempt": self.exempt,
            "note": self.note,
            "examples": [o.example() for o in shown],
        }


@dataclass
class RedteamReport:
    env_id: str
    seed: int
    quick: bool
    task_ids: list[str]
    classes: list[ClassResult]
    gold: list[Outcome] = field(default_factory=list)
    """The gold completions, verified alongside (a control: they should earn reward)."""
    elapsed_s: float = 0.0
    max_examples: int = 3

    @property
    def holes(self) -> int:
        """Wrong answers rewarded, in the classes the env does not declare exempt."""
        return sum(len(c.holes) for c in self.classes if not c.exempt)

    @property
    def raised(self) -> int:
        return sum(len(c.raised) for c in self.classes) + sum(o.error is not None for o in self.gold)

    @property
    def hole_classes(self) -> list[str]:
        return [c.name for c in self.classes if c.holes and not c.exempt]

    @property
    def exit_code(self) -> int:
        """0 when no wrong answer earned reward and nothing raised, else 1."""
        return 1 if self.holes or self.raised else 0

    def result(self, name: str) -> ClassResult:
        for c in self.classes:
            if c.name == name:
                return c
        raise KeyError(name)

    def gold_summary(self) -> dict[str, Any]:
        failed = [o for o in self.gold if not (o.reward is not None and o.reward > 0)]
        return {
            "checked": len(self.gold),
            "rewarded": len(self.gold) - len(failed),
            "examples_not_rewarded": [o.example() for o in failed[: self.max_examples]],
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "env_id": self.env_id,
            "seed": self.seed,
            "quick": self.quick,
            "tasks": len(self.task_ids),
            "task_ids": self.task_ids,
            "holes": self.holes,
            "raised": self.raised,
            "hole_classes": self.hole_classes,
            "exit_code": self.exit_code,
            "elapsed_s": round(self.elapsed_s, 3),
            "gold_control": self.gold_summary(),
            "classes": [c.summary(self.max_examples) for c in self.classes],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=True, default=str)

    def summary_text(self) -> str:
        """A few lines for a terminal: one per class, then the verdict."""
        width = max(len(c.name) for c in self.classes) if self.classes else 10
        lines = [
            f"redteam {self.env_id}: {len(self.task_ids)} task(s), seed {self.seed}{' (quick)' if self.quick else ''}"
        ]
        for c in self.classes:
            s = c.summary(0)
            if not c.applicable:
                lines.append(f"  {c.name:<{width}}  n/a ({c.note or s['not_applicable']})")
                continue
            extra = f", {s['raised']} raised" if s["raised"] else ""
            extra += f"; exempt by the env: {c.exempt}" if c.exempt else ""
            if s["honest_checked"]:
                extra += f"; honest restatements refused {s['honest_refused']}/{s['honest_checked']}"
            lines.append(
                f"  {c.name:<{width}}  {c.status:<6} {s['holes']}/{s['expected_wrong']} wrong answers rewarded "
                f"({s['tasks_with_holes']}/{c.tasks} tasks){extra}"
            )
        g = self.gold_summary()
        if g["checked"]:
            lines.append(f"  gold control: {g['rewarded']}/{g['checked']} gold completions rewarded")
        verdict = (
            f"{self.holes} wrong answer(s) rewarded in {', '.join(self.hole_classes)}"
            if self.holes
            else "no wrong answer rewarded"
        )
        if self.raised:
            verdict += f"; verification raised {self.raised} time(s)"
        lines.append(verdict)
        return "\n".join(lines)

    def to_markdown(self) -> str:
        out = [
            f"# Red-team report: `{self.env_id}`",
            "",
            f"{len(self.task_ids)} task(s), seed {self.seed}{', quick set' if self.quick else ''}, "
            f"{self.elapsed_s:.1f} s. **{self.holes} wrong answer(s) rewarded**"
            + (f" in {', '.join(f'`{n}`' for n in self.hole_classes)}" if self.holes else "")
            + (f"; verification raised {self.raised} time(s)." if self.raised else "."),
            "",
            "| class | status | wrong answers rewarded | tasks with a hole | probes | verdicts |",
            "|---|---|---|---|---|---|",
        ]
        for c in self.classes:
            s = c.summary(0)
            if not c.applicable:
                out.append(f"| `{c.name}` | n/a | - | - | 0 | {c.note or 'needs ' + c.needs} |")
                continue
            reasons = ", ".join(f"{k} {v}" for k, v in s["by_reason"].items())
            reasons += f" (exempt: {c.exempt})" if c.exempt else ""
            out.append(
                f"| `{c.name}` | {c.status} | {s['holes']}/{s['expected_wrong']} | {s['tasks_with_holes']}/{c.tasks} "
                f"| {s['probes']} | {reasons} |"
            )
        g = self.gold_summary()
        if g["checked"]:
            out += ["", f"Gold control: {g['rewarded']}/{g['checked']} gold completions rewarded."]
            if g["rewarded"] < g["checked"]:
                out.append(
                    "Classes are weaker on tasks whose gold is not rewarded (the env refuses right answers there)."
                )
        for c in self.classes:
            s = c.summary(self.max_examples)
            if not s["examples"]:
                continue
            out += ["", f"## `{c.name}`: {s['holes']} wrong answer(s) rewarded", "", c.doc, ""]
            if s["hole_variants"]:
                out.append("Variants rewarded: " + ", ".join(f"`{k}` x{v}" for k, v in s["hole_variants"].items()))
                out.append("")
            for ex in s["examples"]:
                got = f"raised {ex['error']}" if ex["error"] else f"reward {ex['reward']} ({ex['reason']})"
                out += [
                    f"- task `{ex['task_id']}`, variant `{ex['variant']}`: {got}",
                    "",
                    "  ```",
                    "  " + _fence_safe(ex["completion"]),
                    "  ```",
                ]
        honest = [c for c in self.classes if c.honest_refused]
        if honest:
            out += ["", "## Honest answers refused (false negatives, not holes)", ""]
            for c in honest:
                s = c.summary(0)
                variants = ", ".join(f"`{k}` x{v}" for k, v in s["honest_refused_variants"].items())
                out.append(f"- `{c.name}`: {s['honest_refused']}/{s['honest_checked']} refused: {variants}")
        out += ["", "## Classes", ""]
        out += [f"- `{c.name}`: {c.doc}" for c in self.classes]
        return "\n".join(out) + "\n"


def _fence_safe(text: str) -> str:
    return text.replace("```", "` ` `").replace("\n", "\n  ")
