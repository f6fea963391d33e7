"""Flat entries are encoded without the converter, to the very line the converter writes.

:data:`asks.store.entries.FLAT` lists entry types whose fields are all ``str``, ``int``,
``float``, ``bool`` or enums; :func:`~asks.store.entries.encode` writes their fields directly so
that a new session's first lines need no cattrs before the first frame. The
properties: each listed type really is flat, the direct line is byte for byte the converter's
line for any values, and it decodes back to the same entry.
"""

from __future__ import annotations

import enum
import typing
from typing import Any

import attrs
import orjson
from hypothesis import given
from hypothesis import strategies as st

from asks.store import entries
from asks.store.entries import FLAT, SCHEMA_VERSION, TAGS, decode, encode
from asks.store.flatjson import as_orjson_writes

PRIMITIVE = (str, int, float, bool)


def is_flat(cls: type[Any]) -> bool:
    hints = typing.get_type_hints(cls)
    return all(
        hints[field.name] in PRIMITIVE
        or (isinstance(hints[field.name], type) and issubclass(hints[field.name], enum.Enum))
        for field in attrs.fields(cls)
    )


def by_the_converter(seq: int, ts: float, entry: Any) -> bytes:
    """:func:`encode`'s line as the converter writes it (the path every other entry takes)."""
    body = entries.converter().unstructure(entry, type(entry))
    body["type"] = TAGS[type(entry)]
    return orjson.dumps(
        {"v": SCHEMA_VERSION, "seq": seq, "ts": ts, **body}, option=orjson.OPT_APPEND_NEWLINE
    )


def test_every_listed_type_is_flat() -> None:
    assert FLAT and set(TAGS) >= FLAT
    assert [cls.__name__ for cls in FLAT if not is_flat(cls)] == []
    assert not is_flat(entries.GroupAsked)  # the check tells a nested field apart


def field_values(hint: Any) -> st.SearchStrategy[Any]:
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return st.sampled_from(list(hint))
    return {
        str: st.text(alphabet=st.characters(exclude_categories=("Cs",))),
        int: st.integers(),
        float: st.floats(allow_nan=False, allow_infinity=False),  # JSON has neither
        bool: st.booleans(),
    }[hint]


flat_entry = st.one_of(
    *(
        st.builds(
            cls, **{name: field_values(hint) for name, hint in typing.get_type_hints(cls).items()}
        )
        for cls in sorted(FLAT, key=lambda cls: cls.__name__)
    )
)


@given(flat_entry, st.integers(min_value=0, max_value=2**40), st.floats(0, 2e9))
def test_a_flat_entry_is_the_converters_line(entry: Any, seq: int, ts: float) -> None:
    line = encode(seq, ts, entry)
    assert line == by_the_converter(seq, ts, entry)
    record = decode(line)
    assert (record.seq, record.ts, record.entry) == (seq, ts, entry)


# Any value a flat field can hold, including the ones where the two writers differ (floats
# with exponents, NaN, ints past 64 bits, lone surrogates, control characters).
any_flat_value = st.one_of(
    st.text(),
    st.text(alphabet=st.characters(max_codepoint=0x7F)),
    st.booleans(),
    st.integers(),
    st.integers(min_value=-(2**63) - 2, max_value=-(2**63) + 2),
    st.integers(min_value=2**64 - 2, max_value=2**64 + 2),
    st.floats(),
    st.sampled_from([1e16, 1e-5, 1e-7, 123456789012345680.0, 0.0001, -0.0, 5.0, 2e9]),
    st.sampled_from(list(entries.SessionMode)),
)


@given(st.dictionaries(st.text(min_size=1), any_flat_value, max_size=6))
def test_the_stdlib_writes_a_flat_line_as_orjson_or_leaves_it_to_orjson(
    line: dict[str, Any],
) -> None:
    flat = as_orjson_writes(line)
    try:
        want = orjson.dumps(line, option=orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError:  # orjson refuses it: encode falls back, never the stdlib
        assert flat is None
        return
    assert flat is None or flat == want


def test_a_new_sessions_first_lines_are_written_by_the_stdlib() -> None:
    started = entries.SessionStarted(
        "20261202-130000-abcdef", 1764680400.25, "0.1", entries.SessionMode.INTERACTIVE
    )
    chosen = entries.ModelChosen("scripted", "tour", script="<built-in tour>")
    for seq, entry in enumerate((started, chosen)):
        line = {"v": SCHEMA_VERSION, "seq": seq, "ts": 1764680400.5, **attrs.asdict(entry)}
        line["type"] = TAGS[type(entry)]
        assert as_orjson_writes(line) == encode(seq, 1764680400.5, entry)
