"""bench/serve.py's closing lines: issue 30's goals and each server's CPU per request, from a run's rounds."""

from __future__ import annotations

import argparse
import os
import statistics
from typing import Any

HTTP_ONLY = "http-only"
"""The server with verdicts made up front and no pool: its CPU per request is the HTTP layer's."""


def goals(args: argparse.Namespace, results: dict[tuple[str, str], list[dict[str, Any]]]) -> None:
    """Issue 30's three goals for this tree's server, from this run's medians, each beside its measure."""
    new = results.get(("new", "keep-alive"))
    if args.stub_verdicts or not new:
        return
    rps = statistics.median(r["rps"] for r in new)
    p99 = statistics.median(r["p99"] for r in new)
    rows = [
        ("requests/s (new server, keep-alive)", f"{rps:,.0f}", ">= 2,000", rps >= 2000),
        ("p99 latency", f"{p99:.1f} ms", "<= 20 ms", p99 <= 20),
    ]
    http = results.get((HTTP_ONLY, "keep-alive"))
    if http:
        # A request's CPU: the server process (loop and the pool's threads) plus its pool workers. The
        # HTTP layer is what the same server spends per request with no pool behind it: HTTP parsing,
        # JSON both ways, the request's rows (labels, queries) and the reply, the socket writes.
        layer = statistics.median(r["server_us"] for r in http)
        server = statistics.median(r["server_us"] for r in new)
        workers = statistics.median(r["workers_us"] for r in new)
        total = server + workers
        share = layer / total if total else float("nan")
        print(
            f"\nsplit of a request's CPU (new, keep-alive, {total:.0f} us): HTTP layer {layer:.0f} us "
            f"({HTTP_ONLY} server), dispatch {max(0.0, server - layer):.0f} us (batcher, hand-off to the workers "
            f"and back), verify {workers:.0f} us (pool workers)"
        )
        rows.append(("HTTP layer's share of a request's CPU", f"{share:.0%}", "<= 20%", share <= 0.20))
    load_end = os.getloadavg()[0]
    print(
        f"\nissue 30, reward server on MATH-500 rows ({args.concurrency} connections, median of {args.repeats} "
        f"x {args.duration:g} s; load {args.load_start:.1f} at the start, {load_end:.1f} at the end, 2 cores "
        f"here: req/s and p99 are this machine's under that load; run {args.wall_s:.0f} s)"
    )
    for name, measured, goal, met in rows:
        print(f"  {name:<40} {measured:>10}   goal {goal:<9} {'met' if met else 'NOT met'}")


def cpu_lines(args: argparse.Namespace, results: dict[tuple[str, str], list[dict[str, Any]]]) -> None:
    """Server-side CPU per request (the server process and its pool workers) for every server, what it
    implies for two free cores, and this tree's server against each other one measured in the same rounds.

    On a machine other jobs load, req/s and p99 say more about them than about the server; the CPU
    a request costs is what carries over to a quiet machine."""
    print(f"\nserver-side CPU per request (keep-alive, medians; load {os.getloadavg()[0]:.1f} at the end):")
    cost: dict[str, float] = {}
    for (kind, mode), rounds in results.items():
        if mode != "keep-alive" or kind == HTTP_ONLY:
            continue
        server = statistics.median(r["server_us"] for r in rounds)
        workers = statistics.median(r["workers_us"] for r in rounds)
        client = statistics.median(r["client_us"] for r in rounds)
        cost[kind] = total = server + workers
        print(
            f"  {kind:<9} {total:5.0f} us (server {server:.0f} + workers {workers:.0f}): at most {2e6 / total:,.0f} req/s "
            f"on 2 free cores ({2e6 / (total + client):,.0f} with this client's {client:.0f} us on them too); "
            "goal 2,000 req/s needs <= 1,000 us with the client"
        )
    new = results.get(("new", "keep-alive"))
    if not new:
        return

    def med(rounds: list[dict[str, Any]], key: str) -> float:
        return statistics.median(r[key] for r in rounds)

    for (other, mode), base in results.items():
        if mode != "keep-alive" or other in ("new", HTTP_ONLY):
            continue
        print(
            f"new vs {other} (same rounds): req/s x{med(new, 'rps') / med(base, 'rps'):.2f}, "
            f"p99 {med(new, 'p99'):.1f} vs {med(base, 'p99'):.1f} ms, "
            f"CPU per request x{cost['new'] / cost[other]:.2f} ({cost['new']:.0f} vs {cost[other]:.0f} us)"
        )
