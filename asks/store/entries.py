"""Journal entry types and their one (de)serialisation point.

A journal line is one JSON object::

    {"v": 1, "seq": 12, "ts": 1732890000.5, "type": "group_asked", ...fields}

``v`` is the schema version, ``seq`` the entry's sequence number in the session (0-based,
strictly increasing), ``ts`` the wall-clock time of the append, ``type`` the tag of the entry
class. Field-by-field documentation is in docs/architecture.md ("The journal"). All conversion goes
through :func:`encode` and :func:`decode`, by :func:`converter` (cattrs; the union is tagged
by ``type``, see :data:`TAGS`); nothing else in the code base builds or parses journal JSON.

Launch cost: cattrs and the converter load on first use (~12 ms), not at import. A
:data:`FLAT` entry (every field a ``str``, ``int``, ``float``, ``bool`` or an enum, no
override) is encoded as its fields in order, which is what the converter does for such a class
(``tests/test_entries_flat.py`` checks both give the same line): a new session's first lines
(``session_started``, ``model_chosen``) are written before the first frame without cattrs.
Lines are in the stdlib's ``json`` format (compact, UTF-8) and read by orjson, imported on
first read (its import brings ``uuid`` and ``datetime``, ~7.6 M instructions: none before a
new session's first frame). A :data:`BY_ORJSON` line (the hub's commit writes those:
docs/fleet-scale.md) is written by orjson when orjson's bytes are the stdlib's, checked per
value (:func:`_orjson_line`), any other line by the stdlib: the journal's bytes are the same
either way. Reading 100k lines at resume is where orjson's speed counts. What orjson will not
read back (a lone surrogate, written escaped; ``NaN``, ``Infinity``) the stdlib reads
(:func:`decode`).

Forward compatibility: a line whose ``type`` is unknown, or whose ``v`` is newer than
:data:`SCHEMA_VERSION`, decodes to :class:`UnknownEntry` carrying the raw object. Replay keeps
and skips it; it is never fatal.
"""

from __future__ import annotations

import enum
import functools
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import NoneType, UnionType
from typing import TYPE_CHECKING, Any, Final, Union, get_args, get_origin

import attrs

from asks.core.model import (
    AnswerKind,
    Outcome,
    Question,
    QuestionRef,
    QuestionSpec,
    Resolution,
    ResolutionKind,
)

if TYPE_CHECKING:  # cattrs loads with the converter, orjson on first use (module docstring)
    import cattrs
    import orjson

SCHEMA_VERSION: Final = 1


class SessionMode(enum.StrEnum):
    """How the session was started: the REPL, ``asks -p`` (no UI), ``asks hub``, or by another
    program that embeds asks (the default of :meth:`Journal.create`: its agent is not asks',
    so the ``asks`` command lists such a session but never resumes it). Journals written
    before the field existed, or with a value this version does not know, read as
    ``unknown``."""

    INTERACTIVE = "interactive"
    PRINT = "print"
    HUB = "hub"  # ``asks hub``: no built-in agent, only agents asking through the hub
    EMBEDDED = "embedded"  # a program embedding asks (its own agent, its own resume)
    UNKNOWN = "unknown"

    @classmethod
    def _missing_(cls, value: object) -> SessionMode:
        return cls.UNKNOWN


@attrs.frozen
class SessionStarted:
    """First line of every journal."""

    session_id: str
    created_at: float
    app_version: str
    mode: SessionMode = SessionMode.UNKNOWN


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
    """The person saved answers or declines (one submit = one line, atomic).

    ``group_note`` is the person's one note for all the questions of this submit (the Review
    tab's note, line mode's or the web page's note of a group); ``""`` for none. It is left
    out of the line when empty, so such lines read exactly as before the field existed, and a
    line without it (an older journal) reads as ``""``.
    """

    resolutions: tuple[Resolution, ...]
    source: str = "panel"
    group_note: str = ""


