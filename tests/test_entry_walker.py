"""The transcript's rows are built only for what is drawn, and draw what a list of every
entry's widget draws.

:class:`~asks.widgets.transcript.EntryWalker` keeps the widgets of the entries read last only
(a hub's transcript has an entry per question asked). Checked against the plain walker, a
``urwid.SimpleFocusListWalker`` holding every entry's widget, on random histories
(hypothesis): entries appended, queued messages replaced, older entries put in front, pages
scrolled both ways; after each step both list boxes draw the same rows.
"""

from __future__ import annotations

import urwid
from hypothesis import given, settings
from hypothesis import strategies as st
from urwid.widget import AbstractFlowWidget as FlowWidget

from asks.agent.transcript import Entry, EntryKind, Transcript
from asks.widgets.transcript import KEPT, EntryWalker, TranscriptView, entry_widget

SIZE = (30, 5)
KINDS = (EntryKind.USER, EntryKind.NOTICE, EntryKind.QUESTION, EntryKind.RESULT)


def entry(n: int) -> Entry:
    return Entry(KINDS[n % len(KINDS)], f"entry {n} " + "word " * (n % 7))


class Twin:
    """The lazy walker and the plain one, changed alike."""

    def __init__(self, kept: int) -> None:
        self.lazy = EntryWalker(kept)
        self.plain: urwid.SimpleFocusListWalker[FlowWidget] = urwid.SimpleFocusListWalker([])
        self.boxes = (urwid.ListBox(self.lazy), urwid.ListBox(self.plain))
        self.made = 0
        self.drawn = 0  # entries before the queued ones

    def new(self, count: int) -> list[Entry]:
        self.made += count
        return [entry(self.made - k) for k in range(count)]

    def replace(self, start: int, stop: int, entries: list[Entry]) -> None:
        self.lazy.replace(start, stop, entries)
        self.plain[start:stop] = [entry_widget(e)[0] for e in entries]

    def rows(self) -> tuple[list[bytes], list[bytes]]:
        lazy, plain = (box.render(SIZE, focus=True).text for box in self.boxes)
        return lazy, plain


steps = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(1, 6)),
        st.tuples(st.just("queue"), st.integers(0, 3)),
        st.tuples(st.just("older"), st.integers(1, 6)),
        st.tuples(st.just("page"), st.sampled_from(["page up", "page down", "up", "down"])),
    ),
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(steps, st.integers(1, 6))
def test_the_lazy_rows_draw_what_every_widget_draws(
    history: list[tuple[str, object]], kept: int
) -> None:
    twin = Twin(kept)
    for step, arg in history:
        match step:
            case "append":
                assert isinstance(arg, int)
                for one in twin.new(arg):
                    twin.replace(twin.drawn, twin.drawn, [one])
                    twin.drawn += 1
            case "queue":
                assert isinstance(arg, int)
                twin.replace(twin.drawn, len(twin.lazy), twin.new(arg))
            case "older":
                assert isinstance(arg, int)
                twin.replace(0, 0, twin.new(arg))
                twin.drawn += arg
            case _:
                for box in twin.boxes:
                    box.keypress(SIZE, str(arg))
        lazy, plain = twin.rows()
        assert lazy == plain
        assert twin.lazy.focus == (twin.plain.focus or 0)
        assert twin.lazy.built <= kept


def test_a_long_transcript_holds_widgets_for_what_was_drawn_lately() -> None:
    transcript = Transcript()
    for n in range(3 * KEPT):
        transcript.add(EntryKind.NOTICE, f"notice {n}")
    view = TranscriptView(transcript)
    rows = [row.decode().rstrip() for row in view.render((40, 10), focus=True).text]
    assert rows[-1] == f"· notice {3 * KEPT - 1}"
    walker = view._listbox.body
    assert isinstance(walker, EntryWalker)
    assert walker.built <= 12  # the rows drawn (one widget a row here) and a neighbour or two
    for _page in range(3 * KEPT // 9 + 2):
        view.scroll(-1)
        view.render((40, 10), focus=True)
    rows = [row.decode().rstrip() for row in view.render((40, 10), focus=True).text]
    assert rows[0] == "· notice 0"
    assert walker.built <= KEPT


def test_a_streaming_entry_keeps_its_widget_until_done() -> None:
    transcript = Transcript()
    streaming = transcript.add(EntryKind.AGENT, "", "m", done=False)
    for n in range(3 * KEPT):
        transcript.add(EntryKind.NOTICE, f"notice {n}")
    view = TranscriptView(transcript)
    view.render((40, 10), focus=True)
    walker = view._listbox.body
    assert isinstance(walker, EntryWalker)
    first = walker[0]
    for position in range(len(walker)):
        walker[position]  # every row read: the streaming one is still held
    assert walker[0] is first
    transcript.stream(streaming, "Hello")
    view.refresh()
    assert "Hello" in str(walker[0].render((40,)).text[0])


def test_a_frame_on_a_tall_terminal_reuses_the_widgets_the_frame_before_drew() -> None:
    transcript = Transcript()
    for n in range(2 * KEPT):
        transcript.add(EntryKind.NOTICE, f"notice {n}")
    view = TranscriptView(transcript)
    size = (40, 300)  # taller than any terminal in use
    view.render(size, focus=True)
    walker = view._listbox.body
    assert isinstance(walker, EntryWalker)
    shown = range(len(walker) - size[1], len(walker))
    before = [walker.widgets(p)[0] for p in shown]
    view._invalidate()
    view.render(size, focus=True)
    assert all(walker.widgets(p)[0] is widget for p, widget in zip(shown, before, strict=True))
