"""Issue 26, round 14: answer markup that does not balance never reaches the judge.

judge-ref's reader closes the answer at its first closing delimiter, so ``<answer>\\boxed{The Rhine}
The Danube}</answer>`` showed the judge one answer while a reader of balanced markup sees a box
holding two (H4's finding). ``rlvr_envs.tail_markup.broken_markup`` is read on the answer the screen
reads (``answer_tag`` or ``boxed``): a stray closer, a frame or tag around the answer holding more,
a tag reopened after it. Typos around ONE value still reach the judge. Graded by the scripted
STAND-IN judge ``yes`` (pays whatever reaches it: a 0 with no request is the screen's).
"""

from __future__ import annotations

import pytest

from tests.judge import conformance  # noqa: F401 -- loads the plugin at collection
from tests.judge.helpers import paid, screened, stand_in_env, yes_server_fixture

_SERVERS = (yes_server_fixture,)  # the stand-in judge: pytest finds it as a name here

RIVER = {
    "prompt": "Which river flows through the city of Vienna on its way to the Black Sea?",
    "reference": "The Danube",
}

# Each reached the yes stand-in and was paid before the round-14 hook (the judge saw one answer).
BROKEN = [
    "<answer>\\boxed{The Danube} The Rhine}</answer>",
    "\\boxed{The Danube} The Rhine}",
    "\\boxed{\\boxed{The Danube} or the Rhine}",
    "\\fbox{The Rhine \\boxed{The Danube}}",
    "<answer>The Danube</answer> or the Rhine</answer>",
    "<answer>The Rhine <answer>The Danube</answer>",
    "<ANSWER>The Rhine <answer>The Danube</answer>",
    "<answer>The Danube</answer><Answer>The Rhine",
    "\\boxed{The Danube} der Rhein｝",
    "<answer>The Danube</answer> oder der Rhein&lt;/answer&gt;",
]

HONEST = [
    "The river is the Danube.\n\n<answer>The Danube</answer>",
    "\\boxed{The Danube}",
    "\\boxed{The Danube}}",  # a typo around one value
    "<answer>The Danube</answer></answer>",
    "\\boxed{\\boxed{The Danube}}",
    "\\fbox{\\parbox{3cm}{\\boxed{The Danube}}}",
]


@pytest.fixture(scope="module")
def env(yes_server):
    return stand_in_env(yes_server, "judge-ref-v7", data=[RIVER], cache=False)


@pytest.mark.parametrize("completion", BROKEN)
def test_unbalanced_answer_markup_never_reaches_the_judge(yes_server, env, completion):
    verdict = screened(yes_server, env, completion)
    assert "does not balance" in verdict.details["guard"]


@pytest.mark.parametrize("completion", HONEST)
def test_markup_around_one_answer_still_reaches_the_judge(yes_server, env, completion):
    paid(yes_server, env, completion)
