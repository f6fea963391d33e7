"""The lines orjson writes are the stdlib's, byte for byte (docs/fleet-scale.md, "The commit
path per ask").

:func:`~asks.store.entries.encode` writes a :data:`~asks.store.entries.BY_ORJSON` entry (the
hub's commit writes those: ``group_asked``, ``tool_result``) with orjson when orjson's bytes
are the stdlib's, and with the stdlib otherwise. The properties: for any such entry — odd
text (lone surrogates, control characters), any ``details`` (floats orjson writes otherwise:
``1e-05``, ``NaN``, infinities; integers beyond 64 bits; enums, subclasses, tuples) and any
time stamp — the line equals the one the converter and the stdlib's ``json`` write (the
format every journal has: so it reads back as such a line does); every code point is escaped alike
by both; and a listed class holds no ``float`` or ``Any`` by its types beyond the fields it
names for a check per value.
"""

from __future__ import annotations

import enum
import json
import math
import types
import typing
from collections import OrderedDict
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from asks.core.model import Option, Outcome, Question, QuestionRef, QuestionSpec
from asks.store import entries
from asks.store.entries import BY_ORJSON, SCHEMA_VERSION, TAGS, encode


def by_the_stdlib(seq: int, ts: float, entry: Any) -> bytes:
    """The line as the converter and the stdlib's ``json`` write it (the journal's format)."""
    body = entries.converter().unstructure(entry, type(entry))
    body["type"] = TAGS[type(entry)]
    line = {"v": SCHEMA_VERSION, "seq": seq, "ts": ts, **body}
    try:
        return (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
    except UnicodeEncodeError:
        return (json.dumps(line, ensure_ascii=True, separators=(",", ":")) + "\n").encode()


class Colour(enum.StrEnum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Tagged(str):
    """A ``str`` subclass: left to the stdlib."""


odd_text = st.text(alphabet=st.characters(codec=None, categories=None), max_size=12)
odd_float = st.one_of(
    st.floats(),
    st.sampled_from([1e-5, 1e-7, 1e16, 1e22, -0.0, 0.5, math.inf, -math.inf, math.nan]),
)
scalar = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    odd_float,
    odd_text,
    st.sampled_from([Colour.RED, Level.HIGH, Tagged("x"), Outcome.QUEUED]),
)
json_like = st.recursive(
    scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(odd_text, inner, max_size=4),
        st.dictionaries(odd_text, inner, max_size=2).map(OrderedDict),
    ),
    max_leaves=12,
)
ref = st.builds(QuestionRef, odd_text, st.integers(min_value=0, max_value=2**64))
option = st.builds(Option, odd_text, odd_text, st.none() | odd_text)
spec = st.builds(
    QuestionSpec,
    odd_text,
    odd_text,
    st.lists(option, max_size=3).map(tuple),
    st.booleans(),
    st.none() | odd_text,
    st.booleans(),
)
question = st.builds(
    Question, ref, odd_text, st.integers(0, 4), spec, st.none() | odd_text, st.none() | odd_text
)
group_asked = st.builds(
    entries.GroupAsked, odd_text, odd_text, st.lists(question, max_size=3).map(tuple), st.booleans()
)
tool_result = st.builds(
    entries.ToolResult,
    odd_text,
    st.sampled_from(list(Outcome)),
    odd_text,
    st.dictionaries(odd_text, json_like, max_size=5),
    st.lists(ref, max_size=3).map(tuple),
)


@given(st.one_of(group_asked, tool_result), st.integers(0, 2**63 - 1), odd_float)
def test_a_line_is_the_stdlibs_line(entry: Any, seq: int, ts: float) -> None:
    try:
        expected = by_the_stdlib(seq, ts, entry)
    except (TypeError, ValueError):  # the stdlib cannot write it: neither may encode
        return
    assert encode(seq, ts, entry) == expected


def test_the_hot_lines_are_written_by_orjson() -> None:
    """Not a vacuous fast path: a queued call's two lines take it."""
    spec_ = QuestionSpec("Which one?", "Pick", (Option("A"), Option("B")))
    asked = entries.GroupAsked(
        "mcp:a:1", "g-1", (Question(QuestionRef("q-1", 3), "g-1", 0, spec_, "a", "mcp:a"),), False
    )
    result = entries.ToolResult("mcp:a:1", Outcome.QUEUED, "Queued.", {"ids": ["q-1"], "n": 1})
    for entry in (asked, result):
        body = entries.converter().unstructure(entry, type(entry))
        body["type"] = TAGS[type(entry)]
        line = {"v": SCHEMA_VERSION, "seq": 3, "ts": 1733456789.25, **body}
        checked = BY_ORJSON[type(entry)]
        assert entries._orjson_line(line, checked) == by_the_stdlib(3, 1733456789.25, entry)


def test_every_code_point_is_escaped_alike() -> None:
    import orjson  # noqa: PLC0415

    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF)
    assert orjson.dumps(text) == json.dumps(text, ensure_ascii=False).encode()


def _holds(hint: Any, seen: set[Any]) -> set[Any]:
    """The leaf types a field of type ``hint`` can hold (attrs classes walked)."""
    if hint is Any or hint is float:
        return {hint}
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType, tuple, dict):
        return set().union(*(_holds(arg, seen) for arg in typing.get_args(hint) if arg != ...))
    if attrs.has(hint) and hint not in seen:
        seen.add(hint)
        hints = typing.get_type_hints(hint)
        return set().union(*(_holds(hints[f.name], seen) for f in attrs.fields(hint)))
    return {hint}


def test_a_listed_class_holds_no_float_or_any_but_its_checked_fields() -> None:
    for cls, checked in BY_ORJSON.items():
        hints = typing.get_type_hints(cls)
        for field in attrs.fields(cls):
            leaves = _holds(hints[field.name], set())
            if field.name in checked:
                assert Any in leaves, (cls, field.name)  # checked for a reason
                continue
            assert not leaves & {float, Any}, (cls, field.name, leaves)
            assert all(
                leaf in (str, int, bool, type(None))
                or (isinstance(leaf, type) and issubclass(leaf, enum.Enum))
                for leaf in leaves
            ), (cls, field.name, leaves)


def test_what_the_stdlib_cannot_write_is_still_refused() -> None:
    """orjson would write a date or a UUID; the journal refuses them as before."""
    import datetime  # noqa: PLC0415
    import uuid  # noqa: PLC0415

    for value in (datetime.date(2026, 12, 6), uuid.UUID(int=1)):
        result = entries.ToolResult("c", Outcome.QUEUED, "t", {"k": value})
        with pytest.raises(TypeError):
            encode(1, 0.5, result)


@given(st.lists(odd_text, min_size=1, max_size=4))
def test_the_wait_hint_is_the_stdlibs_json(ids: list[str]) -> None:
    """The queued result's hint, written directly for plain ids, is ``json.dumps``' text."""
    from asks.contract import results  # noqa: PLC0415
    from asks.contract.schema import REF_KEY, TOOL_NAME  # noqa: PLC0415

    spec_ = QuestionSpec("Which one?", "Pick")
    questions = [Question(QuestionRef(qid, 1), "g", 0, spec_) for qid in [*ids, "q-0a1b2c3d4e"]]
    call = {"questions": [{REF_KEY: q.id} for q in questions]}
    expected = f"call {TOOL_NAME} with {json.dumps(call, separators=(',', ':'))}"
    assert results._wait_hint(questions) == expected
    assert results._wait_hint(questions[-1:]) == (
        f'call {TOOL_NAME} with {{"questions":[{{"{REF_KEY}":"q-0a1b2c3d4e"}}]}}'
    )
