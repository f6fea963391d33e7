"""The event-stream parser: correctness on the SSE grammar and CPU per event.

Run: ``.venv/bin/python -m bench.sse_bench`` (``-m bench.run`` runs it too). To compare with
the ``httpx-sse`` package, which asks does not depend on, put it on the path first:
``pip install --no-deps --target /tmp/hsse httpx-sse`` then ``PYTHONPATH=/tmp/hsse …``.

Three parsers, each fed the same bytes whole and cut into one-byte chunks:

* ``asks`` — :class:`asks.agent.sse.Decoder` (what the client uses);
* ``lines`` — the parser asks had before its own: httpx's ``aiter_lines`` (its ``LineDecoder``,
  which splits like ``str.splitlines``) and ``data:`` lines joined on a blank line;
* ``httpx-sse`` — its ``SSELineDecoder`` and ``SSEDecoder`` (what ``aconnect_sse`` runs),
  when importable.

The grammar cases are those of the WHATWG standard's event-stream interpretation; a parser
"passes" a case when the data of the events it dispatches equals the standard's, for both
cuttings. CPU: a stream of OpenAI-sized chunk events (~230 bytes), one event per network chunk
as a streaming server flushes them, parse only (no JSON), per event.
"""

from __future__ import annotations

import codecs
import json
import time
from collections.abc import Callable, Iterable
from typing import Any

from asks.agent.sse import Decoder
from bench._common import Row, header, median, report

NAME = "sse"
Parser = Callable[[Iterable[bytes]], list[str]]

CASES: dict[str, tuple[bytes, list[str]]] = {
    "comment lines": (b": ping\n\ndata: a\n\n", ["a"]),
    "multi-line data": (b"data: a\ndata: b\n\n", ["a\nb"]),
    "CRLF line ends": (b"data: a\r\n\r\ndata: b\r\n\r\n", ["a", "b"]),
    "CR line ends": (b"data: a\r\rdata: b\r\r", ["a", "b"]),
    "retry: alone": (b"retry: 3000\n\ndata: a\n\n", ["a"]),
    "id: then extra blank lines": (b"id: 7\ndata: a\n\n\n\ndata: b\n\n", ["a", "b"]),
    "event: type": (b"event: ping\ndata: {}\n\n", ["{}"]),
    "data:value (no space)": (b"data:a\n\n", ["a"]),
    "data (no colon)": (b"data\ndata: a\n\n", ["\na"]),
    "U+2028 in JSON": ('data: {"t": "x\u2028y"}\n\n'.encode(), ['{"t": "x\u2028y"}']),
    "U+0085 in JSON": ('data: {"t": "x\u0085y"}\n\n'.encode(), ['{"t": "x\u0085y"}']),
    "byte order mark": (b"\xef\xbb\xbfdata: a\n\n", ["a"]),
    "unfinished last event": (b"data: a\n\ndata: b", ["a"]),
}


def asks_parser(chunks: Iterable[bytes]) -> list[str]:
    decoder = Decoder()
    return [event.data for chunk in chunks for event in decoder.feed(chunk)]


def lines_parser(chunks: Iterable[bytes]) -> list[str]:
    """asks' former parser (chat_client._events over httpx's aiter_lines)."""
    from httpx._decoders import LineDecoder  # noqa: PLC0415 (private: this is what it ran)

    text = codecs.getincrementaldecoder("utf-8")(errors="replace")
    splitter = LineDecoder()
    out: list[str] = []
    data: list[str] = []
    lines = [line for chunk in chunks for line in splitter.decode(text.decode(chunk))]
    for line in [*lines, *splitter.flush()]:
        if line:
            if line.startswith("data:"):
                data.append(line[6:] if line.startswith("data: ") else line[5:])
            continue
        if data:
            out.append("\n".join(data))
            data = []
    return out


def httpx_sse_parser() -> Parser | None:
    try:
        from httpx_sse._decoders import (  # type: ignore[import-not-found, unused-ignore]  # noqa: PLC0415
            SSEDecoder,
            SSELineDecoder,
        )
    except ImportError:
        return None

    def parse(chunks: Iterable[bytes]) -> list[str]:
        text = codecs.getincrementaldecoder("utf-8")(errors="replace")  # httpx's aiter_text
        splitter, decoder = SSELineDecoder(), SSEDecoder()
        lines = [line for chunk in chunks for line in splitter.decode(text.decode(chunk))]
        events = (decoder.decode(line.rstrip("\n")) for line in [*lines, *splitter.flush()])
        return [event.data for event in events if event is not None]

    return parse


def parsers() -> dict[str, Parser]:
    found: dict[str, Parser] = {"asks": asks_parser, "lines": lines_parser}
    if (other := httpx_sse_parser()) is not None:
        found["httpx-sse"] = other
    return found


def passes(parse: Parser, stream: bytes, expected: list[str]) -> bool:
    whole = parse([stream])
    bytewise = parse([stream[i : i + 1] for i in range(len(stream))])
    return whole == expected and bytewise == expected


def stream_events(count: int) -> list[bytes]:
    chunk: dict[str, Any] = {
        "id": "chatcmpl-0123456789",
        "object": "chat.completion.chunk",
        "created": 1764547200,
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": {"content": "word "}, "finish_reason": None}],
    }
    event = b"data: " + json.dumps(chunk).encode() + b"\n\n"
    return [event] * count


def per_event_us(parse: Parser, events: list[bytes], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.process_time()
        got = parse(events)
        times.append(time.process_time() - started)
        assert len(got) == len(events)
    return median(times) / len(events) * 1e6


def main(quick: bool = False) -> list[Row]:
    rows: list[Row] = []
    header("SSE parser", "grammar cases passed (whole and byte by byte); CPU per event")
    found = parsers()
    for case, (stream, expected) in CASES.items():
        verdicts = "  ".join(
            f"{name}: {'ok' if passes(parse, stream, expected) else 'WRONG'}"
            for name, parse in found.items()
        )
        print(f"  {case:<28} {verdicts}")
    events = stream_events(2_000 if quick else 20_000)
    for name, parse in found.items():
        passed = sum(passes(parse, s, e) for s, e in CASES.values())
        report(rows, Row(NAME, f"{name}: grammar cases passed", f"{passed}/{len(CASES)}"))
        cpu = per_event_us(parse, events, 3 if quick else 7)
        report(rows, Row(NAME, f"{name}: CPU per event", f"{cpu:.2f} µs"))
    return rows


if __name__ == "__main__":
    main()
