"""A question's brief: what the tab bar and the agents' order read of every pending question.

A module of its own, imported when a brief is first made (a plain launch makes none before
its first frame): docs/fleet-scale.md, "The resume's own part".
"""

from __future__ import annotations

import attrs

__all__ = ["QuestionBrief"]


@attrs.frozen
class QuestionBrief:
    """What the tab bar and the agents' order read of a question (its chip's header, who asked
    it, who its answer goes to): a resumed session reads it for every pending question, from
    its checkpoint, without decoding the questions (asks/store/checkpoint.py)."""

    header: str
    source: str | None = None
    recipient: str | None = None
