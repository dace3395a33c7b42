"""A short run of the Qwen3-1.7B / spell_backward recipe on a GPU, after checking the machine.

    python -m rlvr_trainers.gpu_smoke --model /path/to/Qwen3-1.7B --steps 10
    python -m rlvr_trainers.gpu_smoke --model /path/to/Qwen3-1.7B --check-only

First it checks, one line each, what an offline GPU machine must already have: a CUDA build
of torch and a visible GPU, vLLM (unless ``--no-vllm``) at a version TRL accepts and that fits
the installed torch and transformers, the model's weights and tokenizer on disk, a supported
TRL, and the env. Anything missing is named with the command that fixes it, and nothing is
loaded. Then it trains for ``--steps`` steps and prints, per step: step time, generation
tokens/s, reward, flat groups, truncation and length; the held-out pass@1 before and after;
whether small parameters (norm weights) moved at lr 1e-6 (the fp32-master check); peak memory.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path

RECIPE = "qwen3_1.7b_spell_backward.yaml"
ENV_ID = "rg-spell_backward-v0"


@dataclass
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _vllm_requirements() -> dict[str, str]:
    """vLLM's own pins on torch and transformers, from its installed metadata."""
    out = {}
    for req in metadata.requires("vllm") or []:
        name = req.split(";")[0].strip()
        for pkg in ("torch", "transformers"):
            if name.startswith(pkg) and name[len(pkg) : len(pkg) + 1] in "=<>!~ (" and "extra" not in req:
                out[pkg] = name[len(pkg) :].strip()
    return out


def check_model(model: str) -> Check:
    path = Path(model).expanduser()
    if path.is_dir():
        weights = list(path.glob("*.safetensors")) + list(path.glob("*.bin"))
        missing = [n for n in ("config.json",) if not (path / n).is_file()]
        if not (path / "tokenizer.json").is_file() and not (path / "tokenizer_config.json").is_file():
            missing.append("tokenizer.json")
        if not weights:
            missing.append("*.safetensors")
        if missing:
            return Check(
                "model",
                False,
                f"{path} lacks {', '.join(missing)}",
                "copy the whole model folder (config, tokenizer, weights) to the machine",
            )
        size = sum(w.stat().st_size for w in weights) / 2**30
        return Check("model", True, f"{path}: {len(weights)} weight files, {size:.1f} GiB")
    try:
        from huggingface_hub import snapshot_download

        local = snapshot_download(model, local_files_only=True)
        return check_model(local)
    except Exception as exc:  # not in the local cache, or no huggingface_hub
        return Check(
            "model",
            False,
            f"{model!r} is neither a folder nor in the local Hugging Face cache ({type(exc).__name__})",
            f"on a machine with internet: huggingface-cli download {model} --local-dir DIR; copy DIR "
            "here and pass --model DIR",
        )


def machine_checks(model: str, use_vllm: bool) -> list[Check]:
    checks = []
    try:
        import torch

        cuda_build = torch.version.cuda
        visible = torch.cuda.is_available()
        detail = f"torch {torch.__version__}, CUDA build {cuda_build or 'none'}"
        if visible:
            detail += f", {torch.cuda.device_count()} GPU(s): {torch.cuda.get_device_name(0)}"
        fix = "" if cuda_build else "pip install torch==2.13.0 from PyPI (a CUDA build), not the CPU index"
        if cuda_build and not visible:
            fix = "no GPU visible: check nvidia-smi and CUDA_VISIBLE_DEVICES"
        checks.append(Check("torch + GPU", bool(cuda_build and visible), detail, fix))
    except ImportError as exc:
        checks.append(Check("torch + GPU", False, f"torch does not import: {exc}", "pip install -e trainers"))
    if use_vllm:
        version = _version("vllm")
        if version is None:
            checks.append(
                Check(
                    "vllm",
                    False,
                    "vllm is not installed",
                    "pip install -e 'trainers[gpu]' (vllm 0.31.0 with its torch and transformers), "
                    "or run with --no-vllm",
                )
            )
        else:
            from packaging.specifiers import SpecifierSet
            from packaging.version import Version

            problems = []
            if not Version("0.22.0") <= Version(Version(version).base_version) <= Version("0.31.0"):
                problems.append(f"TRL 1.16 accepts vllm 0.22.0-0.31.0, not {version}")
            for pkg, spec in _vllm_requirements().items():
                have = _version(pkg)
                if (
                    have
                    and spec
                    and not SpecifierSet(spec.replace("(", "").replace(")", "")).contains(
                        Version(have).base_version, prereleases=True
                    )
                ):
                    problems.append(f"vllm {version} wants {pkg}{spec}, {have} is installed")
            try:
                import vllm  # noqa: F401  (imports its CUDA kernels: the real test)
            except Exception as exc:
                problems.append(f"import vllm fails: {type(exc).__name__}: {exc}")
            checks.append(
                Check(
                    "vllm",
                    not problems,
                    "; ".join(problems) or f"vllm {version}",
                    "pip install -e 'trainers[gpu]' resolves torch, vllm and transformers together" if problems else "",
                )
            )
    try:
        from rlvr_trainers.trainer import check_trl_version

        checks.append(Check("trl", True, f"trl {check_trl_version()}"))
    except Exception as exc:
        checks.append(Check("trl", False, str(exc), "pip install 'trl>=1.6,<1.17'"))
    try:
        import rlvr_envs

        rlvr_envs.make(ENV_ID)
        checks.append(Check("env", True, ENV_ID))
    except Exception as exc:
        checks.append(
            Check(
                "env",
                False,
                f"{ENV_ID}: {type(exc).__name__}: {exc}",
                "pip install -e envs/reasoning_gym (and reasoning-gym)",
            )
        )
    checks.append(check_model(model))
    return checks


