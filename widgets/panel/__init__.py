"""The question panel (an urwid view of a question host), split into its parts.

Public: :class:`QuestionPanel` (:mod:`.view`) and :data:`PALETTE` (:mod:`.palette`). The other
modules are the panel's internals, in dependency order: :mod:`.markup` (types, constants, text
helpers), :mod:`.memo` (widgets kept across refreshes), :mod:`.tabbar` (the tab strip),
:mod:`.body` (the scrolling part's layout), :mod:`.rows` (a question's rows),
:mod:`.review` (the Review tab), :mod:`.footer` (notice and key hints), :mod:`.frame` (border,
sticky parts and scrolling) and :mod:`.view` (the panel widget, its view state and keys).
"""

from asks.widgets.panel.palette import PALETTE
from asks.widgets.panel.view import QuestionPanel

__all__ = ["PALETTE", "QuestionPanel"]
