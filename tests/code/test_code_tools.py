"""The ``python`` tool (issue 28): a persistent interpreter per episode in the code sandbox.

State across calls, never across sessions; REPL-like output; per-call and per-episode budgets;
the code family's hostile battery run through the tool (contained, an error or timeout message,
nothing left behind, the next session works); no leftovers after close or kill -9 of the parent.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from rlvr_code.tools.python_tool import PythonLimits, PythonProcess, PythonTool
from rlvr_envs.episodes import ToolContext, ToolError, get_tool
from rlvr_envs.types import Task

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

UID_LOW, UID_HIGH = 1_800_000_000, 1_900_000_000


def context(timeout_s: float = 5.0, max_output_chars: int = 4000, deadline: float | None = None) -> ToolContext:
    return ToolContext(
        task=Task(id="t", prompt="p", answer="42"),
        env_id="math-arith",
        call_timeout_s=timeout_s,
        max_output_chars=max_output_chars,
        deadline=deadline,
    )


def session_uids() -> list[tuple[int, int]]:
    """(pid, uid) of every live process that runs as a python-tool session's uid."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("Uid:"):
                    uid = int(line.split()[1])
                    if UID_LOW <= uid < UID_HIGH:
                        found.append((int(entry.name), uid))
        except (OSError, ValueError):
            continue
    return found


def assert_nothing_left(uid: int | None = None) -> None:
    """No process runs as ``uid``, or as any session uid of this process (its block of 64: tests
    in other processes may hold sessions of their own meanwhile)."""
    block = UID_LOW + (os.getpid() % 1_000_000) * 64
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        left = [p for p in session_uids() if p[1] == uid or (uid is None and block <= p[1] < block + 64)]
        if not left:
            return
        time.sleep(0.05)
    raise AssertionError(f"processes left behind: {left}")


@pytest.fixture()
def session():
    s = PythonTool().open(context())
    yield s
    s.close()


def test_the_entry_point_gives_the_tool():
    tool = get_tool("python")
    assert tool.name == "python" and tool.parameters["required"] == ["code"]


def test_state_is_kept_across_calls_and_the_last_expression_is_shown(session):
    assert session.call(code="x = 21") == "(no output)"
    assert session.call(code="print('half'); x * 2") == "half\n42\n"
    assert session.call(code="_ + 1") == "43\n"  # the last value, as in a REPL
    assert session.call(code="None") == "(no output)"
    assert session.call(code="def f(n):\n    return n * x\nf(2)") == "42\n"


def test_stderr_and_tracebacks_come_back_and_the_session_goes_on(session):
    out = session.call(code="import sys\nsys.stderr.write('warn\\n')\n1 / 0")
    assert out.startswith("warn\n") and "ZeroDivisionError: division by zero" in out
    assert "_python_server" not in out  # only the cell's frames
    assert "SyntaxError" in session.call(code="def (")
    assert session.call(code="y = 5; y") == "5\n"


def test_numpy_and_sympy_import(session):
    out = session.call(code="import numpy as np, sympy\nround(np.linalg.det(np.eye(3) * 2)), sympy.factor('x**2 - 1')")
    assert out == "(8, (x - 1)*(x + 1))\n"


def test_sessions_never_share_state():
    tool = PythonTool()
    a, b = tool.open(context()), tool.open(context())
    try:
        a.call(code="secret = 'episode-a'\nopen('/tmp/a.txt', 'w').write(secret)")
        assert "NameError" in b.call(code="secret")
        assert "FileNotFoundError" in b.call(code="open('/tmp/a.txt').read()")
    finally:
        a.close()
        b.close()


def test_output_is_truncated_with_a_marker():
    s = PythonTool().open(context(max_output_chars=1000))
    try:
        out = s.call(code="print('é' * 5000)")
        assert out.startswith("é" * 1000) and "…[truncated" in out and len(out) < 1100
        flood = s.call(code="import os\nfor _ in range(10000):\n    os.write(1, b'y' * 4096)")
        assert "…[truncated" in flood and len(flood) < 1100  # a flood past the file limit
        assert s.call(code="1 + 1") == "2\n"
    finally:
        s.close()


