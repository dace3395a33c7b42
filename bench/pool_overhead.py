"""What the verification pool costs, against its floor, all measured in one run over repeats.

    .venv/bin/python bench/pool_overhead.py [--repeats 5] [--quick] [--skip-families]

Every row prints min / median / max over the repeats, and its ratio to the peer or floor
measured in the same repeat (so a busy shared machine slows both sides alike):

1. per-call overhead of a trivial verifier (answer extraction + compare): pool minus a direct
   in-process call, at batch 16 / 256 / 1024, one and two workers (goal: <= 15 us at >= 256);
2. a second worker on a CPU-bound verifier (1 ms of pure Python per call, batch 256), against
   the same work split over two plain processes (the most this machine gives right now), in wall
   time and in CPU time (what two free cores would give; goal 1.6x);
3. a math worker replacing one that timed out: time from the timeout verdict to the next verdict,
   forked from the zygote vs spawned (goal: <= 0.5 s), and a fresh pool's first start;
4. memory per worker (USS, RSS, PSS from /proc/PID/smaps_rollup) for math workers, both ways;
5. worst case per call of the cheap families' verifiers on hostile input at the size cap, run
   through the pool under its budget (what the ``bounded_cheap`` declaration rests on);
6. the wire's CPU per one-call message (MATH-500 rows; toy tasks without ``../shared/data``),
   both ends, against the last git revision of ``wire.py`` before its flat forms, alternating in
   one process (``--wire-rev`` names another);
7. the event loop's lanes (``runtime.local.lanes``, what the reward server drives) in a closed loop:
   8 calls in flight, each verdict's caller sending its next call, the calls of one loop turn in one
   ``enqueue`` (as the server's batcher), a 0.5 ms verifier on 2 workers: the loop process's CPU
   per call, calls per message written to a worker, p99; ``--lanes-trees PATH,...`` runs the same
   in a subprocess on each other tree's ``rlvr_envs`` (a ``git worktree`` of an earlier commit),
   alternating with this tree's, repeat after repeat.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _pool_verifiers import CpuVerifier, burn

from rlvr_envs.runtime.local.pool import VerificationPool
from rlvr_envs.testing import ExactAnswerVerifier
from rlvr_envs.types import Reason, Task, Verdict

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mmm(values: Sequence[float], scale: float = 1.0, fmt: str = "{:.1f}") -> str:
    v = sorted(x * scale for x in values)
    return "/".join(fmt.format(x) for x in (v[0], statistics.median(v), v[-1]))


def _direct_calls(verifier: Callable[[Task, str], Any], tasks: Sequence[Task], completions: Sequence[str]) -> list[Any]:
    return [verifier(a, b) for a, b in zip(tasks, completions)]


def _first_tasks(env: Any, n: int) -> list[Task]:
    """The tasks ``reset(seed=0..n-1)`` draws."""
    out: list[Task] = []
    for i in range(n):
        env.reset(seed=i)
        out.append(env.current_task)
    return out


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    print(f"\n## {title}\n")
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _cpu_s(pid: int) -> float:
    """CPU time a process has used, all its threads (ns resolution, /proc/PID/task/*/schedstat).

    ``/proc/PID/schedstat`` alone is its main thread only: it leaves out the pool's slot threads,
    which pickle the calls and unpickle and deliver the verdicts.
    """
    total = 0.0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0.0
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", encoding="utf-8") as fh:
                total += int(fh.read().split()[0]) / 1e9
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended meanwhile
    return total


def _workers_cpu_s(pids: Sequence[int]) -> float:
    return sum(_cpu_s(pid) for pid in pids)


def overhead(repeats: int, sizes: Sequence[int]) -> None:
    verifier = ExactAnswerVerifier()
    n = max(sizes)
    tasks = [Task(id=str(i), prompt=f"{i}+{i}?", answer=2 * i) for i in range(n)]
    completions = [f"Some reasoning first. The total is \\boxed{{{2 * i}}}." for i in range(n)]
    # (pool wall, direct wall, pool CPU, direct CPU, parent CPU) per call
    results: dict[tuple[int, int], list[tuple[float, float, float, float, float]]] = {}
    me = os.getpid()
    with VerificationPool(1) as one, VerificationPool(2) as two:
        for pool in (one, two):
            pool.preload(verifier)
        for repeat in range(repeats):
            for size in sizes:
                t, c = tasks[:size], completions[:size]
                pools = ((1, one), (2, two)) if repeat % 2 == 0 else ((2, two), (1, one))
                for workers, pool in pools:
                    # The direct calls right before each pool run: a shared machine's speed drifts
                    # (another tenant's load, which core this lands on), and both sides of a
                    # difference should see the same.
                    cpu0 = time.thread_time()
                    direct = timed(functools.partial(_direct_calls, verifier, t, c)) / size
                    direct_cpu = (time.thread_time() - cpu0) / size
                    pids = pool.worker_pids()
                    parent0, workers0 = _cpu_s(me), _workers_cpu_s(pids)
                    per_call = timed(functools.partial(pool.map, verifier, t, c)) / size
                    parent = (_cpu_s(me) - parent0) / size
                    cpu = parent + (_workers_cpu_s(pids) - workers0) / size
                    if sorted(pool.worker_pids()) != sorted(pids):
                        raise SystemExit("a worker was replaced during the run: its CPU went uncounted")
                    results.setdefault((size, workers), []).append((per_call, direct, cpu, direct_cpu, parent))
    rows = []
    for (size, workers), runs in sorted(results.items()):
        rows.append(
            [
                str(size),
                str(workers),
                mmm([r[1] for r in runs], 1e6),
                mmm([r[0] for r in runs], 1e6),
                mmm([r[0] - r[1] for r in runs], 1e6),
                mmm([r[0] / r[1] for r in runs], fmt="{:.1f}x"),
                mmm([r[2] - r[3] for r in runs], 1e6),
                mmm([r[4] for r in runs], 1e6),
            ]
        )
    table(
        "1. per-call overhead, trivial verifier (us; min/median/max)",
        [
            "batch",
            "workers",
            "direct",
            "pool.map",
            "wall overhead (pool - direct)",
            "pool / direct",
            "CPU overhead (all processes)",
            "of it: parent CPU",
        ],
        rows,
    )
    print(
        "\nwall overhead on a shared machine counts waiting for a core; CPU overhead is what the pool"
        "\nadds in all its processes together (every parent thread + the workers), per call: pool CPU"
        "\nminus the direct call's. Goal: <= 15 us at batch >= 256."
    )


def _plain_pids(plain: ProcessPoolExecutor) -> list[int]:
    return list(getattr(plain, "_processes", {}) or {})


def scaling(repeats: int, batch: int, ms: float) -> None:
    """A second worker against the machine's ceiling, in wall time and in CPU time.

    Wall speed-ups on a shared machine depend on how much of a second core is free at that
    moment, so each repeat also runs the same work in one and in two plain processes (no pool),
    in a rotating order. The CPU-time speed-up is what two free cores would give: the 1-worker run's
    worker CPU over half the CPU of the whole 2-worker run (parent threads included); the same
    figure for two plain processes is the ceiling (2.0 less their own start-up costs).
    """
    verifier = CpuVerifier(ms)
    tasks = [Task(id=str(i), prompt="", answer=0) for i in range(batch)]
    completions = [""] * batch
    me = os.getpid()
    walls: dict[str, list[float]] = {"one": [], "two": [], "plain1": [], "plain2": []}
    cpus: dict[str, list[float]] = {"one": [], "two": [], "plain1": [], "plain2": []}
    # The plain processes each get a session of their own, as pool workers do: with the kernel's
    # autogroup scheduling a session is what gets a fair share of a busy machine, so plain
    # processes left in this one would get less CPU than the pool's workers and a lower ceiling.
    with (
        VerificationPool(1) as one,
        VerificationPool(2) as two,
        ProcessPoolExecutor(2, initializer=os.setsid) as plain,
    ):
        for pool in (one, two):
            pool.preload(verifier)
        list(plain.map(burn, [ms, ms], [1, 1]))

        def run_pool(pool: VerificationPool) -> tuple[float, float]:
            pids = pool.worker_pids()
            parent0, workers0 = _cpu_s(me), _workers_cpu_s(pids)
            wall = timed(lambda: pool.map(verifier, tasks, completions))
            worker_cpu = _workers_cpu_s(pids) - workers0
            total = worker_cpu + _cpu_s(me) - parent0
            return wall, worker_cpu if pool is one else total

        def run_plain1() -> tuple[float, float]:
            pids = _plain_pids(plain)
            workers0 = _workers_cpu_s(pids)
            wall = timed(lambda: plain.submit(burn, ms, batch).result())
            return wall, _workers_cpu_s(pids) - workers0

        def run_plain2() -> tuple[float, float]:
            pids = _plain_pids(plain)
            parent0, workers0 = _cpu_s(me), _workers_cpu_s(pids)
            wall = timed(lambda: list(plain.map(burn, [ms, ms], [batch // 2, batch - batch // 2])))
            return wall, _workers_cpu_s(pids) - workers0 + _cpu_s(me) - parent0

        runs: dict[str, Callable[[], tuple[float, float]]] = {
            "one": lambda: run_pool(one),
            "two": lambda: run_pool(two),
            "plain1": run_plain1,
            "plain2": run_plain2,
        }
        order = list(runs)
        for repeat in range(repeats):
            for name in order[repeat % 4 :] + order[: repeat % 4]:  # rotate: no row always runs first
                wall, cpu = runs[name]()
                walls[name].append(wall)
                cpus[name].append(cpu)

    def ratios(top: list[float], bottom: list[float], scale: float = 1.0) -> list[float]:
        return [scale * a / b for a, b in zip(top, bottom)]

    pool_wall = ratios(walls["one"], walls["two"])
    plain_wall = ratios(walls["plain1"], walls["plain2"])
    pool_cpu = ratios(cpus["one"], cpus["two"], 2.0)
    plain_cpu = ratios(cpus["plain1"], cpus["plain2"], 2.0)
    table(
        f"2. a second worker, CPU-bound verifier ({ms:g} ms/call, batch {batch}; min/median/max)",
        ["", "1 worker (s)", "2 workers (s)", "wall speed-up 1->2", "CPU-time speed-up (2 free cores)"],
        [
            [
                "pool",
                mmm(walls["one"], fmt="{:.3f}"),
                mmm(walls["two"], fmt="{:.3f}"),
                mmm(pool_wall, fmt="{:.2f}x"),
                mmm(pool_cpu, fmt="{:.2f}x"),
            ],
            [
                "two plain processes",
                mmm(walls["plain1"], fmt="{:.3f}"),
                mmm(walls["plain2"], fmt="{:.3f}"),
                mmm(plain_wall, fmt="{:.2f}x"),
                mmm(plain_cpu, fmt="{:.2f}x"),
            ],
            [
                "pool / plain",
                mmm(ratios(walls["one"], walls["plain1"]), fmt="{:.2f}"),
                mmm(ratios(walls["two"], walls["plain2"]), fmt="{:.2f}"),
                mmm(ratios(pool_wall, plain_wall), fmt="{:.2f}"),
                mmm(ratios(pool_cpu, plain_cpu), fmt="{:.2f}"),
            ],
        ],
    )
    print(
        "\nwall: what this machine gave each run (plain processes show how much of a second core was"
        "\nfree). CPU-time speed-up: 1-worker CPU / (CPU of all the 2-worker run's processes / 2), what"
        "\ntwo free cores would give. Goal: >= 1.6x; 'pool / plain' near 1 = scales as well as plain."
    )


def restart(repeats: int) -> None:
    try:
        from _pool_verifiers import MathHangVerifier
    except ImportError:
        print("\n## 3. restart after a timeout: skipped (math family not installed)")
        return
    task = Task(id="t", prompt="1+1?", answer="2")
    rows = []
    serve: dict[str, list[float]] = {}
    cold: dict[str, list[float]] = {}
    for _ in range(repeats):
        for start in ("zygote", "spawn"):
            verifier = MathHangVerifier()
            with VerificationPool(1, start=start) as pool:
                cold.setdefault(start, []).append(timed(functools.partial(pool.preload, verifier)))
                hung = pool.submit(verifier, task, "hang", timeout_s=0.2).result()
                if hung.reason.value != "timeout":
                    raise SystemExit(f"expected a timeout, got {hung}")
                verdict = None

                def serve_one(pool: VerificationPool = pool, v: MathHangVerifier = verifier) -> None:
                    nonlocal verdict
                    verdict = pool.submit(v, task, "\\boxed{2}").result()

                serve.setdefault(start, []).append(timed(serve_one))
                if verdict is None or not verdict.passed:
                    raise SystemExit(f"the replacement worker got it wrong: {verdict}")
    for start in ("zygote", "spawn"):
        rows.append(
            [
                start,
                mmm(serve[start], fmt="{:.3f}"),
                mmm([s / z for s, z in zip(serve["spawn"], serve[start])], fmt="{:.1f}x"),
                mmm(cold[start], fmt="{:.2f}"),
            ]
        )
    table(
        "3. math: next verdict after a timeout killed the worker (s; min/median/max)",
        ["start", "timeout -> next verdict", "spawn / this", "fresh pool, preload"],
        rows,
    )


def _rollup(pid: int) -> dict[str, int]:
    fields: dict[str, int] = {}
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="utf-8") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) >= 3 and parts[2] == "kB":
                    fields[parts[0].rstrip(":")] = int(parts[1])
    except OSError:
        pass
    return fields


def memory(workers: int = 2) -> None:
    try:
        from _pool_verifiers import MathHangVerifier
    except ImportError:
        print("\n## 4. memory: skipped (math family not installed)")
        return
    task = Task(id="t", prompt="1+1?", answer="2")
    rows = []
    for start in ("zygote", "spawn"):
        verifier = MathHangVerifier()
        with VerificationPool(workers, start=start) as pool:
            pool.preload(verifier)
            pool.map(verifier, [task] * 64, ["\\boxed{2}", "\\frac{4}{2}", "x^2", "\\sqrt{4}"] * 16)
            for pid in pool.worker_pids():
                r = _rollup(pid)
                uss = r.get("Private_Clean", 0) + r.get("Private_Dirty", 0)
                rows.append(
                    [start, "worker", str(uss // 1024), str(r.get("Rss", 0) // 1024), str(r.get("Pss", 0) // 1024)]
                )
            if pool._zygote is not None:
                r = _rollup(pool._zygote.proc.pid)
                uss = r.get("Private_Clean", 0) + r.get("Private_Dirty", 0)
                rows.append(
                    [start, "zygote", str(uss // 1024), str(r.get("Rss", 0) // 1024), str(r.get("Pss", 0) // 1024)]
                )
    table(
        f"4. memory of math workers, {workers} workers (MB, after preload + 64 calls)",
        ["start", "process", "USS", "RSS", "PSS"],
        rows,
    )


def families(repeats: int) -> None:
    from cheap_verifiers import FULL_CAP, filler_kinds

    import rlvr_envs

    # The filler kinds of bench/cheap_verifiers.py (one list for both benches), at the full cap;
    # that bench also measures hostile final answers, and at each verifier's inline cap.
    cap = FULL_CAP
    hostile = filler_kinds(cap)
    specs: list[tuple[str, dict[str, Any]]] = [
        ("ifeval-v0", {"data": "/work/shared/data/ifeval_input_data.jsonl"}),
        ("rg-chain_sum", {}),
        ("math-arith-v0", {"level": 3}),
    ]
    rows = []
    with VerificationPool(1) as pool:
        for env_id, kwargs in specs:
            try:
                env = rlvr_envs.make(env_id, pool=pool, **kwargs)
            except Exception as exc:  # family or data missing: say so
                rows.append([env_id, "-", "-", "-", f"skipped: {type(exc).__name__}"])
                continue
            tasks = _first_tasks(env, 4)
            budget = env.time_budget_s
            worst: dict[str, float] = {}
            reasons: dict[str, set[str]] = {}
            for _ in range(repeats):
                for name, text in hostile.items():
                    verdicts = env.verify_batch(tasks, [text] * len(tasks))
                    worst[name] = max(worst.get(name, 0.0), *(v.elapsed_s for v in verdicts))
                    reasons.setdefault(name, set()).update(v.reason.value for v in verdicts)
            name = max(worst, key=worst.__getitem__)
            timeouts = sum("timeout" in r for r in reasons.values())
            rows.append(
                [
                    env_id,
                    f"{budget:g}",
                    f"{worst[name] * 1000:.0f} ({name})",
                    f"{worst[name] / budget:.2f}",
                    f"{timeouts} input kinds timed out",
                ]
            )
    table(
        f"5. cheap families: worst call on hostile input at the {cap:,}-char cap (over {repeats} repeats)",
        ["env", "budget (s)", "worst call (ms, input)", "worst / budget", "note"],
        rows,
    )


def _wire_before(rev: str | None) -> Any:
    """``rlvr_envs/runtime/local/wire.py`` as of ``rev`` (default: the last revision without
    ``verify_message``), imported as a module of its own; None when git has no such revision."""
    import importlib.util
    import subprocess
    import tempfile

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=60, check=True).stdout

    path = "rlvr_envs/runtime/local/wire.py"
    try:
        revs = [rev] if rev else git("rev-list", "HEAD", "--", path).split()[:30]
        text = next(
            (t for t in (git("show", f"{r}:{path}") for r in revs) if rev or "def verify_message" not in t), None
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if text is None:
        return None
    folder = tempfile.mkdtemp(prefix="wire-before-")
    file = os.path.join(folder, "_wire_before.py")
    with open(file, "w") as out:
        out.write(text)
    spec = importlib.util.spec_from_file_location("_wire_before", file)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["_wire_before"] = module  # what its pickles name
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def wire(repeats: int, rev: str | None) -> None:
    """Section 6: one-call messages both ways, the wire before its flat forms against this tree's."""
    import pickle

    from rlvr_envs.runtime.local import wire as new

    old = _wire_before(rev)
    if old is None:
        print("\n## 6. wire: no earlier revision of wire.py found in git, skipped")
        return
    data = os.path.join(REPO, "..", "shared", "data", "math500.jsonl")
    if os.path.exists(data):
        import rlvr_envs

        env = rlvr_envs.make("math-500", path=data)
        rows = "MATH-500"
        tasks = list(env.tasks[:200])
    else:
        tasks, rows = [Task(id=str(i), prompt="p", answer=str(i)) for i in range(200)], "toy"
    # Verdicts of the math verifier's shape (made here: bench/math_verify.py shadows the package).
    verdicts = [
        Verdict.failure(Reason.WRONG, extracted="-31337", details={"extraction": "boxed", "decided_by": "numeric"})
        if i % 2
        else Verdict.correct(str(t.answer), details={"extraction": "boxed", "decided_by": "string"})
        for i, t in enumerate(tasks)
    ]

    class Job:
        def __init__(self, task: Task) -> None:
            self.task, self.completion, self.key, self.max_chars = task, "So the answer is \\boxed{3}.", "k" * 64, 10**5

    jobs = [Job(t) for t in tasks]

    def chunk(module: Any, i: int) -> Any:
        timed = module.TimedVerdicts()
        timed.verdicts.append(verdicts[i % len(verdicts)])
        timed.times.append(0.0004)
        return timed

    def old_message(i: int) -> bytes:
        job = jobs[i % len(jobs)]
        if hasattr(old, "verify_message"):  # --wire-rev of a revision with the flat forms
            return old.verify_message(i, [job])
        return old.dumps(("verify_many", i, [(job.key, job.task, job.completion, job.max_chars)]))

    def old_reply(i: int) -> bytes:
        if hasattr(old, "verdicts_reply"):
            return old.verdicts_reply(i, chunk(old, i), 0.0004)
        if hasattr(old, "flat_verdicts"):
            return old.dumps(("verdicts", i, old.flat_verdicts(chunk(old, i)), 0.0004))
        return old.dumps(("verdicts", i, chunk(old, i), 0.0004))

    def new_reply(i: int) -> bytes:
        return new.verdicts_reply(i, chunk(new, i), 0.0004)

    flat_before = hasattr(old, "verify_message")

    old_msgs = [old_message(i) for i in range(len(jobs))]
    new_msgs = [new.verify_message(i, [job]) for i, job in enumerate(jobs)]
    old_replies = [old_reply(i) for i in range(len(jobs))]
    new_replies = [new_reply(i) for i in range(len(jobs))]
    n = len(jobs)
    cases: dict[str, tuple[Callable[[int], Any], Callable[[int], Any]]] = {
        "parent: build the message": (old_message, lambda i: new.verify_message(i, [jobs[i % n]])),
        "worker: read it": (
            (lambda i: [old.task_of(item[1]) for item in pickle.loads(old_msgs[i % n])[2]])
            if flat_before
            else (lambda i: pickle.loads(old_msgs[i % n])),
            lambda i: [new.task_of(item[1]) for item in pickle.loads(new_msgs[i % n])[2]],
        ),
        "worker: build the reply": (old_reply, new_reply),
        "parent: read it": (
            (lambda i: old.verdicts_of(pickle.loads(old_replies[i % n])[2]))
            if flat_before
            else (lambda i: pickle.loads(old_replies[i % n])),
            lambda i: new.verdicts_of(pickle.loads(new_replies[i % n])[2]),
        ),
    }

    def cpu_us(work: Callable[[int], Any], count: int = 3000) -> float:
        start = time.thread_time()
        for i in range(count):
            work(i)
        return 1e6 * (time.thread_time() - start) / count

    measured: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in cases}
    for _ in range(repeats):
        for name, (before, after) in cases.items():
            measured[name][0].append(cpu_us(before))
            measured[name][1].append(cpu_us(after))
    table_rows = [
        [name, mmm(b), mmm(a), f"{statistics.median(a) / statistics.median(b):.2f}"]
        for name, (b, a) in measured.items()
    ]
    total_b = sum(statistics.median(b) for b, _ in measured.values())
    total_a = sum(statistics.median(a) for _, a in measured.values())
    table_rows.append(["a message and its reply", f"{total_b:.1f}", f"{total_a:.1f}", f"{total_a / total_b:.2f}"])
    table(
        f"6. wire: CPU per one-call message ({rows} rows), us, {rev or 'before its flat forms'} vs now",
        ["step", "before (us)", "now (us)", "now / before"],
        table_rows,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="smaller batches, fewer repeats (a smoke run)")
    parser.add_argument("--skip-families", action="store_true")
    parser.add_argument("--sections", default="1234567", help="which sections to run, e.g. 13")
    parser.add_argument(
        "--wire-rev", help="git revision of wire.py to compare in section 6 (default: before flat forms)"
    )
    parser.add_argument("--lanes-trees", default="", help="other trees for section 7, comma-separated")
    args = parser.parse_args()
    repeats = 2 if args.quick else args.repeats
    sections = set(args.sections) - ({"5"} if args.skip_families else set())
    print(f"# pool bench: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, {repeats} repeats")
    if "1" in sections:
        overhead(repeats, (16, 256) if args.quick else (16, 256, 1024))
    if "2" in sections:
        scaling(repeats, 64 if args.quick else 256, 1.0)
    if "3" in sections:
        restart(repeats)
    if "4" in sections:
        memory()
    if "5" in sections:
        families(1 if args.quick else min(repeats, 2))
    if "6" in sections:
        wire(repeats, args.wire_rev)
    if "7" in sections:
        from _pool_lanes import lanes  # section 7 lives in its own module (this file's size)

        lanes(repeats, [t for t in args.lanes_trees.split(",") if t], 600 if args.quick else 2000)
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
