"""The command line's parse (asks/cli/args.py): the bare ``asks`` skips argparse (issue 21,
launch) and must read exactly as argparse reads no words; any word goes through the parser."""

from __future__ import annotations

import subprocess
import sys

import pytest

from asks.cli.args import DEFAULTS, build_parser, parse_args


def test_no_words_are_the_parsers_defaults() -> None:
    assert vars(parse_args([])) == vars(build_parser().parse_args([]))
    assert dict(DEFAULTS) == vars(build_parser().parse_args([]))


def test_each_bare_parse_is_its_own_namespace() -> None:
    first = parse_args([])
    first.mcp = True  # dispatch sets it for ``asks hub``
    assert parse_args([]).mcp is False
    assert DEFAULTS["mcp"] is False


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


def test_the_bare_parse_loads_no_argparse() -> None:
    code = "import sys, asks.cli.args as a; a.parse_args([]); print('argparse' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
