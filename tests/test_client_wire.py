"""The providers' HTTP client on the wire, against real servers on 127.0.0.1: a redirect is
named with its Location and never followed; a success of the wrong content type says what it
was (a web page by its title, JSON where a stream was asked for, a stream where JSON was);
bodies that cannot be read are a bad reply. Before, a 301 read as "the reply stream
ended before the model finished (connection cut?)", or, without streaming, "bad reply: Expecting
value"."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator

import pytest
from support.fake_anthropic import FakeAnthropic
from support.fake_anthropic import Reply as AnthropicReply
from support.fake_openai import FakeOpenAI, Reply

from asks.agent.anthropic_model import AnthropicModel
from asks.agent.events import ModelError, ModelEvent, TextDelta
from asks.agent.http_model import HttpModel
from asks.agent.loop import Message
from asks.agent.openai_model import OpenAIModel
from asks.agent.provider import Provider, Settings

PAGE = (
    b"<!DOCTYPE html><html><head><title>Sign in - Example Portal</title></head>"
    b"<body><form>...</form></body></html>"
)
MOVED = b"<html><head><title>301 Moved Permanently</title></head></html>"
SETTING = "([model] base_url or --base-url)"


@pytest.fixture
def other() -> Iterator[FakeOpenAI]:
    """Where a redirect points: it must never be asked."""
    with FakeOpenAI() as fake:
        yield fake


async def call(model: HttpModel) -> list[ModelEvent]:
    try:
        return [event async for event in model.stream([Message("user", "hi")], ())]
    finally:
        await model.aclose()


async def failure(model: HttpModel) -> str:
    with pytest.raises(ModelError) as caught:
        await call(model)
    text = str(caught.value)
    assert "\n" not in text and "\x1b" not in text
    return text


def openai(server: FakeOpenAI, *, stream: bool = True) -> OpenAIModel:
    return OpenAIModel(Settings("test", server.url, stream=stream))


# ------------------------------------------------------------------------------- redirects
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("stream", [True, False])
async def test_a_redirect_is_named_with_its_location_and_not_followed(
    server: FakeOpenAI, other: FakeOpenAI, status: int, stream: bool
) -> None:
    target = f"{other.url}/chat/completions"
    server.queue(Reply(status=status, headers={"location": target}, body=MOVED))
    line = await failure(openai(server, stream=stream))
    assert line == (
        f"{server.url} redirected the request (HTTP {status}) to {target}; "
        f"redirects are not followed: set the base URL to {other.url} {SETTING}"
    )
    assert len(server.seen) == 1 and other.seen == []  # neither retried nor followed


async def test_a_relative_location_is_resolved_to_a_base_url(server: FakeOpenAI) -> None:
    server.queue(Reply(status=308, headers={"location": "/api/v1/chat/completions?x=1"}, body=b""))
    line = await failure(openai(server))
    base = f"http://127.0.0.1:{server.port}/api/v1"
    assert line.endswith(
        f"to /api/v1/chat/completions?x=1; redirects are not followed: set the "
        f"base URL to {base} {SETTING}"
    )


async def test_a_location_elsewhere_asks_to_check_the_base_url(server: FakeOpenAI) -> None:
    server.queue(
        Reply(status=302, headers={"location": "https://sso.example/login?next=/v1"}, body=MOVED)
    )
    assert await failure(openai(server)) == (
        f"{server.url} redirected the request (HTTP 302) to https://sso.example/login?next=/v1; "
        f"redirects are not followed: check the base URL {SETTING}"
    )


async def test_a_redirect_without_location_and_a_hostile_location(server: FakeOpenAI) -> None:
    server.queue(Reply(status=301, body=MOVED))
    assert await failure(openai(server)) == (
        f"{server.url} answered HTTP 301 (a redirect) without a Location; check the base URL "
        f"{SETTING}"
    )
    # U+202E (right-to-left override) in UTF-8, sent as latin-1 code points: bytes E2 80 AE.
    # (Control characters cannot arrive: h11 refuses such a header.)
    bidi = "\u202e".encode().decode("latin-1")
    server.queue(
        Reply(status=307, headers={"location": f"http://x.example/{bidi}gpj.exe"}, body=b"")
    )
    line = await failure(openai(server))
    assert "\u202e" not in line and "to http://x.example/gpj.exe;" in line


async def test_the_anthropic_model_names_the_redirect_too() -> None:
    with FakeAnthropic() as server, FakeAnthropic() as other:
        target = f"{other.url}/v1/messages"
        server.queue(AnthropicReply(status=301, headers={"location": target}, body=MOVED))
        model = AnthropicModel(Settings("claude-test", server.url, provider=Provider.ANTHROPIC))
        assert await failure(model) == (
            f"{server.url} redirected the request (HTTP 301) to {target}; redirects are not "
            f"followed: set the base URL to {other.url} {SETTING}"
        )
        assert other.seen == []


# ---------------------------------------------------------------------------- content types
@pytest.mark.parametrize("stream", [True, False])
async def test_a_web_page_is_said_by_its_title(server: FakeOpenAI, stream: bool) -> None:
    """A captive portal or a web UI at the base URL answers 200 with a page."""
    server.queue(Reply(body=PAGE, content_type="text/html; charset=utf-8"))
    assert await failure(openai(server, stream=stream)) == (
        f"{server.url} answered with a web page (Sign in - Example Portal), not the model's "
        f"API; check the base URL {SETTING}"
    )


async def test_json_where_a_stream_was_asked_for(server: FakeOpenAI) -> None:
    error = {"error": {"message": "streaming is not supported", "type": "invalid_request"}}
    server.queue(Reply(body=json.dumps(error).encode(), content_type="application/json"))
    assert await failure(openai(server)) == (
        f"{server.url} answered with JSON instead of an event stream (streaming is not "
        "supported); if it cannot stream, set [model] stream = false"
    )
    whole = {
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
        ]
    }
    server.queue(Reply(body=json.dumps(whole).encode(), content_type="application/json"))
    assert await failure(openai(server)) == (
        f"{server.url} answered with JSON instead of an event stream; if it cannot stream, "
        "set [model] stream = false"
    )


async def test_a_stream_where_json_was_asked_for(server: FakeOpenAI) -> None:
    server.queue(Reply(body=b'data: {"choices": []}\n\n', content_type="text/event-stream"))
    assert await failure(openai(server, stream=False)) == (
        f"{server.url} answered with an event stream to a request without streaming; set "
        "[model] stream = true"
    )


async def test_another_type_is_named_with_its_gist(server: FakeOpenAI) -> None:
    server.queue(Reply(body=b"upstream\n  not ready", content_type="text/plain"))
    assert await failure(openai(server)) == (
        f"{server.url} answered with text/plain (upstream not ready) instead of an event "
        "stream; check the base URL"
    )


async def test_no_content_type_is_read_as_what_was_asked_for(server: FakeOpenAI) -> None:
    """A bare server (a framework's streaming response without a media type) still works."""
    server.queue(Reply("streamed", content_type=""))
    assert await call(openai(server)) == [TextDelta("streamed")]
    whole = {
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "whole"},
                "finish_reason": "stop",
            }
        ]
    }
    server.queue(Reply(body=json.dumps(whole).encode(), content_type=""))
    assert await call(openai(server, stream=False)) == [TextDelta("whole")]