def test_a_call_past_its_budget_is_killed_and_the_next_call_gets_a_fresh_session():
    s = PythonTool().open(context(timeout_s=1.0))
    try:
        s.call(code="kept = 1")
        start = time.monotonic()
        with pytest.raises(ToolError, match="longer than 1 s.*every variable is lost"):
            s.call(code="while True:\n    pass")
        assert time.monotonic() - start < 3
        assert_nothing_left()
        assert "NameError" in s.call(code="kept")  # fresh: the old state is gone
    finally:
        s.close()


def test_the_episode_budget_is_spent_across_calls():
    s = PythonTool(episode_budget_s=1.5).open(context(timeout_s=1.0))
    try:
        with pytest.raises(ToolError, match="longer than"):
            s.call(code="import time\ntime.sleep(5)")
        with pytest.raises(ToolError):
            s.call(code="import time\ntime.sleep(5)")  # 0.5 s left of the episode
        with pytest.raises(ToolError, match="budget for this episode is spent"):
            s.call(code="1")
    finally:
        s.close()


def test_the_wall_deadline_of_the_episode_caps_a_call():
    s = PythonTool().open(context(timeout_s=10.0, deadline=time.monotonic() + 1.0))
    try:
        start = time.monotonic()
        with pytest.raises(ToolError):
            s.call(code="while True:\n    pass")
        assert time.monotonic() - start < 3
    finally:
        s.close()


# -- the code family's hostile battery, through the tool --------------------------------------------
HOSTILE = {
    "sys_exit": ("import sys\nsys.exit(0)", "SystemExit"),
    "os_exit": ("import os\nos._exit(0)", "interpreter died"),
    "kill_self": ("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)", "interpreter died"),
    "kill_parent": ("import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nimport time\ntime.sleep(3)", ""),
    "kill_everything": ("import os, signal\nos.kill(-1, signal.SIGKILL)", ""),
    "fork_bomb": (
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass",
        "longer than",
    ),
    "memory_bomb": ("blocks = []\nwhile True:\n    blocks.append(bytearray(1 << 26))", "MemoryError"),
    "disk_bomb": (
        "n = 0\ntry:\n    while True:\n        open(f'junk{n}', 'wb').write(b'x' * (1 << 22))\n        n += 1\n"
        "except OSError as exc:\n    print('stopped', n, exc.errno)",
        "stopped",
    ),
    "output_flood": ("import sys\nwhile True:\n    sys.stdout.write('\\x00\\xff' * 65536)", ""),
    "daemon": (
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n        time.sleep(600)\n"
        "    os._exit(0)\n'parent done'",
        "parent done",
    ),
    "stdout_swap": ("import sys, io\nsys.stdout = io.StringIO()\nprint('hidden')", ""),
    "protocol_forgery": (
        "import os\nfor fd in range(3, 10):\n    try:\n        os.write(fd, b'\\xff' * 64)\n    except OSError:\n        pass",
        "",
    ),
    "recursion": ("def f(n):\n    return f(n + 1)\nf(0)", "RecursionError"),
    "huge_int_repr": ("10 ** 100000", "ValueError"),
}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_programs_are_contained_and_the_next_session_works(name):
    code, expected = HOSTILE[name]
    s = PythonTool().open(context(timeout_s=4.0))
    try:
        start = time.monotonic()
        try:
            out = s.call(code=code)
        except ToolError as exc:
            out = f"Error: {exc}"
        assert time.monotonic() - start < 10
        assert isinstance(out, str) and len(out) <= 4100
        assert expected in out, out
    finally:
        s.close()
    assert_nothing_left()
    fresh = PythonTool().open(context())
    try:
        assert fresh.call(code="6 * 7") == "42\n"
    finally:
        fresh.close()


