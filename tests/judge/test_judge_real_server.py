"""The whole path against a real OpenAI-compatible server: ``transformers serve`` on 127.0.0.1.

The model is the tiny judge built here (``rlvr_judge.tiny_judge``, no download), taught for a few
seconds to answer the reference and criterion templates with one fixed verdict; on the holistic
template it was never shown it says whatever its weights say. Checked: request shape accepted,
parsing of what it says (verifier_error when unreadable, after one repair), token accounting,
caching, concurrency, and retries while the server is killed and restarted.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

import rlvr_envs
from rlvr_envs.types import Reason
from tests.judge import conformance  # noqa: F401 -- loads the plugin at collection

pytestmark = pytest.mark.slow


def _transformers_cli() -> str | None:
    found = Path(sys.executable).with_name("transformers")
    if found.exists():
        return str(found)
    return shutil.which("transformers")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    def __init__(self, model_dir: Path, port: int) -> None:
        self.model_dir, self.port = model_dir, port
        self.proc: subprocess.Popen | None = None
        self.base_url = f"http://127.0.0.1:{port}/v1"

    def start(self, wait_s: float = 120) -> None:
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1"}
        cli = _transformers_cli()
        if cli is None:
            raise RuntimeError("the `transformers` command is not installed")
        cmd = [cli, "serve", str(self.model_dir), "--host", "127.0.0.1", "--port", str(self.port),
               "--device", "cpu"]  # fmt: skip
        self.proc = subprocess.Popen(
            cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"transformers serve exited with {self.proc.returncode}")
            try:
                with urllib.request.urlopen(self.base_url + "/models", timeout=2):
                    return
            except OSError:
                time.sleep(0.5)
        raise RuntimeError("transformers serve did not come up in time")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)  # its own session: the server and any child it started
            self.proc.wait(timeout=30)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    if _transformers_cli() is None:
        pytest.skip("the `transformers` command is not installed")
    from transformers.utils.import_utils import is_serve_available

    if not is_serve_available():
        pytest.skip("transformers serve needs the serving extra (pip install 'rlvr-envs-judge[serving]')")
    from rlvr_judge.tiny_judge import build_tiny_judge

    model_dir = build_tiny_judge(tmp_path_factory.mktemp("tiny-judge"), train_steps=40)
    server = Served(model_dir, _free_port())
    server.start()
    yield server
    server.stop()


def _env(served, env_id="judge-ref", **kw):
    kw.setdefault("cache", ":memory:")
    return rlvr_envs.make(env_id, base_url=served.base_url, model=str(served.model_dir), max_tokens=16, **kw)


def test_real_server_verdicts_tokens_and_cache(served):
    env = _env(served, data=[{"prompt": "What is 3 + 4?", "reference": "7"}])
    first = env.verify(env.tasks[0], "<answer>7</answer>")
    stats = env.judge_stats()["judges"][str(served.model_dir)]
    assert first.reason in (Reason.WRONG, Reason.OK), first.details  # the taught reply parses
    assert first.details["votes"] == ["no"] and first.details["template"] == "ref-v2"
    assert stats["prompt_tokens"] > 100 and stats["completion_tokens"] > 0  # the server's usage is counted
    second = env.verify(env.tasks[0], "<answer>7</answer>")
    assert second == first and env.judge_stats()["judges"][str(served.model_dir)]["requests"] == stats["requests"]
    assert env.judge_stats()["cache"]["hits"] == 1


def test_whatever_the_untaught_template_gets_is_a_verdict_or_verifier_error(served):
    row = {"prompt": "Describe Paris.", "rubric": [{"text": "Mentions the Eiffel tower."}, {"text": "Is polite."}]}
    env = _env(served, "rubric", data=[row], aggregation="implicit", cache=False)
    verdict = env.verify(env.tasks[0], "Paris has the Eiffel tower.")
    stats = env.judge_stats()["judges"][str(served.model_dir)]
    if verdict.reason is Reason.VERIFIER_ERROR:
        assert "after one repair" in verdict.details["error"] and stats["requests"] == 2 and stats["repairs"] == 1
    else:
        assert 0.0 <= verdict.reward <= 1.0 and verdict.details["template"] == "holistic-v0"


def test_concurrent_calls_all_complete(served):
    rows = [{"prompt": f"What is {i} + 1?", "reference": str(i + 1)} for i in range(6)]
    env = _env(served, data=rows, cache=False, max_concurrency=3)
    verdicts = env.verify_batch(list(env.tasks), [f"<answer>{i + 1}</answer>" for i in range(6)])
    assert [v.reason for v in verdicts] == [Reason.WRONG] * 6  # the taught "no", for every call


def test_retries_while_the_server_is_killed_and_restarted(served):
    env = _env(served, data=[{"prompt": "What is 5 + 5?", "reference": "10"}], cache=False,
               max_retries=40, backoff_s=1.0, max_backoff_s=4.0, timeout_s=30)  # fmt: skip
    # 40 retries: ~100 s of attempts, room for a restart of `transformers serve` on a loaded machine.
    served.stop()
    down = _env(served, data=[{"prompt": "Q", "reference": "1"}], cache=False, max_retries=0)
    assert down.verify(down.tasks[0], "<answer>1</answer>").reason is Reason.VERIFIER_ERROR
    result = {}
    worker = threading.Thread(target=lambda: result.update(v=env.verify(env.tasks[0], "<answer>10</answer>")))
    worker.start()
    time.sleep(1.5)  # the first attempts fail: connection refused
    served.start()
    worker.join(timeout=240)
    assert not worker.is_alive()
    stats = env.judge_stats()["judges"][str(served.model_dir)]
    assert result["v"].reason is Reason.WRONG and stats["retries"] >= 1
