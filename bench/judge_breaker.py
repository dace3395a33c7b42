"""A batch against a judge endpoint that hangs: wall time with the circuit breaker on and off.

The endpoint is the scripted stand-in (``rlvr_judge.testing``) answering each request only after
``--hang-s`` (longer than the client's timeout, so every request times out). The same batch is
verified twice through ``env.verify_batch``: with the breaker off (``breaker_threshold=0``: every
call waits out its timeout and retries) and on (the default threshold). Prints the wall time and
the requests the endpoint received in each run.

    python bench/judge_breaker.py [--batch 64] [--timeout-s 1] [--retries 1] [--hang-s 5]
"""

from __future__ import annotations

import argparse
import time


def run(batch: int, timeout_s: float, retries: int, hang_s: float, threshold: int) -> tuple[float, int, int]:
    import rlvr_envs
    from rlvr_envs.types import Reason
    from rlvr_judge.testing import ScriptedJudgeServer

    rows = [{"prompt": f"What is {i} + 1?", "reference": str(i + 1)} for i in range(batch)]
    with ScriptedJudgeServer(delay_s=hang_s, record=False) as hanging:
        env = rlvr_envs.make(
            "judge-ref", data=rows, base_url=hanging.base_url, model="stand-in", cache=False,
            timeout_s=timeout_s, max_retries=retries, backoff_s=0.1, max_backoff_s=0.2,
            breaker_threshold=threshold,
        )  # fmt: skip
        start = time.perf_counter()
        verdicts = env.verify_batch(list(env.tasks), [f"<answer>{i + 1}</answer>" for i in range(batch)])
        wall = time.perf_counter() - start
        errors = sum(v.reason is Reason.VERIFIER_ERROR for v in verdicts)
        return wall, hanging.requests, errors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--timeout-s", type=float, default=1.0)
    parser.add_argument("--retries", type=int, default=1)
    parser.add_argument("--hang-s", type=float, default=5.0)
    args = parser.parse_args()
    print(
        f"batch {args.batch}, client timeout {args.timeout_s} s, {args.retries} retries, endpoint hangs {args.hang_s} s"
    )
    print(f"{'breaker':>10} {'wall s':>8} {'requests':>9} {'verifier_error':>15}")
    for label, threshold in (("off", 0), ("on (5)", 5)):
        wall, requests, errors = run(args.batch, args.timeout_s, args.retries, args.hang_s, threshold)
        print(f"{label:>10} {wall:8.1f} {requests:9d} {errors:15d}")


if __name__ == "__main__":
    main()
