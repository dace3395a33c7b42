"""What the IFEval calibration tests share (rounds 12-14): the 835 labelled rows of ../shared/data
and, for env ids, the keys of the labelled-good rows each id pays with the rows' own prompts as
its background (what an env over them builds)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import rlvr_envs
from rlvr_envs.types import Task
from rlvr_ifeval import contrast
from rlvr_ifeval.scoring import build_checkers
from rlvr_ifeval.verifier import IFEvalVerifier
from tests.helpers.data import read_jsonl

LABELLED = ("ifeval_gpt4_responses_labeled.jsonl", "ifbench_responses_labeled.jsonl")


def labelled_rows() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for name in LABELLED:
        found.extend(read_jsonl(name))
    return found


def flags(env_id: str) -> dict[str, Any]:
    """The registered id's verifier options (its ``env_name`` left out)."""
    kwargs = dict(rlvr_envs.registry.resolve(env_id).kwargs)
    kwargs.pop("env_name", None)
    return kwargs


def paid_keys(rows: Sequence[dict[str, Any]], env_ids: Sequence[str]) -> list[set[Any]]:
    """For each id, the keys of the labelled-good rows its verifier pays in full."""
    tasks = [
        Task(id=str(i), prompt=r["prompt"], answer={k: r[k] for k in ("instruction_id_list", "kwargs")})
        for i, r in enumerate(rows)
    ]
    background = contrast.Background.build(
        (r["prompt"], build_checkers(r["instruction_id_list"], r["kwargs"])) for r in rows
    )
    paid = []
    for env_id in env_ids:
        verifier = IFEvalVerifier(relevance_background=background, **flags(env_id))
        paid.append(
            {
                r["key"]
                for r, t in zip(rows, tasks, strict=True)
                if r["reference_strict_all"] and verifier.verify(t, r["response"]).reward == 1
            }
        )
    return paid
