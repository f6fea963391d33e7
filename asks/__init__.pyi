"""The public names of :mod:`asks` — the one list (see ``asks/__init__.py``).

Each ``from M import N as N`` line declares that ``asks.N`` is ``M.N``: type checkers read the
types from here (the redundant alias is the explicit re-export), and ``asks/__init__.py`` reads
the same lines to load each name on first use and to build ``asks.__all__``. A name is public
only if it is listed here.
"""

# ruff: noqa: I001 (isort would split each aliased name into its own statement; sorted by hand)

from asks.contract import (
    CallResult as CallResult,
    Guidance as Guidance,
    QuestionOutcome as QuestionOutcome,
    QuestionResult as QuestionResult,
    ResultEnvelope as ResultEnvelope,
    ToolError as ToolError,
    WithdrawItem as WithdrawItem,
    WithdrawOutcome as WithdrawOutcome,
    WithdrawReport as WithdrawReport,
    anthropic_tool as anthropic_tool,
    openai_tool as openai_tool,
)
from asks.core.drafts import ChatLine as ChatLine
from asks.core.events import (
    AnswerSaved as AnswerSaved,
    Delivered as Delivered,
    DeliveryChannel as DeliveryChannel,
    EventKind as EventKind,
    Gone as Gone,
    HostEvent as HostEvent,
    KeysReturned as KeysReturned,
    QuestionAsked as QuestionAsked,
    QuestionsWithdrawn as QuestionsWithdrawn,
    StorageFailed as StorageFailed,
    WaitEnded as WaitEnded,
    WaitOpened as WaitOpened,
)
from asks.core.focus import FocusTarget as FocusTarget
from asks.core.focus import FocusView as FocusView
from asks.core.model import (
    Answer as Answer,
    AnswerKind as AnswerKind,
    Outcome as Outcome,
    Question as Question,
    QuestionRef as QuestionRef,
)
from asks.core.refusal import Refusal as Refusal
from asks.core.space import PanelSpace as PanelSpace
from asks.core.restore import Restored as Restored
from asks.core.version import __version__ as __version__
from asks.host.agentport import AgentPort as AgentPort
from asks.host.commands import PanelCommand as PanelCommand, PanelMode as PanelMode
from asks.host.host import QuestionHost as QuestionHost
from asks.host.keeper import DraftKeeper as DraftKeeper
from asks.host.panelport import PanelPort as PanelPort
from asks.host.stats import HostStatistics as HostStatistics
from asks.host.surfaceport import SurfacePort as SurfacePort
from asks.host.waits import ToolReply as ToolReply
from asks.store.journal import (
    Journal as Journal,
    StorageError as StorageError,
    StorageState as StorageState,
)
from asks.store.outbox import DeliveryMode as DeliveryMode, Feedback as Feedback
from asks.store.projection import CallStateView as CallStateView
from asks.store.projection import NoteStateView as NoteStateView
from asks.store.projection import ProjectionView as ProjectionView
from asks.store.projection import QuestionStateView as QuestionStateView
from asks.surfaces.web import WebBridge as WebBridge
from asks.widgets.keymap import Keymap as Keymap, build_keymap as build_keymap
from asks.widgets.layer import LAYER_PALETTE as LAYER_PALETTE, AsksLayer as AsksLayer
from asks.widgets.panel.palette import Palette as Palette
from asks.widgets.screen import AsksScreen as AsksScreen
