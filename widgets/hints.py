"""The full screen's :class:`~asks.agent.hints.AnswerHints`, generated from its keymap: the key
that enters the panel from chat (``focus_toggle_key``), the panel's decline and defer keys and
the collapse key (none when ``collapse_key = "off"``), each in its printed form (``F2``)."""

from __future__ import annotations

from asks.agent.hints import AnswerHints
from asks.widgets.keymap import Command, Context, Keymap, pretty_key


def panel_hints(keymap: Keymap) -> AnswerHints:
    """The hints of a screen whose keys are ``keymap`` (module docstring)."""

    def key(context: Context, command: Command) -> str | None:
        found = keymap.key_in(context, command)
        return None if found is None else pretty_key(found)

    decline, defer = (
        key(Context.PANEL, Command.PANEL_DECLINE),
        key(Context.PANEL, Command.PANEL_DEFER),
    )
    if decline is None or defer is None:  # the table binds both (a test presses them)
        raise ValueError("the keymap has no decline or defer key in the panel")
    return AnswerHints(
        key(Context.CHAT, Command.FOCUS_TOGGLE),
        decline,
        defer,
        key(Context.GLOBAL, Command.COLLAPSE),
    )
