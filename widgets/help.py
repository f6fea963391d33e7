"""``/help``: the chat commands, then what each context's keys do (from the keymap).

What it lists depends on whom the chat talks to:

* **an agent of the session's own** (``asks``): the slash commands, and every context's keys
  (chat, panel, reply editor, permission prompt), as the keymap binds them;
* **no agent** (``asks hub``: only agents outside asks ask): the chat writes ``@name`` notes
  to those agents, and ``/asks @name`` opens one agent's questions, so both are listed; keys
  that do nothing there are not — there is no turn to interrupt (Esc in the chat) and no
  permission prompt — and Ctrl+C, which has no turn to stop, is listed as what it does there:
  twice quits.

Nothing advertised does nothing (the keymap's rule, :mod:`asks.widgets.keymap`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from asks.core.i18n import N_, _
from asks.widgets.keymap import Command, Context, Keymap
from asks.widgets.panel.footer import localized_hints

CONTEXT_NAMES: Final = {
    Context.CHAT: N_("chat"),
    Context.PANEL: N_("panel"),
    Context.REPLY: N_("reply editor"),
    Context.PROMPT: N_("permission prompt"),
}
NO_AGENT_UNUSED: Final = frozenset({Command.CHAT_INTERRUPT})  # no turn to interrupt
NO_AGENT_CONTEXTS: Final = (Context.CHAT, Context.PANEL, Context.REPLY)  # no permission prompt
NO_AGENT_LABELS: Final = {Command.INTERRUPT: N_("quit (twice)")}


def help_text(keymap: Keymap, *, agent: bool = True) -> str:
    """The ``/help`` text (module docstring); ``agent``: the session has an agent of its own."""
    if agent:
        lines = [
            _(
                "Commands: /asks [ID] open pending questions · /web answer from a browser · "
                "/language [CODE] show or switch the language · /help · /quit"
            )
        ]
        contexts = tuple(CONTEXT_NAMES)
    else:
        lines = [
            _(
                "Commands: /asks [ID] open pending questions · /asks @name one agent's "
                "questions · /web answer from a browser · /language [CODE] show or switch "
                "the language · /help · /quit"
            ),
            _("@name text: a note to that agent, given with its next asks call (Tab completes)"),
        ]
        contexts = NO_AGENT_CONTEXTS
    for context in contexts:
        shown = help_line(keymap, context, agent=agent)
        lines.append(f"{_(CONTEXT_NAMES[context])}: {shown}")
    return "\n".join(lines)


def help_line(keymap: Keymap, context: Context, *, agent: bool = True) -> str:
    """:meth:`Keymap.help_line` with its labels in the language in force; without an agent,
    without the keys that do nothing there (module docstring)."""
    commands = [b.command for b in keymap.bindings if b.context is context]
    commands += [b.command for b in keymap.bindings if b.context is Context.GLOBAL]
    labels: Mapping[Command, str] = {}
    if not agent:
        commands = [c for c in commands if c not in NO_AGENT_UNUSED]
        labels = NO_AGENT_LABELS
    return localized_hints(keymap, context, list(dict.fromkeys(commands)), labels, every_key=True)
