"""Unexpected errors leave a trace: one line for the person, the traceback in
the opt-in debug log (``--debug-log FILE`` / ``$ASKS_DEBUG_LOG``, asks/core/diagnostics.py),
never on the terminal; a bug is never reported as a usage error. In process (the agent with a
crashing tool, the web bridge over real HTTP, the hub's SDK loggers), as a command (``asks -p``
against a real server) and the REPL under a pty."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import trio
from support.agent_rig import AgentRig
from support.fake_openai import FakeOpenAI, Reply
from support.hub import TOKEN, keyring_with
from support.pty_harness import PtyApp
from support.rig import Rig

from asks import cli
from asks.agent.loop import AgentState, ToolCall, ToolContext
from asks.agent.transcript import EntryKind
from asks.cli import session as cli_session
from asks.core import diagnostics
from asks.hub.listen import bind_listener
from asks.hub.server import HubServer
from asks.surfaces.web import WebBridge

ROOT = Path(__file__).resolve().parents[1]
CRASH = """
[[step]]
on = "message"
[[step.reply]]
say = "Crashing."
delay = 0
[[step.reply.call]]
tool = "crasher"
args = {}
[[step.reply]]
say = "never"
delay = 0
"""


@pytest.fixture
def debug_log(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "debug.log"
    log = diagnostics.open_debug_log(path)
    try:
        yield path
    finally:
        log.close()


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


class Crasher:
    """A tool with a bug."""

    name = "crasher"

    def schema(self) -> dict[str, Any]:
        return {"type": "function", "function": {"name": self.name, "parameters": {}}}

    async def run(self, call: ToolCall, context: ToolContext) -> str:
        return lookup_the_missing_key({})


def lookup_the_missing_key(table: dict[str, str]) -> str:
    return table["oops"]


async def crash_once(tmp_path: Path) -> Any:

    rig = AgentRig(tmp_path, CRASH)
    rig.agent.tools.append(Crasher())
    async with trio.open_nursery() as nursery:
        nursery.start_soon(rig.agent.run)
        rig.agent.send("go")
        await rig.until(lambda: rig.texts(EntryKind.ERROR))
        await rig.until(lambda: rig.agent.state is AgentState.IDLE)
        nursery.cancel_scope.cancel()
    return rig


async def test_a_crash_in_a_tool_is_one_line_and_the_debug_log_has_its_traceback(
    tmp_path: Path, debug_log: Path
) -> None:
    rig = await crash_once(tmp_path)
    assert rig.texts(EntryKind.ERROR) == [f"KeyError: 'oops' (details: {debug_log})"]
    assert rig.texts(EntryKind.TOOL) == ["crasher → failed"]  # not "interrupted"
    text = read(debug_log)
    assert "ERROR asks.agent.loop: the turn failed" in text
    assert "Traceback" in text and "lookup_the_missing_key" in text
    assert "KeyError: 'oops'" in text
    assert mode(debug_log) == 0o600
    tool_result = next(m for m in rig.agent.messages if m.role == "tool")
    assert tool_result.content.startswith("Error [interrupted]: the turn failed")


async def test_without_a_debug_log_the_line_says_how_to_get_one_and_nothing_is_printed(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    root = logging.getLogger()
    kept = root.handlers[:]
    root.handlers.clear()  # as in the REPL: nobody configured logging (pytest's own aside)
    try:
        rig = await crash_once(tmp_path)
    finally:
        root.handlers[:] = kept
    assert rig.texts(EntryKind.ERROR) == ["KeyError: 'oops' (details: --debug-log FILE)"]
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")  # Python's last-resort handler would print on the screen


def test_the_debug_log_is_created_private_and_never_a_terminal(tmp_path: Path) -> None:
    existing = tmp_path / "old.log"
    existing.write_text("kept\n")
    existing.chmod(0o644)
    log = diagnostics.open_debug_log(existing)
    try:
        assert diagnostics.debug_log_path() == existing
        with pytest.raises(diagnostics.DebugLogError, match="already open"):
            diagnostics.open_debug_log(tmp_path / "second.log")
    finally:
        log.close()
    assert diagnostics.debug_log_path() is None
    assert mode(existing) == 0o600 and read(existing).startswith("kept\n")
    parent, child = os.openpty()
    try:
        with pytest.raises(diagnostics.DebugLogError, match="is a terminal"):
            diagnostics.open_debug_log(Path(os.ttyname(child)))
    finally:
        os.close(parent)
        os.close(child)
    with pytest.raises(diagnostics.DebugLogError, match="cannot open the debug log"):
        diagnostics.open_debug_log(tmp_path / "no" / "such" / "dir.log")


# ---------------------------------------------------------------------------------- the CLI
def boom(*args: object, **kwargs: object) -> None:
    raise ValueError("a bug, not the person's mistake")


def test_a_value_error_bug_is_not_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``cli.main`` turned any ValueError into 'asks: …', exit 2, as if the person erred."""
    monkeypatch.setattr(cli_session, "build_session", boom)
    monkeypatch.delenv(diagnostics.ENV, raising=False)
    words = ["--data-dir", str(tmp_path / "data"), "-p", "hi"]
    with pytest.raises(ValueError, match="a bug"):  # no log: Python's traceback, exit 1
        cli.main(words)
    log = tmp_path / "debug.log"
    assert cli.main(["--debug-log", str(log), *words]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == (
        f"asks: unexpected error: ValueError: a bug, not the person's mistake (details: {log})"
    )
    assert "Traceback" in read(log) and "in boom" in read(log)
    assert diagnostics.debug_log_path() is None  # closed on the way out


@pytest.mark.parametrize(
    ("words", "said"),
    [
        (["--resume", "../escape"], "invalid session id '../escape'"),
        (["--script", "x.toml", "--model", "m"], "--script and --model cannot be combined"),
        (["--model", "m", "--base-url", "https://api.example/v1"], "no API key for"),
    ],
)
def test_the_person_s_mistakes_are_still_usage_errors(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    words: list[str],
    said: str,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert cli.main(["--data-dir", str(tmp_path), "-p", "hi", *words]) == cli.EXIT_USAGE
    assert said in capsys.readouterr().err


def asks(words: Sequence[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k != diagnostics.ENV} | env
    return subprocess.run(
        [sys.executable, "-m", "asks", *words],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=full,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def test_a_provider_failure_names_the_log_given_by_flag_or_environment(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    with FakeOpenAI() as server:
        target = f"{server.url}/elsewhere/chat/completions"
        base = ["--data-dir", str(tmp_path / "data"), "--model", "m", "--base-url", server.url]
        from_env = tmp_path / "env.log"
        server.queue(Reply(status=301, headers={"location": target}, body=b""))
        done = asks([*base, "-p", "hi"], {**env, diagnostics.ENV: str(from_env)})
        assert done.returncode == 1
        (line,) = [x for x in done.stderr.splitlines() if "model error" in x]
        assert line.endswith(
            f"redirects are not followed: set the base URL to {server.url}"
            f"/elsewhere ([model] base_url or --base-url) (details: {from_env})"
        )
        logged = read(from_env)
        assert "WARNING asks.agent.loop: model error:" in logged
        assert "RedirectError" in logged and mode(from_env) == 0o600
        from_flag = tmp_path / "flag.log"  # the flag wins over the variable
        server.queue(Reply(status=301, headers={"location": target}, body=b""))
        done = asks(
            [*base, "--debug-log", str(from_flag), "-p", "hi"],
            {**env, diagnostics.ENV: str(from_env)},
        )
        assert f"(details: {from_flag})" in done.stderr and read(from_env) == logged
        assert "httpx: HTTP Request: POST" in read(from_flag)  # the libraries' records too
        done = asks([*base, "--debug-log", str(tmp_path / "no" / "dir.log"), "-p", "hi"], env)
    assert done.returncode == cli.EXIT_USAGE and len(server.seen) == 2
    assert done.stderr.startswith("asks: cannot open the debug log ")


# ---------------------------------------------------------------------- the web bridge, the hub
async def failing(*args: object) -> None:
    raise RuntimeError("a bug in a route")


async def test_a_web_bridge_error_is_answered_500_and_logged_without_the_token(
    rig: Rig, nursery: trio.Nursery, debug_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(WebBridge, "_handle", failing)  # before the bridge's app binds it
    bridge = WebBridge(rig.host.surface_port)
    await nursery.start(bridge.run)
    assert bridge.url is not None
    parts = urlsplit(bridge.url)
    async with httpx.AsyncClient(base_url=f"http://{parts.netloc}") as client:
        response = await client.get(f"/fragment?{parts.query}")
    bridge.close()
    assert response.status_code == 500
    assert bridge.statistics().errors == 1
    text = read(debug_log)
    assert "ERROR asks.surfaces.web: GET /fragment" in text
    assert "RuntimeError: a bug in a route" in text and "Traceback" in text
    ours = [line for line in text.splitlines() if " httpx: " not in line]  # the test's client
    assert ours and all(bridge.token not in line for line in ours)


async def hub_logs_a_warning(rig: Rig, nursery: trio.Nursery) -> None:
    keyring = keyring_with(rig.directory, "token-0123456789")
    server = HubServer(rig.host.hub_port, keyring, bind_listener(port=0))
    await nursery.start(server.run)
    logging.getLogger("mcp.server.streamable_http").warning("as the SDK would: a dropped stream")
    nursery.cancel_scope.cancel()


async def test_the_hub_s_sdk_logs_go_to_the_debug_log_when_it_is_on(
    rig: Rig, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    async with trio.open_nursery() as nursery:  # off first: quiet (never on the terminal)
        await hub_logs_a_warning(rig, nursery)
    assert capfd.readouterr().err == ""
    path = tmp_path / "hub.log"
    log = diagnostics.open_debug_log(path)
    try:
        async with trio.open_nursery() as nursery:
            await hub_logs_a_warning(rig, nursery)
    finally:
        log.close()
    assert "WARNING mcp.server.streamable_http: as the SDK would: a dropped stream" in read(path)


# ------------------------------------------------------------ what clients send is inert there
HOSTILE = "abc\x1b]0;pwned\x07\x1b[31mRED\x1b[0m\u009b2J\u202etxt"


async def raw_post(url: str, header: str) -> bytes:
    """A POST to the hub at ``url`` with the header line ``header`` sent as it is (an HTTP
    client library would refuse its bytes); the response's first line."""
    parts = urlsplit(url)
    assert parts.hostname == "127.0.0.1" and parts.port is not None
    body = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
    head = (
        f"POST {parts.path} HTTP/1.1\r\nHost: 127.0.0.1:{parts.port}\r\n"
        f"Authorization: Bearer {TOKEN}\r\nContent-Type: application/json\r\n"
        f"Accept: application/json, text/event-stream\r\n{header}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    stream = await trio.open_tcp_stream("127.0.0.1", parts.port)
    async with stream:
        await stream.send_all(head.encode("utf-8") + body)
        received = b""
        while b"\r\n" not in received and (chunk := await stream.receive_some()):
            received += chunk
    return received.split(b"\r\n", 1)[0]


def inert(text: str) -> bool:
    """No escape, C0 control but newline, C1 control or bidi control in ``text``."""
    return not any(
        (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) <= 0x9F or c in "\u202e\u2066" for c in text
    )


async def test_a_hostile_session_header_reaches_the_debug_log_inert(
    debug_log: Path, hub: HubServer
) -> None:
    """The SDK logs an unknown ``Mcp-Session-Id`` as received: its escapes were written raw."""
    assert hub.url is not None
    status = await raw_post(hub.url, f"Mcp-Session-Id: {HOSTILE}")
    assert status.startswith(b"HTTP/1.1 404"), status
    text = read(debug_log)
    assert "unknown or expired session ID: abc" in text
    assert "pwned" not in text  # the window-title string went whole
    assert inert(text), repr(text)


def test_every_line_of_the_debug_log_is_inert_and_the_record_is_left_as_logged(
    debug_log: Path,
) -> None:
    """Any log call (asks' own or a library's) quoting agent text: the message stays one line
    (no forged line), a traceback keeps its lines; other handlers get the record unchanged."""
    seen: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = seen.append  # type: ignore[method-assign]
    where = diagnostics.logger("asks.hub.tools")
    where.addHandler(handler)
    try:
        forged = "\n2026-01-01 00:00:00,000 INFO asks: forged"
        where.warning("agent %s said %s", HOSTILE, forged)
        try:
            raise ValueError(f"bad label {HOSTILE}")
        except ValueError as exc:
            where.error("a bug", exc_info=exc)
            diagnostics.unexpected(exc, "asks.hub.tools", f"POST /{HOSTILE}")  # a request's path
    finally:
        where.removeHandler(handler)
    text = read(debug_log)
    assert inert(text), repr(text)
    assert not any(line.startswith("2026-01-01") for line in text.splitlines())
    assert "Traceback (most recent call last):" in text
    assert "ValueError: bad label abc" in text
    assert seen[0].getMessage() == f"agent {HOSTILE} said {forged}"
    assert inert(seen[-1].getMessage())  # what unexpected() logs is inert for every handler


# ------------------------------------------------------------------------ the REPL, on screen
def test_the_repl_shows_the_line_and_nothing_of_the_log(tmp_path: Path) -> None:
    log = tmp_path / "repl.log"
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    with FakeOpenAI() as server:
        server.queue(
            Reply(
                status=307,
                headers={"location": "https://sso.example/login"},
                body=b"<html>Moved</html>",
            )
        )
        app = PtyApp(
            [
                "--data-dir",
                str(tmp_path / "data"),
                "--model",
                "m",
                "--base-url",
                server.url,
                "--debug-log",
                str(log),
            ],
            env=env,
        )
        try:
            app.wait_for(r"idle$")
            app.type("hi")
            app.press("enter")
            app.wait_for(r"redirected the request \(HTTP 307\)")
            app.wait_for(r"idle$")
            assert f"(details:{log})" in "".join(app.text().split())
            app.type("/quit")
            app.press("enter")
            assert app.wait_exit() == 0
        finally:
            app.close()
    raw = app.raw_bytes()
    assert b"Traceback" not in raw and b"WARNING" not in raw and b"httpx" not in raw
    assert "RedirectError" in read(log) and mode(log) == 0o600
