"""The agent of an ``asks hub`` session: nobody. Only agents outside asks ask there.

It fills the surfaces' agent seat (:class:`~asks.agent.seat.ChatAgent`) so the REPL screen and
line mode run unchanged: no model, no turns and no opening turn; it is never working, so
Ctrl+C has no turn to interrupt (the surfaces' "press Ctrl+C again to quit" follows, and a
second one quits); its state is ``absent`` (the status line shows no agent state).

What the person sends in chat goes to the hub's agents, through :class:`~asks.host.hub.HubPort`:

* ``@name text`` — a **note** to agent ``name`` (:mod:`asks.host.notes`): saved first, then
  the transcript says so (``Note for planner saved: it reaches planner at its next asks
  call.``); it is delivered once, at the start of that agent's next asks result, across
  restarts. The text may span lines; it is what follows the name, trimmed.
* ``@name`` for an agent not seen — one line naming the agents seen (or saying none was);
  ``@name`` without text, or a note over :data:`~asks.host.notes.MAX_NOTE` characters — one
  line saying what to write; nothing is saved.
* anything else — one line saying that nothing here reads it and how to write to an agent.

The person's line is shown as theirs (a user entry) before what came of it. A saved note is
``Sent.HANDLED``; every other line ``Sent.REFUSED`` (nothing was sent: the chat editor keeps
the line to be corrected).
"""

from __future__ import annotations

from collections.abc import Callable

import attrs
import trio

from asks.agent.loop import AgentState, Sent
from asks.agent.transcript import EntryKind, Transcript
from asks.core.i18n import _
from asks.host.hub import HubPort
from asks.host.notes import MAX_NOTE, saved_text
from asks.sanitize import sanitize_line

ADDRESS = "@"


@attrs.define(eq=False)
class AbsentAgent:
    """No agent: chat lines are notes to the hub's agents (module docstring)."""

    hub: HubPort
    transcript: Transcript

    @property
    def state(self) -> AgentState:
        return AgentState.ABSENT

    @property
    def opens_sessions(self) -> bool:
        return False

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        return lambda: None  # nothing about it ever changes

    def interrupt(self) -> bool:
        return False

    def addressees(self) -> tuple[str, ...]:
        return self.hub.agents()

    async def run(self, *, opening_turn: bool = False) -> None:
        await trio.sleep_forever()

    def send(self, text: str) -> Sent:
        """Handle one chat line at once (module docstring); nothing is queued."""
        self.transcript.add(EntryKind.USER, text)
        name, note = _addressed(text.strip())
        refusal = self._refusal(name, note)
        if refusal is not None:
            self.transcript.add(EntryKind.NOTICE, refusal)
            return Sent.REFUSED
        assert name is not None
        if self.hub.note(name, note) is None:
            failed = _("The note to {name} was not saved.").format(name=name)
            self.transcript.add(EntryKind.ERROR, failed)
            return Sent.REFUSED
        self.transcript.add(EntryKind.NOTICE, saved_text(name))
        return Sent.HANDLED

    def _refusal(self, name: str | None, note: str) -> str | None:
        """Why the line cannot be a note to ``name`` (``None``: it can)."""
        if name is None:  # not addressed to anyone (a bare "@" neither)
            return self._nowhere()
        agents = self.addressees()
        if name not in agents:
            return self._unknown(name, agents)
        if not note:
            return _("Write the note after the name: @{name} your note").format(name=name)
        if len(note) > MAX_NOTE:
            return _(
                "A note can have at most {limit} characters; this one has "
                "{count}. Nothing was sent."
            ).format(limit=MAX_NOTE, count=len(note))
        return None

    def _nowhere(self) -> str:
        agents = self.addressees()
        if not agents:
            return _(
                "Nothing was sent: no agent runs in this session to read it. Agents ask "
                "here through the hub (asks mcp config prints the set-up); write @name text "
                "to send one a note."
            )
        return _(
            "Nothing was sent: no agent runs in this session to read it. Write @name text "
            "to send a note to one of: {agents}."
        ).format(agents=", ".join(agents))

    @staticmethod
    def _unknown(name: str, agents: tuple[str, ...]) -> str:
        shown = sanitize_line(name)
        if not agents:
            return _(
                "No agent named {name} has been seen here; none has connected yet "
                "(asks mcp config prints the set-up)."
            ).format(name=shown)
        return _("No agent named {name} has been seen here. Agents seen: {agents}.").format(
            name=shown, agents=", ".join(agents)
        )


def _addressed(text: str) -> tuple[str | None, str]:
    """``@name note`` → the name and the note, trimmed (``None``: no name)."""
    words = text[len(ADDRESS) :].split(maxsplit=1) if text.startswith(ADDRESS) else []
    if not words:
        return None, ""
    return words[0], words[1].strip() if len(words) > 1 else ""
