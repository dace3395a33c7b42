"""The family's own prompt format, ``verbatim``, and how its modules look a format up by name.

The envs own ``verbatim`` through the contract (``Env.prompt_formats``): importing the family
changes no global table, and ``make(id, prompt_format="verbatim")`` still resolves it.
"""

from __future__ import annotations

from rlvr_envs.formats import PROMPT_FORMATS, PromptFormat, get_format

VERBATIM_FORMAT = PromptFormat(
    name="verbatim",
    system_prompt=None,
    instruction="",
    answer_template="{answer}",
    format_pattern=r".*",
    methods=(),
)
"""The prompt exactly as written, no system prompt, the whole completion is the response."""

OWN_FORMATS = {VERBATIM_FORMAT.name: VERBATIM_FORMAT}
"""What the family's env classes declare as ``prompt_formats``."""


def resolve_format(fmt: str | PromptFormat) -> PromptFormat:
    """A prompt format by name; "verbatim" is ours even if another plugin took the name."""
    if isinstance(fmt, str) and fmt in OWN_FORMATS:
        return OWN_FORMATS[fmt]
    return get_format(fmt)


def user_format(name: str) -> PromptFormat | None:
    """The format named ``name`` as a verifier knows it (ours first), or None when unknown."""
    return OWN_FORMATS.get(name) or PROMPT_FORMATS.get(name)
