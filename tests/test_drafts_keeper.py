"""Drafts survive a crash: the host's keeper (asks/host/keeper.py) through the layer's key path.

Each test runs a real journal and drafts file in a temporary directory (``tests/support/rig.py``:
real file operations, faults on demand) and "crashes" by dropping the host without a flush
(``Rig.crash_and_reopen``: what SIGKILL leaves). Writes are counted at the file-system seam.
Timing runs on trio's autojump clock: the debounce is the behaviour under test, and no test
waits on the wall clock.
"""

from __future__ import annotations

import json
from pathlib import Path

import trio
import trio.testing
import urwid
from support.rig import Rig, call, q

from asks.core.drafts import ChatLine, Draft, SavedDraft, SavedDrafts, with_unsent
from asks.core.model import Answer, AnswerKind, QuestionRef
from asks.host.commands import PanelCommand
from asks.host.host import QuestionHost
from asks.host.keeper import SAVE_INTERVAL
from asks.host.waits import Wait
from asks.store.draftfile import DraftFile
from asks.widgets.chat import ChatEditor
from asks.widgets.layer import AsksLayer

COLS = (80,)


def layer_for(host: QuestionHost, rig: Rig, editor: urwid.Widget | None = None) -> AsksLayer:
    chat = editor if editor is not None else ChatEditor(lambda text: None)
    edit = chat.edit if isinstance(chat, ChatEditor) else None  # as the REPL screen does
    return AsksLayer(host.panel_port, chat, clock=rig.clock, bell=lambda: None, chat_edit=edit)


def drafts_on_disk(rig: Rig) -> dict[str, object]:
    return json.loads(rig.host.panel_port.drafts.path.read_bytes())  # type: ignore[no-any-return]


def drafts_writes(rig: Rig) -> int:
    return sum(1 for path in rig.ops.replaced if path == rig.host.panel_port.drafts.path)


def type_into_reply(rig: Rig, layer: AsksLayer, ref: QuestionRef, text: str) -> None:
    """Enter the panel on ``ref``, arrow to ``Type something.`` and type ``text`` there."""
    assert rig.host.panel_port.enter_panel(ref.id) is None
    rig.clock.past_guard()
    rig.move_to(ref, len(rig.host.surface_port.question(ref).spec.options))
    for char in text:
        assert layer.keypress(COLS, char) is None


