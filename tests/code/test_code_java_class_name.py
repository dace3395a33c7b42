"""A Java answer runs whatever its class is called, as a judge runs it (a false negative fixed).

The runner saved every Java answer as ``Main.java`` and ran ``Main``: a right program declaring
``public class Solution`` (Kattis names the file after the class; Codeforces takes any name) was a
compile error. The file and the class run are now named after the program's own class.
"""

from __future__ import annotations

import shutil

import pytest

from rlvr_code.languages import LANGUAGES
from rlvr_code.languages.spec import entry_class
from rlvr_envs.types import Task
from tests.code.languages_cases import PROBLEMS, fenced_in


@pytest.mark.parametrize(
    ("source", "name"),
    [
        ("public class Solution { public static void main(String[] a) {} }", "Solution"),
        (
            "import java.util.*;\npublic final class Kattis_1$x {\n static public void main(String[] a){} }",
            "Kattis_1$x",
        ),
        ("class Helper {}\nclass Runner { public static void main(String[] args) {} }\nclass After {}", "Runner"),
        (
            "// public class Fake\n/* public class Fake2 */ class Main { public static void main(String[] a) {} }",
            "Main",
        ),
        ("class A { static final int X = 1; }\nclass B {\n  public static void main(String... a) {} }", "B"),
        ("public record Point(int x) {}\nclass Main { public static void main(String[] a) {} }", "Main"),
        ("no classes at all", None),
        ("", None),
        ("public class " + "A" * 5000, None),
    ],
)
def test_entry_class(source, name):
    assert entry_class(source) == name


def test_the_language_is_renamed_only_where_needed():
    java = LANGUAGES["java"]
    assert java.for_source("public class Main { }") is java
    renamed = java.for_source("public class Solution { public static void main(String[] a) {} }")
    assert renamed.source == "Solution.java" and renamed.run[-1] == "Solution" and "Main" not in renamed.run
    assert LANGUAGES["cpp"].for_source("public class Solution {}") is LANGUAGES["cpp"]
    # A public record in Point.java, the program run from the class declaring main.
    both = java.for_source("public record Point(int x) {}\nclass Go { public static void main(String[] a) {} }")
    assert both.source == "Point.java" and both.run[-1] == "Go"


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap missing")
@pytest.mark.parametrize(
    ("program", "reward"),
    [
        (
            "import java.util.*;\npublic class Solution {\n  public static void main(String[] args) {\n"
            "    Scanner s = new Scanner(System.in); long a = s.nextLong(), b = s.nextLong();\n"
            "    System.out.println(a + b);\n  }\n}\n",
            1.0,
        ),
        (
            "import java.util.*;\nclass Helper { static long add(long a, long b) { return a + b; } }\n"
            "class Go {\n  public static void main(String[] args) {\n    Scanner s = new Scanner(System.in);\n"
            "    System.out.println(Helper.add(s.nextLong(), s.nextLong()));\n  }\n}\n",
            1.0,
        ),
        ("public class Solution { public static void main(String[] a) { System.out.println(3); } }", 0.0),
        (
            "import java.util.*;\npublic record Pair(long a, long b) { long sum() { return a + b; } }\n"
            "class Main {\n  public static void main(String[] args) {\n    Scanner s = new Scanner(System.in);\n"
            "    System.out.println(new Pair(s.nextLong(), s.nextLong()).sum());\n  }\n}\n",
            1.0,
        ),
    ],
)
def test_a_java_program_named_otherwise_is_judged(program, reward):
    from rlvr_code.languages.runner import toolchain_error
    from rlvr_code.verifier import CodeVerifier

    if toolchain_error(LANGUAGES["java"]):
        pytest.skip("java toolchain missing")
    task = Task(id="ab", prompt="ab", answer={"format": "stdio", "language": "java", "cases": PROBLEMS["a_plus_b"]})
    verdict = CodeVerifier(timeout_s=30.0, case_timeout_s=8.0).verify(task, fenced_in("java", program))
    assert verdict.reward == reward, verdict.details
