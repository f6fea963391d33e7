"""The factory a test holds: every client it starts gets a folder, a fake model and a home of
its own; :meth:`RealClients.close` ends them all (the ``real_clients`` fixture does)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from support.realclients.anthropic import FakeAnthropic
from support.realclients.config import Client, HubConfig, Options, prepare
from support.realclients.install import binaries
from support.realclients.model import FakeModel, Json
from support.realclients.printmode import PrintResult, PrintRun, argv_for
from support.realclients.responses import FakeResponses
from support.realclients.tui import Tmux, TuiClient


class RealClients:
    """Starts real clients under ``folder``; closes every one at the end."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.binaries = binaries()
        self._open: list[TuiClient | PrintRun] = []

    def _place(self, client: Client, name: str | None) -> Path:
        folder = self.folder / (name or f"{client}-{len(self._open) + 1}")
        folder.mkdir(parents=True)
        return folder

    def _model(self, client: Client, folder: Path, macros: Mapping[str, Json]) -> FakeModel:
        model: FakeModel = (FakeAnthropic if client is Client.CLAUDE else FakeResponses)(folder)
        for key, arguments in macros.items():
            model.define(key, arguments)
        return model

    def tui(
        self,
        client: Client,
        hub: HubConfig | None = None,
        options: Options | None = None,
        *,
        name: str | None = None,
        macros: Mapping[str, Json] | None = None,
        cols: int = 200,
        rows: int = 50,
    ) -> TuiClient:
        """``client``'s TUI on its own fake model and (optionally) the hub, started and ready
        for a prompt."""
        folder = self._place(client, name)
        model = self._model(client, folder, macros or {})
        options = options or Options()
        prepared = prepare(
            client, folder, found=self.binaries, model_url=model.url, hub=hub, options=options
        )
        running = TuiClient(client, folder, prepared, model, Tmux(folder, cols, rows))
        self._open.append(running)
        running.start()
        return running

    def start_print(
        self,
        client: Client,
        prompt: str,
        hub: HubConfig | None = None,
        options: Options | None = None,
        *,
        name: str | None = None,
        macros: Mapping[str, Json] | None = None,
    ) -> PrintRun:
        """``claude -p PROMPT`` / ``codex exec PROMPT`` started in the background."""
        folder = self._place(client, name)
        model = self._model(client, folder, macros or {})
        options = options or Options()
        prepared = prepare(
            client, folder, found=self.binaries, model_url=model.url, hub=hub, options=options
        )
        run = PrintRun(client, folder, prepared, model, argv_for(client, prepared, hub, prompt))
        self._open.append(run)
        return run

    def run_print(
        self,
        client: Client,
        prompt: str,
        hub: HubConfig | None = None,
        options: Options | None = None,
        *,
        name: str | None = None,
    ) -> PrintResult:
        """Run a client once in print mode; its result."""
        return self.start_print(client, prompt, hub, options, name=name).wait()

    def close(self) -> None:
        for running in reversed(self._open):
            running.close()
