"""The question panel's compact modes, drawn while it is not expanded.

* **collapsed** (``host.mode`` is ``COLLAPSED``): one dim row, ``▸ 3 questions pending · Ctrl+]
  expand`` (the focus toggle's ``open`` when collapse is unbound);
* **paused** (``PAUSED`` while the panel does not have the keyboard): a two-row card, the
  pending count with the first three questions' headers (``· +N`` for the rest) and the keys
  that answer or collapse.

Both read only the tabs' first few entries and the count the panel keeps per tab list, so a
refresh costs the same with 1 or 1,000 pending questions. Keys come from the keymap; labels
are translated where drawn; headers are sanitised.
"""

from __future__ import annotations

import itertools

import urwid

from asks.core.i18n import N_, ngettext
from asks.core.model import QuestionRef
from asks.host.panelport import PanelPort
from asks.sanitize import sanitize_line
from asks.widgets.keymap import Command, Context, Keymap
from asks.widgets.panel.footer import localized_hints
from asks.widgets.panel.markup import text_widget

HEADERS_SHOWN = 3  # a paused card names this many questions, then "+N"


def collapsed(keymap: Keymap, count: int) -> urwid.Widget:
    """The collapsed panel's one row for ``count`` pending questions."""
    pending = ngettext("{count} question pending", "{count} questions pending", count)
    hint = localized_hints(
        keymap, Context.CHAT, [Command.COLLAPSE], {Command.COLLAPSE: N_("expand")}
    )
    hint = hint or localized_hints(
        keymap, Context.CHAT, [Command.FOCUS_TOGGLE], {Command.FOCUS_TOGGLE: N_("open")}
    )
    line = f"▸ {pending.format(count=count)} · {hint}"
    return text_widget(("panel.dim", line), "ellipsis")


def paused(host: PanelPort, keymap: Keymap, count: int) -> urwid.Widget:
    """The paused panel's card for ``count`` pending questions (module docstring)."""
    refs = (t for t in host.tabs if isinstance(t, QuestionRef))
    first = list(itertools.islice(refs, HEADERS_SHOWN))
    headers = " · ".join(sanitize_line(host.question(r).spec.header) for r in first)
    more = f" · +{count - HEADERS_SHOWN}" if count > HEADERS_SHOWN else ""
    pending = ngettext("{count} question pending:", "{count} questions pending:", count)
    hint = localized_hints(
        keymap,
        Context.CHAT,
        [Command.FOCUS_TOGGLE, Command.COLLAPSE],
        {Command.FOCUS_TOGGLE: N_("to answer")},
    )
    return urwid.Pile(
        [
            text_widget(
                [
                    ("panel.card", f"‖ {pending.format(count=count)} "),
                    ("panel.title", headers + more),
                ],
                "ellipsis",
            ),
            text_widget(("panel.hint", f"  {hint}"), "ellipsis"),
        ]
    )
