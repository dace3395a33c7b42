"""The pool's guarantees on its default path: workers forked from a warmed zygote, verdicts
returned in chunks, more work sent to a busy worker (issues 19 and 21)."""

import os
import signal
import threading
import time

import pytest

from rlvr_envs import Reason, Task, Verdict, Verifier
from rlvr_envs.runtime.local.pool import VerificationPool
from rlvr_envs.runtime.local.zygote import ZYGOTE_SUPPORTED
from tests.helpers.toy import AddVerifier, HangingVerifier, ToyAddEnv
from tests.test_core_pool import FlakyLoadVerifier

pytestmark = pytest.mark.skipif(not ZYGOTE_SUPPORTED, reason="the zygote needs fork and descriptor passing")


@pytest.fixture(scope="module")
def tasks():
    return ToyAddEnv().tasks[:10]


def gold(task):
    return f"\\boxed{{{task.answer}}}"


class RecordingHangingVerifier(HangingVerifier):
    """Appends its process id to ``path`` whenever it is loaded (unpickled); hangs on "hang",
    reports its pid on "pid"."""

    time_budget_s = 0.5

    def __init__(self, path: str) -> None:
        self.path = path

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(f"{os.getpid()}\n")

    def verify(self, task, completion):
        if completion == "pid":
            return Verdict.correct(details={"pid": os.getpid()})
        return super().verify(task, completion)


class ThreadStartingVerifier(RecordingHangingVerifier):
    """Starts a thread when loaded, as numba's or torch's thread pools do."""

    def __setstate__(self, state: dict) -> None:
        super().__setstate__(state)
        threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()


def test_a_worker_restarted_after_a_timeout_is_forked_warm_not_loaded_again(tmp_path, tasks):
    # Issue 21: a timeout used to cost a new interpreter plus the verifier's load (3 s for math).
    log = tmp_path / "loads"
    verifier = RecordingHangingVerifier(str(log))
    with VerificationPool(1) as pool:
        first = pool.map(verifier, tasks[:1], ["pid"])[0]
        verdicts = pool.map(verifier, tasks[:3], ["hang", "pid", gold(tasks[2])])
        assert pool.stats["forks"] == 2 and pool.stats["timeouts"] == 1
    assert [v.reason for v in verdicts] == [Reason.TIMEOUT, Reason.OK, Reason.OK]
    assert verdicts[1].details["pid"] != first.details["pid"], "the hung worker was replaced"
    loads = log.read_text().split()
    assert len(loads) == 1, "the replacement re-ran the verifier's load"
    assert loads[0] not in (str(first.details["pid"]), str(verdicts[1].details["pid"])), "loaded in the zygote"


def test_a_timeout_in_a_chunk_costs_only_that_call_its_budget(tasks):
    # Verdicts come back in chunks; each call still has its own budget, not its chunk's.
    many = (tasks * 20)[:200]
    completions = [gold(t) for t in many]
    completions[117] = "hang"
    with VerificationPool(1) as pool:
        verdicts = pool.map(HangingVerifier(), many, completions)
    assert [i for i, v in enumerate(verdicts) if not v.passed] == [117]
    assert verdicts[117].reason is Reason.TIMEOUT
    assert verdicts[117].elapsed_s < 0.5 * 3  # its own 0.5 s, not the 100 s of 200 budgets
    # Order kept, nothing lost or duplicated: every verdict carries its own task's answer.
    assert all(v.extracted == str(t.answer) for i, (v, t) in enumerate(zip(verdicts, many)) if i != 117)


class MarkingPidVerifier(Verifier):
    """On "hold": creates ``marker`` and sleeps within its budget (a call the test knows is running,
    and for as long as it takes the test to see it); otherwise reports which worker ran it."""

    time_budget_s = 60.0

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def verify(self, task: Task, completion: str) -> Verdict:
        if completion == "hold":
            with open(self.marker, "w", encoding="utf-8"):
                pass
            time.sleep(50)
        return Verdict.correct(details={"pid": os.getpid()})


def test_a_worker_killed_mid_call_fails_that_call_only(tmp_path, tasks):
    marker = tmp_path / "running"
    verifier = MarkingPidVerifier(str(marker))
    with VerificationPool(1) as pool:
        pool.preload(verifier)
        (pid,) = pool.worker_pids()
        futures = pool.submit_many(verifier, tasks[:4], ["hold", "x", "x", "x"])
        # Killed once the first call says it runs, not after a sleep: under load a fixed 0.1 s
        # could land before the worker took the call (it would be run again, not failed) or after
        # it finished (the second call would be the one failed).
        deadline = time.monotonic() + 60
        while not marker.exists():
            assert time.monotonic() < deadline, "the first call never started"
            time.sleep(0.01)
        os.kill(pid, signal.SIGKILL)
        verdicts = [f.result(timeout=60) for f in futures]
    assert verdicts[0].reason is Reason.VERIFIER_ERROR and "SIGKILL" in verdicts[0].details["error"]
    assert all(v.passed for v in verdicts[1:])
    assert len({v.details["pid"] for v in verdicts[1:]} | {pid}) >= 2  # the rest ran on a replacement


def test_a_verifier_whose_load_kills_the_zygote_is_loaded_per_worker(tmp_path, tasks):
    # The first load (in the zygote) kills it: the pool loads that verifier in each worker.
    verifier = FlakyLoadVerifier(str(tmp_path / "loads"), dying_loads=(1,))
    with VerificationPool(1) as pool:
        verdicts = pool.map(verifier, tasks[:3], [gold(t) for t in tasks[:3]])
        assert len(pool._zygote_excluded) == 1
        # Other verifiers still fork warm from a new zygote.
        assert pool.map(AddVerifier(), tasks[:2], [gold(t) for t in tasks[:2]])[1].passed
    assert all(v.passed for v in verdicts)
    assert (tmp_path / "loads").read_text() == "xx"  # the zygote's fatal load, the worker's own


