"""Load test of the reward server: this tree's server against earlier ones, same router, same rows.

    .venv/bin/python bench/serve.py [--duration 4] [--repeats 3] [--concurrency 8] [--servers new,threads,HEAD,old]

The default run (about a minute) measures issue 30's goals and nothing else: this tree's server
(``new``) and its ``http-only`` twin, keep-alive, 3 rounds of 4 s, and ends with a table of each
goal beside its measure and the machine's load (req/s and p99 move with the load; the CPU split
does much less). ``--servers new,threads --modes keep-alive,new-connection`` adds the comparisons
below. ``threads`` is the same server with
its rows handed to the pool's slot threads (``RLVR_SERVE_LANES=0``) instead of workers its event
loop drives itself (``runtime.local.lanes``), so the line ``new vs threads`` is what the
loop-driven hand-off saves, in the same rounds. A git revision (``HEAD``; after committing, name
the commit before by hash: ``HEAD~1`` moves) runs that revision's server package on this tree's
core; one with the same server as this tree's shows what two identical servers differ by in the
run: the noise to judge by. ``new:N``: this tree's server on a pool of N workers of its own
(``new``: one worker per CPU). ``tree:PATH`` runs the ``rlvr_envs`` package found there, whole
(pool workers included), and the families' packages under its ``envs/``, for changes below the server: a copy of this tree's package with the
changed files as they were before (a ``git worktree`` of an older commit can meet plugins
installed from this tree that need a newer core).

Each server runs in its own process serving ``math-500`` from ``../shared/data/math500.jsonl``
through a 2-worker verification pool: ``new`` is this working tree; ``old`` is the
``http.server`` one (the last ``rlvr_envs/server.py`` in git history that had it); any other
name is a git revision whose ``rlvr_envs/serve`` package is served on this tree's core (pool,
envs), so a comparison with ``HEAD`` shows what uncommitted server changes do. All servers
start first and the rounds interleave (server after server, repeat after repeat, each repeat
starting with the next server), so a shared machine's changing load falls on all of them alike.

The client is one thread on raw non-blocking sockets under ``epoll``, every request's bytes
prepared beforehand (cheap next to the server; its CPU is printed). ``--concurrency``
connections each send an OpenRLHF ``/get_reward`` request of one MATH-500 row, half gold and half
wrong (every wrong answer a value no other request carries: ``bodies``), and the next as soon as the reply is in (keep-alive), or over a new connection each time.
A reply that is not 200 with the right reward is an error (the first few are printed). Per mode:
requests/s, p50 and p99 latency (min/median/max over repeats), errors, CPU per request of the
client, the server process (event loop, pool threads) and its pool workers, and the server's
resident memory before and after. Two rows without HTTP bound what any server can do: the same rows
through a 2-worker pool with ``--concurrency`` calls in flight, and all at once (``pool.map``).

Beside ``new`` an ``http-only`` server runs in the same rounds: this tree's server with verdicts
made up front and no pool, so its CPU per request is the HTTP layer's (parsing, JSON both ways,
the request's rows and reply, the socket writes). The last lines print issue 30's goals from the
medians: ``new``'s keep-alive req/s and p99, and the HTTP layer's share of a request's CPU
(``http-only`` over ``new``'s server plus workers), split into HTTP, dispatch (batcher, the
hand-off to the workers and back: on the loop for ``new``, on the pool's threads for ``threads``)
and verification (workers); ``(loop)`` is the server's event-loop thread alone.

Last, each server's CPU per request (process plus pool workers; it carries over to a quiet
machine, req/s and p99 under load do not), the req/s that allows on two free cores, and ``new``
against each baseline. A reply paying ``verifier_error``/``timeout`` (0.0) counts as an error.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from pathlib import Path
from typing import Any

from _serve_summary import HTTP_ONLY, cpu_lines, goals  # bench/ is the script's folder: on sys.path

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "math500.jsonl"
VARIANTS = 200  # requests per row: 200 rows x 200 = 40,000 bodies, more than a default run sends

LAUNCH = r"""
import importlib.util, sys
kind, source, data, stub = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "stub"
workers = int(sys.argv[5])
import rlvr_envs
if kind == "rev":
    import rlvr_envs.serve  # lazy: nothing under it is imported yet
    rlvr_envs.serve.__path__[:] = [source]  # the revision's server on this tree's core
