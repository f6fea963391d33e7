"""The event-stream decoder (asks/agent/sse.py) on the SSE grammar of the WHATWG standard, cut
anywhere; and through the real client against a real server, the cases the old line splitter
(httpx's ``aiter_lines``, ``str.splitlines`` rules) got wrong."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.fake_openai import FakeOpenAI, Reply

from asks.agent.events import ModelEvent, TextDelta
from asks.agent.loop import Message
from asks.agent.openai_model import OpenAIModel, Settings
from asks.agent.sse import Decoder, Event

# (stream, the events the standard dispatches for it)
GRAMMAR: dict[str, tuple[bytes, list[Event]]] = {
    "comments": (b": ping\n:\n\ndata: a\n\n", [Event("a")]),
    "multi-line data": (b"data: a\ndata:\ndata:  b\n\n", [Event("a\n\n b")]),
    "CRLF": (b"data: a\r\n\r\ndata: b\r\n\r\n", [Event("a"), Event("b")]),
    "CR": (b"data: a\r\rdata: b\r\r", [Event("a"), Event("b")]),
    "mixed line ends": (b"data: a\r\ndata: b\rdata: c\n\r\n", [Event("a\nb\nc")]),
    "retry alone is no event": (b"retry: 3000\n\ndata: a\n\n", [Event("a")]),
    "blank lines after an id": (
        b"id: 7\ndata: a\n\n\n\ndata: b\n\n",
        [Event("a", id="7"), Event("b", id="7")],
    ),
    "event type, reset after dispatch": (
        b"event: ping\ndata: {}\n\ndata: x\n\n",
        [Event("{}", "ping"), Event("x")],
    ),
    "type without data is dropped": (b"event: ping\n\ndata: x\n\n", [Event("x")]),
    "no space after the colon": (b"data:a\n\n", [Event("a")]),
    "one space dropped, not two": (b"data:  a\n\n", [Event(" a")]),
    "a field without a colon": (b"data\ndata: a\n\n", [Event("\na")]),
    "an empty data line": (b"data:\n\n", [Event("")]),
    "unknown fields": (b"foo: bar\ndata: a\nDATA: b\n\n", [Event("a")]),
    "colon in the value": (b'data: {"a": "b:c"}\n\n', [Event('{"a": "b:c"}')]),
    "U+2028, U+2029, U+0085, FF, VT are data": (
        "data: x\u2028y\u2029z\u0085w\x0cv\x0bu\x1cT\n\n".encode(),
        [Event("x\u2028y\u2029z\u0085w\x0cv\x0bu\x1cT")],
    ),
    "a byte order mark at the start": (b"\xef\xbb\xbfdata: a\n\n", [Event("a")]),
    "a byte order mark later is data": (b"data: a\n\n\xef\xbb\xbfdata: b\n\n", [Event("a")]),
    "invalid UTF-8 becomes U+FFFD": (b"data: a\xffb\n\n", [Event("a\ufffdb")]),
    "an unfinished last event is discarded": (b"data: a\n\ndata: b", [Event("a")]),
    "an id with NUL is ignored": (
        b"id: 1\ndata: a\n\nid: 2\x00\ndata: b\n\n",
        [Event("a", id="1"), Event("b", id="1")],
    ),
}


def feed_all(chunks: list[bytes]) -> tuple[list[Event], Decoder]:
    decoder = Decoder()
    return [event for chunk in chunks for event in decoder.feed(chunk)], decoder


@pytest.mark.parametrize("case", list(GRAMMAR))
def test_the_grammar_whole_and_byte_by_byte(case: str) -> None:
    stream, expected = GRAMMAR[case]
    assert feed_all([stream])[0] == expected
    assert feed_all([stream[i : i + 1] for i in range(len(stream))])[0] == expected


def test_retry_sets_the_reconnection_time_only_with_digits() -> None:
    _, decoder = feed_all([b"retry: 1500\n\n"])
    assert decoder.retry == 1500
    _, decoder = feed_all([b"retry: 1500\nretry: soon\nretry: 1.5\nretry: \xd9\xa3\n\n"])
    assert decoder.retry == 1500  # not digits (an Arabic-Indic three neither): ignored


@st.composite
def cut(draw: st.DrawFn, stream: bytes) -> list[bytes]:
    points = sorted(draw(st.sets(st.integers(0, len(stream)), max_size=len(stream))))
    edges = [0, *points, len(stream)]
    return [stream[a:b] for a, b in itertools.pairwise(edges)]


LINE = st.sampled_from(
    [
        b"data: x\xe2\x80\xa8y",
        b"data:",
        b": c",
        b"event: e",
        b"id: 9",
        b"retry: 5",
        b"",
        "data: é€😀".encode(),
        b'data:{"k": 1}',
    ]
)
ENDS = st.sampled_from([b"\n", b"\r", b"\r\n"])


@given(st.data(), st.lists(st.tuples(LINE, ENDS), max_size=12))
def test_any_cutting_gives_the_same_events(
    data: st.DataObject, lines: list[tuple[bytes, bytes]]
) -> None:
    stream = b"\xef\xbb\xbf" * data.draw(st.booleans()) + b"".join(a + b for a, b in lines)
    whole, decoder = feed_all([stream])
    pieces, other = feed_all(data.draw(cut(stream)))
    assert pieces == whole
    assert (other.retry, other.last_id) == (decoder.retry, decoder.last_id)


# ------------------------------------------------------------ through the client, real server
def event(sep: bytes = b"\n", **delta: Any) -> bytes:
    chunk = {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    return b"data: " + json.dumps(chunk, ensure_ascii=False).encode() + sep + sep


FINISH = (
    b'data: {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}\n\ndata: [DONE]\n\n'
)


async def streamed(server: FakeOpenAI, raw: bytes) -> list[ModelEvent]:
    server.queue(Reply(raw=raw))
    model = OpenAIModel(Settings("test", server.url))
    try:
        return [e async for e in model.stream([Message("user", "hi")], ())]
    finally:
        await model.aclose()


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085"])
async def test_a_reply_with_a_unicode_line_separator_arrives_whole(
    server: FakeOpenAI, separator: str
) -> None:
    """JSON may carry these unescaped (llama.cpp's server and others send them raw); split
    there, the event was cut in two: 'bad reply: Unterminated string'."""
    text = f"one{separator}two"
    assert await streamed(server, event(content=text) + FINISH) == [TextDelta(text)]


async def test_a_byte_order_mark_and_cr_line_ends(server: FakeOpenAI) -> None:
    raw = b"\xef\xbb\xbf" + event(b"\r", content="a") + event(b"\r", content="b") + FINISH
    assert await streamed(server, raw) == [TextDelta("a"), TextDelta("b")]


async def test_keep_alives_retry_and_empty_events_are_not_replies(server: FakeOpenAI) -> None:
    raw = (
        b"retry: 3000\n\n: keep-alive\n\nid: 1\n\n\n\ndata:\n\n"
        + event(content="a")
        + b"event: ping\n\n"
        + FINISH
    )
    assert await streamed(server, raw) == [TextDelta("a")]
