"""Keys come from the keymap and are resolved once (widgets/keys.py).

* No widget module compares a key with a string literal, or hands a widget a key name of its
  own (``edit.keypress(size, "enter")``): every key a widget acts on comes from the keymap
  (its lookup, or urwid's own command map for urwid's own widgets). Only the keymap's modules
  name keys.
* Keys are looked up in the keymap (``command_for``) in one place: the layer, and the one
  helper standalone widgets share (``widgets/keys.py``).
* The one handler table of an embedder's layer (a plain ``urwid.Edit`` as chat editor, no
  prompt, no app commands) runs every panel and reply command; the REPL's covers every
  command (tests/test_bindings.py presses every binding through it).
"""

from __future__ import annotations

import ast
from pathlib import Path

import urwid
from support.rig import Rig

from asks.widgets.keymap import Command, Context, build_keymap
from asks.widgets.layer import AsksLayer

WIDGETS = Path(__file__).resolve().parent.parent / "widgets"
KEYMAP_MODULES = {"keymap.py", "keyspec.py"}
NAMED = {"up", "down", "left", "right", "home", "end", "page up", "page down", "enter", "esc"}
NAMED |= {"tab", "backspace", "delete", "insert", "ctrl c", "shift tab", "meta enter"}
KEY_NAMES = NAMED | {key for binding in build_keymap().bindings for key in binding.keys}
RESOLVERS = {"keys.py", "layer.py"}


def _literals(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [s for item in node.elts for s in _literals(item)]
    return []


def _names_a_key(node: ast.AST) -> bool:
    name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", "")
    return "key" in name or "unused" in name


def key_literals(source: str) -> list[tuple[int, str]]:
    """(line, key) of every key name compared with, or passed to a ``keypress`` call. A one
    character literal (``" "``, ``"y"``) is text as often as a key: it counts when compared
    with something named ``key``/``unused``, or sent."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        keyish = True
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            keyish = any(_names_a_key(op) for op in operands)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "keypress":
            operands = list(node.args)
        elif isinstance(node, ast.MatchValue):
            operands = [node.value]
        else:
            continue
        for literal in (s for op in operands for s in _literals(op) if s in KEY_NAMES):
            if keyish or len(literal) > 1:
                found.append((node.lineno, literal))
    return found


def widget_modules() -> list[Path]:
    return sorted(p for p in WIDGETS.rglob("*.py") if p.name not in KEYMAP_MODULES)


def test_the_check_sees_a_key_compared_or_sent() -> None:
    source = (
        "def f(key, edit):\n"
        "    if key == 'up' or key in ('page up', 'x'):\n"
        "        return edit.keypress((3,), 'enter')\n"
        "    match key:\n"
        "        case 'esc':\n"
        "            pass\n"
        "    if press.key == 'y' or ' ' in text or text == 'tab':\n"
        "        pass\n"
        "    return name == '/quit'\n"
    )
    found = [(2, "up"), (2, "page up"), (3, "enter"), (5, "esc"), (7, "y"), (7, "tab")]
    assert key_literals(source) == found


def test_no_widget_module_names_a_key_the_keymap_does_not_give_it() -> None:
    assert len(widget_modules()) > 10
    found = {
        f"{path.relative_to(WIDGETS)}:{line} {key!r}"
        for path in widget_modules()
        for line, key in key_literals(path.read_text(encoding="utf-8"))
    }
    assert found == set()


def test_keys_are_looked_up_in_the_layer_and_the_shared_helper_only() -> None:
    callers = {
        str(path.relative_to(WIDGETS))
        for path in widget_modules()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Attribute) and node.attr == "command_for"
    }
    assert callers == RESOLVERS


def test_an_embedders_layer_runs_every_panel_command_from_its_table(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    layer = AsksLayer(rig.host.panel_port, urwid.Edit(), clock=lambda: 0.0)
    panel_side = {
        b.command for b in layer.keymap.bindings if b.context in (Context.PANEL, Context.REPLY)
    }
    assert panel_side <= set(layer.commands)
    chat_only = {c for c in Command if c.value.startswith("chat.")}
    # the embedder's own editor handles its keys: the layer only watches Esc (the Esc echo)
    assert set(layer.commands) & chat_only == {Command.CHAT_INTERRUPT}
    assert Command.INTERRUPT not in layer.commands  # the app's: Ctrl+C is returned
    rig.journal.close()
