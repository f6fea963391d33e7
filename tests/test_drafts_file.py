"""The drafts file (asks/store/draftfile.py) and the restore policy (asks/core/restore.py).

Round trips are property tests over every draft field (selection, checks, custom text and
caret, notes, a staged answer) and the chat line, with any text (lone surrogates included);
unreadable files are each refused with a reason; :func:`fit_draft` makes any draft valid for
its question and leaves a valid one as it was; the restore plan keeps a draft only for a
question still pending with the same incarnation.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import hypothesis.strategies as st
import pytest
from hypothesis import given

from asks.core.answers import answer_problem
from asks.core.drafts import ChatLine, Draft, SavedDraft, SavedDrafts, row_count
from asks.core.model import Answer, AnswerKind, Option, QuestionRef, QuestionSpec
from asks.core.restore import fit_draft, plan_restore
from asks.store.draftfile import DraftFile, DraftsUnreadable, decode, drafts_path, encode
from asks.store.files import list_sessions
from asks.store.journal import Journal

SID = "drafts-session"
TEXT = st.text(max_size=40)  # any code point, lone surrogates included
SMALL = st.integers(-3, 12)

answers = st.builds(
    Answer,
    kind=st.sampled_from(list(AnswerKind)),
    option_indices=st.lists(SMALL, max_size=4).map(tuple),
    custom_text=st.none() | TEXT,
    notes=TEXT,
)
drafts = st.builds(
    Draft,
    cursor=SMALL,
    checked=st.frozensets(SMALL, max_size=5),
    custom_text=TEXT,
    caret=SMALL,
    notes=TEXT,
    staged=st.none() | answers,
)
refs = st.builds(
    QuestionRef,
    id=st.from_regex(r"q-[0-9a-f]{10}", fullmatch=True),
    incarnation=st.integers(0, 10**6),
)
saved_drafts = st.builds(
    SavedDrafts,
    chat=st.builds(ChatLine, text=TEXT, caret=SMALL),
    questions=st.lists(st.builds(SavedDraft, ref=refs, draft=drafts), max_size=4).map(tuple),
)
specs = st.builds(
    QuestionSpec,
    question=st.just("Which?"),
    header=st.just("Pick"),
    options=st.lists(
        st.builds(Option, label=st.sampled_from("ABCD")),
        min_size=0,
        max_size=4,
        unique_by=lambda o: o.label,
    ).map(tuple),
    multi_select=st.booleans(),
)


@given(saved_drafts)
def test_every_draft_field_and_the_chat_line_round_trip(saved: SavedDrafts) -> None:
    assert decode(encode(SID, saved), SID) == saved


@given(saved_drafts)
def test_the_file_round_trips_is_0600_and_leaves_no_temporary(saved: SavedDrafts) -> None:
    directory = Path(os.environ.get("TMPDIR", "/tmp")) / f"asks-drafts-{os.getpid()}"
    directory.mkdir(exist_ok=True)
    file = DraftFile(directory / f"{SID}.drafts.json", SID)
    try:
        file.write(saved)
        assert stat.S_IMODE(file.path.stat().st_mode) == 0o600
        assert file.load() == saved
        assert sorted(p.name for p in directory.iterdir()) == [file.path.name]
    finally:
        file.remove()
        directory.rmdir()


def test_no_file_is_no_drafts_and_removing_twice_is_fine(tmp_path: Path) -> None:
    file = DraftFile(tmp_path / "x.drafts.json", SID)
    assert file.load() is None
    file.remove()
    file.remove()


@pytest.mark.parametrize(
    "data",
    [
        b"",  # empty
        b'{"v": 1, "session_id": "drafts-session", "chat": {"text": "a", "ca',  # torn
        b"[1, 2]",  # not an object
        b'{"v": 2, "session_id": "drafts-session"}',  # a newer version
        b'{"v": 1, "session_id": "another"}',  # another session's
        b'{"v": 1, "session_id": "drafts-session", "questions": [{"ref": 3}]}',
        b'{"v": 1, "session_id": "drafts-session", "questions": [{"draft": {}}]}',
        b'{"v": 1, "session_id": "drafts-session", "chat": [1]}',
        b"\xff\xfe not utf-8",
    ],
)
def test_an_unusable_file_is_refused_with_a_reason(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "x.drafts.json"
    path.write_bytes(data)
    with pytest.raises(DraftsUnreadable, match="not a drafts file of this session"):
        DraftFile(path, SID).load()


def test_an_unreadable_file_names_the_os_reason(tmp_path: Path) -> None:
    path = tmp_path / "x.drafts.json"
    path.mkdir()  # reading a directory fails even for root
    with pytest.raises(DraftsUnreadable, match="directory"):
        DraftFile(path, SID).load()


def test_the_file_sits_beside_the_journal_and_is_no_session(tmp_path: Path) -> None:
    journal = Journal.create(data_dir=tmp_path, session_id=SID)
    with journal:
        path = drafts_path(journal.path)
        assert path == tmp_path / f"{SID}.drafts.json"
        DraftFile(path, SID).write(SavedDrafts(ChatLine("hi", 2)))
    assert [s.session_id for s in list_sessions(tmp_path)] == [SID]


# ---------------------------------------------------------------- the restore policy
@given(drafts, specs)
def test_a_fitted_draft_is_valid_for_its_question(draft: Draft, spec: QuestionSpec) -> None:
    fitted = fit_draft(draft, spec)
    assert 0 <= fitted.cursor < row_count(spec)
    assert all(0 <= i < len(spec.options) for i in fitted.checked)
    assert not fitted.checked or spec.multi_select
    assert 0 <= fitted.caret <= len(fitted.custom_text)
    assert fitted.staged is None or answer_problem(spec, fitted.staged) is None
    assert fit_draft(fitted, spec) == fitted


def test_a_valid_draft_comes_back_as_it_was() -> None:
    spec = QuestionSpec(
        "Which?", "Pick", (Option("A"), Option("B"), Option("C")), multi_select=True
    )
    staged = Answer(AnswerKind.MULTI, (0, 2), "also this", "a note")
    draft = Draft(
        cursor=3,
        checked=frozenset({0, 2}),
        custom_text="half an an",
        caret=4,
        notes="why",
        staged=staged,
    )
    assert fit_draft(draft, spec) == draft


def test_text_from_the_file_is_sanitized_before_it_reaches_the_screen() -> None:
    spec = QuestionSpec("Which?", "Pick")
    draft = Draft(custom_text="ok\x1b]0;pwned\x07 \x1b[31mred", caret=99, notes="\x9bn")
    fitted = fit_draft(draft, spec)
    assert fitted.custom_text == "ok red" and fitted.caret == len("ok red")
    assert fitted.notes == "n"


def test_only_questions_still_pending_with_the_same_incarnation_come_back() -> None:
    spec = QuestionSpec("Which?", "Pick", (Option("A"), Option("B")))
    kept, answered, reborn = QuestionRef("q-1", 4), QuestionRef("q-2", 5), QuestionRef("q-3", 6)
    pending = {kept: spec, QuestionRef("q-3", 9): spec}  # q-3 was asked again: incarnation 9
    saved = SavedDrafts(
        ChatLine("unsent", 3),
        tuple(
            SavedDraft(ref, Draft(custom_text=f"typed {ref.id}"))
            for ref in (kept, answered, reborn)
        ),
    )
    plan = plan_restore(saved, pending.get, chat_editor=True)
    assert plan.refs == (kept,) and plan.dropped == 2
    assert plan.drafts[0].draft.custom_text == "typed q-1"
    assert plan.chat == ChatLine("unsent", 3)
    assert plan.notice == (
        "Restored your unsent drafts: the chat line and 1 answer — nothing was sent."
    )
    without_editor = plan_restore(saved, pending.get, chat_editor=False)
    assert without_editor.chat is None
    assert without_editor.notice == "Restored your unsent drafts: 1 answer — nothing was sent."
    nothing = plan_restore(saved, {}.get, chat_editor=False)
    assert nothing.notice is None and nothing.dropped == 3


@given(saved_drafts, st.builds(ChatLine, text=TEXT, caret=SMALL), saved_drafts)
def test_a_write_splices_the_kept_questions_into_encodes_very_file(
    first: SavedDrafts, typed: ChatLine, other: SavedDrafts
) -> None:
    file = DraftFile(Path("unused.drafts.json"), SID)
    assert file.encoded(first) == encode(SID, first)
    same_questions = SavedDrafts(typed, first.questions)  # typing in chat: the same tuple
    assert file.encoded(same_questions) == encode(SID, same_questions)
    assert file.encoded(other) == encode(SID, other)  # other questions: encoded afresh
    assert decode(file.encoded(same_questions), SID) == same_questions
