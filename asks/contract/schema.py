"""The ``ask_user_question`` tool as the model sees it: its name, JSON Schema and guidance.

:func:`input_schema` is the one JSON Schema of the arguments; :func:`openai_tool` and
:func:`anthropic_tool` wrap it with the configurable :class:`Guidance` text (tool description,
system-prompt snippet, longer guidelines). Pure: every call returns fresh dicts.
"""

from __future__ import annotations

from typing import Any, Final

import attrs

from asks.core import model

TOOL_NAME: Final = "ask_user_question"
CHECK_TOOL: Final = "check_answers"  # the hub's third tool: collect answers
FEEDBACK_PREFIX: Final = "[asks feedback]"
REF_KEY: Final = "questionId"  # a question entry that waits on an earlier question by id


_DESCRIPTION: Final = (
    "Ask the user 1 to 4 questions in a panel above their chat input, each with 2-4 options "
    "or a free-text answer. Use it for decisions or information only the user has. By "
    "default the call is blocking: it returns once the user has answered, declined, or "
    'chosen to answer later. With "blocking": false it returns at once with a stable id per '
    "question (q- and 10 hex digits) and you keep working; each answer arrives later as a "
    f'message starting with "{FEEDBACK_PREFIX}". To wait for such a question, call the tool '
    'with only the id it returned: {"questions": [{"questionId": "<that id>"}]}. There is no '
    "timeout: silence is never consent."
)
_PROMPT_SNIPPET: Final = (
    f"{TOOL_NAME}: ask the user 1-4 questions, blocking by default or non-blocking with "
    f'"blocking": false (answers then arrive as "{FEEDBACK_PREFIX}" messages).'
)
_GUIDELINES: Final = f"""\
- Ask only what you cannot find out yourself; prefer options with clear trade-offs in
  "description". Keep "header" to a short chip (at most {model.MAX_HEADER} characters).
- Never add an "Other" option: the user can always type their own answer.
- Block (the default) when you cannot continue without the answer. Use "blocking": false when
  you can keep working; note the returned ids and carry on.
- Answers to non-blocking (or interrupted) questions arrive as "{FEEDBACK_PREFIX}" messages
  naming the question id. Do not ask the same question again while it is pending; withdraw
  (withdraw_question) a pending question you no longer need.
- To wait for pending questions, call {TOOL_NAME} with only their ids:
  {{"questions": [{{"questionId": "q-..."}}]}}.
- There is no timeout. A question the user has not answered is not consent.
- "declined" means the user chose not to answer: do not ask again unless they bring it up.
  "interrupted" is not a decline: the question stays pending.
"""


@attrs.frozen
class Guidance:
    """The text that teaches the model the tool: its description, a system-prompt snippet
    and longer guidelines. Every field is configurable; the defaults stand on their own."""

    description: str = _DESCRIPTION
    prompt_snippet: str = _PROMPT_SNIPPET
    guidelines: str = _GUIDELINES


DEFAULT_GUIDANCE: Final = Guidance()


def _text_schema(max_length: int, description: str, min_length: int = 1) -> dict[str, Any]:
    return {
        "type": "string",
        "minLength": min_length,
        "maxLength": max_length,
        "description": description,
    }


def _option_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "label": _text_schema(model.MAX_LABEL, "The option's short text."),
            "description": _text_schema(
                model.MAX_DESCRIPTION, "What choosing this option means.", 0
            ),
            "preview": _text_schema(
                model.MAX_PREVIEW,
                "Optional preformatted text (code, mock-up) shown when the option is "
                "highlighted. Single-select questions only.",
                0,
            ),
        },
        "required": ["label"],
        "additionalProperties": False,
    }


def _new_question_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "question": _text_schema(model.MAX_QUESTION_TEXT, "The full question."),
            "header": _text_schema(model.MAX_HEADER, "A very short chip label for the tab."),
            "options": {
                "type": "array",
                "minItems": model.MIN_OPTIONS,
                "maxItems": model.MAX_OPTIONS,
                "items": _option_schema(),
                "description": "Choices with distinct labels; leave out for a free-text "
                'answer. Do not include "Other": the user can always type an answer.',
            },
            "multiSelect": {
                "type": "boolean",
                "default": False,
                "description": "Let the user pick several options.",
            },
            "context": _text_schema(
                model.MAX_CONTEXT, "Optional background shown under the question.", 0
            ),
            "custom": {
                "type": "boolean",
                "default": True,
                "description": "Let the user type their own answer besides the options "
                "(false: only the options answer).",
            },
        },
        "required": ["question", "header"],
        "additionalProperties": False,
    }


def _wait_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            REF_KEY: _text_schema(
                model.MAX_ID, "Id of an earlier non-blocking question to wait for."
            ),
        },
        "required": [REF_KEY],
        "additionalProperties": False,
    }


def input_schema() -> dict[str, Any]:
    """The JSON Schema of the tool's arguments (a fresh dict on every call)."""
    return {
        "type": "object",
        "properties": {
            "questions": {
                "type": "array",
                "minItems": 1,
                "maxItems": model.MAX_QUESTIONS,
                "items": {"anyOf": [_new_question_schema(), _wait_schema()]},
                "description": "New questions, or only {questionId} entries to wait on "
                "earlier non-blocking questions (not both in one call).",
            },
            "blocking": {
                "type": "boolean",
                "default": True,
                "description": "false: return at once with question ids; answers arrive "
                "later as feedback messages.",
            },
        },
        "required": ["questions"],
        "additionalProperties": False,
    }


def openai_tool(guidance: Guidance = DEFAULT_GUIDANCE) -> dict[str, Any]:
    """The tool in OpenAI chat-completions function-calling shape."""
    return {
        "type": "function",
        "function": {
            "name": TOOL_NAME,
            "description": guidance.description,
            "parameters": input_schema(),
        },
    }


def anthropic_tool(guidance: Guidance = DEFAULT_GUIDANCE) -> dict[str, Any]:
    """The tool in Anthropic Messages API shape."""
    return {"name": TOOL_NAME, "description": guidance.description, "input_schema": input_schema()}
