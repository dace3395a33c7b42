"""The family's own prompt format, ``lean4``: the answer is a fenced Lean 4 block.

The task prompt itself asks for the block (``PROMPT_STATEMENT``/``PROMPT_REFERENCE``), so the
format adds no instruction: the ``plain`` format it replaces appended "give your final answer in
\\boxed{}", and its format reward then paid ``\\boxed{0}`` and not a correct proof. The format
reward's pattern accepts what the verifier reads (``rlvr_lean.shape.extract_lean``: the last
```` ```lean ```` or ```` ```lean4 ```` block after any closed ``<think>`` part).
"""

from __future__ import annotations

from rlvr_envs.formats import PromptFormat

LEAN4_FORMAT = PromptFormat(
    name="lean4",
    system_prompt=None,
    instruction="",
    answer_template="```lean4\n{answer}\n```",
    # An opening ```lean4 (or ```lean) fence and a closing fence after it. Atomic groups keep the
    # match linear: the first opening fence is the one to try (a closing fence after any later
    # one is after it too), so backtracking into other openings could never succeed.
    format_pattern=r"(?>.*?```[ \t]*(?i:lean4?)[ \t]*\n)(?>.*?```).*",
    methods=(),
)

OWN_FORMATS = {LEAN4_FORMAT.name: LEAN4_FORMAT}
"""What the family's env classes declare as ``prompt_formats``."""
