"""The warm judge: one judge process serves sample after sample, checked clean between them.

Part of the judge harness (sent after ``_sandbox_stdio`` and before ``_sandbox_judge``). A fork
per sample cost more CPU than the sample's own tests (the fork, then copy-on-write faults on
every page the judge touched, then tearing the copy down); a judge that stays up pays that once.

What one sample's tests could leave behind in the judge's interpreter must not reach the next
sample, so that every sample is judged as if by a fresh fork of the zygote:

* reset before each sample: the ``random`` seed (a fork reseeds it from the OS, so does this),
  the ``decimal`` context, the recursion limit, the int-to-string digit limit, the working
  directory and the umask;
* compared after each sample with the state captured when the judge started: the set of loaded
  modules, every module's namespace (by identity: a dictionary comparison per module, skipped
  for a namespace not written to since, which its version tag tells: ``_sandbox_wire.version_tag_reader``),
  builtins, the environment, ``sys.path`` and import hooks, tracing and profiling hooks, the
  collector's settings, signal handlers and interval timers, open descriptors, threads, child
  processes and the resident memory. On any difference the judge exits after reporting the
  sample, and the next sample gets a freshly forked judge.

The judge never runs untrusted code (the solution's values arrive as plain data), so what can
change here is what the task's own tests do; a solution's module handed to the tests is the
judge's copy, and setting an attribute on it shows as a changed module namespace.
"""

# -- wire imports (stripped in the sandbox) --
from __future__ import annotations

import os
import sys

from rlvr_code._sandbox_wire import version_tag_reader

# -- end wire imports --

MAX_SAMPLES_PER_JUDGE = 1000
"""A warm judge is replaced after this many samples anyway (bounds slow growth nobody checks)."""
MAX_RESIDENT_GROWTH = 256 << 20
CACHE_ENTRIES = 512


