"""The question panel's compact modes, drawn while it is not expanded.

* **collapsed** (``host.mode`` is ``COLLAPSED``): one dim row, ``▸ 3 questions pending · Ctrl+]
  expand`` (the focus toggle's ``open`` when collapse is unbound); when other agents asked
  (questions with a source label), who: ``▸ 3 questions pending from builder, planner · …``
  (the agents in the panel's order; the session's own agent is not named);
* **paused** (``PAUSED`` while the panel does not have the keyboard): a two-row card, the
  pending count with the first three questions' headers (``· +N`` for the rest) and the keys
  that answer or collapse.

Both read only the tabs' first few entries and the count the panel keeps per tab list, so a
refresh costs the same with 1 or 1,000 pending questions. Keys come from the keymap; labels
are translated where drawn; headers are sanitised.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import urwid

from asks.core.i18n import N_, _, ngettext
from asks.core.model import QuestionRef
from asks.host.panelport import PanelPort
from asks.sanitize import sanitize_line
from asks.widgets.keymap import Command, Context, Keymap
from asks.widgets.panel.footer import localized_hints
from asks.widgets.panel.markup import text_widget

HEADERS_SHOWN = 3  # a paused card names this many questions, then "+N"


def collapsed(keymap: Keymap, count: int, agents: Sequence[str] = ()) -> urwid.Widget:
    """The collapsed panel's one row for ``count`` pending questions asked by ``agents``
    (labels, in the panel's order; empty: only the session's own agent asked)."""
    pending = ngettext("{count} question pending", "{count} questions pending", count)
    pending = pending.format(count=count)
    if agents:
        names = ", ".join(sanitize_line(agent) for agent in agents)
        pending = _("{pending} from {agents}").format(pending=pending, agents=names)
    hint = localized_hints(
        keymap, Context.CHAT, [Command.COLLAPSE], {Command.COLLAPSE: N_("expand")}
    )
    hint = hint or localized_hints(
        keymap, Context.CHAT, [Command.FOCUS_TOGGLE], {Command.FOCUS_TOGGLE: N_("open")}
    )
    line = f"▸ {pending} · {hint}"
    return text_widget(("panel.dim", line), "ellipsis")


def paused(host: PanelPort, keymap: Keymap, count: int) -> urwid.Widget:
    """The paused panel's card for ``count`` pending questions (module docstring)."""
    refs = (t for t in host.tabs if isinstance(t, QuestionRef))
    first = list(itertools.islice(refs, HEADERS_SHOWN))
    headers = " · ".join(_header(host, r) for r in first)
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


def _header(host: PanelPort, ref: QuestionRef) -> str:
    """A question's header on the paused card, with who asked it if another agent did."""
    question = host.question(ref)
    header = sanitize_line(question.spec.header)
    return f"{header} ({sanitize_line(question.source)})" if question.source else header
