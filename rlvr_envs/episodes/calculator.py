"""The built-in ``calculator`` tool: arithmetic on an AST allow-list, safe in the env's process.

No code runs: the expression is parsed with ``ast`` and walked over an allow-list of node types,
operators and functions. Every bound is checked *before* the work it bounds (an exponent, a
product's size, a factorial's argument), so hostile input (``9**9**9**9``, ``10**10**10``,
a thousand nested parentheses, a huge literal) returns an error quickly and never hangs.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from typing import Any

from rlvr_envs.episodes.tools import ToolContext, ToolError, ToolSession
from rlvr_envs.python_ast import parse_expression

__all__ = ["MAX_EXPRESSION_CHARS", "MAX_INT_BITS", "CalculatorTool", "evaluate"]

MAX_EXPRESSION_CHARS = 500
MAX_NODES = 200
MAX_INT_BITS = 4096
MAX_FACTORIAL = 500
MAX_ROUND_DIGITS = 30
MAX_CALL_ARGS = 20

Number = int | float


def _check_int(value: int) -> int:
    if value.bit_length() > MAX_INT_BITS:
        raise ToolError(f"the result is too large (more than {MAX_INT_BITS} bits)")
    return value


def _check(value: Any) -> Number:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return _check_int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ToolError("the result is not a finite number")
        return value
    raise ToolError("the result is not a real number")


def _pow(base: Number, exp: Number) -> Number:
    if isinstance(base, int) and isinstance(exp, int) and exp >= 0:
        if abs(base) > 1 and (abs(base).bit_length() - 1) * exp > MAX_INT_BITS:
            raise ToolError(f"the result is too large (more than {MAX_INT_BITS} bits)")
        return base**exp
    if isinstance(exp, int) and abs(exp) > 100_000 and isinstance(base, int) and abs(base) > 1:
        return 0.0 if exp < 0 else math.inf  # exceeds float range; _check reports it
    return float(base) ** float(exp) if not isinstance(exp, int) else base**exp


def _mul(a: Number, b: Number) -> Number:
    if isinstance(a, int) and isinstance(b, int) and a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
        raise ToolError(f"the result is too large (more than {MAX_INT_BITS} bits)")
    return a * b


def _div(a: Number, b: Number) -> Number:
    if b == 0:
        raise ToolError("division by zero")
    if isinstance(a, int) and isinstance(b, int) and a % b == 0:
        return a // b
    return a / b


def _floordiv(a: Number, b: Number) -> Number:
    if b == 0:
        raise ToolError("division by zero")
    return a // b


def _mod(a: Number, b: Number) -> Number:
    if b == 0:
        raise ToolError("modulo by zero")
    return a % b


_BINOPS: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: _mul,
    ast.Div: _div,
    ast.FloorDiv: _floordiv,
    ast.Mod: _mod,
    ast.Pow: _pow,
}


def _sqrt(x: Number) -> Number:
    if x < 0:
        raise ToolError("sqrt of a negative number")
    if isinstance(x, int):
        root = math.isqrt(x)
        if root * root == x:
            return root
    return math.sqrt(x)


def _factorial(n: Number) -> Number:
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    if not isinstance(n, int) or n < 0:
        raise ToolError("factorial needs a non-negative integer")
    if n > MAX_FACTORIAL:
        raise ToolError(f"factorial is limited to n <= {MAX_FACTORIAL}")
    return math.factorial(n)


def _round(x: Number, ndigits: Number | None = None) -> Number:
    if ndigits is None:
        return round(x)
    if not isinstance(ndigits, int) or abs(ndigits) > MAX_ROUND_DIGITS:
        raise ToolError(f"round's digits must be an integer within +-{MAX_ROUND_DIGITS}")
    return round(x, ndigits)


def _log(x: Number, base: Number | None = None) -> Number:
    if x <= 0 or (base is not None and (base <= 0 or base == 1)):
        raise ToolError("log needs a positive argument (and a positive base other than 1)")
    return math.log(x) if base is None else math.log(x, base)


def _gcd(*args: Number) -> Number:
    if not all(isinstance(a, int) for a in args):
        raise ToolError("gcd needs integers")
    return math.gcd(*args)  # type: ignore[arg-type]


FUNCTIONS: dict[str, Callable[..., Number]] = {
    "abs": abs,
    "round": _round,
    "min": min,
    "max": max,
    "sqrt": _sqrt,
    "floor": math.floor,
    "ceil": math.ceil,
    "log": _log,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "factorial": _factorial,
    "gcd": _gcd,
}
CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}


def _eval(node: ast.AST) -> Number:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ToolError(f"only numbers are allowed, not {type(node.value).__name__}")
        return _check(node.value)
    if isinstance(node, ast.Name):
        if node.id not in CONSTANTS:
            raise ToolError(f"unknown name {node.id[:40]!r}; constants: {', '.join(CONSTANTS)}")
        return CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        value = _eval(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _eval(node.left), _eval(node.right)
        return _check(_BINOPS[type(node.op)](left, right))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        fn = FUNCTIONS.get(node.func.id)
        if fn is None:
            raise ToolError(f"unknown function {node.func.id[:40]!r}; functions: {', '.join(FUNCTIONS)}")
        if not node.args or len(node.args) > MAX_CALL_ARGS or any(isinstance(a, ast.Starred) for a in node.args):
            raise ToolError(f"{node.func.id} takes 1 to {MAX_CALL_ARGS} plain arguments")
        args = [_eval(a) for a in node.args]
        try:
            return _check(fn(*args))
        except TypeError:
            raise ToolError(f"wrong number or kind of arguments to {node.func.id}") from None
    raise ToolError(f"{type(node).__name__} is not allowed; use numbers, + - * / // % **, parentheses and functions")


def evaluate(expression: str) -> Number:
    """The value of ``expression``; ``ToolError`` saying what is wrong otherwise. Never hangs."""
    if not isinstance(expression, str):
        raise ToolError("the expression must be a string")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ToolError(f"the expression is longer than {MAX_EXPRESSION_CHARS} characters")
    text = expression.strip().replace("^", "**").replace("×", "*").replace("÷", "/").replace("−", "-")
    if not text:
        raise ToolError("the expression is empty")
    try:
        tree = parse_expression(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:
        raise ToolError(f"cannot parse the expression ({type(exc).__name__})") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise ToolError(f"the expression has more than {MAX_NODES} parts")
    try:
        return _eval(tree)
    except ToolError:
        raise
    except (ArithmeticError, ValueError, RecursionError) as exc:
        raise ToolError(f"{type(exc).__name__}: {str(exc)[:100]}") from None


def format_number(value: Number) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value)) if abs(value) >= 1 or value == 0 else repr(value)
    return str(value) if isinstance(value, int) else repr(value)


class _CalculatorSession:
    def call(self, **arguments: Any) -> str:
        return format_number(evaluate(arguments.get("expression", "")))

    def close(self) -> None:
        return None


class CalculatorTool:
    """Stateless safe arithmetic (see the module docstring for the bounds)."""

    name = "calculator"
    description = (
        "Evaluate an arithmetic expression exactly (integers of any size up to 4096 bits) and return its value. "
        "Supports + - * / // % ** and parentheses, the functions "
        + ", ".join(FUNCTIONS)
        + ", and the constants pi and e."
    )
    parameters: dict[str, Any] = {  # noqa: RUF012 (the Tool protocol's attribute)
        "type": "object",
        "properties": {
            "expression": {
                "type": "string",
                "description": "The expression to evaluate, e.g. '(123 * 456) - 7**3'.",
            }
        },
        "required": ["expression"],
        "additionalProperties": False,
    }

    def open(self, context: ToolContext) -> ToolSession:
        return _CalculatorSession()
