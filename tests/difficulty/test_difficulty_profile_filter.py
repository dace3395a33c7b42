"""Profiling into the SQLite store, resuming, band filtering (Python API and make()), cards, exports."""

from __future__ import annotations

import sqlite3

import pytest

import rlvr_envs
from rlvr_envs.difficulty.card import DifficultyCard
from rlvr_envs.difficulty.filter import (
    EmptyFilterError,
    FilteredEnv,
    filter_env,
    filter_tasks,
    read_tasks,
    write_tasks,
)
from rlvr_envs.difficulty.profile import profile_env
from rlvr_envs.difficulty.store import AmbiguousSamplerError, PassRateStore, sampler_key
from rlvr_envs.samplers.base import FunctionSampler, SamplerError, SamplingParams
from rlvr_envs.testing import check_env
from tests.difficulty.helpers_difficulty import register_toy_ids, scripted_answer, scripted_sampler, skill
from tests.helpers.toy import ToyAddEnv


@pytest.fixture()
def env():
    register_toy_ids()
    return rlvr_envs.make("difftoy-add-v0", size=24, isolation="inline")


def test_profile_stores_every_sample_and_the_rates_follow_the_policy(env, tmp_path):
    db = tmp_path / "p.sqlite"
    sampler = scripted_sampler()
    summary = profile_env(env, sampler, db, n=16, progress=False)
    assert summary.tasks_profiled == 24 and summary.samples_generated == 24 * 16
    assert summary.gen_s > 0 and summary.verify_s > 0
    assert "generation" in summary.render() and "verification" in summary.render()
    with PassRateStore(db) as store:
        key = sampler_key(sampler.fingerprint, "plain")
        assert store.sampler_keys("difftoy-add-v0") == [key]
        assert store.sampler_description(key)["prompt_format"] == "plain"
        records = store.task_records("difftoy-add-v0", key)
        assert len(records) == 24
        for record in records:
            samples = list(store.samples("difftoy-add-v0", key, task_fingerprint=record.task_fingerprint))
            assert [s.index for s in samples] == list(range(16))
            # The stored pass count is the verifier's judgement of the stored completions.
            assert sum(env.verify(record.task, s.completion).passed for s in samples) == record.passes
            a, b = (int(x) for x in record.task.prompt.removeprefix("What is ").rstrip("?").split(" + "))
            if skill(a, b) in (0.0, 1.0):
                assert record.rate == skill(a, b)
        rates = [r.rate for r in records]
        assert min(rates) < 0.2 and max(rates) > 0.8 and any(0.2 <= r <= 0.8 for r in rates)


def test_a_rerun_skips_done_tasks_and_tops_up_to_a_larger_n(env, tmp_path):
    db = tmp_path / "p.sqlite"
    calls = []

    def fn(text, n, seed):
        calls.append(n)
        return [scripted_answer(text, seed, i) for i in range(n)]

    sampler = FunctionSampler(fn, "counting")
    profile_env(env, sampler, db, n=4, limit=10, progress=False)
    assert sum(calls) == 40
    again = profile_env(env, sampler, db, n=4, progress=False)
    assert again.tasks_skipped == 10 and again.tasks_profiled == 14 and sum(calls) == 40 + 14 * 4
    more = profile_env(env, sampler, db, n=6, progress=False)
    assert more.tasks_profiled == 24 and more.samples_generated == 24 * 2
    with PassRateStore(db) as store:
        key = store.resolve_sampler(env.env_id, None)
        assert {r.samples for r in store.task_records(env.env_id, key)} == {6}
        con = sqlite3.connect(db)
        dupes = con.execute(
            "SELECT COUNT(*) FROM (SELECT task_fp, idx FROM samples GROUP BY task_fp, sampler, idx HAVING COUNT(*) > 1)"
        ).fetchone()[0]
        assert dupes == 0


def test_a_failing_sampler_keeps_what_was_committed_before_it_failed(env, tmp_path):
    db = tmp_path / "p.sqlite"
    seen = []

    def flaky(text, n, seed):
        seen.append(text)
        if len(seen) > 5:
            raise SamplerError("server went away")
        return [scripted_answer(text, seed, i) for i in range(n)]

    with pytest.raises(SamplerError):
        profile_env(env, FunctionSampler(flaky, "flaky"), db, n=2, batch_tasks=1, progress=False)
    with PassRateStore(db) as store:
        assert len(store.task_records(env.env_id, store.resolve_sampler(env.env_id, None))) == 5


