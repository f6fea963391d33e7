"""The names from before the ``_nowait`` rename still work for embedders, and say they are old.

A sync method is called ``X_nowait`` only when it is the twin of an ``async def X``
(tests/test_architecture.py); the public methods that carried the suffix without a twin lost it,
and their old names are kept by :func:`asks.core.renamed.renamed`: each call warns
:class:`DeprecationWarning` naming the new method and then does exactly what the new one does.
"""

from __future__ import annotations

import pytest
from support.rig import Rig, call, q

from asks import AgentPort, AsksLayer, PanelPort, QuestionHost, SurfacePort
from asks.core.renamed import renamed

# The suffixed public names of the 0.1 API (docs/api.md of that release), per class.
OLD_NAMES: dict[type, tuple[str, ...]] = {
    AgentPort: [
        "start_call",
        "withdraw",
        "interrupt",
        "turn_started",
        "turn_ended",
        "take_feedback",
        "record_message",
    ],
    SurfacePort: ("answer_from", "defer", "submit_partial"),
    PanelPort: [
        "decide",
        "stray_key",
        "hold_decision",
        "due_decision",
        "confirm_decision",
        "drop_decision",
        "printable_command",
        "settle_guard",
        "expire_notice",
        "say",
        "name_keys",
        "command",
        "set_custom_text",
        "set_notes",
        "set_cursor",
        "set_group_note",
        "enter_panel",
        "enter_agent",
        "toggle_focus",
        "toggle_collapse",
        "begin_foreign",
        "end_foreign",
        "mount",
        "unmount",
        "focus_target",
        "detach_ui",
    ],
    QuestionHost: ("detach_ui",),
    AsksLayer: ("tick",),
}


@pytest.mark.parametrize(
    ("cls", "new"), [(cls, new) for cls, names in OLD_NAMES.items() for new in names]
)
def test_every_old_name_is_the_new_method_under_a_warning(cls: type, new: str) -> None:
    alias = getattr(cls, f"{new}_nowait")
    assert alias.__wrapped__ is getattr(cls, new)
    assert alias.__name__ == f"{new}_nowait"
    assert new in (alias.__doc__ or "")


def test_an_old_name_warns_then_does_what_the_new_one_does(rig: Rig) -> None:
    port = rig.host.panel_port
    with pytest.warns(DeprecationWarning, match="say_nowait is deprecated: use say"):
        port.say_nowait("Saved by the old name.")
    assert rig.host.statistics().notice == "Saved by the old name."


def test_an_old_agent_name_returns_the_new_ones_result(rig: Rig) -> None:
    agent = rig.host.agent_port
    with pytest.warns(DeprecationWarning, match="start_call_nowait"):
        reply = agent.start_call_nowait("c1", call(q("Which cache?"), blocking=False))
    assert agent.pending_ids() == (rig.ref("c1").id,)
    assert rig.ref("c1").id in str(reply)  # the queued reply names the new question


def test_the_warning_points_at_the_callers_line() -> None:
    class Port:
        def go(self, value: int) -> int:
            return value + 1

        go_nowait = renamed(go, "go_nowait")

    with pytest.warns(DeprecationWarning) as caught:
        assert Port().go_nowait(1) == 2
    assert caught[0].filename == __file__
