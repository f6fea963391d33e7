"""The transcript view: colour-free prefixes, sanitised text, incremental refresh, following."""

from __future__ import annotations

import pytest

from asks.agent.transcript import EntryKind, Transcript
from asks.widgets.transcript import PALETTE, TranscriptView

COLS = 40


def screen(view: TranscriptView, rows: int = 12, cols: int = COLS) -> list[str]:
    return [row.decode() for row in view.render((cols, rows), focus=True).text]


def visible(view: TranscriptView, rows: int = 12, cols: int = COLS) -> list[str]:
    """The non-blank rows, right-stripped."""
    return [row.rstrip() for row in screen(view, rows, cols) if row.strip()]


def make(*entries: tuple[EntryKind, str, str]) -> tuple[Transcript, TranscriptView]:
    transcript = Transcript()
    for kind, text, title in entries:
        transcript.add(kind, text, title)
    return transcript, TranscriptView(transcript)


@pytest.mark.parametrize(
    ("kind", "text", "title", "row"),
    [
        (EntryKind.USER, "hello", "", "you › hello"),
        (EntryKind.AGENT, "hi!", "scripted", "agent (scripted) › hi!"),
        (EntryKind.AGENT, "hi!", "", "agent › hi!"),
        (EntryKind.TOOL, "work(3)", "work", "⚙ work(3)"),
        (
            EntryKind.RESULT,
            "User has answered",
            "answered",
            "  ✔ result (answered): User has answered",
        ),
        (EntryKind.FEEDBACK, "[asks feedback] x", "wake", "  ✉ feedback (wake): [asks feedback] x"),
        (EntryKind.DECISION, "Allow: ls", "allowed", "⚑ permission allowed: Allow: ls"),
        (EntryKind.DECISION, "Allow: rm", "denied", "⚑ permission denied: Allow: rm"),
        (EntryKind.ERROR, "boom", "agent error", "✖ agent error: boom"),
        (EntryKind.ERROR, "boom", "", "✖ boom"),
        (EntryKind.NOTICE, "Interrupted.", "", "· Interrupted."),
    ],
)
def test_each_kind_has_a_colour_free_prefix(
    kind: EntryKind, text: str, title: str, row: str
) -> None:
    _, view = make((kind, text, title))
    assert visible(view, cols=50) == [row]


def test_question_card_is_boxed_and_hangs_under_its_prefix() -> None:
    _, view = make((EntryKind.QUESTION, "1. Which database?\n2. Which port?", "call-1"))
    assert visible(view, cols=30) == [
        "┌────────────────────────────┐",
        "│? asked: 1. Which database? │",
        "│         2. Which port?     │",
        "└────────────────────────────┘",
    ]
    _, view = make((EntryKind.QUESTION, "Which database?", "call-1"))
    assert visible(view, cols=24) == [
        "┌──────────────────────┐",
        "│? asked: Which        │",
        "│         database?    │",
        "└──────────────────────┘",
    ]


def test_multiline_text_is_kept() -> None:
    _, view = make((EntryKind.AGENT, "line one\nline two", "m"))
    assert visible(view) == ["agent (m) › line one", "line two"]


def test_screen_is_exact_and_starts_at_the_top_when_it_fits() -> None:
    _, view = make((EntryKind.USER, "a", ""), (EntryKind.NOTICE, "b", ""))
    assert screen(view, rows=3, cols=10) == ["you › a   ", "· b       ", "          "]


def test_escape_sequences_are_inert() -> None:
    evil = "red\x1b[31mX\x1b[0m \x1b]0;title\x07ok\x9b2J\u202eend\rback"
    _, view = make(
        (EntryKind.AGENT, evil, "m\x1b[1m"),
        (EntryKind.USER, evil, ""),
        (EntryKind.QUESTION, evil, ""),
    )
    text = "\n".join(screen(view, rows=20, cols=60))
    assert "\x1b" not in text
    assert "\x9b" not in text
    assert "\u202e" not in text
    assert "\r" not in text
    assert "agent (m) › redX ok2Jend" in text


