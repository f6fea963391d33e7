"""The keymap table (widgets/keymap.py): commands are real, keys never repeat in a context,
hints come from the table, key specs are validated strictly, configured keys take effect."""

from __future__ import annotations

from collections import defaultdict

import pytest
import urwid

from asks.host.host import PanelCommand
from asks.widgets.keymap import (
    APP_COMMANDS,
    COMMANDS,
    CONTEXTS,
    DEFAULT_BINDINGS,
    OPTION_JUMPS,
    PANEL_COMMANDS,
    SHADOWS,
    WIDGET_ACTIONS,
    Binding,
    Keymap,
    build_keymap,
    parse_key_spec,
    pretty_key,
)


def test_every_binding_names_a_known_command_and_context() -> None:
    for binding in build_keymap().bindings:
        assert binding.command in COMMANDS, binding
        assert binding.context in CONTEXTS, binding
        assert binding.help, binding


def test_every_panel_command_is_a_host_command_or_a_widget_action() -> None:
    for command in COMMANDS:
        if command.startswith("panel."):
            assert command in PANEL_COMMANDS or command in WIDGET_ACTIONS, command
    for command, value in PANEL_COMMANDS.items():
        assert PanelCommand(value.value) is value
        assert command == f"panel.{value.value}"
    # Every host command has a key; COLLAPSE is the global "collapse" key (the app calls the host).
    assert set(PANEL_COMMANDS.values()) | {PanelCommand.COLLAPSE} == set(PanelCommand)
    assert "collapse" in APP_COMMANDS


def test_every_command_has_a_default_key() -> None:
    keymap = build_keymap()
    assert {c for c in COMMANDS if not keymap.keys_for(c)} == set()


def test_no_key_repeats_within_a_context_with_globals_merged() -> None:
    keymap = build_keymap()
    globals_ = {k: b.command for b in keymap.bindings if b.context == "global" for k in b.keys}
    for context in CONTEXTS:
        seen: dict[str, list[str]] = defaultdict(list)
        for binding in keymap.bindings:
            if binding.context == context:
                for key in binding.keys:
                    seen[key].append(binding.command)
        if context != "global":
            for key, command in globals_.items():
                own = seen.get(key)
                if own:  # a context binding shadows a global key: only where declared
                    assert (context, command, own[0]) in SHADOWS, (context, key, own)
                else:
                    seen[key].append(command)
        assert {k: cs for k, cs in seen.items() if len(cs) > 1} == {}, context


def test_a_repeated_key_in_a_table_is_refused() -> None:
    up = Binding("panel.up", ("up",), "panel", "a")
    down = Binding("panel.down", ("up",), "panel", "b")
    with pytest.raises(ValueError, match="bound twice in context 'panel'"):
        Keymap((up, down))
    collapse = Binding("collapse", ("enter",), "global", "c")
    confirm = Binding("panel.confirm", ("enter",), "panel", "d")
    with pytest.raises(ValueError, match="already bound"):
        Keymap((collapse, confirm))


def test_lookup_uses_context_then_global_and_shift_tab_is_prev_tab_inside_the_panel() -> None:
    keymap = build_keymap()
    assert keymap.command_for("panel", "enter") == "panel.confirm"
    assert keymap.command_for("chat", "enter") == "chat.send"
    assert keymap.command_for("chat", "tab") == "chat.complete"
    assert keymap.command_for("panel", "tab") == "panel.next_tab"
    assert keymap.command_for("chat", "shift tab") == "focus_toggle"
    assert keymap.command_for("panel", "shift tab") == "panel.prev_tab"
    assert keymap.command_for("reply", "ctrl ]") == "collapse"
    assert keymap.command_for("prompt", "y") == "prompt.yes"
    assert keymap.command_for("panel", "y") is None
    assert keymap.command_for("reply", " ") is None  # space types a space in the editor
    assert keymap.keys_for("panel.notes") == ("meta n",)
    assert keymap.keys_for("chat.newline") == ("meta enter", "shift enter")


def test_hints_come_from_the_table() -> None:
    keymap = build_keymap()
    commands = ["panel.up", "panel.down", "panel.confirm", "panel.next_tab", "panel.pause"]
    assert keymap.hints("panel", commands) == "↑↓ choose · Enter confirm · Tab next · Esc pause"
    toggles = keymap.hints("chat", ["focus_toggle", "collapse"])
    assert toggles == "Shift+Tab answer · Ctrl+] collapse"
    assert keymap.hints("panel", ["panel.confirm"], {"panel.confirm": "submit"}) == "Enter submit"
    jumps = keymap.hints("panel", ["panel.page_up", "panel.page_down", *OPTION_JUMPS])
    assert jumps == "PgUp/PgDn scroll · 1–4 jump"
    assert "Alt+Enter newline" in keymap.help_line("reply")
    # Shadowed inside the panel: the focus toggle has no key there, so no hint.
    assert keymap.hints("panel", ["focus_toggle", "panel.decline"]) == "Alt+D decline"
    relabelled = Keymap(
        tuple(
            Binding(b.command, ("k",) if b.command == "panel.up" else b.keys, b.context, "go up")
            if b.command == "panel.up"
            else b
            for b in DEFAULT_BINDINGS
        )
    )
    assert relabelled.hints("panel", ["panel.up", "panel.confirm"]) == "k go up · Enter confirm"


