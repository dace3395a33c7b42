"""A real TRL ``GRPOTrainer`` step scoring with ``reward_function()`` on self-contained rows, no dataset to be had."""

from __future__ import annotations

import pytest

pytest.importorskip("trl")
pytest.importorskip("rlvr_trainers")

import rlvr_envs
import rlvr_envs.registration as registration
from rlvr_envs.adapters.trl import build_dataset, reward_function
from tests.helpers.data import shared_path


@pytest.mark.slow
def test_grpo_step_scores_exported_rows_with_no_env_made(tmp_path, monkeypatch):
    import torch
    from trl import GRPOConfig, GRPOTrainer

    from rlvr_trainers.tiny import build_model, build_tokenizer

    env = rlvr_envs.make("math-500", path=shared_path("math500.jsonl"), limit=8)
    dataset = build_dataset(env, 4, seed=0, conversational=False)
    tokenizer = build_tokenizer([row["prompt"] for row in dataset] + ["\\boxed{1}"] * 4, vocab_size=300)
    torch.manual_seed(0)
    model = build_model(tokenizer, hidden_size=32, layers=1, heads=2)

    # From here on nothing can make an env or reach the Hub: the trainer has only the rows.
    def refuse(env_id, **kwargs):
        raise rlvr_envs.DataUnavailableError(f"no data for {env_id} here")

    monkeypatch.setattr(registration, "make", refuse)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    fn = reward_function()
    args = GRPOConfig(
        output_dir=str(tmp_path / "out"),
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=6,
        max_steps=1,
        learning_rate=1e-3,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        use_cpu=True,
        bf16=False,
        dataloader_num_workers=0,
        remove_unused_columns=False,
        seed=0,
    )
    trainer = GRPOTrainer(model=model, reward_funcs=[fn], args=args, train_dataset=dataset, processing_class=tokenizer)
    trainer.train()
    # One step: 1 prompt x 4 generations, each verified from its row (random text: wrong or no answer, never an error).
    assert sum(fn.reason_counts.values()) == 4
    assert set(fn.reason_counts) <= {"ok", "wrong", "no_answer", "format_error"}
