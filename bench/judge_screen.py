"""The judge screen's cost: CPU milliseconds per answer at each screen level, short and long answers.

``rlvr_judge.screen.screen`` runs on every response before any judge call. This times it (process
CPU time, so a loaded machine inflates it less than wall time) on honest answers of about 60 and
4,000 characters (mixed prose, numbers, a list, code, markup and a non-Latin sentence, so every
gate of the screen opens) and, for scale, one honest answer of 32,000 characters (the verifier's
cap), at levels 1 (``judge-ref-v2``), 2 (``judge-ref-v3``) and 3 (``judge-ref-v4``), in one run.
Every answer is checked to pass the screen first (a refused one would be timed on a shorter path).
The peer is the judge call the screen stands before: a hosted or local judge model takes
hundreds of milliseconds a call.

    python bench/judge_screen.py [--repeat 20] [--before DIR]

``--before DIR``: also time the screen of another tree, side by side in the same run (rounds
alternate between the two, each in a fresh process; the table shows each tree's lowest median).
``DIR`` holds that tree's ``rlvr_judge`` package, e.g. the commit before:
``mkdir -p /tmp/before && git archive HEAD~1 envs/judge/rlvr_judge | tar -x -C /tmp/before --strip-components=2``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

PROMPT = "Which river flows through the city of Vienna on its way to the Black Sea? Explain briefly."
REFERENCE = "The Danube"
SHORT = "<answer>The Danube</answer> It flows through Vienna, 2,850 km."
_PARAGRAPH = (
    "The Danube rises in the Black Forest and flows east for about 2,850 km through ten countries, "
    "among them Austria, Slovakia, Hungary, Croatia, Serbia, Bulgaria and Romania, before it reaches "
    "the Black Sea through a wide delta. In Vienna the river was straightened in the 1870s to protect "
    "the city from floods; the Danube Island was built a century later. Die Donau ist nach der Wolga "
    "der zweitlängste Fluss Europas. 多瑙河流经十个国家。\n"
    "- Source: Donaueschingen (678 m)\n- Mouth: Sulina, Romania\n- Mean discharge: about 6,500 m³/s\n"
    "```python\nlength_km = {'Danube': 2850, 'Rhine': 1233}\nprint(max(length_km, key=length_km.get))\n```\n"
)


def _answer(chars: int) -> str:
    body = (_PARAGRAPH * (chars // len(_PARAGRAPH) + 1))[: max(0, chars - 40)]
    return f"<answer>The Danube</answer>\n{body}"


def time_screen(text: str, level: int, repeat: int) -> float:
    """Median CPU milliseconds of one ``screen`` call on ``text`` at ``level``."""
    from rlvr_judge.screen import screen

    found = screen(text, prompt=PROMPT, reference=REFERENCE, level=level)
    if found is not None:
        raise SystemExit(f"the honest {len(text)}-character answer was refused at level {level}: {found}")
    times = []
    for _ in range(repeat):
        start = time.process_time()
        screen(text, prompt=PROMPT, reference=REFERENCE, level=level)
        times.append((time.process_time() - start) * 1000)
    return sorted(times)[len(times) // 2]


HOSTILE = "'<a ' x 13,333"
ANSWERS = {
    "60 chars": SHORT,
    "4,000 chars": _answer(4_000),
    "32,000 chars": _answer(32_000),
    # Issue 26, round 14: an unclosed tag opener repeated, one sentence of 40,000 characters with no
    # word of prose; it passes the screen, so every reading of it runs (every view, every pattern).
    HOSTILE: "<a " * 13_333,
}
LEVELS = (1, 2, 3)
TARGET_MS = 150.0
"""Issue 26's goal for level 3 on a 32,000-character answer (it cost about a judge call before)."""
HOSTILE_TARGET_MS = 100.0
"""Issue 26, round 14: level 3 on the hostile answer (about 260 ms before)."""


def table(repeat: int) -> dict[str, list[float]]:
    """Median CPU ms per answer and level, for the ``rlvr_judge`` first on ``sys.path``."""
    out = {}
    for name, text in ANSWERS.items():
        n = repeat if len(text) < 10_000 else max(3, repeat // 5)
        out[name] = [time_screen(text, level, n) for level in LEVELS]
    return out


def _print(title: str, cells: dict[str, list[float]]) -> None:
    print(f"{title}\n| answer | level 1 (v2) | level 2 (v3) | level 3 (v4) |\n|---|---|---|---|")
    for name, row in cells.items():
        print(f"| {name} ({len(ANSWERS[name])}) | " + " | ".join(f"{ms:.2f}" for ms in row) + " |")


def _rounds(trees: dict[str, str | None], repeat: int, rounds: int) -> dict[str, dict[str, list[float]]]:
    """Each tree's table in a fresh process, the trees alternating round after round; per cell the lowest median."""
    best: dict[str, dict[str, list[float]]] = {}
    for _ in range(rounds):
        for label, path in trees.items():
            env = dict(os.environ)
            if path is not None:
                env["PYTHONPATH"] = os.pathsep.join([path, env.get("PYTHONPATH", "")])
            cmd = [sys.executable, str(Path(__file__).resolve()), "--repeat", str(repeat), "--json"]
            cells = json.loads(subprocess.run(cmd, env=env, capture_output=True, check=True, text=True).stdout)
            seen = best.setdefault(label, cells)
            for name, row in cells.items():
                seen[name] = [min(a, b) for a, b in zip(seen[name], row)]
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--before", help="a folder holding another tree's rlvr_judge package, timed in the same run")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds with --before (default 2)")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one table as JSON (for --before)
    args = parser.parse_args()
    if args.json:
        print(json.dumps(table(args.repeat)))
        return
    load = os.getloadavg()[0]
    print(
        f"load average: {load:.1f}; median CPU ms per answer over {args.repeat} calls (32,000 chars: {max(3, args.repeat // 5)})"
    )
    if args.before:
        results = _rounds({"this tree": None, "before": args.before}, args.repeat, args.rounds)
        for label, cells in results.items():
            _print(f"\n{label}:", cells)
        after, before = results["this tree"]["32,000 chars"][2], results["before"]["32,000 chars"][2]
        print(f"\nlevel 3 at 32,000 chars: {before:.0f} -> {after:.0f} ms (x{before / after:.1f} less CPU)")
        h_after, h_before = results["this tree"][HOSTILE][2], results["before"][HOSTILE][2]
        print(f"level 3 on {HOSTILE}: {h_before:.0f} -> {h_after:.0f} ms (x{h_before / h_after:.1f} less CPU)")
    else:
        cells = table(args.repeat)
        _print("", cells)
        after = cells["32,000 chars"][2]
        h_after = cells[HOSTILE][2]
    h_met = "met" if h_after <= HOSTILE_TARGET_MS else "NOT met"
    print(f"goal: level 3 on {HOSTILE} <= {HOSTILE_TARGET_MS:.0f} ms: {h_after:.0f} ms ({h_met})")
    met = "met" if after <= TARGET_MS else "NOT met"
    print(
        f"goal: level 3 at 32,000 chars <= {TARGET_MS:.0f} ms: {after:.0f} ms ({met}; load {load:.1f} at the start, {os.getloadavg()[0]:.1f} now)"
    )


if __name__ == "__main__":
    main()
