"""rlvr-trainers: GRPO-family training on rlvr-envs environments, built on TRL's GRPOTrainer.

``TrainerConfig`` describes a run (envs, model, preset, sampling, shaping, difficulty band,
dynamic sampling, curriculum); ``train(config)`` runs it. Heavy libraries (torch, TRL,
transformers) are imported when a run starts, not when this package is imported.
"""

from rlvr_trainers.config import PRESETS, ConfigError, TrainerConfig, load_config

__all__ = ["PRESETS", "ConfigError", "TrainerConfig", "load_config", "train"]


def train(config: TrainerConfig) -> dict:
    """Run one training job; returns its summary (see ``rlvr_trainers.train.run``)."""
    from rlvr_trainers.train import run

    return run(config)
