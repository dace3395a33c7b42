"""Benchmark: the code family's sandbox against evalplus's ``untrusted_check`` and an isolated floor.

Every method runs the same samples in one run, interleaved over repeats (the machine is shared,
so only ratios measured side by side mean anything):

* **HumanEval canonical**: the 164 canonical solutions;
* **50/50 mix**: each canonical solution and a wrong variant of it (the result perturbed).

Methods, all with the same number of concurrent lanes:

* ``evalplus untrusted_check`` (``pip install --no-deps evalplus``, which needs only numpy and
  psutil here; the row is skipped without it): a ``multiprocessing.Process`` per sample forked from
  a warm worker, ``reliability_guard`` and rlimits, no namespaces, no uid of its own. Its inputs and
  expected outputs come from running each task's ``check`` on the canonical solution once, outside
  the timings; it compares results in the sample's own process (a solution can forge them).
* **isolated floor**: what any sandbox of this design must pay at least: a warm ``python3 -I -S``
  zygote per lane in bubblewrap (the sandbox's namespaces and mounts), a fork per sample with
  rlimits and a per-lane uid running program + tests in one process, then ``kill(-1)`` and a wipe
  of the working directory. No judge/solution split: a program can forge its verdict.
* **rlvr_code LocalSandbox**: the real sandbox (judge and solution sandboxes, anti-cheat).

Printed per workload: samples/s min/median/max over repeats, p50/p99 latency per sample, verdict
counts (every method must agree with the labels, or the speed means nothing) and the sandbox's
throughput ratio to each row, per repeat (min/median/max).

    .venv/bin/python bench/code_sandbox.py                 # 3 repeats of both workloads
    .venv/bin/python bench/code_sandbox.py --naive         # also subprocess.run([python, file]) rows
    .venv/bin/python bench/code_sandbox.py --mbpp          # also all 974 MBPP canonical solutions
    .venv/bin/python bench/code_sandbox.py --leftovers     # what a program leaves behind costs the next one
    .venv/bin/python bench/code_sandbox.py --memory --no-before  # the per-sample memory cgroup's cost
    .venv/bin/python bench/code_sandbox_cpu.py             # CPU per sample per stage, beside the floor's
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from _sandbox_floor import Floor, Sample, script, timed_lanes  # bench/ is the script's folder

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data"

BUG = """

_rlvr_bench_original = {entry}


def {entry}(*args, **kwargs):
    result = _rlvr_bench_original(*args, **kwargs)
    if isinstance(result, bool):
        return not result
    if isinstance(result, (int, float)):
        return result + 1
    if isinstance(result, str):
        return result + "x"
    if isinstance(result, (list, tuple)):
        return type(result)(list(result) + [None])
    return "wrong"