def test_streaming_entry_shows_a_mark_until_done() -> None:
    transcript, view = make()
    entry = transcript.add(EntryKind.AGENT, "", "m", done=False)
    view.refresh()
    assert visible(view) == ["agent (m) › …"]
    transcript.stream(entry, "Hel")
    view.refresh()
    assert visible(view) == ["agent (m) › Hel …"]
    transcript.finish(entry, "lo")
    view.refresh()
    assert visible(view) == ["agent (m) › Hello"]


def test_refresh_appends_and_keeps_existing_widgets_identical() -> None:
    transcript, view = make((EntryKind.USER, "one", ""), (EntryKind.TOOL, "t()", "t"))
    before = view.entry_widgets
    transcript.add(EntryKind.NOTICE, "three")
    view.refresh()
    after = view.entry_widgets
    assert len(after) == 3
    assert all(a is b for a, b in zip(before, after, strict=False))


def test_streaming_redraw_keeps_widget_identity() -> None:
    transcript, view = make((EntryKind.USER, "q", ""))
    entry = transcript.add(EntryKind.AGENT, "", "m", done=False)
    view.refresh()
    before = view.entry_widgets
    for delta in ("a", "b", "c"):
        transcript.stream(entry, delta)
        view.refresh()
    transcript.finish(entry)
    view.refresh()
    assert all(a is b for a, b in zip(before, view.entry_widgets, strict=True))
    assert visible(view) == ["you › q", "agent (m) › abc"]


def test_refresh_without_changes_is_a_no_op() -> None:
    _, view = make((EntryKind.USER, "q", ""))
    before = view.entry_widgets
    view.refresh()
    assert view.entry_widgets == before


def test_entries_added_before_the_view_exists_are_drawn() -> None:
    transcript = Transcript()
    transcript.add(EntryKind.USER, "early")
    view = TranscriptView(transcript)
    assert visible(view) == ["you › early"]


# -- following and scrolling -----------------------------------------------------------------


def numbered(transcript: Transcript, start: int, stop: int) -> None:
    for n in range(start, stop):
        transcript.add(EntryKind.NOTICE, f"n{n}")


def test_follows_the_bottom_as_entries_arrive() -> None:
    transcript, view = make()
    numbered(transcript, 0, 10)
    view.refresh()
    assert visible(view, rows=4) == ["· n6", "· n7", "· n8", "· n9"]
    numbered(transcript, 10, 12)
    view.refresh()
    assert visible(view, rows=4) == ["· n8", "· n9", "· n10", "· n11"]
    assert view.following


def test_follows_a_growing_streaming_entry() -> None:
    transcript, view = make()
    numbered(transcript, 0, 5)
    entry = transcript.add(EntryKind.AGENT, "", "m", done=False)
    view.refresh()
    screen(view, rows=3)
    transcript.stream(entry, "a\nb\nc\nd")
    view.refresh()
    assert visible(view, rows=3) == ["b", "c", "d …"]


def test_scrolling_up_stops_following_and_down_resumes() -> None:
    transcript, view = make()
    numbered(transcript, 0, 20)
    view.refresh()
    screen(view, rows=4)
    view.scroll(-1)
    assert not view.following
    held = visible(view, rows=4)
    assert held[-1].strip() == "↓ scrolled up · PgDn for the newest"
    assert held[:3] != ["· n17", "· n18", "· n19"]
    numbered(transcript, 20, 22)
    view.refresh()
    now = visible(view, rows=4)
    assert now[:3] == held[:3]  # new entries do not pull the view down
    assert now[3].strip() == "↓ 2 new below · PgDn"
    view.scroll(+10)
    assert view.following
    assert visible(view, rows=4) == ["· n18", "· n19", "· n20", "· n21"]
    numbered(transcript, 22, 23)
    view.refresh()
    assert visible(view, rows=4)[-1] == "· n22"


