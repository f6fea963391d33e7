"""Who carries out each key of the keymap in an embedding, as a table for the docs.

asks' own REPL implements every binding of :mod:`asks.widgets.keymap`. A program embedding
:class:`~asks.widgets.layer.AsksLayer` gets only some of them from asks; the rest are keys of
its own widgets that the keymap names so the layer can route them. :func:`owner` says which,
per binding (the layer's handler table decides the same way: the panel's and the reply
editor's commands and the layer's own three are always there; the chat editor's and the
prompt's come from the widgets passed in, Ctrl+C from the embedder):

* :attr:`Owner.LAYER` — the layer does it in any embedding (the panel, its reply editor, the
  focus toggle, collapse, Ctrl+G);
* :attr:`Owner.EDITOR` — chat-editor keys: the layer hands them to *your* editor; asks' REPL's
  editor implements them (send, history, Ctrl+U, …), a plain ``urwid.Edit`` only what urwid's
  does, and a key nobody uses is returned from ``keypress`` to you (Enter, Esc, PgUp, …);
* :attr:`Owner.PROMPT` — a permission prompt's keys: your ``prompt=`` widget gets them, a
  printable one (``y``, ``n``) only once the person paused after it (or pressed Enter);
* :attr:`Owner.EMBEDDER` — returned to you from ``keypress`` whatever has the keys (Ctrl+C).

:func:`keys_table` renders the table docs/embedding.md shows (``tools/docs_gen.py`` writes it;
a test fails when the page is stale).
"""

from __future__ import annotations

import enum

from asks.widgets.keymap import Binding, Command, Context, Keymap
from asks.widgets.keyspec import join_keys, pretty_key

__all__ = ["Owner", "keys_table", "owner"]

# carried out by the layer itself wherever they are bound: the focus toggle, collapse, Ctrl+G,
# and the prompt's confirm key (it delivers a held y/n to your prompt at once)
LAYER_OWN = frozenset(
    {Command.FOCUS_TOGGLE, Command.COLLAPSE, Command.PANEL_EDITOR, Command.PROMPT_CONFIRM}
)
WHERE = {
    Context.GLOBAL: "everywhere",
    Context.CHAT: "chat editor",
    Context.PANEL: "panel, on a row",
    Context.REPLY: "panel, typing an answer",
    Context.PROMPT: "permission prompt",
}
BOTH = "panel"  # a binding of the rows and the reply editor alike


class Owner(enum.StrEnum):
    """Who carries out a key in an embedding (module docstring)."""

    LAYER = "the layer"
    EDITOR = "your editor, else returned to you"
    PROMPT = "your prompt widget, y/n after a pause"
    EMBEDDER = "you (returned from keypress)"


def owner(binding: Binding) -> Owner:
    """Who carries out ``binding`` in an embedding."""
    if binding.command in LAYER_OWN or binding.context in {Context.PANEL, Context.REPLY}:
        return Owner.LAYER
    if binding.context is Context.CHAT:
        return Owner.EDITOR
    if binding.context is Context.PROMPT:
        return Owner.PROMPT
    return Owner.EMBEDDER


def _rows(keymap: Keymap) -> list[tuple[Binding, str, list[str]]]:
    """The bindings in table order with where they apply and their keys: a command bound
    alike on the panel's rows and in its reply editor is one row; consecutive bindings with
    the same label, context and owner (the six digit jumps, ↑ and ↓) share one."""
    rows: list[tuple[Binding, str, list[str]]] = []
    row_of: dict[tuple[Command, tuple[str, ...]], int] = {}
    for binding in keymap.bindings:
        if not binding.keys:
            continue
        alike = row_of.get((binding.command, binding.keys))
        if binding.context is Context.REPLY and alike is not None:
            first, _where, keys = rows[alike]
            rows[alike] = (first, BOTH, keys)
            continue
        keys = [pretty_key(key) for key in binding.keys]
        last = rows[-1][0] if rows else None
        same = last is not None and (last.help, last.context, owner(last)) == (
            binding.help,
            binding.context,
            owner(binding),
        )
        if not same:
            rows.append((binding, WHERE[binding.context], []))
        rows[-1][2].extend(keys)
        if binding.context is Context.PANEL:
            row_of[(binding.command, binding.keys)] = len(rows) - 1
    return rows


def keys_table(keymap: Keymap) -> str:
    """The keymap as a Markdown table: key, where, what (the hint's label), who does it."""
    lines = ["| key | where | what | in an embedding |", "|---|---|---|---|"]
    for binding, where, keys in _rows(keymap):
        shown = join_keys(keys).replace("|", "\\|")
        lines.append(f"| {shown} | {where} | {binding.help} | {owner(binding)} |")
    return "\n".join(lines) + "\n"
