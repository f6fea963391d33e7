"""How the person answers questions on the surface in front of them, as words for the transcript
and for scripts (pure: no keymap, no terminal).

The agent layer never reads the keymap: the composition root builds one :class:`AnswerHints`
for the surface it runs — the full screen from its keymap (``asks/widgets/hints.py``: the
configured ``focus_toggle_key``, Alt+D, Alt+L, the ``collapse_key``), line mode
:data:`LINE_HINTS` (no panel: ``/asks``, ``/decline``, ``/later``) — and hands it to the agent
loop, the transcript rebuild and the scripted model. Key names arrive in their printed form
(``Shift+Tab``, ``F2``).

* :func:`how_to_answer` — ``Shift+Tab or /asks`` (a panel), ``/asks`` (line mode): the end of
  every "pending" line of a result.
* :func:`answer_sentence` — one sentence telling where a queued question waits and how to
  answer it (the tour's ``{answer_hint}``).
* :func:`collapse_sentence` — one sentence on the collapse key, ``""`` without a panel or with
  ``collapse_key = "off"`` (the tour's ``{collapse_hint}``).

Everything is translated when called (the language in force, asks/core/i18n.py).
"""

from __future__ import annotations

from typing import Final

import attrs

from asks.core.i18n import _


@attrs.frozen
class AnswerHints:
    """What reaches the questions on one surface: ``panel_key`` enters the panel (``None``: no
    panel, line mode); ``decline`` and ``defer`` end a blocking question's wait from it (a key or
    a command); ``collapse`` hides and shows the panel (``None``: no such key)."""

    panel_key: str | None
    decline: str
    defer: str
    collapse: str | None = None


LINE_HINTS: Final = AnswerHints(None, "/decline", "/later")


def how_to_answer(hints: AnswerHints) -> str:
    """``Shift+Tab or /asks`` with a panel, ``/asks`` without one."""
    if hints.panel_key is None:
        return "/asks"
    return _("{key} or /asks").format(key=hints.panel_key)


def answer_sentence(hints: AnswerHints) -> str:
    """Where a queued question waits and how to answer it, as one sentence."""
    if hints.panel_key is None:
        return _("Type /asks to see it and /asks ID to answer it, whenever you like.")
    return _(
        "It waits in the panel above the editor: press {key} (or type /asks) to answer "
        "it whenever you like."
    ).format(key=hints.panel_key)


def collapse_sentence(hints: AnswerHints) -> str:
    """``Ctrl+] hides the panel and brings it back.``, or ``""`` (no panel, no key)."""
    if hints.panel_key is None or hints.collapse is None:
        return ""
    return _("{key} hides the panel and brings it back.").format(key=hints.collapse)
