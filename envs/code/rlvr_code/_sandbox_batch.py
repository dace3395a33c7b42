"""Straight-line asserts in one round trip: which calls the judge may send ahead, and how.

Part of the judge harness (sent after ``_sandbox_warm`` and before ``_sandbox_link``). Each call
a test makes to the solution used to be its own round trip (judge -> solution -> judge: two
wake-ups). For a run of consecutive asserts such as ``assert candidate([1, 2]) == 3`` the
judge knows every call before the first one is made, so it sends them together; the solution
runs them **in the same order** and answers each as soon as it returns, and the judge then
executes each assert as before, taking each call's answer from the stream instead of asking.

The solution therefore sees the same calls in the same order as without batching, provided
the judge would have made exactly those calls, and nothing else in between. An assert is
taken into a batch only when that holds whatever the solution answers:

* its condition makes exactly one call to the solution (the checked function, by its name),
  with literal arguments only;
* nothing evaluated before that call can raise or reach the solution (only constants and
  builtin names come before it), and nothing after it can reach the solution *unless* the
  answer is an object that stays in the solution: then the solution ends the batch right
  there (it runs no further call) and the judge asks for the rest one by one, as before;
* every other name in it is a builtin that the task does not hand to the solution and that
  neither the tests, the setup nor the prompt rebind (checked again when the batch is sent);
* the assert's message, when it has one, is a constant.

Failing asserts, exceptions and timeouts inside a batch are reported exactly as before: every
assert still runs in the judge and is reported on its own. Should the judge ever make a
request other than the next one it sent ahead, it reports ``batch diverged`` instead of a
verdict, and the host runs the sample again without batching.
"""

# -- wire imports (stripped in the sandbox) --
from __future__ import annotations

# -- end wire imports --

SAFE_BUILTINS = frozenset(
    {
        "abs",
        "all",
        "any",
        "bool",
        "bytes",
        "chr",
        "complex",
        "dict",
        "divmod",
        "enumerate",
        "float",
        "frozenset",
        "hash",
        "int",
        "isinstance",
        "len",
        "list",
        "max",
        "min",
        "ord",
        "range",
        "repr",
        "reversed",
        "round",
        "set",
        "sorted",
        "str",
        "sum",
        "tuple",
        "type",
        "zip",
    }
)
"""Builtins a batched assert may apply to the answer: pure functions of plain data."""
MIN_BATCH = 2


def _nodes(tree) -> list:
    """Every node under ``tree``, itself first, in ``ast.walk``'s order (breadth first), as a list:
    one pass over plain lists instead of a generator of generators (``ast.walk`` was a third of
    compiling a HumanEval test, which a warm judge does for every task it meets)."""
    import ast

    found = [tree]
    for node in found:  # the list grows as it is read: breadth first, like ``ast.walk``'s queue
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                found.append(value)
            elif isinstance(value, list):
                found.extend(item for item in value if isinstance(item, ast.AST))
    return found


def _located(ref, *nodes) -> None:
    """Give new nodes ``ref``'s position, as ``ast.fix_missing_locations`` would (a node without
    one takes its parent's), without walking the rest of the tree."""
    for node in nodes:
        if "lineno" in node._attributes:
            node.lineno, node.col_offset = ref.lineno, ref.col_offset
            node.end_lineno, node.end_col_offset = ref.end_lineno, ref.end_col_offset


def _literal(node) -> tuple[bool, object]:
    import ast

    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False, None
    if any(isinstance(n, ast.Set) for n in _nodes(node)):
        # A set's iteration order depends on how it was built: ``literal_eval`` adds the items
        # one by one, the compiled test updates an empty set from a folded frozenset constant
        # (another table size), and the batch is checked against the call as wired, in that
        # order ({12, ..., 16}: MBPP/341 diverged on every sample, a worker killed each time).
        # Built here by the same compiled code; what is a literal is settled above.
        try:
            value = eval(compile(ast.Expression(node), "<literal>", "eval"), {"__builtins__": {}})
        except Exception:
            pass  # ``set()``: literal_eval's own spelling, the same either way
    return True, value


def _inert(node) -> bool:
    """Evaluating ``node`` can neither raise nor reach the solution (before the batched call)."""
    import ast

    if isinstance(node, ast.Name):
        return node.id in SAFE_BUILTINS
    return _literal(node)[0]


def _children_in_order(node) -> list:
    import ast

    if isinstance(node, ast.Compare):
        return [node.left, *node.comparators]
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.Call):
        return [node.func, *node.args, *(k.value for k in node.keywords)]
    if isinstance(node, ast.Subscript):
        return [node.value, node.slice]
    if isinstance(node, ast.Attribute):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return list(node.elts)
    if isinstance(node, ast.Dict):
        out = []
        for key, value in zip(node.keys, node.values):
            out += [key, value] if key is not None else [value]
        return out
    if isinstance(node, ast.Slice):
        return [n for n in (node.lower, node.upper, node.step) if n is not None]
    return []


_ALLOWED = (
    "Compare",
    "BinOp",
    "UnaryOp",
    "Call",
    "Subscript",
    "Attribute",
    "Tuple",
    "List",
    "Set",
    "Dict",
    "Slice",
    "Name",
    "Constant",
    "Load",
    "keyword",
)