def test_a_kill_keeps_the_chat_line_and_a_half_written_answer(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    ref = rig.async_question("c1", "Name it?")
    layer = layer_for(rig.host, rig)
    for char in "not sent yet":
        layer.keypress(COLS, char)
    type_into_reply(rig, layer, ref, "half an ans")
    assert rig.host.panel_port.drafts.save_now()  # what the debounced task does ≤ 0.5 s later
    seq = rig.journal.next_seq

    host = rig.crash_and_reopen()  # no flush, no goodbye: SIGKILL
    assert rig.journal.next_seq == seq  # the drafts never reached the journal
    chat = ChatEditor(lambda text: None)
    restored = layer_for(host, rig, chat).restore_drafts()
    assert restored.refs == (ref,)
    assert restored.chat == ChatLine("not sent yet", len("not sent yet"))
    assert chat.text == "not sent yet" and chat.edit.edit_pos == len("not sent yet")
    assert host.panel_port.draft(ref).custom_text == "half an ans"
    assert host.panel_port.draft(ref).cursor == 3  # on "Type something."
    assert host.surface_port.notice == restored.notice
    assert restored.notice == (
        "Restored your unsent drafts: the chat line and 1 answer — nothing was sent."
    )
    # Restoring saved and sent nothing: no journal line, nothing to deliver, still pending.
    assert rig.journal.next_seq == seq
    assert host.agent_port.take_feedback() is None and host._state.is_pending(ref)
    assert not rig.lines_of("resolved")
    # The restored draft is answered by the normal keys, and only then.
    assert host.panel_port.enter_panel(ref.id) is None
    rig.clock.past_guard()
    rig.press(PanelCommand.CONFIRM)
    (line,) = rig.lines_of("resolved")
    assert line["resolutions"][0]["answer"]["custom_text"] == "half an ans"


def test_every_draft_field_and_staged_answers_come_back(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    wait = rig.blocker("g1", q("First?", "One", multi=True), q("Second?", "Two"))
    first, second = wait.refs
    rig.clock.past_guard()
    rig.host.panel_port.settle_guard(rig.clock())
    rig.host.panel_port.command(PanelCommand.TOGGLE, first)  # check Postgres
    rig.host.panel_port.set_notes("because", first)
    rig.host.panel_port.command(PanelCommand.CONFIRM, first)  # Postgres on the cursor row: toggles
    rig.host.panel_port.command(PanelCommand.TOGGLE, first)  # checked again
    rig.host.panel_port.set_custom_text("and more", 4, first)
    rig.move_to(first, 4)  # Next: stages the answer
    rig.host.panel_port.command(PanelCommand.CONFIRM, first)
    rig.move_to(second, 1)
    before = {ref: rig.host.panel_port.draft(ref) for ref in wait.refs}
    assert before[first].staged == Answer(AnswerKind.MULTI, (0,), "and more", "because")
    assert rig.host.panel_port.drafts.save_now()

    host = rig.crash_and_reopen()  # the blocking call is interrupted; both stay pending
    restored = host.panel_port.drafts.restore()
    assert set(restored.refs) == {first, second}
    assert {ref: host.panel_port.draft(ref) for ref in wait.refs} == before


def test_answered_withdrawn_or_reasked_questions_drop_their_drafts(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    kept = rig.async_question("c1", "Kept?")
    answered = rig.async_question("c2", "Answered elsewhere?")
    withdrawn = rig.async_question("c3", "Withdrawn?")
    for ref in (kept, answered, withdrawn):
        rig.host.panel_port.set_custom_text(f"typed for {ref.id}", None, ref)
    assert rig.host.panel_port.drafts.save_now()
    host = rig.crash_and_reopen()
    # Another run (line mode, no keeper) answers one question and the agent withdraws one;
    # the drafts file still holds all three drafts.
    answer = Answer(AnswerKind.CUSTOM, (), "from line mode")
    assert host.surface_port.answer_from(answered.id, answered.incarnation, answer, "line") is None
    assert host.agent_port.withdraw([withdrawn.id]).all_withdrawn
    stale = QuestionRef(kept.id, kept.incarnation + 1)  # a draft of another incarnation
    file = DraftFile(host.panel_port.drafts.path, rig.journal.session_id)
    saved = file.load()
    assert saved is not None and len(saved.questions) == 3
    file.write(SavedDrafts(saved.chat, (*saved.questions, SavedDraft(stale, Draft(cursor=1)))))

    host = rig.crash_and_reopen()
    restored = host.panel_port.drafts.restore()
    assert restored.refs == (kept,) and restored.dropped == 3
    assert host.panel_port.draft(kept).custom_text == f"typed for {kept.id}"
    assert (
        host.panel_port.draft(answered) == Draft() and host.panel_port.draft(withdrawn) == Draft()
    )


def test_an_unreadable_drafts_file_is_one_warning_and_no_drafts(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    ref = rig.async_question("c1", "Which?")
    rig.host.panel_port.drafts.path.write_bytes(
        b'{"v": 1, "session_id": "test-session", "chat": {"te'
    )
    host = rig.crash_and_reopen()
    chat = ChatEditor(lambda text: None)
    layer = layer_for(host, rig, chat)
    restored = layer.restore_drafts()
    assert restored.warning == (
        "Your saved drafts could not be read (not a drafts file of this "
        "session); none were restored."
    )
    assert host.surface_port.notice == restored.warning == restored.notice
    assert restored.refs == () and host.panel_port.draft(ref) == Draft() and chat.text == ""
    host._state.keys.clear_notice()
    assert (
        layer.restore_drafts() is restored and host.surface_port.notice is None
    )  # once, not again
    layer.keypress(COLS, "x")
    assert host.panel_port.drafts.flush()  # the next write replaces the unreadable file
    assert drafts_on_disk(rig)["chat"] == {"text": "x", "caret": 1}


def test_a_failed_write_is_one_notice_keeps_the_drafts_and_recovers(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    ref = rig.async_question("c1", "Which?")
    rig.host.panel_port.set_custom_text("precious", None, ref)
    rig.ops.fail_replaces = 2
    assert not rig.host.panel_port.drafts.save_now()
    notice = "Drafts could not be saved to disk (No space left on device (injected)); they are "
    assert rig.host.surface_port.notice is not None and rig.host.surface_port.notice.startswith(
        notice
    )
    rig.host._state.keys.clear_notice()
    rig.host.panel_port.set_custom_text("precious!", None, ref)
    assert not rig.host.panel_port.drafts.save_now()
    assert rig.host.surface_port.notice is None  # one notice for the failure, not one per try
    assert rig.host.panel_port.draft(ref).custom_text == "precious!"  # kept in memory
    assert rig.host.panel_port.drafts.statistics().failures == 2
    assert rig.host.panel_port.drafts.save_now()  # the disk has room again
    assert drafts_on_disk(rig)["questions"][0]["draft"]["custom_text"] == "precious!"
    rig.ops.fail_replaces = 1
    rig.host.panel_port.set_custom_text("again", None, ref)
    assert not rig.host.panel_port.drafts.save_now()
    assert rig.host.surface_port.notice is not None and rig.host.surface_port.notice.startswith(
        notice
    )  # re-armed


def test_the_file_goes_when_nothing_is_left_to_keep(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    ref = rig.async_question("c1", "Which?")
    rig.move_to(ref, 1)
    assert rig.host.panel_port.drafts.save_now() and rig.host.panel_port.drafts.path.exists()
    rig.answer_option(ref, 1)  # saved: the draft has no further use
    assert rig.host.panel_port.drafts.flush()
    assert not rig.host.panel_port.drafts.path.exists()
    assert rig.host.panel_port.drafts.flush()  # nothing changed: no write, no error


def test_a_chat_line_no_editor_took_is_kept_as_it_was(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    ref = rig.async_question("c1", "Which?")
    layer_for(rig.host, rig)
    DraftFile(rig.host.panel_port.drafts.path, rig.journal.session_id).write(
        SavedDrafts(ChatLine("typed in asks", 5))
    )
    host = rig.crash_and_reopen()
    layer = layer_for(host, rig, urwid.Filler(urwid.Text("not an editor")))
    assert layer.restore_drafts().chat is None
    host.panel_port.set_cursor(2, ref)
    assert host.panel_port.drafts.flush()
    assert drafts_on_disk(rig)["chat"] == {"text": "typed in asks", "caret": 5}


async def test_keys_do_no_io_and_the_debounce_writes_a_few_times(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    rig = Rig.create(tmp_path)
    ref = rig.async_question("c1", "Which?")
    layer = layer_for(rig.host, rig)
    keeper = rig.host.panel_port.drafts
    async with trio.open_nursery() as nursery:
        nursery.start_soon(keeper.run)
        await trio.sleep(0)
        started = trio.current_time()
        for k in range(100):  # ~15 keys/s for 6.6 s, into the chat editor
            before = drafts_writes(rig)
            layer.keypress(COLS, "backspace" if k % 10 == 9 else "a")
            assert drafts_writes(rig) == before  # the key itself did no I/O
            assert keeper.statistics().dirty
            await trio.sleep(0.066)
        typed = trio.current_time() - started
        await trio.sleep(SAVE_INTERVAL * 2)
        chat_writes = drafts_writes(rig)
        assert 1 <= chat_writes <= typed / SAVE_INTERVAL + 1
        assert drafts_on_disk(rig)["chat"]["text"] == "a" * 80  # type: ignore[index]
        await trio.sleep(10)
        assert drafts_writes(rig) == chat_writes  # idle: nothing written
        # Panel drafts go the same way: 101 edits, a few writes.
        assert rig.host.panel_port.enter_panel(ref.id) is None
        rig.clock.past_guard()
        for _ in range(101):
            layer.keypress(COLS, "down")
            await trio.sleep(0.01)
        await trio.sleep(SAVE_INTERVAL * 2)
        assert 1 <= drafts_writes(rig) - chat_writes <= 1.0 / SAVE_INTERVAL + 1
        assert drafts_on_disk(rig)["questions"][0]["draft"]["cursor"] == 101 % 4  # type: ignore[index]
        nursery.cancel_scope.cancel()


def test_a_new_incarnation_never_inherits_an_old_draft_after_resume(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    wait: Wait = rig.blocker("same-call", q("Old?"))
    old = wait.refs[0]
    rig.host.panel_port.set_custom_text("for the old one", None, old)
    assert rig.host.panel_port.drafts.save_now()
    rig.host.surface_port.answer_from(old.id, old.incarnation, None, "web")  # declined: closed
    host = rig.crash_and_reopen()
    started = host.agent_port.start_call("same-call", call(q("New?")))
    assert isinstance(started, Wait)
    new = started.refs[0]
    assert new.id == old.id and new.incarnation != old.incarnation
    assert host.panel_port.drafts.restore().dropped == 1
    assert host.panel_port.draft(new) == Draft()


def test_unread_sent_messages_are_kept_in_front_of_the_chat_line() -> None:
    line = ChatLine("and more", 4)
    assert with_unsent([], line) is line
    assert with_unsent(["one", "two"], ChatLine()) == ChatLine("one\ntwo", 7)
    kept = with_unsent(["one"], line)
    assert kept == ChatLine("one\nand more", 8)
    assert kept.text[kept.caret :] == line.text[line.caret :]  # the caret stays where it was
