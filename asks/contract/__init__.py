"""The ``ask_user_question`` tool contract: what the model sees and sends.

Five parts, all pure (no I/O, no host state), re-exported here so ``from asks import contract;
contract.X`` and ``from asks.contract import X`` are the one way in:

* :mod:`~asks.contract.validate` — :func:`parse_arguments` and :func:`validate_call` turn the
  model's arguments into a :data:`Call` (:class:`NewQuestions` or :class:`WaitOn`) or a
  :class:`ToolError`; never raises.
* :mod:`~asks.contract.errors` — the one :class:`ErrorCode` enum of every tool error, the
  :class:`ToolError` value and the host-side error sentences.
* :mod:`~asks.contract.schema` — the JSON Schema (:func:`input_schema`), its OpenAI and Anthropic
  wrappings and the configurable :class:`Guidance`.
* :mod:`~asks.contract.results` — one :class:`ResultEnvelope` builder per outcome, and
  :func:`feedback_text` for async answers.
* :mod:`~asks.contract.withdraw` — the ``withdraw_question`` tool: schema, validation, the
  per-id :class:`WithdrawReport` and its text.
"""

from asks.contract.errors import (
    EarlierQuestion,
    ErrorCode,
    ToolError,
    already_waiting,
    call_conflict,
    interrupted,
    no_ui,
    record_unreadable,
    result_not_saved,
    result_unreadable,
    storage_failed,
    takes_no_arguments,
    unknown_question,
    unknown_tool,
)
from asks.contract.results import (
    NOTE_PHRASE,
    CallResult,
    GroupNote,
    QuestionOutcome,
    QuestionResult,
    ResultEnvelope,
    already_received_result,
    answered_result,
    declined_result,
    deferred_result,
    feedback_text,
    header_note,
    interrupted_result,
    question_result,
    queued_result,
    withdrawn_result,
)
from asks.contract.schema import (
    CHECK_TOOL,
    DEFAULT_GUIDANCE,
    FEEDBACK_PREFIX,
    REF_KEY,
    TOOL_NAME,
    Guidance,
    anthropic_tool,
    input_schema,
    openai_tool,
)
from asks.contract.validate import Call, NewQuestions, WaitOn, parse_arguments, validate_call
from asks.contract.withdraw import (
    WITHDRAW_TOOL,
    Withdraw,
    WithdrawItem,
    WithdrawOutcome,
    WithdrawReport,
    already_answered,
    unknown_to_withdraw,
    validate_withdraw,
    withdraw_tool,
    withdrawn_text,
)

__all__ = [
    "CHECK_TOOL",
    "DEFAULT_GUIDANCE",
    "FEEDBACK_PREFIX",
    "NOTE_PHRASE",
    "REF_KEY",
    "TOOL_NAME",
    "WITHDRAW_TOOL",
    "Call",
    "CallResult",
    "EarlierQuestion",
    "ErrorCode",
    "GroupNote",
    "Guidance",
    "NewQuestions",
    "QuestionOutcome",
    "QuestionResult",
    "ResultEnvelope",
    "ToolError",
    "WaitOn",
    "Withdraw",
    "WithdrawItem",
    "WithdrawOutcome",
    "WithdrawReport",
    "already_answered",
    "already_received_result",
    "already_waiting",
    "answered_result",
    "anthropic_tool",
    "call_conflict",
    "declined_result",
    "deferred_result",
    "feedback_text",
    "header_note",
    "input_schema",
    "interrupted",
    "interrupted_result",
    "no_ui",
    "openai_tool",
    "parse_arguments",
    "question_result",
    "queued_result",
    "record_unreadable",
    "result_not_saved",
    "result_unreadable",
    "storage_failed",
    "takes_no_arguments",
    "unknown_question",
    "unknown_to_withdraw",
    "unknown_tool",
    "validate_call",
    "validate_withdraw",
    "withdraw_tool",
    "withdrawn_result",
    "withdrawn_text",
]
