"""A real two-node Ray cluster on this machine for the Ray backend tests.

A head and a second ``ray start --address`` node, each a ``ray start --block`` process in a
process group of its own, loopback only, with a temp dir of its own: killing a node's group
is a node lost, and tearing down kills exactly the processes of this cluster (never a broad
``ray stop``, which would stop every Ray on the machine).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

RAY = str(Path(sys.executable).with_name("ray"))
# Ray maps 127.0.0.1 (and "localhost") to the machine's external interface address on purpose; any
# other loopback address is kept as given, so the whole test cluster talks over loopback only.
NODE_IP = "127.0.0.2"

# Fast failure detection so a killed node is noticed in about a second, not 30.
FAST_ENV = {
    "RAY_health_check_initial_delay_ms": "0",
    "RAY_health_check_period_ms": "300",
    "RAY_health_check_timeout_ms": "300",
    "RAY_health_check_failure_threshold": "3",
    "RAY_DISABLE_USAGE_STATS": "1",
    # A loopback-only throwaway cluster: no token (a token file another Ray run left in ~/.ray
    # would otherwise switch it on, and every client of this cluster would need it).
    "RAY_AUTH_MODE": "disabled",
    "RAY_USAGE_STATS_ENABLED": "0",
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((NODE_IP, 0))
        return int(s.getsockname()[1])


class LocalCluster:
    def __init__(self, head_cpus: float = 1, node_cpus: float = 1, node_resources: str | None = None) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="rlvr-ray-"))
        self.port = _free_port()
        self.address = f"{NODE_IP}:{self.port}"
        self.env = {**os.environ, **FAST_ENV}
        self.env.pop("RAY_ADDRESS", None)
        self.head: subprocess.Popen | None = None
        self.node: subprocess.Popen | None = None
        try:
            self._boot(head_cpus, node_cpus, node_resources)
        except BaseException:
            self.stop()  # a cluster that failed to come up leaves nothing running either
            raise

    def _boot(self, head_cpus: float, node_cpus: float, node_resources: str | None) -> None:
        common = [
            "--block",
            "--node-ip-address",
            NODE_IP,
            "--disable-usage-stats",
            "--object-store-memory",
            str(80 * 2**20),
        ]
        self.head = self._start(
            [
                RAY,
                "start",
                "--head",
                "--port",
                str(self.port),
                "--include-dashboard=false",
                "--num-cpus",
                str(head_cpus),
                "--dashboard-port",
                str(_free_port()),
                "--ray-client-server-port",
                str(_free_port()),
                "--temp-dir",
                str(self.tmp / "head"),
                "--resources",
                '{"head_node": 1}',
                *common,
            ],
        )
        self._wait_nodes(1)
        node = [
            RAY,
            "start",
            "--address",
            self.address,
            "--num-cpus",
            str(node_cpus),
            "--temp-dir",
            str(self.tmp / "node"),
            *common,
        ]
        if node_resources:
            node += ["--resources", node_resources]
        self.node = self._start(node)
        self._wait_nodes(2)

    def _start(self, cmd: list[str]) -> subprocess.Popen:
        log = open(self.tmp / f"start-{len(list(self.tmp.glob('start-*')))}.log", "wb")
        return subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)

    def _wait_nodes(self, count: int, timeout_s: float = 180) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            out = subprocess.run(
                [RAY, "status", "--address", self.address], capture_output=True, text=True, env=self.env
            )
            if out.returncode == 0 and out.stdout.count("node_") >= count:
                return
            time.sleep(1.0)
        raise RuntimeError(f"the test cluster did not reach {count} node(s): {(self.tmp).as_posix()}")

    def _group(self, proc: subprocess.Popen) -> list[psutil.Process]:
        """Every process of one ``ray start`` (its group, and anything that left it but runs from its temp dir)."""
        found = []
        for p in psutil.process_iter(["pid", "cmdline"]):
            try:
                if os.getpgid(p.pid) == proc.pid or str(self.tmp) in " ".join(p.info["cmdline"] or []):
                    found.append(p)
            except (ProcessLookupError, psutil.Error, OSError):
                pass
        return found

    def kill_node(self) -> None:
        """The second node lost: every process it started, SIGKILL, at once."""
        if self.node is None:
            return
        procs = [p for p in self._group(self.node) if str(self.tmp / "head") not in " ".join(p.cmdline() or [])]
        for p in procs:
            try:
                p.send_signal(signal.SIGKILL)
            except psutil.Error:
                pass

    def stop(self) -> None:
        started = [p for p in (self.node, self.head) if p is not None]
        for proc in started:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        for p in psutil.process_iter(["pid", "cmdline"]):
            try:
                if str(self.tmp) in " ".join(p.info["cmdline"] or []):
                    p.kill()
            except psutil.Error:
                pass
        for proc in started:
            proc.wait(10)
        shutil.rmtree(self.tmp, ignore_errors=True)
