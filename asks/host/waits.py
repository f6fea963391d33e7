"""Live waits (leases) and which question each one holds.

A :class:`Wait` is one blocking tool call waiting on 1–4 questions; it finishes exactly once
with a reply (a result envelope or a coded error). :class:`WaitBook` is the bookkeeping of the
live waits: by call id, and by question (a question has at most one wait). It owns no journal:
the host opens and closes waits around the journal lines that make them last.
"""

from __future__ import annotations

from collections.abc import Iterator

import trio

from asks.contract import ResultEnvelope, ToolError
from asks.core.model import QuestionRef
from asks.core.tabs import ReviewKey, TabKey

ToolReply = ResultEnvelope | ToolError
"""What a tool call returns to the model: a result envelope (``outcome``, ``text``,
``details``), or a coded error (``code``, ``text``); either way ``reply.text`` is the tool
result to send."""


class Wait:
    """A live lease: one blocking tool call waiting on 1–4 questions."""

    # A plain class, not attrs: building one is ~0.5 M instructions of every launch.
    __slots__ = ("_detached", "_done", "call_id", "refs", "reply")

    def __init__(
        self, call_id: str, refs: tuple[QuestionRef, ...], reply: ToolReply | None = None
    ) -> None:
        self.call_id = call_id
        self.refs = refs
        self.reply = reply
        self._done = trio.Event()
        self._detached = False

    def __repr__(self) -> str:
        return f"Wait({self.call_id!r}, {self.refs!r}, {self.reply!r})"

    @property
    def done(self) -> bool:
        return self.reply is not None

    @property
    def detached(self) -> bool:
        """No request waits for this wait's reply any more (an MCP task holds it instead):
        its answers are not delivered by its tool result but go to the agent's outbox."""
        return self._detached

    def detach(self) -> None:
        """The call that opened this wait was answered as a task (docs/late-answers.md)."""
        self._detached = True

    @property
    def staged(self) -> bool:
        """Multi-question waits collect answers and save them together at Review."""
        return len(self.refs) > 1

    async def result(self) -> ToolReply:
        await self._done.wait()
        assert self.reply is not None
        return self.reply

    def finish(self, reply: ToolReply) -> None:
        self.reply = reply
        self._done.set()


class WaitBook:
    """The live waits, by call id and by the pending questions they hold."""

    __slots__ = ("_by_call", "_by_ref")

    def __init__(self) -> None:
        self._by_call: dict[str, Wait] = {}
        self._by_ref: dict[QuestionRef, Wait] = {}

    def __bool__(self) -> bool:
        return bool(self._by_call)

    def __len__(self) -> int:
        return len(self._by_call)

    def __iter__(self) -> Iterator[Wait]:
        return iter(tuple(self._by_call.values()))

    def add(self, wait: Wait, holds: tuple[QuestionRef, ...]) -> None:
        """Make ``wait`` live, holding the (pending) questions ``holds``."""
        self._by_call[wait.call_id] = wait
        for ref in holds:
            self._by_ref[ref] = wait

    def remove(self, wait: Wait) -> None:
        self._by_call.pop(wait.call_id, None)
        for ref in wait.refs:
            if self._by_ref.get(ref) is wait:
                del self._by_ref[ref]

    def of_call(self, call_id: str) -> Wait | None:
        return self._by_call.get(call_id)

    def of_ref(self, ref: QuestionRef) -> Wait | None:
        return self._by_ref.get(ref)

    def of_tab(self, tab: TabKey | None) -> Wait | None:
        """The wait behind a tab: a Review tab's call, or the wait holding a question."""
        if isinstance(tab, ReviewKey):
            return self._by_call.get(tab.call_id)
        return None if tab is None else self._by_ref.get(tab)

    def holds(self, tab: object) -> bool:
        return tab in self._by_ref

    def staged(self) -> list[tuple[str, tuple[QuestionRef, ...]]]:
        """``(call_id, refs)`` of the multi-question waits (they add Review tabs)."""
        return [(w.call_id, w.refs) for w in self._by_call.values() if w.staged]
