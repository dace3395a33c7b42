"""An interactive task's interactor: ``answer["interactor"]``, run by ``languages.interactive``.

``{"language": "cpp", "source": "...", "timeout_s": 5, "memory_mb": 512}`` (``language``
defaults to ``python``; ``timeout_s`` is its CPU budget per case; ``"protocol": "kattis"``: a
Kattis problem package's interactive output validator, ``kattis_protocol``). It is called as testlib's
interactors are (``argv[1]`` the case's input, ``argv[2]`` a log file, ``argv[3]`` the case's
expected output); what it prints goes to the contestant's stdin, what the contestant prints comes
to its stdin.

How an interactor's run is scored, whatever the program did (the task author chooses by writing
the interactor, and by giving the task a ``canonical_solution``):

* exit 0 accepts; 1, 2, 4 or 8 reject (testlib's wrong answer, presentation error, extra output,
  unexpected end of the output: ``languages.spec.TESTLIB_REJECT``): ``wrong``;
* a Python interactor (behind ``_INTERACTOR_GUARD``) that raises after one of its reads found the
  end of the contestant's output (``input()``'s EOFError, ``readline().split()`` unpacking nothing,
  ``int('')``), or after the contestant stopped reading (a broken pipe), rejects (exit 1): the
  program printed nothing, or ended early. So a silent program, or one that exits or closes its
  stdout mid-game, is ``wrong``, never a ``verifier_error`` it chose;
* any other failure (an exception before the end of the output, a crash, a signal, the
  interactor's budget) is the interactor's: ``verifier_error`` (never a reward), unless the
  program's output is to blame (``io_tasks._output_to_blame``): the task's reference plays
  soundly on every case, or, without one, the interactor fails on garbage but not on silence.
  A compiled interactor that crashes at the end of the output (rather than rejecting it, as
  testlib's do) is judged that way too: give such a task its reference.

Before any sample the interactor is audited once per task (``interactor_audit``, red team round
14): one that accepts a constant contestant on every case (exiting at once, listening silently,
printing ``0``/``YES``...), or fails on silence and garbage alike with no reference to blame the
output, refuses its task (``verifier_error`` for every sample).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from rlvr_code.contests.checkers import DEFAULT_CHECKER_MB, DEFAULT_CHECKER_S, validator_args
from rlvr_code.contests.sandboxed import PYTHON, covered, language_spec
from rlvr_code.languages.spec import Language
from rlvr_envs.errors import RlvrEnvsError

_MAX_SOURCE = 1 << 20
_INTERACTOR_GUARD = (
    "import io, os, runpy, sys, traceback\n"
    "sys.argv = sys.argv[1:]\n"
    # The interactor's stdin (the contestant's output) read through a raw reader that notes when a
    # read found its end: a failure after that followed from the contestant's output ending early.
    "class Fd0(io.RawIOBase):\n"
    "    ended = False\n"
    "    def readable(self):\n"
    "        return True\n"
    "    def fileno(self):\n"
    "        return 0\n"
    "    def readinto(self, buffer):\n"
    "        data = os.read(0, len(buffer))\n"
    "        buffer[: len(data)] = data\n"
    "        Fd0.ended = Fd0.ended or not data\n"
    "        return len(data)\n"
    "sys.stdin = io.TextIOWrapper(\n"
    "    io.BufferedReader(Fd0()), encoding=sys.stdin.encoding, errors=sys.stdin.errors, newline='\\n'\n"
    ")\n"
    "def gone():\n"  # the contestant closed its stdin: later writes (and the exit's flush) go nowhere
    "    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)\n"
    "try:\n"
    "    runpy.run_path(sys.argv[0], run_name='__main__')\n"
    "    sys.stdout.flush()\n"
    "except SystemExit:\n"
    "    try:\n"
    "        sys.stdout.flush()\n"
    "    except BrokenPipeError:\n"
    "        gone()\n"
    "    raise\n"
    "except BrokenPipeError:\n"
    "    gone()\n"
    "    sys.exit(1)\n"
    # Any other failure after a read of its stdin found the end (``input()``'s EOFError, or
    # ``readline().split()`` unpacking nothing): the contestant's output ended before the
    # interaction was over (testlib rejects an early end too), a rejection; else its own failure.
    "except BaseException:\n"
    "    traceback.print_exc(limit=-2)\n"
    "    sys.exit(1 if Fd0.ended else 3)\n"
)


class InteractorSpecError(RlvrEnvsError, ValueError):
    """The task's ``interactor`` is malformed (a bad task: ``verifier_error``)."""


