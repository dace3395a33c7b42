"""A saved copy of the LaTeX parser's prediction cache, loaded by every process that parses.

ANTLR builds its SLL prediction cache (a DFA per grammar decision) as it meets new sequences
of tokens, and building it is the larger part of parsing a first-seen answer shape (10-200 ms
each on this grammar). The cache is per process, so every fresh verification worker rebuilt
it answer by answer inside its first calls' budgets. ANTLR only ever adds states to it, and
what a state predicts depends on the grammar alone, not on the text being parsed, so a cache
built in one process is valid in any other with the same grammar and runtime.

Here the cache built from a generic corpus (``rlvr_math.shape_corpus``: random answers from a
small hand-written grammar, no benchmark data) is saved as integer arrays and installed into
the generated parser's class-level DFAs when the parsing machinery is first set up. Loading
creates the DFA states and their predictions; each state's ATN configurations (needed only
when an input leaves the saved paths and ANTLR extends the DFA from that state) and edge
table are built from the arrays the first time ANTLR reads them, so a process pays for the
parts it uses. ANTLR looks a newly computed state up in its table of states (by hash, i.e. by
configurations) to reuse an equal one; saved states answer that lookup through a fingerprint
of their configurations computed when saving (from integers only, so the same in every
process), confirmed by comparing the configurations themselves.

The file is keyed by a hash of the parser's serialized ATN, the ANTLR runtime's version and
this format's; on any mismatch (another latex2sympy2_extended or antlr4 release) it is not
used and the parser builds its cache as before. It is checked index by index before any of it
is installed. It is written by ``rlvr_math.snapshot_writer``; regenerate it with
``python -m rlvr_math.build_snapshot``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import sys
import threading
from array import array
from importlib.metadata import PackageNotFoundError, version
from itertools import pairwise
from pathlib import Path
from typing import Any

_FORMAT = 2
_MAGIC = b"RLVRDFA\x00"
SNAPSHOT_PATH = Path(__file__).resolve().parent / "data" / "latex_parser_dfa.bin.gz"

# Per-state flag bits.
_ACCEPT, _NEEDS_FULL_CONTEXT, _SET_FULL_CONTEXT, _SET_HAS_PREDICATE, _SET_DIPS_OUT = 1, 2, 4, 8, 16
_HAS_EDGES, _HAS_PREDICATES, _HAS_CONFLICTS = 32, 64, 128
_CONFIG_FIELDS = 6  # ATN state, alt, context, semantic context, outer-context depth, filter suppressed
_EMPTY, _SINGLETON, _ARRAY = 0, 1, 2  # prediction context kinds

_log = logging.getLogger(__name__)
_lock = threading.Lock()
_loaded: bool | None = None  # None: not tried in this process


def _parser_class() -> Any:
    from latex2sympy2_extended.latex2sympy2 import PSParser

    return PSParser


def grammar_key() -> str:
    """What a snapshot must have been built with: the parser's ATN, the runtime, this format."""
    parser = _parser_class()
    atn = sys.modules[parser.__module__].serializedATN()
    digest = hashlib.sha256((parser.__module__ + ":" + ",".join(map(str, atn))).encode()).hexdigest()[:16]
    try:
        runtime = version("antlr4-python3-runtime")
    except PackageNotFoundError:
        runtime = "unknown"
    return f"{_FORMAT}:{runtime}:{digest}"


# -- the container: a JSON header and named int32 arrays ------------------------------------------


def _pack(header: dict[str, Any], arrays: dict[str, array]) -> bytes:
    header = {**header, "arrays": [[name, len(values)] for name, values in arrays.items()]}
    head = json.dumps(header, separators=(",", ":")).encode()
    parts = [_MAGIC, len(head).to_bytes(4, "little"), head]
    for values in arrays.values():
        if sys.byteorder == "big":
            values = array("i", values)
            values.byteswap()
        parts.append(values.tobytes())
    return b"".join(parts)


