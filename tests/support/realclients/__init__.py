"""The real Claude Code and Codex, driven offline against fake models and an asks hub.

Installed by ``.ci/realclients-setup`` (npm registry, cached outside the repository;
:mod:`~support.realclients.install`). Nothing leaves 127.0.0.1: the fake models
(:mod:`~support.realclients.model`) run in the test's process on free ports, the hub is the
test's own ``asks``. The API::

    clients = RealClients(tmp_path)            # or the ``real_clients`` fixture; .close() ends all
    hub = HubConfig.from_asks(launch.data_dir, port, agent="claude-a")  # asks mcp config json
    # the interactive TUI under tmux (private HOME / CODEX_HOME, its own tmux server):
    tui = clients.tui(Client.CLAUDE, hub, Options(hooks={...}), macros={"db": ARGS})
    seen = tui.prompt("IA-CALL ask_user_question @db")   # waits for the request with the result
    seen.results[0].text                                 # what the model got back
    tui.wait_screen(r"IA-RESULT-SEEN")                   # the screen (a regex), by progress
    since = tui.log.mark(); tui.keys("1"); tui.log.wait_kind(Kind.SAW, since)
    # print mode (claude -p / codex exec), in the background while asks is answered by keys:
    run = clients.start_print(Client.CODEX, 'IA-CALL check_answers {}', hub)
    text = run.wait().result_text()

The fake model's script is the prompt: ``IA-CALL <tool> <JSON | @macro>`` → one call of that
tool; a tool result → ``IA-RESULT-SEEN: <text>``; anything else → ``IA-SAW: <tail>``.
docs/real-clients.md tells what the clients do and how this harness meets them.
"""

from support.realclients.anthropic import FakeAnthropic
from support.realclients.config import Client, HubConfig, Options, Prepared
from support.realclients.install import Binaries, binaries, cache_dir
from support.realclients.model import FakeModel, Kind, ModelLog, ModelRequest, ToolResult
from support.realclients.printmode import PrintResult, PrintRun
from support.realclients.responses import FakeResponses
from support.realclients.rig import RealClients
from support.realclients.tui import TuiClient

__all__ = [
    "Binaries",
    "Client",
    "FakeAnthropic",
    "FakeModel",
    "FakeResponses",
    "HubConfig",
    "Kind",
    "ModelLog",
    "ModelRequest",
    "Options",
    "Prepared",
    "PrintResult",
    "PrintRun",
    "RealClients",
    "ToolResult",
    "TuiClient",
    "binaries",
    "cache_dir",
]
