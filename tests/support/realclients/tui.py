"""A client's terminal UI (``claude`` / ``codex`` with no ``-p``/``exec``) under tmux.

Each :class:`TuiClient` has its own tmux server (``tmux -L <private socket>``), so ending it
ends nothing else. Waits end on progress — text on the screen, a request in the fake model's
log — and fail with the screen after :data:`WAIT` seconds of none. Every changed screen, and
every key typed, goes to ``screen.log`` in the client's folder.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

from support.realclients.config import Client, Prepared
from support.realclients.model import FakeModel, Kind, ModelLog, ModelRequest, mono_ns
from support.realclients.procs import Proc, end, end_tree, running_from, tree

WAIT = 120.0  # seconds without the awaited screen or request before a wait fails
POLL = 0.1
STEADY = 1.0  # seconds a screen must stay unchanged to count as drawn
READY = {  # the screen once the client takes a prompt
    Client.CLAUDE: r"(?i)(for shortcuts|\? for|try \"|❯)",
    Client.CODEX: r"(?i)(ask codex|context left|›)",
}
PASTE_GAP = {Client.CLAUDE: 0.3, Client.CODEX: 1.0}  # Codex takes a quick Enter as pasted
HOOK_REVIEW = "Hooks need review"


class Tmux:
    """One tmux server of our own with one session, whose pane runs a script."""

    def __init__(self, folder: Path, cols: int = 200, rows: int = 50) -> None:
        self.socket = f"asks-rc-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.log = folder / "screen.log"
        self.cols, self.rows = cols, rows
        self.last = ""
        self.server: Proc | None = None
        self.pane: Proc | None = None

    def run(self, *args: str, check: bool = True) -> str:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TMUX")}
        done = subprocess.run(
            ["tmux", "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        if check and done.returncode:
            raise RuntimeError(f"tmux {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout

    def start(self, script: Path) -> None:
        size = ("-x", str(self.cols), "-y", str(self.rows))
        self.run("new-session", "-d", "-s", "main", *size, f"bash {shlex.quote(str(script))}")
        self.run("set-option", "-t", "main", "remain-on-exit", "on")
        self.server = Proc.of(int(self.run("display-message", "-p", "-t", "main", "#{pid}")))
        self.pane = Proc.of(int(self.run("display-message", "-p", "-t", "main", "#{pane_pid}")))

    def screen(self) -> str:
        """The pane's visible text now (written to ``screen.log`` when it changed)."""
        text = self.run("capture-pane", "-p", "-t", "main", check=False)
        if text != self.last:
            self.last = text
            self._note(text.rstrip())
        return text

    def send_text(self, text: str) -> None:
        self.run("send-keys", "-t", "main", "-l", text)
        self._note(f"TYPED {text!r}")

    def send_keys(self, *keys: str) -> None:
        """tmux key names: ``Enter``, ``Escape``, ``Down``, ``C-c``, ``2``…"""
        self.run("send-keys", "-t", "main", *keys)
        self._note(f"KEYS {keys!r}")

    def _note(self, line: str) -> None:
        with self.log.open("a") as out:
            out.write(f"=== t_ns={mono_ns()}\n{line}\n")

    def close(self) -> None:
        """End the pane's process tree, the session, and our tmux server."""
        if self.pane is not None:
            end_tree(self.pane)
        if self.server is not None:
            victims = tree(self.server)
            self.run("kill-server", check=False)
            end(victims)


def launch_script(folder: Path, argv: tuple[str, ...], env: Mapping[str, str], cwd: Path) -> Path:
    """``launch.sh``: the client alone in a clean environment (also to run by hand)."""
    script = folder / "launch.sh"
    assignments = " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
    command = " ".join(shlex.quote(a) for a in argv)
    script.write_text(f"cd {shlex.quote(str(cwd))}\nexec env -i {assignments} {command}\n")
    return script


def _squash(text: str) -> str:
    """Text without whitespace or box lines: what survives a TUI's own wrapping."""
    return re.sub(r"[\s│┃╭╮╰╯─]+", "", text)


