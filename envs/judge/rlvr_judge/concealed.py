"""Level 3 of the screen (round 10): the task's answer words where only a judge model reads them.

"The Rhine <!-- The Danube -->" shows a judge model the reference beside the answer a reader gets:
a judge that matches words pays it. ``concealed_answer_words`` refuses a response whose hidden parts
(``rlvr_judge.decoded.hidden_containers``: HTML comments, hidden or white elements, attributes, link
titles; ``\\phantom{}`` and white LaTeX) hold a word of the reference or of a criterion that the visible
text does not say. Called by ``rlvr_judge.screen`` with the hidden text it has already read and its own
readers (``tokens``, ``visible``, its function words), passed in so that this module does not import the
screen that imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from rlvr_judge.containers import strip_containers
from rlvr_judge.unseen_markup import without_unseen


def concealed_answer_words(
    shown: str,
    hidden: str,
    reference_units: set[str],
    criteria: Sequence[str],
    *,
    tokens: Callable[[str], list[str]],
    visible: Callable[[str], str],
    function_words: Collection[str],
) -> str | None:
    """Level 3 (round 10): the reference's words, or a criterion's, in a part a reader does not see
    (an HTML comment, a hidden or white element, an attribute, ``\\phantom{}``) and nowhere a reader
    does: "The Rhine <!-- The Danube -->" shows a judge model the reference beside the answer a
    reader gets. Words the visible text also says add nothing and are left alone. Returns what was
    found, worded for the verdict, or None."""
    if not hidden.strip():
        return None
    wanted = set(reference_units)
    for criterion in criteria:
        wanted |= {t for t in tokens(criterion) if len(t) >= 4 and t not in function_words}
    # What a reader sees, without the containers too: ``visible`` keeps a markdown link's title and
    # an attribute's value as text, which a rendered page shows nowhere.
    # Round 11: and without what ``unseen_markup`` cannot show to be in sight (read by an allow-list).
    seen = set(tokens(visible(strip_containers(without_unseen(shown)))))
    concealed = (set(tokens(hidden)) & wanted) - seen
    if not concealed:
        return None
    return f"the task's answer words only in a part a reader does not see ({sorted(concealed)[:3]})"