def test_no_network_no_host_files_no_privilege(session):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        out = session.call(code=f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=1)")
        assert "Error" in out or "refused" in out
        with pytest.raises(BlockingIOError):
            listener.accept()
    with tempfile.NamedTemporaryFile("w", dir="/tmp", suffix=".secret", delete=False) as fh:
        fh.write("host secret")
    try:
        for path in (fh.name, "/etc/shadow", "/root/.bashrc", str(Path(__file__).resolve())):
            assert "FileNotFoundError" in session.call(code=f"open({path!r}).read()"), path
        session.call(code="open('/tmp/rlvr_python_pwned', 'w').write('x')")
        assert not Path("/tmp/rlvr_python_pwned").exists()
    finally:
        os.unlink(fh.name)
    uid = int(session.call(code="import os\nos.getuid()"))
    assert uid != 0 or os.getuid() != 0  # as root, the session runs as a uid of its own
    assert "PermissionError" in session.call(code="import os\nos.setuid(0)")
    assert (
        session.call(code="open('/proc/self/status').read().split('CapEff:')[1].split()[0]") == "'0000000000000000'\n"
    )


def test_close_leaves_nothing_and_is_idempotent():
    s = PythonTool().open(context())
    s.call(
        code="import os, subprocess\nchild = subprocess.Popen(['/usr/bin/python3', '-c', 'import time; time.sleep(600)'])"
    )
    assert session_uids()
    s.close()
    s.close()
    assert_nothing_left()
    with pytest.raises(ToolError, match="closed"):
        s.call(code="1")


def test_the_session_dies_with_its_parent_on_kill_9():
    program = textwrap.dedent(
        """
        import sys, time
        from rlvr_code.tools.python_tool import PythonProcess
        p = PythonProcess()
        p.run("import subprocess\\nc = subprocess.Popen(['/usr/bin/python3', '-c', 'import time; time.sleep(600)'])", 10)
        print(p.run("import os\\nos.getuid()", 10)[0].strip(), flush=True)
        time.sleep(600)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True)
    try:
        uid = int(parent.stdout.readline())
        assert [p for p in session_uids() if p[1] == uid]
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    assert_nothing_left(uid)


def test_memory_is_bounded_for_the_whole_tree():
    """Three children of 150 MB each under a 256 MB cgroup: not all of them live (each alone
    is within its 512 MB address-space limit, so only the per-sample bound can stop them)."""
    p = PythonProcess(PythonLimits(memory_mb=512, total_memory_mb=256))
    if p.memory is None:
        p.kill()
        pytest.skip("no memory cgroup on this machine (the rlimit fallback bounds each process)")
    code = (
        "import os, time\npids = []\nfor _ in range(3):\n    pid = os.fork()\n    if pid == 0:\n"
        "        b = b'x' * (150 << 20)\n        time.sleep(2)\n        os._exit(0)\n    pids.append(pid)\n"
        "statuses = [os.waitpid(pid, 0)[1] for pid in pids]\nprint('killed', sum(os.WIFSIGNALED(s) for s in statuses))"
    )
    try:
        out = p.run(code, 20)[0]
        assert "killed" in out and not out.strip().endswith("killed 0"), out
    except Exception as exc:  # the OOM killer may take the interpreter itself
        assert "memory" in str(exc), exc
    finally:
        p.kill()
    assert_nothing_left()


def test_a_process_dropped_without_close_takes_its_tree_down_when_collected():
    import gc

    p = PythonProcess()
    p.run("import subprocess\nc = subprocess.Popen(['/usr/bin/python3', '-c', 'import time; time.sleep(600)'])", 10)
    assert session_uids()
    del p
    gc.collect()
    assert_nothing_left()


def test_a_memory_kill_is_named():
    """The cgroup's OOM killer taking the interpreter itself: the message says it was memory."""
    p = PythonProcess(PythonLimits(memory_mb=2048, total_memory_mb=128))
    if p.memory is None:
        p.kill()
        pytest.skip("no memory cgroup on this machine")
    try:
        with pytest.raises(Exception, match="memory limit"):
            p.run("b = b'x' * (400 << 20)", 20)
    finally:
        p.kill()
    assert_nothing_left()


def test_concurrent_sessions_keep_their_own_state():
    from concurrent.futures import ThreadPoolExecutor

    def episode(i: int) -> list[str]:
        s = PythonTool().open(context())
        try:
            s.call(code=f"mine = {i}")
            return [s.call(code="mine = mine + 1000\nmine") for _ in range(5)]
        finally:
            s.close()

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(episode, range(8)))
    assert results == [[f"{i + 1000 * k}\n" for k in range(1, 6)] for i in range(8)]
    assert_nothing_left()