def _unpack(blob: bytes) -> tuple[dict[str, Any], dict[str, array]]:
    if array("i").itemsize != 4 or not blob.startswith(_MAGIC):
        raise ValueError("not a parser snapshot")
    start = len(_MAGIC) + 4
    end = start + int.from_bytes(blob[len(_MAGIC) : start], "little")
    header = json.loads(blob[start:end])
    arrays: dict[str, array] = {}
    for name, length in header["arrays"]:
        values = array("i")
        start, end = end, end + 4 * length
        if end > len(blob):
            raise ValueError("snapshot truncated")
        values.frombytes(blob[start:end])
        if sys.byteorder == "big":
            values.byteswap()
        arrays[name] = values
    if end != len(blob):
        raise ValueError("snapshot has trailing bytes")
    return header, arrays


# -- fingerprints: ANTLR's state identity, the same in every process ------------------------------


def _int32(value: int) -> int:
    return (value & 0xFFFFFFFF) - (1 << 32 if value & 0x80000000 else 0)


def _fingerprint(configs: Any) -> int | None:
    """A hash of a configuration set from integers only: ATN states, alternatives, prediction
    contexts (whose cached hashes ANTLR computes from return states and ``hash("")``, the
    same in every process) and predicates. None for a set with combined predicates."""
    from antlr4.atn.SemanticContext import PrecedencePredicate, Predicate, SemanticContext

    parts: list[tuple[Any, ...]] = [(int(bool(configs.fullCtx)),)]
    for config in configs.configs:
        predicate = config.semanticContext
        if predicate is SemanticContext.NONE:
            key: tuple[int, ...] = (0,)
        elif isinstance(predicate, PrecedencePredicate):
            key = (1, predicate.precedence)
        elif isinstance(predicate, Predicate):
            key = (2, predicate.ruleIndex, predicate.predIndex, int(bool(predicate.isCtxDependent)))
        else:
            return None
        context = 0 if config.context is None else hash(config.context)
        parts.append((config.state.stateNumber, config.alt, context, *key))
    return hash(tuple(parts)) & 0xFFFFFFFFFFFFFFFF


# -- reading --------------------------------------------------------------------------------------


def _check_indexes(values: Any, low: int, high: int, what: str) -> None:
    if len(values) and (min(values) < low or max(values) >= high):
        raise ValueError(f"snapshot {what} out of range")


