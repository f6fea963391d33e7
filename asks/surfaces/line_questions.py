"""Line mode at a question: what a typed line does to the question being asked.

One question at a time (asks/surfaces/line.py decides which): a blocking wait's next pending
question, or one picked with ``/asks ID``. A line is

* ``/decline`` — declines this question (saved, source ``line``);
* ``/later`` — a blocking question: its wait ends *deferred* (its questions stay pending);
  a picked async question: it is left pending;
* empty — in a group of several questions, submits what was answered so far after a ``[y/N]``
  confirmation (the rest stay pending); otherwise a problem;
* otherwise an answer (asks/surfaces/line_prompts.py), saved through the surface port.

An answer (or ``/decline``) to the last open question of a blocking group of several is
saved only after one more line: an optional note for all the questions of the group (an empty
line skips it; a line starting with ``/`` is refused, so a command never becomes the note). It
is saved with that answer and reaches the agent with the group's result.

A line that gives no answer, or an answer the host refuses as not fitting or not saved,
prints one line saying why; the caller asks again. Nothing is saved from such a line.
"""

from __future__ import annotations

import enum
from collections.abc import Awaitable, Callable, Sequence
from typing import Final

import attrs

from asks.core.i18n import N_, _
from asks.core.model import Answer, QuestionRef
from asks.core.refusal import Refusal
from asks.host.surfaceport import SurfacePort
from asks.sanitize import sanitize_line
from asks.surfaces.line_io import Output
from asks.surfaces.line_prompts import parse_answer, parse_yes_no

SOURCE: Final = "line"
PARTIAL_PROMPT: Final = N_("Submit the answers given so far? The rest stay pending. [y/N] ")
NOTE_PROMPT: Final = N_("Note for all questions (optional, Enter skips): ")


class Step(enum.Enum):
    """What became of the question after a line."""

    DONE = "done"  # answered, declined, deferred, left: ask what is next
    AGAIN = "again"  # the line gave nothing: the same prompt again


@attrs.frozen
class Asking:
    """A question asked now."""

    ref: QuestionRef
    call_id: str | None  # the blocking call waiting for it; None: picked with /asks ID
    position: tuple[int, int] | None = None  # (n, of) in its group

    @property
    def required(self) -> bool:
        return self.call_id is not None


Confirm = Callable[[str], Awaitable[str | None]]  # a prompt → the line typed (None: none came)


@attrs.define(eq=False)
class QuestionPrompt:
    """Applies lines to the question asked (module docstring)."""

    port: SurfacePort
    out: Output

    async def handle(self, need: Asking, text: str, confirm: Confirm) -> Step:
        """Apply one (sanitised, stripped) line to the question ``need`` asks."""
        if text.split()[:1] == ["/decline"]:
            return await self._save(need, None, confirm)
        if text.startswith("/"):
            return self._command(need, text.split())
        if not text:
            wait = self.port.wait_for(need.ref)
            if wait is not None and len(wait.refs) > 1:
                return await self._partial(need, confirm)
            self.out.line("-- " + _("Type an answer, or /decline or /later."))
            return Step.AGAIN
        answer = parse_answer(self.port.question(need.ref).spec, text)
        if isinstance(answer, str):
            self.out.line(f"-- {answer}")
            return Step.AGAIN
        return await self._save(need, answer, confirm)

    def _command(self, need: Asking, words: Sequence[str]) -> Step:
        name = words[0]
        if name == "/later":
            return self._later(need)
        if name == "/asks":
            self.out.line("-- " + _("Answer this question first, or /later."))
        else:
            unknown = _("Unknown command {command}. Try /help.")
            self.out.line("-- " + unknown.format(command=sanitize_line(name)))
        return Step.AGAIN

    def _later(self, need: Asking) -> Step:
        qid = need.ref.id
        if not need.required:
            self.out.line("-- " + _("{id} stays pending (/asks {id} to answer it).").format(id=qid))
            return Step.DONE
        refusal = self.port.defer(qid)
        if refusal is not None:
            self.out.line(f"-- {refusal.text}")
            return Step.AGAIN
        self.out.line("-- " + _("Deferred: the questions stay pending (/asks lists them)."))
        return Step.DONE

    def _closes_group(self, need: Asking) -> bool:
        """Is ``need`` the last open question of a blocking group of several?"""
        wait = self.port.wait_for(need.ref)
        pending = self.port.projection.pending
        return (
            wait is not None
            and len(wait.refs) > 1
            and all(ref == need.ref or ref not in pending for ref in wait.refs)
        )

    async def _group_note(self, confirm: Confirm) -> str:
        """The note for all questions of the group (``""``: skipped, or no line came)."""
        while True:
            line = await confirm(_(NOTE_PROMPT))
            if line is None or not line.startswith("/"):
                return line or ""
            self.out.line(
                "-- " + _("A note cannot start with /: type the note, or press Enter to skip it.")
            )

    async def _save(self, need: Asking, answer: Answer | None, confirm: Confirm) -> Step:
        ref = need.ref
        note = await self._group_note(confirm) if self._closes_group(need) else ""
        refusal = self.port.answer_from(ref.id, ref.incarnation, answer, SOURCE, note)
        if refusal is Refusal.NOT_SAVED:
            self.out.line("-- " + _("Not saved: storage failed. Nothing was sent; try again."))
            return Step.AGAIN
        if refusal is not None:  # invalid, or answered/withdrawn elsewhere meanwhile
            self.out.line(f"-- {refusal.text}")
            return Step.AGAIN if refusal is Refusal.INVALID_ANSWER else Step.DONE
        if not need.required:
            what = (
                _("Declined: the agent gets it at its next step.")
                if answer is None
                else _("Saved: the agent gets it at its next step.")
            )
            self.out.line("-- " + what)
        return Step.DONE

    async def _partial(self, need: Asking, confirm: Confirm) -> Step:
        line = await confirm(_(PARTIAL_PROMPT))
        if line is None:
            return Step.DONE  # the question went away, or the input ended
        if parse_yes_no(line) is not True:
            self.out.line("-- " + _("Not submitted."))
            return Step.AGAIN
        refusal = self.port.submit_partial(need.ref.id)
        if refusal is not None:
            self.out.line(f"-- {refusal.text}")
            return Step.AGAIN
        return Step.DONE