def print_checks(checks: Sequence[Check]) -> bool:
    for c in checks:
        print(
            f"[{'ok' if c.ok else 'MISSING'}] {c.name}: {c.detail}" + (f"\n      fix: {c.fix}" if c.fix else ""),
            flush=True,
        )
    return all(c.ok for c in checks)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rlvr_trainers.gpu_smoke",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--model", required=True, help="local folder of Qwen3-1.7B (or a Hub id already cached)")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--eval-size", type=int, default=16)
    parser.add_argument("--out", default="runs/gpu_smoke")
    parser.add_argument("--no-vllm", action="store_true", help="generate with transformers instead of vLLM")
    parser.add_argument("--check-only", action="store_true", help="only check the machine")
    args = parser.parse_args(argv)

    print(f"== gpu_smoke: checks (recipe {RECIPE}) ==", flush=True)
    if not print_checks(machine_checks(args.model, not args.no_vllm)):
        print("gpu_smoke: fix the MISSING lines above first (nothing was loaded)", file=sys.stderr)
        return 2
    if args.check_only:
        return 0
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # an offline machine must not wait on the Hub
    import torch

    from rlvr_trainers.config import load_config
    from rlvr_trainers.train import _load_model, run

    recipe = resources.files("rlvr_trainers.recipes") / RECIPE
    config = load_config(
        str(recipe),
        model=args.model,
        max_steps=args.steps,
        eval_size=args.eval_size,
        eval_every=0,
        eval_k=1,
        output_dir=args.out,
        use_vllm=not args.no_vllm,
        plot=True,
        save_steps=0,
    )
    model, tokenizer = _load_model(config, "cuda")
    dtypes = sorted({str(p.dtype) for p in model.parameters()})
    watched = {n: p.detach().clone() for n, p in model.named_parameters() if "norm" in n}
    print(f"== training {args.steps} steps; weights {dtypes} (bf16 autocast) ==", flush=True)
    summary = run(config, model=model, tokenizer=tokenizer, quiet=True)
    with open(summary["metrics_path"], encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    print(
        f"{'step':>4} {'step s':>8} {'gen tok/s':>10} {'reward':>7} {'flat':>6} {'refill':>6} {'trunc':>6} {'len':>6}"
    )
    for r in records:
        print(
            f"{r['step']:>4} {r.get('step_time_s') or 0:>8.2f} {r.get('generation_tokens_per_s') or 0:>10.0f} "
            f"{r.get('reward_mean') or 0:>7.3f} {r.get('frac_groups_dropped') or 0:>6.2f} "
            f"{r.get('frac_groups_refilled') or 0:>6.2f} {r.get('frac_truncated') or 0:>6.2f} "
            f"{r.get('mean_completion_length') or 0:>6.0f}"
        )
    trained = dict(summary["model"].named_parameters())
    moved = sum(
        not torch.equal(v.to(trained[n].device), trained[n].detach()) for n, v in watched.items() if n in trained
    )
    before, after = summary["before"], summary["after"]
    print(
        f"held-out pass@1 ({summary['heldout_tasks']} tasks): {before.get('pass@1', 0):.3f} -> "
        f"{after.get('pass@1', 0):.3f}; {summary['train_seconds']} s of training"
    )
    print(f"norm weights moved at lr {config.learning_rate:g}: {moved}/{len(watched)} (all should)")
    print(f"peak GPU memory {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB; metrics {summary['metrics_path']}")
    return 0 if moved == len(watched) else 1


if __name__ == "__main__":
    sys.exit(main())
