"""Flat entries are encoded without the converter, to the very line the converter writes.

:data:`asks.store.entries.FLAT` lists entry types whose fields are all ``str``, ``int``,
``float``, ``bool`` or enums; :func:`~asks.store.entries.encode` writes their fields directly so
that a new session's first lines need no cattrs before the first frame. The
properties: each listed type really is flat, the direct line is byte for byte the converter's
line for any values, and every line decodes back to the same entry — values orjson will not
read back (lone surrogates, ``NaN``, infinities) included, since lines are written
by the stdlib and read by orjson.
"""

from __future__ import annotations

import enum
import json
import math
import typing
from typing import Any

import attrs
from hypothesis import given
from hypothesis import strategies as st

from asks.store import entries
from asks.store.entries import FLAT, SCHEMA_VERSION, TAGS, decode, encode

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
    line = {"v": SCHEMA_VERSION, "seq": seq, "ts": ts, **body}
    return (json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


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


def same(a: Any, b: Any) -> bool:
    """Equal, NaN counted equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


odd_text = st.text(alphabet=st.characters(codec=None, categories=None))  # surrogates too
odd_float = st.one_of(st.floats(), st.sampled_from([1e16, 1e-5, -0.0, math.inf, math.nan]))


@given(
    session=odd_text,
    version=odd_text,
    model=odd_text,
    started=odd_float,
    mode=st.sampled_from(list(entries.SessionMode)),
    seq=st.integers(min_value=0, max_value=2**63 - 1),
)
def test_a_line_orjson_will_not_read_still_reads_back(
    *, session: str, version: str, model: str, started: float, mode: Any, seq: int
) -> None:
    chosen = entries.ModelChosen(model, version, script=session)
    started_entry = entries.SessionStarted(session, started, version, mode)
    for entry in (chosen, started_entry):
        record = decode(encode(seq, started, entry))
        assert record.seq == seq and same(record.ts, started)
        assert all(
            same(getattr(record.entry, field.name), getattr(entry, field.name))
            for field in attrs.fields(type(entry))
        )
