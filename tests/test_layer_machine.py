"""Property test through the key path the person types into: the public layer widget.

A hypothesis state machine drives *timed key streams* through :class:`AsksLayer.keypress`
(the real widget path: typing guard, panel, chat editor) with a hand clock, interleaved with
async and blocking arrivals, answers from the web, permission prompts, interruptions and
pauses. The person is modelled as someone who types a burst at whatever they were typing
into when the burst began (the chat editor, or the panel if it had the keys), and who only
aims at a newly shown panel after pausing.

Asserted after every step:
  owner    exactly one focus owner; the panel owns it only while it has tabs;
  async    an async arrival moves neither focus nor the selection, and takes no key;
  claim    a blocker claims unless a prompt is up (then it waits, and claims after);
  held     while a blocker waits (no prompt up), focus toggle / Esc / collapse keep the panel;
  return   when the last blocker ends, focus is where the claim took it from;
  guard    no typed character is lost, duplicated, reordered, or lands in a question the
           person did not select: a burst aimed at chat is in the chat editor, whole;
  drafts   drafts survive; an Esc that paused the panel is never also a chat Esc;
  typist   an **inattentive typist** types whole chat lines (chat commands like ``/help`` and
           ``/quit`` among them) at typing speed at random moments, without looking: such a
           line never produces a saved answer, a decline or a deferral, and lands whole either
           in the chat (sent by its Enter) or in the text editor that had the keys (one the
           person opened on purpose) — never dropped, never split; a line that is a chat
           command is not submitted from an editor without a second Enter. A printable that
           an option row cannot use (a burst aimed at the panel) goes to the chat, and
           so does everything typed after it within the guard;
  gone     when the question under the keys goes away (its agent withdraws it, the browser
           answers it), mid-typing or after a pause, the keys go back where the person came
           from and the next Enter answers nothing: a question the keys reach on their own
           never takes a single Enter, whichever agent it is from;
  prompt   (docs/architecture.md, with the real ``PromptView``) keys typed
           across a prompt's arrival go to the chat; at the prompt, a printable it does not
           use goes to the chat with what follows; a decision key counts only after a pause or
           Enter, and a printable typed before that sends both to the chat — so a burst or an
           inattentive line typed at a prompt lands whole in the chat and decides nothing
           (unless the line is exactly one decision key: indistinguishable from ``y⏎``);
  saves    no answer is saved that no deliberate key produced: panel answers appear only
           after an Enter / second Alt+D pressed after a pause with the panel holding keys
           (or an inattentive line's Enter in an editor the person had opened, which is
           indistinguishable from answering on purpose unless it is a chat command).
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import hypothesis.strategies as st
from hypothesis import event, settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from support.focus_states import check_named_state
from support.rig import Rig, call, q

from asks.agent.prompts import Prompt, PromptBroker
from asks.core.chatline import chat_command_line
from asks.core.drafts import Draft
from asks.core.focus import TYPING_GUARD, FocusTarget, KeysTo
from asks.core.model import Answer, AnswerKind, QuestionRef
from asks.host.commands import PanelCommand
from asks.host.waits import Wait
from asks.widgets.chat import ChatEditor
from asks.widgets.keymap import Context
from asks.widgets.layer import AsksLayer
from asks.widgets.prompt import PromptView

COLS = 80
AGENTS = st.sampled_from([None, "builder", "planner"])  # who asks (None: the built-in agent)
LETTERS = st.text(alphabet="abcxz ", min_size=1, max_size=12)
GAPS = st.lists(st.floats(0.01, TYPING_GUARD * 0.9), min_size=12, max_size=12)
# What an inattentive person types into "the chat": it starts with a letter or a slash, or
# with digits of option rows (1-3) before a letter (a row jump, undone by the letter after
# it). Not here (known gaps): a line of digits and spaces only (``1⏎`` is a choice),
# and a digit of the ``Type something.`` row (4), which opens the editor for what follows.
CHAT_LINES = st.one_of(
    st.sampled_from(["/help", "/quit", "/asks q-1", "/web", "fix the tests", "ok 2", "/tmp/x"]),
    st.builds(
        str.__add__, st.sampled_from(list("abxyz/")), st.text(alphabet="abc xyz/-12", max_size=10)
    ),
    st.builds(
        lambda digits, letter, rest: digits + letter + rest,
        st.text(alphabet="123", min_size=1, max_size=2),
        st.sampled_from(list("abx/")),
        st.text(alphabet="abc xyz/-12", max_size=8),
    ),
)


class LayerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.directory = Path(tempfile.mkdtemp(prefix="asks-layer-"))
        self.rig = Rig.create(self.directory)
        self.host = self.rig.host
        self.sent: list[str] = []
        self.chat = ChatEditor(self.sent.append)
        self.broker = PromptBroker(self.host.panel_port)
        self.layer = AsksLayer(
            self.host.panel_port,
            self.chat,
            prompt=PromptView(self.broker),
            clock=self.rig.clock,
            bell=lambda: None,
        )
        self.prompts = 0
        self.expected_answer: bool | None = None  # what the person decided at the prompt
        self.calls = 0
        self.expected_chat = ""
        self.expected_sent: list[str] = []
        self.known_saves = 0  # panel answers the modelled person chose on purpose
        self.claim_seen = self.host.panel_port.focus.claim  # the claim as of the last step
        # the keys came to the panel without a deliberate key (a claim engaged, or the end of
        # the last one returned to a tab) and no deliberate key was pressed since (handed keys)
        self.handed_over = False

    def teardown(self) -> None:
        self.rig.journal.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    # ------------------------------------------------------------------ helpers
    def _call_id(self) -> str:
        self.calls += 1
        return f"c{self.calls}"

    def _key(self, key: str, gap: float) -> str | None:
        self.rig.clock.advance(gap)
        engaged = self._engaged()
        unused = self.layer.keypress((COLS,), key)
        if self._engaged() and not engaged:
            self.handed_over = True
        return unused

    def _engaged(self) -> bool:
        claim = self.host.panel_port.focus.claim
        return claim is not None and claim.engaged

    def _panel_saves(self) -> int:
        return sum(
            1 for r in self.rig.lines() if r["type"] == "resolved" and r["source"] == "panel"
        )

    def _drafts(self) -> dict[QuestionRef, Draft]:
        return {
            t: self.host.panel_port.draft(t)
            for t in self.host.panel_port.tabs
            if isinstance(t, QuestionRef)
        }

    def _ended_by_person(self) -> int:
        """Declines and deferrals in the journal (nothing inattentive may produce one)."""
        resolved = sum(
            1
            for r in self.rig.lines()
            if r["type"] == "resolved"
            for x in r["resolutions"]
            if x["kind"] == "declined"
        )
        deferred = sum(1 for r in self.rig.lines_of("tool_result") if r["outcome"] == "deferred")
        return resolved + deferred

    def _editor_at(self) -> tuple[QuestionRef, bool] | None:
        """The text editor that has the keys (its tab, and whether it is the notes), if any."""
        tab = self.host.panel_port.selected
        keyboard = self.host.panel_port.focus.keyboard()
        if keyboard.to is not KeysTo.PANEL or not isinstance(tab, QuestionRef):
            return None
        if self.layer.panel.key_context is not Context.REPLY:
            return None
        return tab, self.layer.panel.notes_open

    def _editor_text(self, where: tuple[QuestionRef, bool]) -> str:
        draft = self.host.panel_port.draft(where[0])
        return draft.notes if where[1] else draft.custom_text

    def _typed_to_chat(self, text: str, enter: bool) -> None:
        """``text`` (then Enter, if ``enter``) reached the chat editor: update the model."""
        if enter:
            if (self.expected_chat + text).strip():
                self.expected_sent.append(self.expected_chat + text)
            self.expected_chat = ""
        else:
            self.expected_chat += text
        assert self.chat.text == self.expected_chat, "a chat keystroke went astray"
        assert self.sent == self.expected_sent, "a chat Enter went astray"

    def _settle(self) -> None:
        """The layer's timer: engage a held claim once its quiet interval is over."""
        now = self.rig.clock()
        focus = self.host.panel_port.focus
        if self.host.panel_port.settle_guard(now) and focus.panel_focused:
            self.handed_over = True  # a claim, not a prompt, engaged
        self.layer.tick(now)  # the rest of the timer's work: a held decision key

    @property
    def _prompt(self) -> Prompt | None:
        return self.broker.current

    # ------------------------------------------------------------------ the person
    @rule(
        text=LETTERS,
        gaps=GAPS,
        arrive_at=st.integers(-1, 11),
        blocking=st.booleans(),
        enter=st.booleans(),
    )
    def typing_burst(
        self, text: str, gaps: list[float], arrive_at: int, blocking: bool, enter: bool
    ) -> None:
        """A burst of keys (gaps below the guard), maybe with an arrival in the middle."""
        self.rig.clock.advance(TYPING_GUARD + 0.1)  # a burst starts after a look at the screen
        self._settle()
        aimed_at_chat = not self.host.panel_port.focus.keys_to_panel  # a prompt's strays too
        on_a_row = not aimed_at_chat and self._editor_at() is None
        drafts, saves = self._drafts(), self._panel_saves()
        keys = [*text, *(["enter"] if enter else [])]
        for i, key in enumerate(keys):
            if i == arrive_at:
                self._arrive(blocking)
            self._key(key, gaps[i % len(gaps)])
        if on_a_row and text.strip(" "):
            # the first letter is stray; it and the rest of the burst go to chat, and
            # so do the Spaces before it (their toggles undone: they were typing)
            self._typed_to_chat(text, enter)
            assert self._panel_saves() == saves, "stray typing answered"
        elif aimed_at_chat:
            self._typed_to_chat(text, enter)
            for ref, draft in drafts.items():
                if ref in self.host.panel_port.tabs:
                    assert self.host.panel_port.draft(ref) == draft, "typing reached a question"
            assert self._panel_saves() == saves, "an answer was saved that nobody chose"
        else:
            self.known_saves = self._panel_saves()  # typed into the panel on purpose
            self.handed_over = False

    @rule(
        line=CHAT_LINES,
        gaps=GAPS,
        first_gap=st.floats(0.01, 2 * TYPING_GUARD),
        arrive_at=st.integers(0, 11),
        blocking=st.booleans(),
        again=st.booleans(),
    )
    def inattentive_line(
        self,
        *,
        line: str,
        gaps: list[float],
        first_gap: float,
        arrive_at: int,
        blocking: bool,
        again: bool,
    ) -> None:
        """A chat line typed at any moment without looking where the keys go."""
        self.rig.clock.advance(first_gap)
        self._settle()  # the layer's timer runs whenever its deadline passes
        editor = self._editor_at()
        start = self.host.panel_port.focus.keyboard().to
        drafts, saves, ended = self._drafts(), self._panel_saves(), self._ended_by_person()
        undecided = self._prompt is not None and self._prompt.answer is None
        before = self._editor_text(editor) if editor is not None else ""
        if editor is not None and not editor[1]:  # typed at the caret
            caret = self.host.panel_port.draft(editor[0]).caret
            before = before[:caret] + "\0" + before[caret:]
        for i, key in enumerate([*line, "enter"]):
            if 0 < i == arrive_at:
                self._arrive(blocking)
            self._key(key, 0.0 if i == 0 else gaps[i % len(gaps)])
        assert self._ended_by_person() == ended, "an inattentive line declined/deferred"
        if start is KeysTo.PROMPT and line in ("y", "Y", "n", "N"):  # exactly ``y⏎``: a decision
            assert self._prompt is not None
            if undecided:
                assert self._prompt.answer is (line in "yY")
                self.expected_answer = self._prompt.answer
            return
        if editor is None:  # the keys were at the chat, or on a row of the panel
            event(f"inattentive line: chat (keys were at the {start.value})")
            self._typed_to_chat(line, enter=True)
            for ref, draft in drafts.items():
                if ref in self.host.panel_port.tabs:
                    assert self.host.panel_port.draft(ref) == draft, (
                        "an inattentive line reached a question"
                    )
            assert self._panel_saves() == saves, "an inattentive line answered"
            return
        assert self.chat.text == self.expected_chat and self.sent == self.expected_sent
        ref, _notes = editor
        text = before.replace("\0", line) if "\0" in before else before + line
        submitted = ref not in self.host.surface_port.projection.pending or (
            self.host.panel_port.draft(ref).staged != drafts[ref].staged
        )
        if self.handed_over:
            assert not submitted, "a line typed into an editor nobody chose was sent"
        if not submitted:
            assert self._editor_text(editor) == text, "typing in an editor was lost"
        command = chat_command_line(
            text, self.host.panel_port.draft(ref).notes if not _notes else ""
        )
        event(
            f"inattentive line: editor, {'submitted' if submitted else 'kept'}"
            f"{', a chat command' if command else ''}{', handed' if self.handed_over else ''}"
        )
        if command is not None:
            assert not submitted, f"{command!r} was sent as an answer at one Enter"
            assert self._panel_saves() == saves
            confirming = self.host.panel_port.confirming
            assert confirming is not None and confirming.command is PanelCommand.CONFIRM
            if again:  # the person reads the footer and sends it on purpose
                self._key("enter", TYPING_GUARD + 0.05)
        self.known_saves = self._panel_saves()  # an editor the person had opened

    def _arrive(self, blocking: bool, source: str | None = None) -> None:
        args = call(q(f"Arrival {self.calls}?"), blocking=blocking)
        owner, selected = self.host.panel_port.focus.owner, self.host.panel_port.selected
        started = self.host.agent_port.start_call(self._call_id(), args, source=source)
        if not blocking:
            assert self.host.panel_port.focus.owner is owner, "async arrival moved focus"
            assert selected is None or self.host.panel_port.selected == selected, (
                "async arrival changed the selection"
            )
        elif isinstance(started, Wait) and not self.host.panel_port.focus.foreign_active:
            assert self.host.panel_port.focus.panel_focused, "the blocker did not claim"

    @rule(blocking=st.booleans(), source=AGENTS)
    def arrival(self, blocking: bool, source: str | None) -> None:
        self._arrive(blocking, source)

    def _keys_on_a_question(self) -> QuestionRef | None:
        port = self.host.panel_port
        tab = port.selected
        if port.focus.foreign_active or not port.focus.keys_to_panel:
            return None
        return tab if isinstance(tab, QuestionRef) else None

    def _goes(self, ref: QuestionRef, how: str) -> None:
        """Its agent withdraws ``ref``, or the browser answers it."""
        if how == "withdrawn":
            assert self.host.agent_port.withdraw([ref.id]).all_withdrawn
        else:
            answer = Answer(AnswerKind.OPTION, (0,))
            self.host.surface_port.answer_from(ref.id, ref.incarnation, answer, "web")

    @precondition(lambda self: self._keys_on_a_question() is not None)
    @rule(how=st.sampled_from(["withdrawn", "web"]), pause=st.booleans())
    def question_under_the_keys_goes(self, how: str, pause: bool) -> None:
        """The question the person's keys are on goes away (its agent withdraws it, the
        browser answers it), then the person presses Enter, at once or after a pause: the keys
        are back where the person came from, and that Enter answers nothing."""
        ref = self._keys_on_a_question()
        assert ref is not None
        saves = self._panel_saves()
        self._goes(ref, how)
        focus = self.host.panel_port.focus
        if not focus.panel_focused:
            assert focus.owner is not focus.panel
        elif self.host.surface_port.live_waits:
            assert not focus.keys_to_panel, "the keys stayed in the panel, on another question"
        if pause:
            self.rig.clock.advance(TYPING_GUARD + 0.05)
            self._settle()
        to = focus.keyboard().to
        self._key("enter", 0.05)
        if to is KeysTo.CHAT:
            self._typed_to_chat("", enter=True)
        assert self._panel_saves() == saves, "an Enter answered a question the keys came to"
        if to is KeysTo.PANEL:
            event("the Enter was asked again")
            confirming = self.host.panel_port.confirming
            assert confirming is not None and confirming.command is PanelCommand.CONFIRM
        self.handed_over = False

    @precondition(
        lambda self: (
            self._keys_on_a_question() is not None and not self.host.surface_port.live_waits
        )
    )
    @rule(text=LETTERS, gaps=GAPS, at=st.integers(0, 11), how=st.sampled_from(["withdrawn", "web"]))
    def typing_when_the_question_goes(
        self, text: str, gaps: list[float], at: int, how: str
    ) -> None:
        """The person types an answer into the editor when its agent withdraws the
        question (or the browser answers it): what follows goes to the chat, whole, in
        order; nothing is answered."""
        ref = self._keys_on_a_question()
        assert ref is not None
        self.rig.clock.advance(TYPING_GUARD + 0.05)
        self._key("4", 0.0)  # Type something.
        saves = self._panel_saves()
        at = min(at, len(text))
        for i, key in enumerate(text):
            if i == at:
                self._goes(ref, how)
            self._key(key, gaps[i % len(gaps)])
        if at == len(text):
            self._goes(ref, how)
        self._typed_to_chat(text[at:], enter=False)
        assert self._panel_saves() == saves, "typing into a question that went away answered"
        self.known_saves = saves
        self.handed_over = False

    @rule()
    def pause(self) -> None:
        self.rig.clock.advance(TYPING_GUARD + 0.05)
        self._settle()

    @precondition(lambda self: self.host.panel_port.focus.keys_to_panel)
    @rule(key=st.sampled_from(["down", "up", "tab", "enter", "enter", "meta d", "meta l", "1"]))
    def deliberate_panel_key(self, key: str) -> None:
        """A key pressed after a pause, looking at the panel (it has the keys)."""
        self.rig.clock.advance(TYPING_GUARD + 0.05)
        self._settle()
        waits_before = bool(self.host.surface_port.live_waits)
        self._key(key, 0.0)
        if len(key) == 1:  # a printable panel key: the person looks at what it did. A stray
            # right after it (within the guard) would make it typing, undone and sent to the
            # chat first: the inattentive typist's digit lines test that on purpose
            self.rig.clock.advance(TYPING_GUARD + 0.05)
        self.known_saves = self._panel_saves()
        self.handed_over = False
        if (
            waits_before
            and self.host.surface_port.live_waits
            and not self.host.panel_port.focus.foreign_active
        ):
            assert self.host.panel_port.focus.panel_focused, "a key left a pending blocker"

    @precondition(
        lambda self: (
            self.host.panel_port.focus.keys_to_panel
            and isinstance(self.host.panel_port.selected, QuestionRef)
        )
    )
    @rule(text=LETTERS, newline=st.booleans())
    def opens_the_editor(self, text: str, newline: bool) -> None:
        """The person jumps to ``Type something.`` (row 4) and types a draft on purpose."""
        self.rig.clock.advance(TYPING_GUARD + 0.05)
        self._settle()
        self._key("4", 0.0)
        for key in [*text, *(["meta enter"] if newline else [])]:
            self._key(key, 0.05)
        self.known_saves = self._panel_saves()
        self.handed_over = False

    @precondition(lambda self: self.host.panel_port.focus.keys_to_panel)
    @rule(key=st.sampled_from(["shift tab", "esc", "ctrl ]"]))
    def leave_keys(self, key: str) -> None:
        self.rig.clock.advance(TYPING_GUARD + 0.05)
        self._settle()
        waits = bool(self.host.surface_port.live_waits)
        self._key(key, 0.0)
        self.handed_over = False
        if waits:
            assert self.host.panel_port.focus.panel_focused, "the panel let go of a blocker"
        elif key == "esc" and not self.host.panel_port.focus.panel_focused:
            # a second Esc right away is the echo of the pause, never a chat Esc
            assert self._key("esc", 0.05) is None

    @precondition(lambda self: not self.host.panel_port.focus.panel_focused)
    @rule()
    def enter_panel(self) -> None:
        self.rig.clock.advance(TYPING_GUARD + 0.05)
        self._key("shift tab", 0.0)
        self.handed_over = False

    @precondition(lambda self: self.broker.current is None)
    @rule(typed=st.text(alphabet="aynYN ", max_size=4), gaps=GAPS)
    def prompt_starts(self, typed: str, gaps: list[float]) -> None:
        """A permission prompt opens (what ``PromptBroker.confirm`` does before it waits)
        while the person may be typing: the rest of their word goes on to the chat, and the
        pause after it decides nothing."""
        self.prompts += 1
        prompt = Prompt(f"run step {self.prompts}?", FocusTarget(f"prompt-{self.prompts}"))
        self.broker.current = prompt
        self.expected_answer = None
        self.host.panel_port.begin_foreign(prompt.target)
        for i, key in enumerate(typed):
            self._key(key, 0.05 if i == 0 else gaps[i])
        self._typed_to_chat(typed, enter=False)
        self.pause()

    @precondition(lambda self: self.broker.current is not None)
    @rule(keys=st.sampled_from([("y",), ("n",), ("esc",), ("y", "enter"), ("N", "enter")]))
    def decides_at_the_prompt(self, keys: tuple[str, ...]) -> None:
        """The person looks at the prompt, presses a decision key (maybe Enter), pauses."""
        self.rig.clock.advance(TYPING_GUARD + 0.05)
        self._settle()
        prompt = self.broker.current
        assert prompt is not None
        undecided = prompt.answer is None
        for key in keys:
            self._key(key, 0.05)
        if keys in {("y",), ("n",)}:  # one printable: it counts at the pause after it
            assert prompt.answer is None or not undecided, "a decision key counted at once"
            self.rig.clock.advance(TYPING_GUARD + 0.05)
            self._key("left", 0.0)  # the next key (or the layer's timer) delivers it first
        if undecided:
            assert prompt.answer is (keys[0] in "yY"), f"{keys} did not decide the prompt"
            self.expected_answer = prompt.answer

    @precondition(lambda self: self.broker.current is not None)
    @rule()
    def prompt_ends(self) -> None:
        prompt = self.broker.current
        assert prompt is not None
        self.broker.current = None
        self.host.panel_port.end_foreign(prompt.target)
        if self.host.surface_port.live_waits and not self.host.panel_port.focus.foreign_active:
            assert self.host.panel_port.focus.panel_focused, "the waiting blocker did not claim"

    @precondition(lambda self: self.host.surface_port.projection.pending)
    @rule(data=st.data())
    def web_answer(self, data: st.DataObject) -> None:
        ref = data.draw(st.sampled_from(sorted(self.host.surface_port.projection.pending, key=str)))
        answer = Answer(AnswerKind.OPTION, (0,))
        self.host.surface_port.answer_from(ref.id, ref.incarnation, answer, source="web")

    @precondition(lambda self: self.host.surface_port.live_waits)
    @rule()
    def blocker_answered_in_the_browser(self) -> None:
        """The blocker ends elsewhere: the keyboard goes back where the claim took it from."""
        for ref in self.host.surface_port.live_waits[0].refs:
            if ref in self.host.surface_port.projection.pending:
                self.host.surface_port.answer_from(
                    ref.id, ref.incarnation, Answer(AnswerKind.OPTION, (0,)), source="web"
                )

    @precondition(
        lambda self: (
            not self.host.surface_port.live_waits
            and not self.host.panel_port.focus.foreign_active
            and self.host.panel_port.tabs
        )
    )
    @rule(text=LETTERS, newline=st.booleans())
    def blocker_interrupts_an_answer(self, text: str, newline: bool) -> None:
        """Defect 3's set-up: the person is writing an async answer when a blocker comes and
        goes (answered elsewhere); the keyboard is back in that answer's editor (the origin)."""
        if not self.host.panel_port.focus.panel_focused:
            self.enter_panel()
        if self.host.panel_port.focus.keys_to_panel and isinstance(
            self.host.panel_port.selected, QuestionRef
        ):
            self.opens_the_editor(text=text, newline=newline)
            self.blocker_comes_and_goes()

    @precondition(
        lambda self: (
            not self.host.surface_port.live_waits and not self.host.panel_port.focus.foreign_active
        )
    )
    @rule()
    def blocker_comes_and_goes(self) -> None:
        """A blocker arrives and is answered in the browser before the person looks."""
        self._arrive(blocking=True)
        self.claim_seen = (
            self.host.panel_port.focus.claim
        )  # the return to the origin is checked on it after this step
        self.blocker_answered_in_the_browser()

    @rule()
    def interrupt(self) -> None:
        self.host.agent_port.interrupt()

    # ------------------------------------------------------------------ invariants
    @invariant()
    def a_named_state(self) -> None:
        """The keys are in one of the focus machine's named states (docs/focus-machine.md)."""
        check_named_state(self.host.panel_port.focus)

    @invariant()
    def one_owner(self) -> None:
        focus = self.host.panel_port.focus
        assert focus.owner in focus.mounted
        if focus.panel_focused:
            assert self.host.panel_port.tabs, "the panel owns focus without tabs"

    @invariant()
    def blocker_holds_the_panel(self) -> None:
        if self.host.surface_port.live_waits and not self.host.panel_port.focus.foreign_active:
            assert self.host.panel_port.focus.panel_focused, (
                "a blocker is pending but the panel lost focus"
            )

    @invariant()
    def last_blocker_gives_focus_back(self) -> None:
        """Back to the origin: when the last wait ends, focus is where the claim took it from."""
        focus, claim = self.host.panel_port.focus, self.claim_seen
        self.claim_seen = focus.claim
        if claim is None or self.host.surface_port.live_waits or focus.foreign_active:
            return
        prior = claim.prior_tab
        if isinstance(prior, QuestionRef) and prior in self.host.panel_port.tabs:
            assert focus.panel_focused and self.host.panel_port.selected == prior, (
                "focus is not back at the origin"
            )
            self.handed_over = True  # back on the person's tab, without a key of theirs
        else:
            assert focus.owner is focus.chat, "focus stayed in the panel"

    @invariant()
    def no_answer_without_a_deliberate_key(self) -> None:
        assert self._panel_saves() == self.known_saves, "an answer was saved nobody chose"

    @invariant()
    def keyboard_is_shown_where_keys_go(self) -> None:
        """Where the keys go: the cursor, the panel's border and the status line name one place."""
        keyboard = self.host.panel_port.focus.keyboard()
        canvas = self.layer.render((COLS,), focus=True)
        rows = canvas.text
        chat_from = len(rows) - self.chat.rows((COLS,))
        status = self.layer.status_text()
        cursor = canvas.cursor
        if keyboard.to is KeysTo.CHAT:
            assert cursor is not None and cursor[1] >= chat_from, "9c: no cursor in the chat"
        else:
            assert cursor is None or cursor[1] < chat_from, "9c: a cursor in the chat"
        border = rows[0].decode() if self.host.panel_port.tabs and rows else ""
        if border.startswith("┌"):
            solid = border.startswith("┌─")
            assert solid == (keyboard.to is KeysTo.PANEL), "9c: the border disagrees"
        if self.host.panel_port.tabs or keyboard.to is KeysTo.PROMPT:
            named = {
                KeysTo.CHAT: "keys: chat",
                KeysTo.PROMPT: "keys: prompt",
                KeysTo.PANEL: "keys: ",
            }[keyboard.to]
            assert named in status, f"9c: the status line says {status!r}"
            if keyboard.to is KeysTo.PANEL:
                assert "keys: chat" not in status and "keys: prompt" not in status

    @invariant()
    def prompt_decided_only_by_the_person(self) -> None:
        prompt = self.broker.current
        if prompt is not None:
            assert prompt.answer is self.expected_answer, "the prompt was decided by stray keys"

    @invariant()
    def chat_is_intact(self) -> None:
        assert self.chat.text == self.expected_chat, "the chat draft changed"


TestLayerMachine = LayerMachine.TestCase
TestLayerMachine.settings = settings(max_examples=150, stateful_step_count=30, deadline=None)
