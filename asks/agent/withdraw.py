"""``withdraw_question``: the model takes back pending questions (contract:
:mod:`asks.contract.withdraw`).

:class:`WithdrawTool` withdraws per id (``host.withdraw``): the pending ones are
withdrawn in one ``withdrawn`` journal line — the tabs close, the web page shows them as
withdrawn, a blocking wait on them ends ``withdrawn`` — whatever the other ids are; an id that
was answered or declined is ``already_answered`` (that answer is not taken back: it reaches the
model once, as a tool result or a feedback message, like any other) and one that names no
pending question is ``unknown``. The tool result names each id's outcome
(:class:`~asks.contract.WithdrawReport`); the transcript gets a notice naming what was
withdrawn. Offered only while a UI is attached (``needs_ui``).
"""

from __future__ import annotations

from typing import Any

import attrs

from asks import contract
from asks.agent.loop import ToolCall, ToolContext
from asks.agent.transcript import EntryKind
from asks.core.i18n import _


@attrs.frozen
class WithdrawTool:
    """The ``withdraw_question`` tool (module docstring)."""

    name: str = contract.WITHDRAW_TOOL
    needs_ui: bool = True

    def schema(self) -> dict[str, Any]:
        return contract.withdraw_tool()

    async def run(self, call: ToolCall, context: ToolContext) -> str:
        arguments = contract.parse_arguments(call.arguments)
        if isinstance(arguments, contract.ToolError):
            return arguments.text
        request = contract.validate_withdraw(arguments)
        if isinstance(request, contract.ToolError):
            return request.text
        report = context.host.withdraw(list(request.question_ids), request.reason)
        done = [item for item in report.items if item.outcome is contract.WithdrawOutcome.WITHDRAWN]
        if done:
            listing = ", ".join(f'"{item.question}"' for item in done)
            notice = (
                _("The agent withdrew {questions} ({reason}).")
                if request.reason
                else _("The agent withdrew {questions}.")
            )
            context.transcript.add(
                EntryKind.NOTICE, notice.format(questions=listing, reason=request.reason)
            )
        return report.text
