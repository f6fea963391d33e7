"""Removing sessions: ``asks sessions rm ID`` / ``--prune AGE`` (the real command in a child
process) and the embedder's API (asks/store/prune.py), on real journals: pending questions
and undelivered answers are read from the journal's projection, a session held open by a
writer (its ``flock``) is never removed, every file a session writes goes with it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.pty_harness import ROOT

from asks.host.commands import PanelCommand
from asks.host.host import QuestionHost
from asks.store.entries import ChatMessage, SessionMode
from asks.store.files import SessionNotFound
from asks.store.journal import Journal
from asks.store.prune import (
    SESSION_SUFFIXES,
    Outcome,
    Verdict,
    parse_age,
    prune_sessions,
    remove_session,
    session_files,
)

OLD = 1_000_000_000.0  # a modification time long ago
OPTIONS = [{"label": "A"}, {"label": "B"}]


def asks(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(tmp / "config")}
    return subprocess.run(
        [sys.executable, "-m", "asks", "--data-dir", str(tmp / "data"), "sessions", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def done(data: Path, session_id: str) -> None:
    """A session with chat only; plus a drafts file, a checkpoint and an earlier version's
    leftover temporary of its replay index."""
    with Journal.create(data_dir=data, session_id=session_id, mode=SessionMode.INTERACTIVE) as j:
        j.append(ChatMessage("user", "hello"))
    (data / f"{session_id}.drafts.json").write_bytes(b"{}")
    (data / f"{session_id}.jsonl.checkpoint").write_bytes(b"")
    (data / f"{session_id}.jsonl.idx.tmp").write_bytes(b"")


def asking(data: Path, session_id: str, *, save_one: bool) -> None:
    """A session with two questions pending; ``save_one``: the first answered, saved, not yet
    delivered to the agent (so one pending and one undelivered)."""
    with Journal.create(data_dir=data, session_id=session_id, mode=SessionMode.INTERACTIVE) as j:
        host = QuestionHost(j)
        for n in range(2):
            host.agent_port.start_call(
                f"c{n}",
                {
                    "blocking": False,
                    "questions": [{"question": f"Q{n}?", "header": "H", "options": OPTIONS}],
                },
            )
        if save_one:
            host.panel_port.enter_panel()
            host.panel_port.command(PanelCommand.CONFIRM)


def names(data: Path) -> set[str]:
    return {p.name for p in data.iterdir()}


def test_every_file_of_a_done_session_is_removed_and_no_other(tmp_path: Path) -> None:
    done(tmp_path, "a")
    done(tmp_path, "b")
    files = {p.name for p in session_files(tmp_path, "a")}
    assert {"a.jsonl", "a.jsonl.checkpoint", "a.drafts.json", "a.jsonl.idx.tmp"} <= files
    assert session_files(tmp_path, "a")[-1].name == "a.jsonl"  # the journal last
    assert remove_session("a", data_dir=tmp_path) == Outcome("a", Verdict.REMOVED)
    assert names(tmp_path) == {p.name for p in session_files(tmp_path, "b")}
    assert all(not name.startswith("a.") for name in names(tmp_path))


def test_pending_and_undelivered_keep_a_session_unless_forced(tmp_path: Path) -> None:
    asking(tmp_path, "q", save_one=True)
    before = names(tmp_path)
    assert remove_session("q", data_dir=tmp_path) == Outcome("q", Verdict.UNFINISHED, 1, 1)
    assert names(tmp_path) == before
    forced = remove_session("q", data_dir=tmp_path, force=True)
    assert forced == Outcome("q", Verdict.REMOVED, 1, 1)
    assert names(tmp_path) == set()


def test_a_session_open_in_a_writer_is_never_removed(tmp_path: Path) -> None:
    done(tmp_path, "open")
    journal, _records = Journal.open("open", data_dir=tmp_path)
    with journal:
        outcome = remove_session("open", data_dir=tmp_path, force=True)
        assert outcome == Outcome("open", Verdict.LOCKED)
        assert {"open.jsonl", "open.drafts.json"} <= names(tmp_path)
    assert remove_session("open", data_dir=tmp_path).verdict is Verdict.REMOVED


def test_prune_takes_only_old_finished_sessions(tmp_path: Path) -> None:
    done(tmp_path, "old")
    done(tmp_path, "new")
    asking(tmp_path, "oldq", save_one=False)
    for sid in ("old", "oldq"):
        os.utime(tmp_path / f"{sid}.jsonl", (OLD, OLD))
    outcomes = prune_sessions(86400, OLD + 2 * 86400, data_dir=tmp_path)
    assert sorted(outcomes, key=lambda o: o.session_id) == [
        Outcome("old", Verdict.REMOVED),
        Outcome("oldq", Verdict.UNFINISHED, 2, 0),
    ]
    assert not any(n.startswith("old.") for n in names(tmp_path))
    assert {"new.jsonl", "oldq.jsonl"} <= names(tmp_path)


def test_unknown_sessions_and_ages() -> None:
    with pytest.raises(SessionNotFound):
        remove_session("none", data_dir=Path("/nonexistent-asks-dir"))
    assert [parse_age(a) for a in ("45s", "90m", "12h", "30d", "2w")] == [
        45,
        5400,
        43200,
        2592000,
        1209600,
    ]
    for bad in ("", "30", "d", "1.5d", "-1d", "3y"):
        with pytest.raises(ValueError, match="invalid age"):
            parse_age(bad)
    assert SESSION_SUFFIXES[-1] == ".jsonl"


def test_cli_rm_says_what_it_kept_and_why(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (tmp_path / "config").mkdir()
    done(data, "fine")
    asking(data, "busy", save_one=True)
    ran = asks(tmp_path, "rm", "fine", "busy", "ghost")
    assert ran.returncode == 1
    assert ran.stdout == "removed 'fine'\n"
    assert "kept 'busy': 1 pending, 1 undelivered (--force removes it)" in ran.stderr
    assert "no session 'ghost'" in ran.stderr
    assert "busy.jsonl" in names(data) and "fine.jsonl" not in names(data)
    forced = asks(tmp_path, "rm", "busy", "--force")
    assert (forced.returncode, forced.stdout) == (0, "removed 'busy' (1 pending, 1 undelivered)\n")
    assert names(data) == set()


def test_cli_never_removes_a_running_session(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (tmp_path / "config").mkdir()
    done(data, "live")
    os.utime(data / "live.jsonl", (OLD, OLD))
    journal, _records = Journal.open("live", data_dir=data)
    with journal:
        ran = asks(tmp_path, "--prune", "1d", "--force")
        assert ran.returncode == 1
        assert "kept 'live': it is open in a running asks" in ran.stderr
    assert "live.jsonl" in names(data)


def test_cli_prune_by_age(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (tmp_path / "config").mkdir()
    done(data, "old")
    done(data, "new")
    os.utime(data / "old.jsonl", (OLD, OLD))
    ran = asks(tmp_path, "--prune", "30d")
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, "removed 'old'\n", "")
    assert not any(n.startswith("old.") for n in names(data)) and "new.jsonl" in names(data)
    again = asks(tmp_path, "--prune", "30d")
    assert again.returncode == 0 and again.stdout.startswith("No sessions older than 30d")


def test_cli_refuses_bad_words(tmp_path: Path) -> None:
    (tmp_path / "config").mkdir()
    for words in (["--prune", "soon"], ["rm"], ["delete", "x"], ["--force"]):
        ran = asks(tmp_path, *words)
        assert ran.returncode == 2, (words, ran)
        assert ran.stderr.startswith("asks: "), ran.stderr
