"""STAND-IN for the Lean REPL (leanprover-community/repl) — NOT Lean. It proves nothing.

A real subprocess that speaks the REPL's JSON protocol over stdin/stdout (requests separated by
blank lines, one JSON object per response followed by a blank line), so the local backend's pool
can be tested where no Lean toolchain exists: start, header reuse, pickling, timeout kill,
crash, recycling, concurrency. Its "elaboration" is text matching:

- a command starting with ``import`` is a header (sleeps ``STANDIN_HEADER_DELAY`` seconds and logs
  ``header`` to ``STANDIN_LOG``);
- ``theorem NAME sig := proof`` declares NAME with type ``sig`` (whitespace-normalised); a proof
  containing ``sorry`` gets a sorry and ``sorryAx``; ``STANDIN_AXIOM`` adds the axiom ``cheat``;
  ``STANDIN_TYPE_CHANGE`` changes the recorded type (as a helper instance would);
- ``#print axioms NAME`` answers as Lean does; ``theorem C : type_of% @REF := @NAME`` fails unless
  NAME's and REF's recorded types are equal;
- ``STANDIN_ERROR`` gives an error, ``STANDIN_SLEEP`` hangs, ``STANDIN_CRASH`` exits,
  ``STANDIN_GARBAGE`` writes non-JSON, ``STANDIN_HOG`` holds 300 MB.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time

envs: dict[int, dict[str, dict]] = {}
hog: list[bytearray] = []


def log(text: str) -> None:
    path = os.environ.get("STANDIN_LOG")
    if path:
        with open(path, "a") as fh:
            fh.write(f"{text} {os.getpid()}\n")


def send(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=1) + "\n\n")
    sys.stdout.flush()


def norm(text: str) -> str:
    return " ".join(text.split())


def pos(line: int, col: int = 0) -> dict:
    return {"line": line, "column": col}


def new_env(decls: dict[str, dict]) -> int:
    env_id = len(envs)
    envs[env_id] = decls
    return env_id


def run_cmd(cmd: str, env: int | None) -> dict:
    if env is not None and env not in envs:
        return {"message": "Unknown environment."}
    decls = dict(envs[env]) if env is not None else {}
    if "STANDIN_SLEEP" in cmd:
        time.sleep(10_000)
    if "STANDIN_CRASH" in cmd:
        os._exit(3)
    if "STANDIN_GARBAGE" in cmd:
        sys.stdout.write("this is not json\n\n")
        sys.stdout.flush()
        return {}
    if "STANDIN_FLOOD" in cmd:  # one response of many megabytes (a flood of messages), sent in pieces
        data = "x" * (4 << 20)
        sys.stdout.write(json.dumps({"env": 0, "messages": [{"severity": "info", "pos": pos(1), "data": data}]}))
        sys.stdout.write("\n\n")
        sys.stdout.flush()
        time.sleep(10_000)
    if "STANDIN_HOG" in cmd:
        hog.append(bytearray(300 * 1024 * 1024))
        for i in range(0, len(hog[-1]), 4096):
            hog[-1][i] = 1
    messages: list[dict] = []
    sorries: list[dict] = []
    if cmd.lstrip().startswith("import"):
        time.sleep(float(os.environ.get("STANDIN_HEADER_DELAY", "0.2")))
        log("header")
    for m in re.finditer(r"(?:^|\n)\s*theorem (\S+)(.*?):=(.*?)(?=\n\s*theorem |\Z)", cmd, re.DOTALL):
        name, sig, proof = m.group(1), m.group(2), m.group(3)
        if sig.startswith(" : type_of%"):
            continue
        if name in decls:
            at_line = cmd[: m.start(1)].count("\n") + 1
            messages.append(
                {
                    "severity": "error",
                    "pos": pos(at_line),
                    "endPos": None,
                    "data": f"'{name}' has already been declared",
                }
            )
            continue
        axioms = ["propext"]
        if "STANDIN_AXIOM" in proof:
            axioms.append("cheat")
        if re.search(r"\bsorry\b", proof):
            at_line = cmd[: m.start(3)].count("\n") + 1
            axioms.append("sorryAx")
            sorries.append(
                {"proofState": len(sorries), "pos": pos(at_line, 4), "endPos": pos(at_line, 9), "goal": "⊢ P"}
            )
            messages.append(
                {"severity": "warning", "pos": pos(at_line), "endPos": None, "data": "declaration uses `sorry`"}
            )
        kind = norm(sig) + (" CHANGED" if "STANDIN_TYPE_CHANGE" in cmd else "")
        decls[name] = {"type": kind, "axioms": axioms}
    lines = cmd.split("\n")
    for number, line in enumerate(lines, start=1):
        if "STANDIN_ERROR" in line:
            messages.append(
                {"severity": "error", "pos": pos(number), "endPos": pos(number, 5), "data": "unsolved goals"}
            )
        printed = re.match(r"#print axioms (\S+)", line)
        if printed:
            name = printed.group(1)
            if name not in decls:
                messages.append(
                    {"severity": "error", "pos": pos(number, 15), "endPos": None, "data": f"unknown constant '{name}'"}
                )
            else:
                ax = decls[name]["axioms"]
                data = (
                    f"'{name}' depends on axioms: [{', '.join(ax)}]"
                    if ax
                    else f"'{name}' does not depend on any axioms"
                )
                messages.append({"severity": "info", "pos": pos(number), "endPos": pos(number, 14), "data": data})
        checked = re.match(r"theorem (\S+) : type_of% @(\S+) := @(\S+)", line)
        if checked:
            check, ref, name = checked.groups()
            if name not in decls:
                messages.append(
                    {
                        "severity": "error",
                        "pos": pos(number, 40),
                        "endPos": None,
                        "data": f"unknown identifier '{name}'",
                    }
                )
            elif ref not in decls or decls[ref]["type"] != decls[name]["type"]:
                messages.append({"severity": "error", "pos": pos(number, 40), "endPos": None, "data": "type mismatch"})
            else:
                decls[check] = {"type": decls[name]["type"], "axioms": decls[name]["axioms"]}
    out: dict = {}
    if sorries:
        out["sorries"] = sorries
    if messages:
        out["messages"] = messages
    out["env"] = new_env(decls)
    return out


def handle(req: dict) -> dict:
    if "cmd" in req:
        return run_cmd(req["cmd"], req.get("env"))
    if "pickleTo" in req:
        if req.get("env") not in envs:
            return {"message": "Unknown environment."}
        with open(req["pickleTo"], "w") as fh:
            json.dump(envs[req["env"]], fh)
        return {"env": req["env"]}
    if "unpickleEnvFrom" in req:
        with open(req["unpickleEnvFrom"]) as fh:
            decls = json.load(fh)
        log("unpickle")
        return {"env": new_env(decls)}
    if "tactic" in req:
        return {"message": "Lean error:\nthe stand-in has no tactic mode"}
    return {"message": "Could not parse as a valid JSON command"}


def main() -> None:
    log("start")
    buffer = ""
    for line in sys.stdin:
        if line.strip():
            buffer += line
            continue
        if buffer.strip():
            resp = handle(json.loads(buffer))
            if resp:
                send(resp)
        buffer = ""
    if buffer.strip():
        resp = handle(json.loads(buffer))
        if resp:
            send(resp)


if __name__ == "__main__":
    main()
