"""The tab bar's chip names, made when read (:class:`~asks.widgets.panel.tabbar.ChipNames`), are
the names the plain numbering gives: a name shared by several chips is numbered from its second
use, in tab order. Checked on random lists of names (hypothesis), read in random order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from asks.widgets.panel.tabbar import ChipNames


def plain(names: list[str]) -> list[str]:
    """Every chip's name, numbered in one pass over all of them."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} {seen[name]}")
    return out


@given(
    st.lists(st.sampled_from(["Versioning", "Review", "Database", "Deploy 2"]), max_size=30),
    st.data(),
)
def test_names_read_in_any_order_are_the_plain_numbering(
    bases: list[str], data: st.DataObject
) -> None:
    names = ChipNames.of(list(bases))
    expected = plain(bases)
    assert len(names) == len(expected)
    order = data.draw(st.permutations(range(len(bases))))
    assert {i: names[i] for i in order} == dict(enumerate(expected))
    assert names[:] == expected  # again, from what was kept
    if bases:
        assert names[-1] == expected[-1]


def test_a_repeated_header_is_numbered_from_its_second_use() -> None:
    names = ChipNames.of(["Versioning", "Database", "Versioning", "Versioning"])
    assert [names[3], names[0], names[2], names[1]] == [
        "Versioning 3",
        "Versioning",
        "Versioning 2",
        "Database",
    ]


@given(
    st.lists(st.sampled_from(["Versioning", "Review", "Database", "Deploy 2"]), max_size=30),
    st.data(),
)
def test_bases_are_made_once_and_only_up_to_the_last_chip_read(
    bases: list[str], data: st.DataObject
) -> None:
    made: list[int] = []

    def bases_of(start: int, stop: int) -> list[str]:
        made.extend(range(start, stop))
        return bases[start:stop]

    names = ChipNames(len(bases), bases_of)
    expected = plain(bases)
    assert len(names) == len(expected)
    assert made == []  # nothing before a chip is read
    reads = data.draw(st.lists(st.integers(0, max(len(bases) - 1, 0)), max_size=8))
    for at in reads if bases else []:
        assert names[at] == expected[at]
        assert made == list(range(max(made[-1] + 1, at + 1)))  # each base once, a prefix
    assert names[:] == expected
    assert made == list(range(len(bases)))
