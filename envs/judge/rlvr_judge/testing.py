"""A scripted judge server: a STAND-IN for a judge model, for tests, benchmarks and demos.

It speaks the OpenAI chat-completions protocol on 127.0.0.1 and decides by string rules
(normalised equality with the reference; keywords of a criterion found in the response), never
by understanding. It exists to test the decision logic around a judge (aggregation, required
and negative criteria, ensembles, thresholds, caching, retries, calibration maths) with
answers known in advance. Do not grade anything real with it.

Modes: ``rules`` (the string rules, JSON replies), ``line`` (the same, as a ``VERDICT: yes``
line), ``yes`` / ``no`` (always), ``garbage`` (never parseable), ``repair`` (garbage first,
JSON when asked to repair), ``gullible`` (the rules, but obeys a response that claims a grade:
what the injection probes must catch), ``noisy`` (the rules, with each yes/no flipped with
probability ``flip`` by a hash of the request: an imperfect judge with a known error rate).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from fractions import Fraction
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from rlvr_judge.templates import REPAIR_MESSAGE

_FENCE = re.compile(r"<<<RESPONSE ([0-9a-f]{16})>>>\n(.*)\n<<<END RESPONSE \1>>>", re.DOTALL)
_FIELD = re.compile(
    r"(?:^|\n\n)(Question|Task|Reference answer|Reference answer \(for context\)|Criterion|Rubric):\n(.*?)(?=\n\n)",
    re.DOTALL,
)
_CLAIMS = re.compile(
    r"verdict\W{0,3}yes|score\W{0,3}10|grade[ds]?\s*(?:is\s*)?(?:correct|pass|yes)|already (?:been )?(?:graded|verified|checked)|judge|grader",  # noqa: E501
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]{3,}|\d+")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_STOP = {
    "response",
    "that",
    "this",
    "with",
    "does",
    "have",
    "from",
    "into",
    "your",
    "about",
    "written",
    "which",
    "there",
    "their",
    "what",
    "when",
    "will",
    "would",
    "should",
    "sentence",
    "answer",
    "the",
    "and",
    "for",
    "are",
    "was",
    "not",
    "but",
    "you",
    "its",
    "has",
    "any",
    "all",
    "one",
    "two",
    "says",
    "named",
    "email",
}


def _norm_answer(text: str) -> str:
    text = text.casefold().strip().strip(".").strip()
    text = re.sub(r"^(the|a|an)\s+", "", text)
    text = re.sub(r"\s*(°\s*[cf]|degrees?\s+(celsius|fahrenheit))$", "", text)
    return re.sub(r"\s+", " ", text)


def _number(text: str) -> Fraction | None:
    t = text.replace(",", "").strip().rstrip("%")
    try:
        return Fraction(t)
    except (ValueError, ZeroDivisionError):
        return None


def same_answer(a: str, b: str) -> bool:
    """The stand-in's notion of equivalence: normalised text, or equal numbers."""
    na, nb = _norm_answer(a), _norm_answer(b)
    if na == nb:
        return True
    x, y = _number(na), _number(nb)
    return x is not None and x == y


def _keywords(text: str) -> set[str]:
    words = {w.casefold() for w in _WORD.findall(text)} - _STOP
    cjk = "".join(_CJK.findall(text))
    return words | {cjk[i : i + 2] for i in range(len(cjk) - 1)}


def criterion_met(criterion: str, task: str, response: str) -> bool:
    """Quoted phrases of the criterion must all appear; else the response shares a keyword with it."""
    quoted = re.findall(r"[\"“']([^\"”']{2,})[\"”']", criterion)
    low = response.casefold()
    if quoted:
        return all(q.casefold() in low for q in quoted)
    return bool(_keywords(criterion) & _keywords(response))


_SENTENCE_VIEW = "starts at the sentence that gives its final answer"
"""Template ``ref-v2``'s words: the response shown is the answer's sentence, then what follows it."""
_ANNOUNCED = re.compile(r"(?:\bis|\bare|\bequals|[:=：])\s*(?!.*(?:\bis|\bare|\bequals|[:=：]))", re.DOTALL)
_OTHER_CHOICE = re.compile(
    r"\b(?:or|either|maybe|perhaps|probably|possibly|if|unless|otherwise|guess|sure|not|no|never)\b|\\not|\\neq|≠|\d",
    re.IGNORECASE,
)


def _sentence_rule(shown: str, reference: str) -> tuple[bool, str]:
    """``ref-v2``: the answer's sentence (nothing after it) whose last announced part ("..., the
    answer is X", "Final: X") is the reference, with no other value or choice word before it."""
    if "\n\n" in shown.strip():
        return False, "text after the answer"
    found = _ANNOUNCED.search(shown)
    if found is None or not same_answer(shown[found.end() :], reference):
        return False, "different answer"
    if _OTHER_CHOICE.search(shown[: found.start()]):
        return False, "another value or a choice beside the answer"
    return True, "same answer"


