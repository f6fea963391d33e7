"""The REPL in the person's language, for real: ``LANG=de_DE.UTF-8 asks`` under a pty shows
the panel, the status line, /help and the transcript in German, and ``/language zh`` switches
the open panel and the status line to Chinese while the app runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.pty_harness import PtyApp

pytestmark = pytest.mark.e2e

SCRIPT = Path(__file__).parent / "scripts" / "two_async.toml"


@pytest.fixture
def app(tmp_path: Path) -> Iterator[PtyApp]:
    (tmp_path / "config").mkdir()
    env = {
        "LANG": "de_DE.UTF-8",
        "LC_ALL": "",
        "LC_MESSAGES": "",
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
    }
    made = PtyApp(
        ["--data-dir", str(tmp_path / "data"), "--script", str(SCRIPT)], cols=100, rows=30, env=env
    )
    try:
        yield made
    finally:
        made.close()


def test_lang_de_shows_the_repl_in_german_and_language_zh_switches_live(app: PtyApp) -> None:
    app.wait_for(r"Fragen \(2\)")  # the panel's title
    app.wait_for(r"\[One\] Two")  # the model's headers stay as asked
    app.wait_for(r"3\. Etwas eingeben\.")
    app.wait_for(r"Shift\+Tab antworten · Ctrl\+\] einklappen")  # footer hints
    app.wait_for(r"Asks: 2 offen · /asks")  # the status line
    app.wait_for(r"bereit$")  # the agent is idle
    app.wait_for(r"Agent \(scripted\) › TWO-START")
    app.wait_for(r"✔ Ergebnis \(eingereiht\): offen: q-")

    app.type("/help")
    app.press("enter")
    app.wait_for(r"Befehle: /asks \[ID\] offene Fragen öffnen")
    app.wait_for(r"Panel: ↑↓ wählen")

    app.type("/language zh")
    app.press("enter")
    app.wait_for(r"语言: 中文 \(zh\)。")  # the notice, already in the new language
    app.wait_for(r"问题 \(2\)")  # the open panel follows
    app.wait_for(r"3\. 输入内容。")
    app.wait_for(r"Shift\+Tab 回答 · Ctrl\+\] 折叠")
    app.wait_for(r"Asks: 2 个待答 · /asks")
    app.wait_for(r"空闲$")
    assert "Fragen (2)" not in app.text()

    app.type("/language xx")
    app.press("enter")
    app.wait_for(r"未知语言 xx。可用: en, de, es, fr, ja, pt, pt-BR, ru, uk, zh。")
    app.type("/quit")
    app.press("enter")
    assert app.wait_exit() == 0
