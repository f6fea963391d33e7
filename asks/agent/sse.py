"""Server-sent events decoded from the bytes of a response, as the WHATWG HTML standard's
"interpreting an event stream" says (the grammar both providers' streams use).

Pure and incremental: :meth:`Decoder.feed` takes the body in chunks as they arrive, cut
anywhere (inside a line, a UTF-8 sequence or a CR LF pair), and returns the events completed so
far; the same bytes give the same events however they are cut.

* **Lines** end at CR LF, LF or CR, and only there. Other characters that Python's
  ``str.splitlines`` (and so httpx's ``aiter_lines``) treats as line ends — U+2028, U+2029,
  U+0085, form feed, vertical tab, U+001C–U+001E — are data: JSON may carry them unescaped,
  and splitting there cut a model's reply in two ("bad reply: Unterminated string").
* **The stream** is UTF-8 (whatever the content type says); one byte order mark at its start
  is dropped; invalid bytes become U+FFFD.
* **Fields.** A line starting with ``:`` is a comment. Else ``name: value`` (at most one space
  after the first colon is dropped); a line without a colon is the field ``name`` with an empty
  value. ``data`` appends its value to the event's data (values joined with LF); ``event`` sets
  the event's type; ``id`` sets the last event id (kept across events; a value with NUL is
  ignored); ``retry`` with ASCII digits only sets :attr:`Decoder.retry` (milliseconds); other
  fields are ignored.
* **Dispatch.** A blank line ends an event. An event without any ``data`` line is not
  dispatched (``retry:``, ``id:`` or ``event:`` alone, extra blank lines); its type is reset.
  An event the stream ends in the middle of (no blank line after it) is discarded.

Connection handling (what ``[DONE]`` means, errors) is the client's: asks/agent/chat_client.py.
"""

from __future__ import annotations

from typing import Final, NamedTuple

import attrs

BOM: Final = b"\xef\xbb\xbf"
DEFAULT_TYPE: Final = "message"


class Event(NamedTuple):
    """One dispatched event: its data (the ``data`` values joined with LF), its type
    (``message`` unless an ``event:`` line said) and the last event id seen so far. (A named
    tuple, not an attrs class: one is made per streamed chunk; ~0.35 µs against ~0.5 µs.)"""

    data: str
    type: str = DEFAULT_TYPE
    id: str = ""


@attrs.define(eq=False)
class Decoder:
    """The decoding state of one stream (module docstring)."""

    last_id: str = ""
    retry: int | None = None  # the reconnection time a ``retry:`` field set, in ms
    _tail: bytes = b""  # the start of a line whose end has not arrived
    _after_cr: bool = False  # the last chunk ended in CR: an LF first in the next one is its pair
    _started: bool = False  # the byte order mark was looked for
    _data: list[bytes] = attrs.Factory(list)
    _type: bytes = b""

    def feed(self, chunk: bytes) -> list[Event]:
        """The events completed by ``chunk`` (the next bytes of the body)."""
        if self._after_cr and chunk[:1] == b"\n":
            chunk, self._after_cr = chunk[1:], False
        if chunk:
            self._after_cr = chunk[-1:] == b"\r"
        text = self._tail + chunk if self._tail else chunk
        if not self._started:
            if len(text) < len(BOM) and BOM.startswith(text):
                self._tail = text  # perhaps the start of a byte order mark: wait for more
                return []
            self._started = True
            text = text.removeprefix(BOM)
        if b"\r" in text:
            text = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = text.split(b"\n")
        self._tail = lines.pop()
        events: list[Event] = []
        for line in lines:
            if line[:5] == b"data:":  # the common case, first
                self._data.append(line[6:] if line[5:6] == b" " else line[5:])
            elif line:
                self._field(line)
            elif self._data:
                events.append(self._dispatch())
            else:
                self._type = b""
        return events

    def _field(self, line: bytes) -> None:
        if line[0] == 0x3A:  # ":" — a comment
            return
        name, _, value = line.partition(b":")
        if value[:1] == b" ":
            value = value[1:]
        if name == b"data":
            self._data.append(value)
        elif name == b"event":
            self._type = value
        elif name == b"id":
            if b"\0" not in value:
                self.last_id = value.decode("utf-8", "replace")
        elif name == b"retry" and value.isdigit():  # bytes.isdigit: ASCII digits only
            self.retry = int(value)

    def _dispatch(self) -> Event:
        parts = self._data
        data = (parts[0] if len(parts) == 1 else b"\n".join(parts)).decode("utf-8", "replace")
        kind = self._type.decode("utf-8", "replace") if self._type else DEFAULT_TYPE
        self._data, self._type = [], b""
        return Event(data, kind, self.last_id)
