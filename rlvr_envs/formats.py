"""Named prompt formats: how the policy is asked to lay out its answer.

A format owns the system prompt, the instruction appended to each task prompt, how a final
answer is written (used to render gold and adversarial completions), which extraction
methods apply, and the pattern that the format reward checks. Families choose a default;
users pick another with ``make(id, prompt_format="r1")``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rlvr_envs.extract import METHODS, Extraction, extract_answer


@dataclass(frozen=True)
class PromptFormat:
    name: str
    system_prompt: str | None
    instruction: str
    answer_template: str
    """``str.format`` template with one ``{answer}`` field."""
    format_pattern: str
    """Regex (DOTALL, full match) that a well-formatted completion satisfies."""
    methods: Sequence[str] = METHODS

    def render_answer(self, answer: str) -> str:
        return self.answer_template.replace("{answer}", answer)

    def user_message(self, prompt: str) -> str:
        return f"{prompt}\n\n{self.instruction}" if self.instruction else prompt

    def messages(self, prompt: str) -> list[dict[str, str]]:
        out = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        out.append({"role": "user", "content": self.user_message(prompt)})
        return out

    def extract(self, completion: object) -> Extraction | None:
        return extract_answer(completion, self.methods)

    def follows_format(self, completion: object) -> bool:
        if not isinstance(completion, str):
            return False
        return re.fullmatch(self.format_pattern, completion, flags=re.DOTALL) is not None


PLAIN = PromptFormat(
    name="plain",
    system_prompt=None,
    instruction="Reason step by step, then give your final answer in \\boxed{}.",
    answer_template="The final answer is \\boxed{{answer}}.",
    format_pattern=r".*\\boxed\{.*\}.*",
)

R1 = PromptFormat(
    name="r1",
    system_prompt=(
        "You are a careful assistant. First think the problem through inside <think> and </think>, "
        "then write only the final answer inside <answer> and </answer>. "
        "Use exactly this layout: <think> your reasoning </think> <answer> your final answer </answer>"
    ),
    instruction="",
    answer_template="<think>I worked it out.</think> <answer>{answer}</answer>",
    format_pattern=r"\s*<think>.*?</think>\s*<answer>.*?</answer>\s*",
)

ANSWER_TAG = PromptFormat(
    name="answer_tag",
    system_prompt=None,
    instruction="Give your final answer inside <answer> and </answer>, with nothing else in the tags.",
    answer_template="<answer>{answer}</answer>",
    format_pattern=r".*<answer>.*?</answer>\s*",
)

PROMPT_FORMATS: dict[str, PromptFormat] = {f.name: f for f in (PLAIN, R1, ANSWER_TAG)}


def get_format(fmt: str | PromptFormat) -> PromptFormat:
    """Resolve a format by name (or pass one through)."""
    if isinstance(fmt, PromptFormat):
        return fmt
    try:
        return PROMPT_FORMATS[fmt]
    except KeyError:
        raise ValueError(f"unknown prompt format {fmt!r}; choose from {sorted(PROMPT_FORMATS)}") from None


def register_format(fmt: PromptFormat) -> None:
    """Add a custom prompt format to the global table so it can be selected by name everywhere.

    A family's own format belongs on its env class instead (``Env.prompt_formats``): importing a
    family then changes nothing global, and the name still works in ``make(id, prompt_format=...)``.
    """
    if fmt.name in PROMPT_FORMATS and PROMPT_FORMATS[fmt.name] != fmt:
        raise ValueError(f"a different prompt format named {fmt.name!r} is already registered")
    PROMPT_FORMATS[fmt.name] = fmt
