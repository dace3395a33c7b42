"""The judge sandbox's zygote: takes jobs from the host, has them judged, answers the host.

Part of the judge harness (the last module, after ``_sandbox_judge``). The zygote keeps one
**warm judge** (``_sandbox_warm``) forked from itself and hands it sample after sample, replacing
it whenever a sample leaves a trace in it, times out or fails; without a PID namespace of its
own (reduced isolation) it forks a judge per sample instead. It alone talks to the host, and
it reads the verdict only from the judge's pipe, tagged with the sample's nonce.
"""

# -- wire imports (stripped in the sandbox) --
from __future__ import annotations

import json
import os
import socket
import sys
import time

from rlvr_code._sandbox_judge import Judge
from rlvr_code._sandbox_warm import MAX_SAMPLES_PER_JUDGE, CleanState, CompileCache, stray_processes
from rlvr_code._sandbox_wire import (
    _HEADER,
    PR_SET_DUMPABLE,
    ProtocolError,
    Reader,
    frame,
    kill_all_but_me,
    prctl,
    recv,
    send,
    send_fds,
    send_frames,
    start_zygote,
    trim,
)

# -- end wire imports --


def judge_main(job: dict, verdict_fd: int, nonce: str, link: socket.socket, deadline: float) -> None:
    """One sample in a judge forked for it alone (reduced isolation)."""
    prctl(PR_SET_DUMPABLE, 0)
    judge = Judge(job, verdict_fd, nonce, link, deadline)
    judge.run()
    judge.finish(keep=False)


def serve_judge(job_fd: int, verdict_fd: int, link: socket.socket) -> None:
    """A warm judge: samples one after the other until one leaves a trace (``_sandbox_warm``)."""
    prctl(PR_SET_DUMPABLE, 0)
    clean = CleanState()
    cache = CompileCache()
    jobs = Reader(job_fd)
    for count in range(1, MAX_SAMPLES_PER_JUDGE + 1):
        try:
            # The sample's nonce and deadline, then the job as the host framed it.
            message = jobs.recv()
            job = jobs.recv()
        except (EOFError, OSError):
            return
        judge = Judge(job, verdict_fd, message["nonce"], link, message["deadline"], cache)
        judge.run()
        judge.stop_runs()
        try:
            changed = "judge error" if judge.failed else clean.changed()
            if changed is None:
                clean.reset()  # for the next sample (the first one has a fresh fork's state)
        except Exception as exc:  # a check that cannot run counts as a difference
            changed = f"the clean-state check failed ({type(exc).__name__})"
        keep = changed is None and count < MAX_SAMPLES_PER_JUDGE
        judge.finish(keep=keep, changed=changed)
        if not keep:
            return


SYNC_TIMEOUT_S = 5.0