def test_a_verifier_that_kills_everything_it_loads_in_fails_each_call_once(tmp_path, tasks):
    verifier = FlakyLoadVerifier(str(tmp_path / "loads"), dying_loads=tuple(range(1, 100)))
    with VerificationPool(1) as pool:
        verdicts = pool.map(verifier, tasks[:3], [gold(t) for t in tasks[:3]])
    assert all(v.reason is Reason.VERIFIER_ERROR and "load the verifier" in v.details["error"] for v in verdicts)
    assert len((tmp_path / "loads").read_text()) == 1 + 2 * 3  # the zygote once, then the spawn-path rounds


def test_after_a_crash_the_queued_calls_run_on_a_worker_forked_warm(tmp_path, tasks):
    # The zygote-path twin of the requeue test: replacements are forked, so they cannot die loading.
    verifier = FlakyLoadVerifier(str(tmp_path / "loads"), dying_loads=(2, 3))
    many = (tasks * 4)[:33]
    with VerificationPool(1, max_batch=64) as pool:
        verdicts = pool.map(verifier, many, ["crash"] + [gold(t) for t in many[1:]])
        assert pool.stats["crashes"] == 1 and pool.stats["forks"] == 2
    assert verdicts[0].reason is Reason.VERIFIER_ERROR
    assert [v.reason for v in verdicts[1:]] == [Reason.OK] * 32
    assert (tmp_path / "loads").read_text() == "x"


def test_a_verifier_that_starts_threads_when_loaded_is_not_forked_from(tmp_path, tasks):
    log = tmp_path / "loads"
    verifier = ThreadStartingVerifier(str(log))
    with VerificationPool(2) as pool:
        pool.preload(verifier)
        verdicts = pool.map(verifier, tasks[:4], [gold(t) for t in tasks[:4]])
        assert len(pool._zygote_excluded) == 1
    assert all(v.passed for v in verdicts)
    assert len(log.read_text().split()) == 1 + 2  # tried in the zygote, then once in each worker


class NappingHangingVerifier(HangingVerifier):
    """Sleeps 3 ms on completions starting "nap" (longer than a chunk's flush interval, so each
    such verdict is sent alone), then checks the rest."""

    def verify(self, task, completion):
        if completion.startswith("nap"):
            time.sleep(0.003)
            completion = completion[3:]
        return super().verify(task, completion)


@pytest.mark.timeout(120)  # the failure this guards against is a hang
def test_a_busy_worker_is_never_sent_more_than_its_channel_holds(tasks):
    # A verdict arrives while the worker is on the next call, which hangs: the pool tops the
    # worker up then. Sending it more than its channel buffers would block the very thread that
    # must enforce the hang's budget; big completions wait for the slot to be free instead.
    many = (tasks * 2)[:16]
    completions = ["nap" + gold(t) for t in many[:5]] + ["hang"]
    completions += [("x" * 300_000 if i % 2 else "") + gold(t) for i, t in enumerate(many[6:])]
    start = time.perf_counter()
    with VerificationPool(1, max_batch=2) as pool:
        verdicts = pool.map(NappingHangingVerifier(), many, completions)
    assert time.perf_counter() - start < 30
    assert [i for i, v in enumerate(verdicts) if not v.passed] == [5]
    assert verdicts[5].reason is Reason.TIMEOUT
    assert all(v.extracted == str(t.answer) for i, (v, t) in enumerate(zip(verdicts, many)) if i != 5)


def test_start_method_is_chosen_by_argument_or_environment(monkeypatch, tasks):
    with pytest.raises(ValueError, match="start must be one of"):
        VerificationPool(1, start="forkserver")
    monkeypatch.setenv("RLVR_POOL_START", "spawn")
    with VerificationPool(1) as pool:
        assert pool.start == "spawn"
        assert pool.map(AddVerifier(), tasks[:2], [gold(t) for t in tasks[:2]])[0].passed
        assert pool.stats["forks"] == 0
    monkeypatch.delenv("RLVR_POOL_START")
    with VerificationPool(1) as pool:
        assert pool.start == "zygote"


def test_a_preloaded_zygote_pool_loads_once_for_all_workers(tmp_path, tasks):
    log = tmp_path / "loads"
    verifier = RecordingHangingVerifier(str(log))
    with VerificationPool(3) as pool:
        pool.preload(verifier)
        assert len(pool.worker_pids()) == 3
        verdicts = pool.map(verifier, tasks, [gold(t) for t in tasks])
    assert all(v.passed for v in verdicts)
    assert len(log.read_text().split()) == 1


def test_task_and_verdict_survive_the_fast_wire_format():
    import pickle

    from rlvr_envs.runtime.local.wire import dumps

    task = Task(id="t", prompt="p", answer={"a": [1, 2]}, metadata={"m": "x"})
    verdict = Verdict.failure(Reason.WRONG, extracted="3", details={"k": "v"}).timed(0.25)
    back_task, back_verdict = pickle.loads(dumps((task, verdict)))
    assert back_task == task and back_task.fingerprint == task.fingerprint
    assert back_task.model_dump() == task.model_dump() and back_task.model_fields_set == task.model_fields_set
    assert back_verdict == verdict and back_verdict.elapsed_s == 0.25
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="frozen"):
        back_task.id = "changed"  # still frozen
