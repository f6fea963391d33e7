"""The drafts file: what the person typed and did not send or save, beside the session journal.

``<data_dir>/<session_id>.drafts.json`` (mode 0600) holds one JSON object::

    {"v": 1, "session_id": "…", "chat": {"text": "…", "caret": 3},
     "questions": [{"ref": {"id": "q-…", "incarnation": 4},
                    "draft": {"cursor": 2, "checked": [], "custom_text": "…", "caret": 5,
                              "notes": "", "staged": null}}]}

Semantics:

* **Not evidence.** The journal never refers to it and nothing in it is ever replayed as an
  answer or a message; losing it loses drafts, nothing else. ``asks sessions`` ignores it.
* **Whole or absent.** :meth:`DraftFile.write` writes a temporary file in the same directory
  (0600) and renames it over (``os.replace``, atomic), through the journal's
  :class:`~asks.store.files.FileOps`. No fsync: a crash may lose the last write (the last
  half second of typing), never leave a torn file.
* **One converter.** Encoding goes through the store's :func:`~asks.store.entries.converter`
  (cattrs), like journal entries, in a copy that structures strictly (a string must be a
  string, an int an int, an object an object: the file is data, nothing is coerced), built on
  first use like the store's (a new session's launch reads no drafts file). Text
  that cannot be UTF-8 (lone surrogates) is written as JSON escapes and read back exactly.
* **Only the chat line re-encoded while the person types in chat.** :meth:`DraftFile.write`
  keeps the JSON of the last questions it wrote (for the same tuple: the keeper keeps one per
  draft-book revision) and splices it after a fresh envelope and chat line: byte for byte
  :func:`encode`'s file (``tests/test_drafts_file.py``); any other case is :func:`encode`.
* **Read once, checked.** :meth:`DraftFile.load` returns ``None`` when there is no file and
  raises :class:`DraftsUnreadable` (with a reason for the person) when it cannot be read or is
  not a drafts file of this session and version; the caller says so once and restores nothing.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import attrs

from asks.core.drafts import NO_CHAT, ChatLine, SavedDraft, SavedDrafts
from asks.core.i18n import _
from asks.store.entries import converter
from asks.store.files import FileOps, os_reason

if TYPE_CHECKING:  # cattrs loads with the converter, on first use
    import cattrs

__all__ = [
    "DRAFTS_SUFFIX",
    "DRAFTS_VERSION",
    "DraftFile",
    "DraftsUnreadable",
    "decode",
    "drafts_path",
    "encode",
]

DRAFTS_SUFFIX: Final = ".drafts.json"
DRAFTS_VERSION: Final = 1


class DraftsUnreadable(ValueError):  # noqa: N818 (reads better at the call site)
    """The drafts file exists but cannot be used; the message says why, for a person."""


@attrs.frozen
class _Body:
    v: int
    session_id: str
    chat: ChatLine = NO_CHAT
    questions: tuple[SavedDraft, ...] = ()


def _exact(tp: type[Any]) -> Callable[[Any, Any], Any]:
    def structure_exact(obj: Any, _: Any) -> Any:
        if type(obj) is not tp:
            raise TypeError(f"expected {tp.__name__}, got {type(obj).__name__}")
        return obj

    return structure_exact


@functools.cache
def _strict_converter() -> cattrs.Converter:
    """The store's converter, refusing what it would coerce (module docstring); built once,
    on first use."""
    from cattrs.gen import make_dict_structure_fn  # noqa: PLC0415 (loads with the converter)

    strict = converter().copy()
    strict.register_structure_hook(str, _exact(str))
    strict.register_structure_hook(int, _exact(int))

    def attrs_hook(cls: type[Any]) -> Callable[[Any, Any], Any]:
        generated = make_dict_structure_fn(cls, strict)

        def structure_object(obj: Any, tp: Any) -> Any:
            if not isinstance(obj, dict):
                raise TypeError(f"expected an object, got {type(obj).__name__}")
            return generated(obj, tp)

        return structure_object

    strict.register_structure_hook_factory(attrs.has, attrs_hook)
    return strict


def drafts_path(journal_path: Path) -> Path:
    """``<session_id>.drafts.json`` beside ``<session_id>.jsonl``."""
    return journal_path.with_suffix(DRAFTS_SUFFIX)


def encode(session_id: str, saved: SavedDrafts) -> bytes:
    body: dict[str, Any] = _strict_converter().unstructure(
        _Body(DRAFTS_VERSION, session_id, saved.chat, saved.questions), _Body
    )
    import orjson  # noqa: PLC0415 (not before the first frame: asks/store/entries.py)

    try:
        return orjson.dumps(body)
    except orjson.JSONEncodeError:  # lone surrogates: escaped, read back by json.loads
        return json.dumps(body, ensure_ascii=True, separators=(",", ":")).encode()


def _unreadable() -> tuple[type[Exception], ...]:
    """What a file that is not a drafts file raises (read only while handling an error)."""
    import cattrs  # noqa: PLC0415 (loads with the converter)

    return (ValueError, TypeError, KeyError, AttributeError, cattrs.BaseValidationError)


def decode(data: bytes, session_id: str) -> SavedDrafts:
    """The drafts in ``data``; :class:`DraftsUnreadable` if it is not this session's file."""
    import orjson  # noqa: PLC0415 (not before the first frame: asks/store/entries.py)

    try:
        try:
            raw = orjson.loads(data)
        except orjson.JSONDecodeError:
            raw = json.loads(data)  # escaped lone surrogates (see encode); else raises too
        if not isinstance(raw, dict):
            raise TypeError("not a JSON object")
        if raw.get("v") != DRAFTS_VERSION or raw.get("session_id") != session_id:
            raise ValueError("another version or session")
        body = _strict_converter().structure(raw, _Body)
    except _unreadable() as exc:
        raise DraftsUnreadable(_("not a drafts file of this session")) from exc
    return SavedDrafts(body.chat, body.questions)


