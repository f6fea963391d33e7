"""The model's context rebuilt from a session's journal, and a resumed context built late.

:func:`context_from_journal` gives exactly what the model saw: the chat messages, the results
of this agent's own calls (a call of an agent asking through the hub shares the journal, not
this context) and the feedback it was given, in journal order.

:class:`ResumedContext` is that context for a resumed session, built at its first use rather
than before the first frame (docs/architecture.md, "Long sessions"): from the conversation records
as they were when the session was resumed (a copy of the list, not of the records), so it is
the context an eager build at resume gives, whenever it is built.
"""

from __future__ import annotations

from collections.abc import Sequence

from asks.agent.events import Message, ToolCall
from asks.store.entries import ChatMessage, FeedbackDelivered, Record, ToolResult
from asks.store.records import Conversation

__all__ = ["FEEDBACK_ROLE", "ResumedContext", "context_from_journal"]

FEEDBACK_ROLE = "user"


def context_from_journal(records: Sequence[Record]) -> list[Message]:
    """Rebuild the model context from the conversation records of a journal (module
    docstring)."""
    messages: list[Message] = []
    own_calls: set[str] = set()
    for record in records:
        entry = record.entry
        if isinstance(entry, ChatMessage):
            message = _message_from_chat(entry)
            own_calls.update(call.id for call in message.tool_calls)
            messages.append(message)
        elif isinstance(entry, ToolResult) and entry.call_id in own_calls:
            messages.append(Message("tool", entry.text, tool_call_id=entry.call_id))
        elif isinstance(entry, FeedbackDelivered):
            messages.append(Message(FEEDBACK_ROLE, entry.text))
    return messages


def _message_from_chat(entry: ChatMessage) -> Message:
    calls = tuple(
        ToolCall(str(c.get("id", "")), str(c.get("name", "")), str(c.get("arguments", "")))
        for c in entry.tool_calls
        if "name" in c
    )
    call_id = next((str(c["tool_call_id"]) for c in entry.tool_calls if "tool_call_id" in c), None)
    return Message(entry.role, entry.content, calls, call_id)


class ResumedContext:
    """The context of ``records`` (the conversation at resume), built once, on first use."""

    def __init__(self, records: Sequence[Record]) -> None:
        # The list as it is now, not the records (a conversation's are built on access).
        self._records: Sequence[Record] | None = (
            records.copy() if isinstance(records, Conversation) else list(records)
        )
        self._messages: list[Message] = []
        self._count = 0

    def messages(self) -> list[Message]:
        """The context (built now if it was not); the same list on every call."""
        if self._records is not None:
            self._messages = context_from_journal(self._records)
            self._count, self._records = len(self._messages), None
        return self._messages

    def count(self) -> int:
        """How many messages the journal gave (what a scripted model has already read), however
        many were added to the list since."""
        self.messages()
        return self._count
