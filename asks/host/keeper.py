"""Keeping drafts across a crash or kill: the host's drafts, and the chat line, on disk.

:class:`DraftKeeper` is the host's collaborator for the session's drafts file
(:mod:`asks.store.draftfile`, beside the journal). It saves the host's draft book — selection,
checks, custom text and caret, notes, the staged answers of a multi-question wait — and the
chat line of whatever editor registered with :meth:`DraftKeeper.keep_chat` (the layer does it
for an ``urwid.Edit``). Drafts survive a crash or kill:

* **Never on the key path.** A change only marks the drafts dirty: the host's change listener
  compares the draft book's ``revision`` (an int), and the layer calls :meth:`chat_changed`
  after a key reached the chat editor. No I/O, no encoding, no copying per key.
* **Debounced.** :meth:`run` (the layer's ``running()`` starts it) waits for the first change,
  lets :data:`SAVE_INTERVAL` seconds of typing collect, then writes one snapshot: at most one
  write per interval while the person types, none while nothing changes (and none when the
  snapshot equals what the file holds). :meth:`flush` writes once more at exit; when there is
  nothing to keep, the file is removed instead.
* **Never an answer.** Nothing here touches the journal, the outbox or a wait.
* **Failures are one notice.** A write that fails (disk full, read-only directory) says so
  once through the host's notice, keeps every draft in memory and never raises; the next
  change tries again, and a success re-arms the notice.
* **Restore once.** :meth:`restore` reads the file (at resume; a new session has none),
  brings back what :func:`~asks.core.restore.plan_restore` allows — drafts of questions still
  pending with the same incarnation, the chat line into the registered editor — and says what
  came back, once: the host's notice, or (``say=False``) only the returned
  :class:`~asks.core.restore.Restored`'s sentence, for a caller that writes it elsewhere.
  An unreadable file is one warning and no drafts, never a crash.
  A chat line that no editor took is kept in the file as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Final, Protocol

import attrs
import trio

from asks.core.drafts import NO_CHAT, ChatLine, DraftBook, SavedDraft, SavedDrafts
from asks.core.i18n import _
from asks.core.model import QuestionRef, QuestionSpec
from asks.core.restore import Restored, plan_restore
from asks.store.draftfile import DraftFile, DraftsUnreadable, drafts_path
from asks.store.files import os_reason
from asks.store.journal import Journal
from asks.store.projection import Projection

SAVE_INTERVAL: Final = 0.5  # seconds: at most one write per interval while the person types


class KeeperCore(Protocol):
    """What the keeper needs from the orchestrator."""

    projection: Projection

    def say(self, notice: str) -> str: ...
    def subscribe(self, listener: Callable[[], None]) -> Callable[[], None]: ...


@attrs.frozen
class KeeperStatistics:
    writes: int  # files written or removed
    failures: int  # writes that failed
    dirty: bool  # a change waits for the next write


class DraftKeeper:
    """Saves and restores one host's drafts: the panel's drafts and the chat line, in the
    session's drafts file beside the journal (``<session>.drafts.json``, 0600), never an
    answer. A key only marks them dirty; :meth:`AsksLayer.running
    <asks.widgets.layer.AsksLayer.running>` writes at most every ``interval`` seconds and
    once more at the end. An embedder reaches it as ``host.panel_port.drafts`` to register
    an editor that is not an ``urwid.Edit`` (:meth:`keep_chat`)."""

    # A plain class, not attrs: building one is ~1 M instructions of every launch.
    __slots__ = (
        "_book",
        "_chat",
        "_core",
        "_dirty",
        "_failing",
        "_failures",
        "_file",
        "_kept_chat",
        "_questions",
        "_restored",
        "_seen",
        "_wake",
        "_writes",
        "_written",
        "interval",
    )

    def __init__(
        self, core: KeeperCore, book: DraftBook, file: DraftFile, interval: float = SAVE_INTERVAL
    ) -> None:
        self._core = core
        self._book = book
        self._file = file
        self.interval = interval
        self._chat: tuple[Callable[[], ChatLine], Callable[[ChatLine], None]] | None = None
        self._kept_chat = NO_CHAT  # the file's chat line while no editor took it
        self._seen = -1  # the draft book's revision at the last look
        self._dirty = False
        self._wake = trio.Event()
        self._written: SavedDrafts | None = None  # what the file holds (None: not known)
        # the draft book's saved drafts at a revision: one tuple while only the chat line changes
        self._questions: tuple[int, tuple[SavedDraft, ...]] = (-1, ())
        self._failing = False
        self._restored: Restored | None = None
        self._writes = 0
        self._failures = 0

    @classmethod
    def beside(cls, core: KeeperCore, book: DraftBook, journal: Journal) -> DraftKeeper:
        """The keeper of ``journal``'s drafts file, written through the journal's file ops."""
        path = drafts_path(journal.path)
        return cls(core, book, DraftFile(path, journal.session_id, journal.file_ops))

    @property
    def path(self) -> Path:
        """The drafts file (``<session>.drafts.json`` beside the journal)."""
        return self._file.path

    def statistics(self) -> KeeperStatistics:
        """Writes and failures so far, and whether unsaved changes are pending."""
        return KeeperStatistics(self._writes, self._failures, self._dirty)

    # -- the chat line -------------------------------------------------------------------
    def keep_chat(self, read: Callable[[], ChatLine], write: Callable[[ChatLine], None]) -> None:
        """Save the chat line ``read()`` returns (called only when writing), and restore it
        with ``write``. One editor at a time: a later call replaces an earlier one."""
        self._chat = (read, write)

    def chat_changed(self) -> None:
        """A key reached the chat editor: the chat line may have changed (O(1), no I/O)."""
        if not self._dirty:
            self._dirty = True
            self._wake.set()

    def _host_changed(self) -> None:
        revision = self._book.revision
        if revision != self._seen:
            self._seen = revision
            self.chat_changed()

    # -- writing --------------------------------------------------------------------------
    async def run(self) -> None:
        """Write the drafts while they change, at most every :attr:`interval` seconds; runs
        until cancelled."""
        self._seen = self._book.revision
        unsubscribe = self._core.subscribe(self._host_changed)
        try:
            while True:
                await self._wake.wait()
                await trio.sleep(self.interval)  # let the keys of one interval collect
                self._wake, self._dirty = trio.Event(), False
                self.save_now()
        finally:
            unsubscribe()

    def flush(self) -> bool:
        """The last write (at exit): save what is left, or remove the file if nothing is."""
        self._dirty = False
        return self.save_now()

    def save_now(self) -> bool:
        """Write the snapshot if it differs from the file; False if that failed (noticed once)."""
        saved = self._snapshot()
        if saved == self._written:
            return True
        try:
            if saved.empty:
                self._file.remove()
            else:
                self._file.write(saved)
        except OSError as exc:
            self._written = None
            self._failures += 1
            if not self._failing:
                self._failing = True
                self._core.say(
                    _(
                        "Drafts could not be saved to disk ({why}); they are kept while asks runs."
                    ).format(why=os_reason(exc))
                )
            return False
        self._failing, self._written = False, saved
        self._writes += 1
        return True

    def _snapshot(self) -> SavedDrafts:
        chat = self._chat[0]() if self._chat is not None else self._kept_chat
        if not chat.text:
            chat = NO_CHAT
        if self._questions[0] != self._book.revision:
            self._questions = (self._book.revision, self._book.saved())
        return SavedDrafts(chat, self._questions[1])

    # -- restoring ------------------------------------------------------------------------
    def restore(self, *, say: bool = True) -> Restored:
        """Bring back the drafts of an earlier run, once (:class:`~asks.core.restore.Restored`
        says what came back); a later call
        returns the first one's result and changes nothing. ``say``: the host's notice says
        what came back; without it the caller shows the returned notice itself (the REPL
        writes it into its transcript: the person reads it once, not in three places)."""
        if self._restored is None:
            self._restored = self._restore()
            if say and self._restored.notice is not None:
                self._core.say(self._restored.notice)
        return self._restored

    def _restore(self) -> Restored:
        try:
            saved = self._file.load()
        except DraftsUnreadable as exc:
            return Restored(
                warning=_(
                    "Your saved drafts could not be read ({why}); none were restored."
                ).format(why=exc)
            )
        if saved is None:
            self._written = SavedDrafts()
            return Restored()
        self._written = saved
        restored = plan_restore(saved, self._pending_spec, chat_editor=self._chat is not None)
        self._book.restore(restored.drafts)
        if self._chat is None:
            self._kept_chat = saved.chat
        elif restored.chat is not None:
            self._chat[1](restored.chat)
        return restored

    def _pending_spec(self, ref: QuestionRef) -> QuestionSpec | None:
        projection = self._core.projection
        return projection.question(ref).spec if ref in projection.pending else None
