"""The judge sandbox's zygote: starts the judge that takes jobs from the host, and watches it.

Part of the judge harness (the last module, after ``_sandbox_judge``). In a PID namespace of its
own the zygote keeps one **warm judge** (``_sandbox_warm``) forked from itself, which reads the
host's jobs and, while it stays clean, answers the host itself: no relay, one process woken per
sample. The zygote only watches it (``Turn``): it answers for a judge that ran past its
deadline (and replaces it), and it kills whatever a judge that must be replaced left before the
next one starts; a sample that leaves a trace hands its answer to the zygote instead, which
sends it after that clean-up, so no sample's leftovers ever meet the next job. Without a PID
namespace (reduced isolation) it forks a judge per sample and relays its verdict, read only
from that judge's pipe and tagged with the sample's nonce.

Either way the verdict reaches the host only from the judge sandbox, over a pipe that no
solution process holds (they run in the other sandbox, under another uid, in another PID
namespace); a solution sends the judge plain data, never a verdict.
"""

# -- wire imports (stripped in the sandbox) --
from __future__ import annotations

import json
import os
import select
import socket
import struct
import sys
import time

from rlvr_code._sandbox_judge import Judge
from rlvr_code._sandbox_warm import MAX_SAMPLES_PER_JUDGE, CleanState, CompileCache, load_cache
from rlvr_code._sandbox_wire import (
    PR_SET_DUMPABLE,
    ProtocolError,
    Reader,
    kill_all_but_me,
    prctl,
    recv,
    send,
    send_fds,
    start_zygote,
    trim,
)

# -- end wire imports --


SYNC_TIMEOUT_S = 5.0
JUDGE_GRACE_S = 3.0
"""A judge still busy this long after its sample's deadline is stopped, and the sample is a timeout."""
WATCH_S = 1.0
"""How often the zygote looks at an idle or early warm judge (it is woken at once when one exits)."""
EXIT_HOST_GONE, EXIT_REPLACE = 0, 10
"""A warm judge's exit codes: the host closed the job pipe; the judge must be replaced (a sample
left a trace, or its answer is to be sent after the clean-up). Any other: it died."""


def apply_event(event: dict, outcome: dict, tests: list) -> dict | None:
    """Fold one of a judge's events into the sample's outcome; the ``done`` event is returned."""
    if "test" in event:
        tests.append(event["test"])
    elif "load_error" in event:
        outcome["load_error"] = trim(str(event["load_error"]))
    elif "judge_error" in event:
        outcome["judge_error"] = event["judge_error"]
    elif event.get("done"):
        outcome["status"] = "done"
        return event
    return None


def finish_outcome(outcome: dict, tests: list, done: dict, link: socket.socket, token: str) -> dict:
    """The rest of the host's answer once the judge is done (or gone: ``done`` empty)."""
    # A judge that saw every run of the sample end (each run's report comes after its clean-up)
    # leaves nothing to stop; otherwise stop whatever may still run.
    idle = done.get("idle") is True
    if not idle:
        send_fds(link, [], {"op": "stop", "seq": "*"})
    if done.get("memory"):
        outcome["memory"] = trim(str(done["memory"]))
    if isinstance(done.get("run_cpu_s"), (int, float)):
        outcome["run_cpu_s"] = float(done["run_cpu_s"])
    outcome["tests"] = tests
    # The solution zygote's clean-up confirmation: carried by the last run's report when the
    # judge saw every run end, else asked for explicitly. An unmount it does after its last
    # report and fails refuses the next run as an infrastructure failure instead (retried on
    # a fresh worker), so no sample is ever scored in a box that was not cleaned.
    retire = (str(done["retire"]) if done.get("retire") else None) if idle else sync_solution(link, token)
    if retire:
        outcome["retire"] = retire
    return outcome


def sync_solution(link: socket.socket, token: str) -> str | None:
    """Wait until the solution zygote has answered every run and cleaned up after it.

    The reply to the host waits for this, so the next sample never starts while the last
    one's leftovers are still being removed (and never pays for it in its own budget). Any
    doubt (no answer, a garbled stream after a judge killed mid-message) retires the worker.
    """
    try:
        send_fds(link, [], {"op": "sync", "token": token})
        until = time.monotonic() + SYNC_TIMEOUT_S
        while True:
            message = recv(link.fileno(), until)
            if isinstance(message, dict) and message.get("synced") == token:
                return message.get("retire") or None
            # Otherwise a report on a run the judge no longer waited for: dropped.
    except (EOFError, OSError, TimeoutError, ProtocolError, ValueError) as exc:
        return f"the solution sandbox did not confirm it was clean ({type(exc).__name__})"


