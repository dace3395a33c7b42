"""JSON schemas of tools from Python signatures, and the argument checker the episode uses.

``function_schema(fn)`` turns annotations and a Google-style docstring into the OpenAI function
schema (``{"name", "description", "parameters"}``); ``validate_arguments`` checks a call's
arguments against the subset of JSON schema that these schemas (and hand-written ones of the
same shape) use, so a call with wrong types is an error message to the model, never a crash in
the tool.
"""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["coerce_arguments", "function_schema", "parse_docstring", "python_type_schema", "validate_arguments"]

_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
_SECTION = re.compile(r"^(Args|Arguments|Parameters|Returns|Return|Yields|Raises|Examples?|Notes?|Attributes):\s*$")
_ARG_LINE = re.compile(r"^(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")


def python_type_schema(annotation: Any) -> tuple[dict[str, Any], bool]:
    """The JSON schema of one annotation, and whether it admits None (``X | None``)."""
    if annotation is inspect.Parameter.empty or annotation is Any:
        return {}, False
    if annotation is None or annotation is type(None):
        return {"type": "null"}, True
    if annotation in _SCALARS:
        return {"type": _SCALARS[annotation]}, False
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        rest = [a for a in args if a is not type(None)]
        optional = len(rest) < len(args)
        if len(rest) == 1:
            schema, _ = python_type_schema(rest[0])
            return schema, optional
        return {"anyOf": [python_type_schema(a)[0] for a in rest]}, optional
    if origin is typing.Literal:
        return {"enum": list(args)}, False
    if origin in (list, tuple, set, frozenset) or annotation in (list, tuple, set, frozenset):
        item = args[0] if args and (origin is not tuple or len(args) == 1 or args[-1] is Ellipsis) else None
        if origin is tuple and args and args[-1] is not Ellipsis:
            return {
                "type": "array",
                "prefixItems": [python_type_schema(a)[0] for a in args],
                "minItems": len(args),
            }, False
        return (
            {"type": "array", "items": python_type_schema(item)[0]} if item is not None else {"type": "array"}
        ), False
    if origin in (dict, Mapping) or annotation in (dict, Mapping):
        if args and args[0] is not str:
            raise TypeError(f"tool arguments: dict keys must be str (JSON objects), got {annotation!r}")
        value = python_type_schema(args[1])[0] if len(args) == 2 else {}
        return ({"type": "object", "additionalProperties": value} if value else {"type": "object"}), False
    raise TypeError(f"tool arguments: no JSON schema for the annotation {annotation!r}")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """(description, {argument: description}) from a Google-style docstring."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    summary: list[str] = []
    args: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    arg_indent: int | None = None
    for line in lines:
        stripped = line.strip()
        head = _SECTION.match(stripped)
        if head and (len(line) - len(line.lstrip())) == 0:
            section, current, arg_indent = head.group(1), None, None
            continue
        if section is None:
            summary.append(line)
            continue
        if section not in ("Args", "Arguments", "Parameters") or not stripped:
            continue
        indent = len(line) - len(line.lstrip())
        match = _ARG_LINE.match(stripped)
        if match and (arg_indent is None or indent <= arg_indent):
            arg_indent = indent
            current = match.group(1).lstrip("*")
            args[current] = match.group(3).strip()
        elif current is not None:
            args[current] = f"{args[current]} {stripped}".strip()
    # The description is the text before the first section, paragraphs joined.
    description = " ".join(" ".join(summary).split())
    return description, args


def function_schema(
    fn: Callable[..., Any], *, name: str | None = None, description: str | None = None
) -> dict[str, Any]:
    """``{"name", "description", "parameters"}`` for ``fn`` (see docs/episodes.md for the type table)."""
    try:
        hints = typing.get_type_hints(fn)
    except Exception as exc:
        raise TypeError(f"cannot read the annotations of {fn!r}: {exc}") from exc
    doc_description, arg_docs = parse_docstring(inspect.getdoc(fn))
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise TypeError(f"{fn.__name__}: *args/**kwargs cannot be described as tool arguments")
        if param.kind is param.POSITIONAL_ONLY:
            raise TypeError(f"{fn.__name__}: positional-only parameter {param.name!r}; tools are called by keyword")
        schema, optional = python_type_schema(hints.get(param.name, inspect.Parameter.empty))
        schema = _nullable(schema) if optional else dict(schema)
        if arg_docs.get(param.name):
            schema["description"] = arg_docs[param.name]
        if param.default is not param.empty and _json_literal(param.default):
            schema["default"] = param.default
        properties[param.name] = schema
        if param.default is param.empty and not optional:
            required.append(param.name)
    parameters: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        parameters["required"] = required
    return {
        "name": name or fn.__name__,
        "description": description if description is not None else doc_description,
        "parameters": parameters,
    }


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also admits null (an ``X | None`` parameter may be sent as null)."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return {**schema, "type": [kind, "null"]} if kind != "null" else dict(schema)
    if not schema:
        return {}
    return {"anyOf": [schema, {"type": "null"}]}


def _json_literal(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


# -- checking arguments ---------------------------------------------------------------------------
_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    # JSON has one number type: 3.0 is an integer to JSON schema; True is not a number.
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def validate_arguments(schema: Mapping[str, Any], arguments: Any, path: str = "arguments") -> str | None:
    """An error message for ``arguments`` against ``schema``, or None when they fit.

    Covers what tool schemas use: type (one or a list), properties, required,
    additionalProperties, items, prefixItems, enum, anyOf. Keywords it does not know are ignored
    (the tool's own checks come after).
    """
    if not isinstance(schema, Mapping):
        return None
    if "anyOf" in schema:
        if not any(validate_arguments(s, arguments, path) is None for s in schema["anyOf"]):
            return f"{path} matches none of the allowed forms"
    if "enum" in schema and not any(arguments == e and type(arguments) is type(e) for e in schema["enum"]):
        allowed = ", ".join(repr(e) for e in list(schema["enum"])[:10])
        return f"{path} must be one of {allowed}"
    wanted = schema.get("type")
    if wanted is not None:
        names = [wanted] if isinstance(wanted, str) else list(wanted)
        if not any(_TYPE_CHECKS.get(n, lambda v: True)(arguments) for n in names):
            return f"{path} must be of type {' or '.join(names)}, got {_json_type(arguments)}"
    if isinstance(arguments, dict):
        props = schema.get("properties", {})
        for key in schema.get("required", []):
            if key not in arguments:
                return f"{path}: missing required argument {key!r}"
        extra = schema.get("additionalProperties", True)
        for key, value in arguments.items():
            if key in props:
                err = validate_arguments(props[key], value, f"{path}.{key}" if path != "arguments" else key)
            elif extra is False:
                return f"{path}: unexpected argument {str(key)[:80]!r}"
            else:
                err = validate_arguments(extra, value, f"{path}.{key}") if isinstance(extra, Mapping) else None
            if err:
                return err
    if isinstance(arguments, list):
        prefix = schema.get("prefixItems")
        if prefix is not None and len(arguments) < schema.get("minItems", 0):
            return f"{path} needs {schema['minItems']} items, got {len(arguments)}"
        for i, value in enumerate(arguments):
            sub = prefix[i] if prefix is not None and i < len(prefix) else schema.get("items")
            err = validate_arguments(sub, value, f"{path}[{i}]") if sub is not None else None
            if err:
                return err
    return None


_JSON_TYPES: tuple[tuple[type, str], ...] = (
    (type(None), "null"),
    (bool, "boolean"),  # before int: True is an int to Python, not to JSON
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
    (dict, "object"),
)


def _json_type(value: Any) -> str:
    return next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), type(value).__name__)


def coerce_arguments(schema: Mapping[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    """Arguments that came as text (XML layouts) converted where the schema wants another type:
    a value is read as JSON only for a property whose type does not admit a string, and kept as
    it was when that fails (the check that follows then names the problem)."""
    props = schema.get("properties", {}) if isinstance(schema, Mapping) else {}
    out = dict(arguments)
    for key, value in arguments.items():
        sub = props.get(key)
        if not isinstance(value, str) or not isinstance(sub, Mapping):
            continue
        kind = sub.get("type")
        kinds = [kind] if isinstance(kind, str) else list(kind or [])
        if not kinds or "string" in kinds:
            continue
        try:
            out[key] = json.loads(value.strip()) if len(value) <= 100_000 else value
        except (ValueError, RecursionError):
            continue
    return out