def test_wrong_completion_counts_from_a_sampler_are_refused(env, tmp_path):
    bad = FunctionSampler(lambda text, n, seed: ["\\boxed{1}"] * n, "bad")
    bad.generate = lambda prompts, n: [["x"] * (n - 1) for _ in prompts]
    with pytest.raises(SamplerError, match="wanted"):
        profile_env(env, bad, tmp_path / "p.sqlite", n=3, progress=False)
    bad.generate = lambda prompts, n: [[None] * n for _ in prompts]
    with pytest.raises(SamplerError, match="not a string"):
        profile_env(env, bad, tmp_path / "p.sqlite", n=3, progress=False)


def test_hostile_completions_are_stored_and_scored_zero(env, tmp_path):
    hostile = ["", "\x00\x00binary\x00", "\boxed{" * 5000, "<answer>" + "9" * 100_000, "\udcff surrogate?"]
    sampler = FunctionSampler(lambda text, n, seed: hostile[:n], "hostile")
    profile_env(env, sampler, tmp_path / "p.sqlite", n=len(hostile), limit=2, progress=False)
    with PassRateStore(tmp_path / "p.sqlite") as store:
        key = store.resolve_sampler(env.env_id, None)
        rows = list(store.samples(env.env_id, key))
        assert len(rows) == 2 * len(hostile) and not any(r.passed for r in rows)
        assert {r.completion for r in rows} == {*hostile[:-1], "? surrogate?"}


def test_filter_env_keeps_the_band_and_delegates_verification(env, tmp_path):
    db = tmp_path / "p.sqlite"
    profile_env(env, scripted_sampler(), db, n=16, progress=False)
    filtered = filter_env(env, band=(0.2, 0.8), profile=db)
    assert isinstance(filtered, FilteredEnv)
    assert 0 < len(filtered.tasks) < 24
    assert filtered.env_id == env.env_id and filtered.prompt_format is env.prompt_format
    for task in filtered.tasks:
        pr = task.difficulty.pass_rate
        assert pr is not None and pr.samples == 16 and 0.2 <= pr.rate <= 0.8
        assert filtered.verify(task, filtered.gold_completion(task)).passed
    result = filter_tasks(env, (0.2, 0.8), db)
    outside = [r for r in result.measured if not 0.2 <= r.rate <= 0.8]
    assert len(outside) + len(filtered.tasks) == 24
    check_env(filtered, n_tasks=2, seeds=(0,), use_pool=False)


def test_make_with_a_band_returns_the_filtered_env(env, tmp_path):
    db = tmp_path / "p.sqlite"
    profile_env(env, scripted_sampler(), db, n=8, progress=False)
    made = rlvr_envs.make("difftoy-add-v0", size=24, isolation="inline", pass_rate_band=(0.0, 0.0), profile=str(db))
    assert made.tasks and all(t.difficulty.pass_rate.passes == 0 for t in made.tasks)
    _, info = made.reset(seed=0)
    assert info["difficulty"]["pass_rate"]["passes"] == 0 and "answer" not in info
    with pytest.raises(ValueError, match="needs profile"):
        filter_env(env, band=(0.2, 0.8), profile=None)


def test_several_samplers_need_a_choice_and_the_error_lists_them(env, tmp_path):
    db = tmp_path / "p.sqlite"
    first = scripted_sampler()
    second = scripted_sampler(SamplingParams(temperature=0.7))
    assert first.fingerprint != second.fingerprint
    profile_env(env, first, db, n=4, progress=False)
    profile_env(env, second, db, n=4, progress=False)
    with pytest.raises(AmbiguousSamplerError) as err:
        filter_env(env, band=(0.0, 1.0), profile=db)
    assert first.fingerprint in str(err.value) and second.fingerprint in str(err.value)
    by_object = filter_env(env, band=(0.0, 1.0), profile=db, sampler=second)
    by_prefix = filter_env(env, band=(0.0, 1.0), profile=db, sampler=second.fingerprint[:-3])
    assert [t.difficulty.pass_rate.sampler for t in by_object.tasks] == [
        t.difficulty.pass_rate.sampler for t in by_prefix.tasks
    ]
    via_make = rlvr_envs.make(
        "difftoy-add-v0", size=24, isolation="inline", pass_rate_band=(0.0, 1.0), profile=(db, second.fingerprint)
    )
    assert [t.id for t in via_make.tasks] == [t.id for t in by_object.tasks]
    with pytest.raises(AmbiguousSamplerError, match="profile=\\(PATH, KEY\\)"):
        rlvr_envs.make("difftoy-add-v0", size=24, pass_rate_band=(0.0, 1.0), profile=db)
    with pytest.raises(LookupError, match="matches none"):
        filter_env(env, band=(0.0, 1.0), profile=db, sampler="nope")


