"""Small rows in the shapes of CodeContests, TACO, APPS and LiveCodeBench, written for these tests
(no row of the real sets): each set's own field names, enums and encodings."""

from __future__ import annotations

import base64
import json
import pickle
import zlib
from typing import Any

SUM_STATEMENT = "Given two integers a and b, print a + b.\n\nExample\nInput\n1 2\nOutput\n3\n"
SUM_PY = "a, b = map(int, input().split())\nprint(a + b)\n"
SUM_CPP = '#include <cstdio>\nint main(){long long a,b;scanf("%lld %lld",&a,&b);printf("%lld\\n",a+b);}\n'
HALF_STATEMENT = (
    "Print n / 3 for the given integer n.\n\nYour answer is accepted if its absolute or relative error "
    "does not exceed 10^{-6}.\n"
)
HALF_PY = "n = int(input())\nprint(n / 3)\n"


def codecontests_rows() -> list[dict[str, Any]]:
    return [
        {
            "name": "1_A. Sum",
            "description": SUM_STATEMENT,
            "public_tests": {"input": ["1 2\n"], "output": ["3\n"]},
            "private_tests": {"input": ["10 20\n", "-5 5\n"], "output": ["30\n", "0\n"]},
            "generated_tests": {"input": ["1000000000 1000000000\n"], "output": ["2000000000\n"]},
            "source": 2,
            "difficulty": 7,
            "solutions": {"language": [2, 3], "solution": [SUM_CPP, SUM_PY]},
            "incorrect_solutions": {"language": [], "solution": []},
            "cf_contest_id": 1,
            "cf_index": "A",
            "cf_points": 500.0,
            "cf_rating": 800,
            "cf_tags": ["implementation", "math"],
            "is_description_translated": False,
            "untranslated_description": "",
            "time_limit": {"seconds": 2, "nanos": 0},
            "memory_limit_bytes": 256000000,
            "input_file": "",
            "output_file": "",
        },
        {
            "name": "2_B. Third",
            "description": HALF_STATEMENT,
            "public_tests": {"input": ["1\n"], "output": ["0.333333333333\n"]},
            "private_tests": {"input": ["10\n", "7\n"], "output": ["3.3333333333\n", "2.33333333333\n"]},
            "generated_tests": {"input": [], "output": []},
            "source": 1,
            "difficulty": 0,
            "solutions": {"language": [3], "solution": [HALF_PY]},
            "time_limit": {"seconds": 1, "nanos": 500000000},
            "memory_limit_bytes": 256000000,
        },
    ]


def taco_rows() -> list[dict[str, Any]]:
    return [
        {
            "question": "Read n and print the numbers 1..n on one line.\n",
            "solutions": json.dumps(["n = int(input())\nprint(*range(1, n + 1))\n"]),
            "starter_code": "",
            "input_output": json.dumps({"inputs": ["3\n", "1\n"], "outputs": ["1 2 3\n", "1\n"]}),
            "difficulty": "EASY",
            "raw_tags": "['Implementation']",
            "name": None,
            "source": "codeforces",
            "tags": "['Implementation']",
            "skill_types": "[]",
            "url": "https://example.invalid/1",
            "Expected Auxiliary Space": None,
            "time_limit": "1 second",
            "date": None,
            "picture_num": "0",
            "memory_limit": "256 megabytes",
            "Expected Time Complexity": None,
        },
        {
            "question": "Return the sum of the list.\n",
            "solutions": json.dumps(["def total(xs):\n    return sum(xs)\n"]),
            "starter_code": "def total(xs):\n\t",
            "input_output": json.dumps({"fn_name": "total", "inputs": [[[1, 2, 3]], [[]]], "outputs": [[6], [0]]}),
            "difficulty": "MEDIUM",
            "source": "codewars",
            "tags": "[]",
            "time_limit": None,
        },
    ]


def apps_rows() -> list[dict[str, Any]]:
    return [
        {
            "problem_id": 4000,
            "question": "Print the maximum of the given integers.\n\n-----Example-----\nInput\n3\n1 5 2\n\nOutput\n5\n",
            "solutions": json.dumps(["input()\nprint(max(map(int, input().split())))\n"]),
            "input_output": json.dumps({"inputs": ["3\n1 5 2\n", "1\n-7\n"], "outputs": ["5\n", "-7\n"]}),
            "difficulty": "introductory",
            "url": "https://example.invalid/4000",
            "starter_code": "",
        },
        {
            "problem_id": 4001,
            "question": "Return the list reversed.\n",
            "solutions": json.dumps(["class Solution:\n    def rev(self, xs):\n        return xs[::-1]\n"]),
            "input_output": json.dumps({"fn_name": "rev", "inputs": [[[1, 2]], [[3]]], "outputs": [[[2, 1]], [[3]]]}),
            "difficulty": "interview",
            "url": "",
            "starter_code": "class Solution:\n    def rev(self, xs):\n        ",
        },
    ]


def lcb_compress(cases: list[dict[str, str]]) -> str:
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(cases)))).decode("ascii")


def livecodebench_rows() -> list[dict[str, Any]]:
    stdin_public = [{"input": "2 3\n", "output": "6\n", "testtype": "stdin"}]
    stdin_private = [{"input": "4 5\n", "output": "20\n", "testtype": "stdin"}]
    fn_public = [{"input": "[1, 2, 3]\n2", "output": "5", "testtype": "functional"}]
    fn_private = [{"input": "[4]\n1", "output": "4", "testtype": "functional"}]
    return [
        {
            "question_title": "Product",
            "question_content": "Print A times B.\n\nSample Input 1\n\n2 3\n\nSample Output 1\n\n6\n",
            "platform": "atcoder",
            "question_id": "abc001_a",
            "contest_id": "abc001",
            "contest_date": "2024-01-01T00:00:00",
            "starter_code": "",
            "difficulty": "easy",
            "public_test_cases": json.dumps(stdin_public),
            "private_test_cases": lcb_compress(stdin_private),
            "metadata": "{}",
        },
        {
            "question_title": "Sum of the k largest",
            "question_content": "Return the sum of the k largest numbers of nums.",
            "platform": "leetcode",
            "question_id": "3001",
            "contest_id": "weekly-1",
            "contest_date": "2024-01-02T00:00:00",
            "starter_code": "class Solution:\n    def largestSum(self, nums: List[int], k: int) -> int:\n        ",
            "difficulty": "medium",
            "public_test_cases": json.dumps(fn_public),
            "private_test_cases": lcb_compress(fn_private),
            "metadata": json.dumps({"func_name": "largestSum"}),
        },
    ]


PRESET_ROWS = {
    "code-contests-v1": codecontests_rows,
    "code-taco-v1": taco_rows,
    "code-apps-v1": apps_rows,
    "code-livecodebench-v1": livecodebench_rows,
}
"""Each contest preset's id and the rows it is tested on."""
