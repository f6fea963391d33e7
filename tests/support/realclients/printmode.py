"""A client run once, without its TUI: ``claude -p PROMPT`` / ``codex exec PROMPT``.

:class:`PrintRun` is the running process (started in the background, so a test can answer in
asks while the client waits on a blocking call); :meth:`PrintRun.wait` gives the
:class:`PrintResult`: the exit status, the output, and what the fake model saw.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import attrs

from support.realclients.config import ASKS_TOOLS, Client, HubConfig, Prepared
from support.realclients.model import FakeModel, Kind, ModelRequest, ToolResult
from support.realclients.procs import Proc, end, end_tree, running_from

WAIT = 240.0  # seconds a run may take before :meth:`PrintRun.wait` ends it and fails


@attrs.frozen
class PrintResult:
    """A finished run: exit status, output (Claude: stream-json lines; Codex: ``--json``
    events), and the fake model's requests."""

    client: Client
    returncode: int
    stdout: str
    stderr: str
    requests: tuple[ModelRequest, ...]
    folder: Path

    def events(self) -> list[dict[str, Any]]:
        """The client's JSON output lines."""
        found = []
        for line in self.stdout.splitlines():
            try:
                found.append(json.loads(line))
            except ValueError:
                continue
        return [e for e in found if isinstance(e, dict)]

    def tool_results(self) -> list[ToolResult]:
        """Every tool result the model got, in order."""
        return [r for q in self.requests if q.kind is Kind.AFTER_TOOL for r in q.results]

    def tool_failed(self) -> bool:
        """Did the client report the tool call as failed (Claude: an error result; Codex: the
        ``mcp_tool_call`` item not completed)?"""
        if self.client is Client.CLAUDE:
            return any(r.is_error for r in self.tool_results())
        items = [
            e["item"]
            for e in self.events()
            if e.get("type") == "item.completed"
            and (e.get("item") or {}).get("type") == "mcp_tool_call"
        ]
        return any(i.get("status") != "completed" or i.get("error") for i in items)

    def result_text(self, failed: bool = False) -> str:
        """The text of the one tool result the model got; fails (with the run's output) when
        the run failed, no tool was called or answered, or it did (not) fail as ``failed``
        says."""
        why = self.diagnosis()
        results = self.tool_results()
        assert self.returncode == 0, f"{self.client} exited {self.returncode}: {why}"
        assert len(results) == 1, f"{self.client}: {len(results)} tool results: {why}"
        assert self.tool_failed() == failed, f"{self.client}: tool failed is not {failed}: {why}"
        return results[0].text

    def diagnosis(self) -> str:
        """The model's requests and the client's output, shortened, for a failure message."""
        summary = "; ".join(
            f"#{r.n} {r.kind} {r.tool or ''} {r.reply[:200]!r}" for r in self.requests
        )
        return f"model: {summary}\nstdout: {self.stdout[-1500:]}\nstderr: {self.stderr[-1500:]}"


def argv_for(client: Client, prepared: Prepared, hub: HubConfig | None, prompt: str) -> list[str]:
    """The print-mode command line: the prepared client plus its mode's own arguments."""
    if client is Client.CLAUDE:
        extra = ["-p", prompt, "--output-format", "stream-json", "--verbose"]
        extra.append("--no-session-persistence")
        if hub is not None:  # -p denies a tool that is not allowed on the command line
            extra += ["--allowedTools", ",".join(f"mcp__{hub.name}__{t}" for t in ASKS_TOOLS)]
        return [*prepared.argv, *extra]
    return [*prepared.argv, "exec", "--skip-git-repo-check", "--ephemeral", "--json", prompt]


class PrintRun:
    """A client running once in print mode against its fake model."""

    def __init__(
        self,
        client: Client,
        folder: Path,
        prepared: Prepared,
        model: FakeModel,
        argv: list[str],
    ) -> None:
        self.client, self.folder, self.model = client, folder, model
        self._out = (folder / "client.stdout").open("w")
        self._err = (folder / "client.stderr").open("w")
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=self._out,
            stderr=self._err,
            env=dict(prepared.env),
            cwd=prepared.work,
        )
        self.proc = Proc.of(self.process.pid)
        self.result: PrintResult | None = None

    def wait(self, timeout: float = WAIT) -> PrintResult:
        """Wait for the client to exit; its result (it is ended and the test fails after
        ``timeout`` seconds)."""
        if self.result is not None:
            return self.result
        try:
            code = self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.close()
            raise AssertionError(f"{self.client} still running after {timeout:.0f}s") from None
        self._out.close()
        self._err.close()
        self.result = PrintResult(
            client=self.client,
            returncode=code,
            stdout=(self.folder / "client.stdout").read_text(errors="replace"),
            stderr=(self.folder / "client.stderr").read_text(errors="replace"),
            requests=tuple(self.model.log.requests()),
            folder=self.folder,
        )
        self.close()
        return self.result

    def close(self) -> None:
        """End the client (its process tree, anything running from its folder) and its model."""
        end_tree(self.proc)
        self.process.poll()
        end(running_from(self.folder))
        self._out.close()
        self._err.close()
        self.model.close()
