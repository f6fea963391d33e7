"""Line mode's words: what it prints for questions and transcript entries, and how it reads a
typed answer. Pure functions, no I/O; every text that came from the model or the journal is
sanitised here (:mod:`asks.sanitize`), so nothing printed can carry an escape sequence.

Reading an answer line (:func:`parse_answer`), for a question with options:

* a line of ASCII digits separated by commas and/or spaces is a choice of option numbers
  (1-based): ``2``, or ``1,3`` / ``1 3`` for a multi-select question. An out-of-range number,
  an empty place (``1,,9``), several numbers for a single-select question are *problems*:
  one sentence, nothing is saved;
* any other line is the person's own text (the "Type something." row of the panel), refused
  for a question without that row (``"custom": false``);
* notes: everything after the first `` //`` (``2 // the managed one``; a space or the start
  of the line before the mark, so ``https://…`` is not cut) is the answer's notes.

For a free-text question (no options) every line is text, digits included. Commands (``/…``)
and empty lines are the caller's business; :func:`parse_answer` never sees them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

from asks.agent.transcript import Entry, EntryKind
from asks.core.answers import answer_problem
from asks.core.i18n import N_, _
from asks.core.model import Answer, AnswerKind, Question, QuestionSpec
from asks.sanitize import sanitize_line, sanitize_text

NOTES_MARK: Final = "//"
INDENT: Final = "  "
_NUMBERS: Final = re.compile(r"[0-9,\s]*[0-9][0-9,\s]*")
_NOTES: Final = re.compile(r"(?:^|\s)//")
_SEPARATOR: Final = re.compile(r"\s*,\s*|\s+")

PREFIXES: Final = {  # translated where shown
    EntryKind.USER: N_("you> "),
    EntryKind.AGENT: N_("agent> "),
    EntryKind.TOOL: N_("tool: "),
    EntryKind.QUESTION: N_("asked: "),
    EntryKind.RESULT: N_("result{title}: "),
    EntryKind.FEEDBACK: N_("feedback{title}: "),
    EntryKind.DECISION: N_("permission{title}: "),
    EntryKind.ERROR: N_("error{title}: "),
    EntryKind.NOTICE: "-- ",
}


# ---------------------------------------------------------------------------- transcript
def entry_prefix(entry: Entry) -> str:
    """The label that starts an entry's first line (``result (answered): ``, ``-- ``, …)."""
    title = sanitize_line(_(entry.title)).strip()
    shown = f" ({title})" if title and entry.kind is not EntryKind.AGENT else ""
    return _(PREFIXES[entry.kind]).format(title=shown)


def block(prefix: str, text: str) -> list[str]:
    """``text`` as lines: the first after ``prefix``, the others indented."""
    lines = text.split("\n")
    return [prefix + lines[0], *(f"{INDENT}{line}".rstrip() for line in lines[1:])]


def entry_lines(entry: Entry) -> list[str]:
    """A finished entry as lines (sanitised)."""
    return block(entry_prefix(entry), sanitize_text(entry.text).strip("\n"))


# ---------------------------------------------------------------------------- questions
def question_heading(question: Question) -> str:
    """``[Header] Question?``; ``[Header (planner)] …`` when an agent's label says who asked
    (as its tab shows it)."""
    spec = question.spec
    who = f" ({sanitize_line(question.source)})" if question.source else ""
    return f"[{sanitize_line(spec.header)}{who}] {sanitize_line(spec.question)}"


def option_lines(spec: QuestionSpec) -> list[str]:
    """Numbered options; each description and preview printed under its option."""
    lines: list[str] = []
    for number, option in enumerate(spec.options, start=1):
        lines.append(f"{INDENT}{number}. {sanitize_line(option.label)}")
        under = INDENT * 2 + " "
        if option.description:
            lines.append(under + sanitize_line(option.description))
        if option.preview:
            lines.append(under + _("preview:"))
            lines += [
                f"{under}| {line}".rstrip()
                for line in sanitize_text(option.preview).strip("\n").split("\n")
            ]
    return lines