class _Saved:
    """The arrays of a loaded snapshot, and what has been built from them so far."""

    def __init__(self, header: dict[str, Any], arrays: dict[str, array], parser: Any) -> None:
        from antlr4.atn.SemanticContext import AND, OR, PrecedencePredicate, Predicate, SemanticContext

        self.a = arrays
        self.atn_states = parser.atn.states
        predicates: list[Any] = []
        for row in header["predicates"]:
            if row[0] == "N":
                predicates.append(SemanticContext.NONE)
            elif row[0] == "P":
                predicates.append(PrecedencePredicate(int(row[1])))
            elif row[0] == "R":
                predicates.append(Predicate(int(row[1]), int(row[2]), bool(row[3])))
            elif row[0] in ("&", "|"):
                if not all(0 <= i < len(predicates) for i in row[1]):
                    raise ValueError("snapshot semantic context refers forward")
                combined = object.__new__(AND if row[0] == "&" else OR)
                combined.opnds = [predicates[i] for i in row[1]]
                predicates.append(combined)
            else:
                raise ValueError(f"unknown semantic context row {row[0]!r}")
        self.predicates = predicates
        self._contexts: dict[int, Any] = {}
        self.states: list[Any] = []  # filled by _states(); edge tables point into it
        self._check(len(parser.atn.states))

    def _check(self, atn_size: int) -> None:
        """Every index in range and every offset table consistent, before anything is used."""
        a = self.a
        n_states, n_contexts = len(a["st_flags"]), len(a["ctx_kind"])
        for name in ("st_prediction", "st_unique_alt", "st_edges_len", "st_dfa", "st_fp_lo", "st_fp_hi"):
            if len(a[name]) != n_states:
                raise ValueError(f"snapshot {name} has the wrong length")
        for table, pool, width in (
            ("st_edges_at", "edges", 2),
            ("st_configs_at", "configs", _CONFIG_FIELDS),
            ("st_conflicts_at", "conflicts", 1),
            ("st_predicates_at", "predicted", 2),
        ):
            offsets = a[table]
            if len(offsets) != n_states + 1 or offsets[0] != 0 or offsets[-1] * width != len(a[pool]):
                raise ValueError(f"snapshot {table} does not match {pool}")
            if any(later < earlier for earlier, later in pairwise(offsets)):
                raise ValueError(f"snapshot {table} is not ordered")
        configs = a["configs"]
        _check_indexes(configs[0::_CONFIG_FIELDS], 0, atn_size, "ATN state")
        _check_indexes(configs[2::_CONFIG_FIELDS], -1, n_contexts, "context")
        _check_indexes(configs[3::_CONFIG_FIELDS], 0, len(self.predicates), "semantic context")
        _check_indexes(a["edges"][1::2], -2, n_states, "edge target")
        _check_indexes(a["predicted"][0::2], 0, len(self.predicates), "predicate")
        edges, lengths, at = a["edges"], a["st_edges_len"], a["st_edges_at"]
        for index in range(n_states):
            symbols = edges[2 * at[index] : 2 * at[index + 1] : 2]
            if symbols and (min(symbols) < 0 or max(symbols) >= lengths[index]):
                raise ValueError("snapshot edge outside its table")
        kinds, first, second = a["ctx_kind"], a["ctx_a"], a["ctx_b"]
        parents = a["ctx_parents"]
        if len(first) != n_contexts or len(second) != n_contexts or len(a["ctx_returns"]) != len(parents):
            raise ValueError("snapshot context tables differ in length")
        for index in range(n_contexts):
            kind = kinds[index]
            if kind == _SINGLETON:
                if not -1 <= first[index] < index:
                    raise ValueError("snapshot context parent out of order")
            elif kind == _ARRAY:
                start, count = first[index], second[index]
                if start < 0 or count < 1 or start + count > len(parents):
                    raise ValueError("snapshot context array out of range")
                if any(not -1 <= parent < index for parent in parents[start : start + count]):
                    raise ValueError("snapshot context parent out of order")
            elif kind != _EMPTY:
                raise ValueError("snapshot context of unknown kind")

    def context(self, index: int) -> Any:
        from antlr4.PredictionContext import ArrayPredictionContext, PredictionContext, SingletonPredictionContext

        if index < 0:
            return None
        built = self._contexts
        a = self.a
        pending = [index]
        while pending:  # parents have smaller numbers (checked): build them first
            current = pending[-1]
            if current in built:
                pending.pop()
                continue
            kind = a["ctx_kind"][current]
            if kind == _SINGLETON:
                parent_ids = [a["ctx_a"][current]]
            elif kind == _ARRAY:
                start = a["ctx_a"][current]
                parent_ids = list(a["ctx_parents"][start : start + a["ctx_b"][current]])
            else:
                parent_ids = []
            missing = [p for p in parent_ids if p >= 0 and p not in built]
            if missing:
                pending.extend(missing)
                continue
            pending.pop()
            if kind == _EMPTY:
                built[current] = PredictionContext.EMPTY
            elif kind == _SINGLETON:
                parent = built.get(parent_ids[0])
                built[current] = SingletonPredictionContext.create(parent, a["ctx_b"][current])
            else:
                start = a["ctx_a"][current]
                returns = list(a["ctx_returns"][start : start + len(parent_ids)])
                built[current] = ArrayPredictionContext([built.get(p) for p in parent_ids], returns)
        return built[index]

    def configs(self, index: int) -> Any:
        from antlr4.atn.ATNConfig import ATNConfig
        from antlr4.atn.ATNConfigSet import ATNConfigSet

        a = self.a
        flags = a["st_flags"][index]
        configs = ATNConfigSet(bool(flags & _SET_FULL_CONTEXT))
        fields = a["configs"]
        for at in range(
            a["st_configs_at"][index] * _CONFIG_FIELDS, a["st_configs_at"][index + 1] * _CONFIG_FIELDS, _CONFIG_FIELDS
        ):
            config = ATNConfig(
                self.atn_states[fields[at]],
                fields[at + 1],
                self.context(fields[at + 2]),
                self.predicates[fields[at + 3]],
            )
            config.reachesIntoOuterContext = fields[at + 4]
            config.precedenceFilterSuppressed = bool(fields[at + 5])
            configs.configs.append(config)
        configs.uniqueAlt = a["st_unique_alt"][index]
        if flags & _HAS_CONFLICTS:
            configs.conflictingAlts = set(a["conflicts"][a["st_conflicts_at"][index] : a["st_conflicts_at"][index + 1]])
        configs.hasSemanticContext = bool(flags & _SET_HAS_PREDICATE)
        configs.dipsIntoOuterContext = bool(flags & _SET_DIPS_OUT)
        configs.readonly = True
        configs.configLookup = None  # as ATNConfigSet.setReadonly leaves it
        return configs

    def edges(self, index: int) -> list[Any] | None:
        from antlr4.atn.ParserATNSimulator import ParserATNSimulator

        a = self.a
        if not a["st_flags"][index] & _HAS_EDGES:
            return None
        table: list[Any] = [None] * a["st_edges_len"][index]
        pool = a["edges"]
        for at in range(2 * a["st_edges_at"][index], 2 * a["st_edges_at"][index + 1], 2):
            target = pool[at + 1]
            table[pool[at]] = ParserATNSimulator.ERROR if target == -2 else self.states[target]
        return table


