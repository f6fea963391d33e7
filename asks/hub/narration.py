"""What the person reads in the transcript about the hub's agents (pure: event in, line out).

For each typed host event that concerns an agent asking through the hub (a question whose
recipient is a hub agent, :mod:`asks.host.hub`), a line, in the person's language:

* an agent asked (and whether it waits for the answer);
* an agent stopped waiting (its client cancelled, timed out or went away): the question stays
  pending and the answer reaches it at its next asks call — never a decline;
* an agent was given answers (the receipt of a hub response), and the person's notes to it
  (``asks hub``: ``@name text``) — one line for the notes of a response, after the answers';
* an agent asked permission (its ``PermissionRequest`` hook), the person allowed or denied it
  (once the reply went out), or it was handed back to the agent's own dialog, and why.

A client the hub refused (:class:`~asks.hub.guard.Refusal`) is a line too, with the command
that sets it up again (:class:`RefusalNotices`): at most one per kind of refusal in
:data:`REFUSALS_QUIET` seconds, the next one counting those left untold in between, so that a
client retrying in a loop writes one line a minute, not one per try.

:func:`retold` tells a resumed ``asks hub`` session what its journal holds, in journal order,
with the same lines: each hub agent's asks, the waits it gave up, the person's notes (their
chat line and that it was saved) and what each agent was given. A resumed session starts with
the last of those lines; :class:`RetoldHistory` gives the older ones when the person scrolls
up to them (thousands of questions asked: the lines of the records not shown are not built).

Questions are quoted through :func:`asks.sanitize.sanitize_line`: their text comes from the agent
(a note's, from the person, is shown the same way: one line, no escape sequences).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final, Generic, TypeVar

import attrs

from asks.core import events as ev
from asks.core.i18n import _
from asks.core.model import Outcome, Question, QuestionRef
from asks.core.permission import Behavior, HandBack, is_permission, verdict_of
from asks.host.hub import RECIPIENT_PREFIX
from asks.host.notes import saved_text, split, typed_text
from asks.host.permissions import HANDED_BACK, handed_back_notice
from asks.hub.guard import Refusal, Refused
from asks.hub.identity import MAX_LABEL
from asks.sanitize import sanitize_line
from asks.store.entries import GroupAsked, NoteSent, OfferDelivered, Record, ToolResult
from asks.store.projection import ProjectionView
from asks.store.records import Records, RecordUnreadable

REFUSALS_QUIET: Final = 60.0  # seconds between two lines about one kind of refusal


@attrs.frozen
class Retold:
    """One line of a resumed hub session's transcript: the person's own, or a notice."""

    text: str
    by_person: bool = False


def _hub_questions(projection: ProjectionView, refs: tuple[QuestionRef, ...]) -> list[Question]:
    found = [projection.question(ref) for ref in refs if ref in projection.by_ref]
    return [q for q in found if (q.recipient or "").startswith(RECIPIENT_PREFIX)]


def _quoted(questions: list[Question]) -> str:
    return ", ".join(f"“{sanitize_line(q.spec.question)}”" for q in questions)


def narrate(event: ev.HostEvent, projection: ProjectionView) -> list[str]:
    """The lines for ``event`` if it concerns a hub agent (none if it does not)."""
    lines = (
        _about_questions(event, projection),
        _about_notes(event, projection),
        _about_permissions(event, projection),
    )
    return [line for line in lines if line is not None]


def _about_permissions(event: ev.HostEvent, projection: ProjectionView) -> str | None:
    """An agent's permission request (docs/permission-prompts.md): asked, decided by the
    person (the reply went out), or handed back to the agent's own dialog."""
    refs = getattr(event, "refs", ())
    found = [projection.question(r) for r in refs if r in projection.by_ref]
    asked = [q for q in found if is_permission(q)]
    if not asked:
        return None
    agent = sanitize_line(asked[0].source or "agent")
    request = sanitize_line(asked[0].spec.header)
    match event:
        case ev.QuestionAsked():
            return _("{agent} asks permission: {request}").format(agent=agent, request=request)
        case ev.Delivered():
            resolution = projection.by_ref[asked[0].ref].resolution
            if resolution is not None and verdict_of(resolution).behavior is Behavior.ALLOW:
                return _("You allowed {agent}: {request}").format(agent=agent, request=request)
            return _("You denied {agent}: {request}").format(agent=agent, request=request)
        case ev.QuestionsWithdrawn():
            why = next((w for w in HandBack if event.reason == HANDED_BACK + w.value), None)
            if why is not None:
                return handed_back_notice(f"{agent} · {request}", why)
    return None


