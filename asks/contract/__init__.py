"""The ``ask_user_question`` tool contract: what the model sees and sends.

Four parts, all pure (no I/O, no host state), re-exported here so ``from asks import contract;
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
"""

from asks.contract.errors import (
    ErrorCode,
    ToolError,
    already_waiting,
    call_conflict,
    no_ui,
    result_not_saved,
    storage_failed,
    unknown_question,
)
from asks.contract.results import (
    ResultEnvelope,
    already_received_result,
    answered_result,
    declined_result,
    deferred_result,
    feedback_text,
    interrupted_result,
    queued_result,
    withdrawn_result,
)
from asks.contract.schema import (
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

__all__ = [
    "DEFAULT_GUIDANCE",
    "FEEDBACK_PREFIX",
    "REF_KEY",
    "TOOL_NAME",
    "Call",
    "ErrorCode",
    "Guidance",
    "NewQuestions",
    "ResultEnvelope",
    "ToolError",
    "WaitOn",
    "already_received_result",
    "already_waiting",
    "answered_result",
    "anthropic_tool",
    "call_conflict",
    "declined_result",
    "deferred_result",
    "feedback_text",
    "input_schema",
    "interrupted_result",
    "no_ui",
    "openai_tool",
    "parse_arguments",
    "queued_result",
    "result_not_saved",
    "storage_failed",
    "unknown_question",
    "validate_call",
    "withdrawn_result",
]
