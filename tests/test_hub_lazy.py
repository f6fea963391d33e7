"""Without the hub, nothing of it loads: the plain REPL, line mode and ``-p`` run whole sessions
without importing the MCP SDK (``mcp``), pydantic or starlette ("the plain REPL's
launch time and memory must not move"; the figures: bench/hub_bench.py).

Each run is the real ``asks.cli.main`` in a fresh interpreter, wrapped so that on the way out
it writes which of :data:`HUB_MODULES` were ever imported: the REPL under a pty (a question
answered by keys, the agent woken, ``/quit``), line mode on pipes, ``-p`` with the scripted
model and with a real provider (the OpenAI-compatible fake on 127.0.0.1). With ``--mcp`` and
no agent, only the hub's server is loaded (asks.hub.wire, the guard, the hooks); once an agent's
request came, the SDK is too and the request was answered, so the check can see what it looks
for (asks/hub/lazy.py). In process (the ``hub`` fixture): first requests at once share one
load, a failed load fails its requests and the next one loads, and a permission request is
answered without the SDK.
"""

from __future__ import annotations

import enum
import os
import subprocess
import sys
from collections.abc import Awaitable
from pathlib import Path

import httpx
import pytest
import trio
from support.fake_openai import FakeOpenAI, Reply
from support.hub import HELLO, TOKEN
from support.permission_bodies import CLAUDE
from support.pty_harness import ROOT, PtyApp
from support.rig import Rig

from asks.core.model import QuestionRef
from asks.hub import lazy
from asks.hub.hooks import HOOK_PATH
from asks.hub.server import HubServer

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
    "asks.hub.lazy",
    "asks.hub.sdk",
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


class Hub(enum.Enum):
    """How the session of :func:`test_the_repl_never_loads_the_mcp_sdk` runs the hub."""

    OFF = "plain"
    IDLE = "--mcp, no agent"
    ASKED = "--mcp, one agent (control)"
    WARM = "--mcp, no agent, one needed the SDK before"


SDK = {"mcp", "mcp_types", "pydantic", "pydantic_core", "starlette", "sse_starlette"}
SDK_APP = {"asks.hub.tools", "asks.hub.sdk"}
SERVER = {"asks.cli.hub", "asks.hub.server", "asks.hub.guard", "asks.hub.lazy"}


