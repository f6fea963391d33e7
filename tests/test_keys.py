"""Keys meant for somewhere else never answer (docs/architecture.md).

Unit and host-scenario tests, no terminal: the chat-command predicate, the stray
mark and the typing guard re-armed by stray keys, where the keyboard is, and the
host's notice that expires on the next key or after a few seconds.
"""

from __future__ import annotations

import pytest
from support.rig import Rig, q

from asks.core.chatline import chat_command_line, is_chat_command
from asks.core.drafts import Draft
from asks.core.focus import TYPING_GUARD, FocusTarget, Keyboard, KeysTo, Route
from asks.core.model import QuestionRef
from asks.core.refusal import Refusal
from asks.core.tabs import ReviewKey
from asks.host.commands import Armed, Confirm, PanelCommand
from asks.host.keys import NOTICE_SECONDS
from asks.host.stats import KeysStatus


# =========================================================================== 9b: the predicate
@pytest.mark.parametrize(
    "line",
    [
        "/quit",
        "/help",
        "  /asks q-1  ",
        "/language de",
        "/web",
        "/x",
        "/my-command arg",
        "/a_b",
        "/quit\t",
    ],
)
def test_chat_commands(line: str) -> None:
    assert is_chat_command(line)


@pytest.mark.parametrize(
    "line",
    [
        "",
        "/",
        "//quit",
        "/tmp/x",
        "/2",
        "/-x",
        "see /help",
        "quit",
        "mixed/quit",
        "/quit.",
        "/quit/",
        "/é",
        "a /quit",
    ],
)
def test_not_chat_commands(line: str) -> None:
    assert not is_chat_command(line)


def test_chat_command_line_finds_the_first_command_line_in_any_text() -> None:
    assert chat_command_line("mixed\n  /quit  ") == "/quit"
    assert chat_command_line("", None, "note\n/help me") == "/help me"
    assert chat_command_line("/tmp/x\nmixed/quit", "fine") is None
    assert chat_command_line() is None


# =========================================================================== 9a: stray keys
def engaged_blocker(rig: Rig, header: str = "Choice") -> QuestionRef:
    """A blocker claimed from chat, and the person paused: the panel has the keys."""
    rig.blocker("b1", q("Which database?", header=header))
    rig.clock.past_guard()
    assert rig.host.panel_port.settle_guard(rig.clock())
    assert rig.host.panel_port.focus.keyboard().to is KeysTo.PANEL
    return rig.ref("b1")


def test_a_stray_key_rearms_the_guard_with_the_keys_at_the_chat(rig: Rig) -> None:
    host = rig.host
    b = engaged_blocker(rig)
    now = rig.clock()
    assert host.panel_port.key_route(now) == Route(
        host.panel_port.focus.panel, b
    )  # "/" reached the panel …
    assert host._state.keys.stray(now) == Route(host.panel_port.focus.chat)  # … which cannot use it
    assert host.panel_port.focus.panel_focused  # the blocker keeps the panel
    assert host.panel_port.focus.keyboard() == Keyboard(
        KeysTo.CHAT, host.panel_port.focus.chat, held=True
    )
    assert host.statistics().keys == KeysStatus(KeysTo.CHAT, None, "Choice")
    assert host.panel_port.guard_deadline() == now + TYPING_GUARD
    for i in range(1, 6):  # "help" and Enter, typed fast: all to the chat
        assert host.panel_port.key_route(now + 0.1 * i) == Route(host.panel_port.focus.chat)
    assert rig.lines_of("resolved") == []
    assert host.panel_port.settle_guard(now + 0.5 + TYPING_GUARD)  # the pause
    assert host.panel_port.focus.keyboard().to is KeysTo.PANEL and host.panel_port.selected == b


def test_the_first_enter_after_stray_typing_asks_and_the_second_chooses(rig: Rig) -> None:
    host = rig.host
    b = engaged_blocker(rig)
    host._state.keys.stray(rig.clock())
    rig.clock.past_guard()
    host.panel_port.settle_guard(rig.clock())
    rig.press(PanelCommand.CONFIRM)
    assert rig.lines_of("resolved") == []
    assert host.panel_port.confirming == Armed(PanelCommand.CONFIRM, b, Confirm.AFTER_STRAY)
    assert not host.panel_port.focus.stray_mark
    rig.press(PanelCommand.CONFIRM)
    assert [r["resolutions"][0]["answer"]["option_indices"] for r in rig.lines_of("resolved")] == [
        [0]
    ]


