"""The httpx chat-completions client (asks/agent/chat_client.py) beyond tests/test_openai_model.py:
the wire quirks of real servers in raw event streams (deltas without ``index``, repeated and
split names, other choices, ``data:`` without a space, CRLF, comments), retry waits, error
bodies that are not JSON, connection reuse after ``[DONE]``, the TLS choice, and that neither
provider loads a vendor SDK (``openai``, ``anthropic``) or pydantic.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from email.utils import formatdate
from pathlib import Path
from typing import Any

import pytest
from support.fake_anthropic import FakeAnthropic
from support.fake_openai import FakeOpenAI, Reply

from asks.agent import chat_client
from asks.agent.events import ModelError, ModelEvent, ModelNotice, TextDelta, ToolCall
from asks.agent.loop import Message
from asks.agent.openai_model import OpenAIModel, Settings

ROOT = Path(__file__).resolve().parents[1]
HI = [Message("user", "hi")]


def sse(*chunks: dict[str, Any], done: bool = True, sep: bytes = b"\n") -> bytes:
    events = [b"data: " + json.dumps(c).encode() + sep + sep for c in chunks]
    return b"".join(events) + (b"data: [DONE]" + sep + sep if done else b"")


def delta(finish: str | None = None, index: int = 0, **fields: Any) -> dict[str, Any]:
    return {"choices": [{"index": index, "delta": fields, "finish_reason": finish}]}


async def events(model: OpenAIModel) -> list[ModelEvent]:
    try:
        return [event async for event in model.stream(HI, ())]
    finally:
        await model.aclose()


def call_delta(**call: Any) -> dict[str, Any]:
    return delta(tool_calls=[call])


async def test_deltas_without_index_and_repeated_or_split_names(server: FakeOpenAI) -> None:
    server.queue(
        Reply(
            raw=sse(
                delta(content="Hi "),
                call_delta(id="a", function={"name": "wo", "arguments": ""}),
                call_delta(function={"name": "rk", "arguments": '{"sec'}),  # a split name: joined
                call_delta(function={"arguments": 'onds": 0}'}),  # no index, no id: continues "a"
                call_delta(id="b", function={"name": "read_file", "arguments": "{}"}),  # a new call
                call_delta(id="b", function={"name": "read_file"}),  # the name repeated: ignored
                delta(index=1, content="another choice: ignored"),
                delta("tool_calls"),
            )
        )
    )
    got = await events(OpenAIModel(Settings("test", server.url)))
    assert got == [
        TextDelta("Hi "),
        ToolCall("a", "work", '{"seconds": 0}'),
        ToolCall("b", "read_file", "{}"),
    ]


async def test_event_stream_syntax_variants(server: FakeOpenAI) -> None:
    """CRLF line ends, ``data:`` without a space, comments and other fields, an event split
    over two ``data`` lines; after ``[DONE]`` nothing counts."""
    first = json.dumps(delta(content="one "))
    raw = (
        b": keep-alive comment\r\n\r\nid: 1\r\ndata:"
        + first.encode()
        + b"\r\n\r\n"
        + b'data: {"choices": [{"index": 0,\r\ndata: "delta": {"content": "two"}}]}\r\n\r\n'
        + sse(delta("content_filter"), sep=b"\r\n")
        + sse(delta(content=" after done"), done=False)
    )
    server.queue(Reply(raw=raw))
    got = await events(OpenAIModel(Settings("test", server.url)))
    assert got == [
        TextDelta("one "),
        TextDelta("two"),
        ModelNotice("The server's content filter cut the reply short."),
    ]


async def test_the_connection_is_reused_after_done(server: FakeOpenAI) -> None:
    model = OpenAIModel(Settings("test", server.url))
    try:
        for _ in range(3):
            assert [e async for e in model.stream(HI, ())] == [TextDelta("ok")]
        client: chat_client.ChatClient = await model._client.get()
        pool = client.http._transport._pool  # type: ignore[attr-defined]
        assert [c.info().count("Request Count: 3") for c in pool.connections] == [1]
    finally:
        await model.aclose()


async def test_no_retry_when_the_server_says_so_and_a_non_json_error_body(
    server: FakeOpenAI,
) -> None:
    server.queue(Reply(status=503, error="x", headers={"x-should-retry": "false"}))
    with pytest.raises(ModelError, match=r"failed \(HTTP 503: x\), after 2 retries"):
        await events(OpenAIModel(Settings("test", server.url)))
    assert len(server.seen) == 1
    error = chat_client.status_error(502, b"<html>Bad gateway</html>")
    assert (error.status_code, error.body) == (502, "<html>Bad gateway</html>")


def test_retry_waits() -> None:
    def wait(headers: dict[str, str], attempt: int = 0) -> float:
        return chat_client._backoff(attempt, headers)

    assert wait({"retry-after-ms": "250"}) == 0.25
    assert wait({"retry-after": "3"}) == 3.0
    assert 3 < wait({"retry-after": formatdate(time.time() + 5, usegmt=True)}) <= 5
    for ignored in ({"retry-after": "120"}, {"retry-after": "soon"}, {}):
        assert 0.375 <= wait(ignored) <= 0.5  # 0.5 s minus up to 25 % jitter
    assert 6 <= wait({}, attempt=5) <= 8  # doubling, at most 8 s


def test_request_bodies_with_a_lone_surrogate_still_encode() -> None:
    body = chat_client.dumps({"content": "a\ud800b"})
    assert json.loads(body) == {"content": "a\ud800b"}
    assert chat_client.loads(b'"x\\udfff"') == "x\udfff"


def test_tls_is_set_up_only_when_it_can_be_used(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "http_proxy",
        "https_proxy",
        "all_proxy",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
    ):
        monkeypatch.delenv(name, raising=False)
    assert not chat_client.needs_tls("http://127.0.0.1:8080/v1")
    assert chat_client.needs_tls("https://api.openai.com/v1")
    monkeypatch.setenv("HTTPS_PROXY", "https://proxy.example:3128")
    assert chat_client.needs_tls("http://127.0.0.1:8080/v1")


TURN = """
import sys, trio
from asks.agent.anthropic_model import AnthropicModel
from asks.agent.openai_model import OpenAIModel, Settings
from asks.agent.loop import Message
from asks.agent.provider import Provider