def test_filter_errors_are_clear(env, tmp_path):
    db = tmp_path / "p.sqlite"
    with pytest.raises(LookupError, match="holds no pass rates"):
        filter_env(env, profile=db)
    profile_env(env, FunctionSampler(lambda t, n, s: ["\\boxed{-1}"] * n, "always-wrong"), db, n=2, progress=False)
    with pytest.raises(EmptyFilterError, match="never solved"):
        filter_env(env, band=(0.2, 0.8), profile=db)
    for band in [(0.9, 0.1), (-0.1, 0.5), (0.2,)]:
        with pytest.raises(ValueError):
            filter_env(env, band=band, profile=db)
    other_seed = ToyAddEnv(size=24, seed=99, isolation="inline")
    other_seed.env_spec = env.env_spec
    with pytest.raises(EmptyFilterError, match=r"\(0 measured, \d+ not profiled"):
        filter_env(other_seed, band=(0.0, 1.0), profile=db)


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_written_tasks_round_trip_with_their_difficulty(env, tmp_path, suffix):
    db = tmp_path / "p.sqlite"
    profile_env(env, scripted_sampler(), db, n=8, progress=False)
    kept = filter_tasks(env, (0.0, 1.0), db).kept
    path = write_tasks(kept, tmp_path / f"kept{suffix}")
    back = read_tasks(path)
    assert back == kept
    with pytest.raises(ValueError, match="output format"):
        write_tasks(kept, tmp_path / "kept.csv")


def test_difficulty_card_counts_bands_and_saves_a_png(env, tmp_path):
    db = tmp_path / "p.sqlite"
    profile_env(env, scripted_sampler(), db, n=10, progress=False)
    result = filter_tasks(env, (0.2, 0.8), db)
    card = DifficultyCard.from_records(env.env_id, result.sampler, result.measured)
    assert sum(card.band_counts.values()) == 24 == sum(card.histogram)
    assert card.band_counts["in band [0.2-0.8]"] == len(result.kept)
    text = card.render()
    assert "never solved (0)" in text and "histogram" in text
    png = card.save_png(tmp_path / "card.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    full = DifficultyCard("e", "s", [0.0, 0.5, 1.0], band=(0.0, 1.0))
    assert sum(full.band_counts.values()) == 3


def test_two_writers_on_one_task_never_collide(env, tmp_path):
    """Two stores (as two processes would) appending to the same task interleave cleanly."""
    import threading

    task = env.tasks[0]
    verdict = env.verify(task, "\\boxed{-1}")
    stores = [PassRateStore(tmp_path / "p.sqlite"), PassRateStore(tmp_path / "p.sqlite")]

    def write(store):
        for _ in range(20):
            store.record_task(env.env_id, "k", task, ["x", "y"], [verdict, verdict], [1, 1], gen_s=0, verify_s=0)

    threads = [threading.Thread(target=write, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    record = stores[0].task_record(env.env_id, "k", task.fingerprint)
    assert record is not None and record.samples == 80
    assert [s.index for s in stores[1].samples(env.env_id, "k")] == list(range(80))
    for store in stores:
        store.close()


def test_curriculum_and_audit_read_the_same_store(env, tmp_path):
    from rlvr_envs.audit import audit
    from rlvr_envs.difficulty.curriculum import PassRateCurriculum
    from tests.difficulty.helpers_difficulty import formatting_sampler

    db = tmp_path / "p.sqlite"
    profile_env(env, formatting_sampler(), db, n=4, progress=False)
    curriculum = PassRateCurriculum.from_profile(env, db, (0.2, 0.8))
    # The strict toy verifier accepts only the plain form: one of four samples passes on every task.
    assert {curriculum.rate(t) for t in env.tasks} == {0.25}
    with PassRateStore(db) as store:
        found = audit(store, env.env_id, env=None)  # without the env the stored answer is the gold
    assert found.zero_reward == 3 * found.scanned // 4
    assert {m.extracted for m in found.near_misses} >= {f"{env.tasks[0].answer}.0"}
    assert all(m.extracted != "-7" for m in found.near_misses)