@attrs.frozen
class FeedbackDelivered:
    """Receipt: a feedback message carrying ``delivered`` entered the model's context."""

    delivered: tuple[QuestionRef, ...]
    text: str
    mode: str  # "steer" (into a running turn) or "wake" (started a turn)


@attrs.frozen
class FeedbackOffered:
    """An agent outside asks (the hub) is about to be handed ``refs`` in a response: written
    before the response goes to its connection. :class:`OfferDelivered`, written once the
    response was handed over, is the receipt; :class:`OfferReleased` gives the units back (the
    connection failed first). An offer with neither at replay may or may not have reached the
    agent: its units are delivered again, saying so (docs/architecture.md, "The hub"). None of
    the three is part of the session's own agent's conversation."""

    offer_id: str
    refs: tuple[QuestionRef, ...]
    recipient: str


@attrs.frozen
class OfferDelivered:
    """Receipt of an offer: its response was handed to the agent's connection."""

    offer_id: str
    refs: tuple[QuestionRef, ...]


@attrs.frozen
class OfferReleased:
    """The response of an offer never reached its connection: its units are undelivered."""

    offer_id: str
    refs: tuple[QuestionRef, ...]


@attrs.frozen
class NoteSent:
    """The person sent a note to one agent (``asks hub``: ``@name text``). The note is a
    delivery unit of its own, named by ``ref`` (id ``n-<seq>``, incarnation: this line's
    ``seq``) in the receipts and offers exactly like a saved answer: it is delivered once, to
    ``recipient`` alone, at that agent's next asks call."""

    ref: QuestionRef
    recipient: str
    text: str


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
class PermissionDecided:
    """The person allowed or denied a permission prompt of tool call ``call_id``: a line of
    the visible chat (``⚑ permission allowed: PROMPT``), written when the decision is made so
    a resumed transcript shows it where the live one did. Not part of the model's context
    (the tool's result says what came of it)."""

    call_id: str
    prompt: str
    allowed: bool


@attrs.frozen
class ModelChosen:
    """Which model the session talks to — never the key. Written when a session starts and
    when a resume changes it; ``--resume`` reuses the last one unless flags override it.
    ``provider`` is ``openai``, ``anthropic`` or ``scripted`` (then ``model`` is the script's
    name and ``script`` its file, ``""`` for the built-in tour)."""

    provider: str
    model: str
    base_url: str = ""
    script: str = ""


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
    | ModelChosen
    | FeedbackOffered
    | OfferDelivered
    | OfferReleased
    | PermissionDecided
    | NoteSent
)

AgentRecord = ChatMessage | PermissionDecided  # what the agent loop journals itself

TAGS: Final[dict[type[Any], str]] = {
    SessionStarted: "session_started",
    GroupAsked: "group_asked",
    WaitOpened: "wait_opened",
    ToolResult: "tool_result",
    Resolved: "resolved",
    FeedbackDelivered: "feedback_delivered",
    Withdrawn: "withdrawn",
    ChatMessage: "chat_message",
    ModelChosen: "model_chosen",
    FeedbackOffered: "feedback_offered",
    OfferDelivered: "offer_delivered",
    OfferReleased: "offer_released",
    PermissionDecided: "permission_decided",
    NoteSent: "note_sent",
}
_CLASS_BY_TAG: Final[dict[str, type[Any]]] = {tag: cls for cls, tag in TAGS.items()}
# Entries whose every field is a str, int, float, bool or enum, with no unstructure override:
# the converter's line for them is their fields in order (module docstring).
FLAT: Final[frozenset[type[Any]]] = frozenset({SessionStarted, ModelChosen, PermissionDecided})
# Entries whose lines orjson writes (:func:`_orjson_line`): no ``float`` in their types, and
# the names of their fields typed ``Any``, checked per value. The hub's commit writes these.
BY_ORJSON: Final[dict[type[Any], tuple[str, ...]]] = {GroupAsked: (), ToolResult: ("details",)}


@attrs.frozen
class Record:
    """One decoded journal line: envelope fields plus the entry."""

    seq: int
    ts: float
    entry: Entry | UnknownEntry


