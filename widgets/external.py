"""Ctrl+G: edit the selected tab's reply (or its notes, when open) in ``$VISUAL``/``$EDITOR``.

The draft is written to a private temp file (``mkstemp``: mode 0600) with a trailing newline
(editors add one; it is stripped again), the screen is suspended while the editor runs under
trio — on the terminal, with the person's own settings (the screen's stop restored them) —
and the result — sanitised — becomes the draft if the same tab is still selected.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

import trio
import urwid

from asks.core.model import QuestionRef
from asks.host.panelport import PanelPort
from asks.sanitize import sanitize_text
from asks.widgets.panel import QuestionPanel


async def edit_externally(
    loop: urwid.MainLoop,
    port: PanelPort,
    panel: QuestionPanel,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Run the external editor on the selected tab's draft (see module docstring)."""
    env = os.environ if environ is None else environ
    editor = env.get("VISUAL") or env.get("EDITOR") or "vi"
    tab = port.selected
    if not isinstance(tab, QuestionRef):
        return
    notes = panel.notes_open
    draft = port.draft(tab)
    fd, name = tempfile.mkstemp(prefix="asks-", suffix=".txt")
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            text = draft.notes if notes else draft.custom_text
            f.write(text + "\n" if text else "")
        loop.screen.stop()
        try:
            # stdin=None: the editor reads the terminal (trio's default is an empty pipe)
            await trio.run_process([*editor.split(), str(path)], stdin=None, check=False)
        finally:
            loop.screen.start()
        edited = sanitize_text(path.read_text(encoding="utf-8")).rstrip("\n")
    finally:
        path.unlink(missing_ok=True)
    if port.selected == tab:
        if notes:
            port.set_notes_nowait(edited)
        else:
            port.set_custom_text_nowait(edited)
    loop.screen.clear()
