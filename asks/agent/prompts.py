"""Foreign prompts: modal confirms raised by tools (e.g. "allow this command?").

A prompt is a focus owner of its own: while it is up the question panel never takes the
keyboard; a blocker that arrives meanwhile waits and claims when it ends.
:meth:`PromptBroker.confirm` raises one, awaits the person's yes/no and always ends it, also when
the awaiting task is cancelled (Ctrl+C): then the prompt counts as "no".
"""

from __future__ import annotations

from collections.abc import Callable

import attrs
import trio

from asks.core.focus import FocusTarget
from asks.core.listeners import Signal
from asks.host.panelport import PanelPort


@attrs.define(eq=False)
class Prompt:
    """One open yes/no prompt."""

    text: str
    target: FocusTarget
    answer: bool | None = None
    _done: trio.Event = attrs.Factory(trio.Event)


@attrs.define(eq=False)
class PromptBroker:
    """Raises prompts through the host's focus model; the UI renders :attr:`current`."""

    host: PanelPort
    current: Prompt | None = None
    _changes: Signal = attrs.Factory(Signal)

    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after every change; returns an unsubscribe function."""
        return self._changes.subscribe(listener)

    async def confirm(self, text: str) -> bool:
        """Ask yes/no; returns the answer (``False`` if cancelled)."""
        prompt = Prompt(text, FocusTarget("prompt"))
        self.current = prompt
        self.host.begin_foreign(prompt.target)
        self._notify()
        try:
            await prompt._done.wait()
        finally:
            self.current = None
            self.host.end_foreign(prompt.target)
            self._notify()
        return bool(prompt.answer)

    def answer(self, yes: bool) -> None:
        """The person answered the current prompt."""
        prompt = self.current
        if prompt is not None and prompt.answer is None:
            prompt.answer = yes
            prompt._done.set()

    def _notify(self) -> None:
        self._changes.emit()
