"""Benchmark: where the code sandbox's CPU goes, stage by stage, beside the isolated floor's.

``bench/code_sandbox.py`` compares throughput; this says why the ratio is what it is. The same
HumanEval canonical solutions run through the isolated floor and the sandbox, alternated over
repeats, and for each run it reads, from ``/proc``:

* CPU per sample of each stage: the host (this process: the verifier, the pipes), the judge
  sandbox (its zygote and warm judges), the solution zygote, and the sample processes (what the
  zygote reaped: every fork's teardown and copy-on-write faults included); the floor's host,
  zygote and samples the same way;
* minor page faults per sample of the solution zygote and of its samples (copy-on-write after
  each fork), and voluntary context switches per sample (the hand-offs between processes);
* the zygote's resident anonymous memory (what each fork copies a page-table entry for);
* the share of the machine's CPUs left idle during the run: near 0 means the run was bound by
  CPU, not by processes waiting on each other's wake-ups.

    .venv/bin/python bench/code_sandbox_cpu.py --repeats 5
    .venv/bin/python bench/code_sandbox_cpu.py --repeats 1 --perf 8   # and what the kernel does
    .venv/bin/python bench/code_sandbox_cpu.py --repeats 1 --syscalls  # system calls a sample, per stage

``--perf SECONDS`` (needs ``perf`` and root) also samples, with ``perf record -g``, each method's
zygotes and warm judges (and the sample processes they fork, followed by perf) while the
workload runs, and sorts every CPU sample of each stage by what its kernel stack shows: the
fork, copy-on-write faults, page faults on file pages (a fork child maps its interpreter's code
again), other faults, exit, each system call, or user code (the interpreter itself).
    git worktree add --detach /tmp/before HEAD~1   # then, before and after side by side:
    .venv/bin/python bench/code_sandbox_cpu.py --before /tmp/before

``--before TREE`` adds a row for the sandbox running the harness (``_sandbox_*.py``) of another
checkout, the host side staying this one's: a change to the sandbox's own processes measured
against the floor and against what it replaces in one run, rows rotated over repeats.
"""

from __future__ import annotations

import argparse
import os
import statistics
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TICK = os.sysconf("SC_CLK_TCK")


def process_stats(pid: int) -> tuple[float, float, int, int, int] | None:
    """(CPU s, CPU s of reaped children, minor faults, children's minor faults, voluntary switches)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        run_ns = int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
        status = Path(f"/proc/{pid}/status").read_text()
    except (OSError, IndexError, ValueError):
        return None
    switches = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("voluntary_")), 0)
    children = (int(fields[13]) + int(fields[14])) / TICK
    return run_ns / 1e9, children, int(fields[7]), int(fields[8]), switches


def anonymous_mb(pid: int) -> float:
    """A process's resident anonymous memory (``RssAnon``), in MB; 0 when it cannot be read."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) / 1024
    except (OSError, IndexError, ValueError):
        pass
    return 0.0


def python_descendants(root: int) -> list[tuple[int, int]]:
    """(pid, parent pid) of every ``python3`` process under ``root``."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parents[int(entry)] = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        kids = [child for child, parent in parents.items() if parent == pid]
        todo.extend(kids)
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].endswith(b"python3"):
                found.append((pid, parents.get(pid, 0)))
        except OSError:
            pass
    return found


def idle_cpu_seconds() -> float:
    fields = Path("/proc/stat").read_text().splitlines()[0].split()
    return (int(fields[4]) + int(fields[5])) / TICK


def stages_of(method) -> dict[int, str]:
    """Each long-lived process of a method's workers, by its role."""
    roles: dict[int, str] = {}
    if hasattr(method, "box"):
        for worker in method.box._all:
            for pid, _ in python_descendants(worker.solution.pid):
                roles[pid] = "solution zygote"
            judges = python_descendants(worker.proc.pid)
            pids = {pid for pid, _ in judges}
            for pid, parent in judges:
                roles[pid] = "warm judge" if parent in pids else "judge zygote"
    else:
        for proc, _ in method.free:
            for pid, _ in python_descendants(proc.pid):
                roles[pid] = "floor zygote"
    return roles


