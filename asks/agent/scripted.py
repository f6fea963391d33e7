"""The scripted model: a deterministic, offline `Model` driven by a TOML script.

Script format (documented with a commented example in ``demos/script-example.toml``)::

    name = "demo"                  # optional
    [[step]]
    on = "message"                 # start | message | feedback
    match = "deploy|ship"          # optional regex (case-insensitive) on the user / feedback text
    [[step.reply]]                 # one reply per model call, in order
    say = "Deploying. You said: {user}"
    [[step.reply.call]]            # tool calls of this reply, run in order
    tool = "ask_user_question"
    args = { blocking = false, questions = [ ... ] }

How it reacts (it only sees the context, like a real model):

* a new user message starts the first ``message`` step that matches it (its replies replace
  whatever was queued); no match → a short "nothing scripted" reply;
* feedback steered into the context (a message starting with ``[asks feedback]``): when the
  agent was woken by it, the first matching ``feedback`` step is the turn; mid-turn, that step's
  words and calls are put in front of the next queued reply, so the agent acknowledges the
  feedback at its next step and goes on with what it was doing;
* an interrupted turn ends its step: a reply cut off while it streams, or a tool result that
  says the call was cut short (``Error [interrupted]``: what an interrupted turn gives every
  open call), drops the step's remaining replies — feedback that wakes the agent later never
  continues with "Draft finished." for work that did not finish;
* the first call of a new session with no user message starts the ``start`` step;
* a reply's ``say`` may quote what really happened: ``{user}`` (last user message),
  ``{answers}`` (the answers in the newest tool result or feedback, comma-separated),
  ``{result}`` (the newest tool result text), ``{feedback}`` (the newest feedback text) —
  those are the model's texts; for the person's words, ``{outcome}`` (the newest question
  result: ``Thanks — you answered: Red.``, ``Deferred: I'll get your answer when you give
  it.``, …) and ``{feedback_outcome}`` (the newest feedback: ``Got your answer: Red. …``);
* … and say how the person answers on the surface in front of them (the model's
  :class:`~asks.agent.hints.AnswerHints`, from the composition root: never a key written
  into the script): ``{answer_hint}`` (a sentence: where a queued question waits and how to
  answer it), ``{decline}`` and ``{defer}`` (the key or command that declines or defers a
  blocking question: ``Alt+D``/``Alt+L`` in the panel, ``/decline``/``/later`` in line mode),
  ``{collapse_hint}`` (a sentence on the collapse key, or nothing).

The built-in tour is *localized*: its replies and the person-facing texts of its calls'
arguments are played in the language in force (asks/agent/localize.py: the gettext catalogs,
read when each reply is streamed, so ``/language`` changes what it says next). A script file
is played as written.

Tool call ids are ``s<context length>-<n>``: unique in a session, also across resume.
"""

from __future__ import annotations

import functools
import json
import re
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any, Final

import attrs
import trio

from asks import contract
from asks.agent import localize, tour
from asks.agent.hints import LINE_HINTS, AnswerHints, answer_sentence, collapse_sentence
from asks.agent.loop import Message, ModelEvent, TextDelta, ToolCall
from asks.core.i18n import N_, _

TRIGGERS = ("start", "message", "feedback")
WORD_DELAY = 0.015
_RESULT_ANSWER = r'"[^"\n]*"="([^"\n]*)"'
_FEEDBACK_ANSWER = r': answer "([^"\n]*)"\.'


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """One of the answer patterns above, compiled on first use (not at launch)."""
    return re.compile(pattern)


class ScriptError(ValueError):
    """A script file that cannot be used; the message names the file and the place."""


@attrs.frozen
class ScriptCall:
    tool: str
    args: dict[str, Any]


@attrs.frozen
class Reply:
    say: str = ""
    calls: tuple[ScriptCall, ...] = ()
    delay: float = WORD_DELAY


