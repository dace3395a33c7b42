"""Hostile completions: each must get reward 0, finish within budget, and leave nothing behind.

The HumanEval/0 task (``has_close_elements``) is the target of the forgery attempts: every
attempt below also carries a *wrong* implementation, so only a forged verdict could pass.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import time
from pathlib import Path

import pytest

from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Reason
from tests.code.helpers_code import asserts_task, fenced, humaneval_task, sample_processes

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

WRONG = "def has_close_elements(numbers, threshold):\n    return False\n"

# name -> program. Every one of them must score 0 on HumanEval/0.
FORGERIES = {
    "sys.exit(0) at import": "import sys\nsys.exit(0)\n" + WRONG,
    "os._exit(0) at import": "import os\nos._exit(0)\n" + WRONG,
    "SystemExit inside the function": "def has_close_elements(numbers, threshold):\n    raise SystemExit(0)\n",
    "os._exit(0) inside the function": "import os\ndef has_close_elements(numbers, threshold):\n    os._exit(0)\n",
    "atexit forces exit code 0": "import atexit, os\natexit.register(lambda: os._exit(0))\n"
    "def has_close_elements(numbers, threshold):\n    raise ValueError('no')\n",
    "excepthook forces exit code 0": "import sys, os\nsys.excepthook = lambda *a: os._exit(0)\n"
    "def has_close_elements(numbers, threshold):\n    raise ValueError('no')\n",
    "printed success markers": 'import sys\nprint(\'All tests passed\'); print(\'{"status": "done", "tests": []}\')\n'
    "sys.stdout.write('PASS\\nOK\\n')\n" + WRONG,
    "patched json and pickle": 'import json, pickle\njson.dumps = lambda *a, **k: \'["ok", ["B", true]]\'\n'
    "json.loads = lambda *a, **k: ['ok', ['B', True]]\npickle.dumps = lambda *a, **k: b''\n" + WRONG,
    "redefined check": "def check(candidate):\n    return True\n" + WRONG,
    "redefined builtins": "import builtins\nbuiltins.AssertionError = type('X', (BaseException,), {})\n"
    "builtins.abs = lambda x: 0\nbuiltins.len = lambda x: 0\n" + WRONG,
    "builtins replaced during the call": "import builtins\n"
    "def has_close_elements(numbers, threshold):\n"
    "    builtins.len = lambda x: 0\n    builtins.isinstance = lambda *a: True\n"
    "    builtins.type = lambda x: bool\n    return False\n",
    "__eq__ always true": "class Yes:\n    def __eq__(self, other):\n        return True\n    __hash__ = object.__hash__\n"
    "    def __bool__(self):\n        return True\n"
    "def has_close_elements(numbers, threshold):\n    return Yes()\n",
    "bool-like int subclass": "class Sneaky(int):\n    def __eq__(self, other):\n        return True\n"
    "    __hash__ = int.__hash__\n"
    "def has_close_elements(numbers, threshold):\n    return Sneaky(7)\n",
    "list subclass with __eq__": "class L(list):\n    def __eq__(self, other):\n        return True\n"
    "def has_close_elements(numbers, threshold):\n    return L()\n",
    "forged replies on every fd": "import os, json, struct\n"
    "def spray():\n"
    "    for fd in range(0, 1024):\n"
    "        for msg in ({'done': True}, ['ok', ['B', True]], {'test': {'status': 'passed'}}):\n"
    "            data = json.dumps(msg).encode()\n"
    "            try:\n                os.write(fd, struct.pack('>I', len(data)) + data)\n"
    "            except OSError:\n                pass\n"
    "spray()\n"
    "def has_close_elements(numbers, threshold):\n    spray()\n    return False\n",
    "kill every process it can": "import os, signal\n"
    "def has_close_elements(numbers, threshold):\n"
    "    for target in (-1, 1, os.getppid()):\n"
    "        try:\n            os.kill(target, signal.SIGKILL)\n"
    "        except OSError:\n            pass\n    return False\n",
    "edit test files it can find": "import os\n"
    "for root in ('/tmp', '.', '/proc/self/cwd', '/'):\n"
    "    try:\n        names = os.listdir(root)\n    except OSError:\n        continue\n"
    "    for name in names:\n        path = os.path.join(root, name)\n"
    "        try:\n            open(path, 'a').write('\\ndef check(candidate):\\n    pass\\n')\n"
    "        except OSError:\n            pass\n" + WRONG,
    "read the judge's memory": "import os\n"
    "def has_close_elements(numbers, threshold):\n"
    "    for pid in range(1, 200):\n"
    "        for leaf in ('mem', 'environ', 'fd/3'):\n"
    "            try:\n                open(f'/proc/{pid}/{leaf}', 'rb').read(10)\n"
    "                return 'leaked'\n"
    "            except OSError:\n                pass\n"
    "    return False\n",
}


@pytest.fixture(scope="module")
def verifier() -> CodeVerifier:
    return CodeVerifier(timeout_s=5.0)


def assert_nothing_left() -> None:
    deadline = time.monotonic() + 2.0
    while sample_processes() and time.monotonic() < deadline:
        time.sleep(0.05)  # the kernel may still be tearing the last one down
    assert sample_processes() == []


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_forgery_attempts_score_zero(verifier, name):
    task = humaneval_task(0)
    start = time.monotonic()
    verdict = verifier.verify(task, fenced(FORGERIES[name]))
    assert verdict.reward == 0.0 and not verdict.passed, verdict
    assert verdict.reason is not Reason.VERIFIER_ERROR, verdict
    assert time.monotonic() - start < verifier.timeout_s + 5
    assert_nothing_left()


def test_the_same_task_still_passes_with_a_right_answer(verifier):
    # Guards the table above: the forgeries fail because they are forgeries, not because the task is broken.
    task = humaneval_task(0)
    right = (
        "def has_close_elements(numbers, threshold):\n"
        "    return any(abs(a - b) < threshold for i, a in enumerate(numbers) for b in numbers[i + 1:])\n"
    )
    assert verifier.verify(task, fenced(right)).passed


def test_the_solution_process_never_holds_the_tests(verifier):
    # The test line carries a marker; the solution hunts for it in every object it can reach.
    secret = "SECRET-" + "7f3a9"
    task = asserts_task([f"assert hunt() == 'not found'  # {secret}"], names=("hunt",))
    program = (
        "import gc, sys\n"
        "def hunt():\n"
        "    needle = 'SECRET-' + '7f3a9'\n"
        "    seen = 0\n"
        "    for obj in gc.get_objects() + list(sys.modules.values()):\n"
        "        try:\n"
        "            values = list(vars(obj).values()) if hasattr(obj, '__dict__') else (\n"
        "                list(obj.values()) if isinstance(obj, dict) else list(obj) if isinstance(obj, (list, tuple)) else [])\n"
        "        except Exception:\n            continue\n"
        "        for value in values:\n"
        "            if isinstance(value, str) and needle in value and value is not needle:\n"
        "                return 'found'\n"
        "    frame = sys._getframe()\n"
        "    while frame is not None:\n"
        "        for value in list(frame.f_locals.values()) + list(frame.f_globals.values()):\n"
        "            if isinstance(value, str) and needle in value and value is not needle:\n"
        "                return 'found'\n"
        "            if isinstance(value, dict) and needle in repr(value):\n"
        "                return 'found'\n"
        "        frame = frame.f_back\n"
        "    return 'not found'\n"
    )
    assert verifier.verify(task, fenced(program)).passed


def test_fork_bomb_is_contained(verifier):
    task = asserts_task(["assert f() == 1"], names=("f",))
    bomb = "import os\ndef f():\n    while True:\n        try:\n            os.fork()\n        except OSError:\n            pass\n"
    start = time.monotonic()
    verdict = verifier.verify(task, fenced(bomb))
    assert verdict.reward == 0.0 and verdict.reason is Reason.TIMEOUT
    assert time.monotonic() - start < verifier.timeout_s + 5
    assert_nothing_left()


def test_memory_bomb_is_contained():
    # Filling 1 GiB (the address-space limit) takes seconds on a loaded machine: the budget here
    # is generous so that what is tested is the limit, not the machine's speed.
    verifier = CodeVerifier(timeout_s=30.0)
    task = asserts_task(["assert f() == 1"], names=("f",))
    verdict = verifier.verify(
        task, fenced("def f():\n    blocks = []\n    while True:\n        blocks.append(bytearray(1 << 26))\n")
    )
    assert verdict.reward == 0.0 and verdict.reason is Reason.RUNTIME_ERROR
    assert "MemoryError" in verdict.details["first_error"]


def test_disk_bomb_is_contained(verifier):
    task = asserts_task(["assert f() == 'filled'"], names=("f",))
    bomb = (
        "import os\ndef f():\n    n = 0\n    try:\n        while True:\n"
        "            with open(f'junk{n}', 'wb') as fh:\n                fh.write(b'x' * (1 << 22))\n            n += 1\n"
        "    except OSError as exc:\n        return f'stopped after {n} files: {exc.errno}'\n"
    )
    verdict = verifier.verify(task, fenced(bomb))
    assert verdict.reward == 0.0 and verdict.reason is Reason.WRONG
    assert "AssertionError" in verdict.details["first_error"]
    assert_nothing_left()


def test_network_connect_to_a_loopback_listener_fails():
    verifier = CodeVerifier(timeout_s=5.0)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        task = asserts_task(["assert connect() == 'connected'"], names=("connect",))
        program = (
            "import socket\ndef connect():\n    s = socket.socket()\n    s.settimeout(2)\n"
            f"    s.connect(('127.0.0.1', {port}))\n    return 'connected'\n"
        )
        verdict = verifier.verify(task, fenced(program))
        assert verdict.reward == 0.0
        assert "Connection" in verdict.details["first_error"] or "Network" in verdict.details["first_error"]
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing ever reached the host's loopback


def test_host_files_are_out_of_reach(verifier):
    with tempfile.NamedTemporaryFile("w", dir="/tmp", suffix=".secret", delete=False) as fh:
        fh.write("host secret")
        secret_path = fh.name
    try:
        task = asserts_task(
            [f"assert read({p!r}) == 'host secret'" for p in (secret_path,)]
            + [
                "assert read('/etc/shadow') == 'x'",
                "assert read('/root/.bashrc') == 'x'",
                f"assert read({str(Path(__file__).resolve())!r}) == 'x'",
            ],
            names=("read",),
        )
        program = "def read(path):\n    with open(path) as fh:\n        return fh.read()\n"
        verdict = CodeVerifier(timeout_s=5.0, partial_credit=True).verify(task, fenced(program))
        assert verdict.reward == 0.0
        assert all(
            "FileNotFoundError" in (t["error"] or "") or "Permission" in (t["error"] or "")
            for t in verdict.details["tests"]
        ), verdict.details
        escaped = "def write():\n    open('/tmp/rlvr_code_pwned', 'w').write('x')\n    return 'ok'\n"
        verifier.verify(asserts_task(["assert write() == 'ok'"], names=("write",)), fenced(escaped))
        assert not Path("/tmp/rlvr_code_pwned").exists()
    finally:
        os.unlink(secret_path)


def test_background_process_does_not_outlive_its_sample(verifier):
    task = asserts_task(["assert f() == 1"], names=("f",))
    program = (
        "import os, time\ndef f():\n    if os.fork() == 0:\n        os.setsid()\n"
        "        if os.fork() == 0:\n            time.sleep(600)\n        os._exit(0)\n    return 1\n"
    )
    verdict = verifier.verify(task, fenced(program))
    assert verdict.passed  # the sample itself is fine ...
    assert_nothing_left()  # ... but its double-forked daemon is gone with it


def test_infinite_loop_times_out_within_budget():
    verifier = CodeVerifier(timeout_s=1.5)
    task = humaneval_task(0)
    # The shared sandbox's worker start (up to ~0.7 s more under load) is not what is timed.
    assert verifier.verify(task, fenced(task.answer["canonical_solution"])).passed
    start = time.monotonic()
    verdict = verifier.verify(
        task, fenced("def has_close_elements(numbers, threshold):\n    while True:\n        pass\n")
    )
    assert verdict.reason is Reason.TIMEOUT and verdict.reward == 0.0
    assert time.monotonic() - start < 1.5 + 3
    assert_nothing_left()


def test_huge_and_binary_output_is_capped():
    verifier = CodeVerifier(timeout_s=5.0, output_bytes=1 << 16)
    task = asserts_task([], names=())
    stdio = task.model_copy(update={"answer": {"format": "stdio", "cases": [{"input": "", "output": "x"}]}})
    verdict = verifier.verify(stdio, fenced("import sys\nwhile True:\n    sys.stdout.write('\\x00\\xff' * 65536)\n"))
    assert verdict.reward == 0.0 and "exceeded" in verdict.details["first_error"]


@pytest.mark.parametrize(
    "completion",
    [
        "",
        "\x00\x01\x02",
        "```python\n```",
        "x" * 100_000,
        "```python\n(((((\n```",
        "\udcff\ud800 invalid surrogates",
        "def f(:\n",
    ],
)
def test_garbage_completions_get_a_verdict(verifier, completion):
    verdict = verifier.verify(humaneval_task(0), completion)
    assert verdict.reward == 0.0
    assert verdict.reason in (Reason.NO_ANSWER, Reason.FORMAT_ERROR, Reason.WRONG, Reason.RUNTIME_ERROR)


def test_a_patched_stdlib_module_never_reaches_the_tests(verifier):
    task = asserts_task(["assert math.isclose(area(2), 12.566, rel_tol=1e-3)"], names=("area",))
    cheat = "import math\nmath.isclose = lambda *a, **k: True\ndef area(r):\n    return 5\n"
    honest = "import math\ndef area(r):\n    return math.pi * r * r\n"
    assert verifier.verify(task, fenced(cheat)).reason is Reason.WRONG
    assert verifier.verify(task, fenced(honest)).passed


def test_the_sample_runs_unprivileged_in_an_empty_world(verifier):
    if os.getuid() != 0:
        pytest.skip("the separate sample uid is used when the host runs as root")
    task = asserts_task(["assert who() == 'ok'"], names=("who",))
    root = sorted(
        ["bin", "dev", "lib", "lib64", "proc", "tmp", "usr", *(["etc"] if os.path.isdir("/etc/alternatives") else [])]
    )
    program = (
        "import os, socket\n"
        "def who():\n"
        "    status = open('/proc/self/status').read()\n"
        "    caps = [l.split()[1] for l in status.splitlines() if l.startswith(('CapEff', 'CapPrm', 'CapBnd'))]\n"
        "    assert os.getuid() >= 1_900_000_000 and os.geteuid() == os.getuid(), os.getuid()\n"
        "    assert set(caps[:2]) == {'0000000000000000'}, caps\n"
        "    assert 'NoNewPrivs:\\t1' in status\n"
        f"    assert sorted(os.listdir('/')) == {root!r}, os.listdir('/')\n"
        # /etc holds only the alternatives numpy's BLAS/LAPACK resolve through, read-only.
        f"    assert os.listdir('/etc') == ['alternatives'] if {'etc' in root} else True, os.listdir('/etc')\n"
        "    assert [n for n in os.listdir('/proc') if n.isdigit()] != [], 'proc mounted'\n"
        "    assert socket.if_nameindex() == [(1, 'lo')], socket.if_nameindex()\n"
        "    return 'ok'\n"
    )
    verdict = verifier.verify(task, fenced(program))
    assert verdict.passed, verdict.details
