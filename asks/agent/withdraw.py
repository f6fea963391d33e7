"""``withdraw_question``: the model takes back pending questions (contract:
:mod:`asks.contract.withdraw`).

:class:`WithdrawTool` checks every id against the host's projection first — all or nothing:
an id that names no question (or one already withdrawn) → ``unknown_question``; one that was
answered or declined → ``already_answered`` (that answer is not taken back: it reaches the
model once, as a tool result or a feedback message, like any other). Then
``host.withdraw_nowait`` journals one ``withdrawn`` line: the tabs close, the web page shows the
questions as withdrawn, and a blocking wait on them ends ``withdrawn``. The transcript gets a
notice naming what was withdrawn. Offered only while a UI is attached (``needs_ui``).
"""

from __future__ import annotations

from typing import Any

import attrs

from asks import contract
from asks.agent.loop import ToolCall, ToolContext
from asks.agent.transcript import EntryKind
from asks.core.i18n import _
from asks.core.model import QuestionStatus


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
        projection = context.host.projection
        states = {qid: projection.state_of(qid) for qid in request.question_ids}
        unknown = [
            qid for qid, st in states.items() if st is None or st.status is QuestionStatus.WITHDRAWN
        ]
        if unknown:
            return contract.unknown_to_withdraw(unknown).text
        answered = [
            qid
            for qid, st in states.items()
            if st is not None and st.status is not QuestionStatus.PENDING
        ]
        if answered:
            return contract.already_answered(answered).text
        questions = [st.question for st in states.values() if st is not None]
        refused = context.host.withdraw_nowait(list(request.question_ids), request.reason)
        if refused is not None:
            return refused.text
        listing = ", ".join(f'"{q.spec.question}"' for q in questions)
        notice = (
            _("The agent withdrew {questions} ({reason}).")
            if request.reason
            else _("The agent withdrew {questions}.")
        )
        context.transcript.add(
            EntryKind.NOTICE, notice.format(questions=listing, reason=request.reason)
        )
        return contract.withdrawn_text(questions, request.reason)
