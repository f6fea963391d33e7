"""The values a model and the agent loop exchange: context messages and reply events.

A model's reply is a stream of :data:`ModelEvent`: :class:`TextDelta` (text as it arrives),
complete :class:`ToolCall` values, and :class:`ModelNotice` (something the person should know
about the reply, e.g. it was cut at the token limit — shown, never put in the context). A
provider failure is a :class:`ModelError` with a one-line message. The context is a list of
:class:`Message` in chat-completions shape; each provider maps it to its own wire format.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class ToolCall:
    """A tool call as the model made it (arguments are the raw JSON string)."""

    id: str
    name: str
    arguments: str


@attrs.frozen
class Message:
    """One context message in chat-completions shape."""

    role: str  # system | user | assistant | tool
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None


@attrs.frozen
class TextDelta:
    text: str


@attrs.frozen
class ModelNotice:
    """A note about the reply for the person (not the model): shown as a transcript notice."""

    text: str


ModelEvent = TextDelta | ToolCall | ModelNotice


class ModelError(Exception):
    """A model provider failed (unreachable, refused, cut off, …); the message is one line
    written for the person, shown as is."""
