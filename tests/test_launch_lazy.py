"""What the plain REPL's start-up loads before its first frame.

The README's run command (``asks``: the built-in tour, scripted, offline, full screen) under a
pty, in a fresh interpreter wrapped so that urwid's first ``draw_screen`` writes the names in
``sys.modules`` before drawing. Everything in :data:`NEVER_BEFORE_FIRST_FRAME` is code the tour's
first frame does not show and the launch must not pay for: the provider HTTP stack, the hub and
the MCP SDK, the web bridge, other surfaces, the real model's tools, the resume replay,
platformdirs (on Linux its XDG rule is applied by hand) and the journal's converter (cattrs and
orjson with uuid: a new session's first lines are flat entries, written by the stdlib's json)
and the question panel's parts that draw a question (none is pending yet).
The same capture finds the screen's own modules, so it sees what it looks for; the session then
goes on normally and ``/quit`` ends it. With ``--mcp`` the same holds: the hub's listener is
bound before the screen, its server (hypercorn; the MCP SDK only at the first agent's request)
starts after the first frame, and the transcript then says where agents connect. With no flags
at all (the README's command, sessions in the XDG data dir) the same holds. Time is measured in
``bench/launch_bench.py``, ``bench/tricks_bench.py`` and ``bench/hub_bench.py``, never here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from support.pty_harness import PtyApp

NEVER_BEFORE_FIRST_FRAME = (
    # the provider HTTP stack
    "httpx",
    "httpcore",
    "h11",
    "asks.agent.http_model",
    "asks.agent.openai_model",
    "asks.agent.anthropic_model",
    "asks.agent.chat_client",
    "asks.agent.sse",
    # the hub, its SDK and servers
    "asks.hub.server",
    "asks.hub.tools",
    "mcp",
    "pydantic",
    "starlette",
    "hypercorn",
    # the web bridge, other surfaces, hooks
    "asks.surfaces.web",
    "asks.surfaces.line",
    "asks.surfaces.listing",
    "asks.surfaces.hooks",
    # the real model's tools, the resume replay
    "asks.agent.shell",
    "asks.agent.read_file",
    "asks.agent.replay",
    # the journal's converter: a new session's first lines are flat (asks/store/entries.py)
    "cattrs",
    # TOML: no config file here, and the built-in tour is Python data (asks/agent/tour.py)
    "tomllib",
    # the default data dir: on Linux platformdirs' XDG rule, computed by asks/store/files.py
    "platformdirs",
    # a new session's first lines are written by the stdlib's json (asks/store/entries.py)
    "orjson",
    "uuid",
    # the panel's parts that draw questions: none yet (asks/widgets/panel/view.py)
    "asks.widgets.panel.frame",
    "asks.widgets.panel.body",
    "asks.widgets.panel.rows",
    "asks.widgets.panel.review",
    "asks.widgets.panel.tabbar",
    "asks.widgets.panel.compact",
)
DRAWN_BY_THE_FIRST_FRAME = (
    "urwid",
    "asks.widgets.app",
    "asks.agent.scripted",
    "asks.host.host",
    "asks.widgets.panel.view",  # the panel is built with the layer, empty
)
WRAP = (
    "import sys\n"
    "import urwid.display.raw as raw\n"
    "draw, out = raw.Screen.draw_screen, sys.argv[1]\n"
    "def first_frame(self, size, canvas):\n"
    "    if not open(out, 'a').tell():\n"
    "        open(out, 'w').write(' '.join(sorted(sys.modules)))\n"
    "    draw(self, size, canvas)\n"
    "raw.Screen.draw_screen = first_frame\n"
    "import asks.cli\n"
    "sys.exit(asks.cli.main(sys.argv[2:]))\n"
)


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("hub", "bare"),
    [(False, True), (False, False), (True, False)],
    ids=["no flags", "--data-dir", "--mcp"],
)
def test_the_tours_first_frame_loads_only_what_it_draws(
    tmp_path: Path, hub: bool, bare: bool
) -> None:
    out = tmp_path / "first-frame-modules.txt"
    (tmp_path / "config").mkdir()
    flags = [] if bare else ["--data-dir", str(tmp_path / "data")]
    app = PtyApp(
        [str(out), *flags, *(["--mcp", "--mcp-port", "0"] * hub)],
        env={"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "xdg")},
        program=("-c", WRAP),
    )
    try:
        app.wait_for(r"› ")
        if hub:  # the server started after the first frame, without a key
            app.wait_for(r"Hub on http://127\.0\.0\.1:\d+/mcp")
        app.type("/quit")
        app.press("enter")
        assert app.wait_exit() == 0
    finally:
        app.close()
    loaded = set(out.read_text().split())
    assert set(DRAWN_BY_THE_FIRST_FRAME) <= loaded
    assert ("asks.cli.hub" in loaded) == hub  # the hub's plan was made before the screen
    assert sorted(loaded.intersection(NEVER_BEFORE_FIRST_FRAME)) == []
    assert not any(name.split(".")[0] in NEVER_BEFORE_FIRST_FRAME for name in loaded)
    # a session was saved (in the default data dir without flags): the launch was a real one
    assert os.listdir(tmp_path / "data") if not bare else os.listdir(tmp_path / "xdg" / "asks")


NOT_FOR_THE_HUB = (
    # the agent loop's own composition: its models, the tour, its tools, -p (asks/cli/run.py)
    "asks.cli.session",
    "asks.agent.choice",
    "asks.agent.scripted",
    "asks.agent.tour",
    "asks.agent.tools",
    "asks.surfaces.headless",
    # urllib's client: the hook command's (asks/hub/hookcmd.py)
    "urllib.request",
    "http.client",
)


@pytest.mark.e2e
def test_asks_hubs_first_frame_loads_nothing_of_the_agent_loop(tmp_path: Path) -> None:
    """``asks hub`` runs no agent of its own: the agent loop's composition, its models, the
    tour and its tools never load before its first frame (nor urllib's client)."""
    out = tmp_path / "first-frame-modules.txt"
    (tmp_path / "config").mkdir()
    app = PtyApp(
        [str(out), "hub", "--data-dir", str(tmp_path / "data"), "--mcp-port", "0"],
        env={"XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "xdg")},
        program=("-c", WRAP),
    )
    try:
        app.wait_for(r"Hub on http://127\.0\.0\.1:\d+/mcp")
        app.type("/quit")
        app.press("enter")
        assert app.wait_exit() == 0
    finally:
        app.close()
    loaded = set(out.read_text().split())
    assert {"urwid", "asks.widgets.app", "asks.cli.hub", "asks.agent.absent"} <= loaded
    assert sorted(loaded.intersection(NOT_FOR_THE_HUB)) == []