@attrs.frozen
class Step:
    on: str
    match: re.Pattern[str] | None
    replies: tuple[Reply, ...]

    def matches(self, trigger: str, text: str) -> bool:
        return self.on == trigger and (self.match is None or bool(self.match.search(text)))


@attrs.frozen
class Script:
    name: str
    steps: tuple[Step, ...]
    path: str = ""  # the file it was loaded from (absolute), "" for the built-in tour
    localized: bool = False  # played in the person's language (the built-in tour only)

    def first(self, trigger: str, text: str = "") -> Step | None:
        return next((s for s in self.steps if s.matches(trigger, text)), None)


# ---------------------------------------------------------------------------- loading
def load_script(path: Path) -> Script:
    """Read and validate a script file; raises :class:`ScriptError` with a one-line reason."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ScriptError(f"{path}: cannot read script: {exc}") from exc
    return attrs.evolve(parse_script(text, str(path)), path=str(path.resolve()))


def builtin_tour() -> Script:
    """The embedded default: the tour shown by ``asks`` with no flags (asks/agent/tour.py: the
    table a script file's TOML reads as, checked as any script's)."""
    return attrs.evolve(script_of(tour.table(), "<built-in tour>"), localized=True)


def parse_script(text: str, origin: str) -> Script:
    """The script in the TOML ``text`` (``origin`` names it in errors)."""
    import tomllib  # noqa: PLC0415 (a script file's: the built-in tour needs no parse)

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScriptError(f"{origin}: not valid TOML: {exc}") from exc
    return script_of(data, origin)


def script_of(data: dict[str, Any], origin: str) -> Script:
    """The script in ``data``, a script file's table (``origin`` names it in errors)."""
    steps = data.get("step")
    if not isinstance(steps, list) or not steps:
        raise ScriptError(f"{origin}: a script needs at least one [[step]]")
    name = data.get("name", Path(origin).stem)
    return Script(str(name), tuple(_step(s, f"{origin}: step {i}") for i, s in enumerate(steps, 1)))


def _step(raw: object, where: str) -> Step:
    if not isinstance(raw, dict):
        raise ScriptError(f"{where}: must be a table")
    on = raw.get("on")
    if on not in TRIGGERS:
        raise ScriptError(f"{where}: 'on' must be one of {', '.join(TRIGGERS)}")
    pattern = raw.get("match")
    try:
        match = re.compile(pattern, re.IGNORECASE) if pattern is not None else None
    except (re.error, TypeError) as exc:
        raise ScriptError(f"{where}: 'match' is not a valid regex: {exc}") from exc
    replies = raw.get("reply")
    if not isinstance(replies, list) or not replies:
        raise ScriptError(f"{where}: needs at least one [[step.reply]]")
    return Step(
        str(on), match, tuple(_reply(r, f"{where}, reply {j}") for j, r in enumerate(replies, 1))
    )


def _reply(raw: object, where: str) -> Reply:
    if not isinstance(raw, dict):
        raise ScriptError(f"{where}: must be a table")
    say = raw.get("say", "")
    delay = raw.get("delay", WORD_DELAY)
    calls = raw.get("call", [])
    if not isinstance(say, str) or not isinstance(delay, int | float) or delay < 0:
        raise ScriptError(f"{where}: 'say' must be text and 'delay' a number ≥ 0")
    if not isinstance(calls, list):
        raise ScriptError(f"{where}: 'call' must be an array of tables")
    try:
        say.format_map(_Quotes((), LINE_HINTS))
    except (ValueError, IndexError, AttributeError) as exc:
        message = f"{where}: bad placeholder in 'say' ({exc}); write {{{{ }}}} for braces"
        raise ScriptError(message) from exc
    parsed = []
    for k, call in enumerate(calls, 1):
        if not isinstance(call, dict) or not isinstance(call.get("tool"), str):
            raise ScriptError(f'{where}, call {k}: needs tool = "name"')
        args = call.get("args", {})
        if not isinstance(args, dict):
            raise ScriptError(f"{where}, call {k}: 'args' must be a table")
        parsed.append(ScriptCall(call["tool"], args))
    return Reply(say, tuple(parsed), float(delay))