def _saved_state_class() -> Any:
    """A DFAState whose configurations and edge table are built from the arrays when ANTLR
    first reads them (most saved states are never visited by a given process)."""
    from antlr4.dfa.DFAState import DFAState

    configs_slot, edges_slot = DFAState.__dict__["configs"], DFAState.__dict__["edges"]

    class SavedDFAState(DFAState):
        __slots__ = ("_index", "_saved")

        @property
        def configs(self) -> Any:
            try:
                return configs_slot.__get__(self, DFAState)
            except AttributeError:
                value = self._saved.configs(self._index)
                configs_slot.__set__(self, value)
                return value

        @configs.setter
        def configs(self, value: Any) -> None:
            configs_slot.__set__(self, value)

        @property
        def edges(self) -> Any:
            try:
                return edges_slot.__get__(self, DFAState)
            except AttributeError:
                value = self._saved.edges(self._index)
                edges_slot.__set__(self, value)
                return value

        @edges.setter
        def edges(self, value: Any) -> None:
            edges_slot.__set__(self, value)

    return SavedDFAState


def _states(saved: _Saved) -> list[Any]:
    from antlr4.dfa.DFAState import PredPrediction

    state_class = _saved_state_class()
    a = saved.a
    states = saved.states
    for index, flags in enumerate(a["st_flags"]):
        state = object.__new__(state_class)
        state.stateNumber = index
        state.isAcceptState = bool(flags & _ACCEPT)
        state.prediction = a["st_prediction"][index]
        state.lexerActionExecutor = None
        state.requiresFullContext = bool(flags & _NEEDS_FULL_CONTEXT)
        state.predicates = None
        if flags & _HAS_PREDICATES:
            pool = a["predicted"]
            state.predicates = [
                PredPrediction(saved.predicates[pool[at]], pool[at + 1])
                for at in range(2 * a["st_predicates_at"][index], 2 * a["st_predicates_at"][index + 1], 2)
            ]
        state._saved, state._index = saved, index
        states.append(state)
    return states