"""

FLOOR_GOAL = 0.65
"""Issue 30: the sandbox's HumanEval throughput as a share of the isolated floor's, side by side."""


def humaneval_rows(path: Path, limit: int | None) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return rows[:limit] if limit else rows


def workloads(rows: list[dict]) -> dict[str, list[Sample]]:
    canonical = [(row, row["prompt"] + row["canonical_solution"], True) for row in rows]
    mix: list[Sample] = []
    for row, program, _ in canonical:
        mix.append((row, program, True))
        mix.append((row, program + BUG.format(entry=row["entry_point"]), False))
    return {"HumanEval canonical": canonical, "50/50 correct/wrong mix": mix}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# -- naive: subprocess.run([python, file]) ------------------------------------------------------
class Naive:
    def __init__(self, command: list[str], lanes: int, timeout_s: float) -> None:
        self.command, self.lanes, self.timeout_s = command, lanes, timeout_s
        self.name = f"naive subprocess.run([{' '.join([Path(command[0]).name, *command[1:]])}, file])"
        self.workdir = Path(tempfile.mkdtemp(prefix="rlvr-bench-naive-"))

    def run(self, samples: list[Sample]):
        counter = iter(range(1 << 30))
        lock = threading.Lock()

        def one(item: Sample) -> bool:
            row, program, _ = item
            with lock:
                index = next(counter)
            path = self.workdir / f"sample_{index}.py"
            path.write_text(script(row, program), encoding="utf-8")
            try:
                return (
                    subprocess.run([*self.command, str(path)], capture_output=True, timeout=self.timeout_s).returncode
                    == 0
                )
            except subprocess.TimeoutExpired:
                return False
            finally:
                path.unlink(missing_ok=True)

        return timed_lanes(samples, self.lanes, one)

    def close(self) -> None:
        os.rmdir(self.workdir)


# -- evalplus untrusted_check --------------------------------------------------------------------
def record_calls(row: dict) -> list[tuple[tuple, object]]:
    """(args, expected) for every call ``check`` makes, from the canonical solution (trusted, here)."""
    namespace: dict = {}
    exec(row["prompt"] + row["canonical_solution"], namespace)
    function = namespace[row["entry_point"]]
    calls: list[tuple[tuple, object]] = []

    def recorder(*args):
        saved = copy.deepcopy(args)
        result = function(*args)
        calls.append((saved, copy.deepcopy(result)))
        return result

    exec(row["test"], namespace)
    namespace["check"](recorder)
    return calls


def _evalplus_worker_init() -> None:
    import multiprocessing

    import evalplus.eval  # noqa: F401  (warm, as evalplus's own worker pool is)

    # untrusted_check's Process would inherit the server's start method (a cold start per
    # sample); evalplus's own pool forks from a warm process, and so does this one.
    multiprocessing.set_start_method("fork", force=True)


def _evalplus_check(code: str, entry_point: str, inputs: list, expected: list) -> bool:
    from evalplus.eval import PASS, untrusted_check

    # find_zero (HumanEval/32) is judged by |poly(root)|, with HumanEval's own tolerance.
    atol = 1e-4 if entry_point == "find_zero" else 0
    status, _ = untrusted_check("humaneval", code, inputs, entry_point, expected, atol, [0.0] * len(inputs))
    return status == PASS


class Evalplus:
    name = "evalplus untrusted_check (no isolation)"

    def __init__(self, rows: list[dict], lanes: int) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.lanes = lanes
        self.calls = {row["task_id"]: record_calls(row) for row in rows}
        # Workers forked from a lean server process, warmed before any timing.
        self.pool = ProcessPoolExecutor(
            lanes, mp_context=multiprocessing.get_context("forkserver"), initializer=_evalplus_worker_init
        )
        list(
            self.pool.map(_evalplus_check, ["def f(): return 1"] * lanes, ["f"] * lanes, [[()]] * lanes, [[1]] * lanes)
        )

    def run(self, samples: list[Sample]):
        def one(item: Sample) -> bool:
            row, program, _ = item
            calls = self.calls[row["task_id"]]
            inputs, expected = [list(args) for args, _ in calls], [out for _, out in calls]
            return self.pool.submit(_evalplus_check, program, row["entry_point"], inputs, expected).result()

        return timed_lanes(samples, self.lanes, one)

    def close(self) -> None:
        self.pool.shutdown()


# -- the sandbox -------------------------------------------------------------------------------------
class Sandbox:
    name = "rlvr_code LocalSandbox (full isolation, judge split)"

    def __init__(
        self, rows: list[dict], lanes: int, timeout_s: float, before: bool = False, memory_cgroup: bool = True
    ) -> None:
        from rlvr_code.envs import humaneval_task
        from rlvr_code.sandbox import LocalSandbox
        from rlvr_code.verifier import CodeVerifier

        self.lanes = lanes
        self.verifier = CodeVerifier(timeout_s=timeout_s)
        if before:
            # Issue 19's structural changes off: a judge forked per sample, every call its own round trip.
            self.name = "  same, judge forked per sample, unbatched"
            self.box = LocalSandbox(workers=lanes, warm_judge=False, batch_asserts=False)
        elif not memory_cgroup:
            # Issue 26's per-sample memory cgroup off (the rlimit fallback): what the cgroup costs.
            self.name = "  same, no memory cgroup (rlimit fallback)"
            self.box = LocalSandbox(workers=lanes, memory_cgroup=False)
        else:
            self.box = LocalSandbox(workers=lanes)
        self.verifier.sandbox = lambda: self.box  # type: ignore[method-assign]
        self.tasks = {row["task_id"]: humaneval_task(row) for row in rows}
        # Outside the timed runs: start the workers, and see every task once (its test plan on the
        # host, its compiled tests in the judge: per task, not per sample; the floor has neither).
        golds = [(row, row["prompt"] + row["canonical_solution"], True) for row in rows]
        self.first_pass = len(rows) / self.run(golds)[1]
        # That pass gave each task to one worker only, and each worker's judge compiles a task's
        # tests for itself: the timed repeats then met uncompiled tasks, the first one about half
        # of its samples (+0.6 ms of judge CPU a sample at load 5). One lane, each task `lanes`
        # times in a row: the idle workers are handed out in turn (a FIFO queue), so every worker
        # sees every task; the timed repeats then measure the per-sample cost only.
        if lanes > 1:
            timed_lanes([gold for gold in golds for _ in range(lanes)], 1, self.one)

    def one(self, item: Sample) -> bool:
        row, program, _ = item
        return self.verifier.verify(self.tasks[row["task_id"]], f"```python\n{program}\n```").passed

    def run(self, samples: list[Sample]):
        return timed_lanes(samples, self.lanes, self.one)

    def close(self) -> None:
        self.box.close()


def spread(values: list[float], digits: int = 1) -> str:
    return "/".join(f"{v:.{digits}f}" for v in (min(values), statistics.median(values), max(values)))


def run_comparison(args: argparse.Namespace) -> list[dict]:
    rows = humaneval_rows(args.data / "humaneval.jsonl", args.limit)
    loads = workloads(rows)
    methods: list = []
    try:
        import evalplus.eval  # noqa: F401

        methods.append(Evalplus(rows, args.lanes))
    except ImportError:
        print("evalplus is not installed: its row is skipped (pip install --no-deps evalplus)\n")
    if args.naive:
        methods.append(Naive([sys.executable], args.lanes, args.timeout))
        methods.append(Naive(["/usr/bin/python3", "-I", "-S"], args.lanes, args.timeout))
    floor = Floor(args.lanes, args.timeout)
    methods.append(floor)
    sandbox = Sandbox(rows, args.lanes, args.timeout)
    methods.append(sandbox)
    if not args.no_before:
        methods.append(Sandbox(rows, args.lanes, args.timeout, before=True))
    if args.before_tree is not None:  # another checkout's harness (its ``_sandbox_*.py``), this host side
        from code_sandbox_cpu import before_sandbox

        methods.append(before_sandbox(Sandbox, rows, args.lanes, args.before_tree))
    if args.memory:
        methods.append(Sandbox(rows, args.lanes, args.timeout, memory_cgroup=False))
    # results[workload][method] = [(per_s, latencies, good, bad), ...] one per repeat
    results: dict[str, dict[str, list]] = {w: {m.name: [] for m in methods} for w in loads}
    for repeat in range(args.repeats):
        shift = repeat % len(methods)  # each row goes first in turn: a loaded machine drifts within a repeat
        for workload, samples in loads.items():
            for method in methods[shift:] + methods[:shift]:
                outcomes, seconds = method.run(samples)
                good = sum(1 for (ok, _), s in zip(outcomes, samples) if ok and s[2])
                bad = sum(1 for (ok, _), s in zip(outcomes, samples) if ok and not s[2])
                results[workload][method.name].append((len(samples) / seconds, [t for _, t in outcomes], good, bad))
    stats = dict(sandbox.box.stats)
    for method in methods:
        method.close()
    print(
        f"{args.repeats} repeats, {args.lanes} lanes, {os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.1f} at the end; the sandbox's untimed first pass over every task "
        f"(per-task caches filling): {sandbox.first_pass:.1f} samples/s\n"
    )
    table = []
    for workload, samples in loads.items():
        n_good, n_bad = sum(1 for s in samples if s[2]), sum(1 for s in samples if not s[2])
        print(f"{workload}: {len(samples)} samples")
        header = (
            f"{'method':<52} {'samples/s min/med/max':>22} {'p50/p99 ms':>12} {'right ok':>9} {'wrong ok':>9} "
            f"{'sandbox x min/med/max':>22}"
        )
        print(header)
        print("-" * len(header))
        mine = results[workload][sandbox.name]
        for method in methods:
            runs = results[workload][method.name]
            rates = [r[0] for r in runs]
            ratios = [m[0] / r[0] for m, r in zip(mine, runs)]
            latencies = [t for r in runs for t in r[1]]
            goods, bads = {r[2] for r in runs}, {r[3] for r in runs}
            p50, p99 = 1000 * statistics.median(latencies), 1000 * percentile(latencies, 0.99)
            print(
                f"{method.name:<52} {spread(rates):>22} {f'{p50:.1f}/{p99:.0f}':>12} "
                f"{'|'.join(f'{g}/{n_good}' for g in sorted(goods)):>9} "
                f"{'|'.join(f'{b}/{n_bad}' for b in sorted(bads)):>9} {spread(ratios, 2):>22}"
            )
            row = {"workload": workload, "method": method.name, "per_s": rates, "sandbox_ratio": ratios}
            table.append({**row, "p50_ms": p50, "p99_ms": p99})
        for method in (m for m in methods if m.name.startswith("rlvr_code")):
            pairs = zip(results[workload][method.name], results[workload][floor.name])
            ratio = statistics.median(m[0] / r[0] for m, r in pairs)
            print(f"{method.name} / isolated floor, median of {args.repeats}: {ratio:.2f} (goal >= {FLOOR_GOAL})")
        print()
    print(f"'sandbox x' = sandbox samples/s / that row's samples/s, within each repeat. Sandbox stats: {stats}")
    return table


def run_memory_ab(rows: list[dict], repeats: int, timeout_s: float) -> None:
    """The per-sample memory cgroup's cost, sample by sample: one lane, the same canonical solution
    through a sandbox with the cgroup and one without (the rlimit fallback), alternating which
    goes first, so both see the same machine."""
    from rlvr_code.envs import humaneval_task
    from rlvr_code.sandbox import LocalSandbox
    from rlvr_code.verifier import CodeVerifier

    boxes = {"memory cgroup": LocalSandbox(), "no cgroup (rlimit fallback)": LocalSandbox(memory_cgroup=False)}
    verifiers = {}
    for name, box in boxes.items():
        verifiers[name] = CodeVerifier(timeout_s=timeout_s)
        verifiers[name].sandbox = lambda box=box: box  # type: ignore[method-assign,misc]
    times: dict[str, list[float]] = {name: [] for name in boxes}
    names = list(boxes)
    for repeat in range(repeats):
        for index, row in enumerate(rows):
            task, completion = humaneval_task(row), f"```python\n{row['prompt'] + row['canonical_solution']}\n```"
            for name in names if (repeat + index) % 2 == 0 else names[::-1]:
                start = time.perf_counter()
                if not verifiers[name].verify(task, completion).passed:
                    raise SystemExit(f"{name}: {row['task_id']} failed")
                times[name].append(time.perf_counter() - start)
    with_cgroup = [w.memory is not None for w in boxes["memory cgroup"]._all]
    for box in boxes.values():
        box.close()
    print(
        f"memory cgroup A/B: {len(rows)} HumanEval canonical x {repeats}, one lane, interleaved (cgroup: {with_cgroup})"
    )
    for name, values in times.items():
        values.sort()
        print(
            f"  {name:<30} median {1000 * statistics.median(values):6.2f} ms  mean {1000 * statistics.mean(values):6.2f}"
            f"  p10 {1000 * percentile(values, 0.1):6.2f}  p90 {1000 * percentile(values, 0.9):6.2f}"
        )
    print(f"  load average {os.getloadavg()[0]:.1f} at the end\n")


def run_mbpp(path: Path, lanes: int, timeout_s: float) -> None:
    from rlvr_code.envs import mbpp_task
    from rlvr_code.sandbox import LocalSandbox
    from rlvr_code.verifier import CodeVerifier

    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    verifier = CodeVerifier(timeout_s=timeout_s)
    sandbox = LocalSandbox(workers=lanes)
    verifier.sandbox = lambda: sandbox  # type: ignore[method-assign]

    def one(row: dict) -> tuple[int, bool, str]:
        task = mbpp_task(row)
        verdict = verifier.verify(task, f"```python\n{row['code']}\n```")
        return row["task_id"], verdict.passed, verdict.reason.value

    start = time.perf_counter()
    with ThreadPoolExecutor(lanes) as pool:
        results = list(pool.map(one, rows))
    elapsed = time.perf_counter() - start
    sandbox.close()
    failed = [(tid, reason) for tid, passed, reason in results if not passed]
    print(
        f"\nMBPP canonical solutions through the sandbox: {len(results) - len(failed)}/{len(results)} passed "
        f"in {elapsed:.1f} s ({len(results) / elapsed:.1f}/s, per-sample limit {timeout_s:g} s)"
    )
    if failed:
        print(f"  failed: {failed[:20]}")


LEFTOVERS = {
    "nothing (floor: gold after gold)": "def f():\n    return 1\n",
    "2,000 files of 4 KiB": "def f():\n    for i in range(2000):\n        open(str(i), 'w').write('x' * 4096)\n    return 0\n",
    "3,000 nested directories": "import os\ndef f():\n    for _ in range(3000):\n        os.mkdir('d')\n"
    "        os.chdir('d')\n    return 0\n",
    "directory flood (1M attempted)": "import os\ndef f():\n    try:\n        for i in range(1_000_000):\n"
    "            os.mkdir(str(i))\n    except OSError:\n        pass\n    return 0\n",
}


def run_leftovers(repeats: int, timeout_s: float) -> None:
    """Each kind of leftover, then a gold sample on the same worker: the gold one's latency must
    not depend on what the previous sample left (cleanup is bounded and outside its budget)."""
    from rlvr_code.sandbox import LocalSandbox
    from rlvr_code.verifier import CodeVerifier
    from rlvr_envs.types import Task

    task = Task(
        id="leftovers", prompt="p", answer={"format": "asserts", "tests": ["assert f() == 1"], "solution_names": ["f"]}
    )
    gold = "```python\ndef f():\n    return 1\n```"
    verifier = CodeVerifier(timeout_s=timeout_s)
    sandbox = LocalSandbox(workers=1)
    verifier.sandbox = lambda: sandbox  # type: ignore[method-assign]
    verifier.verify(task, gold)  # start the worker outside the timings
    print(
        f"\nLeftovers, then a gold sample on the same worker ({repeats} repeats, min/median/max ms; "
        f"inode bound: {getattr(sandbox, 'work_inodes', None)})\n"
    )
    header = f"{'left behind':<34} {'that sample':>22} {'next gold sample':>22} {'verdicts':>18}"
    print(header)
    print("-" * len(header))
    for name, program in LEFTOVERS.items():
        own, after, reasons = [], [], set()
        for _ in range(repeats):
            start = time.perf_counter()
            verdict = verifier.verify(task, f"```python\n{program}```")
            own.append(1000 * (time.perf_counter() - start))
            start = time.perf_counter()
            next_verdict = verifier.verify(task, gold)
            after.append(1000 * (time.perf_counter() - start))
            reasons.add(f"{verdict.reason.value}/{next_verdict.reason.value}")
        print(f"{name:<34} {spread(own, 0):>22} {spread(after, 0):>22} {','.join(sorted(reasons)):>18}")
    print(f"\nSandbox stats: {sandbox.stats}")
    sandbox.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="folder with humaneval.jsonl / mbpp.jsonl")
    parser.add_argument("--limit", type=int, default=None, help="use only the first N HumanEval tasks")
    parser.add_argument("--lanes", type=int, default=os.cpu_count() or 2, help="concurrent samples (every method)")
    parser.add_argument("--timeout", type=float, default=20.0, help="per-sample limit in seconds")
    parser.add_argument("--repeats", type=int, default=3, help="repeats of every workload (leftovers: per kind)")
    parser.add_argument("--naive", action="store_true", help="also time subprocess.run([python, file]) per sample")
    parser.add_argument("--no-before", action="store_true", help="no row for the sandbox without warm judge, batches")
    parser.add_argument("--before-tree", type=Path, default=None, help="another checkout's harness as a row too")
    parser.add_argument("--mbpp", action="store_true", help="also run all MBPP canonical solutions")
    parser.add_argument("--memory", action="store_true", help="also the sandbox without its memory cgroup, and an A/B")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON too")
    parser.add_argument("--leftovers", action="store_true", help="only what leftovers cost the next sample")
    args = parser.parse_args(argv)
    if args.leftovers:
        run_leftovers(args.repeats, min(args.timeout, 10.0))
        return 0
    if args.memory:
        run_memory_ab(humaneval_rows(args.data / "humaneval.jsonl", args.limit), args.repeats, args.timeout)
    table = run_comparison(args)
    if args.json:
        print(json.dumps(table, indent=2))
    if args.mbpp:
        run_mbpp(args.data / "mbpp.jsonl", args.lanes, max(args.timeout, 60.0))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
