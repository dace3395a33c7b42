"""Load test of the reward server: the ASGI server against the old ``http.server`` one, same router.

    .venv/bin/python bench/serve.py [--duration 4] [--repeats 3] [--concurrency 8] [--servers new,old]

Each server runs in its own process serving ``math-500`` from ``../shared/data/math500.jsonl``
through a 2-worker verification pool. A client process (asyncio, raw HTTP/1.1, so the client
costs little next to the server) sends OpenRLHF ``/get_reward`` requests of one MATH-500 row
each, half gold and half wrong, from ``--concurrency`` connections, either reusing each
connection (keep-alive) or opening a new one per request. A reply with the wrong reward counts
as an error. Reported per mode: requests/s, p50 and p99 latency (min/median/max over repeats),
errors, and the server's resident memory before and after all rounds.

The old server is the ``rlvr_envs/server.py`` of the last commit that still had it (read with
``git show``); it is skipped when git cannot find it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "math500.jsonl"

LAUNCH = r"""
import importlib.util, sys, threading
kind, source, data = sys.argv[1], sys.argv[2], sys.argv[3]
import rlvr_envs
env = rlvr_envs.make("math-500", path=data)
env.pool.preload(env.verifier)
if kind == "new":
    from rlvr_envs.serve.app import RewardServer
    server = RewardServer([env], port=0, preload=False)
    print(server.url, flush=True)
    server.serve_forever()
else:
    spec = importlib.util.spec_from_file_location("old_server", source)
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    server = old.RewardServer([env], port=0)
    print(server.url, flush=True)
    server.serve_forever()
