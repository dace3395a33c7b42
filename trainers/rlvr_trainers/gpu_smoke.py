"""A short run of the Qwen3-1.7B / spell_backward recipe on a GPU, printing per-step throughput.

    python -m rlvr_trainers.gpu_smoke --model /path/to/Qwen3-1.7B --steps 10

Prints, for every step: step time, generation tokens/s, reward mean and the fraction of
groups dropped by dynamic sampling; then the held-out pass@1 before and after. Needs a CUDA
GPU (and vLLM for the colocate rollouts; ``--no-vllm`` falls back to transformers generate).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from importlib import resources

RECIPE = "qwen3_1.7b_spell_backward.yaml"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlvr_trainers.gpu_smoke", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="local path (or Hub id) of Qwen3-1.7B")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--eval-size", type=int, default=16)
    parser.add_argument("--out", default="runs/gpu_smoke")
    parser.add_argument("--no-vllm", action="store_true", help="generate with transformers instead of vLLM")
    args = parser.parse_args(argv)

    import torch

    if not torch.cuda.is_available():
        print("gpu_smoke needs a CUDA GPU; none is visible", file=sys.stderr)
        return 2
    from rlvr_trainers.config import load_config
    from rlvr_trainers.train import run

    recipe = resources.files("rlvr_trainers.recipes") / RECIPE
    config = load_config(str(recipe), model=args.model, max_steps=args.steps, eval_size=args.eval_size,
                         eval_every=0, eval_k=1, output_dir=args.out, use_vllm=not args.no_vllm, plot=True)
    print(f"GPU: {torch.cuda.get_device_name(0)}; recipe {RECIPE}; {args.steps} steps", flush=True)
    summary = run(config, quiet=True)
    with open(summary["metrics_path"], encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    print(f"{'step':>4} {'step s':>8} {'gen tok/s':>10} {'reward':>7} {'dropped':>8} {'len':>6}")
    for r in records:
        print(f"{r['step']:>4} {r.get('step_time_s') or 0:>8.2f} {r.get('generation_tokens_per_s') or 0:>10.0f} "
              f"{r.get('reward_mean') or 0:>7.3f} {r.get('frac_groups_dropped') or 0:>8.2f} "
              f"{r.get('mean_completion_length') or 0:>6.0f}")
    before, after = summary["before"], summary["after"]
    print(f"held-out pass@1 ({summary['heldout_tasks']} tasks): {before.get('pass@1', 0):.3f} -> "
          f"{after.get('pass@1', 0):.3f}; {summary['train_seconds']} s of training; "
          f"peak GPU memory {torch.cuda.max_memory_allocated() / 2**30:.1f} GiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