class CleanState:
    """The judge interpreter's state as a fresh fork of the zygote has it (see the module docstring)."""

    def __init__(self) -> None:
        import builtins
        import decimal
        import gc
        import random
        import signal

        # The modules ``reset`` and ``changed`` use, kept here: an ``import`` statement per sample
        # in them cost a lookup and the module's spec consulted each time, for the same module.
        self.decimal, self.random, self.gc_module, self.signal = decimal, random, gc, signal
        self.signal_calls = self._signal_calls(signal)
        self.tag = version_tag_reader()
        # name -> [module, its namespace's copy, the namespace's version tag, the tag's value]
        self.modules = {
            name: self._record(module)
            for name, module in list(sys.modules.items())
            if module is not None and hasattr(module, "__dict__")
        }
        self.module_names = set(sys.modules)
        self.builtins = self._record(builtins)
        self.environ = self._environ()
        self.path = (list(sys.path), list(sys.meta_path), list(sys.path_hooks), dict(sys.path_importer_cache))
        self.recursion_limit = sys.getrecursionlimit()
        self.digits = sys.get_int_max_str_digits()
        self.decimal_context = decimal.getcontext().copy()
        self.cwd = os.getcwd()
        self.umask = os.umask(0o077)
        os.umask(self.umask)
        self.gc = (gc.isenabled(), gc.get_threshold())
        self.signals = self._signals(signal, self.signal_calls)
        # Kept open (and so among the descriptors recorded next): read in place after each sample
        # instead of a path walk, an open and a close each time.
        try:
            self.statm: int | None = os.open("/proc/self/statm", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self.statm = None
        # This PID namespace's last allocated pid, kept open like ``statm`` (``strays``).
        try:
            self.last_pid: int | None = os.open("/proc/sys/kernel/ns_last_pid", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            self.last_pid = None
        self.quiet_at: bytes | None = None  # its value when a look last found no stray process
        self.fds = self._fds()
        self.resident = self._resident()

    def _record(self, module: object) -> list:
        namespace = vars(module)
        # Only a real dict has the tag (an object in ``sys.modules`` may be a class, whose
        # ``vars`` is a mapping proxy): anything else is compared in full every time.
        tag = self.tag(namespace) if self.tag is not None and type(namespace) is dict else None
        return [module, dict(namespace), tag, tag.value if tag is not None else None]

    @staticmethod
    def _unchanged(record: list) -> bool:
        """Whether a module's namespace holds what it held at start (the same objects)."""
        tag = record[2]
        if tag is not None and tag.value == record[3]:
            return True  # not written to since: no need to compare thousands of entries
        if vars(record[0]) != record[1]:
            return False
        # Written to, yet back as it was (an attribute set and restored): the same verdict as
        # before; the new tag saves the comparison next time.
        if tag is not None:
            record[3] = tag.value
        return True

    @staticmethod
    def _environ() -> object:
        # ``os.environ`` is a view of this dict of bytes (decoded on each access): comparing it
        # directly is the same comparison as of ``dict(os.environ)``, without decoding it all.
        data = getattr(os.environ, "_data", None)
        return dict(data) if type(data) is dict else dict(os.environ)

    @staticmethod
    def _signal_calls(signal) -> tuple:
        # ``_signal``'s functions are what ``signal``'s return before wrapping each value in an
        # enum (the wrapping was most of the clean-state check's time); equal values either way.
        try:
            import _signal

            return _signal.getsignal, _signal.valid_signals
        except (ImportError, AttributeError):
            return signal.getsignal, signal.valid_signals

    @staticmethod
    def _signals(signal, calls: tuple | None = None) -> list:
        # ``calls``: ``_signal_calls``' answer, kept by the caller (no import on each sample's path).
        getsignal, valid = calls or CleanState._signal_calls(signal)
        handlers = []
        for number in sorted(valid()):
            try:
                handlers.append(getsignal(number))
            except (OSError, ValueError):
                handlers.append(None)
        return handlers

    @staticmethod
    def _fds() -> list[str]:
        return sorted(os.listdir("/proc/self/fd"))

    def _resident(self) -> int:
        try:
            if self.statm is not None:
                data = os.pread(self.statm, 256, 0)
            else:
                with open("/proc/self/statm", "rb") as fh:
                    data = fh.read()
            return int(data.split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            return 0

    @staticmethod
    def _threads() -> int:
        """Threads of this process: procfs counts them in its task directory's link count (two
        plus one a thread), one ``stat`` instead of listing the directory; the listing where
        that count is not there to read."""
        try:
            links = os.stat("/proc/self/task").st_nlink
        except OSError:
            links = 0
        return links - 2 if links >= 3 else len(os.listdir("/proc/self/task"))

    def strays(self, keep: set[int]) -> bool:
        """Whether a process other than ``keep`` and bubblewrap's init is in this PID namespace.

        Every process created in the namespace (or in one nested in it) takes the next pid, which
        ``ns_last_pid`` shows, and nothing here can set it (no capability): when it has not moved
        since a look that found no stray process, no process can have appeared since, and the
        listing of ``/proc`` (sixty entries, seven system calls) is skipped. It is read before
        the listing, so a process made during it moves it past what is kept."""
        now = None
        if self.last_pid is not None:
            try:
                now = os.pread(self.last_pid, 32, 0)
            except OSError:
                now = None
        if now is not None and now == self.quiet_at:
            return False
        found = bool(stray_processes(keep))
        self.quiet_at = None if found else now
        return found

    def reset(self) -> None:
        """What a fork would give each sample afresh."""
        self.random.seed()
        self.decimal.setcontext(self.decimal_context.copy())
        sys.setrecursionlimit(self.recursion_limit)
        sys.set_int_max_str_digits(self.digits)
        os.chdir(self.cwd)
        os.umask(self.umask)

    def changed(self) -> str | None:
        """What differs from a fresh judge after a sample, or None when nothing does."""
        # ``builtins`` as ``sys.modules`` has it now, as the ``import`` here used to find it (the
        # loop over the modules below already refuses any other entry for ``gc`` or ``signal``).
        builtins, gc, signal = sys.modules.get("builtins"), self.gc_module, self.signal
        if sys.modules.keys() != self.module_names:  # a keys view compares as a set, without building one
            return "modules loaded"
        modules = sys.modules
        for name, record in self.modules.items():
            if modules.get(name) is not record[0]:
                return f"module {name} changed"
            tag = record[2]  # the version-tag test inline: a call per module cost more than it
            if (tag is None or tag.value != record[3]) and not self._unchanged(record):
                return f"module {name} changed"
        if self.builtins[0] is not builtins or not self._unchanged(self.builtins):
            return "builtins changed"
        if self._environ() != self.environ:
            return "environment changed"
        if (list(sys.path), list(sys.meta_path), list(sys.path_hooks), dict(sys.path_importer_cache)) != self.path:
            return "import paths changed"
        if sys.gettrace() is not None or sys.getprofile() is not None:
            return "a trace or profile hook is set"
        if (gc.isenabled(), gc.get_threshold()) != self.gc:
            return "collector settings changed"
        if self._signals(signal, self.signal_calls) != self.signals:
            return "signal handlers changed"
        for timer in (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF):
            if signal.getitimer(timer) != (0.0, 0.0):
                return "an interval timer is set"
        if self._fds() != self.fds:
            return "descriptors left open"
        if self._threads() != 1:
            return "threads left running"
        try:
            os.waitpid(-1, os.WNOHANG)
            return "child processes left"
        except ChildProcessError:
            pass
        if self._resident() > self.resident + MAX_RESIDENT_GROWTH:
            return "memory grew"
        return None


class CompileCache:
    """Compiled test code by source, kept across the samples of one warm judge.

    Compiling (and, for HumanEval, rewriting each ``assert``) is the same work for every sample
    of a task; a training run verifies many completions of each task. Only successful compiles
    are kept; a code object is immutable, so a cached one runs exactly as a fresh one would.
    """

    def __init__(self, entries: int = CACHE_ENTRIES, store: dict | None = None) -> None:
        self.entries = entries
        self.store: dict = dict(store or ())
        self.built: list = []  # keys this judge built itself since ``take_built`` last looked

    def export(self, keys=None) -> bytes:
        """The entries (those of ``keys`` when given) as ``marshal`` data (code objects, tuples,
        literals): what the next warm judge starts with (``load_cache``), so a judge's
        replacement does not compile every task's tests again (3 ms a HumanEval task: half a
        millisecond a sample over a judge's life on HumanEval). An entry marshal cannot write is
        left out."""
        import marshal

        store = self.store if keys is None else {key: self.store[key] for key in keys if key in self.store}
        try:
            return marshal.dumps(store)
        except (ValueError, TypeError):
            pass
        kept: dict = {}
        for key, value in store.items():
            try:
                marshal.dumps((key, value))
            except (ValueError, TypeError):
                continue
            kept[key] = value
        return marshal.dumps(kept)

    def get(self, key: tuple, build):
        try:
            return self.store[key]
        except KeyError:
            pass
        value = build()
        if len(self.store) >= self.entries:
            self.store.clear()
        self.store[key] = value
        self.built.append(key)
        return value

    def take_built(self) -> bytes | None:
        """What this judge built since the last call, as ``export`` writes it (None: nothing),
        for the host to relay to the other workers' judges (``adopt``): each worker's judge
        otherwise compiled every task for itself, 1-1.5 ms of its CPU a task, which in a training
        step (a task's samples spread over every worker) is most samples' first sight of it."""
        keys, self.built = self.built, []
        return self.export(keys) if keys else None

    def adopt(self, data: bytes) -> int:
        """Take the entries another worker's judge built (``take_built``, relayed by the host)
        that this cache lacks, while there is room; how many. Entries are keyed by their whole
        source, so one is right for any job that asks for that key. Never raises."""
        taken = 0
        for key, value in load_cache(data).items():
            if type(key) is tuple and key not in self.store and len(self.store) < self.entries:
                self.store[key] = value
                taken += 1
        return taken


def load_cache(data: bytes) -> dict:
    """What ``CompileCache.export`` wrote; empty for anything else (a cache is only ever a speed-up)."""
    import marshal

    try:
        store = marshal.loads(data)
    except Exception:
        return {}
    return store if type(store) is dict and len(store) <= CACHE_ENTRIES else {}


def stray_processes(keep: set[int]) -> list[int]:
    """Processes in this PID namespace other than ``keep`` and bubblewrap's init."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != 1 and int(entry) not in keep:
            found.append(int(entry))
    return found
