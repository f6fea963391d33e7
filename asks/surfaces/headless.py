"""Non-interactive mode (``asks -p PROMPT``): one agent turn, no UI, the answer on stdout.

Semantics:

* The session is journaled like any other (new, or the one given by ``--resume`` /
  ``--continue``), so it can be resumed in the REPL later; its id goes to stderr.
* The host has no UI (``ui_attached=False``): ``ask_user_question`` is not offered to the model,
  and a call anyway gets the coded ``no_ui`` error. Permission prompts of other tools are
  answered "no" (nobody is there to allow anything).
* One turn runs for the prompt (steering in any saved feedback before each model call, as
  usual). When it finishes, the text of the model's last reply is printed to stdout with a
  final newline (escape sequences stripped when stdout is a terminal); exit status 0. A model
  or tool error is printed to stderr, one line each; exit status 1. SIGINT (Ctrl+C)
  interrupts the turn cleanly: exit status 130.
"""

from __future__ import annotations

import sys
from typing import TextIO

import trio

from asks.agent.loop import Agent, TurnOutcome
from asks.agent.transcript import EntryKind
from asks.sanitize import sanitize_line, sanitize_text

EXIT_FAILED = 1
EXIT_INTERRUPTED = 130


async def deny(text: str) -> bool:
    """The permission broker of a run with nobody to ask: always "no"."""
    return False


async def run_prompt(agent: Agent, prompt: str) -> TurnOutcome:
    """Run one turn for ``prompt``; SIGINT interrupts it (the turn's cancel scope)."""
    async with trio.open_nursery() as nursery:

        async def interrupt_on_sigint() -> None:
            import signal  # noqa: PLC0415 — only this mode handles signals itself

            with trio.open_signal_receiver(signal.SIGINT) as signals:
                async for _ in signals:
                    agent.interrupt()

        nursery.start_soon(interrupt_on_sigint)
        outcome = await agent.run_turn(prompt)
        nursery.cancel_scope.cancel()
    return outcome


def report(
    agent: Agent, outcome: TurnOutcome, out: TextIO = sys.stdout, err: TextIO = sys.stderr
) -> int:
    """Print the result of the turn (module docstring); return the exit status."""
    agent.transcript.load_all()  # a resumed session's history too, as it always printed
    for entry in agent.transcript.entries:
        if entry.kind is EntryKind.ERROR:
            print(f"asks: {entry.title}: {sanitize_line(entry.text)}", file=err)
    if outcome is TurnOutcome.INTERRUPTED:
        print("asks: interrupted", file=err)
        return EXIT_INTERRUPTED
    if outcome is TurnOutcome.FAILED:
        return EXIT_FAILED
    last = next((m for m in reversed(agent.messages) if m.role == "assistant"), None)
    text = last.content if last is not None else ""
    if out.isatty():
        text = sanitize_text(text)
    out.write(text if text.endswith("\n") else text + "\n")
    out.flush()
    return 0
