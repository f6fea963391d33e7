"""A resumed transcript's history (asks/agent/history.py): drawn a window at a time from the
end, it gives the entries of the eager rebuild (asks/agent/replay.py), for any window size
and any sizes asked for; the transcript view loads it when PgUp reaches the top of what is
loaded, and the first message of the conversation is reached; the agent's context built late
is the eager one."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from asks.agent.context import ResumedContext, context_from_journal
from asks.agent.history import TranscriptHistory
from asks.agent.replay import rebuild
from asks.agent.transcript import Entry, EntryKind, Transcript
from asks.store.entries import ChatMessage, Record
from asks.store.projection import Projection
from asks.widgets.transcript import TranscriptView
from bench import workload

UNFINISHED = "the session was restarted before this tool finished"


def session(cycles: int, seed: int, hub: bool) -> Projection:
    """The projection of ``cycles`` question cycles of the bench workload; with ``hub``, a
    second agent's cycles interleaved, its chat left out (results of calls not in this
    agent's chat: they are not drawn), and an unfinished tool call."""
    records = workload.records(cycles * 8, seed=seed)
    if hub:
        other = workload.records(cycles * 8, seed=seed + 1, start_seq=1, prefix="hub")
        theirs = [r for r in other if not isinstance(r.entry, ChatMessage)]
        mixed = [r for pair in itertools.zip_longest(records, theirs) for r in pair if r]
        records = [Record(n, r.ts, r.entry) for n, r in enumerate(mixed)]
        call = {"id": "t-1", "name": "run_command", "arguments": '{"command": "ls"}'}
        records.append(Record(len(records), 0.0, ChatMessage("assistant", "ls", (call,))))
    projection = Projection()
    projection.apply_all(records)
    return projection


def seen(entries: list[Entry]) -> list[tuple[EntryKind, str, str, bool]]:
    return [(e.kind, e.text, e.title, e.done) for e in entries]


def eager(projection: Projection) -> list[tuple[EntryKind, str, str, bool]]:
    transcript = Transcript()
    rebuild(transcript, projection, "model", unfinished=UNFINISHED)
    return seen(transcript.entries)


@settings(max_examples=30, deadline=None)
@given(
    cycles=st.integers(0, 40),
    seed=st.integers(0, 1000),
    hub=st.booleans(),
    window=st.integers(1, 40),
    asks=st.lists(st.integers(0, 30), min_size=1, max_size=8),
)
def test_windows_from_the_end_give_the_eager_rebuild(
    cycles: int, seed: int, hub: bool, window: int, asks: list[int]
) -> None:
    projection = session(cycles, seed, hub)
    history = TranscriptHistory(projection, "model", unfinished=UNFINISHED, window=window)
    transcript = Transcript(history=history)
    for minimum in itertools.cycle(asks):
        if transcript.complete:
            break
        transcript.load_older(max(minimum, 1))
    assert seen(transcript.entries) == eager(projection)


def test_a_window_draws_only_what_it_is_asked_for() -> None:
    projection = session(200, 3, hub=False)
    history = TranscriptHistory(projection, "model", unfinished=UNFINISHED, window=16)
    transcript = Transcript(history=history)
    transcript.load_older(10)
    assert 10 <= len(transcript.entries) < len(eager(projection)) // 10
    assert seen(transcript.entries) == eager(projection)[-len(transcript.entries) :]
    assert not transcript.complete


def visible(view: TranscriptView, rows: int) -> list[str]:
    return [row.decode().rstrip() for row in view.render((60, rows), focus=True).text]


def test_page_up_loads_the_history_until_the_first_message() -> None:
    projection = session(60, 5, hub=False)
    history = TranscriptHistory(projection, "model", unfinished=UNFINISHED, window=8)
    transcript = Transcript(history=history)
    transcript.load_older(5)
    view = TranscriptView(transcript)
    last = visible(view, 10)
    first = f"you › {eager(projection)[0][1]}"[:40]
    presses = 0
    while not any(row.startswith(first) for row in visible(view, 10)):
        view.scroll(-1)
        presses += 1
        screen = visible(view, 10)
        assert screen != last, "a page up that did not move"
        last = screen
    assert transcript.complete
    assert len(view.entry_widgets) == len(transcript.entries)
    assert seen(transcript.entries) == eager(projection)
    assert presses > 10  # it took pages, not one jump


def test_the_rows_in_view_stay_when_older_entries_go_in_front() -> None:
    projection = session(30, 9, hub=False)
    history = TranscriptHistory(projection, "model", unfinished=UNFINISHED, window=4)
    transcript = Transcript(history=history)
    transcript.load_older(3)
    view = TranscriptView(transcript)
    visible(view, 200)  # everything loaded is in view: its top too
    before = len(transcript.entries)
    view._load_older((60, 199))  # what a page up does first
    assert len(transcript.entries) > before
    assert len(view.entry_widgets) == len(transcript.entries)
    assert view._listbox.focus is view.entry_widgets[-1]  # still the newest entry


def test_the_mouse_wheel_loads_the_history_too() -> None:
    projection = session(20, 4, hub=False)
    history = TranscriptHistory(projection, "model", unfinished=UNFINISHED, window=4)
    transcript = Transcript(history=history)
    transcript.load_older(3)
    view = TranscriptView(transcript)
    visible(view, 200)  # all that is loaded is in view
    before = len(transcript.entries)
    view.mouse_event((60, 200), "mouse press", 4, 0, 0, focus=True)
    assert len(transcript.entries) > before
    assert len(view.entry_widgets) == len(transcript.entries)


def test_a_late_context_is_the_eager_one() -> None:
    projection = session(30, 2, hub=True)
    conversation = list(projection.conversation)
    context = ResumedContext(projection.conversation)
    projection.conversation.append(Record(10**6, 0.0, ChatMessage("user", "later")), 10**6)
    assert context.messages() == context_from_journal(conversation)
    assert context.messages() is context.messages()
    count = context.count()
    context.messages().append(context.messages()[0])
    assert context.count() == count == len(context_from_journal(conversation))
