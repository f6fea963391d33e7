"""Hooks: a configured command runs on a host event (docs/design.md, "Other surfaces").

``[hooks]`` in config.toml maps an event name (:class:`~asks.core.events.EventKind`:
``question_asked``, ``wait_opened`` — a blocker starts waiting —, ``wait_ended``,
``answer_saved``, ``delivered``, ``withdrawn``, ``storage_failed``) to a command, an argv list
run without a shell; ``timeout`` bounds each run (asks/config.py).

Semantics:

* The command gets the event as one JSON object on stdin (:func:`payload`, the only place
  events are serialised: the event's fields as ``attrs.asdict`` gives them, ``session_id``,
  and, for events naming questions, ``questions``: id, incarnation, header, question and
  option labels as single sanitised lines, so a hook may print them to a terminal, and
  ``source``, who asked it — the agent's label for an agent asking through the hub
  (asks/hub), ``null`` for the session's own agent), and ``agent``: who asked the event's
  questions, once for the whole event (the same sanitised label; ``null`` for the session's
  own agent, or if they came from several), so a notifier can say "builder asks: …" without
  looking into the list; and the
  environment variables ``ASKS_EVENT`` (the event name), ``ASKS_SESSION`` and — when asks
  runs on a terminal — ``ASKS_TTY``, that terminal's device (a hook runs without a
  controlling terminal, so ``/dev/tty`` does not work there; an OSC 9 notification is written
  to ``$ASKS_TTY``).
* It never blocks the session: events go to a bounded queue (:data:`QUEUE_SIZE`; an event
  that does not fit is dropped, reported once) and one runner task runs them in order in the
  caller's nursery.
* Its output never reaches the terminal: stdout and stderr go to ``/dev/null``. It runs in a
  session (process group) of its own; at the timeout the whole group is killed.
* A failing hook (non-zero exit, cannot be started, timed out) is reported once per event
  name through ``report`` (the REPL: a transcript notice; line mode: a stderr line); later
  failures of that hook are silent. Nothing a hook does raises into the session.
* When the session ends (``/quit``, end of input, Ctrl+C twice), events already queued — the
  ``wait_ended`` of waits the ending interrupted included — still run, for at most
  ``timeout`` seconds in all; only a cancelled caller drops them.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, Final

import attrs
import trio

from asks.core import diagnostics
from asks.core.events import EventKind, HostEvent
from asks.core.model import QuestionRef
from asks.host.surfaceport import SurfacePort
from asks.sanitize import sanitize_line

QUEUE_SIZE: Final = 256


def payload(event: HostEvent, session_id: str, port: SurfacePort) -> dict[str, Any]:
    """The JSON object a hook reads for ``event`` (module docstring)."""
    data: dict[str, Any] = attrs.asdict(event)  # tuples become lists, enums stay str values
    data["session_id"] = session_id
    refs: Sequence[QuestionRef] = getattr(event, "refs", ())
    if refs:
        questions = [_question(ref, port) for ref in refs]
        data["questions"] = questions
        agents = {question["source"] for question in questions}
        data["agent"] = agents.pop() if len(agents) == 1 else None
    return data


def _question(ref: QuestionRef, port: SurfacePort) -> dict[str, Any]:
    question = port.question(ref)
    spec = question.spec
    return {
        "id": ref.id,
        "incarnation": ref.incarnation,
        "header": sanitize_line(spec.header),
        "question": sanitize_line(spec.question),
        "options": [sanitize_line(option.label) for option in spec.options],
        "source": None if question.source is None else sanitize_line(question.source),
    }


@attrs.frozen
class _Job:
    kind: EventKind
    argv: tuple[str, ...]
    stdin: bytes


@attrs.frozen
class HookStatistics:
    queued: int
    runs: int
    failures: int
    dropped: int


@attrs.define(eq=False)
class HookRunner:
    """Runs the configured hooks for one session's events (module docstring)."""

    port: SurfacePort
    session_id: str
    commands: Mapping[EventKind, Sequence[str]]
    timeout: float
    report: Callable[[str], None]
    terminal: str | None = None  # the device of the terminal asks runs on (``ASKS_TTY``)
    _runs: int = 0
    _failures: int = 0
    _dropped: int = 0
    _reported: set[EventKind | None] = attrs.Factory(set)  # None: the dropped-events report
    _send: trio.MemorySendChannel[_Job] = attrs.field(init=False)
    _receive: trio.MemoryReceiveChannel[_Job] = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self._send, self._receive = trio.open_memory_channel[_Job](QUEUE_SIZE)

    def statistics(self) -> HookStatistics:
        queued = self._receive.statistics().current_buffer_used
        return HookStatistics(queued, self._runs, self._failures, self._dropped)

    def offer(self, event: HostEvent) -> None:
        """The host published ``event``: queue its hook, if one is configured."""
        argv = self.commands.get(event.kind)
        if not argv:
            return
        try:  # an event listener runs inside the host: nothing may raise from here
            data = json.dumps(payload(event, self.session_id, self.port), ensure_ascii=False)
        except Exception as exc:  # a bug, but a hook must never break the session
            diagnostics.logger(__name__).error("the payload of %s", event.kind, exc_info=exc)
            self._report_once(
                event.kind,
                f"Hook {event.kind.value} failed: its event could "
                f"not be written as JSON ({type(exc).__name__}).",
            )
            return
        try:
            self._send.send_nowait(_Job(event.kind, tuple(argv), data.encode()))
        except trio.WouldBlock:
            self._dropped += 1
            self._report_once(None, "Hooks are falling behind: some events were dropped.")
        except trio.ClosedResourceError:
            pass  # the session is ending

    def close(self) -> None:
        """No more events: :meth:`run` returns once the queue is empty."""
        self._send.close()

    async def run(self) -> None:
        async for job in self._receive:
            problem = await run_hook(job.argv, job.stdin, self._environment(job.kind), self.timeout)
            self._runs += 1
            if problem is not None:
                self._failures += 1
                self._report_once(
                    job.kind,
                    f"Hook {job.kind.value} failed: {problem}. "
                    "Later failures of this hook are not reported.",
                )

    def _environment(self, kind: EventKind) -> dict[str, str]:
        env = {**os.environ, "ASKS_EVENT": kind.value, "ASKS_SESSION": self.session_id}
        if self.terminal is not None:
            env["ASKS_TTY"] = self.terminal
        return env

    def _report_once(self, key: EventKind | None, text: str) -> None:
        if key not in self._reported:
            self._reported.add(key)
            self.report(text)


