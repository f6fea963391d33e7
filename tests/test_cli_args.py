"""The command line's parse (asks/cli/args.py): every command line, the bare ``asks`` too,
goes through the parser; bad words are refused."""

from __future__ import annotations

import pytest

from asks.cli.args import build_parser, parse_args


def test_no_words_are_the_parsers_defaults() -> None:
    args = parse_args([])
    assert vars(args) == vars(build_parser().parse_args([]))
    assert (args.command, args.mcp, args.web_port, args.words) == (None, False, 0, ())


def test_each_bare_parse_is_its_own_namespace() -> None:
    first = parse_args([])
    first.mcp = True  # dispatch sets it for ``asks hub``
    assert parse_args([]).mcp is False


@pytest.mark.parametrize(
    ("words", "dest", "value"),
    [
        (["--line"], "line", True),
        (["sessions"], "command", "sessions"),
        (["--web-port", "80"], "web_port", 80),
    ],
)
def test_words_go_through_the_parser(words: list[str], dest: str, value: object) -> None:
    assert getattr(parse_args(words), dest) == value
    assert vars(parse_args(words)) == vars(build_parser().parse_args(words))


def test_bad_words_are_still_refused() -> None:
    with pytest.raises(SystemExit) as exited:
        parse_args(["--web-port", "no"])
    assert exited.value.code == 2