class DraftFile:
    """The drafts file of one session (see module docstring)."""

    __slots__ = ("_questions", "ops", "path", "session_id")

    def __init__(self, path: Path, session_id: str, ops: FileOps | None = None) -> None:
        self.path = path
        self.session_id = session_id
        self.ops = FileOps() if ops is None else ops
        # the questions of the last write and their JSON (module docstring)
        self._questions: tuple[tuple[SavedDraft, ...], bytes] | None = None

    def load(self) -> SavedDrafts | None:
        try:
            data = self.ops.read_file(self.path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise DraftsUnreadable(os_reason(exc)) from exc
        return decode(data, self.session_id)

    def write(self, saved: SavedDrafts) -> None:
        """Replace the file with ``saved`` (atomic, no fsync); raises :class:`OSError`."""
        self.ops.replace_file(self.path, self.encoded(saved))

    def encoded(self, saved: SavedDrafts) -> bytes:
        """:func:`encode` of ``saved``, the questions' JSON kept from the last call while they
        are the same tuple (module docstring)."""
        import orjson  # noqa: PLC0415 (not before the first frame: asks/store/entries.py)

        kept = self._questions
        try:
            if kept is None or kept[0] is not saved.questions:
                body = _strict_converter().unstructure(
                    _Body(DRAFTS_VERSION, self.session_id, NO_CHAT, saved.questions), _Body
                )
                kept = self._questions = (saved.questions, orjson.dumps(body["questions"]))
            chat = {"text": saved.chat.text, "caret": saved.chat.caret}
            head = orjson.dumps({"v": DRAFTS_VERSION, "session_id": self.session_id, "chat": chat})
        except orjson.JSONEncodeError:  # lone surrogates: encode escapes them
            return encode(self.session_id, saved)
        return head[:-1] + b',"questions":' + kept[1] + b"}"

    def remove(self) -> None:
        """Nothing to keep: no file (it is not an error if there was none)."""
        with contextlib.suppress(FileNotFoundError):
            self.ops.unlink(self.path)