async def test_json_types_with_parameters_and_suffixes_are_json(server: FakeOpenAI) -> None:
    whole = {
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
        ]
    }
    for kind in ("application/json; charset=utf-8", "application/vnd.api+json", "APPLICATION/JSON"):
        server.queue(Reply(body=json.dumps(whole).encode(), content_type=kind))
        assert await call(openai(server, stream=False)) == [TextDelta("ok")]
    server.queue(Reply("ok", content_type="text/event-stream; charset=utf-8"))
    assert await call(openai(server)) == [TextDelta("ok")]


# ------------------------------------------------------------------------- unreadable bodies
async def test_a_body_that_is_not_json_is_a_bad_reply(server: FakeOpenAI) -> None:
    server.queue(Reply(body=b"", content_type="application/json"))
    assert await failure(openai(server, stream=False)) == (
        f"bad reply from {server.url}: not JSON: Expecting value: line 1 column 1 (char 0)"
    )


async def test_a_body_its_encoding_cannot_decode_is_a_bad_reply(server: FakeOpenAI) -> None:
    good = gzip.compress(b'{"choices": []}')
    server.queue(
        Reply(
            body=good[:10] + b"garbage",
            content_type="application/json",
            headers={"content-encoding": "gzip"},
        )
    )
    line = await failure(openai(server, stream=False))
    assert line.startswith(f"bad reply from {server.url}: undecodable body (")
    assert len(server.seen) == 1  # not retried
