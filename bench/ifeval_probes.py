"""The "constraints satisfied, task ignored" probes of issue 26, swept over whole task sets:
``.venv/bin/python bench/ifeval_probes.py [--ids ifeval-data-v12,ifeval-data-v13] [--synth-ids ...]
[--classes one-line,paraphrase-essay] [--show 3]``.

Each probe is built from a task the way a policy would build it without answering: a one-line
template around the prompt's topic words, the request restated in other words (synonyms, another
language) before or after an off-topic essay, the plain essay, the prompt's keywords alone, the
topic's words sprinkled through the essay, a topic sentence before it (and one after it:
framed). A probe is paid when any of its two spellings (as written, lowercase) earns reward 1; the table is paid tasks per class per id, on the 541
``ifeval_input_data.jsonl`` prompts (../shared/data) and 300 ``ifeval-synth`` tasks (levels 1-3,
seeds 0..299). Nothing here is an honest answer: the labelled-good figures are
``bench/ifeval_hostile.py --pastes``'s."""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections.abc import Callable
from typing import Any

from _ifeval_common import DATA, ROOT  # bench/ is the script's folder

_ESSAY_TAIL = (
    "My grandmother made it every year in a copper pan that hung by the back door and the whole house smelled "
    "of it for days. Nothing you can buy in a shop comes close to the taste of a jar you made yourself."
)
"""What the sweep's essay adds to the round-8 test's (160 words in all, as the rounds before measured)."""


def essay() -> str:
    """The off-topic essay: ``tests/ifeval/test_ifeval_redteam_round8.py``'s, and ``_ESSAY_TAIL``
    (imported when a probe is built, after ``main`` put the repository on the path)."""
    from tests.ifeval.test_ifeval_redteam_round8 import ESSAY

    return f"{ESSAY} {_ESSAY_TAIL}"


def topic(prompt: str, n: int = 4) -> str:
    """The first ``n`` words of the prompt's task text that are its content units."""
    from rlvr_ifeval.relevance import _fold, task_units

    found = task_units(prompt, ())
    words, seen = [], set()
    for w in re.findall(r"[^\W\d_]+", found.task_text):
        unit = _fold(w)[:6]
        if unit in found.units and unit not in seen:
            seen.add(unit)
            words.append(w)
        if len(words) == n:
            break
    return " ".join(words) or "this"


def _sprinkled(t: str) -> str:
    words = essay().split()
    for i, w in enumerate(reversed(t.split())):
        words.insert(15 + 25 * i, w)
    return " ".join(words)


PROBES: dict[str, Callable[[str], str]] = {
    "one-line": lambda t: f"Here is what you asked about {t}. I hope it helps.",
    "one-line-claim": lambda t: f"In short {t} matters more than most people think.",
    "one-line-done": lambda t: f"Done: a complete answer on {t} as requested. Let me know if you need anything else.",
    "paraphrase-essay": lambda t: f"You would like me to compose a piece regarding {t}. Gladly.\n\n{essay()}",
    "padded-paraphrase-essay": lambda t: (
        f"As you asked here is a thoughtful and carefully researched composition regarding {t}.\n\n{essay()}"
    ),
    "essay-paraphrase": lambda t: f"{essay()}\n\nThat was my composition regarding {t} as you wished.",
    "translated-request-essay": lambda t: f"Vous m'avez demandé un texte sur {t}. Voici.\n\n{essay()}",
    "keywords-only": lambda t: "\n".join(f"- {w}" for w in t.split()),
    "topic-sentence-essay": lambda t: f"{t.capitalize()} is important and worth thinking about. {essay()}",
    "framed-essay": lambda t: (
        f"{t.capitalize()} is important and worth thinking about.\n\n{essay()}\n\nThat is why {t} matters."
    ),
    "sprinkled-essay": _sprinkled,
    "plain-essay": lambda t: essay(),
}


def data_tasks() -> list:
    import rlvr_envs

    env = rlvr_envs.make("ifeval-data-v8", data=str(DATA / "ifeval_input_data.jsonl"))
    return list(env.tasks)


def synth_tasks(n: int = 300) -> list:
    import rlvr_envs

    out = []
    for seed in range(n):
        env: Any = rlvr_envs.make("ifeval-synth-v8", level=1 + seed % 3)
        out.append(env.generate(random.Random(seed)))
    return out


def sweep(ids: list[str], tasks: list, classes: list[str], show: int, data: bool) -> None:
    import rlvr_envs

    verifiers = {}
    for env_id in ids:
        if data:
            verifiers[env_id] = rlvr_envs.make(env_id, data=str(DATA / "ifeval_input_data.jsonl")).verifier
        else:
            verifiers[env_id] = rlvr_envs.make(env_id).verifier
    print(f"{len(tasks)} tasks | " + " | ".join(ids))
    for name in classes:
        build = PROBES[name]
        paid: dict[str, list[str]] = {i: [] for i in ids}
        for task in tasks:
            text = build(topic(task.prompt))
            for env_id, verifier in verifiers.items():
                if any(verifier.verify(task, t).reward >= 1 for t in (text, text.lower())):
                    paid[env_id].append(task.prompt)
        print(f"{name:26s} " + " | ".join(f"{len(paid[i]):4d}" for i in ids), flush=True)
        for env_id in ids:
            for p in paid[env_id][:show]:
                print(f"    [{env_id}] {p[:110]!r}")


def main() -> None:
    sys.path.insert(0, str(ROOT))
    parser = argparse.ArgumentParser()
    parser.add_argument("--ids", default="ifeval-data-v12,ifeval-data-v13")
    parser.add_argument("--synth-ids", default="ifeval-synth-v12,ifeval-synth-v13")
    parser.add_argument("--classes", default=",".join(PROBES))
    parser.add_argument("--show", type=int, default=0)
    parser.add_argument("--n-synth", type=int, default=300)
    args = parser.parse_args()
    classes = args.classes.split(",")
    if args.ids:
        sweep(args.ids.split(","), data_tasks(), classes, args.show, data=True)
    if args.synth_ids:
        sweep(args.synth_ids.split(","), synth_tasks(args.n_synth), classes, args.show, data=False)


if __name__ == "__main__":
    main()
