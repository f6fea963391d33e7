"""The real REPL (``run_repl``) whose agent crashes: an exception leaves the agent loop.

Usage: ``python repl_crash_child.py DATA_DIR``. The session is built from the same parts as
``asks`` builds it (journal, host, scripted model, the scripted tools, transcript, prompt
broker, keymap), plus one tool, ``crash``, that raises :class:`AgentCrashed` — a
``BaseException``, which the agent's turn does not catch (it catches ``Exception``: a failed
turn), as a tool or model of an embedder could. Script: tests/scripts/crash_agent.toml; type
``crash`` and Enter. The exception ends ``run_repl`` (and this process, with a traceback).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import trio

from asks.agent.choice import build_model
from asks.agent.loop import Agent, ToolCall, ToolContext
from asks.agent.prompts import PromptBroker
from asks.agent.scripted import load_script
from asks.agent.tools import scripted_tools
from asks.agent.transcript import Transcript
from asks.contract import DEFAULT_GUIDANCE
from asks.host.host import QuestionHost
from asks.store.journal import Journal
from asks.widgets.app import Session, run_repl
from asks.widgets.keymap import build_keymap

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "crash_agent.toml"


class AgentCrashed(BaseException):
    """Not an ``Exception``: nothing in the agent loop handles it."""


class CrashTool:
    name = "crash"

    def schema(self) -> dict[str, Any]:
        return {"type": "function", "function": {"name": self.name, "parameters": {}}}

    async def run(self, call: ToolCall, context: ToolContext) -> str:
        raise AgentCrashed("the agent crashed (on purpose)")


def main(data_dir: Path) -> None:
    with Journal.create(data_dir=data_dir) as journal:
        host = QuestionHost(journal, clock=trio.current_time)
        transcript = Transcript()
        broker = PromptBroker(host.panel_port)
        model = build_model(load_script(SCRIPT), DEFAULT_GUIDANCE)
        agent = Agent(
            host.agent_port, model, [*scripted_tools(), CrashTool()], transcript, broker.confirm
        )
        session = Session(host, agent, transcript, broker)
        trio.run(lambda: run_repl(session, build_keymap(), opening_turn=True))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