def note_quote(text: str, limit: int = 60) -> str:
    """A note as the transcript quotes it: one sanitised line, cut at ``limit`` characters."""
    line = " ".join(sanitize_line(text).split())
    return f"“{line if len(line) <= limit else line[: limit - 1] + '…'}”"


def _about_notes(event: ev.HostEvent, projection: ProjectionView) -> str | None:
    if not isinstance(event, ev.Delivered) or not event.notes:
        return None
    notes = [projection.notes[ref].note for ref in event.notes if ref in projection.notes]
    if not notes:
        return None
    agent = sanitize_line(notes[0].recipient.removeprefix(RECIPIENT_PREFIX))
    quoted = ", ".join(note_quote(note.text) for note in notes)
    return _("{agent} was given your note {notes}.").format(agent=agent, notes=quoted)


def hub_ask(event: ev.HostEvent, projection: ProjectionView) -> ev.QuestionAsked | None:
    """``event`` if it is a hub agent's questions asked (the line :func:`narrate` gives for it
    is :func:`asked_text`), found without reading its questions back."""
    if not isinstance(event, ev.QuestionAsked) or not event.refs:
        return None
    if not (projection.answer_to(event.refs[0]) or "").startswith(RECIPIENT_PREFIX):
        return None
    return event


def asked_text(event: ev.QuestionAsked, projection: ProjectionView) -> str:
    """The transcript's line about a hub agent's questions asked (``{agent} asks: …``), their
    texts read back from the journal now (docs/fleet-scale.md, "Questions by number"); a
    line whose questions cannot be read back says so."""
    try:
        return _about_questions(event, projection) or ""
    except RecordUnreadable as exc:
        agent = sanitize_line(event.source or "agent")
        return _("{agent} asks (the question could not be read back: {error})").format(
            agent=agent, error=sanitize_line(str(exc))
        )


def _about_questions(event: ev.HostEvent, projection: ProjectionView) -> str | None:
    refs = getattr(event, "refs", ())
    questions = _hub_questions(projection, refs)
    if not questions:
        return None
    agent = sanitize_line(questions[0].source or "agent")
    quoted = _quoted(questions)
    match event:
        case ev.QuestionAsked(blocking=True):
            return _("{agent} asks and waits for you: {questions}").format(
                agent=agent, questions=quoted
            )
        case ev.QuestionAsked():
            return _("{agent} asks: {questions}").format(agent=agent, questions=quoted)
        case ev.WaitEnded(outcome=Outcome.INTERRUPTED):
            return _(
                "{agent} stopped waiting for {questions}: your answer reaches it at its "
                "next asks call."
            ).format(agent=agent, questions=quoted)
        case ev.Delivered(channel=ev.DeliveryChannel.HUB):
            return _("{agent} was given your answer to {questions}.").format(
                agent=agent, questions=quoted
            )
    return None


_TOLD: Final = (GroupAsked, ToolResult, OfferDelivered, NoteSent)  # the kinds retold tells


def retold(records: Iterable[Record], projection: ProjectionView) -> list[Retold]:
    """The hub's part of a journal as transcript lines (module docstring), all at once; of a
    replay's records, only those of the kinds it tells are built."""
    if isinstance(records, Records):
        records = records.of_kinds(_TOLD)
    return [line for record in records for line in retell(record, projection)]


