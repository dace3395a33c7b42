"""The judge screen's cost: CPU milliseconds per answer at each screen level, short and long answers.

``rlvr_judge.screen.screen`` runs on every response before any judge call. This times it (process
CPU time, so a loaded machine inflates it less than wall time) on honest answers of about 60 and
4,000 characters (mixed prose, numbers, a list, code, markup and a non-Latin sentence, so every
gate of the screen opens) and, for scale, one honest answer of 32,000 characters (the verifier's
cap), at levels 1 (``judge-ref-v2``), 2 (``judge-ref-v3``) and 3 (``judge-ref-v4``), in one run.
Every answer is checked to pass the screen first (a refused one would be timed on a shorter path).
The peer is the judge call the screen stands before: a hosted or local judge model takes
hundreds of milliseconds a call.

    python bench/judge_screen.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import os
import time

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    answers = {"60 chars": SHORT, "4,000 chars": _answer(4_000), "32,000 chars": _answer(32_000)}
    print(f"load average: {os.getloadavg()[0]:.1f}; median CPU ms per answer over {args.repeat} calls")
    print("| answer | level 1 (v2) | level 2 (v3) | level 3 (v4) |\n|---|---|---|---|")
    for name, text in answers.items():
        repeat = args.repeat if len(text) < 10_000 else max(3, args.repeat // 5)
        cells = [f"{time_screen(text, level, repeat):.2f}" for level in (1, 2, 3)]
        print(f"| {name} ({len(text)}) | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
