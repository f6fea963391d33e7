"""The agent loop headless, in process: :class:`AgentRig` (tests/test_agent.py and others)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import trio

from asks.agent.loop import Agent, Model
from asks.agent.prompts import PromptBroker
from asks.agent.scripted import ScriptedModel, parse_script
from asks.agent.tools import CommandTool, WorkTool
from asks.agent.transcript import EntryKind, Transcript
from asks.agent.withdraw import WithdrawTool
from asks.host.commands import PanelCommand
from asks.host.host import QuestionHost
from asks.store.journal import FileOps, Journal


class AgentRig:
    """The agent loop on the scripted model (``script``: its TOML) or ``model``, a real host
    and journal in ``tmp`` (writing through ``file_ops``), the work, command and withdraw
    tools; the transcript as the REPL would show it."""

    def __init__(
        self,
        tmp: Path,
        script: str,
        *,
        model: Model | None = None,
        file_ops: FileOps | None = None,
        session_id: str | None = None,
    ) -> None:
        self.journal = Journal.create(data_dir=tmp, file_ops=file_ops, session_id=session_id)
        self.host = QuestionHost(self.journal, clock=trio.current_time)
        self.transcript = Transcript()
        self.broker = PromptBroker(self.host.panel_port)
        self.model = model or ScriptedModel(parse_script(script, "test"))
        self.agent = Agent(
            self.host.agent_port,
            self.model,
            [WorkTool(), CommandTool(), WithdrawTool()],
            self.transcript,
            self.broker.confirm,
        )

    def texts(self, kind: EntryKind) -> list[str]:
        return [e.text for e in self.transcript.entries if e.kind is kind]

    async def until(self, predicate: Callable[[], object]) -> None:
        """Wait until ``predicate()`` holds (fails after 10 s of trio's clock)."""
        with trio.fail_after(10):
            while not predicate():
                await trio.sleep(0.01)

    def answer_first_tab(self, row: int = 0) -> None:
        assert self.host.panel_port.enter_panel() is None
        self.host.panel_port.set_cursor(row)
        self.host.panel_port.command(PanelCommand.CONFIRM)
