"""Ctrl+G: edit the selected tab's reply (or its notes, when open) in ``$VISUAL``/``$EDITOR``.

The editor is ``$VISUAL``, else ``$EDITOR``, else ``vi`` (a blank variable counts as unset),
split at spaces into a program and its arguments. The draft is written to a private temp
file (``mkstemp``: mode 0600) with a trailing newline (editors add one; it is stripped again),
the screen is suspended while the editor runs under trio — on the terminal, with the person's
own settings (the screen's stop restored them) — and the result — sanitised — becomes the
draft if the same tab is still selected.

An editor that cannot be used changes nothing but the host's notice, one line: a program that
is not found (the screen is not even suspended) or cannot be started, an editor that exits
non-zero or is ended by a signal (what it left in the file is not taken: a non-zero exit is
how editors say "abandon this edit"), a temp file that cannot be written. The draft stays as
it was and the screen comes back.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import trio
import urwid

from asks.core.i18n import _
from asks.core.model import QuestionRef
from asks.host.panelport import PanelPort
from asks.sanitize import sanitize_line, sanitize_text
from asks.widgets.panel import QuestionPanel


class EditorError(Exception):
    """The editor could not be used; ``args[0]`` is the one line to tell the person."""


def editor_command(environ: Mapping[str, str]) -> list[str]:
    """The editor's program and arguments (module docstring)."""
    for name in ("VISUAL", "EDITOR"):
        words = environ.get(name, "").split()
        if words:
            return words
    return ["vi"]


async def edit_externally(
    loop: urwid.MainLoop,
    port: PanelPort,
    panel: QuestionPanel,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Run the external editor on the selected tab's draft (see module docstring)."""
    tab = port.selected
    if not isinstance(tab, QuestionRef):
        return
    notes = panel.notes_open
    draft = port.draft(tab)
    command = editor_command(os.environ if environ is None else environ)
    try:
        edited = await run_editor(loop, command, draft.notes if notes else draft.custom_text)
    except EditorError as failed:
        port.say(str(failed.args[0]))
        return
    if port.selected == tab:
        if notes:
            port.set_notes(edited)
        else:
            port.set_custom_text(edited)


async def run_editor(loop: urwid.MainLoop, command: Sequence[str], text: str) -> str:
    """``text`` as edited by ``command`` (sanitised, without the trailing newline), the
    screen suspended meanwhile; :class:`EditorError` if the editor could not be used."""
    name = sanitize_line(command[0])
    if shutil.which(command[0]) is None:
        raise EditorError(_not_started(name, _("not found")))
    try:
        fd, temp = tempfile.mkstemp(prefix="asks-", suffix=".txt")
    except OSError as exc:
        raise EditorError(_no_file(exc)) from None
    path = Path(temp)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text + "\n" if text else "")
        returncode = await _run_suspended(loop, [*command, str(path)], name)
        if returncode != 0:
            raise EditorError(_ended(name, returncode))
        edited = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise EditorError(_no_file(exc)) from None
    finally:
        path.unlink(missing_ok=True)
    return sanitize_text(edited).rstrip("\n")


async def _run_suspended(loop: urwid.MainLoop, argv: Sequence[str], name: str) -> int:
    """Run ``argv`` on the terminal with the screen stopped; its exit status."""
    loop.screen.stop()
    try:
        # stdin=None: the editor reads the terminal (trio's default is an empty pipe)
        process = await trio.run_process(argv, stdin=None, check=False)
    except OSError as exc:
        raise EditorError(_not_started(name, exc.strerror or str(exc))) from None
    finally:
        loop.screen.start()
        loop.screen.clear()
    return process.returncode


def _not_started(name: str, reason: str) -> str:
    return _("Could not start the editor “{editor}”: {reason} — set $VISUAL or $EDITOR").format(
        editor=name, reason=reason
    )


def _ended(name: str, returncode: int) -> str:
    if returncode < 0:
        try:
            how = signal.Signals(-returncode).name
        except ValueError:
            how = str(-returncode)
        return _("The editor “{editor}” was ended by {signal}; the draft is unchanged.").format(
            editor=name, signal=how
        )
    return _("The editor “{editor}” exited with status {status}; the draft is unchanged.").format(
        editor=name, status=returncode
    )


def _no_file(exc: OSError) -> str:
    return _("The draft could not be handed to the editor: {error}; it is unchanged.").format(
        error=sanitize_line(str(exc))
    )
