"""asks: an inline async-question panel for terminal chat REPLs — the public API.

Everything an embedder needs is importable from here (``from asks import QuestionHost``);
:data:`__all__` is the list. Names are loaded lazily (PEP 562), so ``import asks.core.model``
never pays for trio, urwid or the store, and the pure core never imports urwid: only
:mod:`asks.widgets` (the urwid layer) and :mod:`asks.cli` (our REPL's composition root) do.

The layers (DESIGN §2): ``asks.core`` (pure values and state machines) ← ``asks.store``,
``asks.contract`` ← ``asks.host`` (the question host and its ports) ← ``asks.agent`` ←
``asks.surfaces`` (web bridge, headless, line mode) ← ``asks.widgets`` ← ``asks.cli``.
The README's "Embedding the panel" section is the guide; NOTES.md has the state model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from asks.core.version import __version__

if TYPE_CHECKING:
    from asks.contract import Guidance, ResultEnvelope, ToolError, anthropic_tool, openai_tool
    from asks.core.drafts import ChatLine
    from asks.core.events import (
        AnswerSaved,
        Delivered,
        DeliveryChannel,
        EventKind,
        HostEvent,
        QuestionAsked,
        QuestionsWithdrawn,
        StorageFailed,
        WaitEnded,
        WaitOpened,
    )
    from asks.core.focus import FocusTarget
    from asks.core.model import Answer, AnswerKind, Outcome, Question, QuestionRef
    from asks.core.refusal import Refusal
    from asks.core.restore import Restored
    from asks.host.agentport import AgentPort
    from asks.host.commands import PanelCommand, PanelMode
    from asks.host.host import QuestionHost
    from asks.host.keeper import DraftKeeper
    from asks.host.panelport import PanelPort
    from asks.host.stats import HostStatistics
    from asks.host.surfaceport import SurfacePort
    from asks.host.waits import ToolReply
    from asks.store.journal import Journal, StorageError, StorageState
    from asks.store.outbox import DeliveryMode, Feedback
    from asks.surfaces.web import WebBridge
    from asks.widgets.keymap import Keymap, build_keymap
    from asks.widgets.layer import LAYER_PALETTE, AsksLayer
    from asks.widgets.screen import AsksScreen

_WHERE = {
    "Guidance": "asks.contract",
    "ResultEnvelope": "asks.contract",
    "ToolError": "asks.contract",
    "anthropic_tool": "asks.contract",
    "openai_tool": "asks.contract",
    **dict.fromkeys(
        (
            "AnswerSaved",
            "Delivered",
            "DeliveryChannel",
            "EventKind",
            "HostEvent",
            "QuestionAsked",
            "QuestionsWithdrawn",
            "StorageFailed",
            "WaitEnded",
            "WaitOpened",
        ),
        "asks.core.events",
    ),
    "ChatLine": "asks.core.drafts",
    "FocusTarget": "asks.core.focus",
    **dict.fromkeys(
        ("Answer", "AnswerKind", "Outcome", "Question", "QuestionRef"), "asks.core.model"
    ),
    "Refusal": "asks.core.refusal",
    "Restored": "asks.core.restore",
    "PanelCommand": "asks.host.commands",
    "PanelMode": "asks.host.commands",
    "QuestionHost": "asks.host.host",
    "AgentPort": "asks.host.agentport",
    "PanelPort": "asks.host.panelport",
    "SurfacePort": "asks.host.surfaceport",
    "HostStatistics": "asks.host.stats",
    "DraftKeeper": "asks.host.keeper",
    "ToolReply": "asks.host.waits",
    "Journal": "asks.store.journal",
    "StorageError": "asks.store.journal",
    "StorageState": "asks.store.journal",
    "DeliveryMode": "asks.store.outbox",
    "Feedback": "asks.store.outbox",
    "WebBridge": "asks.surfaces.web",
    "Keymap": "asks.widgets.keymap",
    "build_keymap": "asks.widgets.keymap",
    "AsksLayer": "asks.widgets.layer",
    "LAYER_PALETTE": "asks.widgets.layer",
    "AsksScreen": "asks.widgets.screen",
}

__all__ = [
    "LAYER_PALETTE",
    "AgentPort",
    "Answer",
    "AnswerKind",
    "AnswerSaved",
    "AsksLayer",
    "AsksScreen",
    "ChatLine",
    "Delivered",
    "DeliveryChannel",
    "DeliveryMode",
    "DraftKeeper",
    "EventKind",
    "Feedback",
    "FocusTarget",
    "Guidance",
    "HostEvent",
    "HostStatistics",
    "Journal",
    "Keymap",
    "Outcome",
    "PanelCommand",
    "PanelMode",
    "PanelPort",
    "Question",
    "QuestionAsked",
    "QuestionHost",
    "QuestionRef",
    "QuestionsWithdrawn",
    "Refusal",
    "Restored",
    "ResultEnvelope",
    "StorageError",
    "StorageFailed",
    "StorageState",
    "SurfacePort",
    "ToolError",
    "ToolReply",
    "WaitEnded",
    "WaitOpened",
    "WebBridge",
    "__version__",
    "anthropic_tool",
    "build_keymap",
    "openai_tool",
]


def __getattr__(name: str) -> Any:
    """Load a public name on first use (see the module docstring)."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'asks' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
