"""The third embedding, demos/embed_notes.py, played under a real pty.

Written by someone who did not write asks, from the docs alone (docs/embedding.md lists what
they had to guess): a notes REPL with its own header whose "agent" is a plain program. A
blocking question answered with the keys, an async one asked while the person keeps typing
notes (no key goes to the panel), ``/cancel`` withdrawing it, ``/quit``.
"""

from __future__ import annotations

from pathlib import Path

from support.pty_harness import ROOT, PtyApp

DEMO = ROOT / "demos" / "embed_notes.py"


def test_the_notes_repl_publishes_asks_later_and_cancels(tmp_path: Path) -> None:
    app = PtyApp([str(tmp_path)], program=[str(DEMO)], cwd=tmp_path, cols=100, rows=24)
    try:
        app.wait_for("Type a note and Enter")
        app.type("ship it")
        app.press("enter")
        app.wait_for(r"• ship it")
        app.type("/publish")
        app.press("enter")
        app.wait_for(r"agent: waiting for you")
        app.wait_for(r"keys: question “Publish”")  # after the typing pause
        app.press("down", "enter")
        app.wait_for(r"publisher: published 'ship it' to newsletter")
        app.type("/later")
        app.press("enter")
        app.wait_for(r"tagger: asked q-")
        app.type("more")  # the async question never takes the keys
        app.press("enter")
        app.wait_for(r"• more")
        app.type("/cancel")
        app.press("enter")
        app.wait_for(r"agent: withdrew q-\S+ \(Which tag for the note 'ship it'\?\)")
        app.type("/quit")
        app.press("enter")
        assert app.wait_exit() == 0
    finally:
        app.close()
    assert list(tmp_path.glob("*.jsonl")), "no session journal"
