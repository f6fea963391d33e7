"""``y``/``n`` at an agent's permission request in the panel: asks' own permission prompt's
rule (docs/architecture.md; docs/permission-prompts.md), through the real
layer's key path: a decision key counts at the pause after it or with Enter; a printable
before that means typing (both go to the chat); the request never takes the keys."""

from __future__ import annotations

import json

import urwid
from support.panel import LAYERS, make_panel, press, screen
from support.permission_bodies import CLAUDE
from support.rig import Rig

from asks.core.focus import TYPING_GUARD
from asks.core.permission import Behavior, HandBack, PermissionRequest, Verdict, parse_request
from asks.host.permissions import OpenRequest
from asks.widgets.panel import QuestionPanel


def request(rig: Rig) -> OpenRequest:
    found = parse_request(json.dumps(CLAUDE).encode())
    assert isinstance(found, PermissionRequest)
    opened = rig.host.hub_port.permissions.open("builder", found)
    assert opened is not None
    return opened


def chat_text(panel: QuestionPanel) -> str:
    editor = LAYERS[panel].editor
    assert isinstance(editor, urwid.Edit)
    return str(editor.edit_text)


def pause(rig: Rig, panel: QuestionPanel) -> None:
    rig.clock.advance(TYPING_GUARD + 0.01)
    LAYERS[panel].tick(rig.clock())


def verdict(rig: Rig, opened: OpenRequest) -> Verdict | None:
    return rig.host.hub_port.permissions.verdict(opened)


def test_the_request_never_takes_the_keys(rig: Rig) -> None:
    panel = make_panel(rig)
    opened = request(rig)
    press(panel, "y", "e", "s")
    pause(rig, panel)
    assert chat_text(panel) == "yes" and verdict(rig, opened) is None
    assert "builder · Bash: npm test" in "\n".join(screen(panel, 100))


def test_y_counts_at_the_pause_after_it(rig: Rig) -> None:
    panel = make_panel(rig)
    opened = request(rig)
    assert rig.host.panel_port.enter_panel() is None
    press(panel, "y")
    assert verdict(rig, opened) is None  # held
    assert "“y” counts at your pause (Enter: now)" in "\n".join(screen(panel, 100))
    pause(rig, panel)
    assert verdict(rig, opened) == Verdict(Behavior.ALLOW)
    assert chat_text(panel) == ""


def test_y_then_enter_counts_at_once(rig: Rig) -> None:
    panel = make_panel(rig)
    opened = request(rig)
    assert rig.host.panel_port.enter_panel() is None
    press(panel, "y", "enter")
    assert verdict(rig, opened) == Verdict(Behavior.ALLOW)


def test_n_denies_at_the_pause(rig: Rig) -> None:
    panel = make_panel(rig)
    opened = request(rig)
    assert rig.host.panel_port.enter_panel() is None
    press(panel, "n")
    pause(rig, panel)
    found = verdict(rig, opened)
    assert found is not None and found.behavior is Behavior.DENY


def test_typing_at_the_request_goes_to_the_chat_and_decides_nothing(rig: Rig) -> None:
    panel = make_panel(rig)
    opened = request(rig)
    assert rig.host.panel_port.enter_panel() is None
    press(panel, "y", "e", "s", " ", "p", "l", "e", "a", "s", "e")
    pause(rig, panel)
    assert chat_text(panel) == "yes please"
    assert verdict(rig, opened) is None
    assert not rig.host.panel_port.focus.panel_focused  # the panel let go of the keys


def test_another_key_drops_a_held_decision(rig: Rig) -> None:
    panel = make_panel(rig)
    opened = request(rig)
    assert rig.host.panel_port.enter_panel() is None
    press(panel, "y", "down")
    pause(rig, panel)
    assert verdict(rig, opened) is None


def test_y_on_an_ordinary_question_is_typing_as_before(rig: Rig) -> None:
    panel = make_panel(rig)
    rig.async_question("c1", "Which database?")
    assert rig.host.panel_port.enter_panel() is None
    press(panel, "y")
    assert chat_text(panel) == "y" and rig.host.panel_port.focus.doubt is None


def test_a_held_decision_goes_with_its_request(rig: Rig) -> None:
    panel = make_panel(rig)
    first = request(rig)
    second = request(rig)
    assert rig.host.panel_port.enter_panel() is None
    assert rig.host.panel_port.selected == first.ref
    press(panel, "y")
    rig.host.hub_port.permissions.hand_back(first, HandBack.GONE)  # its dialog answered first
    assert rig.host.panel_port.focus.doubt is None
    pause(rig, panel)
    assert verdict(rig, second) is None  # the "y" was never the other request's