if workers:  # a pool of its own with this many workers, instead of the shared one (one per CPU)
    from rlvr_envs.runtime.local.pool import VerificationPool
    env = rlvr_envs.make("math-500", path=data, pool=VerificationPool(workers))
else:
    env = rlvr_envs.make("math-500", path=data)
if not stub:
    env.pool.preload(env.verifier)
if kind in ("new", "rev"):
    from rlvr_envs.serve.app import RewardServer
    server = RewardServer([env], port=0, preload=False)
    if stub:  # the HTTP layer alone: verdicts made up front, no pool
        gold, wrong = (env.verify(env.tasks[0], f"\\boxed{{{a}}}") for a in (env.tasks[0].answer, -31337))
        async def averify(rows):
            return [wrong if "-31337" in row[2] else gold for row in rows]
        server.scoring.router.averify = averify  # what the revision's server calls
        if hasattr(server, "batcher"):
            from rlvr_envs.serve.asgi import create_app
            server.app = create_app(server.scoring, averify=averify, body_timeout_s=None)
else:
    spec = importlib.util.spec_from_file_location("old_server", source)
    old = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(old)
    server = old.RewardServer([env], port=0)
print(server.url, flush=True)
server.serve_forever()
"""


def git(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, timeout=60, check=True)


def old_server_source() -> str | None:
    try:
        revs = git("rev-list", "HEAD", "--", "rlvr_envs/server.py").stdout.decode().split()
        for rev in revs[:20]:
            text = git("show", f"{rev}:rlvr_envs/server.py").stdout.decode()
            if "ThreadingHTTPServer" in text:
                return text
    except (OSError, subprocess.SubprocessError):
        return None
    return None


def revision_serve(rev: str, into: Path) -> Path | None:
    """``rlvr_envs/serve`` at git revision ``rev``, extracted under ``into`` (None if git cannot)."""
    archive = into / "serve.tar"
    try:
        archive.write_bytes(git("archive", rev, "rlvr_envs/serve").stdout)
    except (OSError, subprocess.SubprocessError):
        return None
    with tarfile.open(archive) as tar:
        tar.extractall(into / rev.replace("/", "_"), filter="data")
    return into / rev.replace("/", "_") / "rlvr_envs" / "serve"


# -- /proc accounting ----------------------------------------------------------------------------
TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int, thread: int | None = None) -> float:
    """User + system CPU of a process (all its threads), or of one of its threads."""
    where = f"/proc/{pid}/task/{thread}/stat" if thread is not None else f"/proc/{pid}/stat"
    try:
        fields = Path(where).read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (the pool's zygote and workers), whichever thread started it."""
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for task in tasks:
        try:
            children = Path(f"/proc/{pid}/task/{task}/children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            out += [child, *descendants(child)]
    return out


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


# -- the client ----------------------------------------------------------------------------------
def wrong_answer(j: int) -> str:
    """The ``j``-th wrong completion: every one a different value (all contain ``-31337``)."""
    return f"So the answer is \\boxed{{-31337{j}}}."


def bodies(n: int, variants: int = VARIANTS) -> list[tuple[bytes, float]]:
    """``n`` rows x ``variants`` requests: gold answers repeat, wrong answers never do.

    The math verifier remembers answer comparisons across calls (envs/math/README.md), so rows
    cycled with one fixed wrong answer would be served from that memo after the first lap and
    flatter the server. Here each wrong completion carries a value no other request has (as a
    policy's wrong answers mostly differ), while right answers repeat (as a GRPO group's do).
    """
    import rlvr_envs
    from rlvr_envs.serve.protocol import openrlhf_label

    env = rlvr_envs.make("math-500", path=DATA)
    out = []
    for v in range(variants):
        for i, task in enumerate(env.tasks[:n]):
            gold = i % 2 == 0
            prompt = env.prompt_format.user_message(task.prompt)
            answer = f"So the answer is \\boxed{{{task.answer}}}." if gold else wrong_answer(v * n + i)
            body = {
                "query": [prompt + answer + "<|im_end|>"],
                "prompts": [prompt],
                "labels": [openrlhf_label(env.env_id, task)],
            }
            out.append((json.dumps(body).encode(), 1.0 if gold else 0.0))
    return out


class _Conn:
    __slots__ = ("buf", "next", "sock", "start", "want")

    def __init__(self, sock: socket.socket, first: int) -> None:
        self.sock, self.buf, self.next, self.start, self.want = sock, b"", first, 0.0, 0.0


def load(
    address: tuple[str, int],
    payloads: Sequence[tuple[bytes, float]],
    seconds: float,
    concurrency: int,
    keep_alive: bool,
) -> dict[str, Any]:
    """Closed-loop load: each connection has one request in flight and sends the next on the reply."""
    head = "POST /get_reward HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{}\r\n"
    close = "" if keep_alive else "Connection: close\r\n"
    requests = [(head.format(len(body), close).encode() + body, want) for body, want in payloads]
    poller = select.epoll()
    conns: dict[int, _Conn] = {}
    latencies: list[float] = []
    errors: list[str] = []
    now = time.perf_counter

    def open_conn(first: int) -> None:
        sock = socket.create_connection(address)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setblocking(False)
        conn = conns[sock.fileno()] = _Conn(sock, first)
        poller.register(sock.fileno(), select.EPOLLIN)
        send(conn)

    def send(conn: _Conn) -> None:
        data, conn.want = requests[conn.next % len(requests)]
        conn.next += concurrency
        conn.start = now()
        conn.sock.send(data)  # a request is far smaller than the socket buffer

    def drop(fd: int) -> _Conn:
        conn = conns.pop(fd)
        poller.unregister(fd)
        conn.sock.close()
        return conn

    cpu0 = os.times()
    begin = now()
    stop = begin + seconds
    for k in range(concurrency):
        open_conn(k)
    while conns:
        for fd, _ in poller.poll():
            conn = conns[fd]
            try:
                data = conn.sock.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            buf = conn.buf + data
            end = buf.find(b"\r\n\r\n")
            length = -1
            if end >= 0:
                at = buf.lower().find(b"content-length:", 0, end)
                length = int(buf[at + 15 : buf.find(b"\r\n", at)]) if at >= 0 else 0
            if length < 0 or len(buf) < end + 4 + length:
                if data:
                    conn.buf = buf
                    continue
                errors.append(f"connection closed mid-reply: {buf[:80]!r}")
                drop(fd)
                if now() < stop:
                    open_conn(conn.next)
                continue
            reply, conn.buf = buf[end + 4 : end + 4 + length], buf[end + 4 + length :]
            took = now() - conn.start
            try:
                got = json.loads(reply)
                flags = got["extra_logs"]
                # A verifier_error or timeout paid 0.0 looks like a wrong answer's reward: it is an error too.
                ok = (
                    buf.startswith(b"HTTP/1.1 200")
                    and got["rewards"] == [conn.want]
                    and not any(flags["verifier_error"])
                    and not any(flags["timeout"])
                )
            except (ValueError, KeyError, TypeError):
                ok = False
            if ok:
                latencies.append(took)
            else:
                errors.append(f"{buf[:12].decode(errors='replace')} after {took * 1000:.0f} ms: {reply[:240]!r}")
            more = now() < stop
            if keep_alive and more:
                send(conn)
                continue
            drop(fd)
            if more:
                open_conn(conn.next)
    elapsed = now() - begin
    cpu1 = os.times()
    poller.close()
    latencies.sort()

    def pick(q: float) -> float:
        return latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000 if latencies else float("nan")

    done = max(1, len(latencies))
    client_cpu = cpu1.user + cpu1.system - cpu0.user - cpu0.system
    return {
        "rps": len(latencies) / elapsed,
        "p50": pick(0.50),
        "p99": pick(0.99),
        "errors": errors,
        "elapsed": elapsed,
        "done": done,
        "client_us": 1e6 * client_cpu / done,
        "client_share": client_cpu / elapsed,
    }


# -- the pool without HTTP -----------------------------------------------------------------------
class Floor:
    """The bench's rows through a 2-worker pool in this process: what any server is bounded by."""

    def __init__(self) -> None:
        import rlvr_envs
        from rlvr_envs.runtime.local.pool import VerificationPool

        self.env = rlvr_envs.make("math-500", path=DATA)
        self.tasks = list(self.env.tasks[:200])
        self.completions = [
            f"So the answer is \\boxed{{{t.answer}}}." if i % 2 == 0 else "So the answer is \\boxed{-31337}."
            for i, t in enumerate(self.tasks)
        ]
        self.pool = VerificationPool(2)
        self.pool.preload(self.env.verifier)
        self.drawn = 0

    def in_flight(self, seconds: float, concurrency: int) -> float:
        """Rows/s with ``concurrency`` calls in flight, each replaced as it finishes (the server's load)."""
        pending: set[Future[Any]] = set()
        done, i = 0, 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            while len(pending) < concurrency:
                k = i % len(self.tasks)
                completion = self.completions[k] if k % 2 == 0 else self.wrong()  # as bodies(): no repeats
                pending.add(self.pool.submit(self.env.verifier, self.tasks[k], completion, timeout_s=2.0))
                i += 1
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            done += len(finished)
            self.check(f.result() for f in finished)
        wait(pending)
        self.check(f.result() for f in pending)
        return (done + len(pending)) / (time.perf_counter() - start)

    def wrong(self) -> str:
        """A wrong completion no earlier call sent (the answer memo must not flatter the floor)."""
        self.drawn += 1
        return wrong_answer(self.drawn)

    def check(self, verdicts: Any) -> None:
        """The floor counts only honest verdicts: a verifier_error or timeout is cheap and would flatter it."""
        bad = [v for v in verdicts if v.reason.value in ("verifier_error", "timeout")]
        if bad:
            raise SystemExit(f"floor: {len(bad)} rows got {bad[0].reason.value}: {bad[0].details}")

    def all_at_once(self, n: int = 2000) -> float:
        tasks = (self.tasks * (n // len(self.tasks) + 1))[:n]
        completions = [
            c if i % 2 == 0 else self.wrong() for i, c in enumerate(self.completions * (n // len(self.tasks) + 1))
        ][:n]
        start = time.perf_counter()
        verdicts = self.pool.map(self.env.verifier, tasks, completions, timeout_s=2.0)
        elapsed = time.perf_counter() - start
        self.check(verdicts)
        return n / elapsed

    def close(self) -> None:
        self.pool.close()


# -- main ----------------------------------------------------------------------------------------


THREADS = "threads"
"""This tree's server with its rows going through the pool's slot threads (``RLVR_SERVE_LANES=0``),
not through workers its event loop drives (``runtime.local.lanes``): the hand-off's cost, same run."""


def start_servers(kinds: list[str], scratch: Path, stub: bool) -> dict[str, subprocess.Popen[str]]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"}
    procs: dict[str, subprocess.Popen[str]] = {}
    for kind in kinds:
        stubbed, workers, extra, cwd = stub, 0, {}, REPO
        if kind == THREADS:  # this tree's server with the pool's slot threads between loop and workers
            mode, source, extra = "new", "", {"RLVR_SERVE_LANES": "0"}
        elif kind.startswith("new:"):  # this tree's server on a pool of that many workers
            mode, source, workers = "new", "", int(kind.split(":", 1)[1])
        elif kind == "new":
            mode, source = "new", ""
        elif kind.startswith("tree:"):  # another checkout's whole package (core, pool, server), in its folder
            mode, source = "new", ""
            tree = str(Path(kind.split(":", 1)[1]).resolve())
            if not (Path(tree) / "rlvr_envs").is_dir():
                print(f"{kind}: no rlvr_envs package there, skipped")
                continue
            # python -c puts its folder first on sys.path; the families' packages of that tree go
            # before this tree's (installed editable, found after PYTHONPATH), so a change in a
            # family's verifier is measured too.
            families = [str(p) for p in sorted(Path(tree).glob("envs/*")) if p.is_dir()]
            extra, cwd = {"PYTHONPATH": os.pathsep.join([tree, *families])}, Path(tree)
        elif kind == HTTP_ONLY:
            mode, source, stubbed = "new", "", True
        elif kind == "old" and stub:
            print("old server: no stub verdicts for it, skipped")
            continue
        elif kind == "old":
            text = old_server_source()
            if text is None:
                print("old server: not found in git history, skipped")
                continue
            mode, source = "old", str(scratch / "old_server.py")
            Path(source).write_text(text)
        else:
            found = revision_serve(kind, scratch)
            if found is None:
                print(f"{kind}: git has no rlvr_envs/serve at that revision, skipped")
                continue
            mode, source = "rev", str(found)
        procs[kind] = subprocess.Popen(
            [sys.executable, "-c", LAUNCH, mode, source, str(DATA), "stub" if stubbed else "pool", str(workers)],
            stdout=subprocess.PIPE,
            text=True,
            env={**env, **extra},
            cwd=cwd,
        )
    return procs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=4.0, help="seconds per round (default %(default)s)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds per server and mode (default %(default)s)")
    parser.add_argument("--concurrency", type=int, default=8, help="connections (default %(default)s)")
    parser.add_argument(
        "--servers",
        default="new",
        help=f"new, new:N (N pool workers), {THREADS}, old, tree:PATH (the rlvr_envs package of another "
        "checkout, such as a `git worktree` of the commit before, its pool workers too) and/or git revisions, "
        "each compared with new "
        "(default %(default)s)",
    )
    parser.add_argument("--modes", default="keep-alive", help="keep-alive and/or new-connection (default %(default)s)")
    parser.add_argument(
        "--stub-verdicts",
        action="store_true",
        help="servers answer with verdicts made up front, without the pool: the HTTP layer's own cost and rate",
    )
    parser.add_argument(
        "--no-http-share",
        action="store_true",
        help=f"skip the {HTTP_ONLY!r} server (this tree's, stub verdicts) that measures the HTTP layer's share",
    )
    args = parser.parse_args()
    # Run as a script, this folder leads sys.path, and the pool's workers inherit it (PYTHONPATH):
    # bench/math_verify.py would shadow the math_verify package there, and the floor's rows would
    # fail as verifier_error (cheap: a flattering floor). Nothing here imports a sibling.
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    if not DATA.exists():
        raise SystemExit(f"{DATA} is missing")
    args.load_start = os.getloadavg()[0]
    started = time.monotonic()
    payloads = bodies(200)  # 40,000 requests: see bodies()
    modes = args.modes.split(",")
    results: dict[tuple[str, str], list[dict[str, Any]]] = {}
    memory: dict[str, tuple[float, float]] = {}
    floors: dict[str, list[float]] = {"in_flight": [], "map": []}
    with tempfile.TemporaryDirectory() as scratch:
        kinds = args.servers.split(",")
        if "new" in kinds and not args.stub_verdicts and not args.no_http_share:
            kinds.append(HTTP_ONLY)
        procs = start_servers(kinds, Path(scratch), args.stub_verdicts)
        addresses: dict[str, tuple[str, int]] = {}
        floor = None
        try:
            for kind, proc in procs.items():
                assert proc.stdout is not None  # a pipe
                url = proc.stdout.readline().strip()
                if not url.startswith("http"):
                    raise SystemExit(f"{kind} server did not start")
                host, port = url.removeprefix("http://").rsplit(":", 1)
                addresses[kind] = (host, int(port))
                load(addresses[kind], payloads, 1.0, args.concurrency, True)  # warm-up
                memory[kind] = (rss_mb(proc.pid), float("nan"))
            floor = Floor()
            floor.in_flight(1.0, args.concurrency)  # warm-up
            order = list(addresses.items())
            for repeat in range(args.repeats):
                # Each repeat starts with the next server: measured with the servers always in one
                # order, the first ran ~10% dearer than an identical copy run last (load 8-9).
                turn = order[repeat % len(order) :] + order[: repeat % len(order)]
                for mode in modes:
                    for kind, address in turn:
                        pid = procs[kind].pid
                        workers = descendants(pid)
                        # The main thread (its id is the pid) runs the event loop: serve_forever.
                        server0, workers0, loop0 = cpu_s(pid), sum(map(cpu_s, workers)), cpu_s(pid, thread=pid)
                        result = load(address, payloads, args.duration, args.concurrency, mode == "keep-alive")
                        server1, loop1 = cpu_s(pid), cpu_s(pid, thread=pid)
                        # A worker replaced mid-round takes its CPU with it: only those alive at both ends count.
                        alive = [w for w in workers if w in set(descendants(pid))]
                        workers1 = sum(map(cpu_s, alive))
                        result["server_us"] = 1e6 * (server1 - server0) / result["done"]
                        result["loop_us"] = 1e6 * (loop1 - loop0) / result["done"]
                        result["workers_us"] = 1e6 * max(0.0, workers1 - workers0) / result["done"]
                        results.setdefault((kind, mode), []).append(result)
                floors["in_flight"].append(floor.in_flight(args.duration, args.concurrency))
                floors["map"].append(floor.all_at_once())
            for kind in addresses:
                memory[kind] = (memory[kind][0], rss_mb(procs[kind].pid))
        finally:
            if floor is not None:
                floor.close()
            for proc in procs.values():
                proc.kill()
                proc.wait(timeout=10)
    args.wall_s = time.monotonic() - started
    report(args, results, memory, floors)


def report(
    args: argparse.Namespace,
    results: dict[tuple[str, str], list[dict[str, Any]]],
    memory: dict[str, tuple[float, float]],
    floors: dict[str, list[float]],
) -> None:
    def span(values: list[float], fmt: str) -> str:
        return "/".join(format(v, fmt) for v in (min(values), statistics.median(values), max(values)))

    if args.stub_verdicts:
        print("\nSTUB VERDICTS: no pool behind the servers; the rows below measure the HTTP layer alone")
    print(
        f"\nOpenRLHF /get_reward, 1 MATH-500 row per request, {args.concurrency} connections, "
        f"{args.repeats} x {args.duration:g} s interleaved; min/median/max over repeats; CPU: median us per request"
    )
    print(
        f"{'server':<9} {'connections':<15} {'req/s':>16} {'p50 ms':>15} {'p99 ms':>16} {'errors':>6} "
        f"{'client':>7} {'server':>7} {'(loop)':>7} {'workers':>7}  client share"
    )
    for (kind, mode), rounds in results.items():
        print(
            f"{kind:<9} {mode:<15} {span([r['rps'] for r in rounds], '.0f'):>16} "
            f"{span([r['p50'] for r in rounds], '.1f'):>15} {span([r['p99'] for r in rounds], '.1f'):>16} "
            f"{sum(len(r['errors']) for r in rounds):>6} "
            f"{statistics.median(r['client_us'] for r in rounds):>7.0f} "
            f"{statistics.median(r['server_us'] for r in rounds):>7.0f} "
            f"{statistics.median(r['loop_us'] for r in rounds):>7.0f} "
            f"{statistics.median(r['workers_us'] for r in rounds):>7.0f}  "
            f"{statistics.median(r['client_share'] for r in rounds):.2f} core"
        )
    for kind, (before, after) in memory.items():
        print(f"{kind:<9} {'server RSS':<15} {before:.0f} MB before, {after:.0f} MB after (+{after - before:.0f} MB)")
    print(
        f"{'floor':<9} {f'{args.concurrency} in flight':<15} {span(floors['in_flight'], '.0f'):>16}   "
        "rows/s, the same rows through a 2-worker pool, no HTTP (the load the server puts on its pool)"
    )
    print(f"{'floor':<9} {'pool.map':<15} {span(floors['map'], '.0f'):>16}   rows/s, 2,000 rows at once, no HTTP")
    for (kind, mode), rounds in results.items():
        errors = [e for r in rounds for e in r["errors"]]
        for error in errors[:3]:
            print(f"  error ({kind}, {mode}): {error}")
    goals(args, results)
    if not args.stub_verdicts:
        cpu_lines(args, results)


if __name__ == "__main__":
    main()
