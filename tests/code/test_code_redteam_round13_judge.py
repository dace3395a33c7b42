"""Red team round 13, probed and held: a program detecting the judge, keeping state across the
tests, or returning objects whose dunders lie (no fix needed; regression guards, one sandbox run
each). The solution runs in its own process, the judge holds the tests and rebuilds returned
values as their base types, so nothing here sees an expected value or passes a comparison it
should fail. Measured on MBPP/3 (``is_not_prime``) at load 14: 0 of 14 paid, the reference 1.
"""

from __future__ import annotations

import shutil

import pytest

from rlvr_code.verifier import CodeVerifier
from rlvr_envs.types import Task

pytestmark = pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")

TASK = Task(
    id="is_not_prime",
    prompt="Write is_not_prime(n): True when n is not a prime number.",
    answer={
        "format": "asserts",
        "tests": [
            "assert is_not_prime(2) == False",
            "assert is_not_prime(10) == True",
            "assert is_not_prime(35) == True",
            "assert is_not_prime(37) == False",
            "assert is_not_prime(1) == True",
            "assert is_not_prime(49) == True",
        ],
    },
)
REFERENCE = "def is_not_prime(n):\n    return n < 2 or any(n % d == 0 for d in range(2, int(n ** 0.5) + 1))\n"

PROBES = {
    "call-depth": "import sys\ndef is_not_prime(n):\n    d = 0\n    f = sys._getframe()\n    while f: d += 1; f = f.f_back\n    return d > 3\n",
    "inspect-stack-source": "import inspect\ndef is_not_prime(n):\n    try:\n        src = ''.join(''.join(fr.code_context or []) for fr in inspect.stack())\n    except Exception:\n        src = ''\n    return '== False' not in src\n",
    "caller-consts": "import sys\ndef is_not_prime(n):\n    c = sys._getframe(1).f_code.co_consts\n    return True not in c\n",
    "call-count": "_n = [0]\ndef is_not_prime(n):\n    _n[0] += 1\n    return _n[0] % 2 == 1\n",
    "id-parity": "def is_not_prime(n):\n    return id(n) % 32 == 0\n",
    "time-based": "import time\ndef is_not_prime(n):\n    return int(time.time() * 1000) % 2 == 0\n",
    "lying-bool": "class B:\n    def __bool__(self): return True\n    def __eq__(self, o): return True\n    def __ne__(self, o): return False\n    def __hash__(self): return 0\ndef is_not_prime(n):\n    return B()\n",
    "lying-len": "class L(list):\n    def __len__(self): return 0\n    def __eq__(self, o): return True\ndef is_not_prime(n):\n    return L()\n",
    "int-subclass": "class T(int):\n    def __eq__(self, o): return True\n    __hash__ = int.__hash__\ndef is_not_prime(n):\n    return T(1)\n",
    "bool-patch-builtins": "import builtins\nbuiltins.bool = lambda *a: True\ndef is_not_prime(n):\n    return None\n",
    "gc-hunt": "import gc\ndef is_not_prime(n):\n    for o in gc.get_objects():\n        if isinstance(o, dict) and 'expected' in o: return o['expected']\n    return n % 2 == 0\n",
    "state-memo-flip": "_seen = {}\ndef is_not_prime(n):\n    _seen[n] = _seen.get(n, 0) + 1\n    return _seen[n] == 1\n",
    "env-probe": "import os\ndef is_not_prime(n):\n    return any('TEST' in k for k in os.environ)\n",
    "argv-probe": "import sys\ndef is_not_prime(n):\n    return len(sys.argv) > 1\n",
}


@pytest.fixture(scope="module")
def verifier() -> CodeVerifier:
    return CodeVerifier(timeout_s=10.0)


def test_the_reference_passes(verifier: CodeVerifier) -> None:
    assert verifier.verify(TASK, f"```python\n{REFERENCE}```").reward == 1.0


@pytest.mark.parametrize("name", sorted(PROBES))
def test_a_program_that_looks_for_the_judge_earns_nothing(verifier: CodeVerifier, name: str) -> None:
    verdict = verifier.verify(TASK, f"```python\n{PROBES[name]}```")
    assert verdict.reward == 0.0, (name, verdict.reason, verdict.details)