def session_mode(records: Sequence[Record]) -> SessionMode:
    """How the session of ``records`` was started (its first line's ``mode``)."""
    first = records[0].entry if records else None
    return first.mode if isinstance(first, SessionStarted) else SessionMode.UNKNOWN


StructureHook = Callable[[Any, Any], Any]


def _is_homogeneous_tuple(tp: Any) -> bool:
    args = get_args(tp)
    return get_origin(tp) is tuple and len(args) == 2 and args[1] is Ellipsis


def _homogeneous_tuple_hook(tp: Any, converter: cattrs.Converter) -> StructureHook:
    """``tuple[X, ...]``: X's hook looked up once, not per call as cattrs' generic hook does."""
    elem = get_args(tp)[0]
    hook = converter.get_structure_hook(elem)

    def structure_tuple(obj: Iterable[Any], _: Any) -> tuple[Any, ...]:
        return tuple([hook(item, elem) for item in obj])

    return structure_tuple


def _is_optional(tp: Any) -> bool:
    args = get_args(tp)
    return get_origin(tp) in (Union, UnionType) and len(args) == 2 and NoneType in args


def _optional_hook(tp: Any, converter: cattrs.Converter) -> StructureHook:
    """``X | None``: X's hook looked up once, not per call as cattrs' generic hook does."""
    inner = next(arg for arg in get_args(tp) if arg is not NoneType)
    hook = converter.get_structure_hook(inner)

    def structure_optional(obj: Any, _: Any) -> Any:
        return None if obj is None else hook(obj, inner)

    return structure_optional


def _enum_hook(tp: type[enum.Enum]) -> StructureHook:
    """Enums by a dict lookup of the value; anything else goes to ``tp(value)``, which raises
    ``ValueError`` for an unknown value as before (the call alone costs ~1 µs)."""
    members = {member.value: member for member in tp}

    def structure_enum(value: Any, _: Any) -> enum.Enum:
        try:
            return members[value]
        except (KeyError, TypeError):
            return tp(value)

    return structure_enum


def _structure_json_object(obj: Any, _: Any) -> dict[str, Any]:
    """``dict[str, Any]`` (``details``, tool calls): a JSON object's keys are already ``str``,
    so a plain copy does what cattrs' per-key hook does, and anything else is a ``TypeError``
    (cattrs' hook raised ``AttributeError``, which escaped :func:`decode`)."""
    if not isinstance(obj, dict):
        raise TypeError(f"expected a JSON object, got {type(obj).__name__}")
    return dict(obj)


def _chat_message_hook(converter: cattrs.Converter) -> StructureHook:
    """The most frequent entry (about half of a session's lines), built directly rather than
    through the generated hook's keyword dict. Same rules as the generated hook: ``role`` and
    ``content`` required (as ``str``), ``tool_calls`` optional (``tests/test_journal.py`` checks
    the field list still matches)."""
    calls_type = tuple[dict[str, Any], ...]
    structure_calls = converter.get_structure_hook(calls_type)

    def structure_chat_message(obj: Mapping[str, Any], _: Any) -> ChatMessage:
        calls = structure_calls(obj["tool_calls"], calls_type) if "tool_calls" in obj else ()
        return ChatMessage(str(obj["role"]), str(obj["content"]), calls)

    return structure_chat_message


