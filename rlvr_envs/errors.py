"""The exception tree of rlvr-envs: every error the hub raises on purpose derives from ``RlvrEnvsError``.

Errors about *data* (a file, a row, a Hub download) are raised when an env is made or its tasks
are loaded, never while verifying model output: verification returns a ``Verdict`` instead.
Each class also derives from the built-in a caller would naturally catch (``KeyError`` for an
unknown id, ``ValueError`` for a bad row, ``ImportError`` for a plugin that does not import), so
code written against the built-ins keeps working. The other modules' public exceptions (the
server's ``BadRequest``, the samplers' ``SamplerError``, each family's own) derive from
``RlvrEnvsError`` too: ``except RlvrEnvsError`` catches everything the hub raises on purpose
(``tests/test_core_errors.py`` checks every class in every package).

```
RlvrEnvsError
├── DataError (ValueError)                    a data row is unusable
├── DataUnavailableError (RuntimeError)       the data cannot be had (offline, missing file)
│   └── DataRequiredError                     an id for the user's own data made without data=
├── RegistryError
│   ├── UnknownEnvError (KeyError)            no environment has this name
│   │   └── UnknownVersionError               the name exists, not at this version
│   ├── PluginLoadError (ImportError)         a plugin or an entry point did not load
│   └── RegistrationError (ValueError)        a malformed or conflicting registration
└── ConfigurationError (ValueError)           an option an env does not accept (bad level, band...)
```
"""

from __future__ import annotations

__all__ = [
    "ConfigurationError",
    "DataError",
    "DataRequiredError",
    "DataUnavailableError",
    "DeprecatedEnvWarning",
    "PluginLoadError",
    "RegistrationError",
    "RegistryError",
    "RlvrEnvsError",
    "SampleExhaustedWarning",
    "UnknownEnvError",
    "UnknownVersionError",
]


class RlvrEnvsError(Exception):
    """Base class of every error rlvr-envs raises on purpose."""


class DataError(RlvrEnvsError, ValueError):
    """A data row is unusable: a required column is missing, null or empty, or has the wrong type.

    The message names the source (file or dataset), the row number and the column, and the option
    that maps the user's own column names.
    """


class DataUnavailableError(RlvrEnvsError, RuntimeError):
    """The data of an environment cannot be had (offline, missing file, unreadable format)."""


class ConfigurationError(RlvrEnvsError, ValueError):
    """An option the environment (or a filter, a curriculum) does not accept."""


class DataRequiredError(DataUnavailableError):
    """An env id for the user's own data (``math-v0``, ``code-python-v0``, ``lean-v0``, ``judge-v0``,
    ``ifeval-data-v0``) was made without ``data=``.

    One class for every family, a kind of ``DataUnavailableError``: the env has no data to pose
    tasks from, and the message names the option (``data=``) that gives it some, as for a preset
    whose download is not available.
    """


class RegistryError(RlvrEnvsError):
    """Base class of registry errors."""


class UnknownEnvError(RegistryError, KeyError):
    """No environment has this name."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class UnknownVersionError(UnknownEnvError):
    """The name exists but not at this version."""


class PluginLoadError(RegistryError, ImportError):
    """A plugin family (or an entry point of one) could not be loaded."""


class RegistrationError(RegistryError, ValueError):
    """A malformed or conflicting registration."""


class DeprecatedEnvWarning(UserWarning):
    """The requested environment version is deprecated."""


class SampleExhaustedWarning(UserWarning):
    """``sample(n)`` asked for more tasks than the env holds: every task was drawn, then some again."""