class Turn:
    """Who answers the host for the sample in progress: the warm judge, or the zygote when that
    judge overran. A one-byte pipe is the lock (whoever reads the byte holds it); a page both
    share says which sample is in progress, its start and deadline (all zero between samples),
    and is written only under the lock. The judge holds the lock only to say a sample began
    and to answer it; the zygote, only to look at an overrun and answer for it."""

    _STATE = struct.Struct("=qdd")

    def __init__(self) -> None:
        import mmap

        self.page = mmap.mmap(-1, self._STATE.size)  # anonymous, so shared with the forked judge
        self.read_end, self.write_end = os.pipe()
        os.set_blocking(self.read_end, False)
        os.write(self.write_end, b"T")

    def acquire(self, timeout: float | None) -> bool:
        until = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                if os.read(self.read_end, 1):
                    return True
            except BlockingIOError:
                pass
            left = None if until is None else until - time.monotonic()
            if left is not None and left <= 0:
                return False
            select.select([self.read_end], [], [], left)

    def release(self) -> None:
        os.write(self.write_end, b"T")

    def set(self, sample: int, start: float, deadline: float) -> None:
        self._STATE.pack_into(self.page, 0, sample, start, deadline)

    def get(self) -> tuple[int, float, float]:
        return self._STATE.unpack_from(self.page, 0)


def judge_sample(
    job: dict, link: socket.socket, deadline: float, cache: CompileCache, clean: CleanState, last: bool
) -> tuple[dict, bool]:
    """One sample in the warm judge: (its answer to the host, whether this judge is as clean as
    before it: it stays unless this was its ``last`` sample)."""
    nonce = os.urandom(16).hex()
    judge = Judge(job, None, nonce, link, deadline, cache)
    judge.run()
    judge.send_stops()  # the runs end in the other sandbox while this one checks itself
    try:
        changed = "judge error" if judge.failed else clean.changed()
        if changed is None:
            clean.reset()  # for the next sample (the first one has a fresh fork's state)
    except Exception as exc:  # a check that cannot run counts as a difference
        changed = f"the clean-state check failed ({type(exc).__name__})"
    judge.finish(keep=changed is None and not last, changed=changed)  # with the runs' reports
    outcome: dict = {"status": "judge_died"}
    tests: list = []
    done: dict = {}
    for event in judge.events or ():
        done = apply_event(event, outcome, tests) or done
    # Something the tests started outlived the sample: the zygote kills it before the next job.
    stays = changed is None and done.get("done") is True and not clean.strays({os.getppid(), os.getpid()})
    return finish_outcome(outcome, tests, done, link, nonce), stays


def serve_host(
    in_fd: int, out_fd: int, hand_fd: int, link: socket.socket, turn: Turn, store: dict, carry_fd: int | None
) -> int:
    """A warm judge: the host's samples one after the other, answered directly while each leaves
    the judge as it found it (``_sandbox_warm``); the first that does not is handed to the
    zygote to answer after the clean-up. Returns the exit code (``EXIT_*``).

    ``store``: the compile cache it starts with; a judge that served its last sample clean
    leaves its own cache in ``carry_fd`` for the next one (``hand_cache``)."""
    prctl(PR_SET_DUMPABLE, 0)
    clean = CleanState()
    cache = CompileCache(store=store)
    host = Reader(in_fd)
    for count in range(1, MAX_SAMPLES_PER_JUDGE + 1):
        try:
            raw = host.recv_raw()
        except (EOFError, OSError):
            return EXIT_HOST_GONE
        start, keep = time.monotonic(), False
        try:
            job = json.loads(raw)
            deadline = start + float(job["limits"]["wall_s"])
            turn.acquire(None)
            turn.set(count, start, deadline)
            turn.release()
            relayed = job.get("compiled")
            if type(relayed) is str and len(relayed) <= 2 * MAX_RELAYED:
                try:
                    cache.adopt(bytes.fromhex(relayed))  # what another worker's judge built
                except ValueError:
                    pass
            outcome, keep = judge_sample(job, link, deadline, cache, clean, count == MAX_SAMPLES_PER_JUDGE)
            if keep and count == MAX_SAMPLES_PER_JUDGE and carry_fd is not None:
                hand_cache(cache, carry_fd)
            # Only from a sample that left this judge as it found it, as for ``hand_cache``.
            built = cache.take_built() if keep else None
            if built is not None and len(built) <= MAX_RELAYED:
                outcome["compiled"] = built.hex()
        except Exception as exc:
            outcome = {"status": "infrastructure", "error": f"{type(exc).__name__}: {trim(str(exc))}"}
        outcome["elapsed_s"] = round(time.monotonic() - start, 6)
        if count == 1:
            outcome["judge_started"] = True
            outcome["judge_cache"] = len(store)  # entries carried over from the judge before (a count)
        keep = keep and count < MAX_SAMPLES_PER_JUDGE and not outcome.get("retire")
        turn.acquire(None)  # the zygote answers for a judge that overran; then this one is gone
        send(out_fd if keep else hand_fd, outcome)
        turn.set(0, 0.0, 0.0)
        if not keep:
            return EXIT_REPLACE  # the zygote sends the answer once it has cleaned up, then unlocks
        turn.release()
    return EXIT_REPLACE


