"""Typed events the question host publishes, scoped to one host (never a module-level bus).

The host emits an event only *after* the journal line behind it is durable (save before
notify): an :class:`AnswerSaved` means the ``resolved`` line is on disk, a :class:`Delivered`
means its receipt is. Views that only need "something changed" use the host's plain change
listeners; surfaces and notifiers (web bridge, hooks, embedders) subscribe to these instead of
diffing state. Events are frozen values; :attr:`kind` names them for serialisation (hooks).

* :class:`QuestionAsked` — a tool call created questions (blocking or async), with its source.
* :class:`WaitOpened` — a blocking wait went live (new blocking group or ``{questionId}``).
* :class:`WaitEnded` — a wait ended with an :class:`~asks.core.model.Outcome`.
* :class:`AnswerSaved` — resolutions (answers or declines) were saved, from ``source``
  (``panel``, ``web``, ``line``, …).
* :class:`Delivered` — saved resolutions reached the agent: as a tool result, a steer or a wake
  (and, to a hub agent, the person's notes: ``notes``; ``refs`` always name questions).
* :class:`QuestionsWithdrawn` — the agent took questions back.
* :class:`StorageFailed` — a journal append failed; ``message`` says what (nothing was saved).
* :class:`KeysReturned` — the question under the person's keys went away by someone else's
  doing (withdrawn, answered on another surface, its wait ended); the keys went back where the
  person came from. It names the question, its agent and what the person had typed, unsent.
"""

from __future__ import annotations

import enum

import attrs

from asks.core.model import Outcome, QuestionRef, ResolutionKind


class EventKind(enum.StrEnum):
    """The name of each event type (``event.kind``): hook names and payload ``kind``."""

    QUESTION_ASKED = "question_asked"
    WAIT_OPENED = "wait_opened"
    WAIT_ENDED = "wait_ended"
    ANSWER_SAVED = "answer_saved"
    DELIVERED = "delivered"
    WITHDRAWN = "withdrawn"
    STORAGE_FAILED = "storage_failed"
    KEYS_RETURNED = "keys_returned"


class Gone(enum.StrEnum):
    """Why the question under the person's keys went away."""

    WITHDRAWN = "withdrawn"  # its agent took it back
    ANSWERED = "answered"  # answered or declined on another surface (the browser, line mode)
    CLOSED = "closed"  # its wait ended (a Review tab), or it closed otherwise


class DeliveryChannel(enum.StrEnum):
    """How saved resolutions reached the agent."""

    TOOL_RESULT = "tool_result"  # in the result of the blocking call that waited for them
    STEER = "steer"  # a feedback message appended to the running turn
    WAKE = "wake"  # a feedback message that started a turn of an idle agent
    HUB = "hub"  # handed to an agent outside asks in a response of the hub (its receipt)


@attrs.frozen
class QuestionAsked:
    """A tool call created questions (``refs``), blocking or async, from ``source``."""

    call_id: str
    refs: tuple[QuestionRef, ...]
    blocking: bool
    source: str | None
    kind: EventKind = attrs.field(default=EventKind.QUESTION_ASKED, init=False)


@attrs.frozen
class WaitOpened:
    """A blocking wait went live: a new blocking group, or ``{questionId}`` entries."""

    call_id: str
    refs: tuple[QuestionRef, ...]
    source: str | None
    kind: EventKind = attrs.field(default=EventKind.WAIT_OPENED, init=False)


@attrs.frozen
class WaitEnded:
    """A wait ended with ``outcome`` (answered, declined, deferred, interrupted, …)."""

    call_id: str
    refs: tuple[QuestionRef, ...]
    outcome: Outcome
    kind: EventKind = attrs.field(default=EventKind.WAIT_ENDED, init=False)


@attrs.frozen
class AnswerSaved:
    """Resolutions (answers or declines) were saved, from ``source`` (``panel``, ``web``, …)."""

    refs: tuple[QuestionRef, ...]
    resolutions: tuple[ResolutionKind, ...]
    source: str
    kind: EventKind = attrs.field(default=EventKind.ANSWER_SAVED, init=False)


@attrs.frozen
class Delivered:
    """Saved resolutions reached the agent through ``channel`` (and a hub agent its ``notes``)."""

    refs: tuple[QuestionRef, ...]  # the questions whose resolutions were delivered
    channel: DeliveryChannel
    notes: tuple[QuestionRef, ...] = ()  # the person's notes to a hub agent delivered with them
    kind: EventKind = attrs.field(default=EventKind.DELIVERED, init=False)


@attrs.frozen
class QuestionsWithdrawn:
    """The agent took the questions ``refs`` back, saying ``reason``."""

    refs: tuple[QuestionRef, ...]
    reason: str
    kind: EventKind = attrs.field(default=EventKind.WITHDRAWN, init=False)


@attrs.frozen
class StorageFailed:
    """A journal append failed; ``message`` says what (nothing was saved)."""

    message: str
    kind: EventKind = attrs.field(default=EventKind.STORAGE_FAILED, init=False)


@attrs.frozen
class KeysReturned:
    """The question ``refs`` (one, or a Review tab's) under the person's keys went away
    (``why``); ``source`` is its agent, ``header`` its header, ``draft`` what the person had
    typed there and did not send, ``notice`` the sentence the person is shown."""

    refs: tuple[QuestionRef, ...]
    source: str | None
    header: str
    why: Gone
    draft: str
    notice: str
    kind: EventKind = attrs.field(default=EventKind.KEYS_RETURNED, init=False)


HostEvent = (
    QuestionAsked
    | WaitOpened
    | WaitEnded
    | AnswerSaved
    | Delivered
    | QuestionsWithdrawn
    | StorageFailed
    | KeysReturned
)
