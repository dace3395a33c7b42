"""Programs of the interactive and file-I/O contest tests: guess-the-number (an interactor in
Python and in C++, contestants right and wrong in both) and a+b through input.txt/output.txt."""

from __future__ import annotations

from typing import Any

import pytest

from rlvr_envs.types import Task


def need(language: str) -> None:
    """Skip the test where the language's toolchain is missing (Python's always runs)."""
    if language == "python":
        return
    from rlvr_code.languages import LANGUAGES
    from rlvr_code.languages.runner import toolchain_error

    if toolchain_error(LANGUAGES[language]):
        pytest.skip(f"{language} toolchain missing")


def fence(language: str, code: str) -> str:
    return f"```{language}\n{code}\n```"


INTERACTOR_PY = r"""
import sys
n = int(open(sys.argv[1]).read().split()[0])
for _ in range(25):
    line = sys.stdin.readline()
    if not line:
        print("unexpected end of the contestant's output", file=sys.stderr)
        sys.exit(1)
    parts = line.split()
    if len(parts) != 2 or parts[0] not in ("?", "!") or not parts[1].lstrip("-").isdigit():
        sys.exit(2)
    x = int(parts[1])
    if parts[0] == "!":
        sys.exit(0 if x == n else 1)
    print("<" if n < x else ">" if n > x else "=", flush=True)
print("too many queries", file=sys.stderr)
sys.exit(1)
"""

INTERACTOR_CPP = r"""
#include <cstdio>
#include <cstring>
int main(int argc, char** argv) {
    FILE* f = std::fopen(argv[1], "r");
    long n;
    if (!f || std::fscanf(f, "%ld", &n) != 1) return 3;
    char op[8];
    long x;
    for (int q = 0; q < 25; q++) {
        if (std::scanf("%7s %ld", op, &x) != 2) { std::fprintf(stderr, "unexpected end\n"); return 1; }
        if (std::strcmp(op, "!") == 0) return x == n ? 0 : 1;
        if (std::strcmp(op, "?") != 0) return 2;
        std::printf("%s\n", n < x ? "<" : n > x ? ">" : "=");
        std::fflush(stdout);
    }
    std::fprintf(stderr, "too many queries\n");
    return 1;
}
"""

RIGHT = {
    "python": r"""
lo, hi = 1, 10**6
while True:
    mid = (lo + hi) // 2
    print("?", mid, flush=True)
    r = input().strip()
    if r == "=":
        print("!", mid, flush=True)
        break
    if r == "<":
        hi = mid - 1
    else:
        lo = mid + 1
""",
    "cpp": r"""
#include <cstdio>
int main() {
    long lo = 1, hi = 1000000;
    char r[4];
    while (true) {
        long mid = (lo + hi) / 2;
        std::printf("? %ld\n", mid);
        std::fflush(stdout);
        if (std::scanf("%3s", r) != 1) return 0;
        if (r[0] == '=') { std::printf("! %ld\n", mid); std::fflush(stdout); return 0; }
        if (r[0] == '<') hi = mid - 1; else lo = mid + 1;
    }
}
""",
}

WRONG = {
    # linear search: out of queries for any number above 25
    "python": 'for x in range(1, 26):\n    print("?", x, flush=True)\n    if input().strip() == "=":\n'
    '        print("!", x, flush=True)\n        break\n',
    # answers at once, a wrong number
    "cpp": '#include <cstdio>\nint main() { std::printf("! 1\\n"); return 0; }\n',
}

HIDDEN = ["777777\n", "1\n", "1000000\n", "31337\n"]


def interactive_task(interactor_language: str, contestant: str | list[str], **interactor: Any) -> dict[str, Any]:
    source = INTERACTOR_PY if interactor_language == "python" else INTERACTOR_CPP
    return {
        "format": "stdio",
        "language": contestant,
        "cases": [{"input": n, "output": ""} for n in HIDDEN],
        "interactor": {"language": interactor_language, "source": source, **interactor},
    }


FILE_IO = {
    "python": 'a, b = map(int, open("input.txt").read().split())\nopen("output.txt", "w").write(f"{a + b}\\n")\n',
    "cpp": '#include <cstdio>\nint main() { freopen("input.txt", "r", stdin); freopen("output.txt", "w", stdout);\n'
    '  long a, b; std::scanf("%ld %ld", &a, &b); std::printf("%ld\\n", a + b); }\n',
}
STDIO = {
    "python": "a, b = map(int, input().split())\nprint(a + b)\n",
    "cpp": '#include <cstdio>\nint main() { long a, b; std::scanf("%ld %ld", &a, &b); std::printf("%ld\\n", a + b); }\n',
}
FILE_CASES = [{"input": "1 2\n", "output": "3\n"}, {"input": "40 2\n", "output": "42\n"}]


BROKEN_INTERACTOR = """import sys
n = int(open(sys.argv[1]).read().split()[0])
raise RuntimeError("the interactor's own bug: it fails before reading anything")
"""
"""An interactor that fails before it reads anything: its own failure, whatever the program does."""


def guess_task(interactor: str, reference: str | None = None, task_id: str = "guess") -> Task:
    """Guess-the-number (secrets 5 and 777) judged by ``interactor``, with a reference where given."""
    answer: dict[str, Any] = {
        "format": "stdio",
        "language": "python",
        "cases": [{"input": "5\n", "output": ""}, {"input": "777\n", "output": ""}],
        "interactor": {"language": "python", "source": interactor},
    }
    if reference is not None:
        answer["canonical_solution"] = reference
    return Task(id=task_id, prompt="Guess the number.", answer=answer)