print('httpx' in sys.modules, end=' ')
model = (OpenAIModel if sys.argv[2] == 'openai' else AnthropicModel)(
    Settings('t', sys.argv[1], provider=Provider(sys.argv[2])))


async def main():
    print([type(e).__name__ async for e in model.stream([Message('user', 'hi')], ())], end=' ')
    await model.aclose()


trio.run(main)
print(sorted(n for n in ('openai', 'anthropic', 'pydantic', 'httpx') if n in sys.modules))
"""


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_turn_loads_no_vendor_sdk_nor_pydantic(provider: str) -> None:
    with FakeOpenAI() if provider == "openai" else FakeAnthropic() as server:
        done = subprocess.run(
            [sys.executable, "-c", TURN, server.url, provider],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        )
    assert done.stdout.strip() == "False ['TextDelta'] ['httpx']"


# ---------------------------------------------------------------------------- error pages
NGINX_502 = (
    "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    "<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n"
    "</body>\r\n</html>\r\n"
)
NO_TITLE = (
    "<!doctype html><html><head><style>p{x:1}</style><script>var a=1</script></head>"
    "<body><script>ignored()</script><p>Service &amp; API\n  are down</p></body></html>"
)


@pytest.mark.parametrize(
    ("text", "content_type", "gist"),
    [
        (NGINX_502, "text/html", "502 Bad Gateway"),
        (NO_TITLE, "", "Service & API are down"),  # no title: the visible text
        ("<p>no doctype, but said so</p>", "text/html; charset=utf-8", "no doctype, but said so"),
        (
            "upstream connect error\n  or disconnect",
            "text/plain",
            "upstream connect error or disconnect",
        ),
        ("<b>not html</b>", "text/plain", "<b>not html</b>"),  # plain text is shown as text
        ("word " * 100, "", ("word " * 24).rstrip() + "…"),
    ],
)
def test_an_error_page_becomes_one_short_line(text: str, content_type: str, gist: str) -> None:
    assert chat_client.summary(text, content_type) == gist
    assert len(gist) <= chat_client.SUMMARY_MAX


def test_a_status_error_says_its_status_once() -> None:
    error = chat_client.status_error(502, NGINX_502.encode(), "text/html")
    assert (error.message, error.reason, error.status_code) == (
        "HTTP 502: 502 Bad Gateway",
        "502 Bad Gateway",
        502,
    )
    json_error = chat_client.status_error(400, b'{"error": {"message": "bad"}}')
    assert json_error.reason == "" and json_error.body == {"error": {"message": "bad"}}