def one_request(url: str, data_dir: Path, env: dict[str, str]) -> httpx.Response:
    """An agent's ``initialize`` to the hub at ``url`` with the shared token of ``data_dir``."""
    token = subprocess.run(
        [sys.executable, "-m", "asks", "mcp", "token", "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.strip()
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}
    return httpx.post(url, json=HELLO, headers=headers, timeout=60)


@pytest.mark.e2e
@pytest.mark.parametrize("hub", list(Hub), ids=[h.value for h in Hub])
def test_the_repl_never_loads_the_mcp_sdk(tmp_path: Path, hub: Hub) -> None:
    """Without the hub nothing of it loads; with the hub and no agent, only its server: the
    SDK loads at the first request that reaches it (asks/hub/lazy.py), and that request is
    answered."""
    out = tmp_path / "loaded.txt"
    extra = [] if hub is Hub.OFF else ["--mcp", "--mcp-port", "0"]
    env = env_for(tmp_path)
    warm = tmp_path / "data" / lazy.WARM_FILE
    if hub is Hub.WARM:
        warm.parent.mkdir(parents=True)
        lazy.remember(warm.parent)
    app = PtyApp(
        [
            str(out),
            "--data-dir",
            str(tmp_path / "data"),
            "--script",
            str(SCRIPTS / "wake.toml"),
            *extra,
        ],
        env=env,
        program=("-c", WRAP),
        cols=140,
    )
    try:
        app.wait_for(r"╎ Pick a number\?")
        if hub is not Hub.OFF:
            url = app.wait_for(r"Hub on (http://127\.0\.0\.1:\d+/mcp)").group(1)
        if hub is Hub.ASKED:
            answered = one_request(url, tmp_path / "data", env)
            assert answered.status_code == 200, answered.text
            assert '"name":"asks"' in answered.text.replace(" ", ""), answered.text
        app.press("shift tab")
        app.wait_for(r"┌─ Questions")
        app.press("enter")  # One: the answer wakes the idle agent
        app.wait_for(r"WAKE-ACK: One")
        app.type("/quit")
        app.press("enter")
        assert app.wait_exit() == 0
    finally:
        app.close()
    loaded = set(out.read_text().split())
    if hub is Hub.OFF:
        assert loaded == set()
    elif hub is Hub.IDLE:
        assert loaded == SERVER
    else:  # WARM: the load started once the hub served; the session's end waits for it
        assert loaded == SERVER | SDK | SDK_APP
    assert warm.exists() == (hub in (Hub.ASKED, Hub.WARM))  # remembered once needed


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


async def hello(url: str, http: httpx.AsyncClient) -> httpx.Response:
    headers = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/json, text/event-stream"}
    return await http.post(url, json=HELLO, headers=headers)


async def test_first_requests_at_once_all_wait_for_one_load(
    hub: HubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Requests that come while the SDK loads wait for that load, and are all answered."""
    assert hub.url is not None and hub.sdk is not None
    from asks.hub import sdk  # noqa: PLC0415

    builds: list[object] = []
    real = sdk.build

    def counted(plan: lazy.SdkPlan) -> sdk.SdkApp:
        builds.append(plan)
        return real(plan)

    monkeypatch.setattr(sdk, "build", counted)
    assert not hub.sdk.loaded
    answered: list[httpx.Response] = []
    async with httpx.AsyncClient(timeout=60) as http, trio.open_nursery() as nursery:
        for _ in range(5):
            nursery.start_soon(lambda: _append(answered, hello(hub.url or "", http)))
    assert [r.status_code for r in answered] == [200] * 5
    assert hub.sdk.loaded
    assert len(builds) == 1


async def test_a_failed_load_fails_its_request_and_the_next_one_loads(
    hub: HubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert hub.url is not None and hub.sdk is not None
    monkeypatch.setattr(lazy, "SDK_MODULE", "asks.hub.no_such_module")
    async with httpx.AsyncClient(timeout=60) as http:
        failed = await hello(hub.url, http)
        assert failed.status_code == 500
        assert not hub.sdk.loaded
        monkeypatch.undo()
        again = await hello(hub.url, http)
    assert again.status_code == 200, again.text
    assert hub.sdk.loaded


async def test_the_first_request_the_sdk_serves_is_told_once(hub: HubServer) -> None:
    assert hub.url is not None and hub.sdk is not None
    told: list[None] = []
    hub.sdk.on_needed = lambda: told.append(None)
    async with httpx.AsyncClient(timeout=60) as http:
        for _ in range(3):
            answered = await hello(hub.url, http)
            assert answered.status_code == 200, answered.text
    assert len(told) == 1


async def test_a_warm_start_loads_the_sdk_with_no_request(hub: HubServer) -> None:
    """What an ``initialize`` then waits for is the SDK's app, not its import."""
    assert hub.url is not None and hub.sdk is not None
    told: list[None] = []
    hub.sdk.on_needed = lambda: told.append(None)
    hub.sdk.warm()
    while not hub.sdk.loaded:
        await trio.sleep(0.01)
    assert told == []  # a warm load is not an agent's need
    hub.sdk.warm()  # loaded: nothing more
    async with httpx.AsyncClient(timeout=60) as http:
        assert (await hello(hub.url, http)).status_code == 200


def test_the_warm_file_is_remembered_and_a_failure_to_write_it_is_no_error(
    tmp_path: Path,
) -> None:
    assert not lazy.wanted(tmp_path)
    lazy.remember(tmp_path)
    assert lazy.wanted(tmp_path)
    assert (tmp_path / lazy.WARM_FILE).stat().st_mode & 0o777 == 0o600
    lazy.remember(tmp_path / "no-such-dir")  # logged, not raised
    assert not lazy.wanted(tmp_path / "no-such-dir")


async def _append(into: list[httpx.Response], request: Awaitable[httpx.Response]) -> None:
    into.append(await request)


async def test_a_permission_request_is_answered_without_the_sdk(
    rig: Rig, hub: HubServer, nursery: trio.Nursery
) -> None:
    """The hooks are the guard's own: an agent's permission request on an idle hub becomes a
    tab and gets its decision, and the SDK's app is still not built."""
    assert hub.url is not None and hub.sdk is not None
    replies: list[httpx.Response] = []
    headers = {"Authorization": f"Bearer {TOKEN}", "X-Asks-Agent": "builder"}

    async def send() -> None:
        async with httpx.AsyncClient(timeout=60) as http:
            url = hub.url.removesuffix("/mcp") + HOOK_PATH if hub.url else ""
            replies.append(await http.post(url, json=CLAUDE, headers=headers))

    nursery.start_soon(send)
    while not rig.host.panel_port.tabs:
        await trio.sleep(0.005)
    [tab] = rig.host.panel_port.tabs
    assert isinstance(tab, QuestionRef)
    rig.answer_option(tab, 0)
    while not replies:
        await trio.sleep(0.005)
    decision = replies[0].json()["hookSpecificOutput"]["decision"]
    assert (replies[0].status_code, decision) == (200, {"behavior": "allow"})
    assert not hub.sdk.loaded
