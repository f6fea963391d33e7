"""Value objects of the question model: questions, groups, answers, outcomes.

Everything here is an immutable ``@attrs.frozen`` value, changed with ``attrs.evolve``.
These are the shapes that the tool contract validates into, that the journal stores, and that
the host keeps in its projection. No I/O and no policy live here.

Identity rules:

* A question id is derived from the session id, the tool-call id and the question's index in
  the call (:func:`question_id`), so a retried call with the same tool-call id maps to the same
  ids instead of creating duplicates.
* An *incarnation* is the journal sequence number of the entry that created the question. A
  :class:`QuestionRef` (id + incarnation) names one life of a question; drafts and delivery units
  are keyed by it, so a new question that reuses an old id never inherits an old draft.
* Answers keep option *indices*; labels are looked up from the question, so duplicate labels and
  reordering cannot confuse identity.
"""

from __future__ import annotations

import enum
import hashlib
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from asks.core.brief import QuestionBrief

MAX_QUESTIONS = 4
MIN_OPTIONS = 2
MAX_OPTIONS = 4
MAX_HEADER = 16
MAX_LABEL = 60
MAX_QUESTION_TEXT = 2_000
MAX_DESCRIPTION = 500
MAX_CONTEXT = 4_000
MAX_PREVIEW = 4_000
MAX_CUSTOM_TEXT = 10_000
MAX_ID = 128

# Labels the panel itself renders as rows; an option may not use them.
RESERVED_LABELS = ("Other", "Type something.", "Next")


def question_id(session_id: str, call_id: str, index: int) -> str:
    """Stable id of question ``index`` of tool call ``call_id`` in ``session_id``."""
    digest = hashlib.blake2s(
        f"{session_id}\x00{call_id}\x00{index}".encode(), digest_size=5
    ).hexdigest()
    return f"q-{digest}"


@attrs.frozen
class Option:
    """One selectable option of a question."""

    label: str
    description: str = ""
    preview: str | None = None


@attrs.frozen
class QuestionSpec:
    """A validated new question as the model asked it (before it gets an id).

    ``custom``: the person may type their own answer in a ``Type something.`` row besides the
    options (the default). False (the tool's ``"custom": false``) leaves that row out: only
    the options answer. A free-text question (no options) is always custom.
    """

    question: str
    header: str
    options: tuple[Option, ...] = ()
    multi_select: bool = False
    context: str | None = None
    custom: bool = True

    @property
    def is_free_text(self) -> bool:
        return not self.options


@attrs.frozen(cache_hash=True)
class QuestionRef:
    """One incarnation of a question: the key of drafts and delivery units."""

    id: str
    incarnation: int


@attrs.frozen
class Question:
    """A question with its identity, as stored in the journal and shown as a tab."""

    ref: QuestionRef
    group_id: str
    index: int
    spec: QuestionSpec
    source: str | None = None  # who asked (an agent or subagent label); None: the only agent
    # who the answer goes to: None is the session's own agent; "mcp:<label>" an agent outside
    # asks asking through the hub (its answers are delivered to it alone)
    recipient: str | None = None

    @property
    def id(self) -> str:
        """The question's stable id (``q-`` and 10 hex digits)."""
        return self.ref.id

    @property
    def brief(self) -> QuestionBrief:
        """Its header, who asked it and who its answer goes to."""
        from asks.core.brief import QuestionBrief  # noqa: PLC0415 (off the launch: asks/core/brief.py)

        return QuestionBrief(self.spec.header, self.source, self.recipient)


class AnswerKind(enum.StrEnum):
    """What an :class:`Answer` holds: one option, free text, or checked options."""

    OPTION = "option"  # one option chosen (single select)
    CUSTOM = "custom"  # free text typed in the "Type something." row
    MULTI = "multi"  # zero or more options checked, maybe with custom text


@attrs.frozen
class Answer:
    """What the person answered to one question. Option identity is by index."""

    kind: AnswerKind
    option_indices: tuple[int, ...] = ()
    custom_text: str | None = None
    notes: str = ""

    def labels(self, spec: QuestionSpec) -> tuple[str, ...]:
        """Selected labels in option order, then the custom text if any."""
        chosen = tuple(spec.options[i].label for i in sorted(self.option_indices))
        if self.custom_text:
            chosen += (self.custom_text,)
        return chosen

    def text(self, spec: QuestionSpec) -> str:
        """The answer as the person sees it: the chosen labels (and free text), comma-joined."""
        return ", ".join(self.labels(spec))

    def preview(self, spec: QuestionSpec) -> str | None:
        """The preview of the one option chosen (single select), if it has one."""
        if self.kind is AnswerKind.OPTION and len(self.option_indices) == 1:
            return spec.options[self.option_indices[0]].preview
        return None


class ResolutionKind(enum.StrEnum):
    ANSWERED = "answered"
    DECLINED = "declined"


@attrs.frozen
class Resolution:
    """The person's saved resolution of one question incarnation: an answer or a decline.

    Every resolution is a *delivery unit*: it must reach the agent exactly once.
    """

    ref: QuestionRef
    kind: ResolutionKind
    answer: Answer | None = None


class Outcome(enum.StrEnum):
    """Outcome of a tool call, as the model is told."""

    ANSWERED = "answered"
    PARTIAL = "partial"
    DECLINED = "declined"
    DEFERRED = "deferred"
    WITHDRAWN = "withdrawn"
    INTERRUPTED = "interrupted"
    QUEUED = "queued"  # async call accepted: ids returned at once
    ALREADY_RECEIVED = "already_received"


class QuestionStatus(enum.StrEnum):
    PENDING = "pending"
    ANSWERED = "answered"
    DECLINED = "declined"
    WITHDRAWN = "withdrawn"


MAX_SOURCE = 64  # characters of a source label (a tab chip may ellipsize it when drawn)


def check_source(source: str | None) -> str | None:
    """Validate an ask's source label; raise :class:`ValueError` naming the fix."""
    if source is None:
        return None
    if not isinstance(source, str) or not source.strip():
        raise ValueError("source must be a non-empty label such as 'planner', or None")
    if len(source) > MAX_SOURCE:
        raise ValueError(f"source {source[:MAX_SOURCE]!r}… is longer than {MAX_SOURCE} characters")
    if not source.isprintable():
        raise ValueError(f"source {source!r} contains control characters; use plain text")
    return source.strip()
