"""The docs built from the code are current, and what they say is true.

* ``docs/api.md`` and the keys table of ``docs/embedding.md`` are what ``tools/docs_gen.py``
  writes from the tree (``--check``); a changed docstring or binding without a rerun fails.
* The keys table's "in an embedding" column is what an embedder's layer does: over a plain
  ``urwid.Edit`` the layer carries out the rows it owns, and returns every key of the rows
  that are the editor's or the embedder's.
* ``help()`` of a public name stands on its own: no docstring of a public class or of its own
  members sends the reader to a module docstring, ``help(Journal)`` shows no attrs machinery,
  and ``help(LAYER_PALETTE)`` is the palette's.
"""

from __future__ import annotations

import importlib.util
import inspect
import pydoc
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import urwid
from support.panel import ask_async
from support.rig import Rig

import asks
from asks.widgets.keymap import Context, build_keymap
from asks.widgets.keytable import Owner, keys_table, owner
from asks.widgets.layer import AsksLayer

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "tools" / "docs_gen.py"


def docs_gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_gen", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_pages_are_current() -> None:
    done = subprocess.run(
        [sys.executable, str(TOOL), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_check_sees_a_stale_keys_table_and_a_stale_reference() -> None:
    tool = docs_gen()
    page = (ROOT / "docs" / "embedding.md").read_text(encoding="utf-8")
    table = keys_table(build_keymap())
    assert table in page
    stale = page.replace(table, table.replace("| Ctrl+U | panel |", "| Ctrl+X | panel |"))
    assert stale != page
    assert tool.embedding_page(stale) == page
    reference = tool.api_page()
    assert reference == (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    for name in asks.__all__:
        assert f"`{name}" in reference or name == "__version__", name


def test_the_owner_column_is_what_an_embedders_layer_does(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    layer = AsksLayer(rig.host.panel_port, urwid.Edit(), clock=lambda: 0.0)
    for binding in build_keymap().bindings:
        mine = binding.command in layer.commands
        match owner(binding):
            case Owner.LAYER:
                assert mine, binding
            case Owner.PROMPT | Owner.EMBEDDER:
                assert not mine, binding
            case Owner.EDITOR:  # only Esc is watched (a double Esc never interrupts)
                assert not mine or binding.keys == ("esc",), binding
    editor_keys = [
        key
        for binding in build_keymap().bindings
        if owner(binding) in {Owner.EDITOR, Owner.EMBEDDER}
        for key in binding.keys
    ]
    for key in editor_keys:  # the chat has the keys; a plain Edit uses none of these
        assert layer.keypress((80,), key) == key, key
    ask_async(
        rig,
        "c1",
        {"question": "Which?", "header": "Which", "options": [{"label": "A"}, {"label": "B"}]},
    )
    for binding in build_keymap().bindings:
        if owner(binding) is Owner.LAYER and binding.context in {Context.CHAT, Context.GLOBAL}:
            [key] = binding.keys
            assert layer.keypress((80,), key) is None, key  # the toggle, collapse: done here
    rig.journal.close()


def test_help_of_a_public_name_stands_on_its_own() -> None:
    problems = []
    for name in asks.__all__:
        value = getattr(asks, name)
        cls = value if inspect.isclass(value) else type(value)
        if not cls.__module__.startswith("asks"):
            continue
        docs = [(name, inspect.getdoc(cls) or "")]
        docs += [
            (f"{name}.{member}", inspect.getdoc(attribute) or "")
            for member, attribute in vars(cls).items()
            if not member.startswith("_")
        ]
        problems += [where for where, doc in docs if "module docstring" in doc]
    assert not problems, problems
    journal = pydoc.render_doc(asks.Journal, renderer=pydoc.plaintext)
    assert "attrs" not in journal, "help(Journal) shows attrs' generated machinery"
    assert isinstance(asks.LAYER_PALETTE, asks.Palette)
    assert "with_entries" in (inspect.getdoc(type(asks.LAYER_PALETTE)) or "")