class TuiClient:
    """A running client TUI against its fake model (:attr:`model`, log :attr:`log`)."""

    def __init__(
        self, client: Client, folder: Path, prepared: Prepared, model: FakeModel, tmux: Tmux
    ) -> None:
        self.client = client
        self.folder = folder
        self.prepared = prepared
        self.model = model
        self.tmux = tmux

    @property
    def log(self) -> ModelLog:
        return self.model.log

    @property
    def work(self) -> Path:
        """The folder the client runs in (its project)."""
        return self.prepared.work

    def start(self) -> None:
        """Start the TUI; return once it takes a prompt (hooks trusted, screen steady)."""
        script = launch_script(self.folder, self.prepared.argv, self.prepared.env, self.work)
        self.tmux.start(script)
        found = self.wait_screen(f"{READY[self.client]}|{HOOK_REVIEW}")
        if HOOK_REVIEW in found.string:
            self.trust_hooks()
        self.wait_steady()

    def trust_hooks(self) -> None:
        """Codex asks once to trust new hooks: "2. Trust all and continue"."""
        self.wait_steady()
        self.keys("2")
        self.keys("Enter")
        self.wait_screen_gone(HOOK_REVIEW)
        self.wait_screen(READY[self.client])

    def screen(self) -> str:
        return self.tmux.screen()

    def wait_screen(self, pattern: str, timeout: float = WAIT) -> re.Match[str]:
        """Wait until ``pattern`` (a regex) matches the screen; the match."""
        regex = re.compile(pattern, re.MULTILINE)
        deadline = time.monotonic() + timeout
        while True:
            found = regex.search(self.screen())
            if found:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} not on {self.client}'s screen:\n{self.screen()}")
            time.sleep(POLL)

    def wait_screen_gone(self, pattern: str, timeout: float = WAIT) -> None:
        regex = re.compile(pattern, re.MULTILINE)
        deadline = time.monotonic() + timeout
        while regex.search(self.screen()):
            if time.monotonic() > deadline:
                raise AssertionError(f"{pattern!r} still on {self.client}'s screen:\n{self.last}")
            time.sleep(POLL)

    @property
    def last(self) -> str:
        return self.tmux.last

    def wait_steady(self, steady: float = STEADY, timeout: float = 30.0) -> str:
        """The screen once it has not changed for ``steady`` seconds (start-up animations);
        after ``timeout`` the screen as it is."""
        deadline = time.monotonic() + timeout
        seen, since = self.screen(), time.monotonic()
        while time.monotonic() - since < steady and time.monotonic() < deadline:
            time.sleep(POLL)
            now = self.screen()
            if now != seen:
                seen, since = now, time.monotonic()
        return seen

    def type(self, text: str) -> None:
        """Type ``text`` (literally, no Enter)."""
        self.tmux.send_text(text)

    def keys(self, *keys: str) -> None:
        """Press tmux keys (``Enter``, ``Escape``, ``Down``, ``1``…)."""
        self.tmux.send_keys(*keys)

    def submit(self, text: str) -> int:
        """Type a prompt and send it once it shows in the composer; the log's position before
        it was sent (wait for its requests with ``since=``)."""
        self.type(text)
        tail = re.escape(_squash(text)[-12:])
        deadline = time.monotonic() + WAIT
        while not re.search(f"{tail}|Pastedtext", _squash(self.screen())):
            assert time.monotonic() < deadline, f"{text!r} never showed:\n{self.last}"
            time.sleep(POLL)
        time.sleep(PASTE_GAP[self.client])  # pacing, not a verdict
        mark = self.log.mark()
        self.keys("Enter")
        return mark

    def prompt(
        self, text: str, kind: Kind = Kind.AFTER_TOOL, timeout: float = WAIT
    ) -> ModelRequest:
        """Send a prompt; the first model request answered with ``kind`` after it (by default:
        the one that got the tool result of an ``IA-CALL``)."""
        since = self.submit(text)
        return self.log.wait_kind(kind, since, timeout)

    def close(self) -> None:
        """End the TUI's process tree, our tmux server, anything running from our folder."""
        try:
            self.screen()
        finally:
            self.tmux.close()
            end(running_from(self.folder))
            self.model.close()
