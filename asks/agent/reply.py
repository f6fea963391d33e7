"""Reading one model reply into the transcript and the context: the agent's side of the
provider edge (:mod:`asks.agent.edge`).

:class:`ReplyReader` takes the events of one model call in order:

* text deltas are made encodable and streamed into one ``agent`` transcript entry (created with
  the first text, so a silent reply draws none). Text that is only JSON punctuation so far
  (``{``, ``{}``, …) is held back: it is shown as soon as real text follows, dropped when the
  reply turns out to have tool calls (a server quirk, not something the model said), and shown
  when the reply ends without calls;
* tool calls are made encodable (id, name, arguments) and collected;
* notices (``max_tokens``, a refusal, …) are shown as ``notice`` entries when the reply closes,
  never put in the context.

:meth:`ReplyReader.text` is what enters the context as the assistant message. The agent loop
decides what happens to a reply that did not complete: interrupted (Ctrl+C) keeps what was
streamed; broken (a provider error mid-stream) stays on screen only.
"""

from __future__ import annotations

from typing import Final

from asks.agent.edge import encodable, encodable_arguments, is_punctuation
from asks.agent.events import ModelEvent, ModelNotice, ToolCall
from asks.agent.transcript import Entry, EntryKind, Transcript
from asks.core.i18n import N_

SAID_NOTHING: Final = N_("The model said nothing (an empty reply).")  # shown translated


class ReplyReader:
    """One reply as it streams in (module docstring)."""

    # A plain class, not attrs: building one is ~0.5 M instructions of every launch.
    __slots__ = ("_entry", "_held", "_notices", "_shown", "calls", "title", "transcript")

    def __init__(self, transcript: Transcript, title: str) -> None:
        self.transcript = transcript
        self.title = title
        self.calls: list[ToolCall] = []
        self._entry: Entry | None = None
        self._shown: list[str] = []
        self._held: list[str] = []
        self._notices: list[str] = []

    def add(self, event: ModelEvent) -> None:
        if isinstance(event, ToolCall):
            self.calls.append(
                ToolCall(
                    encodable(event.id), encodable(event.name), encodable_arguments(event.arguments)
                )
            )
        elif isinstance(event, ModelNotice):
            self._notices.append(event.text)
        elif event.text:
            text = encodable(event.text)
            if self._entry is None and is_punctuation("".join(self._held) + text):
                self._held.append(text)
                return
            self._show("".join([*self._held, text]))
            self._held.clear()

    def _show(self, text: str) -> None:
        if self._entry is None:
            self._entry = self.transcript.add(EntryKind.AGENT, "", self.title, done=False)
        self.transcript.stream(self._entry, text)
        self._shown.append(text)

    def text(self, *, complete: bool) -> str:
        """The reply's text for the context: held punctuation only when the reply completed
        without tool calls."""
        if self._held and complete and not self.calls:
            self._show("".join(self._held))
        self._held.clear()
        return "".join(self._shown)

    def close(self) -> None:
        """End the transcript entry and show the notices (call once, also on failure)."""
        if self._entry is not None:
            self.transcript.finish(self._entry)
        for notice in self._notices:
            self.transcript.add(EntryKind.NOTICE, notice)