def _make_converter() -> cattrs.Converter:
    import cattrs.gen  # noqa: PLC0415 (launch cost: module docstring)
    import cattrs.preconf.orjson  # noqa: PLC0415

    converter = cattrs.preconf.orjson.make_converter(
        forbid_extra_keys=False, detailed_validation=False
    )
    # Replay structures ~10⁶ values: cheaper hooks for the generic shapes cattrs dispatches at
    # every call, and for the most frequent entry (measured with all of them: structuring a
    # 100k-line journal 0.61 s -> 0.38 s).
    converter.register_structure_hook_factory(_is_homogeneous_tuple, _homogeneous_tuple_hook)
    converter.register_structure_hook_factory(_is_optional, _optional_hook)
    # Explicitly per type: cattrs dispatches a StrEnum by its ``str`` base before any factory.
    for enum_type in (Outcome, ResolutionKind, AnswerKind, SessionMode):
        converter.register_structure_hook(enum_type, _enum_hook(enum_type))
    converter.register_structure_hook_func(lambda tp: tp == dict[str, Any], _structure_json_object)
    converter.register_structure_hook(ChatMessage, _chat_message_hook(converter))
    # ``resolved`` leaves an empty group note out (its lines read as before the field); the
    # encoder is generated on first use, like every other (warm_up_encoders builds it).
    converter.register_unstructure_hook_factory(
        lambda tp: tp is Resolved,
        lambda tp: cattrs.gen.make_dict_unstructure_fn(
            tp, converter, group_note=cattrs.gen.override(omit_if_default=True)
        ),
    )
    # A question with a ``Type something.`` row (the default) leaves ``custom`` out: its lines
    # read as before the field existed, and older journals read as custom (before
    # the question's own hook, which calls it).
    converter.register_unstructure_hook(
        QuestionSpec,
        cattrs.gen.make_dict_unstructure_fn(
            QuestionSpec, converter, custom=cattrs.gen.override(omit_if_default=True)
        ),
    )
    # A question of the session's own agent has no recipient: left out, so its lines read as
    # before the field existed (and older journals read as the own agent's).
    converter.register_unstructure_hook(
        Question,
        cattrs.gen.make_dict_unstructure_fn(
            Question, converter, recipient=cattrs.gen.override(omit_if_default=True)
        ),
    )
    # The entry union is tagged by hand in encode/decode (``TAGS``), as cattrs' tagged-union
    # strategy would, but without generating every class's hooks at import (~10 ms): cattrs
    # generates each hook when first asked for it.
    return converter


@functools.cache
def converter() -> cattrs.Converter:
    """The store's one converter, built on first use (the same one from then on)."""
    return _make_converter()


class DecodeError(ValueError):
    """A journal line that is not a JSON object with a valid envelope."""


def warm_up_encoders() -> None:
    """Build the encoder of every entry type now: cattrs generates one per type on its first
    use (~0.5–1.5 ms each), which would otherwise fall on the first question of a session
    (``group_asked``, ``tool_result``) between the model's tool call and the panel. Twice:
    generating some types' hooks empties cattrs' dispatch cache once (measured: the second
    pass builds seven again, a third none). orjson too, which writes those two lines."""
    import orjson  # noqa: F401, PLC0415 (launch cost: module docstring)

    for _pass in range(2):
        for entry_type in TAGS:
            converter().get_unstructure_hook(entry_type)


def encode(seq: int, ts: float, entry: Entry) -> bytes:
    """Encode one entry as a complete journal line (UTF-8, ending in ``\\n``): the stdlib's
    compact JSON of the envelope and the converter's fields; for a :data:`BY_ORJSON` entry
    the same bytes made by orjson when they are the same (:func:`_orjson_line`)."""
    cls = type(entry)
    tag = TAGS[cls]
    if cls in FLAT:
        body = {field.name: getattr(entry, field.name) for field in attrs.fields(cls)}
    else:
        body = converter().unstructure(entry, cls)
    body["type"] = tag  # last, where cattrs' tagged-union strategy put it
    line = {"v": SCHEMA_VERSION, "seq": seq, "ts": ts, **body}
    checked = BY_ORJSON.get(cls)
    if checked is not None:
        fast = _orjson_line(line, checked)
        if fast is not None:
            return fast
    return _stdlib_line(line)


