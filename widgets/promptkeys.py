"""A prompt's decision keys in the layer's key path (docs/architecture.md).

:class:`PromptDecisions` wraps the prompt widget's decision commands (``PROMPT_YES``,
``PROMPT_NO``) for the layer's one handler table and carries out the prompt's confirm key:

* a **printable** decision key is not delivered: the host holds it
  (``port.hold_decision``; the prompt's view shows it and names the confirm key);
* it is delivered to the prompt widget's own handler when the pause after it is over
  (:meth:`PromptDecisions.deliver_due`, called by the layer before each key and by its timer),
  or at once by the confirm key (:meth:`PromptDecisions.confirm`); a printable key typed before
  that makes it typing (the layer's stray path delivers it to the chat, from ``Route.first``);
* a **non-printable** decision key (Esc) decides at once and drops a held key.

It keeps no policy: what is held, when it is due and where keys go are the host's
(:mod:`asks.core.focus`); this only maps them onto the prompt widget's handlers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from asks.host.panelport import PanelPort
from asks.widgets.keymap import Command, Context
from asks.widgets.keys import KeyHandler, KeyPress
from asks.widgets.keyspec import is_text_key
from asks.widgets.panel.markup import Size


class PromptDecisions:
    """The prompt's decision handlers as the layer runs them (module docstring)."""

    def __init__(
        self,
        port: PanelPort,
        decisions: Mapping[Command, KeyHandler],
        text_input: Callable[[KeyPress], str | None],
    ) -> None:
        self._port = port
        self._decisions = dict(decisions)  # the prompt widget's own handlers
        self._text_input = text_input  # where a confirm key goes with nothing held
        self.size: Size = (0,)  # the last key's size: a held key is delivered later
        self._held: Command | None = None  # the command of the key the host holds (one at most)

    def table(self) -> dict[Command, KeyHandler]:
        """The handlers for the layer's table: the wrapped decisions and the confirm key."""
        table = {command: self._wrap(handler) for command, handler in self._decisions.items()}
        table[Command.PROMPT_CONFIRM] = self.confirm
        return table

    def _wrap(self, decide: KeyHandler) -> KeyHandler:
        def run(press: KeyPress) -> str | None:
            if not is_text_key(press.key):
                self._port.drop_decision()
            elif self._port.hold_decision(press.key, press.now):
                self._held = press.command
                return None
            return decide(press)

        return run

    def confirm(self, press: KeyPress) -> str | None:
        """The confirm key: a held decision key counts now; else the prompt's own key."""
        held = self._port.confirm_decision()
        if held is None:
            return self._text_input(press)
        return self._deliver(held, press.now)

    def deliver_due(self, now: float) -> None:
        """Deliver a held decision key whose pause is over to the prompt."""
        held = self._port.due_decision(now)
        if held is not None:
            self._deliver(held, now)

    def _deliver(self, key: str, now: float) -> str | None:
        command, self._held = self._held, None
        decide = None if command is None else self._decisions.get(command)
        if decide is None:
            return None
        return decide(KeyPress(self.size, key, Context.PROMPT, command, None, now))
