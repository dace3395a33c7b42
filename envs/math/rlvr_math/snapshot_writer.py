"""Writes the LaTeX parser's prediction cache in the format ``rlvr_math.parser_snapshot`` reads.

Used by ``python -m rlvr_math.build_snapshot`` (and by the tests, to check that a loaded
snapshot writes back unchanged); verification never writes.
"""

from __future__ import annotations

import gzip
from array import array
from pathlib import Path
from typing import Any

from rlvr_math.parser_snapshot import (
    _ACCEPT,
    _ARRAY,
    _CONFIG_FIELDS,
    _EMPTY,
    _HAS_CONFLICTS,
    _HAS_EDGES,
    _HAS_PREDICATES,
    _NEEDS_FULL_CONTEXT,
    _SET_DIPS_OUT,
    _SET_FULL_CONTEXT,
    _SET_HAS_PREDICATE,
    _SINGLETON,
    SNAPSHOT_PATH,
    _fingerprint,
    _int32,
    _pack,
    _parser_class,
    grammar_key,
)


class _Writer:
    """Numbers prediction contexts, semantic contexts and DFA states, and lays them out as
    arrays. Iterative throughout: context chains and DFA paths can be deeper than Python's
    recursion limit. Contexts refer only to earlier contexts (parents first). Objects are
    known by id(): the parser's DFAs hold every one of them for the length of a dump."""

    def __init__(self, error_state: Any) -> None:
        from antlr4.atn.SemanticContext import SemanticContext
        from antlr4.PredictionContext import PredictionContext

        self._empty_context = PredictionContext.EMPTY
        self._no_predicate = SemanticContext.NONE
        self._error_state = error_state
        self.arrays: dict[str, array] = {
            name: array("i")
            for name in (
                "ctx_kind",
                "ctx_a",
                "ctx_b",
                "ctx_parents",
                "ctx_returns",
                "st_flags",
                "st_prediction",
                "st_unique_alt",
                "st_edges_len",
                "st_edges_at",
                "edges",
                "st_configs_at",
                "configs",
                "st_conflicts_at",
                "conflicts",
                "st_predicates_at",
                "predicted",
                "st_dfa",
                "st_fp_lo",
                "st_fp_hi",
            )
        }
        self.predicates: list[list[Any]] = []
        self._contexts: dict[int, int] = {}
        self._predicate_ids: dict[int, int] = {}
        self._state_ids: dict[int, int] = {}
        self._states: list[Any] = []

    def context(self, context: Any) -> int:
        from antlr4.PredictionContext import ArrayPredictionContext, SingletonPredictionContext

        if context is None:
            return -1
        a = self.arrays
        pending = [context]
        while pending:
            current = pending[-1]
            if id(current) in self._contexts:
                pending.pop()
                continue
            if current is self._empty_context:
                parents: list[Any] = []
            elif isinstance(current, ArrayPredictionContext):
                parents = [p for p in current.parents if p is not None]
            elif isinstance(current, SingletonPredictionContext):
                parents = [] if current.parentCtx is None else [current.parentCtx]
            else:
                raise TypeError(f"unknown prediction context {type(current).__name__}")
            missing = [p for p in parents if id(p) not in self._contexts]
            if missing:
                pending.extend(missing)
                continue
            pending.pop()
            if current is self._empty_context:
                row = (_EMPTY, 0, 0)
            elif isinstance(current, ArrayPredictionContext):
                row = (_ARRAY, len(a["ctx_parents"]), len(current.parents))
                a["ctx_parents"].extend(-1 if p is None else self._contexts[id(p)] for p in current.parents)
                a["ctx_returns"].extend(current.returnStates)
            else:
                parent = current.parentCtx
                row = (_SINGLETON, -1 if parent is None else self._contexts[id(parent)], current.returnState)
            self._contexts[id(current)] = len(a["ctx_kind"])
            for name, value in zip(("ctx_kind", "ctx_a", "ctx_b"), row):
                a[name].append(value)
        return self._contexts[id(context)]

    def predicate(self, predicate: Any) -> int:
        from antlr4.atn.SemanticContext import AND, OR, PrecedencePredicate, Predicate

        known = self._predicate_ids.get(id(predicate))
        if known is not None:
            return known
        if predicate is self._no_predicate:
            row: list[Any] = ["N"]
        elif isinstance(predicate, PrecedencePredicate):
            row = ["P", predicate.precedence]
        elif isinstance(predicate, Predicate):
            row = ["R", predicate.ruleIndex, predicate.predIndex, bool(predicate.isCtxDependent)]
        elif isinstance(predicate, (AND, OR)):  # operands are few and never nest deeply
            row = ["&" if isinstance(predicate, AND) else "|", [self.predicate(p) for p in predicate.opnds]]
        else:
            raise TypeError(f"unknown semantic context {type(predicate).__name__}")
        self._predicate_ids[id(predicate)] = len(self.predicates)
        self.predicates.append(row)
        return len(self.predicates) - 1

    def state(self, state: Any, decision: int) -> int:
        """A DFA state's number, with every state reachable from it numbered too."""
        pending = [state]
        while pending:
            current = pending.pop()
            if current is None or current is self._error_state or id(current) in self._state_ids:
                continue
            self._state_ids[id(current)] = len(self._states)
            self._states.append(current)
            self.arrays["st_dfa"].append(decision)
            pending.extend(reversed(current.edges or ()))
        return self._state_ids[id(state)]

    def _target(self, state: Any) -> int:
        return -2 if state is self._error_state else self._state_ids[id(state)]

    def lay_out_states(self) -> None:
        a = self.arrays
        for name in ("st_edges_at", "st_configs_at", "st_conflicts_at", "st_predicates_at"):
            a[name].append(0)
        for state in self._states:
            configs = state.configs
            flags = (
                (_ACCEPT if state.isAcceptState else 0)
                | (_NEEDS_FULL_CONTEXT if state.requiresFullContext else 0)
                | (_SET_FULL_CONTEXT if configs.fullCtx else 0)
                | (_SET_HAS_PREDICATE if configs.hasSemanticContext else 0)
                | (_SET_DIPS_OUT if configs.dipsIntoOuterContext else 0)
                | (_HAS_EDGES if state.edges is not None else 0)
                | (_HAS_PREDICATES if state.predicates is not None else 0)
                | (_HAS_CONFLICTS if configs.conflictingAlts is not None else 0)
            )
            a["st_flags"].append(flags)
            fingerprint = _fingerprint(configs)
            a["st_fp_lo"].append(_int32(fingerprint or 0))
            a["st_fp_hi"].append(_int32((fingerprint or 0) >> 32))
            a["st_prediction"].append(state.prediction)
            a["st_unique_alt"].append(configs.uniqueAlt)
            edges = state.edges or ()
            a["st_edges_len"].append(len(edges))
            for symbol, target in enumerate(edges):
                if target is not None:
                    a["edges"].extend((symbol, self._target(target)))
            a["st_edges_at"].append(len(a["edges"]) // 2)
            for c in configs.configs:
                context, predicate = self.context(c.context), self.predicate(c.semanticContext)
                suppressed = int(bool(c.precedenceFilterSuppressed))
                a["configs"].extend(
                    (c.state.stateNumber, c.alt, context, predicate, c.reachesIntoOuterContext, suppressed)
                )
            a["st_configs_at"].append(len(a["configs"]) // _CONFIG_FIELDS)
            a["conflicts"].extend(sorted(configs.conflictingAlts or ()))
            a["st_conflicts_at"].append(len(a["conflicts"]))
            for p in state.predicates or ():
                a["predicted"].extend((self.predicate(p.pred), p.alt))
            a["st_predicates_at"].append(len(a["predicted"]) // 2)


def dump(path: Path = SNAPSHOT_PATH) -> dict[str, int]:
    """Write this process's parser DFAs to ``path``; returns counts for the log."""
    from antlr4.atn.ParserATNSimulator import ParserATNSimulator

    writer = _Writer(ParserATNSimulator.ERROR)
    dfas = []
    for dfa in _parser_class().decisionsToDFA:
        if dfa.s0 is None or (dfa.precedenceDfa and not dfa.s0.edges):
            continue  # never used
        dfas.append([dfa.decision, bool(dfa.precedenceDfa), writer.state(dfa.s0, dfa.decision)])
    writer.lay_out_states()
    blob = _pack({"key": grammar_key(), "predicates": writer.predicates, "dfas": dfas}, writer.arrays)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    with gzip.GzipFile(temporary, "wb", mtime=0) as fh:  # mtime=0: the same cache, the same bytes
        fh.write(blob)
    temporary.replace(path)
    return {
        "dfas": len(dfas),
        "states": len(writer.arrays["st_flags"]),
        "contexts": len(writer.arrays["ctx_kind"]),
        "configs": len(writer.arrays["configs"]) // _CONFIG_FIELDS,
    }