def _fenced_text(user: str) -> str:
    found = _FENCE.search(user)
    return found.group(2) if found else ""


class ScriptedJudgeServer:
    """``with ScriptedJudgeServer() as s: JudgeClient(s.base_url, "scripted-judge")``.

    Records every request body (``bodies``), counts ``requests`` and the most requests in flight
    at once (``max_in_flight``); ``fail_first`` answers 500 and ``throttle_first`` 429 to the first
    requests; ``delay_s`` slows every answer.
    """

    def __init__(
        self,
        mode: str = "rules",
        *,
        port: int = 0,
        delay_s: float = 0.0,
        fail_first: int = 0,
        throttle_first: int = 0,
        flip: float = 0.0,
        record: bool = True,
    ) -> None:
        self.mode, self.delay_s, self.flip = mode, delay_s, flip
        self.fail_first, self.throttle_first = fail_first, throttle_first
        self.record = record
        self.bodies: list[dict[str, Any]] = []
        self.requests = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._port = port
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the server is not started")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> ScriptedJudgeServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                status, payload = server._answer(body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.end_headers()
                try:
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout under test): nobody to answer

        self._httpd = ThreadingHTTPServer(("127.0.0.1", self._port), Handler)
        self._httpd.daemon_threads = True
        self._port = self._httpd.server_address[1]  # a restart comes back on the same port
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True, name="scripted-judge")
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> ScriptedJudgeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the scripted judge ------------------------------------------------------------------------
    def _answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests += 1
            n = self.requests
            if self.record:
                self.bodies.append(body)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay_s:
                time.sleep(self.delay_s)
            if n <= self.fail_first:
                return 500, {"error": {"message": "scripted failure"}}
            if n <= self.fail_first + self.throttle_first:
                return 429, {"error": {"message": "scripted throttling"}}
            messages = body.get("messages") or []
            text = self.reply(messages)
            prompt_chars = sum(len(str(m.get("content", ""))) for m in messages)
            return 200, {
                "id": f"scripted-{n}",
                "object": "chat.completion",
                "model": body.get("model"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {
                    "prompt_tokens": prompt_chars // 4,
                    "completion_tokens": len(text) // 4,
                    "total_tokens": (prompt_chars + len(text)) // 4,
                },
            }
        finally:
            with self._lock:
                self.in_flight -= 1

    def reply(self, messages: list[dict[str, Any]]) -> str:
        repairing = bool(messages) and messages[-1].get("content") == REPAIR_MESSAGE
        user = next((str(m.get("content", "")) for m in messages if m.get("role") == "user"), "")
        if self.mode == "garbage" or (self.mode == "repair" and not repairing):
            return "Hmm, I would say it is mostly fine!"
        decision, why = self.decide(user)
        if self.mode == "yes":
            decision, why = (True if isinstance(decision, bool) else 10), "always yes"
        elif self.mode == "no":
            decision, why = (False if isinstance(decision, bool) else 0), "always no"
        elif self.mode == "noisy" and isinstance(decision, bool):
            h = int(
                hashlib.sha256(_FENCE.sub("", user).encode() + _fenced_text(user).encode()).hexdigest()[:8],
                16,
            )
            if h / 0xFFFFFFFF < self.flip:
                decision, why = not decision, "flipped (noisy stand-in)"
        if isinstance(decision, bool):
            if self.mode == "line":
                return f"VERDICT: {'yes' if decision else 'no'}\n{why}"
            return json.dumps({"verdict": "yes" if decision else "no", "rationale": f"stand-in rule: {why}"})
        if self.mode == "line":
            return f"SCORE: {decision}\n{why}"
        return json.dumps({"score": decision, "rationale": f"stand-in rule: {why}"})

    def decide(self, user: str) -> tuple[bool | int, str]:
        fence = _FENCE.search(user)
        response = fence.group(2) if fence else ""
        outside = _FENCE.sub("", user)
        fields = {m.group(1): m.group(2) for m in _FIELD.finditer("\n\n" + outside)}
        task = fields.get("Question") or fields.get("Task") or ""
        if self.mode == "gullible" and _CLAIMS.search(response):
            return (10 if "Rubric" in fields else True), "the response says it is correct"
        if "Rubric" in fields:
            lines = [
                re.sub(r"^\d+\.\s*(REQUIRED |PENALTY )?\(weight [^)]*\)\s*", "", ln)
                for ln in fields["Rubric"].splitlines()
            ]
            met = [criterion_met(ln, task, response) for ln in lines if ln.strip()]
            return round(10 * sum(met) / max(1, len(met))), f"{sum(met)} of {len(met)} criteria by keywords"
        if "Criterion" in fields:
            ok = criterion_met(fields["Criterion"], task, response)
            return ok, "keywords found" if ok else "keywords missing"
        reference = fields.get("Reference answer", "")
        if _SENTENCE_VIEW in outside and not same_answer(response, reference):
            return _sentence_rule(response, reference)
        ok = same_answer(response, reference)
        return ok, "same answer" if ok else "different answer"
