"""One data vocabulary: ``path=`` is ``data=`` for every id, and a misnamed column gets a "did you mean".

Issue 27: ``path=`` (documented as an alias of ``data=``) raised TypeError for lean-minif2f,
code-python and through ``export --arg path=``, and was silently dropped by math-v0 and lean-v0
(which then asked for data); the user-data ``math`` id refused a ``question`` column without
suggesting ``problem_key=``.
"""

from __future__ import annotations

import json

import pytest

import rlvr_envs
import rlvr_envs.registration as registration
from rlvr_envs.errors import ConfigurationError, DataError
from tests.test_conformance_all import IDS, make_for_conformance


def _hook_kwargs(env_id, monkeypatch):
    """The arguments the test-data hook gives make() for ``env_id`` (its data, its options)."""
    seen: list[dict] = []
    real = registration.data_alias

    def record(kwargs, made_id):
        seen.append(dict(kwargs))
        return real(kwargs, made_id)

    monkeypatch.setattr(registration, "data_alias", record)
    env = make_for_conformance(env_id)
    monkeypatch.setattr(registration, "data_alias", real)
    return env, (seen[-1] if seen else {})


def _fingerprints(env):
    return [t.fingerprint for t in list(env.tasks)[:20]]


@pytest.mark.parametrize("env_id", IDS)
def test_path_is_data_for_every_id_that_takes_data(env_id, monkeypatch):
    env, kwargs = _hook_kwargs(env_id, monkeypatch)
    key = "data" if "data" in kwargs else "path" if "path" in kwargs else None
    if key is None:
        pytest.skip(f"{env_id} makes its own tasks (no data= to alias)")
    other = "path" if key == "data" else "data"
    swapped = {other if k == key else k: v for k, v in kwargs.items()}
    again = rlvr_envs.make(env_id, **swapped)
    assert _fingerprints(again) == _fingerprints(env)
    # the same value under both names is fine; two different ones are refused, never one silently chosen
    assert _fingerprints(rlvr_envs.make(env_id, **kwargs, **{other: kwargs[key]})) == _fingerprints(env)
    with pytest.raises(ConfigurationError, match="data= or its alias path="):
        rlvr_envs.make(env_id, **kwargs, **{other: "/elsewhere/other.jsonl"})


@pytest.mark.parametrize("env_id", ["lean-minif2f", "code-python", "math"])
def test_export_takes_path(env_id, tmp_path, monkeypatch):
    from rlvr_envs.cli import main

    _, kwargs = _hook_kwargs(rlvr_envs.registry.resolve(env_id).id, monkeypatch)
    data = kwargs.get("data", kwargs.get("path"))
    if not isinstance(data, (str, type(tmp_path))):  # rows given in memory: write them to a file
        path = tmp_path / "rows.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in data), encoding="utf-8")
        data = path
    extra = [f"{k}={json.dumps(v)}" for k, v in kwargs.items() if k not in ("data", "path", "limit")]
    out = tmp_path / "out.jsonl"
    argv = ["export", env_id, "--format", "trl", "-n", "2", "--out", str(out), "--arg", f"path={data}"]
    for item in extra:
        argv += ["--arg", item]
    assert main(argv) == 0
    assert len(out.read_text(encoding="utf-8").splitlines()) == 2


def test_a_question_column_gets_a_did_you_mean_for_problem_key(tmp_path):
    rows = tmp_path / "mine.jsonl"
    rows.write_text(json.dumps({"question": "What is 2+3?", "answer": "5"}) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"did you mean problem_key='question'\?"):
        rlvr_envs.make("math", data=str(rows))
    env = rlvr_envs.make("math", data=str(rows), problem_key="question")
    assert env.tasks[0].prompt == "What is 2+3?"


@pytest.mark.parametrize(
    ("row", "wanted", "guess"),
    [
        ({"Question": "q", "answer": "1"}, "problem", "did you mean problem_key='Question'"),
        ({"problem": "q", "solution": "1"}, "answer", "did you mean answer_key='solution'"),
        ({"problme": "q", "answer": "1"}, "problem", "did you mean problem_key='problme'"),
        ({"问题": "q", "答案": "1"}, "problem", None),  # nothing plausible: the plain mapping hint
        ({f"c{i}": i for i in range(5000)}, "problem", None),
    ],
)
def test_the_guess_names_the_option_and_a_plausible_column_or_nothing(row, wanted, guess):
    from rlvr_envs.data import require_fields

    roles = {"problem": "prompt", "answer": "answer"}
    with pytest.raises(DataError) as info:
        require_fields(
            row,
            {roles[wanted]: wanted},
            source="rows.jsonl",
            row_number=3,
            mapping_hint="problem_key=/answer_key=",
        )
    message = str(info.value)
    assert message.startswith("rows.jsonl row 3:") and len(message) < 1000
    if guess is None:
        assert "did you mean" not in message and "map your own column with problem_key=/answer_key=" in message
    else:
        assert guess in message
