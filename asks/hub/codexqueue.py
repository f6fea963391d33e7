"""Late answers to Codex sessions: ``codex queue --thread <id> --message <text>``.

State model: docs/late-answers.md, "``codex queue``". Seen with the real Codex 0.171.0 TUI:
the queued text becomes a user message of that thread — at once (0.1 s) when the session is
idle, right after the running turn when one runs, and run by Codex's background daemon when the
TUI was closed (the person sees it on ``codex resume``).

* **Thread.** Each ``tools/call`` of a Codex agent carries ``_meta.threadId``
  (:func:`thread_of`); the courier remembers the last one per agent label (memory only: after a
  restart the path starts again at the agent's next call).
* **When.** A unit of an agent with a known thread is in its outbox and no call of that agent
  is running (a running call's result carries it).
* **How.** The units are offered (journaled), then ``codex queue`` runs as an argument list —
  never a shell — with the offer's text sanitized, in the hub's own environment (its
  ``CODEX_HOME``). **The receipt is written when it exits 0**; any other exit, a binary that
  cannot run, or no exit within :data:`QUEUE_TIMEOUT` releases the units (they reach the agent
  at its next call) and turns the path off for that agent until its next call.
* **Binary.** ``[mcp] codex`` (a path, or a name looked up on ``PATH``), else ``codex`` on
  ``PATH`` (:func:`find_codex`); none → no courier.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from typing import Any, Final

import attrs
import trio

from asks.core import diagnostics
from asks.host.hub import HubPort, Offer
from asks.sanitize import sanitize_text

THREAD_META: Final = "threadId"
QUEUE_TIMEOUT: Final = 30.0  # seconds for `codex queue` to store the message (it took 0.05 s)
_THREAD: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")


def thread_of(meta: Mapping[str, Any] | None) -> str | None:
    """The Codex thread a call's ``_meta`` names, if it is a plausible id (letters, digits,
    ``-`` and ``_``: it becomes a command argument)."""
    value = meta.get(THREAD_META) if meta is not None else None
    return value if isinstance(value, str) and _THREAD.fullmatch(value) else None


def find_codex(configured: str | None = None) -> str | None:
    """The ``codex`` binary: ``configured`` (a path or a name on ``PATH``), else ``codex``."""
    return shutil.which(configured or "codex")


def queue_argv(binary: str, thread: str, text: str) -> list[str]:
    """The command that queues ``text`` (sanitized) for ``thread``; ``=`` keeps a text that
    starts with ``-`` a value."""
    return [binary, "queue", f"--thread={thread}", f"--message={sanitize_text(text)}"]


@attrs.define(eq=False)
class CodexCourier:
    """Sends an idle Codex agent its late answers with ``codex queue`` (module docstring)."""

    port: HubPort
    binary: str
    _threads: dict[str, str] = attrs.Factory(dict)  # label → its last call's thread
    _running: dict[str, int] = attrs.Factory(dict)  # label → its calls running now
    _settled: trio.Event = attrs.Factory(trio.Event)  # set (and renewed) when a call ends
    _couriers: set[str] = attrs.Factory(set)  # labels whose courier task runs
    _nursery: trio.Nursery | None = None

    async def run(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Hold the couriers' tasks until cancelled."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started()
            await trio.sleep_forever()

    def call_started(self, label: str, meta: Mapping[str, Any] | None) -> None:
        """A call of agent ``label`` runs; its thread (if any) becomes the agent's."""
        self._running[label] = self._running.get(label, 0) + 1
        thread = thread_of(meta)
        if thread is None:
            return
        self._threads[label] = thread
        if label not in self._couriers and self._nursery is not None:
            self._couriers.add(label)
            self._nursery.start_soon(self._courier, label)

    def call_ended(self, label: str) -> None:
        self._running[label] = max(0, self._running.get(label, 0) - 1)
        self._settled.set()
        self._settled = trio.Event()

    async def _courier(self, label: str) -> None:
        try:
            while True:
                await self.port.wait_undelivered(label)
                if self._running.get(label):
                    await self._settled.wait()
                    continue
                offer = self.port.offer_feedback(label)
                if offer is None:
                    return  # not saved: the journal's state says why; the next call delivers
                if not await self._queue(label, offer):
                    self.port.released(offer)
                    return
                self.port.delivered(offer)
        finally:
            self._couriers.discard(label)

    async def _queue(self, label: str, offer: Offer) -> bool:
        argv = queue_argv(self.binary, self._threads[label], offer.text)
        log = diagnostics.debug_logger("asks.hub.codexqueue")
        with trio.move_on_after(QUEUE_TIMEOUT):
            try:
                done = await trio.run_process(
                    argv, capture_stdout=True, capture_stderr=True, check=False
                )
            except OSError as error:
                if log is not None:
                    log.warning("codex queue could not run: %s", error)
                return False
            if done.returncode != 0 and log is not None:
                log.warning("codex queue exited %d: %r", done.returncode, done.stderr[-400:])
            return done.returncode == 0
        return False