def _stdlib_line(line: dict[str, Any]) -> bytes:
    """The line as the stdlib's ``json`` writes it (compact, UTF-8: the journal's format)."""
    try:
        return (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    except UnicodeEncodeError:
        # Lone surrogates cannot be UTF-8: escape them (valid JSON, round-trips).
        return (json.dumps(line, ensure_ascii=True, separators=(",", ":")) + "\n").encode()


def _orjson_line(line: dict[str, Any], checked: tuple[str, ...]) -> bytes | None:
    """The line by orjson (~10× faster than the stdlib) if its bytes are
    :func:`_stdlib_line`'s, else ``None``. They are for ``str`` (every code point escaped
    alike), ``int``, ``bool``, ``None``, enums of those, ``list``, ``tuple`` and ``dict`` of
    ``str`` keys; a ``float`` only where orjson writes its ``repr`` (``0.5``, not ``1e-05``,
    ``NaN`` or infinities). A :data:`BY_ORJSON` class holds no ``float`` by its types, so
    what is checked per value is ``ts`` and its ``checked`` fields (typed ``Any``); orjson
    refuses a lone surrogate and an ``int`` beyond 64 bits (``None`` then), and hands any
    other type, a subclass included, to ``default``, which refuses it
    (``tests/test_entries_encode.py``)."""
    import orjson  # noqa: PLC0415 (launch cost: module docstring)

    dumps = orjson.dumps
    if dumps(line["ts"]) != float.__repr__(line["ts"]).encode():
        return None
    for name in checked:
        if not _plain(line[name], dumps):
            return None
    try:
        return dumps(line, default=_refuse, option=_orjson_options(orjson))
    except orjson.JSONEncodeError:
        return None


@functools.cache
def _orjson_options(orjson: Any) -> int:
    """A line, its newline, and every subclass, dataclass or date handed to ``default``."""
    return int(
        orjson.OPT_APPEND_NEWLINE
        | orjson.OPT_PASSTHROUGH_SUBCLASS
        | orjson.OPT_PASSTHROUGH_DATACLASS
        | orjson.OPT_PASSTHROUGH_DATETIME
    )


def _refuse(value: object) -> object:
    """orjson's ``default``: a type it would write otherwise than the stdlib."""
    raise TypeError(type(value).__name__)


_SCALARS: Final = frozenset({str, int, bool, NoneType})


def _plain(value: object, dumps: Callable[[Any], bytes]) -> bool:
    """Does ``value`` (typed ``Any``) hold only what orjson writes as the stdlib does?"""
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is dict:
        for key, item in value.items():  # type: ignore[attr-defined]
            if type(key) is not str or not _plain(item, dumps):
                return False
        return True
    if kind is list or kind is tuple:
        return all(_plain(item, dumps) for item in value)  # type: ignore[attr-defined]
    if kind is float:
        return dumps(value) == float.__repr__(value).encode()
    return False


def _escaped_line(line: bytes, error: orjson.JSONDecodeError) -> Any:
    """A line orjson refuses may still be one :func:`encode` wrote: lone surrogates escaped
    (``\\ud800``), ``NaN`` or ``Infinity``, which orjson will not read back: the stdlib reads
    those."""
    try:
        return json.loads(line)
    except ValueError:
        raise DecodeError(f"not JSON: {error}") from error


def _invalid_entry() -> tuple[type[Exception], ...]:
    """What the converter raises for a line that does not fit its class (read only when an
    error is being handled, so cattrs is loaded by then)."""
    import cattrs  # noqa: PLC0415 (launch cost: module docstring)

    return (cattrs.BaseValidationError, ValueError, TypeError, KeyError, AttributeError)


def decode(line: bytes) -> Record:
    """Decode one journal line. Unknown types and newer versions become :class:`UnknownEntry`.

    Raises :class:`DecodeError` for a line that is not a JSON object with ``seq``/``type``.
    """
    import orjson  # noqa: PLC0415 (launch cost: module docstring)

    try:
        raw = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raw = _escaped_line(line, exc)
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
        entry: Entry = converter().get_structure_hook(cls)(raw, cls)
    except _invalid_entry() as exc:
        raise DecodeError(f"invalid {tag} entry: {exc}") from exc
    return Record(seq, float(ts), entry)
