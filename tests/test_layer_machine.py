"""Property test through the key path the person types into: the public layer widget.

A hypothesis state machine drives *timed key streams* through :class:`AsksLayer.keypress`
(the real widget path: typing guard, panel, chat editor) with a hand clock, interleaved with
async and blocking arrivals, answers from the web, permission prompts, interruptions and
pauses. The person is modelled as someone who types a burst at whatever they were typing
into when the burst began (the chat editor, or the panel if it had the keys), and who only
aims at a newly shown panel after pausing.

Asserted after every step:
  rule 1   exactly one focus owner; the panel owns it only while it has tabs;
  rule 2   an async arrival moves neither focus nor the selection, and takes no key;
  rule 3   a blocker claims unless a prompt is up (then it waits, and claims after);
  rule 4   while a blocker waits (no prompt up), focus toggle / Esc / collapse keep the panel;
  rule 5   when the last blocker ends, focus is where the claim took it from;
  rule 7   no typed character is lost, duplicated, reordered, or lands in a question the
           person did not select: a burst aimed at chat is in the chat editor, whole;
  rule 8   drafts survive; an Esc that paused the panel is never also a chat Esc;
  saves    no answer is saved that no deliberate key produced: panel answers appear only
           after an Enter / second Alt+D pressed after a pause with the panel holding keys.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import hypothesis.strategies as st
import urwid
from helpers import Rig, call, q
from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from asks.core.focus import TYPING_GUARD, FocusTarget
from asks.core.model import Answer, AnswerKind, QuestionRef
from asks.host.host import Wait
from asks.widgets.chat import ChatEditor
from asks.widgets.layer import AsksLayer

COLS = 80
LETTERS = st.text(alphabet="abcxz ", min_size=1, max_size=12)
GAPS = st.lists(st.floats(0.01, TYPING_GUARD * 0.9), min_size=12, max_size=12)


class LayerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.directory = Path(tempfile.mkdtemp(prefix="asks-layer-"))
        self.rig = Rig.create(self.directory)
        self.host = self.rig.host
        self.sent: list[str] = []
        self.chat = ChatEditor(self.sent.append)
        self.prompt_widget = urwid.Edit()  # stands in for a modal prompt: takes every key
        self.layer = AsksLayer(
            self.host.panel_port, self.chat, prompt=self.prompt_widget, clock=self.rig.clock,
            bell=lambda: None,
        )
        self.prompts: list[FocusTarget] = []
        self.calls = 0
        self.expected_chat = ""
        self.expected_sent: list[str] = []
        self.known_saves = 0  # panel answers the modelled person chose on purpose
        self.claim_seen = self.host.focus.claim  # the claim as of the last step

    def teardown(self) -> None:
        self.rig.journal.close()
        shutil.rmtree(self.directory, ignore_errors=True)

    # ------------------------------------------------------------------ helpers
    def _call_id(self) -> str:
        self.calls += 1
        return f"c{self.calls}"

    def _key(self, key: str, gap: float) -> str | None:
        self.rig.clock.advance(gap)
        return self.layer.keypress((COLS,), key)

    def _panel_saves(self) -> int:
        return sum(
            1 for r in self.rig.lines() if r["type"] == "resolved" and r["source"] == "panel"
        )

    def _drafts(self) -> dict[QuestionRef, object]:
        return {t: self.host.draft(t) for t in self.host.tabs if isinstance(t, QuestionRef)}

    def _settle(self) -> None:
        """The layer's timer: engage a held claim once its quiet interval is over."""
        self.host.settle_guard_nowait(self.rig.clock())

    # ------------------------------------------------------------------ the person
    @rule(text=LETTERS, gaps=GAPS, arrive_at=st.integers(-1, 11), blocking=st.booleans(),
          enter=st.booleans())
    def typing_burst(
        self, text: str, gaps: list[float], arrive_at: int, blocking: bool, enter: bool
    ) -> None:
        """A burst of keys (gaps below the guard), maybe with an arrival in the middle."""
        self.rig.clock.advance(TYPING_GUARD + 0.1)  # a burst starts after a look at the screen
        self._settle()
        if self.host.focus.foreign_active:
            return
        aimed_at_chat = not self.host.focus.keys_to_panel
        drafts, saves = self._drafts(), self._panel_saves()
        keys = [*text, *(["enter"] if enter else [])]
        for i, key in enumerate(keys):
            if i == arrive_at:
                self._arrive(blocking)
            self._key(key, gaps[i % len(gaps)])
        if aimed_at_chat:
            if enter:
                if (self.expected_chat + text).strip():
                    self.expected_sent.append(self.expected_chat + text)
                self.expected_chat = ""
            else:
                self.expected_chat += text
            assert self.chat.text == self.expected_chat, "rule 7: a chat keystroke went astray"
            assert self.sent == self.expected_sent, "rule 7: a chat Enter went astray"
            for ref, draft in drafts.items():
                if ref in self.host.tabs:
                    assert self.host.draft(ref) == draft, "rule 7: typing reached a question"
            assert self._panel_saves() == saves, "an answer was saved that nobody chose"
        else:
            self.known_saves = self._panel_saves()  # typed into the panel on purpose

    def _arrive(self, blocking: bool) -> None:
        args = call(q(f"Arrival {self.calls}?"), blocking=blocking)
        owner, selected = self.host.focus.owner, self.host.selected
        started = self.host.start_call_nowait(self._call_id(), args)
        if not blocking:
            assert self.host.focus.owner is owner, "rule 2: async arrival moved focus"
            assert selected is None or self.host.selected == selected, "rule 2: selection"
        elif isinstance(started, Wait) and not self.host.focus.foreign_active:
            assert self.host.focus.panel_focused, "rule 3: the blocker did not claim"

    @rule(blocking=st.booleans())
    def arrival(self, blocking: bool) -> None:
        self._arrive(blocking)

    @rule()
    def pause(self) -> None:
        self.rig.clock.advance(TYPING_GUARD + 0.05)
        self._settle()

    @precondition(lambda self: self.host.focus.keys_to_panel)
    @rule(key=st.sampled_from(["down", "up", "tab", "enter", "enter", "meta d", "meta l", "1"]))
    def deliberate_panel_key(self, key: str) -> None:
        """A key pressed after a pause, looking at the panel (it has the keys)."""
        self.rig.clock.advance(TYPING_GUARD + 0.05)
        self._settle()
        waits_before = bool(self.host.live_waits)
        self._key(key, 0.0)
        self.known_saves = self._panel_saves()
        if waits_before and self.host.live_waits and not self.host.focus.foreign_active:
            assert self.host.focus.panel_focused, "rule 4: a key left a pending blocker"

    @precondition(lambda self: self.host.focus.keys_to_panel)
    @rule(key=st.sampled_from(["shift tab", "esc", "ctrl ]"]))
    def leave_keys(self, key: str) -> None:
        self.rig.clock.advance(TYPING_GUARD + 0.05)
        self._settle()
        waits = bool(self.host.live_waits)
        self._key(key, 0.0)
        if waits:
            assert self.host.focus.panel_focused, "rule 4: the panel let go of a blocker"
        elif key == "esc" and not self.host.focus.panel_focused:
            # rule 8: a second Esc right away is the echo of the pause, never a chat Esc
            assert self._key("esc", 0.05) is None

    @precondition(lambda self: not self.host.focus.panel_focused)
    @rule()
    def enter_panel(self) -> None:
        self.rig.clock.advance(TYPING_GUARD + 0.05)
        self._key("shift tab", 0.0)

    @rule()
    def prompt_starts(self) -> None:
        prompt = FocusTarget(f"prompt-{len(self.prompts)}")
        self.prompts.append(prompt)
        self.host.begin_foreign_nowait(prompt)
        assert self._key("q", 0.05) is None  # the modal prompt takes keys
        assert self.chat.text == self.expected_chat

    @precondition(lambda self: self.prompts)
    @rule()
    def prompt_ends(self) -> None:
        self.host.end_foreign_nowait(self.prompts.pop())
        if self.host.live_waits and not self.host.focus.foreign_active:
            assert self.host.focus.panel_focused, "rule 3: the waiting blocker did not claim"

    @precondition(lambda self: self.host.projection.pending)
    @rule(data=st.data())
    def web_answer(self, data: st.DataObject) -> None:
        ref = data.draw(st.sampled_from(sorted(self.host.projection.pending, key=str)))
        answer = Answer(AnswerKind.OPTION, (0,))
        self.host.answer_from_nowait(ref.id, ref.incarnation, answer, source="web")

    @rule()
    def interrupt(self) -> None:
        self.host.interrupt_nowait()

    # ------------------------------------------------------------------ invariants
    @invariant()
    def one_owner(self) -> None:
        focus = self.host.focus
        assert focus.owner in focus.mounted
        if focus.panel_focused:
            assert self.host.tabs, "rule 1: the panel owns focus without tabs"

    @invariant()
    def blocker_holds_the_panel(self) -> None:
        if self.host.live_waits and not self.host.focus.foreign_active:
            assert self.host.focus.panel_focused, "rule 4"

    @invariant()
    def last_blocker_gives_focus_back(self) -> None:
        """Rule 5: when the last wait ends, focus is where the claim took it from."""
        focus, claim = self.host.focus, self.claim_seen
        self.claim_seen = focus.claim
        if claim is None or self.host.live_waits or focus.foreign_active:
            return
        prior = claim.prior_tab
        if isinstance(prior, QuestionRef) and prior in self.host.tabs:
            assert focus.panel_focused and self.host.selected == prior, "rule 5: not restored"
        else:
            assert focus.owner is focus.chat, "rule 5: focus stayed in the panel"

    @invariant()
    def no_answer_without_a_deliberate_key(self) -> None:
        assert self._panel_saves() == self.known_saves, "an answer was saved nobody chose"

    @invariant()
    def chat_is_intact(self) -> None:
        assert self.chat.text == self.expected_chat, "rule 7/8: the chat draft changed"


TestLayerMachine = LayerMachine.TestCase
TestLayerMachine.settings = settings(max_examples=150, stateful_step_count=30, deadline=None)