@pytest.mark.parametrize(
    ("key", "pretty"),
    [
        ("shift tab", "Shift+Tab"),
        ("meta n", "Alt+N"),
        ("ctrl ]", "Ctrl+]"),
        ("enter", "Enter"),
        ("esc", "Esc"),
        (" ", "Space"),
        ("up", "↑"),
        ("down", "↓"),
        ("page up", "PgUp"),
        ("f2", "F2"),
        ("meta enter", "Alt+Enter"),
        ("ctrl u", "Ctrl+U"),
        ("shift ctrl up", "Shift+Ctrl+↑"),
    ],
)
def test_pretty_key(key: str, pretty: str) -> None:
    assert pretty_key(key) == pretty


@pytest.mark.parametrize(
    ("spec", "key"),
    [
        ("off", "off"),
        ("OFF", "off"),
        ("shift+tab", "shift tab"),
        ("ctrl+]", "ctrl ]"),
        ("alt+n", "meta n"),
        ("meta+n", "meta n"),
        ("ctrl+o", "ctrl o"),
        ("Ctrl+O", "ctrl o"),
        ("f2", "f2"),
        ("shift tab", "shift tab"),  # urwid's own spelling is accepted too
        ("ctrl+shift+up", "shift ctrl up"),
        ("alt+page down", "meta page down"),
        ("ctrl++", "ctrl +"),
    ],
)
def test_parse_key_spec_accepts(spec: str, key: str) -> None:
    assert parse_key_spec(spec) == key


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("tab", "plain Tab is reserved"),
        ("", "empty key spec"),
        ("   ", "empty key spec"),
        ("ctrl+", "has no base key"),
        ("ctrl+a+b", "'a' is not a modifier"),
        ("tab+up", "more than one base key"),
        ("up+ctrl", "modifiers must come before the base key"),
        ("hyper+x", "'hyper' is not a modifier"),
        ("ctrl+ctrl+x", "repeats a modifier"),
        ("shift+a", "Shift with a character is just that character"),
        ("banana", "'banana' is not a key name"),
    ],
)
def test_parse_key_spec_refuses_with_a_clear_message(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match="focus_toggle_key: .*" + message):
        parse_key_spec(spec, setting="focus_toggle_key")


def test_configured_keys_take_effect() -> None:
    keymap = build_keymap(focus_toggle_key="f2", collapse_key="ctrl+o")
    for context in ("chat", "panel", "reply", "prompt"):
        assert keymap.command_for(context, "f2") == "focus_toggle"
        assert keymap.command_for(context, "ctrl o") == "collapse"
        assert keymap.command_for(context, "ctrl ]") is None
    assert keymap.command_for("chat", "shift tab") is None
    assert keymap.command_for("panel", "shift tab") == "panel.prev_tab"
    assert keymap.hints("panel", ["focus_toggle", "collapse"]) == "F2 answer · Ctrl+O collapse"


def test_collapse_off_unbinds_it() -> None:
    keymap = build_keymap(collapse_key="off")
    assert keymap.keys_for("collapse") == ()
    assert keymap.command_for("chat", "ctrl ]") is None
    assert keymap.hints("chat", ["focus_toggle", "collapse"]) == "Shift+Tab answer"


@pytest.mark.parametrize(
    ("toggle", "collapse", "message"),
    [
        ("tab", "ctrl ]", "plain Tab is reserved"),
        ("off", "ctrl ]", "cannot be 'off'"),
        ("ctrl+u", "ctrl ]", "Ctrl\\+U of focus_toggle is already bound to panel.clear_draft"),
        ("alt+n", "ctrl ]", "Alt\\+N of focus_toggle is already bound to panel.notes"),
        ("shift+tab", "enter", "Enter of collapse is already bound"),
        ("f2", "f2", "F2 is already the focus toggle"),
        ("shift+tab", "nonsense", "collapse_key: key 'nonsense'"),
    ],
)
def test_build_keymap_refuses_conflicts(toggle: str, collapse: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build_keymap(toggle, collapse)


def test_building_a_keymap_leaves_urwids_command_map_alone() -> None:
    keys = {k for b in build_keymap().bindings for k in b.keys} | {"f2", "ctrl o"}
    before = {k: urwid.command_map[k] for k in keys}
    build_keymap("f2", "ctrl o")
    assert {k: urwid.command_map[k] for k in keys} == before