class JudgeZygote:
    def __init__(self, config: dict, in_fd: int, out_fd: int) -> None:
        self.in_fd, self.out_fd = in_fd, out_fd
        self.link = socket.socket(fileno=config["link_fd"])
        self.pid_namespace = bool(config.get("pid_namespace"))
        # The warm judge needs a PID namespace of its own: there, what a sample's tests started
        # can be found (and killed) without killing the judge. Without one, a fork per sample.
        self.warm = self.pid_namespace and config.get("warm_judge", True) is not False
        self.server: tuple[int, int, int] | None = None
        self.verdicts: Reader | None = None  # the warm judge's verdict pipe
        self.judge_starts = 0

    def serve(self) -> None:
        try:
            peer = recv(self.link.fileno(), time.monotonic() + 30)
        except (EOFError, OSError, TimeoutError, ProtocolError, ValueError) as exc:
            send(self.out_fd, {"ready": False, "error": f"the solution sandbox did not start ({type(exc).__name__})"})
            return
        send(self.out_fd, {"ready": True, "judge_pid": os.getpid(), "solution": peer, "python": sys.version.split()[0]})
        host = Reader(self.in_fd)
        while True:
            try:
                raw = host.recv_raw()
            except (EOFError, OSError):
                return
            job = json.loads(raw)
            try:
                result = self.run_sample(job, raw)
            except Exception as exc:
                result = {"status": "infrastructure", "error": f"{type(exc).__name__}: {trim(str(exc))}"}
            send(self.out_fd, result)
            if result.get("retire"):
                return  # the host replaces this worker

    def start_server(self) -> tuple[int, int, int]:
        """Fork the warm judge: (pid, its job pipe, its verdict pipe)."""
        job_r, job_w = os.pipe()
        verdict_r, verdict_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                for fd in (job_w, verdict_r, self.in_fd, self.out_fd):
                    os.close(fd)
                os.setsid()
                serve_judge(job_r, verdict_w, self.link)
            finally:
                os._exit(0)
        os.close(job_r)
        os.close(verdict_w)
        self.judge_starts += 1
        return pid, job_w, verdict_r

    def drop_server(self) -> None:
        if self.server is not None:
            pid, job_w, verdict_r = self.server
            self.server, self.verdicts = None, None
            os.close(job_w)
            os.close(verdict_r)
            kill_all_but_me(self.pid_namespace, pgid=pid)

    def run_sample(self, job: dict, raw: bytes) -> dict:
        """One sample: ``job`` as decoded, ``raw`` its JSON text as the host sent it (passed on to
        the warm judge as is, not encoded again)."""
        start = time.monotonic()
        nonce = os.urandom(16).hex()
        deadline = start + job["limits"]["wall_s"]
        fresh = False
        if self.warm:
            # One judge for many samples, replaced whenever a sample leaves a trace in it.
            if self.server is None:
                self.server, fresh = self.start_server(), True
                self.verdicts = Reader(self.server[2])
            pid, job_w, verdict_r = self.server
            verdicts = self.verdicts or Reader(verdict_r)
            try:
                send_frames(job_w, [frame({"nonce": nonce, "deadline": deadline}), _HEADER.pack(len(raw)) + raw])
            except OSError:
                pass  # the judge is gone: its pipe ends at once, and the sample is a judge_died
        else:
            verdict_r, verdict_w = os.pipe()
            pid, fresh = os.fork(), True
            if pid == 0:
                try:
                    for fd in (verdict_r, self.in_fd, self.out_fd):
                        os.close(fd)
                    os.setsid()
                    judge_main(job, verdict_w, nonce, self.link, deadline)
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
                    event = verdicts.recv(deadline + 3.0)
                except TimeoutError:
                    outcome = {"status": "timeout"}
                    break
                except (EOFError, OSError, ValueError, ProtocolError):
                    break
                if type(event) is not dict or event.get("nonce") != nonce:
                    outcome = {"status": "judge_died", "error": "a verdict message without the sample's nonce"}
                    break
                if "test" in event:
                    tests.append(event["test"])
                elif "load_error" in event:
                    outcome["load_error"] = trim(str(event["load_error"]))
                elif "judge_error" in event:
                    outcome["judge_error"] = event["judge_error"]
                elif event.get("done"):
                    outcome["status"] = "done"
                    done = event
                    break
        finally:
            keep = self.warm and done.get("keep") is True
            if keep and stray_processes({os.getpid(), pid}):
                keep = False  # something the tests started outlived the sample: start afresh
            if not keep:
                if self.warm:
                    self.drop_server()
                else:
                    os.close(verdict_r)
                    kill_all_but_me(self.pid_namespace, pgid=pid)
            # A judge that saw every run of the sample end (each run's report comes after its
            # clean-up) leaves nothing to stop; otherwise stop whatever may still run.
            idle = done.get("idle") is True
            if not idle:
                send_fds(self.link, [], {"op": "stop", "seq": "*"})
        if done.get("memory"):
            outcome["memory"] = trim(str(done["memory"]))
        if isinstance(done.get("run_cpu_s"), (int, float)):
            outcome["run_cpu_s"] = float(done["run_cpu_s"])
        outcome["tests"] = tests
        outcome["elapsed_s"] = round(time.monotonic() - start, 6)
        if fresh:
            outcome["judge_started"] = True
        # The solution zygote's clean-up confirmation: carried by the last run's report when the
        # judge saw every run end, else asked for explicitly. An unmount it does after its last
        # report and fails refuses the next run as an infrastructure failure instead (retried on
        # a fresh worker), so no sample is ever scored in a box that was not cleaned.
        retire = (str(done["retire"]) if done.get("retire") else None) if idle else self.sync(nonce)
        if retire:
            outcome["retire"] = retire
        return outcome

    def sync(self, token: str) -> str | None:
        """Wait until the solution zygote has answered every run and cleaned up after it.

        The reply to the host waits for this, so the next sample never starts while the last
        one's leftovers are still being removed (and never pays for it in its own budget). Any
        doubt (no answer, a garbled stream after a judge killed mid-message) retires the worker.
        """
        try:
            send_fds(self.link, [], {"op": "sync", "token": token})
            until = time.monotonic() + SYNC_TIMEOUT_S
            while True:
                message = recv(self.link.fileno(), until)
                if isinstance(message, dict) and message.get("synced") == token:
                    return message.get("retire") or None
                # Otherwise a report on a run the judge no longer waited for: dropped.
        except (EOFError, OSError, TimeoutError, ProtocolError, ValueError) as exc:
            return f"the solution sandbox did not confirm it was clean ({type(exc).__name__})"


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
