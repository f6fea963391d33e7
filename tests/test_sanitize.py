"""Stored text is data: escape sequences and controls never survive sanitising."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from asks import sanitize
from asks.sanitize import safe_url, sanitize_line, sanitize_text

ESC = "\x1b"
BEL = "\x07"
ST = ESC + "\\"


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        # CSI: colours, cursor movement, screen clearing, private modes
        (f"{ESC}[31mred{ESC}[0m", "red"),
        (f"a{ESC}[2J{ESC}[Hb", "ab"),
        (f"x{ESC}[?1049hy{ESC}[?25l", "xy"),
        (f"{ESC}[38;2;255;0;0mrgb", "rgb"),
        # OSC 8 hyperlinks, both terminators
        (f"{ESC}]8;;https://evil.example{ST}click{ESC}]8;;{ST}", "click"),
        (f"{ESC}]8;;https://evil.example{BEL}click{ESC}]8;;{BEL}", "click"),
        # OSC 52 clipboard write and OSC 0 title
        (f"before{ESC}]52;c;cm0gLXJmIH4K{BEL}after", "beforeafter"),
        (f"{ESC}]0;pwned title{ST}text", "text"),
        # DCS / PM / APC / SOS strings
        (f"a{ESC}Pq#0;2;0;0;0{ST}b", "ab"),
        (f"a{ESC}^privacy{ST}b", "ab"),
        (f"a{ESC}_apc payload{ST}b", "ab"),
        (f"a{ESC}Xsos{ST}b", "ab"),
        # an unterminated string swallows the rest, as a terminal would
        (f"keep{ESC}]0;never ends", "keep"),
        # other escape sequences and a lone ESC
        (f"{ESC}(Bcharset{ESC}7{ESC}c", "charset"),
        (f"lone{ESC}", "lone"),
        # C0 (except newline), DEL, C1 (never as introducers: text after them survives)
        ("a\x00b\x07c\x08d\x0be\x0cf\x7fg", "abcdefg"),
        ("a\x9b31mb\x9d0;t\x85c", "a31mb0;tc"),
        # bidi controls
        ("abc\u202edcba\u202c", "abcdcba"),
        ("\u2066x\u2067y\u2068z\u2069\u200e\u200f\u061c", "xyz"),
        # carriage returns
        ("a\r\nb\rc", "a\nb\nc"),
        ("overwrite\rhidden", "overwrite\nhidden"),
    ],
)
def test_sanitize_text_strips(raw: str, clean: str) -> None:
    assert sanitize_text(raw) == clean


def test_tabs_expand_to_four_column_stops() -> None:
    assert sanitize_text("\tx") == "    x"
    assert sanitize_text("ab\tc") == "ab  c"
    assert sanitize_text("a\n\tb") == "a\n    b"


def test_keeps_newlines_and_normal_unicode() -> None:
    text = "Hello, wörld!\n日本語のテキスト 🎉👩‍💻\nעברית и русский\ncafé e\u0301"
    assert sanitize_text(text) == text


def test_lone_surrogates_become_replacement_characters() -> None:
    assert sanitize_text("a\ud800b") == "a\ufffdb"
    sanitize_text("x\udfff").encode("utf-8")  # must be encodable


def test_sanitize_line_turns_newlines_into_spaces() -> None:
    assert sanitize_line("one\ntwo\r\nthree\rfour") == "one two three four"
    assert sanitize_line(f"{ESC}[1mbold{ESC}[0m\tx") == "bold    x"


@given(st.text())
def test_sanitized_text_has_no_controls(raw: str) -> None:
    clean = sanitize_text(raw)
    forbidden = {chr(c) for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))} - {"\n"}
    forbidden |= set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
    assert not forbidden & set(clean)
    assert sanitize_text(clean) == clean
    assert "\n" not in sanitize_line(raw)


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com",
        "http://example.com/path?q=1&r=2#frag",
        "https://例え.jp/パス",
        "http://127.0.0.1:8080/x",
        "https://[::1]/",
        "HTTPS://EXAMPLE.COM/",
    ],
)
def test_safe_url_accepts_http_urls(url: str) -> None:
    assert safe_url(url) == url


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "ftp://example.com",
        "data:text/html,hi",
        "example.com",
        "http://",
        "http:example.com",
        "https://exa mple.com",
        " https://example.com",
        "https://example.com\n",
        "https://example.com/\x1b[31m",
        "https://example.com/\x9b",
        "https://example.com/\u202egnp.exe",
        "https://exam\u200bple.com",
        'https://example.com/"onmouseover="x',
        "https://example.com/<script>",
        "https://example.com\\@evil.com",
        "http://user:pass@example.com",
        "http://example.com@evil.com",
        "http://example.com:99999/",
        "http://[::1/",
        "https://example.com/" + "a" * 3000,
        "",
        None,
        42,
    ],
)
def test_safe_url_rejects(url: object) -> None:
    assert safe_url(url) is None


def by_every_rule(s: str) -> str:
    """:func:`sanitize_text` without its shortcut for text the rules leave alone."""
    for pattern, by in (
        (sanitize._NEWLINES, "\n"),
        (sanitize._SEQUENCES, ""),
        (sanitize._SURROGATES, "\ufffd"),
        (sanitize._CONTROLS, ""),
    ):
        s = re.sub(pattern, by, s)
    return s.expandtabs(sanitize.TAB_SIZE)


SOME_OF_EVERY_KIND = st.text(
    alphabet=st.one_of(
        st.characters(),
        st.sampled_from("\n\r\t\x1b[]\\\x07\x9c\x00\x7f\x85\u061c\u200e\u202a\u2066\u00a0 "),
        st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
    )
)


@given(st.one_of(st.text(), SOME_OF_EVERY_KIND))
def test_the_shortcut_returns_what_every_rule_would(raw: str) -> None:
    assert sanitize_text(raw) == by_every_rule(raw)


def test_printable_text_with_newlines_takes_the_shortcut() -> None:
    text = "Welcome to asks.\nÜber 😀 — 日本語 (a, b)\n"
    assert sanitize_text(text) is text
    assert sanitize_text(text + "\t") == text + "    "
