"""Without the hub, nothing of it loads: the plain REPL, line mode and ``-p`` run whole sessions
without importing the MCP SDK (``mcp``), pydantic or starlette ("the plain REPL's
launch time and memory must not move"; the figures: bench/hub_bench.py).

Each run is the real ``asks.cli.main`` in a fresh interpreter, wrapped so that on the way out
it writes which of :data:`HUB_MODULES` were ever imported: the REPL under a pty (a question
answered by keys, the agent woken, ``/quit``), line mode on pipes, ``-p`` with the scripted
model and with a real provider (the OpenAI-compatible fake on 127.0.0.1). The same wrapper
with ``--mcp`` finds them loaded, so the check can see what it looks for.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.fake_openai import FakeOpenAI, Reply
from support.pty_harness import ROOT, PtyApp

HUB_MODULES = (
    "mcp",
    "mcp_types",
    "pydantic",
    "pydantic_core",
    "starlette",
    "sse_starlette",
    "asks.cli.hub",
    "asks.hub.server",
    "asks.hub.tools",
    "asks.hub.guard",
)
WRAP = (
    "import sys, asks.cli\n"
    "try:\n"
    "    code = asks.cli.main(sys.argv[2:])\n"
    "finally:\n"
    f"    loaded = sorted(m for m in {HUB_MODULES!r} if m in sys.modules)\n"
    "    open(sys.argv[1], 'w').write(' '.join(loaded))\n"
    "sys.exit(code)\n"
)
SCRIPTS = Path(__file__).resolve().parent / "scripts"


def env_for(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "config").mkdir(exist_ok=True)
    return {
        **{k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"},
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "PYTHONPATH": str(ROOT),
    }


def run_wrapped(
    tmp_path: Path, *args: str, stdin: str = "", **env: str
) -> tuple[subprocess.CompletedProcess[str], str]:
    out = tmp_path / "loaded.txt"
    done = subprocess.run(
        [sys.executable, "-c", WRAP, str(out), "--data-dir", str(tmp_path / "data"), *args],
        input=stdin,
        capture_output=True,
        text=True,
        env={**env_for(tmp_path), **env},
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    return done, out.read_text()


@pytest.mark.e2e
@pytest.mark.parametrize("hub", [False, True], ids=["plain", "with --mcp (control)"])
def test_the_repl_never_loads_the_mcp_sdk(tmp_path: Path, hub: bool) -> None:
    out = tmp_path / "loaded.txt"
    extra = ["--mcp", "--mcp-port", "0"] if hub else []
    app = PtyApp(
        [
            str(out),
            "--data-dir",
            str(tmp_path / "data"),
            "--script",
            str(SCRIPTS / "wake.toml"),
            *extra,
        ],
        env=env_for(tmp_path),
        program=("-c", WRAP),
    )
    try:
        app.wait_for(r"╎ Pick a number\?")
        app.press("shift tab")
        app.wait_for(r"┌─ Questions")
        app.press("enter")  # One: the answer wakes the idle agent
        app.wait_for(r"WAKE-ACK: One")
        app.type("/quit")
        app.press("enter")
        assert app.wait_exit() == 0
    finally:
        app.close()
    loaded = out.read_text().split()
    if hub:
        assert {"mcp", "pydantic", "starlette", "asks.hub.server"} <= set(loaded)
    else:
        assert loaded == []


def test_line_mode_never_loads_the_mcp_sdk(tmp_path: Path) -> None:
    done, loaded = run_wrapped(
        tmp_path, "--line", "--script", str(SCRIPTS / "line_async.toml"), stdin="hello\n"
    )
    assert done.returncode == 0, done.stderr
    assert loaded == ""


HEADLESS = """
[[step]]
on = "message"
[[step.reply]]
say = "You said: {user}"
delay = 0
"""


def test_print_mode_never_loads_the_mcp_sdk(tmp_path: Path) -> None:
    script = tmp_path / "script.toml"
    script.write_text(HEADLESS)
    done, loaded = run_wrapped(tmp_path, "-p", "hello there", "--script", str(script))
    assert done.returncode == 0 and "You said: hello there" in done.stdout, done.stderr
    assert loaded == ""
    with FakeOpenAI() as server:
        server.queue(Reply("From the provider."))
        done, loaded = run_wrapped(tmp_path, "-p", "hi", "--model", "m", "--base-url", server.url)
    assert done.returncode == 0 and "From the provider." in done.stdout, done.stderr
    assert loaded == ""
