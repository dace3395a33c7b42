"""The tiny local tokenizer and model of the demos and tests: they live in the core (``rlvr_envs.tiny``)."""

from rlvr_envs.tiny import BOS, EOS, PAD, build_model, build_tokenizer, supervised_warm_start

__all__ = ["BOS", "EOS", "PAD", "build_model", "build_tokenizer", "supervised_warm_start"]