@pytest.mark.parametrize("command", [PanelCommand.DOWN, PanelCommand.NEXT_TAB, "digit"])
def test_a_deliberate_panel_command_clears_the_stray_mark(rig: Rig, command: object) -> None:
    host = rig.host
    b = engaged_blocker(rig)
    host._state.keys.stray(rig.clock())
    rig.clock.past_guard()
    host.panel_port.settle_guard(rig.clock())
    if command == "digit":
        host.panel_port.set_cursor(1)
    else:
        rig.press(command)  # type: ignore[arg-type]
    assert not host.panel_port.focus.stray_mark
    rig.answer_option(b, 1)  # one Enter
    assert b not in host.surface_port.projection.pending


def test_a_stray_key_on_an_async_tab_leaves_the_panel_and_answers_nothing(rig: Rig) -> None:
    host = rig.host
    a = rig.async_question("c1", "Which cache?")
    assert host.panel_port.enter_panel(a.id) is None
    assert host.panel_port.key_route(rig.clock()) == Route(host.panel_port.focus.panel, a)
    assert host._state.keys.stray(rig.clock()) == Route(host.panel_port.focus.chat)
    assert (
        host.panel_port.focus.owner is host.panel_port.focus.chat
        and not host.panel_port.focus.stray_mark
    )
    assert host.statistics().keys == KeysStatus(KeysTo.CHAT)
    assert a in host.surface_port.projection.pending and host.panel_port.draft(a) == Draft()


# ================================================================== typing guard, where the keys go
def test_a_claim_holding_keys_for_the_tab_the_person_is_on_keeps_showing_it(rig: Rig) -> None:
    host = rig.host
    a = rig.async_question("c1", "Which cache?", header="Cache")
    host.panel_port.enter_panel(a.id)
    rig.blocker("b1", q("Which database?", header="DB"))
    assert host.panel_port.selected == a  # the person still sees what they type into
    assert host.panel_port.focus.keyboard() == Keyboard(
        KeysTo.PANEL, host.panel_port.focus.panel, held=True
    )
    assert host.statistics().keys == KeysStatus(KeysTo.PANEL, "Cache", "DB")
    assert host.panel_port.key_route(rig.clock()) == Route(host.panel_port.focus.panel, a)
    rig.clock.past_guard()
    assert host.panel_port.settle_guard(rig.clock())
    assert host.panel_port.selected == rig.ref("b1")  # the claim took the keys: the blocker shows
    assert host.statistics().keys == KeysStatus(KeysTo.PANEL, "DB")


def test_held_keys_go_to_the_chat_once_the_tab_they_were_for_is_gone(rig: Rig) -> None:
    host = rig.host
    a = rig.async_question("c1", "Which cache?")
    other = rig.async_question("c2", "Which queue?")
    host.panel_port.enter_panel(a.id)
    wait = rig.blocker("b1", q("Which database?"))
    rig.press(PanelCommand.CONFIRM)  # the Enter meant for "Which cache?", within the guard
    assert a not in host.surface_port.projection.pending
    assert host.panel_port.focus.keyboard() == Keyboard(
        KeysTo.CHAT, host.panel_port.focus.chat, held=True
    )
    assert host.panel_port.key_route(rig.clock()) == Route(
        host.panel_port.focus.chat
    )  # never the next tab
    assert not wait.done and other in host.surface_port.projection.pending


def test_the_status_names_a_prompt_and_nothing_when_only_the_chat_is_there(rig: Rig) -> None:
    host = rig.host
    assert host.statistics().keys is None
    prompt = FocusTarget("permission-prompt")
    host.panel_port.begin_foreign(prompt)
    chat = host.panel_port.focus.chat  # held until a pause: the keys still go to the chat
    assert host.statistics().keys == KeysStatus(KeysTo.CHAT, prompt_waiting=True)
    assert host.panel_port.key_route(rig.clock()) == Route(chat)
    rig.clock.advance(TYPING_GUARD)
    assert host.panel_port.settle_guard(rig.clock())
    assert host.statistics().keys == KeysStatus(KeysTo.PROMPT)
    assert host.panel_port.key_route(rig.clock()) == Route(prompt)
    host.panel_port.end_foreign(prompt)
    editor = rig.give_focus(FocusTarget("notes-editor"))
    rig.async_question("c1", "Which cache?")
    assert host.panel_port.focus.keyboard() == Keyboard(KeysTo.EDITOR, editor)


