"""Judge client overhead and cache speed against a local OpenAI-compatible server.

Prints, min/median/max over repeats:
- the server's own latency per call (a bare ``urllib`` POST of the same request, the floor),
- the judge client's latency per call (render, POST through the sampler layer, strict parsing),
  and its overhead over the floor (goal: <= 5%),
- a cache hit (goal: <= 1 ms) and verdicts/s through ``env.verify`` with a warm cache.

The server is the scripted stand-in (``rlvr_judge.testing``; string rules, not a model) with a
fixed per-request delay standing in for a model's latency (``--delay-ms``, default 20), so the
overhead is measured against a server time of known size. ``--base-url``/``--model`` measure a
real server (e.g. ``transformers serve``) instead.

    python bench/judge_cache.py [--calls 100] [--repeats 3] [--delay-ms 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import urllib.request


def _stats(values: list[float]) -> str:
    return f"{min(values):9.3f} {statistics.median(values):9.3f} {max(values):9.3f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--delay-ms", type=float, default=20.0)
    parser.add_argument("--base-url")
    parser.add_argument("--model", default="scripted-stand-in")
    args = parser.parse_args(argv)

    import rlvr_envs
    from rlvr_judge.client import JudgeClient
    from rlvr_judge.templates import REF_V0
    from rlvr_judge.testing import ScriptedJudgeServer

    server = None
    base_url = args.base_url
    if base_url is None:
        server = ScriptedJudgeServer(delay_s=args.delay_ms / 1000, record=False).start()
        base_url = server.base_url
    try:
        client = JudgeClient(base_url, args.model, max_tokens=32)
        messages, _ = REF_V0.render("<answer>42</answer>", question="What is 6 * 7?", reference="42")
        body = json.dumps(client._body(messages, 0.0, 0)).encode()

        def raw_post() -> None:
            req = urllib.request.Request(
                base_url + "/chat/completions", data=body, headers={"Content-Type": "application/json"}
            )
            with urllib.request.urlopen(req, timeout=60) as r:
                json.loads(r.read())

        floor, judged, hits, throughput = [], [], [], []
        rows = [{"prompt": f"What is {i} * 7?", "reference": str(7 * i)} for i in range(args.calls)]
        for _ in range(args.repeats):
            raw_post()  # warm the connection path
            t = time.perf_counter()
            for _ in range(args.calls):
                raw_post()
            floor.append((time.perf_counter() - t) / args.calls * 1000)
            t = time.perf_counter()
            for i in range(args.calls):
                m, _ = REF_V0.render(f"<answer>{7 * i}</answer>", question=f"What is {i} * 7?", reference=str(7 * i))
                client.judge(m, REF_V0)
            judged.append((time.perf_counter() - t) / args.calls * 1000)
            with tempfile.TemporaryDirectory() as tmp:
                env = rlvr_envs.make(
                    "judge-ref", data=rows, base_url=base_url, model=args.model, cache=f"{tmp}/c.sqlite"
                )
                completions = [f"<answer>{7 * i}</answer>" for i in range(args.calls)]
                env.verify_batch(list(env.tasks), completions)  # fills the cache
                t = time.perf_counter()
                for task, c in zip(env.tasks, completions):
                    env.verify(task, c)
                elapsed = time.perf_counter() - t
                hits.append(elapsed / args.calls * 1000)
                throughput.append(args.calls / elapsed)
                stats = env.judge_stats()  # type: ignore[attr-defined]  # make() is typed as a plain Env
                assert stats["cache"]["hits"] == args.calls
        overhead = [(j - f) / f * 100 for j, f in zip(judged, floor)]
        print(f"judge client vs {'the scripted stand-in' if server else base_url} "
              f"({args.calls} calls x {args.repeats} repeats; server delay {args.delay_ms:g} ms)")  # fmt: skip
        print(f"{'what':44} {'min':>9} {'median':>9} {'max':>9}")
        print(f"{'server floor: bare urllib POST (ms/call)':44} {_stats(floor)}")
        print(f"{'judge client: render+POST+parse (ms/call)':44} {_stats(judged)}")
        print(f"{'client overhead over the floor (%)':44} {_stats(overhead)}   goal <= 5")
        print(f"{'cache hit through env.verify (ms/verdict)':44} {_stats(hits)}   goal <= 1")
        print(f"{'verdicts/s with a warm cache':44} {_stats(throughput)}")
    finally:
        if server is not None:
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
