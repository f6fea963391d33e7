"""The keymap table (widgets/keymap.py): commands are real, keys never repeat in a context,
hints come from the table, key specs are validated strictly, configured keys take effect."""

from __future__ import annotations

from collections import defaultdict

import pytest
import urwid

from asks.host.commands import PanelCommand
from asks.widgets.keymap import (
    DEFAULT_BINDINGS,
    PANEL_COMMANDS,
    ROW_JUMPS,
    Binding,
    Command,
    Context,
    Keymap,
    build_keymap,
    parse_key_spec,
    pretty_key,
)

C, X = Command, Context


def test_every_binding_names_a_command_and_context_and_has_a_label() -> None:
    for binding in build_keymap().bindings:
        assert isinstance(binding.command, Command), binding
        assert isinstance(binding.context, Context), binding
        assert binding.help, binding


def test_panel_commands_map_to_the_host() -> None:
    for command, value in PANEL_COMMANDS.items():
        assert command.value == f"panel.{value.value}"
    # Every host command has a key; COLLAPSE is the global collapse key (the layer calls it).
    assert set(PANEL_COMMANDS.values()) | {PanelCommand.COLLAPSE} == set(PanelCommand)


def test_every_command_has_a_default_key() -> None:
    keymap = build_keymap()
    assert {c for c in Command if not keymap.keys_for(c)} == set()


def test_no_key_repeats_within_a_context_with_globals_merged() -> None:
    keymap = build_keymap()
    globals_ = {k for b in keymap.bindings if b.context is X.GLOBAL for k in b.keys}
    for context in Context:
        seen: dict[str, list[Command]] = defaultdict(list)
        for binding in keymap.bindings:
            if binding.context is context:
                for key in binding.keys:
                    seen[key].append(binding.command)
        assert {k: cs for k, cs in seen.items() if len(cs) > 1} == {}, context
        if context is not X.GLOBAL:
            assert not set(seen) & globals_, context


def test_a_repeated_key_in_a_table_is_refused() -> None:
    up = Binding(C.PANEL_UP, ("up",), X.PANEL, "a")
    down = Binding(C.PANEL_DOWN, ("up",), X.PANEL, "b")
    with pytest.raises(ValueError, match="bound twice in context panel"):
        Keymap((up, down))
    collapse = Binding(C.COLLAPSE, ("enter",), X.GLOBAL, "c")
    confirm = Binding(C.PANEL_CONFIRM, ("enter",), X.PANEL, "d")
    with pytest.raises(ValueError, match="already bound"):
        Keymap((collapse, confirm))


def test_lookup_uses_context_then_global_and_shift_tab_is_prev_tab_inside_the_panel() -> None:
    keymap = build_keymap()
    assert keymap.command_for(X.PANEL, "enter") is C.PANEL_CONFIRM
    assert keymap.command_for(X.CHAT, "enter") is C.CHAT_SEND
    assert keymap.command_for(X.CHAT, "tab") is C.CHAT_COMPLETE
    assert keymap.command_for(X.PANEL, "tab") is C.PANEL_NEXT_TAB
    assert keymap.command_for(X.CHAT, "shift tab") is C.FOCUS_TOGGLE
    assert keymap.command_for(X.PANEL, "shift tab") is C.PANEL_PREV_TAB
    assert keymap.command_for(X.REPLY, "ctrl ]") is C.COLLAPSE
    assert keymap.command_for(X.PROMPT, "ctrl ]") is C.COLLAPSE  # collapse works at a prompt
    assert keymap.command_for(X.PROMPT, "shift tab") is None  # the toggle cannot work there
    assert keymap.command_for(X.PROMPT, "ctrl c") is C.INTERRUPT
    assert keymap.command_for(X.PROMPT, "y") is C.PROMPT_YES
    assert keymap.command_for(X.PANEL, "y") is C.PANEL_ALLOW  # only at a permission request
    assert keymap.command_for(X.REPLY, " ") is None  # space types a space in the editor
    assert keymap.command_for(X.PANEL, "6") is C.PANEL_ROW_6
    assert keymap.command_for(X.PANEL, "7") is None  # no question has a 7th row
    assert keymap.command_for(X.CHAT, "ctrl u") is C.CHAT_KILL_START
    assert keymap.keys_for(C.PANEL_NOTES) == ("meta n",)
    assert keymap.keys_for(C.CHAT_NEWLINE) == ("meta enter", "shift enter")