"""


def old_server_source() -> str | None:
    try:
        revs = subprocess.run(
            ["git", "rev-list", "HEAD", "--", "rlvr_envs/server.py"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.split()
        for rev in revs[:20]:
            text = subprocess.run(
                ["git", "show", f"{rev}:rlvr_envs/server.py"], cwd=REPO, capture_output=True, text=True, timeout=30
            ).stdout
            if "ThreadingHTTPServer" in text:
                return text
    except (OSError, subprocess.SubprocessError):
        return None
    return None


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def bodies(n: int) -> list[tuple[bytes, float]]:
    import rlvr_envs
    from rlvr_envs.serve.protocol import openrlhf_label

    env = rlvr_envs.make("math-500", path=DATA)
    out = []
    for i, task in enumerate(env.tasks[:n]):
        gold = i % 2 == 0
        prompt = env.prompt_format.user_message(task.prompt)
        answer = f"So the answer is \\boxed{{{task.answer}}}." if gold else "So the answer is \\boxed{-31337}."
        body = {
            "query": [prompt + answer + "<|im_end|>"],
            "prompts": [prompt],
            "labels": [openrlhf_label(env.env_id, task)],
        }
        out.append((json.dumps(body).encode(), 1.0 if gold else 0.0))
    return out


async def client(
    host: str, port: int, payloads: list[tuple[bytes, float]], seconds: float, concurrency: int, keep_alive: bool
) -> tuple[int, list[float], int, float]:
    latencies: list[float] = []
    errors = 0
    stop = time.perf_counter() + seconds

    def request(body: bytes) -> bytes:
        head = (
            f"POST /get_reward HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n" + ("" if keep_alive else "Connection: close\r\n") + "\r\n"
        )
        return head.encode() + body

    async def read_reply(reader: asyncio.StreamReader) -> bytes:
        head = await reader.readuntil(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n"):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":", 1)[1])
        if not head.startswith(b"HTTP/1.1 200"):
            raise ValueError(head[:40])
        return await reader.readexactly(length)

    async def worker(k: int) -> None:
        nonlocal errors
        i = k
        conn = None
        while time.perf_counter() < stop:
            body, want = payloads[i % len(payloads)]
            i += concurrency
            t0 = time.perf_counter()
            try:
                if conn is None:
                    conn = await asyncio.open_connection(host, port)
                reader, writer = conn
                writer.write(request(body))
                reply = json.loads(await read_reply(reader))
                if reply["rewards"] != [want]:
                    errors += 1
                if not keep_alive:
                    writer.close()
                    conn = None
            except Exception:
                errors += 1
                conn = None
                continue
            latencies.append(time.perf_counter() - t0)
        if conn is not None:
            conn[1].close()

    start = time.perf_counter()
    await asyncio.gather(*(worker(k) for k in range(concurrency)))
    elapsed = time.perf_counter() - start
    return len(latencies), latencies, errors, elapsed


def run_client(url: str, payloads, seconds: float, concurrency: int, keep_alive: bool) -> dict[str, float]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    done, latencies, errors, elapsed = asyncio.run(client(host, int(port), payloads, seconds, concurrency, keep_alive))
    latencies.sort()

    def pick(q):
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else float("nan")

    return {"rps": done / elapsed, "p50": pick(0.50), "p99": pick(0.99), "errors": errors}


def pool_floor(n: int, repeats: int) -> list[float]:
    """Samples/s of the same rows through a 2-worker pool with no HTTP at all: what any server is bounded by."""
    import rlvr_envs
    from rlvr_envs.pool import VerificationPool

    env = rlvr_envs.make("math-500", path=DATA)
    tasks = list(env.tasks[:200]) * (n // 200 + 1)
    tasks = tasks[:n]
    completions = [
        f"So the answer is \\boxed{{{t.answer}}}." if i % 2 == 0 else "So the answer is \\boxed{-31337}."
        for i, t in enumerate(tasks)
    ]
    out = []
    with VerificationPool(2) as pool:
        pool.preload(env.verifier)
        for _ in range(repeats):
            start = time.perf_counter()
            pool.map(env.verifier, tasks, completions, timeout_s=env.time_budget_s)
            out.append(n / (time.perf_counter() - start))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=4.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--servers", default="new,old")
    args = parser.parse_args()
    if not DATA.exists():
        raise SystemExit(f"{DATA} is missing")
    payloads = bodies(200)
    rows = []
    for kind in args.servers.split(","):
        source = ""
        if kind == "old":
            text = old_server_source()
            if text is None:
                print("old server: not found in git history, skipped")
                continue
            source = tempfile.NamedTemporaryFile("w", suffix=".py", delete=False).name
            Path(source).write_text(text)
        env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
        proc = subprocess.Popen(
            [sys.executable, "-c", LAUNCH, kind, source, str(DATA)],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=REPO,
        )
        assert proc.stdout is not None  # a pipe
        try:
            url = proc.stdout.readline().strip()
            if not url.startswith("http"):
                raise SystemExit(f"{kind} server did not start")
            run_client(url, payloads, 1.0, args.concurrency, True)  # warm-up
            before = rss_mb(proc.pid)
            for keep_alive in (True, False):
                results = [
                    run_client(url, payloads, args.duration, args.concurrency, keep_alive) for _ in range(args.repeats)
                ]
                rows.append((kind, "keep-alive" if keep_alive else "new connection", results))
            after = rss_mb(proc.pid)
            rows.append((kind, "memory", [{"before": before, "after": after}]))
        finally:
            proc.kill()
            proc.wait(timeout=10)
            if source:
                os.unlink(source)

    floor = pool_floor(2000, args.repeats)

    def span(values: list[float], fmt: str) -> str:
        return "/".join(format(v, fmt) for v in (min(values), statistics.median(values), max(values)))

    print(
        f"\nOpenRLHF /get_reward, 1 MATH-500 row per request, {args.concurrency} connections, "
        f"{args.repeats} x {args.duration:g} s; min/median/max over repeats"
    )
    print(f"{'server':<7} {'connections':<15} {'req/s':>20} {'p50 ms':>17} {'p99 ms':>17} {'errors':>7}")
    for kind, mode, results in rows:
        if mode == "memory":
            r = results[0]
            print(
                f"{kind:<7} {'server RSS':<15} {r['before']:.0f} MB before, {r['after']:.0f} MB after "
                f"(+{r['after'] - r['before']:.0f} MB)"
            )
            continue
        print(
            f"{kind:<7} {mode:<15} {span([r['rps'] for r in results], '.0f'):>20} "
            f"{span([r['p50'] for r in results], '.1f'):>17} {span([r['p99'] for r in results], '.1f'):>17} "
            f"{sum(r['errors'] for r in results):>7}"
        )
    print(
        f"{'floor':<7} {'pool.map, no HTTP':<15} {span(floor, '.0f'):>20}   (2,000 rows, 2 workers: verification alone)"
    )
    print("goal: >= 2000 req/s at p99 <= 20 ms (new server, keep-alive)")


if __name__ == "__main__":
    main()
