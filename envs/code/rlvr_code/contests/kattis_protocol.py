"""The Kattis problem-package output validator, spoken through the contest family's checker and
interactor conventions.

A Kattis validator (problem-package format, ``output_validators/`` or ``output_validator/``) is
run as ``validator judge_in judge_ans feedback_dir [flags] < team_output``; an interactive one
also writes to the team's stdin. Exit 42 accepts, 43 rejects, anything else is the judge's error;
its messages go to files in ``feedback_dir`` (``judgemessage.txt``). The family's special judges
and interactors take ``argv`` in testlib's order and exit 0 / 1-2 (``sandboxed``, ``interactors``):
a small POSIX shell step in front of the validator rearranges the arguments and maps the status
(42 -> 0, 43 -> 1; 0, 1, 2, 4 and 8, testlib's verdicts which Kattis never means as one, -> 3, the
judge's failure;
anything else passes through, so a SIGPIPE stays what ``languages.interactive`` makes of it).
Its feedback directory is its own ``/tmp/`` (a tmpfs of the step's own; with the path separator
the format requires, so ``feedback_dir + "judgemessage.txt"`` names a file in it). The package's
validator arguments (``output_validator_args``, ``validator_flags``) follow it, each shell-quoted
into the step: they come from the package, never from the contestant.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

_EXITS = 'case $s in 42) exit 0;; 43) exit 1;; {one}0|1|2|4|8) exit 3;; *) exit "$s";; esac'
_MESSAGE = "[ -f /tmp/judgemessage.txt ] && head -c 400 /tmp/judgemessage.txt >&2"


def _quoted(args: Sequence[str]) -> str:
    return "".join(" " + shlex.quote(arg) for arg in args)


def checker_step(args: Sequence[str] = ()) -> str:
    """The checker's step: ``sh -c STEP checker <validator command>``."""
    return (
        # The case arrives framed on stdin as for a testlib checker (``sandboxed._SPLIT``).
        'read -r a b c || exit 3; head -c "$a" > /tmp/input.txt && head -c "$b" > /tmp/output.txt'
        ' && head -c "$c" > /tmp/answer.txt || exit 3; '
        f'"$@" /tmp/input.txt /tmp/answer.txt /tmp/{_quoted(args)} < /tmp/output.txt 1>&2; s=$?; '
        f"{_MESSAGE}; " + _EXITS.format(one="")
    )


CHECKER_STEP = checker_step()
"""The step without validator arguments."""


def interactor_step(python: bool, args: Sequence[str] = ()) -> str:
    """The interactor's step: ``sh -c STEP interactor <validator command> INPUT LOG ANSWER`` (the
    runner appends testlib's three files; the validator gets the input, the answer and ``/tmp``).

    A Python validator runs behind ``interactors``' guard, whose exit 1 means the contestant
    stopped reading or ended its output early (a rejection, kept); a compiled one's exit 1 is its
    own failure, as Kattis reads it."""
    keep = "1) exit 1;; " if python else ""
    return (
        'n=$(($# - 3)); i=0; for a do i=$((i + 1)); if [ "$i" -le "$n" ]; then set -- "$@" "$a"; '
        'elif [ "$i" -eq $((n + 1)) ]; then in=$a; elif [ "$i" -eq $((n + 3)) ]; then ans=$a; fi; done; '
        f'shift $((n + 3)); "$@" "$in" "$ans" /tmp/{_quoted(args)}; s=$?; ' + _EXITS.format(one=keep)
    )