# =========================================================================== 9b in the host
def typed_answer(rig: Rig, text: str, notes: str = "") -> QuestionRef:
    a = rig.async_question("c1", "Which language?", header="Language")
    rig.host.panel_port.enter_panel(a.id)
    rig.move_to(a, 3)  # Type something.
    rig.host.panel_port.set_custom_text(text)
    rig.host.panel_port.set_notes(notes)
    return a


def test_an_answer_holding_a_chat_command_line_waits_for_a_second_enter(rig: Rig) -> None:
    host = rig.host
    a = typed_answer(rig, "mixed\n/quit")
    host.panel_port.command(PanelCommand.CONFIRM)
    assert a in host.surface_port.projection.pending
    assert host.panel_port.confirming == Armed(
        PanelCommand.CONFIRM, a, Confirm.CHAT_COMMAND, "/quit"
    )
    host.panel_port.set_custom_text("mixed\n/quit ")  # an edit disarms
    assert host.panel_port.confirming is None
    host.panel_port.command(PanelCommand.CONFIRM)
    assert host.panel_port.confirming is not None and a in host.surface_port.projection.pending
    host.panel_port.command(PanelCommand.CONFIRM)
    assert a not in host.surface_port.projection.pending
    [line] = rig.lines_of("resolved")
    assert line["resolutions"][0]["answer"]["custom_text"] == "mixed\n/quit"


def test_a_chat_command_in_the_notes_waits_too_and_a_path_does_not(rig: Rig) -> None:
    host = rig.host
    a = typed_answer(rig, "see /tmp/x", notes="/help")
    host.panel_port.command(PanelCommand.CONFIRM)
    assert host.panel_port.confirming == Armed(
        PanelCommand.CONFIRM, a, Confirm.CHAT_COMMAND, "/help"
    )
    host.panel_port.set_notes("ran /tmp/x/run.sh")
    host.panel_port.command(PanelCommand.CONFIRM)
    assert a not in host.surface_port.projection.pending


# =========================================================================== the notice
def test_a_notice_goes_on_the_next_key_and_the_key_still_routes(rig: Rig) -> None:
    host = rig.host
    rig.async_question("c1", "Which cache?")
    assert host.panel_port.enter_panel("q-nope") is Refusal.UNKNOWN_QUESTION
    assert host.surface_port.notice == "No pending question with id q-nope."
    assert host.panel_port.key_route(rig.clock()) == Route(host.panel_port.focus.chat)
    assert host.surface_port.notice is None


def test_a_notice_goes_by_itself_after_a_few_seconds(rig: Rig) -> None:
    host = rig.host
    said_at = rig.clock()
    rig.blocker("b1", q("Which database?"))
    assert host.panel_port.toggle_collapse() is Refusal.BLOCKER_WAITING
    assert host._state.keys.notice_deadline() == said_at + NOTICE_SECONDS
    assert not host._state.keys.expire(said_at + NOTICE_SECONDS - 0.01)
    assert host.surface_port.notice is not None
    assert host._state.keys.expire(said_at + NOTICE_SECONDS)
    assert host.surface_port.notice is None and host._state.keys.notice_deadline() is None


def test_a_storage_failure_notice_stays_until_the_next_command(rig: Rig) -> None:
    host = rig.host
    a = rig.async_question("c1", "Which cache?")
    rig.ops.fail_next_append("resolved")
    rig.answer_option(a, 0)
    assert host.surface_port.notice is not None and host.surface_port.notice.startswith("Not saved")
    assert host._state.keys.notice_deadline() is None
    host.panel_port.key_route(rig.clock() + 100)
    assert host.surface_port.notice is not None and host.surface_port.notice.startswith("Not saved")


def test_esc_on_a_required_tab_names_the_keys_that_work(rig: Rig) -> None:
    host = rig.host
    engaged_blocker(rig)
    host.panel_port.command(PanelCommand.PAUSE)
    assert (
        host.surface_port.notice
        == "This question is required: answer it, answer it later, or decline it."
    )
    host._state.keys.name_keys({PanelCommand.DEFER: "F5", PanelCommand.DECLINE: "Ctrl+X"})
    host.panel_port.command(PanelCommand.PAUSE)
    assert host.surface_port.notice == (
        "This question is required: answer it, press F5 to answer later, "
        "or Ctrl+X twice to decline."
    )
    assert host.panel_port.focus.panel_focused and rig.lines_of("resolved") == []