def test_help_lines_list_only_what_the_context_binds() -> None:
    keymap = build_keymap()
    prompt = keymap.help_line(X.PROMPT)
    assert "Shift+Tab" not in prompt
    assert "Ctrl+] collapse" in prompt and "Ctrl+C interrupt" in prompt
    assert "y/Y yes · n/N/Esc no" in prompt
    assert "Shift+Tab answer" in keymap.help_line(X.CHAT)


def test_hints_come_from_the_table() -> None:
    keymap = build_keymap()
    commands = [C.PANEL_UP, C.PANEL_DOWN, C.PANEL_CONFIRM, C.PANEL_NEXT_TAB, C.PANEL_PAUSE]
    assert keymap.hints(X.PANEL, commands) == "↑↓ choose · Enter confirm · Tab next · Esc pause"
    toggles = keymap.hints(X.CHAT, [C.FOCUS_TOGGLE, C.COLLAPSE])
    assert toggles == "Shift+Tab answer · Ctrl+] collapse"
    assert keymap.hints(X.PANEL, [C.PANEL_CONFIRM], {C.PANEL_CONFIRM: "submit"}) == "Enter submit"
    jumps = keymap.hints(X.PANEL, [C.PANEL_PAGE_UP, C.PANEL_PAGE_DOWN, *ROW_JUMPS])
    assert jumps == "PgUp/PgDn scroll · 1–6 jump"
    assert "Alt+Enter/Shift+Enter newline" in keymap.help_line(X.REPLY)
    # Inside the panel Shift+Tab is "previous tab": the focus toggle has no key there.
    assert keymap.hints(X.PANEL, [C.FOCUS_TOGGLE, C.PANEL_DECLINE]) == "Alt+D decline (twice)"
    relabelled = Keymap(
        tuple(
            Binding(b.command, ("k",), b.context, "go up") if b.command is C.PANEL_UP else b
            for b in DEFAULT_BINDINGS
        )
    )
    assert relabelled.hints(X.PANEL, [C.PANEL_UP, C.PANEL_CONFIRM]) == "k go up · Enter confirm"


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
    for context in (X.CHAT, X.PANEL, X.REPLY):
        assert keymap.command_for(context, "f2") is C.FOCUS_TOGGLE
    for context in (X.CHAT, X.PANEL, X.REPLY, X.PROMPT):
        assert keymap.command_for(context, "ctrl o") is C.COLLAPSE
        assert keymap.command_for(context, "ctrl ]") is None
    assert keymap.command_for(X.PROMPT, "f2") is None
    assert keymap.command_for(X.CHAT, "shift tab") is None
    assert keymap.command_for(X.PANEL, "shift tab") is C.PANEL_PREV_TAB
    assert keymap.hints(X.PANEL, [C.FOCUS_TOGGLE, C.COLLAPSE]) == "F2 answer · Ctrl+O collapse"


def test_collapse_off_unbinds_it() -> None:
    keymap = build_keymap(collapse_key="off")
    assert keymap.keys_for(C.COLLAPSE) == ()
    assert keymap.command_for(X.CHAT, "ctrl ]") is None
    assert keymap.hints(X.CHAT, [C.FOCUS_TOGGLE, C.COLLAPSE]) == "Shift+Tab answer"


@pytest.mark.parametrize(
    ("toggle", "collapse", "message"),
    [
        ("tab", "ctrl ]", "plain Tab is reserved"),
        ("off", "ctrl ]", "cannot be 'off'"),
        ("ctrl+u", "ctrl ]", "Ctrl\\+U is already bound to chat.kill_to_start"),
        ("alt+n", "ctrl ]", "Alt\\+N is already bound to panel.notes"),
        ("shift+tab", "enter", "Enter alone would fire while you type"),
        ("x", "ctrl ]", "focus_toggle_key: x alone would fire while you type"),
        ("shift+tab", "5", "collapse_key: 5 alone would fire while you type"),
        ("shift+tab", "ctrl+k", "Ctrl\\+K of collapse is already bound to chat.kill_to_end"),
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