def retell(record: Record, projection: ProjectionView) -> list[Retold]:
    """The lines of one record of the journal (none for most)."""
    entry = record.entry
    event: ev.HostEvent | None = None
    match entry:
        case GroupAsked() if entry.call_id.startswith(RECIPIENT_PREFIX):
            refs = tuple(question.ref for question in entry.questions)
            event = ev.QuestionAsked(entry.call_id, refs, entry.blocking, None)
        case ToolResult(outcome=Outcome.INTERRUPTED) if entry.call_id in projection.calls:
            refs = projection.calls[entry.call_id].refs
            event = ev.WaitEnded(entry.call_id, refs, Outcome.INTERRUPTED)
        case OfferDelivered():
            questions, notes = split(projection, entry.refs)
            event = ev.Delivered(questions, ev.DeliveryChannel.HUB, notes)
        case NoteSent():
            label = sanitize_line(entry.recipient.removeprefix(RECIPIENT_PREFIX))
            return [
                Retold(typed_text(label, entry.text), by_person=True),
                Retold(saved_text(label)),
            ]
    return [] if event is None else [Retold(line) for line in narrate(event, projection)]


E = TypeVar("E")


class RetoldHistory(Generic[E]):
    """The lines :func:`retold` gives, as a resumed transcript's history (each made into a
    transcript entry by ``entry``): given from the end backwards, on demand. The records of
    the kinds it tells are found at once (a replay's by their kinds, without building them);
    each is built and told only when its lines are asked for. Loaded whole, the entries are
    :func:`retold`'s lines, in order, also when asked for later: a line reads what a record's
    questions, calls and notes are, which never changes once journaled."""

    def __init__(
        self,
        records: Sequence[Record],
        projection: ProjectionView,
        entry: Callable[[Retold], E],
    ) -> None:
        self._records = records
        self._projection = projection
        self._entry = entry
        if isinstance(records, Records):
            self._told = records.numbers_of(_TOLD)
        else:
            self._told = [n for n, record in enumerate(records) if type(record.entry) in _TOLD]
        self._drawn = len(self._told)  # the told records from here on are in the transcript

    @property
    def remaining(self) -> int:
        """Records to tell not told yet (0: all of them are in the transcript)."""
        return self._drawn

    def older(self, minimum: int) -> list[E]:
        """The entries of the next older records told, oldest first: at least ``minimum``
        of them unless the journal's start is reached first (then what is left, maybe none)."""
        found: list[E] = []
        while self._drawn and len(found) < minimum:
            self._drawn -= 1
            record = self._records[self._told[self._drawn]]
            found[:0] = [self._entry(line) for line in retell(record, self._projection)]
        return found


def refusal_text(refusal: Refusal, command: str) -> str:
    """The line for one refused client; ``command`` sets a client up (its label quoted as one
    sanitised line: it is the client's text)."""
    label = note_quote(refusal.label or "", MAX_LABEL)
    match refusal.why:
        case Refused.TOKEN:
            return _(
                "A client was refused: no token or a wrong one (rotated or revoked?). Set it up "
                "again with: {command}"
            ).format(command=command)
        case Refused.OTHER_AGENT:
            return _(
                "A client was refused: its token is {agent}'s, but its X-Asks-Agent header says "
                "{label}. Drop the header, or give that client its own: {command} --agent NAME"
            ).format(agent=sanitize_line(refusal.token_agent or ""), label=label, command=command)
        case Refused.LABEL:
            return _(
                "A client was refused: its X-Asks-Agent header {label} is not a name asks keeps "
                "as it is (letters, digits and . _ -). Set it up with: {command} --agent NAME"
            ).format(label=label, command=command)


@attrs.define(eq=False)
class RefusalNotices:
    """Which refusals become transcript lines (module docstring); ``clock`` in seconds."""

    command: str
    clock: Callable[[], float]
    quiet: float = REFUSALS_QUIET
    _told: dict[Refused, float] = attrs.field(init=False, factory=dict)  # when, by kind
    _untold: dict[Refused, int] = attrs.field(init=False, factory=dict)

    def line(self, refusal: Refusal) -> str | None:
        """The line to show for ``refusal``, or ``None`` while its kind keeps quiet."""
        now = self.clock()
        last = self._told.get(refusal.why)
        if last is not None and now - last < self.quiet:
            self._untold[refusal.why] = self._untold.get(refusal.why, 0) + 1
            return None
        self._told[refusal.why] = now
        text = refusal_text(refusal, self.command)
        untold = self._untold.pop(refusal.why, 0)
        if untold:
            text += " " + _("({count} more like it since the last such line.)").format(count=untold)
        return text
