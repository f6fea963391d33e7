"""Stored text is data, never terminal instructions.

Everything a model (or any other untrusted source) writes that may reach the screen, a window
title or the journal goes through :func:`sanitize_text` or :func:`sanitize_line` first; only
URLs accepted by :func:`safe_url` may become links.

:func:`sanitize_text` semantics, applied in this order:

1. ``\\r\\n`` and a lone ``\\r`` become ``\\n``.
2. Escape sequences are removed whole: OSC (``ESC ]``), DCS (``ESC P``), SOS (``ESC X``),
   PM (``ESC ^``) and APC (``ESC _``) strings up to their terminator (BEL, ``ESC \\`` or ST);
   an unterminated string ends at the next ESC, CAN or SUB, or at the end of the text.
   Then CSI sequences (``ESC [`` parameters, intermediates, final byte) and every other
   escape sequence (``ESC``, intermediates, final byte).
3. Lone UTF-16 surrogates (which cannot be encoded as UTF-8) become U+FFFD.
4. Removed outright: any remaining ESC, C0 controls except ``\\n`` and ``\\t``, DEL, the C1
   controls U+0080–U+009F (as single characters: they are never treated as sequence
   introducers, so a stray one cannot swallow the text after it), and the bidi controls
   U+061C, U+200E, U+200F, U+202A–U+202E and U+2066–U+2069.
5. Tabs are expanded to spaces with 4-column tab stops (``str.expandtabs(4)``).

Newlines and all other characters (letters of any script, emoji, combining marks) are kept.
:func:`sanitize_line` does the same and then turns every newline into a space, for one-line
places: headers, labels, titles.

This is hand-written with :mod:`re`: there is no well-kept library that does exactly this
(strip terminal escape sequences *and* C1/bidi controls from ``str``, keep newlines), and the
rules are short enough to read in full here.

Launch cost: every character the rules change or remove (``\\r``, ESC and so every sequence,
surrogates, controls, bidi controls, tabs) is one :meth:`str.isprintable` rejects, so text that
is printable but for its newlines is returned as it is, without the patterns; they are
compiled on first need (compiling their Unicode classes is ~0.7 ms, most of a launch's
regular expressions), not at import.
"""

from __future__ import annotations

import functools
import re
from typing import Final
from urllib.parse import urlsplit

_STRING_SEQUENCE = r"\x1b[\]PX^_][^\x07\x1b\x9c\x18\x1a]*(?:\x07|\x1b\\|\x9c)?"
_CSI_SEQUENCE = r"\x1b\[[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]"
_OTHER_ESCAPE = r"\x1b[\x20-\x2f]*[\x30-\x7e]"
_SEQUENCES: Final = f"{_STRING_SEQUENCE}|{_CSI_SEQUENCE}|{_OTHER_ESCAPE}"

_BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
_CONTROLS: Final = f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}]"
_SURROGATES: Final = "[\ud800-\udfff]"
_NEWLINES: Final = r"\r\n?"

TAB_SIZE: Final = 4
MAX_URL: Final = 2048

# Characters a link target may not contain: whitespace, controls, bidi and zero-width
# characters (spoofing), surrogates, and the ASCII characters RFC 3986 never allows.
_URL_FORBIDDEN: Final = (
    f'[\\s\x00-\x20\x7f-\x9f{_BIDI}\u200b-\u200d\u2060\ufeff\ud800-\udfff"<>\\\\^`{{|}}]'
)


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled, once (module docstring)."""
    return re.compile(pattern)


def warm_up() -> None:
    """Compile every pattern now, off the path of the first text that needs them (a REPL's
    background warm-up, a second after its first frame)."""
    for pattern in (_NEWLINES, _SEQUENCES, _SURROGATES, _CONTROLS, _URL_FORBIDDEN):
        _compiled(pattern)


def sanitize_text(s: str) -> str:
    """Return ``s`` without escape sequences or control characters; newlines are kept."""
    if s.replace("\n", " ").isprintable():  # nothing the rules change (module docstring)
        return s
    s = _compiled(_NEWLINES).sub("\n", s)
    s = _compiled(_SEQUENCES).sub("", s)
    s = _compiled(_SURROGATES).sub("\ufffd", s)
    s = _compiled(_CONTROLS).sub("", s)
    return s.expandtabs(TAB_SIZE)


def sanitize_line(s: str) -> str:
    """Like :func:`sanitize_text`, but newlines become spaces (for headers, labels, titles)."""
    return sanitize_text(s).replace("\n", " ")


def safe_url(s: object) -> str | None:
    """Return ``s`` unchanged if it is a safe http(s) URL to show as a link, else ``None``.

    Safe means: a string of at most :data:`MAX_URL` characters, scheme ``http`` or ``https``,
    a non-empty host, a valid port if any, no user name or password (``http://a.com@b.com``
    spoofing), and no whitespace, controls, bidi or zero-width characters, or the ASCII
    characters that RFC 3986 never allows (``"<>\\^`{|}``).
    """
    if not isinstance(s, str) or not s or len(s) > MAX_URL or _compiled(_URL_FORBIDDEN).search(s):
        return None
    try:
        parts = urlsplit(s)
        parts.port  # noqa: B018 - raises ValueError for a bad port
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    if parts.username is not None or parts.password is not None:
        return None
    return s