def _state_table_class() -> type[dict[Any, Any]]:
    class SavedStateTable(dict):
        """A DFA's table of states (ANTLR's ``dfa.states``) that also finds equal saved states."""

        def __init__(self, by_fingerprint: dict[int, list[Any]]) -> None:
            super().__init__()
            self._by_fingerprint = by_fingerprint

        def get(self, state: Any, default: Any = None) -> Any:
            found = super().get(state)
            if found is not None:
                return found
            fingerprint = _fingerprint(state.configs)
            for saved in self._by_fingerprint.get(fingerprint, ()) if fingerprint is not None else ():
                if saved.configs == state.configs:
                    return saved
            return default

    return SavedStateTable


def load(path: Path = SNAPSHOT_PATH) -> bool:
    """Install the saved DFAs in the generated parser's class, once per process.

    Where this process has parsed already (for instance through math-verify), the states it
    built stay, and the saved ones join them: ANTLR's lookup of a new state finds an equal
    saved one and continues from there. False, and the parser builds its cache as usual, when
    the file is missing, was built for another grammar or runtime, or does not check out.
    """
    global _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        _loaded = False
        try:
            with gzip.open(path, "rb") as fh:
                header, arrays = _unpack(fh.read())
            if header.get("key") != grammar_key():
                _log.info("parser snapshot %s was built for another grammar or runtime; not used", path)
                return False
            parser = _parser_class()
            saved = _Saved(header, arrays, parser)
            states = _states(saved)
            dfas = parser.decisionsToDFA
            starts = []
            for decision, precedence, start in header["dfas"]:
                if not 0 <= decision < len(dfas) or dfas[decision].precedenceDfa != precedence:
                    raise ValueError(f"decision {decision} does not match this parser")
                if not 0 <= start < len(states):
                    raise ValueError(f"decision {decision} starts outside the snapshot")
                starts.append((dfas[decision], states[start]))
        except FileNotFoundError:
            return False
        except Exception as exc:  # a damaged file must never stop verification
            _log.warning("parser snapshot %s not used: %r", path, exc)
            return False
        by_decision: dict[int, dict[int, list[Any]]] = {}
        a = saved.a
        # A precedence DFA's s0 only holds its start states by precedence; ANTLR never puts it
        # in the table of states, and a lookup must never return it.
        precedence_heads = {start for _, precedence, start in header["dfas"] if precedence}
        for index, state in enumerate(states):
            if index in precedence_heads:
                continue
            fingerprint = (a["st_fp_lo"][index] & 0xFFFFFFFF) | ((a["st_fp_hi"][index] & 0xFFFFFFFF) << 32)
            by_decision.setdefault(a["st_dfa"][index], {}).setdefault(fingerprint, []).append(state)
        table_class = _state_table_class()
        for dfa, start in starts:
            table = table_class(by_decision.get(dfa.decision, {}))
            table.update(dfa._states)  # states this process built already (it may have parsed)
            dfa._states = table
            _install_start(dfa, start)
        _loaded = True
        return True


def _install_start(dfa: Any, start: Any) -> None:
    """Make the saved start state(s) the DFA's, keeping any this process has built.

    A precedence DFA has one start state per operator precedence (the edges of its ``s0``);
    the saved ones fill the precedences not yet met. Another DFA's own start state, if any, is
    replaced by the saved one when they hold the same configurations (they always do: both are
    the decision's closure); the states built from the old one stay findable in the table.
    """
    if dfa.s0 is None or (dfa.precedenceDfa and not dfa.s0.edges):
        dfa.s0 = start  # not used yet in this process
        return
    if not dfa.precedenceDfa:
        if dfa.s0.configs == start.configs:
            dfa.s0 = start
        return
    for precedence, saved in enumerate(start.edges or ()):
        if saved is not None and dfa.getPrecedenceStartState(precedence) is None:
            dfa.setPrecedenceStartState(precedence, saved)