MAX_CARRIED_CACHE = 64 << 20
"""Bytes of compile cache one warm judge may hand to the next (far over 512 HumanEval tasks' ~1.3 MB)."""
MAX_RELAYED = 1 << 20
"""Bytes of one sample's new compile-cache entries sent to the host for the other workers (a
HumanEval task's are 1-15 kB); more is left to each judge to build for itself."""


def hand_cache(cache: CompileCache, carry_fd: int) -> None:
    """Leave this judge's compile cache in ``carry_fd`` (a memfd the zygote reads once the judge has
    exited: ``JudgeZygote.carried_cache``). Only a judge whose every sample left it clean gets
    here, so its entries are what a fresh judge would compile. Never raises: a cache that does
    not travel is compiled again."""
    try:
        data = cache.export()
        if len(data) > MAX_CARRIED_CACHE:
            return
        os.ftruncate(carry_fd, 0)
        view = memoryview(data)
        offset = 0
        while offset < len(view):
            offset += os.pwrite(carry_fd, view[offset:], offset)
    except Exception:
        try:
            os.ftruncate(carry_fd, 0)
        except OSError:
            pass


class JudgeZygote:
    def __init__(self, config: dict, in_fd: int, out_fd: int) -> None:
        self.in_fd, self.out_fd = in_fd, out_fd
        self.link = socket.socket(fileno=config["link_fd"])
        self.pid_namespace = bool(config.get("pid_namespace"))
        # The warm judge needs a PID namespace of its own: there, what a sample's tests started
        # can be found (and killed) without killing the judge. Without one, a fork per sample.
        self.warm = self.pid_namespace and config.get("warm_judge", True) is not False
        self.judge_starts = 0

    def serve(self) -> None:
        try:
            peer = recv(self.link.fileno(), time.monotonic() + 30)
        except (EOFError, OSError, TimeoutError, ProtocolError, ValueError) as exc:
            send(self.out_fd, {"ready": False, "error": f"the solution sandbox did not start ({type(exc).__name__})"})
            return
        send(self.out_fd, {"ready": True, "judge_pid": os.getpid(), "solution": peer, "python": sys.version.split()[0]})
        if self.warm:
            self.supervise()
            return
        host = Reader(self.in_fd)
        while True:
            try:
                raw = host.recv_raw()
            except (EOFError, OSError):
                return
            try:
                result = self.run_sample(json.loads(raw))
            except Exception as exc:
                result = {"status": "infrastructure", "error": f"{type(exc).__name__}: {trim(str(exc))}"}
            send(self.out_fd, result)
            if result.get("retire"):
                return  # the host replaces this worker

    # -- the warm judge ------------------------------------------------------------------------
    def supervise(self) -> None:
        """Keep a warm judge serving the host; replace it whenever it must go, until the host
        closes the job pipe or a judge dies unexpectedly (then this worker ends: the host sees
        the pipe close and retries the sample on a fresh one)."""
        turn = Turn()
        store: dict = {}
        try:
            carry_fd: int | None = os.memfd_create("rlvr-judge-cache")
        except (AttributeError, OSError):
            carry_fd = None  # each judge compiles its own
        while True:
            hand_r, hand_w = os.pipe()
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    os.close(hand_r)
                    os.setsid()
                    code = serve_host(self.in_fd, self.out_fd, hand_w, self.link, turn, store, carry_fd)
                finally:
                    os._exit(code)
            os.close(hand_w)
            self.judge_starts += 1
            try:
                answer, code = self.watch(pid, hand_r, turn)
            finally:
                os.close(hand_r)
                # Whatever the judge and its tests left, before the answer and the next judge.
                kill_all_but_me(self.pid_namespace, pgid=pid)
            if carry_fd is not None:
                store = self.carried_cache(carry_fd, store)
            if answer is not None:
                send(self.out_fd, answer)
                turn.release()  # the judge took the lock to hand its answer over, and is gone
                if answer.get("retire"):
                    return
            if code != EXIT_REPLACE:
                return

    @staticmethod
    def carried_cache(carry_fd: int, store: dict) -> dict:
        """The cache the judge that just exited left (``hand_cache``), else ``store`` as it was."""
        try:
            size = os.fstat(carry_fd).st_size
            if not 0 < size <= MAX_CARRIED_CACHE:
                return store
            data = os.pread(carry_fd, size, 0)
            os.ftruncate(carry_fd, 0)
        except OSError:
            return store
        return load_cache(data) or store

    def watch(self, pid: int, hand_r: int, turn: Turn) -> tuple[dict | None, int]:
        """Wait for the warm judge to exit: (an answer to send for it, its exit code)."""
        pidfd = os.pidfd_open(pid)
        handed = Reader(hand_r)
        answer: dict | None = None
        try:
            while True:
                _, _, deadline = turn.get()  # a hint only: decisions are taken under the lock
                wait = WATCH_S if not deadline else min(WATCH_S, deadline + JUDGE_GRACE_S - time.monotonic())
                ready = select.select([pidfd, hand_r], [], [], max(wait, 0.01))[0]
                if hand_r in ready and answer is None:
                    try:
                        answer = handed.recv(time.monotonic() + SYNC_TIMEOUT_S)
                    except (EOFError, OSError, TimeoutError, ProtocolError, ValueError):
                        return None, -1  # it died handing its answer over
                if pidfd in ready:
                    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
                    if code == EXIT_REPLACE and answer is None:
                        # It took the lock to answer the host itself: nothing to hand over.
                        return None, EXIT_REPLACE
                    return (answer, code) if code == EXIT_REPLACE else (None, code)
                overran = self.overran(pid, turn)
                if overran is not None:
                    return overran, EXIT_REPLACE
        finally:
            os.close(pidfd)

    def overran(self, pid: int, turn: Turn) -> dict | None:
        """If the sample in progress is past its deadline and grace, stop its judge and return
        the sample's answer (a timeout), holding the lock for ``supervise`` to release."""
        sample, start, deadline = turn.get()
        if not deadline or time.monotonic() < deadline + JUDGE_GRACE_S or not turn.acquire(0):
            return None
        if turn.get() != (sample, start, deadline):
            turn.release()  # it answered meanwhile
            return None
        kill_all_but_me(self.pid_namespace, pgid=pid)
        outcome = finish_outcome({"status": "timeout"}, [], {}, self.link, os.urandom(16).hex())
        outcome["elapsed_s"] = round(time.monotonic() - start, 6)
        turn.set(0, 0.0, 0.0)
        return outcome

    # -- a judge per sample (reduced isolation) ----------------------------------------------------
    def run_sample(self, job: dict) -> dict:
        """One sample in a judge forked for it alone."""
        start = time.monotonic()
        nonce = os.urandom(16).hex()
        deadline = start + job["limits"]["wall_s"]
        verdict_r, verdict_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                for fd in (verdict_r, self.in_fd, self.out_fd):
                    os.close(fd)
                os.setsid()
                prctl(PR_SET_DUMPABLE, 0)
                judge = Judge(job, verdict_w, nonce, self.link, deadline)
                judge.run()
                judge.finish(keep=False)
            finally:
                os._exit(0)
        os.close(verdict_w)
        verdicts = Reader(verdict_r)
        tests: list = []
        outcome: dict = {"status": "judge_died"}
        done: dict = {}
        try:
            while True:
                try:
                    event = verdicts.recv(deadline + JUDGE_GRACE_S)
                except TimeoutError:
                    outcome = {"status": "timeout"}
                    break
                except (EOFError, OSError, ValueError, ProtocolError):
                    break
                if type(event) is not dict or event.get("nonce") != nonce:
                    outcome = {"status": "judge_died", "error": "a verdict message without the sample's nonce"}
                    break
                done = apply_event(event, outcome, tests) or {}
                if done:
                    break
        finally:
            os.close(verdict_r)
            kill_all_but_me(self.pid_namespace, pgid=pid)
        finish_outcome(outcome, tests, done, self.link, nonce)
        outcome["elapsed_s"] = round(time.monotonic() - start, 6)
        outcome["judge_started"] = True
        return outcome

    def sync(self, token: str) -> str | None:
        return sync_solution(self.link, token)


def run_judge_sandbox(config: dict) -> None:
    in_fd, out_fd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    start_zygote()
    JudgeZygote(config, in_fd, out_fd).serve()


if __name__ == "__main__":
    run_judge_sandbox(json.loads(sys.argv[1]))