def test_page_up_then_page_down_is_back_at_the_bottom_without_a_marker() -> None:
    transcript, view = make()
    numbered(transcript, 0, 20)
    view.refresh()
    bottom = visible(view, rows=5)
    view.scroll(-1)
    assert visible(view, rows=5)[-1].strip() == "↓ scrolled up · PgDn for the newest"
    view.scroll(+1)
    assert view.following
    assert visible(view, rows=5) == bottom


def test_sending_a_message_scrolls_back_to_the_bottom() -> None:
    transcript, view = make()
    numbered(transcript, 0, 20)
    view.refresh()
    screen(view, rows=4)
    view.scroll(-2)
    assert not view.following
    transcript.add(EntryKind.NOTICE, "agent news")  # others' entries leave the view alone
    view.refresh()
    assert not view.following
    transcript.add(EntryKind.USER, "my message")
    view.refresh()
    assert view.following
    assert visible(view, rows=4) == ["· n18", "· n19", "· agent news", "you › my message"]
    assert view.marker_text == ""


def test_follow_goes_back_to_the_bottom() -> None:
    transcript, view = make()
    numbered(transcript, 0, 20)
    view.refresh()
    bottom = visible(view, rows=4)
    view.scroll(-3)
    assert visible(view, rows=4) != bottom
    view.follow()
    assert view.following
    assert visible(view, rows=4) == bottom


def test_a_one_row_view_has_no_room_for_the_marker() -> None:
    transcript, view = make()
    numbered(transcript, 0, 5)
    view.refresh()
    screen(view, rows=1)
    view.scroll(-1)
    assert not view.following
    assert len(screen(view, rows=1)) == 1
    assert "↓" not in screen(view, rows=1)[0]


def test_page_keys_scroll_and_other_keys_are_returned() -> None:
    transcript, view = make()
    numbered(transcript, 0, 20)
    view.refresh()
    size = (COLS, 4)
    view.render(size, focus=True)
    assert view.keypress(size, "page up") is None
    assert not view.following
    assert view.keypress(size, "page down") is None
    assert view.following
    for key in ("up", "down", "enter", "x", "ctrl c", "shift tab"):
        assert view.keypress(size, key) == key


def test_scroll_before_the_first_render_is_harmless() -> None:
    transcript, view = make()
    numbered(transcript, 0, 3)
    view.refresh()
    view.scroll(-1)
    assert view.following


def test_scroll_on_a_short_transcript_keeps_following() -> None:
    _, view = make((EntryKind.USER, "only", ""))
    screen(view, rows=5)
    view.scroll(-1)
    assert view.following


def test_palette_names_are_prefixed() -> None:
    names = [entry[0] for entry in PALETTE]
    assert names
    assert all(name.startswith("transcript.") for name in names)
    assert len(names) == len(set(names))
    for kind in EntryKind:
        assert f"transcript.{kind.value}" in names


def test_following_survives_a_resize() -> None:
    transcript, view = make()
    numbered(transcript, 0, 10)
    view.refresh()
    assert visible(view, rows=6)[-1] == "· n9"
    assert visible(view, rows=3) == ["· n7", "· n8", "· n9"]


def test_a_reply_taller_than_the_view_shows_its_end_while_following() -> None:
    transcript, view = make()
    entry = transcript.add(EntryKind.AGENT, "\n".join(f"r{n}" for n in range(10)), "m")
    view.refresh()
    assert visible(view, rows=3) == ["r7", "r8", "r9"]
    view.scroll(-1)
    assert not view.following
    assert "r9" not in visible(view, rows=3)
    transcript.stream(entry, "")  # a change elsewhere does not pull the view back
    view.refresh()
    assert "r9" not in visible(view, rows=3)


def test_the_view_never_takes_the_keyboard() -> None:
    _, view = make((EntryKind.USER, "q", ""))
    assert not view.selectable()