# ---------------------------------------------------------------------------- the model
class ScriptedModel:
    """Plays a :class:`Script` against the real context (see module docstring)."""

    # A plain class, not attrs: building one is ~0.5 M instructions of every launch.
    __slots__ = ("_queue", "hints", "name", "opens_sessions", "script", "seen")

    def __init__(
        self,
        script: Script,
        name: str = "scripted",
        opens_sessions: bool = True,
        seen: int | Callable[[], int] = 0,
        hints: AnswerHints = LINE_HINTS,
    ) -> None:
        self.script = script
        self.name = name
        self.opens_sessions = opens_sessions
        # context messages already read: on resume the restored length, or what gives it once
        # the context is built (the agent builds a resumed context at its first turn)
        self.seen = seen
        self.hints = hints  # the surface's keys and commands, for the placeholders
        self._queue: deque[Reply] = deque()

    async def stream(
        self, messages: Sequence[Message], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[ModelEvent]:
        self._read(messages)
        reply = self._queue.popleft() if self._queue else self._fallback(messages)
        done = False
        try:
            for word in _words(
                self._text(reply.say).format_map(_Quotes(messages, self.hints)).rstrip()
            ):
                yield TextDelta(word)
                if reply.delay:
                    await trio.sleep(reply.delay)
            for n, call in enumerate(reply.calls):
                args = localize.translated(call.args) if self.script.localized else call.args
                yield ToolCall(f"s{len(messages)}-{n}", call.tool, _json(args))
            done = True
        finally:
            if not done:  # interrupted mid-reply: the step's rest would claim work not done
                self._queue.clear()

    def _text(self, say: str) -> str:
        """``say`` in the language in force if the script is localized (module docstring)."""
        return _(say) if self.script.localized and say else say

    def _read(self, messages: Sequence[Message]) -> None:
        """React to the messages added since the last call (see module docstring)."""
        if not messages:
            self._start(self.script.first("start"))
        seen = self.seen() if callable(self.seen) else self.seen
        new, self.seen = messages[seen:], len(messages)
        for message in new:
            if message.role == "tool" and _cut_short(message.content):
                self._queue.clear()  # the turn was interrupted: its step ends here
            if message.role != "user":
                continue
            if message.content.startswith(contract.FEEDBACK_PREFIX):
                self._react_to_feedback(self.script.first("feedback", message.content))
            else:
                self._start(self.script.first("message", message.content))

    def _react_to_feedback(self, step: Step | None) -> None:
        """Idle (woken): the feedback step is the turn. Mid-turn: its words and calls go in
        front of the next queued reply, so the turn goes on instead of ending early."""
        if step is None:
            return
        if not self._queue:
            self._queue.extend(step.replies)
            return
        head = self._queue.popleft()
        says = [self._text(r.say) for r in step.replies if r.say] + [self._text(head.say)]
        calls = tuple(c for r in step.replies for c in r.calls) + head.calls
        self._queue.appendleft(Reply("\n\n".join(says), calls, head.delay))

    def _start(self, step: Step | None) -> None:
        self._queue.clear()
        if step is not None:
            self._queue.extend(step.replies)

    def _fallback(self, messages: Sequence[Message]) -> Reply:
        last = messages[-1] if messages else None
        if (
            last is not None
            and last.role == "user"
            and not last.content.startswith(contract.FEEDBACK_PREFIX)
        ):
            return Reply("(The scripted agent has nothing scripted for that message.)", delay=0)
        return Reply("", delay=0)


class _Quotes(dict[str, str]):
    """Placeholder values for ``say``, computed from the context on demand."""

    def __init__(self, messages: Sequence[Message], hints: AnswerHints) -> None:
        super().__init__()
        self.messages = messages
        self.hints = hints

    def __missing__(self, key: str) -> str:
        hint = self._hint(key)
        if hint is not None:
            return hint
        if key == "user":
            return _last(self.messages, lambda m: m.role == "user" and not _is_feedback(m))
        if key == "result":
            return _last(self.messages, lambda m: m.role == "tool")
        if key == "feedback":
            return _last(self.messages, _is_feedback)
        if key == "outcome":
            return next(
                (
                    w
                    for m in reversed(self.messages)
                    if m.role == "tool" and (w := result_words(m.content)) is not None
                ),
                "",
            )
        if key == "feedback_outcome":
            return feedback_words(_last(self.messages, _is_feedback))
        if key == "answers":
            text = _last(self.messages, lambda m: m.role == "tool" or _is_feedback(m))
            found = _compiled(_RESULT_ANSWER).findall(text) + _compiled(_FEEDBACK_ANSWER).findall(
                text
            )
            return ", ".join(found) if found else "(no answers)"
        return "{" + key + "}"

    def _hint(self, key: str) -> str | None:
        hints = self.hints
        spoken = {"answer_hint": answer_sentence, "collapse_hint": collapse_sentence}
        if key in spoken:
            return spoken[key](hints)
        return {"decline": hints.decline, "defer": hints.defer}.get(key)


# How each question result the host writes begins (asks/contract/results.py), and what the
# scripted agent tells the person about it; a test builds every result and checks these.
_RESULT_OPENINGS: Final = (
    ("User has answered your questions:", ""),  # the answers themselves (below)
    ("User declined to answer questions", N_("You declined; I'll go on with my best judgement.")),
    ("The user chose to answer later.", N_("Deferred: I'll get your answer when you give it.")),
    (
        "Waiting for the user's answer was interrupted",
        N_("The wait was interrupted; I'll get your answer when you give it."),
    ),
    ("Questions sent to the user without blocking", N_("Queued: answer whenever you like.")),
    ("The questions were withdrawn", N_("I withdrew the question.")),
    ("The user already answered", N_("You had already answered that.")),
)


def result_words(text: str) -> str | None:
    """The person's summary of a question result's text; ``None`` for another tool's."""
    words = next((w for opening, w in _RESULT_OPENINGS if text.startswith(opening)), None)
    if words != "":
        return None if words is None else _(words)
    answers = ", ".join(_compiled(_RESULT_ANSWER).findall(text))
    if not answers:
        return _("No answer given.")
    if " Still pending: " in text:
        return _("Thanks — you answered: {answers}. The rest can come later.").format(
            answers=answers
        )
    return _("Thanks — you answered: {answers}.").format(answers=answers)


def feedback_words(text: str) -> str:
    """The person's summary of a feedback message's text (``""`` when there is none)."""
    if not text:
        return ""
    answers = ", ".join(_compiled(_FEEDBACK_ANSWER).findall(text))
    if not answers and ": the user declined to answer." in text:
        return _("You declined to answer; I'll go on without it.")
    if not answers:
        return _("No answer given: I'll go on without it.")
    return _("Got your answer: {answers}. I'll take it into account.").format(answers=answers)


def _cut_short(result: str) -> bool:
    """Did the tool call of ``result`` get cut short: no real result, because the turn was
    interrupted (every open call then gets one, a question's too), failed, or asks restarted?
    (A blocking question's wait that ended ``interrupted`` while the turn goes on — line mode
    at end of input — is a real result: the step goes on.)"""
    return result.startswith(f"Error [{contract.ErrorCode.INTERRUPTED}]")


def _is_feedback(message: Message) -> bool:
    return message.role == "user" and message.content.startswith(contract.FEEDBACK_PREFIX)


def _last(messages: Sequence[Message], keep: Any) -> str:
    return next((m.content for m in reversed(messages) if keep(m)), "")


def _words(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text)


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)