def how_to_answer(spec: QuestionSpec, *, required: bool) -> str:
    """The hint line under a question: what a line may be."""
    count = len(spec.options)
    if spec.is_free_text:
        what = _("Type your answer")
    elif not spec.custom and spec.multi_select:  # only the options answer
        what = _("Type option numbers (like 1,3; 1-{count})").format(count=count)
    elif not spec.custom:
        what = _("Type an option number (1-{count})").format(count=count)
    elif spec.multi_select:
        what = _("Type option numbers (like 1,3; 1-{count}) or your own answer").format(count=count)
    else:
        what = _("Type an option number (1-{count}) or your own answer").format(count=count)
    later = _("/later defers it") if required else _("/later leaves it pending")
    notes = _("notes after {mark}").format(mark=NOTES_MARK)
    return f"{INDENT}{what} · {notes} · /decline · {later}"


def question_lines(
    question: Question, *, position: tuple[int, int] | None = None, required: bool
) -> list[str]:
    """The whole question as the per-question prompt shows it."""
    where = (
        " · " + _("{number} of {total}").format(number=position[0], total=position[1])
        if position and position[1] > 1
        else ""
    )
    marker = _("required") if required else _("async")
    lines = [f"? {question_heading(question)}  ({question.id} · {marker}{where})"]
    if question.spec.context:
        lines += block(INDENT, sanitize_text(question.spec.context).strip("\n"))
    return [*lines, *option_lines(question.spec), how_to_answer(question.spec, required=required)]


def arrival_lines(question: Question) -> list[str]:
    """An async question announced once when it arrives: id, header, question, options."""
    head = _("? new question {id} {heading}").format(
        id=question.id, heading=question_heading(question)
    )
    answer = _("(answer: /asks {id})").format(id=question.id)
    return [f"{head}  {answer}", *option_lines(question.spec)]


def pending_lines(questions: Iterable[tuple[Question, bool]]) -> list[str]:
    """``/asks``: one line per pending question (required ones marked)."""
    required_mark = " (" + _("required") + ")"
    rows = [
        f"{INDENT}{q.id} {question_heading(q)}{required_mark if required else ''}"
        for q, required in questions
    ]
    if not rows:
        return ["-- " + _("No pending questions.")]
    return ["-- " + _("{count} pending (answer one: /asks ID):").format(count=len(rows)), *rows]


# ---------------------------------------------------------------------------- answers
def split_notes(line: str) -> tuple[str, str]:
    """``answer // notes`` → (answer, notes), both stripped. The mark needs a space (or the
    line's start) before it, so a URL's ``://`` stays in the answer."""
    found = _NOTES.search(line)
    if found is None:
        return line.strip(), ""
    return line[: found.start()].strip(), line[found.end() :].strip()


def parse_answer(spec: QuestionSpec, line: str) -> Answer | str:
    """The answer a typed line gives ``spec``, or a sentence saying why it gives none."""
    text, notes = split_notes(sanitize_line(line))
    if not text:
        return _("Type an answer before the notes.")
    if spec.options and _NUMBERS.fullmatch(text):
        answer: Answer | str = _choice(spec, text, notes)
    elif spec.multi_select:
        answer = Answer(AnswerKind.MULTI, (), text, notes)
    else:
        answer = Answer(AnswerKind.CUSTOM, (), text, notes)
    if isinstance(answer, Answer):
        problem = answer_problem(spec, answer)
        return answer if problem is None else problem
    return answer


def _choice(spec: QuestionSpec, text: str, notes: str) -> Answer | str:
    parts = _SEPARATOR.split(text.strip(" ,")) if text.strip(" ,") else []
    count = len(spec.options)
    if not parts or "" in parts or text.strip() != text.strip(" ,"):
        return _("“{text}” is not a list of option numbers: write them like 1,3.").format(text=text)
    numbers = [int(part) for part in parts]
    wrong = next((n for n in numbers if not 1 <= n <= count), None)
    if wrong is not None:
        return _("There is no option {number}: choose 1-{count}.").format(number=wrong, count=count)
    if not spec.multi_select:
        if len(numbers) > 1:
            return _("This question takes one answer: type one number.")
        return Answer(AnswerKind.OPTION, (numbers[0] - 1,), None, notes)
    return Answer(AnswerKind.MULTI, tuple(sorted({n - 1 for n in numbers})), None, notes)


def parse_yes_no(line: str) -> bool | None:
    """A ``[y/N]`` reply: yes, no (an empty line is no), or ``None`` for anything else."""
    word = line.strip().lower()
    if word in ("y", "yes"):
        return True
    if word in ("", "n", "no"):
        return False
    return None