def measure(method, samples) -> dict[str, float]:
    roles = stages_of(method)
    before = {pid: process_stats(pid) for pid in roles}
    host, idle = os.times(), idle_cpu_seconds()
    outcomes, seconds = method.run(samples)
    host_after, idle_after = os.times(), idle_cpu_seconds()
    after = {pid: process_stats(pid) for pid in roles}
    if not all(ok for ok, _ in outcomes):
        raise SystemExit(f"{method.name}: a canonical solution failed")
    n = len(samples)
    row = {
        "samples/s": n / seconds,
        "idle CPUs": (idle_after - idle) / seconds,
        "host": 1e3 * (host_after.user + host_after.system - host.user - host.system) / n,
    }
    for pid, role in roles.items():
        a, b = before[pid], after[pid]
        if a is None or b is None:
            continue  # a warm judge replaced meanwhile: its CPU is its zygote's reaped children's
        reaped = "samples" if role in ("solution zygote", "floor zygote") else role
        row[role] = row.get(role, 0.0) + 1e3 * (b[0] - a[0]) / n
        row[reaped] = row.get(reaped, 0.0) + 1e3 * (b[1] - a[1]) / n
        if role in ("solution zygote", "floor zygote"):
            row["zygote faults"] = row.get("zygote faults", 0.0) + (b[2] - a[2]) / n
            row["sample faults"] = row.get("sample faults", 0.0) + (b[3] - a[3]) / n
            # Each fork copies a page-table entry per resident anonymous page, each exit drops it.
            row["zygote anon MB"] = max(row.get("zygote anon MB", 0.0), anonymous_mb(pid))
        row["switches"] = row.get("switches", 0.0) + (b[4] - a[4]) / n
        # Which process sleeps how often: each wake-up on a loaded machine refills that
        # process's caches (a sample process's own, reaped, are not in /proc).
        key = f"{role} sleeps"
        row[key] = row.get(key, 0.0) + (b[4] - a[4]) / n
    row["all"] = sum(v for k, v in row.items() if k not in NOT_CPU and not k.endswith(" sleeps"))
    return row


NOT_CPU = ("samples/s", "idle CPUs", "zygote faults", "sample faults", "switches", "zygote anon MB")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--lanes", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--before", type=Path, default=None, help="another checkout: its harness as a row too")
    parser.add_argument("--perf", type=float, default=0.0, help="seconds of perf record per method (0: none)")
    parser.add_argument("--syscalls", action="store_true", help="system calls a sample per stage (strace, one pass)")
    args = parser.parse_args(argv)
    from _sandbox_floor import Floor  # bench/ is the script's folder
    from code_sandbox import Sandbox, humaneval_rows, workloads

    rows = humaneval_rows(args.data / "humaneval.jsonl", None)
    samples = workloads(rows)["HumanEval canonical"]
    methods: list[Any] = [Floor(args.lanes, 20.0), Sandbox(rows, args.lanes, 20.0)]
    if args.before is not None:
        methods.append(before_sandbox(Sandbox, rows, args.lanes, args.before))
    results: dict[str, list[dict[str, float]]] = {m.name: [] for m in methods}
    load_before = os.getloadavg()[0]
    for repeat in range(args.repeats):
        shift = repeat % len(methods)  # each row goes first, in turn
        for method in methods[shift:] + methods[:shift]:
            results[method.name].append(measure(method, samples))
    profiles = {m.name: perf_profile(m, samples, args.perf) for m in methods} if args.perf > 0 else {}
    calls = {m.name: syscall_counts(m, samples) for m in methods} if args.syscalls else {}
    for method in methods:
        method.close()
    print(
        f"HumanEval canonical x {args.repeats}, {args.lanes} lanes, {os.cpu_count()} CPUs, load average "
        f"{load_before:.1f} -> {os.getloadavg()[0]:.1f}; median [min-max] over repeats, ms of CPU per sample"
        " (faults and switches: per sample)\n"
    )
    for name, runs in results.items():
        print(name)
        for key in runs[0]:
            values = [run.get(key, 0.0) for run in runs]
            print(f"  {key:<22} {statistics.median(values):8.2f}  [{min(values):.2f}-{max(values):.2f}]")
    floor = results[methods[0].name]
    print()
    for method in methods[1:]:
        runs = results[method.name]
        cpu = statistics.median(f["all"] / s["all"] for f, s in zip(floor, runs))
        rate = statistics.median(s["samples/s"] / f["samples/s"] for f, s in zip(floor, runs))
        print(f"{method.name} / floor: throughput {rate:.2f}, CPU per sample (floor's over its) {cpu:.2f}")
    for name, profile in profiles.items():
        print(f"\n{name}: where each stage's CPU goes (perf, share of the stage's samples)")
        for stage, kinds in profile.items():
            total = sum(kinds.values())
            top = ", ".join(f"{kind} {100 * n / total:.0f}%" for kind, n in kinds.most_common(9) if n / total >= 0.01)
            print(f"  {stage:<16} {total:6d}  {top}")
    for name, stages in calls.items():
        print(f"\n{name}: system calls a sample (strace -f, one pass; a sample's processes under samples)")
        for stage, counted in stages.items():
            top = ", ".join(f"{call} {n / len(samples):.1f}" for call, n in counted.most_common(12))
            print(f"  {stage:<16} {sum(counted.values()) / len(samples):6.1f}  {top}")
    if args.before is not None:
        after, before = results[methods[1].name], results[methods[2].name]
        rates = [a["samples/s"] / b["samples/s"] for a, b in zip(after, before)]
        cpus = [b["all"] / a["all"] for a, b in zip(after, before)]
        print(
            f"this tree / --before, per repeat: throughput {' '.join(f'{r:.2f}' for r in rates)} "
            f"(median {statistics.median(rates):.2f}); CPU per sample (before's over this) "
            f"{' '.join(f'{c:.2f}' for c in cpus)} (median {statistics.median(cpus):.2f})"
        )
    return 0