async def run_hook(
    argv: Sequence[str], stdin: bytes, env: Mapping[str, str], timeout: float
) -> str | None:
    """Run one hook command; ``None`` if it succeeded, else what went wrong (a phrase)."""
    name = sanitize_line(argv[0])
    try:
        with trio.move_on_after(timeout) as scope:
            done = await trio.run_process(
                list(argv),
                stdin=stdin,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                env=dict(env),
                check=False,
                start_new_session=True,
                deliver_cancel=_kill_group,
            )
    except OSError as exc:
        return f"{name} could not be started ({exc.strerror or type(exc).__name__})"
    except ValueError as exc:  # e.g. a NUL character in an argument
        return f"{name} could not be started ({exc})"
    if scope.cancelled_caught:
        return f"{name} did not finish within {timeout:g} s and was stopped"
    if done.returncode < 0:
        return f"{name} was killed by signal {-done.returncode}"
    if done.returncode != 0:
        return f"{name} exited with status {done.returncode}"
    return None


async def _kill_group(process: trio.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _terminal() -> str | None:
    """The terminal device on stdout, if stdout is a terminal."""
    with contextlib.suppress(OSError, ValueError):
        if os.isatty(1):
            return os.ttyname(1)
    return None


@contextlib.asynccontextmanager
async def running(
    port: SurfacePort,
    session_id: str,
    commands: Mapping[EventKind, Sequence[str]],
    timeout: float,
    report: Callable[[str], None],
) -> AsyncIterator[HookRunner | None]:
    """Run the hooks for ``port``'s events while the block runs (``None``: none configured).
    On leaving, what is queued still runs, for at most ``timeout`` seconds in all."""
    if not commands:
        yield None
        return
    runner = HookRunner(port, session_id, commands, timeout, report, _terminal())
    unsubscribe = port.subscribe_events(runner.offer)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(runner.run)
        try:
            yield runner
        finally:
            unsubscribe()
            runner.close()
            nursery.cancel_scope.deadline = trio.current_time() + timeout
