"""The question panel widget (widgets/panel/) over a real host on a temporary journal.

Golden screens: each main state is rendered to text and compared exactly with
``tests/golden/panel_<name>.txt`` (trailing spaces stripped; the footer's no-break spaces,
which only steer wrapping, read as plain spaces). Regenerate them with
``ASKS_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_panel_widget.py`` and read the
diff before committing. Behaviour tests press keys with ``widget.keypress((cols,), key)``.
"""

from __future__ import annotations

import pytest
from support.panel import (
    LAYERS,
    WIDE,
    ask_async,
    check_golden,
    database_question,
    focused,
    make_panel,
    press,
    screen,
)
from support.rig import Rig, q
from urwid.testing import check_flow_sizing, resolve_attr

from asks.contract import ResultEnvelope
from asks.core import i18n
from asks.core.i18n import Translator
from asks.core.model import Answer, AnswerKind, Outcome, QuestionStatus
from asks.host.commands import PanelCommand, PanelMode
from asks.host.waits import Wait
from asks.widgets.keymap import build_keymap
from asks.widgets.panel import PALETTE

# =========================================================================== golden screens


def test_golden_async_only_inactive_panel_is_dotted(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    rig.async_question("c2", "Ship the release today?", header="Release")
    panel = make_panel(rig)
    lines = screen(panel)
    assert lines[0].startswith("┌╌") and "╎" in lines[1]
    assert "Shift+Tab answer" in "\n".join(lines)
    check_golden("async_inactive", lines)


def test_golden_focused_single_select_with_descriptions(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig)
    focused(rig)
    lines = screen(panel)
    assert lines[0].startswith("┌─")
    assert any(line.startswith("│ › 1. Postgres") for line in lines)
    check_golden("single_focused", lines)


def test_golden_multi_select_with_checks_and_next(rig: Rig) -> None:
    rig.async_question(
        "c1",
        "Which checks should run before merging?",
        header="Checks",
        options=("Unit tests", "Type check", "Lint"),
        multi=True,
    )
    panel = make_panel(rig)
    focused(rig)
    press(panel, " ", "down", "down", " ")
    lines = screen(panel)
    text = "\n".join(lines)
    assert "│ › 3. [x] Lint" in text and "Space toggle" in text
    assert "[x] Unit tests" in text and "[ ] Type check" in text and "[x] Lint" in text
    assert "5. Next" in text
    check_golden("multi_select", lines)


def test_multi_select_type_something_row_is_checked_while_it_holds_text(rig: Rig) -> None:
    """The typed answer is one of a multi-select's answers: its row showed no check at all."""
    rig.async_question(
        "c1", "Which checks?", header="Checks", options=("Unit tests", "Lint"), multi=True
    )
    panel = make_panel(rig)
    focused(rig)
    press(panel, "down", "down")  # onto "3. Type something."
    assert "│ › 3. [ ] " in "\n".join(screen(panel))
    press(panel, *"Fuzz")
    assert "│ › 3. [x] Fuzz" in "\n".join(screen(panel))  # while typing
    press(panel, "up")
    text = "\n".join(screen(panel))
    assert "│   3. [x] Fuzz" in text and "[ ] Lint" in text
    press(panel, "down", "ctrl u")  # cleared (the draft's clear is confirmed: once more)
    press(panel, "ctrl u")
    press(panel, "up")
    assert "│   3. [ ] Type something." in "\n".join(screen(panel))


def test_golden_free_text_editor_with_typed_text(rig: Rig) -> None:
    rig.async_question("c1", "What should the release be called?", header="Name", options=None)
    panel = make_panel(rig)
    focused(rig)
    press(panel, *"Aurora", "meta enter", *"(after the aurora borealis)")
    lines = screen(panel)
    assert (
        rig.host.panel_port.draft(rig.ref("c1")).custom_text
        == "Aurora\n(after the aurora borealis)"
    )
    check_golden("free_text", lines)


def test_golden_blocker_pending_shows_the_warning_marker(rig: Rig) -> None:
    rig.async_question("c1", "Ship the release today?", header="Release")
    panel = make_panel(rig)
    rig.blocker("c2", q("Delete the old backups?", header="Backups", options=("Yes", "No")))
    held = screen(panel)
    assert "until you pause typing" in held[-2]  # the typing guard holds the keys back
    rig.clock.past_guard()
    assert rig.host.panel_port.settle_guard(rig.clock())  # the layer's timer does this
    lines = screen(panel)
    assert "⚠ required" in lines[0]
    assert "[● Backups]" in lines[1]
    attrs = {a for row in panel.render((WIDE,), focus=True).content() for a, _, _ in row}
    assert "panel.border.warning" in attrs and "panel.warning" in attrs
    check_golden("blocker", lines)


def test_golden_review_tab_with_one_staged_and_one_unanswered(rig: Rig) -> None:
    panel = make_panel(rig)
    rig.blocker(
        "c1",
        q("Which region?", header="Region", options=("eu-west", "us-east")),
        q("Which instance size?", header="Size", options=("small", "large")),
    )
    rig.clock.past_guard()
    press(panel, "enter")  # stages eu-west, moves to Size
    press(panel, "tab")  # to the Review tab without answering Size
    lines = screen(panel)
    text = "\n".join(lines)
    assert "→ eu-west" in text and "(unanswered)" in text
    assert "Enter submits 1 answer now; 1 stays pending." in text
    assert "Alt+D decline all (twice)" in text and "Alt+L later" in text
    check_golden("review", lines)


def test_golden_preview_side_by_side_at_120_and_stacked_at_60(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig, max_rows=20)
    focused(rig)
    press(panel, "down")
    wide = screen(panel, 120)
    narrow = screen(panel, 60)
    row = next(line for line in wide if "› 2. SQLite" in line)
    assert "│ db = sqlite3.connect('app.db')" in row  # beside the options
    assert "Preview" in wide[wide.index(row) - 2]
    assert not any(line.startswith("│ Preview") for line in wide)
    preview = next(i for i, line in enumerate(narrow) if line.startswith("│ Preview"))
    assert preview > next(i for i, line in enumerate(narrow) if "4. Type something." in line)
    check_golden("preview_120", wide)
    check_golden("preview_60", narrow)


def test_golden_collapsed_row(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    rig.async_question("c2", "Ship the release today?", header="Release")
    panel = make_panel(rig)
    assert rig.host.panel_port.toggle_collapse() is None
    lines = screen(panel)
    assert lines == ["▸ 2 questions pending · Ctrl+] expand"]
    check_golden("collapsed", lines)


def test_golden_paused_card(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    rig.async_question("c2", "Ship the release today?", header="Release")
    panel = make_panel(rig)
    focused(rig)
    press(panel, "esc")
    assert rig.host.panel_port.mode is PanelMode.PAUSED
    lines = screen(panel)
    assert len(lines) == 2 and "Shift+Tab to answer" in lines[1]
    check_golden("paused", lines)


def test_a_paused_card_names_three_questions_then_counts_the_rest(rig: Rig) -> None:
    for n in range(5):
        rig.async_question(f"c{n}", f"Question {n}?", header=f"Q{n}")
    panel = make_panel(rig)
    focused(rig)
    press(panel, "esc")
    assert screen(panel)[0].rstrip() == "‖ 5 questions pending: Q0 · Q1 · Q2 · +2"


def test_golden_body_scrolls_with_a_down_mark_in_a_short_panel(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig, max_rows=9)
    focused(rig)
    lines = screen(panel)
    assert len(lines) == 9
    assert lines[-2].endswith("↓") or any(line.endswith(" ↓") for line in lines)
    check_golden("scrolling", lines)


def test_golden_narrow_40_columns(rig: Rig) -> None:
    rig.async_question("c1", "Question about the release?", header="Release plan")
    rig.async_question("c2", "Question about the owner?", header="Owner")
    ask_async(rig, "c3", database_question())
    for n, header in enumerate(("Budget", "Timeline", "Risks")):
        rig.async_question(f"c{n + 4}", f"Question about {header.lower()}?", header=header)
    panel = make_panel(rig)
    focused(rig)
    press(panel, "tab", "tab")
    lines = screen(panel, 40)
    assert all(len(line) <= 40 for line in lines) and len(lines) == 14
    assert "‹" in lines[1] and "›" in lines[1] and "[Database]" in lines[1]
    check_golden("narrow_40", lines)


# =========================================================================== behaviour


def test_keys_typed_in_type_something_reach_the_draft(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig)
    focused(rig)
    ref = rig.ref("c1")
    press(panel, "4")  # digit: the Type something. row
    assert panel.key_context == "reply"
    assert press(panel, *"use ", " ", *"both", "backspace") == []
    assert rig.host.panel_port.draft(ref).custom_text == "use  bot"
    press(panel, "meta enter", "x")
    assert rig.host.panel_port.draft(ref).custom_text == "use  bot\nx"
    press(panel, "ctrl u")  # arms: an irreversible clear is confirmed
    assert rig.host.panel_port.draft(ref).custom_text == "use  bot\nx"
    assert "Press Ctrl+U again to clear the draft" in "\n".join(screen(panel))
    press(panel, "ctrl u")  # clears the draft's text and checks; the cursor stays on the row
    assert rig.host.panel_port.draft(ref).custom_text == ""
    assert panel.key_context == "reply"
    press(panel, *"done", "enter")
    assert ref not in rig.host.panel_port.tabs
    answer = rig.host.surface_port.projection.by_ref[ref].resolution
    assert answer is not None and answer.answer is not None
    assert answer.answer.kind is AnswerKind.CUSTOM and answer.answer.custom_text == "done"


def test_a_digit_moves_the_cursor_but_never_answers(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig)
    focused(rig)
    ref = rig.ref("c1")
    assert press(panel, "2") == []
    assert rig.host.panel_port.draft(ref).cursor == 1
    assert ref in rig.host.panel_port.tabs
    press(panel, "3")
    assert rig.host.panel_port.draft(ref).cursor == 2
    assert rig.host.surface_port.projection.by_ref[ref].status is QuestionStatus.PENDING
    assert any(line.startswith("│ › 3. MySQL") for line in screen(panel))


def test_enter_on_an_option_answers_it(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    rig.async_question("c2", "Ship the release today?", header="Release")
    panel = make_panel(rig)
    focused(rig)
    ref = rig.ref("c1")
    press(panel, "down", "enter")
    assert ref not in rig.host.panel_port.tabs
    resolution = rig.host.surface_port.projection.by_ref[ref].resolution
    assert resolution is not None and resolution.answer is not None
    assert resolution.answer.option_indices == (1,)
    assert "[Release]" in screen(panel)[1]


def test_multi_select_space_toggles_and_next_submits(rig: Rig) -> None:
    rig.async_question("c1", "Which?", header="Pick", options=("a", "b", "c"), multi=True)
    panel = make_panel(rig)
    focused(rig)
    ref = rig.ref("c1")
    press(panel, " ", "down", "enter")  # Enter on an option row toggles in multi-select
    assert rig.host.panel_port.draft(ref).checked == frozenset({0, 1})
    press(panel, "4", "down", "enter")  # Type something. (empty), then down to Next
    resolution = rig.host.surface_port.projection.by_ref[ref].resolution
    assert resolution is not None and resolution.answer is not None
    assert resolution.answer.option_indices == (0, 1)


def test_notes_editor_opens_with_alt_n_and_edits_the_draft(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig)
    focused(rig)
    ref = rig.ref("c1")
    press(panel, "meta n")
    assert panel.notes_open and panel.key_context == "reply"
    press(panel, *"keep it small")
    assert rig.host.panel_port.draft(ref).notes == "keep it small"
    assert rig.host.panel_port.draft(ref).cursor == 0  # the letters did not move the option cursor
    press(panel, "meta n")
    assert not panel.notes_open
    assert any("Notes: keep it small" in line for line in screen(panel))
    press(panel, "enter")
    resolution = rig.host.surface_port.projection.by_ref[ref].resolution
    assert resolution is not None and resolution.answer is not None
    assert resolution.answer.notes == "keep it small"


def test_escape_sequences_in_model_text_are_inert(rig: Rig) -> None:
    ask_async(
        rig,
        "c1",
        {
            "question": "Proceed\x1b]0;pwned\x07 with \x1b[31mred\x1b[0m text?\x9b2J",
            "header": "Evil\x1b[2J",
            "context": "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ here \u202eevil",
            "options": [
                {"label": "Yes\x1b[5m", "description": "\x07bell", "preview": "\x1bPdcs\x1b\\ok"},
                {"label": "No"},
            ],
        },
    )
    panel = make_panel(rig, max_rows=30)
    focused(rig)
    for cols in (120, 60):
        canvas = panel.render((cols,), focus=True)
        raw = b"".join(canvas.text)
        assert b"\x1b" not in raw and b"\x07" not in raw and b"\xc2\x9b" not in raw
        assert "\u202e" not in raw.decode()
    text = "\n".join(screen(panel, 120))
    assert "Proceed with red text?2J" in text and "[Evil]" in text and "link here evil" in text


def test_keys_go_to_the_chat_editor_when_the_panel_does_not_own_the_keyboard(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig)
    assert press(panel, "enter", "down", "a") == ["enter", "down"]  # the editor took "a"
    assert LAYERS[panel].editor.edit_text == "a"
    assert rig.host.panel_port.draft(rig.ref("c1")).cursor == 0


def test_arrival_guard_returns_a_key_aimed_at_chat(rig: Rig) -> None:
    panel = make_panel(rig)
    wait = rig.blocker("c1", q("Delete the old backups?", header="Backups", options=("Yes", "No")))
    assert press(panel, "enter") == ["enter"]  # typed just as the blocker appeared
    assert not wait.done and rig.ref("c1") in rig.host.panel_port.tabs
    rig.clock.past_guard()
    assert press(panel, "enter") == []
    assert isinstance(wait, Wait) and wait.done


def test_layer_keys_are_handled_and_unknown_keys_returned(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig)
    focused(rig)
    assert press(panel, "f7", "ctrl g") == ["f7"]  # Ctrl+G belongs to the layer
    press(panel, "4")
    assert press(panel, "ctrl c") == ["ctrl c"]  # the app's interrupt
    assert press(panel, "ctrl ]") == []  # collapse, from the reply editor too
    assert rig.host.panel_port.mode is PanelMode.COLLAPSED
    assert not rig.host.panel_port.focus.panel_focused


def test_focus_toggle_with_a_configured_key_works_in_the_panel(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig, keymap=build_keymap(focus_toggle_key="f2"))
    focused(rig)
    assert press(panel, "f2") == []
    assert not rig.host.panel_port.focus.panel_focused
    assert "F2 answer" in "\n".join(screen(panel))
    assert press(panel, "f2") == []
    assert rig.host.panel_port.focus.panel_focused


def test_page_down_scrolls_and_moving_the_cursor_brings_it_back(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig, max_rows=9)
    focused(rig)
    before = screen(panel)
    press(panel, "page down")
    after = screen(panel)
    assert after != before and any(line.endswith("↑") for line in after)
    assert not any("› 1. Postgres" in line for line in after)
    press(panel, "page up")
    assert screen(panel) == before
    press(panel, "page down", "down", "up")
    assert any("› 1. Postgres" in line for line in screen(panel))


def test_cursor_row_stays_visible_while_moving_down(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig, max_rows=9)
    focused(rig)
    for row, label in enumerate(("Postgres", "SQLite", "MySQL", "Type something.")):
        if row:
            press(panel, "down")
        assert any(f"› {row + 1}. {label}" in line for line in screen(panel)), row


def test_editor_shows_the_cursor_only_when_it_has_the_keyboard(rig: Rig) -> None:
    rig.async_question("c1", "Name?", header="Name", options=None)
    panel = make_panel(rig)
    assert panel.render((WIDE,), focus=True).cursor is None
    focused(rig)
    press(panel, *"ab")
    canvas = panel.render((WIDE,), focus=True)
    assert canvas.cursor is not None
    col, row = canvas.cursor
    assert screen(panel)[row][col - 2 : col] == "ab"


def test_panel_is_a_consistent_flow_widget_in_every_state(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig, max_rows=8)
    check_flow_sizing(panel)
    focused(rig)
    press(panel, "down")
    check_flow_sizing(panel, cols=120)
    press(panel, "down", "down", *"typed")
    check_flow_sizing(panel)
    press(panel, "esc")
    check_flow_sizing(panel)


def test_max_rows_bounds_the_height(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig)
    focused(rig)
    assert panel.rows((WIDE,)) == 13
    panel.max_rows = 7
    assert panel.rows((WIDE,)) == 7 == len(screen(panel))


def test_notice_is_shown_in_the_footer(rig: Rig) -> None:
    rig.async_question("c1", "Name?", header="Name", options=None)
    panel = make_panel(rig)
    focused(rig)
    press(panel, "enter")
    assert any("Type an answer first." in line for line in screen(panel))


def test_decline_and_defer_keys_reach_the_host(rig: Rig) -> None:
    panel = make_panel(rig)
    wait = rig.blocker("c1", q("Delete?", header="Backups", options=("Yes", "No")))
    rig.clock.past_guard()
    press(panel, "meta l")
    assert wait.done and rig.ref("c1") in rig.host.panel_port.tabs  # deferred: still pending
    wait2 = rig.blocker("c2", q("Really?", header="Again", options=("Yes", "No")))
    rig.clock.past_guard()
    press(panel, "meta d")  # arms: Decline is confirmed
    assert not wait2.done
    assert "Press Alt+D again to decline" in "\n".join(screen(panel))
    press(panel, "down", "meta d")  # another key disarmed it: this one arms again
    assert not wait2.done
    press(panel, "meta d")
    assert wait2.done and rig.ref("c2") not in rig.host.panel_port.tabs


def test_palette_names_are_panel_scoped_and_readable_without_colour(rig: Rig) -> None:
    names = [entry[0] for entry in PALETTE]
    assert len(names) == len(set(names)) and all(n.startswith("panel.") for n in names)
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig)
    focused(rig)
    used = {a for row in panel.render((WIDE,), focus=True).content() for a, _, _ in row}
    assert used - {None} <= set(names)
    for name in ("panel.tab.selected", "panel.option.focus", "panel.border.warning"):
        mono = resolve_attr(name, PALETTE, colors=1)
        assert mono.bold or mono.standout or mono.underline, name


def test_collapsed_row_when_collapse_is_off(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig, keymap=build_keymap(collapse_key="off"))
    rig.host.panel_port.command(PanelCommand.COLLAPSE)
    assert screen(panel) == ["▸ 1 question pending · Shift+Tab open"]


def test_a_key_in_the_arrival_guard_goes_to_the_tab_it_was_aimed_at(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig)
    focused(rig)
    wait = rig.blocker("c2", q("Delete the old backups?", header="Backups", options=("Yes", "No")))
    assert rig.host.panel_port.selected == rig.ref("c1")  # shown while the guard holds keys for it
    assert "A required question is waiting" in "\n".join(screen(panel))
    press(panel, "down", "enter")  # aimed at Database, typed as Backups appeared
    assert rig.ref("c1") not in rig.host.panel_port.tabs  # Database got the answer (SQLite)
    assert not wait.done and rig.host.panel_port.draft(rig.ref("c2")).cursor == 0


def test_a_one_row_window_shows_both_marks(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    panel = make_panel(rig, max_rows=5)
    focused(rig)
    press(panel, "page down")
    lines = screen(panel)
    assert len(lines) == 5 and lines[2].endswith("↕")


def test_repeated_headers_get_a_distinguishing_number(rig: Rig) -> None:
    rig.async_question("c1", "Bump the major version?", header="Versioning")
    rig.async_question("c2", "Tag the release?", header="Versioning")
    panel = make_panel(rig)
    focused(rig)
    strip = screen(panel)[1]
    assert "Versioning" in strip and "Versioning 2" in strip


def test_review_shows_what_was_answered_in_the_browser_and_where(rig: Rig) -> None:
    rig.blocker(
        "c1",
        q("Which checks?", header="Checks", options=("Lint", "Types")),
        q("Which target?", header="Target", options=("Linux", "Mac")),
    )
    panel = make_panel(rig)
    first = rig.ref("c1", 0)
    refusal = rig.host.surface_port.answer_from(
        first.id, first.incarnation, Answer(AnswerKind.OPTION, (0,)), source="web"
    )
    assert refusal is None
    rig.clock.past_guard()
    rig.host.panel_port.settle_guard(rig.clock())
    press(panel, "tab")  # to the Review tab (Target, then Review)
    text = "\n".join(screen(panel, 100))
    assert "→ Lint (in the browser)" in text
    assert "(already answered)" not in text


def test_review_keeps_the_lines_of_a_multi_line_answer_and_note(rig: Rig) -> None:
    """Polish: the Review tab joined a multi-line custom answer into one line."""
    rig.blocker(
        "c1",
        q("Which region?", header="Region", options=("eu-west", "us-east")),
        q("Anything else?", header="Else", options=None),
    )
    panel = make_panel(rig)
    rig.clock.past_guard()
    press(panel, "enter")  # stages eu-west, moves to Else (a free-text question)
    press(panel, *"first line", "meta enter", *"second line")
    press(panel, "meta n", *"note one", "meta enter", *"note two", "meta n")
    press(panel, "enter")  # stages it; the Review tab comes next
    rows = screen(panel)
    at = next(i for i, row in enumerate(rows) if "→ first line" in row)
    column = rows[at].index("→")
    shown = [row[column:].rstrip(" │") for row in rows[at : at + 4]]
    assert shown == ["→ first line", "  second line", "  (notes: note one", "  note two)"]
    assert all(not row[:column].strip(" │") for row in rows[at + 1 : at + 4])  # under the answer


def test_review_takes_a_note_for_all_questions_with_alt_n(rig: Rig) -> None:
    """The Review tab's note for the whole group, a draft until submitted."""
    wait = rig.blocker(
        "c1",
        q("Which region?", header="Region", options=("eu-west", "us-east")),
        q("Which instance size?", header="Size", options=("small", "large")),
    )
    panel = make_panel(rig)
    rig.clock.past_guard()
    press(panel, "enter", "enter")  # stages both; the Review tab comes next
    assert "Alt+N note for all" in " ".join(screen(panel))
    press(panel, "meta n")
    assert panel.notes_open and panel.key_context == "reply"
    press(panel, *"for staging", "meta enter", *"not prod")
    assert rig.host.panel_port.group_note("c1") == "for staging\nnot prod"
    lines = screen(panel)
    assert "Alt+N close note" in " ".join(lines)
    check_golden("review_note", lines)
    assert not wait.done and rig.lines_of("resolved") == []  # typing saved nothing

    press(panel, "meta n")  # closed: the note shows as text
    text = "\n".join(screen(panel))
    assert "Note for all: for staging" in text and "not prod" in text
    press(panel, "shift tab", "tab")  # away and back: still the draft
    assert rig.host.panel_port.group_note("c1") == "for staging\nnot prod"
    press(panel, "enter")
    assert isinstance(wait.reply, ResultEnvelope)
    assert wait.reply.details["groupNote"] == "for staging\nnot prod"
    assert "User note for all questions: for staging\nnot prod." in wait.reply.text


def test_enter_in_the_review_note_submits_and_escapes_in_it_are_inert(rig: Rig) -> None:
    wait = rig.blocker(
        "c1",
        q("Which region?", header="Region", options=("eu-west", "us-east")),
        q("Which instance size?", header="Size", options=("small", "large")),
    )
    panel = make_panel(rig)
    rig.clock.past_guard()
    press(panel, "enter", "tab")  # one staged, Size left unanswered; on Review
    rig.host.panel_port.set_group_note("red\x1b[31mX\x1b]0;title\x07 ok")
    text = "\n".join(screen(panel))
    assert "\x1b" not in text and "Note for all: redX ok" in text
    press(panel, "meta n", "enter")  # Enter in the note editor submits, as in a question's
    assert isinstance(wait.reply, ResultEnvelope) and wait.reply.outcome is Outcome.PARTIAL


def test_esc_on_an_async_tab_while_a_blocker_waits_says_where_it_goes(rig: Rig) -> None:
    """Esc does not pause while a blocker waits: on an async tab it goes to the required tab
    (the panel is held), and the footer says so (from the keymap) instead of ``Esc pause``."""
    rig.async_question("c1", "Ship the release today?", header="Release")
    panel = make_panel(rig)
    rig.blocker("c2", q("Delete the old backups?", header="Backups", options=("Yes", "No")))
    rig.clock.past_guard()
    assert rig.host.panel_port.settle_guard(rig.clock())
    press(panel, "tab")  # to the async tab
    assert rig.host.panel_port.selected == rig.ref("c1")
    hints = " ".join(row.strip("│ ") for row in screen(panel)[-3:-1])
    assert "Esc to the required question" in hints and "pause" not in hints, hints
    press(panel, "esc")
    assert rig.host.panel_port.selected == rig.ref("c2")  # what the footer said
    rig.answer_option(rig.ref("c2"), 0)
    focused(rig)
    hints = " ".join(row.strip("│ ") for row in screen(panel)[-3:-1])
    assert "Esc pause" in hints, hints  # no blocker: Esc pauses again


@pytest.mark.parametrize(
    ("language", "hint"),
    [
        ("en", "Your keys go to the chat until you pause typing; then they answer here."),
        (
            "de",
            "Deine Tasten gehen in den Chat, bis du beim Tippen innehältst; "
            "dann antworten sie hier.",
        ),
    ],
)
def test_footer_sentences_wrap_between_words_at_60_columns(
    rig: Rig, language: str, hint: str
) -> None:
    """A footer sentence wider than the row wraps at its spaces (it was cut mid-word: ``then
    th`` / ``ey answer here``); a row of key hints still keeps each key with its label."""
    with i18n.use(Translator(language)):
        rig.async_question("c1", "Ship the release today?", header="Release")
        panel = make_panel(rig)
        rig.blocker("c2", q("Delete the old backups?", header="Backups", options=("Yes", "No")))
        rows = [row[2:-1].rstrip() for row in screen(panel, 60)[:-1]]
        start = next(i for i, row in enumerate(rows) if row.startswith(hint.split(maxsplit=1)[0]))
        assert " ".join(rows[start:]) == hint, rows[start:]
        check_golden(f"held_60_{language}", screen(panel, 60))