def test_a_chat_command_in_the_note_for_all_questions_waits_at_review(rig: Rig) -> None:
    host = rig.host
    wait = rig.blocker("c1", q("Which database?"), q("Which cache?", options=("Redis", "None")))
    rig.clock.past_guard()
    rig.answer_option(rig.ref("c1", 0), 0)
    rig.answer_option(rig.ref("c1", 1), 0)
    assert host.panel_port.selected == ReviewKey("c1")
    host.panel_port.set_group_note("for staging\n/quit")
    host.panel_port.command(PanelCommand.CONFIRM)
    assert not wait.done and rig.lines_of("resolved") == []
    assert host.panel_port.confirming == Armed(
        PanelCommand.CONFIRM, ReviewKey("c1"), Confirm.CHAT_COMMAND, "/quit"
    )
    host.panel_port.command(PanelCommand.CONFIRM)
    assert wait.done
    [saved] = rig.lines_of("resolved")
    assert saved["group_note"] == "for staging\n/quit"


# =========================================================================== handed keys
def test_text_typed_into_an_editor_a_claim_opened_is_sent_at_the_second_enter(rig: Rig) -> None:
    host = rig.host
    wait = rig.blocker("b1", q("Name the release branch", header="Branch", options=None))
    rig.clock.past_guard()
    assert host.panel_port.settle_guard(rig.clock()) and host.panel_port.focus.handed
    host.panel_port.set_custom_text("fix the tests")  # typed without a look: the editor had keys
    rig.press(PanelCommand.CONFIRM)
    assert host.panel_port.confirming == Armed(
        PanelCommand.CONFIRM, rig.ref("b1"), Confirm.HANDED_EDITOR
    )
    host.panel_port.set_custom_text("fix the tests more")  # the next line: an edit disarms …
    rig.press(PanelCommand.CONFIRM)  # … so its Enter asks again: an inattentive typist never
    assert not wait.done and rig.lines_of("resolved") == []  # presses Enter twice in a row
    rig.press(PanelCommand.CONFIRM)
    assert wait.done and not host.panel_port.focus.handed


def test_a_deliberate_key_makes_the_editor_the_persons_choice(rig: Rig) -> None:
    host = rig.host
    wait = rig.blocker("b1", q("Name the release branch", header="Branch", options=None))
    rig.clock.past_guard()
    host.panel_port.settle_guard(rig.clock())
    host.panel_port.set_cursor(0)  # "1": the person puts the cursor on the editor themselves
    host.panel_port.set_custom_text("release-1.2")
    rig.press(PanelCommand.CONFIRM)
    assert wait.done


def test_back_in_an_answer_after_a_blocker_the_first_enter_asks(rig: Rig) -> None:
    host = rig.host
    a = typed_answer(rig, "mixed")
    wait = rig.blocker("b1", q("Which database?"))
    b = rig.ref("b1")
    assert (
        host.surface_port.answer_from(b.id, b.incarnation, None, "web") is None
    )  # ended elsewhere
    assert (
        wait.done and host.panel_port.selected == a and host.panel_port.focus.handed
    )  # back to the origin: the editor
    host.panel_port.set_custom_text("mixed\nthanks")
    host.panel_port.command(PanelCommand.CONFIRM)
    assert host.panel_port.confirming == Armed(PanelCommand.CONFIRM, a, Confirm.HANDED_EDITOR)
    host.panel_port.set_custom_text("mixed\n/quit")
    host.panel_port.command(PanelCommand.CONFIRM)  # one confirmation, naming the chat command
    assert host.panel_port.confirming == Armed(
        PanelCommand.CONFIRM, a, Confirm.CHAT_COMMAND, "/quit"
    )
    host.panel_port.command(PanelCommand.CONFIRM)
    assert a not in host.surface_port.projection.pending


def test_while_held_the_status_names_the_required_tab_that_is_shown(rig: Rig) -> None:
    host = rig.host
    rig.blocker("b1", q("Which database?", header="DB"), q("Which cache?", header="Cache"))
    rig.clock.past_guard()
    host.panel_port.settle_guard(rig.clock())
    rig.press(PanelCommand.NEXT_TAB)  # the person looks at the second question
    host._state.keys.stray(rig.clock())
    assert host.statistics().keys == KeysStatus(KeysTo.CHAT, None, "Cache")
