"""Shared checks on data rows, used by every family's loaders.

A row whose prompt or answer is missing or null must never become a task: stringifying ``None``
gives the answer ``'None'``, and then ``\\boxed{None}`` earns the reward while a correct answer
scores 0. ``require_fields`` refuses such rows with the source, row and column named.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from rlvr_envs.errors import DataError


def is_missing(value: Any) -> bool:
    """True for values that mean "no data": None, NaN (pandas/Parquet nulls), blank strings."""
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    if isinstance(value, str) and not value.strip():
        return True
    return False


def require_fields(
    row: Mapping[str, Any],
    columns: Mapping[str, str],
    *,
    source: str,
    row_number: int,
    mapping_hint: str | None = None,
) -> dict[str, Any]:
    """The values of ``columns`` (role -> column name) in ``row``, or a ``DataError``.

    ``row_number`` is 1-based as a person counts lines in a file. ``mapping_hint`` names the option
    that maps columns (for instance ``"answer_key="``) and is added to the message.
    """
    if not isinstance(row, Mapping):
        raise DataError(f"{source} row {row_number}: expected an object with columns, got {type(row).__name__}")
    values: dict[str, Any] = {}
    for role, column in columns.items():
        hint = f"; map your own column with {mapping_hint}" if mapping_hint else ""
        if column not in row:
            present = sorted(str(k) for k in row)[:20]
            raise DataError(
                f"{source} row {row_number}: no column {column!r} for the {role} (columns: {present}){hint}"
            )
        value = row[column]
        if is_missing(value):
            shown = "null" if value is None or isinstance(value, float) else "empty"
            raise DataError(f"{source} row {row_number}: the {role} column {column!r} is {shown}{hint}")
        values[role] = value
    return values