def stack_kind(kernel: list[str]) -> str:
    """What one CPU sample was doing, from its kernel frames (innermost first)."""
    if not kernel:
        return "user"
    frames = set(kernel)
    if "exc_page_fault" in frames:
        if "do_wp_page" in frames:
            return "fault: copy-on-write"
        if "do_fault" in frames or "filemap_map_pages" in frames:
            return "fault: file page"
        return "fault: other"
    if "kernel_clone" in frames:
        return "fork"
    if "do_exit" in frames or "do_group_exit" in frames or "exit_mmap" in frames:
        return "exit"
    for frame in kernel:
        if frame.startswith(("__x64_sys_", "__do_sys_")):
            return "sys " + frame.removeprefix("__x64_sys_").removeprefix("__do_sys_")
    return "kernel, other"


def perf_profile(method: Any, samples: list, seconds: float) -> dict[str, Any]:
    """Each stage's CPU samples by ``stack_kind``, from ``perf record -g`` on the method's
    long-lived processes (and the samples they fork) while the workload runs."""
    import collections
    import shutil
    import subprocess
    import tempfile
    import threading

    roles = {pid: role for pid, role in stages_of(method).items() if role != "judge zygote"}
    if not roles or shutil.which("perf") is None:
        return {}
    stop = threading.Event()

    def work() -> None:
        while not stop.is_set():
            method.run(samples)

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    with tempfile.TemporaryDirectory() as folder:
        data = os.path.join(folder, "perf.data")
        pids = ",".join(str(pid) for pid in roles)
        record = ["perf", "record", "-q", "-F", "2999", "-e", "cpu-clock", "-g", "-p", pids, "-o", data]
        subprocess.run([*record, "--", "sleep", str(seconds)], capture_output=True, check=False)
        stop.set()
        worker.join()
        script = subprocess.run(
            ["perf", "script", "-i", data, "-F", "pid,ip,sym,dso"], capture_output=True, text=True, check=False
        ).stdout
    kinds: dict[str, Any] = collections.defaultdict(collections.Counter)
    for block in script.split("\n\n"):
        lines = block.strip("\n").splitlines()
        if not lines or not lines[0].strip().isdigit():
            continue
        pid = int(lines[0].strip())
        kernel = [line.split()[1] for line in lines[1:] if "[kernel" in line and len(line.split()) > 1]
        kinds[roles.get(pid, "samples")][stack_kind(kernel)] += 1
    return dict(kinds)


def syscall_counts(method: Any, samples: list) -> dict[str, Any]:
    """System calls by stage while one pass of ``samples`` runs: ``strace -f`` on the method's
    long-lived processes (the sample processes they fork followed, counted as ``samples``). Only
    the counts mean anything: strace stops each process at every call, so nothing here is timed."""
    import collections
    import re
    import shutil
    import subprocess
    import tempfile
    import time

    roles = {pid: role for pid, role in stages_of(method).items() if role != "judge zygote"}
    if not roles or shutil.which("strace") is None:
        return {}
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "strace.txt")
        attach = [arg for pid in roles for arg in ("-p", str(pid))]
        tracer = subprocess.Popen(["strace", "-f", "-qq", "-o", out, *attach], stderr=subprocess.DEVNULL)
        time.sleep(1.0)  # attached (strace gives no signal of it): a call missed here is only a count
        method.run(samples)
        time.sleep(0.2)
        tracer.terminate()
        tracer.wait()
        lines = Path(out).read_text(errors="replace").splitlines()
    counts: dict[str, Any] = collections.defaultdict(collections.Counter)
    call = re.compile(r"(\d+)\s+(?:<\.\.\. )?(\w+)[( ]")
    for line in lines:
        found = call.match(line)
        if found and "resumed>" not in line:
            counts[roles.get(int(found.group(1)), "samples")][found.group(2)] += 1
    return dict(counts)


def before_sandbox(sandbox_class: Any, rows: list[dict], lanes: int, tree: Path) -> Any:
    """The bench's sandbox row, its workers running ``tree``'s harness (started only after the
    sources are swapped: the first pass starts them)."""
    from rlvr_code import sandbox as module

    folder = tree / "envs" / "code" / "rlvr_code"
    sources = {role: module.harness_source(role, folder) for role in ("judge", "solution")}

    class BeforeBox(module.LocalSandbox):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self._sources = sources

    class Before(sandbox_class):
        def __init__(self) -> None:
            original, module.LocalSandbox = module.LocalSandbox, BeforeBox  # type: ignore[misc]
            try:
                super().__init__(rows, lanes, 20.0)  # builds its box from the module's class
            finally:
                module.LocalSandbox = original  # type: ignore[misc]
            self.name = f"rlvr_code LocalSandbox, harness of {tree}"

    return Before()


if __name__ == "__main__":
    raise SystemExit(main())
