"""The episode server (``rlvr-envs serve --openenv``): episode throughput and sessions per server.

    .venv/bin/python bench/episode_server.py [--duration 5] [--concurrency 1,8,32] [--sessions 100,300]

One episode = reset (a given math-arith task), one ``calculator`` call, the final answer (half
right, half wrong), i.e. three round trips. Rows:

- ``in-process``: the same episodes on one ``EpisodeEnv`` in this process, no network: the peer
  that bounds what any server can do per core.
- ``server cN``: the server in its own process (uvicorn, OpenEnv's app behind ``SessionGuard``),
  N WebSocket sessions at once from one asyncio client (raw ``websockets``), each running
  episodes back to back for ``--duration`` s: episodes/s, p50/p99 of one step's round trip, and
  CPU seconds per episode of the server process (its pool's worker processes not counted) and
  of the client. The server's first episode (loading the verifier) is timed apart.
- ``sessions S``: S sessions opened and each given an episode with a tool call, all held open:
  the time to open them, the server's resident memory per held session, and that every one still
  answers (a step on each after all are open).

Numbers depend on the load: the load average is printed beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TASK = {"id": "t", "prompt": "What is 123 * 45?", "answer": "5535"}
CALL = {"content": '<tool_call>{"name": "calculator", "arguments": {"expression": "123*45"}}</tool_call>'}
FINALS = ({"content": "So \\boxed{5535}."}, {"content": "So \\boxed{5536}."})


def in_process(duration: float) -> tuple[float, int]:
    import rlvr_envs

    env = rlvr_envs.make("math-arith", tools=["calculator"])
    done, end = 0, time.perf_counter() + duration
    started = time.perf_counter()
    while time.perf_counter() < end:
        env.reset(options={"task": TASK})
        env.step(CALL["content"])
        env.step(FINALS[done % 2]["content"])
        done += 1
    env.close()
    return done / (time.perf_counter() - started), done


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(port: int, max_sessions: int) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "rlvr_envs.cli", "serve", "--openenv", "math-arith", "--tool", "calculator"]
    cmd += ["--port", str(port), "--max-sessions", str(max_sessions), "--session-idle-timeout", "600"]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "server exited") from None
            time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start")


def proc_stats(pid: int) -> tuple[float, float]:
    """(CPU seconds, resident MB) of a process, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    with open(f"/proc/{pid}/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return cpu, rss / 1024


async def rpc(ws, message: dict, latencies: list[float] | None = None) -> dict:
    t = time.perf_counter()
    await ws.send(json.dumps(message))
    reply = json.loads(await ws.recv())
    if latencies is not None:
        latencies.append(time.perf_counter() - t)
    if reply.get("type") == "error":
        raise RuntimeError(reply)
    return reply["data"]


async def throughput(url: str, concurrency: int, duration: float) -> tuple[int, int, list[float]]:
    import websockets

    latencies: list[float] = []
    end = time.perf_counter() + duration

    async def session(k: int) -> tuple[int, int]:
        done = wrong = 0
        async with websockets.connect(url, max_size=None) as ws:
            while True:  # at least one episode per session
                await rpc(ws, {"type": "reset", "data": {"task": TASK}}, latencies)
                tool = await rpc(ws, {"type": "step", "data": CALL}, latencies)
                final = await rpc(ws, {"type": "step", "data": FINALS[(k + done) % 2]}, latencies)
                ok = tool["observation"]["tool_messages"][0]["content"] == "5535"
                ok = ok and final["done"] and final["reward"] == (1.0 if (k + done) % 2 == 0 else 0.0)
                wrong += 0 if ok else 1
                done += 1
                if time.perf_counter() >= end:
                    break
        return done, wrong

    results = await asyncio.gather(*(session(k) for k in range(concurrency)))
    return sum(r[0] for r in results), sum(r[1] for r in results), latencies


async def hold(url: str, count: int) -> tuple[float, int, list]:
    import websockets

    started = time.perf_counter()
    sockets = []
    for _ in range(count):
        ws = await websockets.connect(url, max_size=None)
        await rpc(ws, {"type": "reset", "data": {"task": TASK}})
        await rpc(ws, {"type": "step", "data": CALL})
        sockets.append(ws)
    opened = time.perf_counter() - started
    replies = await asyncio.gather(*(rpc(ws, {"type": "step", "data": FINALS[0]}) for ws in sockets))
    answered = sum(1 for r in replies if r["done"] and r["reward"] == 1.0)
    return opened, answered, sockets


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--concurrency", default="1,8,32")
    parser.add_argument("--sessions", default="100,300")
    args = parser.parse_args()
    levels = [int(x) for x in args.concurrency.split(",") if x]
    holds = [int(x) for x in args.sessions.split(",") if x]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    rate, n = in_process(args.duration)
    print(f"{'in-process':<14} {rate:8.1f} episodes/s ({n} episodes, one thread, no network)")
    port = free_port()
    server = start_server(port, max(levels + holds) + 8)
    url = f"ws://127.0.0.1:{port}/ws"
    try:
        t = time.perf_counter()
        asyncio.run(throughput(url, 1, 0.0))  # one episode: the server's first verification loads the verifier
        print(f"{'cold start':<14} first episode {time.perf_counter() - t:6.2f} s (not in the rows below)")
        for c in levels:
            cpu0, _ = proc_stats(server.pid)
            client0 = resource.getrusage(resource.RUSAGE_SELF)
            t = time.perf_counter()
            done, wrong, lat = asyncio.run(throughput(url, c, args.duration))
            wall = time.perf_counter() - t
            cpu1, _ = proc_stats(server.pid)
            client1 = resource.getrusage(resource.RUSAGE_SELF)
            client_cpu = (client1.ru_utime + client1.ru_stime) - (client0.ru_utime + client0.ru_stime)
            print(
                f"{'server c' + str(c):<14} {done / wall:8.1f} episodes/s  step p50 {pct(lat, 0.5):6.2f} ms "
                f"p99 {pct(lat, 0.99):7.2f} ms  server CPU {1000 * (cpu1 - cpu0) / max(done, 1):5.2f} ms/episode  "
                f"client CPU {1000 * client_cpu / max(done, 1):5.2f} ms/episode  wrong {wrong}"
            )
        for s in holds:
            _, rss0 = proc_stats(server.pid)

            async def run(count: int = s) -> tuple[float, int, float]:
                opened, answered, sockets = await hold(url, count)
                _, rss1 = proc_stats(server.pid)
                for ws in sockets:
                    await ws.close()
                return opened, answered, rss1

            opened, answered, rss1 = asyncio.run(run())
            print(
                f"{'sessions ' + str(s):<14} opened in {opened:6.2f} s  {answered}/{s} answered after all were open  "
                f"server RSS {rss0:6.1f} -> {rss1:6.1f} MB ({(rss1 - rss0) / s * 1024:6.1f} kB/session)"
            )
            time.sleep(1.0)
    finally:
        server.terminate()
        server.wait(timeout=20)
    print(f"load average {os.getloadavg()[0]:.1f} after")


if __name__ == "__main__":
    main()