@dataclasses.dataclass(frozen=True)
class Interactor:
    language: str
    source: str
    timeout_s: float = DEFAULT_CHECKER_S
    memory_mb: int = DEFAULT_CHECKER_MB
    protocol: str = "testlib"
    args: tuple[str, ...] = ()


def parse_interactor(spec: Any) -> Interactor:
    from rlvr_code.languages import canonical

    keys = {"language", "source", "timeout_s", "memory_mb", "protocol", "args"}
    if not isinstance(spec, Mapping) or set(spec) - keys:
        raise InteractorSpecError(f"interactor must be {sorted(keys)}")
    protocol = spec.get("protocol", "testlib")
    if protocol not in ("testlib", "kattis"):
        raise InteractorSpecError(f"unknown interactor protocol {protocol!r:.40}; expected 'testlib' or 'kattis'")
    language = canonical(spec.get("language", "python"))
    if language is None:
        raise InteractorSpecError(f"unknown interactor language {spec.get('language')!r:.60}")
    source = spec.get("source")
    if not isinstance(source, str) or not source.strip() or "\x00" in source or len(source) > _MAX_SOURCE:
        raise InteractorSpecError("interactor source must be a non-empty program (no NUL bytes, at most 1 MiB)")
    timeout_s = spec.get("timeout_s", DEFAULT_CHECKER_S)
    memory_mb = spec.get("memory_mb", DEFAULT_CHECKER_MB)
    if isinstance(timeout_s, bool) or not isinstance(timeout_s, (int, float)) or not 0 < timeout_s <= 60:
        raise InteractorSpecError("interactor timeout_s must be in (0, 60] seconds")
    if not math.isfinite(float(timeout_s)):
        raise InteractorSpecError("interactor timeout_s must be finite")
    if isinstance(memory_mb, bool) or not isinstance(memory_mb, int) or not 16 <= memory_mb <= 4096:
        raise InteractorSpecError("interactor memory_mb must be an integer in [16, 4096]")
    args = validator_args(spec.get("args"), protocol, InteractorSpecError)
    return Interactor(language, source, float(timeout_s), memory_mb, protocol, args)


def interactor_language(name: str, protocol: str = "testlib", args: tuple[str, ...] = ()) -> Language:
    """The interactor's language as the runner runs it (a Python one behind its guard; a Kattis
    validator behind the shell step that speaks its protocol)."""
    base = language_spec(name)
    if base is PYTHON:
        base = dataclasses.replace(base, run=("/usr/bin/python3", "-I", "-c", _INTERACTOR_GUARD, "{src}"))
    if protocol != "kattis":
        return base
    from rlvr_code.contests.kattis_protocol import interactor_step

    run_mounts = base.run_mounts if base.run_mounts is not None else base.mounts
    shell = tuple(tool for tool in ("/usr/bin/sh", "/usr/bin/dash") if not covered(tool, run_mounts))
    return dataclasses.replace(
        base,
        run=("/usr/bin/sh", "-c", interactor_step(name == "python", args), "interactor", *base.run),
        run_mounts=(*run_mounts, *shell),
        extra_processes=base.extra_processes + 1,
    )


def run_interaction(
    language: str, code: str, interactor: Interactor, cases: list[dict[str, str]], limits: dict[str, Any]
) -> dict[str, Any]:
    """The contestant's report, judged case by case by the interactor; ``failed`` (why the
    interactor failed: the sample's verdict is then ``verifier_error``) or ``compile_error``."""
    from rlvr_code.languages.interactive import InteractorBudget, InteractorFailed, run_interactive

    budget = InteractorBudget(cpu_s=interactor.timeout_s, memory_mb=interactor.memory_mb)
    try:
        return run_interactive(
            language_spec(language),
            code,
            interactor_language(interactor.language, interactor.protocol, interactor.args),
            interactor.source,
            cases,
            limits,
            budget,
        )
    except InteractorFailed as exc:
        return {"status": "done", "tests": [], "failed": str(exc)}
