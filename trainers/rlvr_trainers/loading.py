"""What every run does before training: pick the device, load the model, make an env with clear errors.

Shared by the TRL run (``train``) and the episode run (``episode_run``).
"""

from __future__ import annotations

from typing import Any

from rlvr_trainers.config import ConfigError, TrainerConfig


def device_for(config: TrainerConfig) -> str:
    """The device the run uses; asking for a GPU where none is visible fails here, before any download."""
    import torch

    if config.device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if config.device == "cuda" and not torch.cuda.is_available():
        build = f"torch {torch.__version__}" + ("" if torch.version.cuda else ", a build without CUDA")
        raise ConfigError(f"device: cuda asked for, but no CUDA GPU is visible ({build}); use device: cpu or auto")
    return config.device


def load_model(config: TrainerConfig, device: str) -> tuple[Any, Any]:
    """Model and tokenizer of ``config.model``, the weights in float32 on every device.

    A bf16 copy updated by AdamW has no fp32 master: at lr 1e-6 most updates round away (five
    steps changed 2% of the weights, and norm weights at 1.0 never moved). With float32 weights
    ``bf16=True`` autocasts the forward pass and the optimiser sees full precision.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(config.model)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(config.model, dtype=torch.float32)
    return model, tokenizer


def make_env(env_id: str, kwargs: dict[str, Any], field_name: str) -> Any:
    """``rlvr_envs.make`` with a config error naming the env and the argument it cannot take."""
    import re

    from rlvr_envs.errors import ConfigurationError
    from rlvr_envs.registration import make

    try:
        return make(env_id, **kwargs)
    except TypeError as exc:
        found = re.search(r"unexpected keyword argument '([^']+)'", str(exc))
        if found is None:
            raise
        raise ConfigError(f"{field_name}: {env_id} cannot take the argument {found.group(1)!r} ({exc})") from None
    except ConfigurationError as exc:  # an option the family checks itself (reasoning-gym's config fields)
        raise ConfigError(f"{field_name}: {env_id}: {exc}") from None
