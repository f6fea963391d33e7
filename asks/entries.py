"""Journal entry types and their one (de)serialisation point.

A journal line is one JSON object::

    {"v": 1, "seq": 12, "ts": 1732890000.5, "type": "group_asked", ...fields}

``v`` is the schema version, ``seq`` the entry's sequence number in the session (0-based,
strictly increasing), ``ts`` the wall-clock time of the append, ``type`` the tag of the entry
class. Field-by-field documentation is in NOTES.md ("Journal entries"). All conversion goes
through :data:`CONVERTER` (cattrs, tagged union); nothing else in the code base builds or
parses journal JSON.

Forward compatibility: a line whose ``type`` is unknown, or whose ``v`` is newer than
:data:`SCHEMA_VERSION`, decodes to :class:`UnknownEntry` carrying the raw object. Replay keeps
and skips it; it is never fatal.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final

import attrs
import cattrs
import cattrs.preconf.orjson
import orjson
from cattrs.strategies import configure_tagged_union

from asks.model import Outcome, Question, QuestionRef, Resolution

SCHEMA_VERSION: Final = 1


@attrs.frozen
class SessionStarted:
    """First line of every journal."""

    session_id: str
    created_at: float
    app_version: str


@attrs.frozen
class GroupAsked:
    """The questions of one ``ask_user_question`` call, saved before the tool returns.

    With ``blocking`` the call also opens a wait for the whole group; the wait is closed by the
    :class:`ToolResult` with the same ``call_id``.
    """

    call_id: str
    group_id: str
    questions: tuple[Question, ...]
    blocking: bool


@attrs.frozen
class WaitOpened:
    """A call made of ``{questionId}`` entries: a blocking wait on existing questions."""

    call_id: str
    refs: tuple[QuestionRef, ...]


@attrs.frozen
class ToolResult:
    """The tool result the model sees for ``call_id``; receipt of the resolutions it carries.

    ``delivered`` lists the resolutions this result hands to the model: after this line they
    are delivered and must never be sent again as feedback.
    """

    call_id: str
    outcome: Outcome
    text: str
    details: dict[str, Any]
    delivered: tuple[QuestionRef, ...] = ()


@attrs.frozen
class Resolved:
    """The person saved answers or declines (one submit = one line, atomic)."""

    resolutions: tuple[Resolution, ...]
    source: str = "panel"


@attrs.frozen
class FeedbackDelivered:
    """Receipt: a feedback message carrying ``delivered`` entered the model's context."""

    delivered: tuple[QuestionRef, ...]
    text: str
    mode: str  # "steer" (into a running turn) or "wake" (started a turn)


@attrs.frozen
class Withdrawn:
    """The agent took questions back; they leave the panel and expect no answer."""

    refs: tuple[QuestionRef, ...]
    reason: str = ""


@attrs.frozen
class ChatMessage:
    """A conversation message that is not a tool result or feedback (user or assistant)."""

    role: str
    content: str
    tool_calls: tuple[dict[str, Any], ...] = ()


@attrs.frozen
class UnknownEntry:
    """A line this version does not understand; kept verbatim and skipped by replay."""

    raw: dict[str, Any]


Entry = (
    SessionStarted
    | GroupAsked
    | WaitOpened
    | ToolResult
    | Resolved
    | FeedbackDelivered
    | Withdrawn
    | ChatMessage
)

TAGS: Final[dict[type[Any], str]] = {
    SessionStarted: "session_started",
    GroupAsked: "group_asked",
    WaitOpened: "wait_opened",
    ToolResult: "tool_result",
    Resolved: "resolved",
    FeedbackDelivered: "feedback_delivered",
    Withdrawn: "withdrawn",
    ChatMessage: "chat_message",
}
_CLASS_BY_TAG: Final[dict[str, type[Any]]] = {tag: cls for cls, tag in TAGS.items()}


@attrs.frozen
class Record:
    """One decoded journal line: envelope fields plus the entry."""

    seq: int
    ts: float
    entry: Entry | UnknownEntry


def _make_converter() -> cattrs.Converter:
    converter = cattrs.preconf.orjson.make_converter(
        forbid_extra_keys=False, detailed_validation=False
    )
    configure_tagged_union(
        Entry, converter, tag_generator=lambda cls: TAGS[cls], tag_name="type"
    )
    return converter


CONVERTER: Final = _make_converter()


_STRUCTURE_HOOKS: Final[Mapping[str, Callable[[Any, type[Any]], Any]]] = MappingProxyType(
    {tag: CONVERTER.get_structure_hook(cls) for tag, cls in _CLASS_BY_TAG.items()}
)


class DecodeError(ValueError):
    """A journal line that is not a JSON object with a valid envelope."""


def encode(seq: int, ts: float, entry: Entry) -> bytes:
    """Encode one entry as a complete journal line (UTF-8, ending in ``\\n``)."""
    body = CONVERTER.unstructure(entry, Entry)
    line = {"v": SCHEMA_VERSION, "seq": seq, "ts": ts, **body}
    try:
        return orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError:
        # Lone surrogates cannot be UTF-8: escape them (valid JSON, round-trips).
        return (json.dumps(line, ensure_ascii=True, separators=(",", ":")) + "\n").encode()


def decode(line: bytes) -> Record:
    """Decode one journal line. Unknown types and newer versions become :class:`UnknownEntry`.

    Raises :class:`DecodeError` for a line that is not a JSON object with ``seq``/``type``.
    """
    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise DecodeError(f"not JSON: {exc}") from exc
    if not isinstance(raw, dict):
        raise DecodeError("not a JSON object")
    seq, ts, version, tag = raw.get("seq"), raw.get("ts", 0.0), raw.get("v"), raw.get("type")
    if not isinstance(seq, int) or not isinstance(version, int) or not isinstance(tag, str):
        raise DecodeError("missing or malformed envelope (v, seq, type)")
    if not isinstance(ts, int | float):
        ts = 0.0
    cls = _CLASS_BY_TAG.get(tag)
    if version > SCHEMA_VERSION or cls is None:
        return Record(seq, float(ts), UnknownEntry(raw))
    try:
        # The tagged class's own hook (faster than through the union or converter dispatch);
        # the envelope keys are ignored as extra keys, which saves copying the dict.
        entry: Entry = _STRUCTURE_HOOKS[tag](raw, cls)
    except (cattrs.BaseValidationError, ValueError, TypeError, KeyError) as exc:
        raise DecodeError(f"invalid {tag} entry: {exc}") from exc
    return Record(seq, float(ts), entry)
