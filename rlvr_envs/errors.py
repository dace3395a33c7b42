"""The exception tree of rlvr-envs: every error the hub raises on purpose derives from ``RlvrEnvsError``.

Errors about *data* (a file, a row, a Hub download) are raised when an env is made or its tasks
are loaded, never while verifying model output: verification returns a ``Verdict`` instead.
"""

from __future__ import annotations


class RlvrEnvsError(Exception):
    """Base class of every error rlvr-envs raises on purpose."""


class DataError(RlvrEnvsError, ValueError):
    """A data row is unusable: a required column is missing, null or empty, or has the wrong type.

    The message names the source (file or dataset), the row number and the column, and the option
    that maps the user's own column names.
    """


class DataUnavailableError(RlvrEnvsError, RuntimeError):
    """The data of an environment cannot be had (offline, missing file, unreadable format)."""
