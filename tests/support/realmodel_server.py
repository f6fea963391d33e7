"""A real ``llama-server`` on 127.0.0.1 for the ``realmodel`` tests (tests/test_realmodel.py).

What it serves: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF) through llama.cpp's OpenAI-compatible
chat completions, both made by ``.ci/realmodel-setup`` (pinned, hash-checked, cached outside the
repo). :func:`prepared_files` runs that script (well under a second when the cache is current;
a full set-up of a few minutes otherwise) and returns the paths it prints.

:class:`LlamaServer` starts the binary on a free loopback port and waits until ``/health``
says ok — polling, with progress meaning "the process is still alive and loading" — and
:meth:`LlamaServer.stop` ends it (SIGTERM, then SIGKILL). Sampling: ``--temp 0`` (the provider
sends no temperature, so the server default is what every request uses; the tests read it
back from ``/slots``), one slot (``-np 1``) so consecutive requests reuse the cached prompt
prefix, a fixed seed, and at most :data:`MAX_TOKENS` tokens per reply.

:meth:`LlamaServer.processing` lets waits depend on progress: a slot that is processing a
request is progress, an idle server is not. :meth:`LlamaServer.slot` shows what the last
request was (its prompt as rendered through the chat template, and its sampling parameters).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / ".ci" / "realmodel-setup"
ALIAS = "qwen2.5-coder-1.5b"
CONTEXT = 8192
MAX_TOKENS = 512  # per reply (a tool call takes ~80-200): bounds a rambling reply's time
START_TIMEOUT = 300.0  # seconds for the model to load, while the process lives
POLL = 0.25
_POLL_NOISE = ("GET /slots", "GET /health", "all slots are idle")


class ServerError(RuntimeError):
    """The server could not be prepared or started; the message says why (with its log)."""


def prepared_files() -> tuple[Path, Path]:
    """Run ``.ci/realmodel-setup``; return (model, server binary)."""
    done = subprocess.run([str(SETUP)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ServerError(f".ci/realmodel-setup failed ({done.returncode}):\n{done.stderr[-3000:]}")
    paths = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    return Path(paths["MODEL"]), Path(paths["SERVER"])


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class LlamaServer:
    """One ``llama-server`` process serving :data:`ALIAS` on 127.0.0.1."""

    def __init__(self, binary: Path, model: Path, log: Path) -> None:
        self.binary, self.model, self.log = binary, model, log
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    def argv(self) -> list[str]:
        threads = str(os.cpu_count() or 2)
        return [
            str(self.binary), "-m", str(self.model), "--jinja", "--alias", ALIAS,
            "--host", "127.0.0.1", "--port", str(self.port), "-c", str(CONTEXT),
            "-t", threads, "-np", "1", "--temp", "0", "--seed", "1", "-n", str(MAX_TOKENS),
            "--no-webui", "--slots",
        ]  # fmt: skip

    def start(self) -> None:
        """Start on a free port (another one if that port was taken meanwhile)."""
        for _ in range(3):
            self.port = free_port()
            with self.log.open("ab") as out:
                self.proc = subprocess.Popen(
                    self.argv(), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL
                )
            if self._wait_healthy():
                return
        raise ServerError(f"llama-server did not start:\n{self.log_tail()}")

    def _wait_healthy(self) -> bool:
        """Poll ``/health`` while the process lives; False if it exited (port taken)."""
        assert self.proc is not None
        deadline = time.monotonic() + START_TIMEOUT
        while self.proc.poll() is None:
            if self._get("/health", quiet=True) == {"status": "ok"}:
                return True
            if time.monotonic() > deadline:
                self.stop()
                raise ServerError(
                    f"llama-server not healthy in {START_TIMEOUT:g} s:\n{self.log_tail()}"
                )
            time.sleep(POLL)
        return False

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def log_tail(self, lines: int = 40) -> str:
        """The log's last ``lines``, without the lines of the tests' own polling."""
        try:
            text = self.log.read_text(errors="replace")
        except OSError:
            return "(no log)"
        kept = [line for line in text.splitlines() if not any(n in line for n in _POLL_NOISE)]
        return "\n".join(kept[-lines:])

    # -- reading the server --------------------------------------------------------------
    def _get(self, path: str, *, quiet: bool = False) -> Any:
        try:
            with urllib.request.urlopen(self.origin + path, timeout=30) as response:
                return json.loads(response.read())
        except (urllib.error.URLError, OSError, ValueError):
            if quiet:
                return None
            raise

    def slot(self) -> dict[str, Any]:
        """The one slot's state: ``params`` of its last task, its last ``prompt`` (rendered
        through the chat template), ``is_processing`` and ``next_token.n_decoded``."""
        slots = self._get("/slots")
        assert isinstance(slots, list) and len(slots) == 1, slots
        return dict(slots[0])

    def processing(self) -> bool:
        """True while the slot works on a request (reading the prompt or generating)."""
        slots = self._get("/slots", quiet=True)
        return isinstance(slots, list) and bool(slots) and bool(slots[0].get("is_processing"))
