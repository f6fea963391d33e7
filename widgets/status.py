"""The status line: one row under the chat editor.

Left, in this order (parts joined by `` · ``; the row is cut with an ellipsis when too narrow,
so the most important part comes first):

1. ``⚠ storage unconfirmed — answers are not being saved`` while the journal's storage state is
   :attr:`~asks.store.journal.StorageState.UNCONFIRMED` (attribute ``status.warning``);
2. the questions: ``Asks: N pending`` (``Asks: none pending`` when there are none), then
   ``M saved feedback`` when saved answers wait for delivery, then the ``/asks`` hint while
   questions are pending;
3. where the keys go (``status.keys``, the one answer), while questions are pending or a
   prompt is up: ``keys: chat``, ``keys: question “Lint”``, ``keys: Review``, ``keys: prompt``,
   ``keys: editor``; while a claim holds the keys back until a pause, followed by
   ``— “Target” waits for a pause`` (``— the prompt waits for a pause`` while a prompt
   holds them back). It is drawn from the same state as the cursor and the
   panel's border (:meth:`asks.core.focus.Focus.keyboard`), so the three agree. A question
   another agent asked (it has a source label: an agent asking through the hub) names that
   agent: ``keys: question “Canary” · builder``, ``— “Target” from planner waits for a
   pause`` (the session's own agent is not named: with one agent the name is noise);
4. the host's notice, sanitised to one line (``status.notice``);
5. ``extra`` from the app (sanitised to one line).

Right: the agent state, ``idle`` or ``working…`` (nothing when no agent runs: ``asks hub``).

The questions' count names how many agents asked them when some asked through the hub:
``Asks: 3 pending from 2 agents``.

The widget only draws what :meth:`StatusLine.update` is given; it never reads the host itself.
"""

from __future__ import annotations

from typing import Final

import urwid

from asks.agent.loop import AgentState
from asks.core.focus import KeysTo
from asks.core.i18n import N_, _, ngettext
from asks.host.stats import HostStatistics, KeysStatus
from asks.sanitize import sanitize_line
from asks.store.journal import StorageState

Markup = list[tuple[str, str] | str]

SEPARATOR: Final = " · "
PROMPT_WAITS: Final = N_("the prompt waits for a pause")
STORAGE_WARNING: Final = N_("⚠ storage unconfirmed — answers are not being saved")
AGENT_LABELS: Final = {AgentState.IDLE: N_("idle"), AgentState.WORKING: N_("working…")}
KEYS_LABELS: Final = {
    KeysTo.CHAT: N_("keys: chat"),
    KeysTo.EDITOR: N_("keys: editor"),
    KeysTo.PROMPT: N_("keys: prompt"),
}

PALETTE: Final = (
    ("status", "light gray", "dark blue", "default"),
    ("status.asks", "white,bold", "dark blue", "bold"),
    ("status.hint", "light cyan", "dark blue", "default"),
    ("status.warning", "yellow,bold", "dark red", "bold,standout"),
    ("status.keys", "white", "dark blue", "default"),
    ("status.notice", "yellow", "dark blue", "default"),
    ("status.idle", "light gray", "dark blue", "default"),
    ("status.working", "light green,bold", "dark blue", "bold"),
)


def asks_markup(stats: HostStatistics) -> Markup:
    """``Asks: 2 pending · 1 saved feedback · /asks`` (see module docstring)."""
    pending = stats.pending
    count = (
        ngettext("Asks: {count} pending", "Asks: {count} pending", pending).format(count=pending)
        if pending
        else _("Asks: none pending")
    )
    if pending and (agents := stats.pending_agents):
        count += " " + ngettext("from {count} agent", "from {count} agents", agents).format(
            count=agents
        )
    markup: Markup = [("status.asks", count)]
    if saved := stats.saved_undelivered:
        feedback = ngettext("{count} saved feedback", "{count} saved feedback", saved)
        markup += [SEPARATOR, feedback.format(count=saved)]
    if stats.pending:
        markup += [SEPARATOR, ("status.hint", "/asks")]
    return markup


def keys_text(keys: KeysStatus) -> str:
    """``keys: question “Lint”``, ``keys: chat — “Target” waits for a pause`` (docstring)."""
    if keys.to is not KeysTo.PANEL:
        text = _(KEYS_LABELS[keys.to])
    elif keys.question is not None:
        text = _("keys: question “{name}”").format(name=sanitize_line(keys.question))
    else:
        text = _("keys: {name}").format(name=_("Review"))
    if keys.to is KeysTo.PANEL and keys.agent:
        text = f"{text}{SEPARATOR}{sanitize_line(keys.agent)}"
    if keys.prompt_waiting:
        return f"{text} — {_(PROMPT_WAITS)}"
    if keys.waiting is not None:
        name = sanitize_line(keys.waiting)
        if keys.waiting_agent:
            waits = _("“{name}” from {agent} waits for a pause").format(
                name=name, agent=sanitize_line(keys.waiting_agent)
            )
        else:
            waits = _("“{name}” waits for a pause").format(name=name)
        text = f"{text} — {waits}"
    return text


def left_markup(stats: HostStatistics, extra: str = "") -> Markup:
    """Everything on the left of the row, most important first."""
    markup: Markup = []
    if stats.storage is StorageState.UNCONFIRMED:
        markup += [("status.warning", _(STORAGE_WARNING)), SEPARATOR]
    markup += asks_markup(stats)
    if stats.keys is not None:
        markup += [SEPARATOR, ("status.keys", keys_text(stats.keys))]
    notice = sanitize_line(stats.notice or "").strip()
    if notice:
        markup += [SEPARATOR, ("status.notice", notice)]
    extra = sanitize_line(extra).strip()
    if extra:
        markup += [SEPARATOR, extra]
    return markup


class StatusLine(urwid.WidgetWrap["urwid.AttrMap[urwid.Columns]"]):
    """One row: questions and warnings on the left, the agent state on the right."""

    def __init__(self) -> None:
        self._left = urwid.Text("", wrap="ellipsis")
        self._right = urwid.Text("", align="right", wrap="clip")
        columns = urwid.Columns([self._left, ("pack", self._right)], dividechars=1)
        super().__init__(urwid.AttrMap(columns, "status"))

    def update(self, stats: HostStatistics, agent_state: AgentState, extra: str = "") -> None:
        self._left.set_text(left_markup(stats, extra))
        state = AgentState(agent_state)
        label = AGENT_LABELS.get(state)
        self._right.set_text((f"status.{state.value}", _(label)) if label is not None else "")

    @property
    def left_text(self) -> str:
        """The plain text of the left part (for tests and line-mode output)."""
        return str(self._left.text)

    @property
    def right_text(self) -> str:
        return str(self._right.text)

    def selectable(self) -> bool:
        return False
