"""``y`` / ``n`` at an agent's permission request in the panel (docs/permission-prompts.md).

The same policy as asks' own permission prompt (docs/architecture.md), not a
copy of it: the layer runs these handlers through its
:class:`~asks.widgets.promptkeys.PromptDecisions`, so a printable decision key is held by the
host (:meth:`~asks.core.focus.Focus.hold_decision`) and counts at the pause after it or with
Enter; a printable key before that sends both to the chat (the layer's stray path).

* :meth:`PermissionKeys.guard` — ``y``/``n`` are decision keys only on a pending permission
  request; on any other tab they are returned (printables the row cannot use: strays, as
  before);
* :meth:`PermissionKeys.decisions` — what a delivered decision does: the ``Allow`` or ``Deny``
  row is chosen with the panel's own confirm (:class:`~asks.host.commands.PanelCommand`), so
  its refusals (the first Enter after stray typing, on a question the keys reached on their
  own) hold for ``y`` as for Enter. A decision delivered when the panel no longer has the
  keys, or on another tab than the request it was aimed at, does nothing;
* Enter delivers a held decision at once (the key machine's ``DELIVER_HELD``, carried out by
  the layer); without one it is the panel's Enter.
"""

from __future__ import annotations

from collections.abc import Hashable

from asks.core.model import QuestionRef
from asks.core.permission import ALLOW_INDEX, is_permission
from asks.host.commands import PanelCommand
from asks.host.panelport import PanelPort
from asks.widgets.keymap import Command
from asks.widgets.keys import KeyHandler, KeyPress

DENY_ROW = 1


class PermissionKeys:
    """The panel's decision keys at a permission request (module docstring)."""

    def __init__(self, port: PanelPort) -> None:
        self._port = port
        self._aimed: QuestionRef | None = None  # the request a held decision key was aimed at

    def request_at(self, tab: Hashable | None) -> QuestionRef | None:
        """``tab`` (else the selected tab) if it is a pending permission request."""
        port = self._port
        ref = port.selected if tab is None else tab
        if not isinstance(ref, QuestionRef) or ref not in port.projection.pending:
            return None
        return ref if is_permission(port.projection.brief(ref)) else None

    def decisions(self) -> dict[Command, KeyHandler]:
        """The handlers a delivered decision key runs."""
        return {
            Command.PANEL_ALLOW: self._decide(ALLOW_INDEX),
            Command.PANEL_DENY: self._decide(DENY_ROW),
        }

    def _decide(self, row: int) -> KeyHandler:
        def decide(_press: KeyPress) -> str | None:
            port = self._port
            ref = self.request_at(None)
            if ref is not None and ref == self._aimed and port.focus.keys_to_panel:
                port.set_cursor(row, ref)
                port.command(PanelCommand.CONFIRM, ref)
            return None

        return decide

    def guard(self, held: KeyHandler) -> KeyHandler:
        """``held`` (the decision, held to the pause) on a permission request; else unused."""

        def run(press: KeyPress) -> str | None:
            self._aimed = self.request_at(press.tab)
            return held(press) if self._aimed is not None else press.key

        return run
