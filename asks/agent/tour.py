"""The built-in tour: what ``asks`` runs with no flags, as the table a script file's TOML reads
as (the same structure as ``--script FILE``: demos/script-example.toml is a commented example).

Kept as Python data rather than TOML so that the launch parses nothing (tomllib's import and
parse were ~18 M instructions of it: docs/decisions/0025-launch-tricks-in-one-place.md): the
table comes with this module's .pyc, and :func:`asks.agent.scripted.builtin_tour` checks it as
any script.
Its person-facing texts are translated when played (asks/agent/localize.py; ``tools/i18n.py``
reads them from here).
"""

from __future__ import annotations

from typing import Any


def table() -> dict[str, Any]:
    """The tour's table, a fresh one at each call (what ``tomllib`` reads a script file as)."""
    return {
        "name": "tour",
        "step": [
            {
                "on": "start",
                "reply": [
                    {
                        "say": (
                            "Hi! I'm the scripted demo agent (offline, no API key). I'll "
                            "index the repository for a while. Meanwhile I've queued a "
                            "question for you — it won't steal your keyboard. {answer_hint}"
                        ),
                        "call": [
                            {
                                "tool": "ask_user_question",
                                "args": {
                                    "blocking": False,
                                    "questions": [
                                        {
                                            "question": (
                                                "Which language should the final report be "
                                                "written in?"
                                            ),
                                            "header": "Language",
                                            "options": [
                                                {
                                                    "label": "English",
                                                    "description": "The default",
                                                },
                                                {
                                                    "label": "Deutsch",
                                                    "description": "German",
                                                },
                                                {
                                                    "label": "Français",
                                                    "description": "French",
                                                },
                                            ],
                                        },
                                    ],
                                },
                            },
                            {
                                "tool": "work",
                                "args": {
                                    "seconds": 12,
                                    "label": "indexing the repository",
                                },
                            },
                        ],
                    },
                    {
                        "say": (
                            "Indexing is done. Before I change anything I need a few "
                            "decisions — this one blocks until you answer."
                        ),
                        "call": [
                            {
                                "tool": "ask_user_question",
                                "args": {
                                    "questions": [
                                        {
                                            "question": "Where should this service be deployed?",
                                            "header": "Target",
                                            "options": [
                                                {
                                                    "label": "Staging",
                                                    "description": "Safe; resets nightly",
                                                    "preview": (
                                                        "deploy:\n  env: staging\n  replicas: "
                                                        "1\n  canary: false"
                                                    ),
                                                },
                                                {
                                                    "label": "Production",
                                                    "description": "Real users",
                                                    "preview": (
                                                        "deploy:\n  env: production\n  "
                                                        "replicas: 3\n  canary: true"
                                                    ),
                                                },
                                            ],
                                        },
                                        {
                                            "question": (
                                                "Which checks should run before the deploy?"
                                            ),
                                            "header": "Checks",
                                            "multiSelect": True,
                                            "options": [
                                                {
                                                    "label": "Unit tests",
                                                },
                                                {
                                                    "label": "Lint",
                                                },
                                                {
                                                    "label": "Migrations dry-run",
                                                    "description": "Slow but careful",
                                                },
                                            ],
                                        },
                                        {
                                            "question": "Anything the release notes must mention?",
                                            "header": "Notes",
                                        },
                                    ],
                                },
                            },
                        ],
                    },
                    {
                        "say": (
                            "{outcome} Now I need to run a command, which asks your permission."
                        ),
                        "call": [
                            {
                                "tool": "run_command",
                                "args": {
                                    "command": "make deploy",
                                },
                            },
                        ],
                    },
                    {
                        "say": (
                            "That's the tour. Type `ask` for another non-blocking question, "
                            "`block` for a blocking one, `/asks` to reopen pending questions, "
                            "`/help` for keys, `/quit` to leave. {collapse_hint}"
                        ),
                    },
                ],
            },
            {
                "on": "feedback",
                "reply": [
                    {
                        "say": "{feedback_outcome}",
                    },
                ],
            },
            {
                "on": "message",
                "match": "\\bask\\b",
                "reply": [
                    {
                        "say": "Here's a non-blocking question; I'll keep working while it waits.",
                        "call": [
                            {
                                "tool": "ask_user_question",
                                "args": {
                                    "blocking": False,
                                    "questions": [
                                        {
                                            "question": "Should the new endpoint be versioned?",
                                            "header": "Versioning",
                                            "options": [
                                                {
                                                    "label": "Yes, /v2",
                                                    "description": "Keeps old clients working",
                                                },
                                                {
                                                    "label": "No",
                                                    "description": "Change in place",
                                                },
                                            ],
                                        },
                                    ],
                                },
                            },
                            {
                                "tool": "work",
                                "args": {
                                    "seconds": 8,
                                    "label": "drafting the endpoint",
                                },
                            },
                        ],
                    },
                    {
                        "say": "Draft finished.",
                    },
                ],
            },
            {
                "on": "message",
                "match": "\\bblock",
                "reply": [
                    {
                        "say": (
                            "This question blocks my turn until you answer, decline "
                            "({decline}) or defer it ({defer})."
                        ),
                        "call": [
                            {
                                "tool": "ask_user_question",
                                "args": {
                                    "questions": [
                                        {
                                            "question": "Name the release branch",
                                            "header": "Branch",
                                        },
                                    ],
                                },
                            },
                        ],
                    },
                    {
                        "say": "{outcome}",
                    },
                ],
            },
            {
                "on": "message",
                "reply": [
                    {
                        "say": (
                            "You said: “{user}”. I'm a scripted agent, so I only know `ask` "
                            "and `block`."
                        ),
                    },
                ],
            },
        ],
    }
