"""Starting the real ``asks`` under a pty with private folders, and reading its journal.

Every app gets its own ``--data-dir`` and an empty ``XDG_CONFIG_HOME`` (and ``XDG_DATA_HOME``)
under the test's temporary folder; :meth:`Launcher.close` (the ``launch`` fixture of
tests/conftest.py) ends every app it started.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support.paths import SCRIPTS
from support.pty_harness import PtyApp

Record = dict[str, Any]  # one journal line


class Launcher:
    """Starts apps with a private data dir and config home; closes every one at the end."""

    def __init__(self, tmp_path: Path) -> None:
        self.data_dir = tmp_path / "data"
        self.config_home = tmp_path / "config"
        self.config_home.mkdir()
        self.env = {
            "XDG_CONFIG_HOME": str(self.config_home),
            "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        }
        self.apps: list[PtyApp] = []

    def start(
        self,
        *args: str,
        script: str | None = None,
        cols: int = 100,
        rows: int = 30,
        typing_guard: float | None = None,
    ) -> PtyApp:
        """``asks ARGS`` on a ``cols`` × ``rows`` pty; ``script``: a file of tests/scripts;
        ``typing_guard``: the app's ``[ui] typing_guard`` (a config file of its own)."""
        argv = ["--data-dir", str(self.data_dir)]
        if script is not None:
            argv += ["--script", str(SCRIPTS / script)]
        if typing_guard is not None:
            config = self.config_home / f"guard-{len(self.apps)}.toml"
            config.write_text(f"[ui]\ntyping_guard = {typing_guard}\n", encoding="utf-8")
            argv += ["--config", str(config)]
        app = PtyApp([*argv, *args], cols=cols, rows=rows, env=self.env)
        if typing_guard is not None:
            app.typing_guard = typing_guard
        self.apps.append(app)
        return app

    def close(self) -> None:
        for app in self.apps:
            app.close()

    def journal(self) -> Path:
        (path,) = self.data_dir.glob("*.jsonl")
        return path

    def records(self) -> list[Record]:
        return [json.loads(line) for line in self.journal().read_text().splitlines() if line]


# ---------------------------------------------------------------------------- the journal
def question_id(records: list[Record], text: str) -> str:
    for record in records:
        if record["type"] == "group_asked":
            for question in record["questions"]:
                if question["spec"]["question"] == text:
                    return str(question["ref"]["id"])
    raise AssertionError(f"no question {text!r} in the journal")


def resolutions(records: list[Record], qid: str) -> list[Record]:
    """Every saved resolution (answer or decline) of question ``qid``, in journal order."""
    return [
        resolution
        for record in records
        if record["type"] == "resolved"
        for resolution in record["resolutions"]
        if resolution["ref"]["id"] == qid
    ]


def user_messages(records: list[Record]) -> list[str]:
    return [
        str(r["content"]) for r in records if r["type"] == "chat_message" and r["role"] == "user"
    ]


def count_receipts(records: list[Record], qid: str) -> int:
    """How many ``feedback_delivered`` lines name question ``qid``."""
    return sum(
        1
        for r in records
        if r["type"] == "feedback_delivered"
        for ref in r["delivered"]
        if ref["id"] == qid
    )