def batchable_call(test, callee: str | None, solution_names: frozenset) -> tuple[str, tuple, dict, set] | None:
    """``(callee, args, kwargs, builtin names used)`` when the assert condition ``test`` qualifies.

    ``callee`` is the name of the solution's function (HumanEval's ``candidate``); None means any
    name in ``solution_names`` (MBPP's tests call the function by its own name).
    """
    import ast

    calls, names, ok = [], set(), True
    nodes = _nodes(test)
    for node in nodes:
        if type(node).__name__ not in _ALLOWED and not isinstance(node, (ast.operator, ast.cmpop, ast.unaryop)):
            return None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id not in SAFE_BUILTINS:
            calls.append(node)
        elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            return None
    if len(calls) != 1:
        return None
    call = calls[0]
    name = str(getattr(call.func, "id", ""))
    if (callee is not None and name != callee) or (callee is None and name not in solution_names):
        return None
    for node in nodes:
        if isinstance(node, ast.Name) and node is not call.func:
            if node.id not in SAFE_BUILTINS:
                ok = False
            names.add(node.id)
        elif isinstance(node, ast.Call) and node is not call and not isinstance(node.func, (ast.Name, ast.Attribute)):
            ok = False
    if not ok or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    args = []
    for arg in call.args:
        good, value = _literal(arg)
        if not good:
            return None
        args.append(value)
    kwargs = {}
    for keyword in call.keywords:
        good, value = _literal(keyword.value)
        if not good:
            return None
        kwargs[keyword.arg] = value
    # Nothing evaluated before the call may raise: walk the path from the root to the call.
    node = test
    while node is not call:
        children = _children_in_order(node)
        on_path = next((c for c in children if any(d is call for d in _nodes(c))), None)
        if on_path is None:
            return None
        for child in children[: children.index(on_path)]:
            if not _inert(child):
                return None
        node = on_path
    return name, tuple(args), kwargs, names


def assert_runs(statements: list, callee: str | None, solution_names: frozenset, bound: set) -> list[tuple]:
    """Runs of consecutive batchable asserts: ``[(index of the first, [(name, args, kwargs)], names)]``.

    ``bound`` holds names the code around the asserts assigns (they are not builtins there).
    """
    import ast

    runs: list[tuple] = []
    current: list[tuple] = []
    first: int | None = None
    names: set[str] = set()

    def close() -> None:
        nonlocal current, first, names
        if len(current) >= MIN_BATCH:
            runs.append((first, current, names))
        current, first, names = [], None, set()

    for index, statement in enumerate(statements):
        found = None
        if isinstance(statement, ast.Assert) and (statement.msg is None or isinstance(statement.msg, ast.Constant)):
            found = batchable_call(statement.test, callee, solution_names)
        if found is None or found[3] & bound:
            close()
            continue
        if first is None:
            first = index
        current.append(found[:3])
        names |= found[3]
    close()
    return runs


def bound_names(nodes: list) -> set:
    """Every name a piece of code (its ``_nodes``) assigns, defines, imports or declares anywhere in it."""
    import ast

    found = set()
    for node in nodes:
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found.update(node.names)
    return found


def asserts_runs(tests: list, solution_names: frozenset) -> dict:
    """The batches of an ``asserts`` task: {index of the first test: (calls, builtin names)}."""
    import ast

    statements = []
    for test in tests:
        try:
            tree = ast.parse(test)
        except (SyntaxError, ValueError):
            tree = None
        statements.append(tree.body[0] if tree is not None and len(tree.body) == 1 else None)
    return {first: (calls, names) for first, calls, names in assert_runs(statements, None, solution_names, set())}


def humaneval_test_code(test: str) -> tuple[object, list]:
    """A HumanEval test module compiled with each ``assert`` turned into a call of
    ``__rlvr_record__(lambda: <condition>, line, source)``, so every assert is reported, and
    ``__rlvr_batch__(candidate, n)`` before each run of asserts whose calls go in one batch."""
    import ast

    source_lines = test.splitlines()
    tree = ast.parse(test)
    runs: list = []
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name == "check" and node.args.args):
            continue
        param = node.args.args[0].arg
        nodes = _nodes(node)
        if any(isinstance(n, ast.Name) and n.id == param and not isinstance(n.ctx, ast.Load) for n in nodes):
            continue  # the tests rebind the function: no batches
        found = assert_runs(node.body, param, frozenset(), bound_names(nodes))
        base = len(runs)
        runs.extend((calls, names) for _, calls, names in found)
        for offset in range(len(found) - 1, -1, -1):
            first = found[offset][0]
            parts = [ast.Name("__rlvr_batch__", ast.Load()), ast.Name(param, ast.Load()), ast.Constant(base + offset)]
            call = ast.Call(parts[0], parts[1:], [])
            statement = ast.Expr(call)
            _located(node.body[first], statement, call, *parts)
            node.body.insert(first, statement)

    class AssertToRecord(ast.NodeTransformer):
        def visit_Assert(self, node: ast.Assert) -> ast.AST:
            line = source_lines[node.lineno - 1].strip() if node.lineno <= len(source_lines) else ""
            parts = [
                ast.Name("__rlvr_record__", ast.Load()),
                ast.Lambda(ast.arguments([], [], None, [], [], None, []), node.test),
                ast.Constant(node.lineno),
                ast.Constant(line),
            ]
            call = ast.Call(func=parts[0], args=parts[1:], keywords=[])
            statement = ast.Expr(call)
            _located(node, statement, call, *parts)
            return statement

    tree = AssertToRecord().visit(tree)
    return compile(tree, "<test>", "exec"), runs
