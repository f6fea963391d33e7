"""The web bridge over real HTTP: hypercorn on 127.0.0.1 (port 0) inside the test's nursery.

Every test talks to the real server with httpx, on the same trio loop as the host: auth, CSRF
and Origin/Host checks, bad input (400/413, nothing saved), conflicts (409, never a second
delivery), the panel racing the browser for the same question (exactly one ``resolved`` line
and one receipt per question), Server-Sent Events, escaping and the security headers.
"""

from __future__ import annotations

import random
import re
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import httpx
import pytest
import trio
import trio.testing
from support.rig import Rig, call, q, wait_on

from asks.contract import ResultEnvelope
from asks.core.model import (
    MAX_CUSTOM_TEXT,
    Answer,
    AnswerKind,
    Outcome,
    QuestionRef,
    QuestionStatus,
)
from asks.core.refusal import Refusal
from asks.core.tabs import ReviewKey
from asks.host.commands import PanelCommand
from asks.surfaces.web import WebBridge
from asks.surfaces.web_bind import binding_warning, is_loopback
from asks.surfaces.web_forms import MAX_BODY
from asks.surfaces.web_http import CSP


@pytest.fixture
async def bridge(rig: Rig, nursery: trio.Nursery) -> AsyncIterator[WebBridge]:
    made = WebBridge(rig.host.surface_port)
    await nursery.start(made.run)
    yield made
    made.close()


@pytest.fixture
async def client(bridge: WebBridge) -> AsyncIterator[httpx.AsyncClient]:
    assert bridge.url is not None
    parts = urlsplit(bridge.url)
    async with httpx.AsyncClient(
        base_url=f"http://{parts.netloc}", follow_redirects=False, timeout=10
    ) as made:
        yield made


def ok(bridge: WebBridge, path: str = "/") -> str:
    """``path`` with the right token."""
    return f"{path}?token={bridge.token}"


def form(bridge: WebBridge, ref: QuestionRef, **fields: str | list[str]) -> dict[str, object]:
    data: dict[str, object] = {
        "csrf": bridge.csrf_token,
        "question": ref.id,
        "incarnation": str(ref.incarnation),
    }
    data.update(fields)
    return data


async def post(
    client: httpx.AsyncClient, bridge: WebBridge, data: dict[str, object], **kwargs: object
) -> httpx.Response:
    return await client.post(ok(bridge, "/answer"), data=data, **kwargs)  # type: ignore[arg-type]


def resolved_lines(rig: Rig) -> list[dict[str, object]]:
    return rig.lines_of("resolved")


def assert_exactly_once(rig: Rig) -> None:
    assert rig.receipts() == dict.fromkeys(rig.saved_units(), 1)


# =========================================================================== the page


async def test_page_lists_pending_questions_grouped_with_blocking_marked(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    rig.async_question("c1", "Which database?", header="DB")
    rig.blocker("c2", q("Which caches?", header="Cache", multi=True), q("Why?", options=None))

    page = (await client.get(ok(bridge))).text

    groups = re.findall(r'<section class="group (\w+)">', page)
    assert groups == ["async", "blocking"]
    assert page.count('data-state="blocking"') == 2
    assert "2 questions asked together" in page
    assert 'type="radio" name="choice" value="custom"' in page  # single select: Type something.
    assert page.count('type="checkbox" name="option"') == 3  # multi-select
    assert page.count('placeholder="Type something."') == 3
    assert page.count('<form method="post"') == 3
    assert f'value="{bridge.csrf_token}"' in page


async def test_questions_from_several_agents_are_grouped_by_agent_in_the_panels_order(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    """Several agents: "Questions from 3 agents", each agent's questions together, agents in the
    order they first asked (the panel's), labels escaped; one agent alone: as before."""
    start = rig.host.agent_port.start_call
    only = (await client.get(ok(bridge))).text
    assert "Questions from the agent" in only and 'class="agent"' not in only
    for call_id, header, source in [
        ("b1", "Canary", "builder"),
        ("p1", "Port", "planner"),
        ("b2", "Tests", "builder"),
        ("r1", "Style", "<b>rev</b>"),
    ]:
        start(call_id, call(q(f"{header}?", header=header), blocking=False), source=source)

    page = (await client.get(ok(bridge))).text

    assert "Questions from 3 agents" in page
    agents = re.findall(r'<h2 class="agent">([^<]*)</h2>', page)
    assert agents == ["builder", "planner", "&lt;b&gt;rev&lt;/b&gt;"]
    sections = re.findall(r'<section class="agent">(.*?)</section></section>', page)
    chips = [re.findall(r'<span class="chip">([^<]*)</span>', s) for s in sections]
    assert chips == [["Canary", "Tests"], ["Port"], ["Style"]]
    assert "<b>rev" not in page


async def test_every_response_carries_the_security_headers(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    ref = rig.async_question("c1", "Which database?")
    responses = [
        await client.get(ok(bridge)),
        await client.get("/"),
        await client.get(ok(bridge, "/nowhere")),
        await client.get(ok(bridge, "/app.js")),
        await post(client, bridge, form(bridge, ref, choice="0")),
    ]
    assert [r.status_code for r in responses] == [200, 403, 404, 200, 303]
    for response in responses:
        assert response.headers["content-security-policy"] == CSP
        assert response.headers["x-content-type-options"] == "nosniff"
        assert response.headers["referrer-policy"] == "no-referrer"
        assert response.headers["cache-control"] == "no-store"
    assert "'unsafe-inline'" not in CSP
    assert responses[3].headers["content-type"].startswith("text/javascript")


async def test_question_text_cannot_inject_markup(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    evil = '<script>alert(1)</script>"><img src=x onerror=alert(2)>\x1b]0;title\x07'
    rig.host.agent_port.start_call(
        "c1",
        {
            "blocking": False,
            "questions": [
                {
                    "question": f"Q {evil}",
                    "header": "<b>H</b>",
                    "context": f"ctx {evil}",
                    "options": [
                        {"label": "<i>a</i>", "description": f"d {evil}", "preview": f"p {evil}"},
                        {"label": "b"},
                    ],
                }
            ],
        },
    )

    page = (await client.get(ok(bridge))).text

    assert "<script>alert" not in page
    assert "<img" not in page and "<b>H" not in page and "<i>a" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img" in page
    assert "\x1b" not in page and "title\x07" not in page
    assert page.count("<script") == 1  # only <script src="/app.js?...">
    assert re.search(r'<script src="/app\.js\?token=[\w-]+" defer></script>', page)


# =========================================================================== auth


@pytest.mark.parametrize("token", [None, "", "wrong", "x" * 43])
async def test_missing_or_wrong_token_is_403_with_no_data(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient, token: str | None
) -> None:
    ref = rig.async_question("c1", "Which secret database?")
    query = "" if token is None else f"?token={token}"
    for path in ("/", "/fragment", "/events", "/app.js", "/app.css"):
        response = await client.get(path + query)
        assert response.status_code == 403, path
        assert "secret" not in response.text
        assert bridge.token not in response.text
        assert bridge.csrf_token not in response.text
    response = await client.post("/answer" + query, data=form(bridge, ref, choice="0"))
    assert response.status_code == 403
    assert resolved_lines(rig) == []


async def test_token_twice_is_refused(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    response = await client.get(f"/?token={bridge.token}&token={bridge.token}")
    assert response.status_code == 403


async def test_wrong_host_header_is_refused(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    ref = rig.async_question("c1", "Which database?")
    port = urlsplit(bridge.url or "").port
    for host in (f"evil.example:{port}", "127.0.0.1:1", f"attacker.test:{port}"):
        page = await client.get(ok(bridge), headers={"Host": host})
        assert page.status_code == 400
        assert "database" not in page.text
        answer = await post(client, bridge, form(bridge, ref, choice="0"), headers={"Host": host})
        assert answer.status_code == 400
    assert (await client.get(ok(bridge), headers={"Host": f"localhost:{port}"})).status_code == 200
    assert resolved_lines(rig) == []


# =========================================================================== CSRF


async def test_post_without_or_with_a_wrong_csrf_token_saves_nothing(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    ref = rig.async_question("c1", "Which database?")
    data = form(bridge, ref, choice="0")
    del data["csrf"]
    assert (await post(client, bridge, data)).status_code == 403
    data["csrf"] = "0" * 64
    assert (await post(client, bridge, data)).status_code == 403
    data["csrf"] = bridge.token  # the session token is not the CSRF token
    assert (await post(client, bridge, data)).status_code == 403
    assert resolved_lines(rig) == []
    assert list(rig.host.surface_port.projection.pending) == [ref]


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Origin": "null", "Sec-Fetch-Site": "cross-site"},
        {"Origin": "http://evil.example", "Sec-Fetch-Site": "same-origin"},
        {"Origin": "https://127.0.0.1"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},
    ],
)
async def test_cross_site_post_is_refused(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient, headers: dict[str, str]
) -> None:
    ref = rig.async_question("c1", "Which database?")
    response = await post(client, bridge, form(bridge, ref, choice="0"), headers=headers)
    assert response.status_code == 403
    assert resolved_lines(rig) == []


async def test_same_origin_post_is_accepted(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    ref = rig.async_question("c1", "Which database?")
    origin = f"http://{urlsplit(bridge.url or '').netloc}"
    headers = {"Origin": origin, "Sec-Fetch-Site": "same-origin"}
    response = await post(client, bridge, form(bridge, ref, choice="1"), headers=headers)
    assert response.status_code == 303


async def test_a_browser_form_post_under_no_referrer_is_accepted(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    """With ``Referrer-Policy: no-referrer`` browsers send ``Origin: null`` on a same-origin
    form post; the browser-set ``Sec-Fetch-Site: same-origin`` vouches for it."""
    ref = rig.async_question("c1", "Which database?")
    headers = {"Origin": "null", "Sec-Fetch-Site": "same-origin"}
    response = await post(client, bridge, form(bridge, ref, choice="1"), headers=headers)
    assert response.status_code == 303


# =========================================================================== bad input


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"choice": "7"}, "does not exist"),
        ({"choice": "-1"}, "does not exist"),
        ({"choice": "x"}, "does not exist"),
        ({"option": "0"}, "one answer"),
        ({}, "Choose an option or type an answer"),
        ({"choice": "custom", "custom": "   "}, "Type an answer first"),
        ({"choice": "custom", "custom": "x" * (MAX_CUSTOM_TEXT + 1)}, "longer than"),
        ({"choice": "0", "notes": "n" * (MAX_CUSTOM_TEXT + 1)}, "longer than"),
        ({"choice": "0", "custom": "also text"}, "also typed an answer"),
        ({"choice": "0", "colour": "red"}, "Unexpected form field"),
        ({"choice": ["0", "1"]}, "sent twice"),
        ({"choice": "0", "action": "explode"}, "Unknown action"),
        ({"choice": "0", "incarnation": "abc"}, "does not name a question"),
        ({"choice": "\u00b2"}, "does not exist"),  # superscript two: isdigit(), not int()
        ({"choice": "\u0661"}, "does not exist"),  # Arabic-Indic one: int() would give 1
        ({"choice": "0", "incarnation": "\u00b9"}, "does not name a question"),
        ({"choice": "0", "incarnation": "\u0661"}, "does not name a question"),
    ],
)
async def test_bad_input_is_400_with_a_clear_message_and_nothing_saved(
    rig: Rig,
    bridge: WebBridge,
    client: httpx.AsyncClient,
    fields: dict[str, str | list[str]],
    expected: str,
) -> None:
    ref = rig.async_question("c1", "Which database?")
    response = await post(client, bridge, form(bridge, ref, **fields))
    assert response.status_code == 400, response.text
    assert expected in response.text
    assert resolved_lines(rig) == []
    assert list(rig.host.surface_port.projection.pending) == [ref]


async def test_multi_select_and_free_text_refuse_the_wrong_shape(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    rig.blocker("c1", q("Which caches?", multi=True), q("Why?", options=None))
    multi, free = rig.ref("c1", 0), rig.ref("c1", 1)
    cases = [
        (multi, {"choice": "0"}),
        (multi, {}),
        (multi, {"option": ["0", "9"]}),
        (multi, {"option": "\uff10"}),
        (multi, {"option": "\u00b9"}),
        (free, {"choice": "0"}),
        (free, {"custom": ""}),
        (free, {"option": "0"}),
    ]
    for ref, fields in cases:
        response = await post(client, bridge, form(bridge, ref, **fields))
        assert response.status_code == 400, (ref, fields, response.text)
    assert resolved_lines(rig) == []


async def test_a_question_without_the_type_something_row_takes_no_typed_answer(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    """``"custom": false``: the page has no text field, and a form that sends text anyway
    (an old page, a hand-made post) is refused with nothing saved; an option is saved."""
    rig.blocker("c1", {**q("Deploy where?", options=("staging", "production")), "custom": False})
    ref = rig.ref("c1")
    page = (await client.get(ok(bridge))).text
    assert 'name="custom"' not in page and "Deploy where?" in page
    for fields in ({"choice": "custom", "custom": "qa"}, {"custom": "qa"}):
        response = await post(client, bridge, form(bridge, ref, **fields))
        assert response.status_code == 400, (fields, response.text)
    assert resolved_lines(rig) == []
    response = await post(client, bridge, form(bridge, ref, choice="1"))
    assert response.status_code == 303, response.text
    assert len(resolved_lines(rig)) == 1


@pytest.mark.parametrize(
    ("content", "content_type"),
    [
        (b"%ff%fe=%80", "application/x-www-form-urlencoded"),  # not UTF-8
        (b"csrf=a&&&=b=c", "application/x-www-form-urlencoded"),  # malformed pairs
        (b"a=1&" * 40, "application/x-www-form-urlencoded"),  # too many fields
        (b'{"choice": 0}', "application/json"),
        (b"--b\r\n\r\n--b--", "multipart/form-data; boundary=b"),
    ],
)
async def test_malformed_forms_are_400(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient, content: bytes, content_type: str
) -> None:
    rig.async_question("c1", "Which database?")
    response = await client.post(
        ok(bridge, "/answer"), content=content, headers={"Content-Type": content_type}
    )
    assert response.status_code == 400
    assert resolved_lines(rig) == []


async def test_a_body_over_the_limit_is_413_and_nothing_saved(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    ref = rig.async_question("c1", "Which database?")
    data = form(bridge, ref, choice="custom", custom="x" * MAX_BODY)
    response = await post(client, bridge, data)
    assert response.status_code == 413
    assert resolved_lines(rig) == []


async def test_unknown_question_and_wrong_method(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    ref = rig.async_question("c1", "Which database?")
    stale = QuestionRef(ref.id, ref.incarnation + 100)
    assert (await post(client, bridge, form(bridge, stale, choice="0"))).status_code == 404
    assert (await client.put(ok(bridge, "/answer"))).status_code == 405
    assert (await client.post(ok(bridge, "/"))).status_code == 405
    assert resolved_lines(rig) == []


# =========================================================================== saving


async def test_an_option_answer_is_saved_delivered_once_and_the_tab_disappears(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    host = rig.host
    host.agent_port.turn_started()
    ref = rig.async_question("c1", "Which database?")
    assert host.panel_port.tabs == (ref,)

    response = await post(client, bridge, form(bridge, ref, choice="2", notes="  fast  "))

    assert response.status_code == 303
    assert response.headers["location"] == f"/?token={bridge.token}&flash=saved"
    [line] = resolved_lines(rig)
    assert line["source"] == "web"
    assert host.panel_port.tabs == ()
    feedback = host.agent_port.take_feedback()
    assert feedback is not None
    assert 'answer "MySQL"' in feedback.text
    assert "fast" in feedback.text
    assert host.agent_port.take_feedback() is None
    followed = await client.get(response.headers["location"])
    assert "Saved." in followed.text
    assert "No pending questions." in followed.text
    assert bridge.statistics().answers_saved == 1
    assert_exactly_once(rig)


async def test_decline_button_declines_that_question(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    ref = rig.async_question("c1", "Which database?")
    response = await post(client, bridge, form(bridge, ref, action="decline"))
    assert response.status_code == 303
    assert response.headers["location"].endswith("flash=declined")
    assert rig.host.surface_port.projection.by_ref[ref].status is QuestionStatus.DECLINED
    feedback = rig.host.agent_port.take_feedback()
    assert feedback is not None and "declined" in feedback.text


async def test_a_blocking_question_answered_in_the_browser_ends_the_wait(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    host = rig.host
    replies: list[object] = []

    async def agent() -> None:
        replies.append(await host.agent_port.ask("c1", call(q("Why?", options=None))))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(agent)
        await trio.testing.wait_all_tasks_blocked()
        ref = rig.ref("c1")
        assert host.panel_port.focus.panel_focused
        response = await post(client, bridge, form(bridge, ref, custom="Because\r\nit is fast"))
        assert response.status_code == 303

    [reply] = replies
    assert isinstance(reply, ResultEnvelope)
    assert reply.outcome is Outcome.ANSWERED
    assert reply.details["answers"][0]["answer"] == "Because\nit is fast"
    assert host.agent_port.take_feedback() is None
    assert not host.panel_port.focus.panel_focused  # focus went back to the chat (the origin)
    assert_exactly_once(rig)


async def test_staged_group_one_web_answer_keeps_the_wait_and_the_terminal_drafts(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    host = rig.host
    wait = rig.blocker("c1", q("Which caches?", multi=True), q("Why?", options=None))
    multi, free = rig.ref("c1", 0), rig.ref("c1", 1)
    host.panel_port.set_custom_text("half-typed reason", tab=free)  # a terminal draft
    draft = host.panel_port.draft(free)

    response = await post(client, bridge, form(bridge, multi, option=["2", "0"]))

    assert response.status_code == 303
    assert not wait.done  # the other question is still open
    assert host.panel_port.draft(free) == draft
    assert host.agent_port.take_feedback() is None  # claimed by the wait, not steered
    assert multi not in host.panel_port.tabs and free in host.panel_port.tabs

    rig.move_to(free, 0)
    host.panel_port.command(PanelCommand.CONFIRM, free)  # Type something. row: stages the answer
    host.panel_port.command(PanelCommand.CONFIRM, ReviewKey("c1"))
    assert wait.done
    reply = await wait.result()
    assert isinstance(reply, ResultEnvelope)
    assert reply.outcome is Outcome.ANSWERED
    answers = {a["questionId"]: a for a in reply.details["answers"]}
    assert answers[multi.id]["optionIndices"] == [0, 2]
    assert answers[free.id]["answer"] == "half-typed reason"
    assert host.agent_port.take_feedback() is None
    assert_exactly_once(rig)


async def test_staged_group_answered_entirely_in_the_browser_ends_answered(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    wait = rig.blocker("c1", q("Which caches?", multi=True), q("Why?", options=None))
    multi, free = rig.ref("c1", 0), rig.ref("c1", 1)
    assert (await post(client, bridge, form(bridge, free, custom="speed"))).status_code == 303
    assert not wait.done
    assert (await post(client, bridge, form(bridge, multi, custom="none"))).status_code == 303
    reply = await wait.result()
    assert isinstance(reply, ResultEnvelope) and reply.outcome is Outcome.ANSWERED
    [result] = rig.tool_results("c1")
    assert {r["id"] for r in result["delivered"]} == {multi.id, free.id}
    assert rig.host.agent_port.take_feedback() is None
    assert_exactly_once(rig)


async def test_staged_wait_deferred_after_a_web_answer_delivers_it_as_feedback(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    host = rig.host
    wait = rig.blocker("c1", q("Which caches?", multi=True), q("Why?", options=None))
    multi = rig.ref("c1", 0)
    assert (await post(client, bridge, form(bridge, multi, option="1"))).status_code == 303
    host.panel_port.command(
        PanelCommand.DEFER, multi if multi in host.panel_port.tabs else rig.ref("c1", 1)
    )
    assert wait.done
    feedback = host.agent_port.take_feedback()
    assert feedback is not None and feedback.refs == (multi,)
    assert_exactly_once(rig)


# =========================================================================== conflicts


async def test_answering_twice_gives_409_and_one_delivery(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    ref = rig.async_question("c1", "Which database?")
    first = await post(client, bridge, form(bridge, ref, choice="0"))
    second = await post(client, bridge, form(bridge, ref, choice="1"))
    assert (first.status_code, second.status_code) == (303, 409)
    assert "already answered" in second.text
    assert len(resolved_lines(rig)) == 1
    assert rig.host.agent_port.take_feedback() is not None
    assert rig.host.agent_port.take_feedback() is None
    assert_exactly_once(rig)


async def test_answered_in_the_terminal_first_gives_409(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    ref = rig.async_question("c1", "Which database?")
    rig.answer_option(ref, 1)
    response = await post(client, bridge, form(bridge, ref, choice="0"))
    assert response.status_code == 409
    assert "already answered" in response.text
    [line] = resolved_lines(rig)
    assert line["source"] == "panel"


async def test_withdrawn_question_gives_409_saying_so(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    ref = rig.async_question("c1", "Which database?")
    assert rig.host.agent_port.withdraw([ref.id], "not needed").all_withdrawn
    response = await post(client, bridge, form(bridge, ref, choice="0"))
    assert response.status_code == 409
    assert "withdrawn by the agent" in response.text
    assert resolved_lines(rig) == []


async def test_storage_failure_is_503_and_the_question_stays_pending(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    ref = rig.async_question("c1", "Which database?")
    rig.ops.fail_next_append("resolved")
    response = await post(client, bridge, form(bridge, ref, choice="0"))
    assert response.status_code == 503
    assert "Not saved: storage error" in response.text
    assert "Not saved: Not saved" not in response.text  # the terminal's notice is not repeated
    assert "draft is kept" not in response.text  # true of the panel, not of the page
    assert list(rig.host.surface_port.projection.pending) == [ref]
    assert rig.host._state.outbox.refs() == ()
    assert (await post(client, bridge, form(bridge, ref, choice="0"))).status_code == 303


async def test_panel_and_browser_race_for_the_same_question_exactly_once(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    host = rig.host
    rng = random.Random(5)
    statuses: list[int] = []
    rounds = 40
    for n in range(rounds):
        blocking = n % 2 == 0
        call_id = f"race-{n}"
        replies: list[object] = []
        async with trio.open_nursery() as nursery:
            if blocking:

                async def agent(call_id: str = call_id, replies: list[object] = replies) -> None:
                    replies.append(await host.agent_port.ask(call_id, call(q(f"Round {call_id}?"))))

                nursery.start_soon(agent)
                await trio.testing.wait_all_tasks_blocked()
            else:
                rig.async_question(call_id, f"Round {call_id}?")
            ref = rig.ref(call_id)

            async def panel(ref: QuestionRef = ref, n: int = n) -> None:
                # round 0 mod 10: the panel goes first; 5 mod 10: the browser surely wins;
                # otherwise a random moment while the request is in flight.
                if n % 10 == 5:
                    await trio.sleep(0.05)
                elif n % 10:
                    for _ in range(rng.randint(0, 6)):
                        await trio.sleep(0)
                    await trio.sleep(rng.random() * 0.003)
                if (
                    ref in host.panel_port.tabs
                ):  # the widget acts on the tab it shows, if still there
                    host.panel_port.command(PanelCommand.CONFIRM, ref)  # cursor on option 0

            async def browser(ref: QuestionRef = ref) -> None:
                response = await post(client, bridge, form(bridge, ref, choice="1"))
                statuses.append(response.status_code)

            nursery.start_soon(browser)
            nursery.start_soon(panel)
        if blocking:
            [reply] = replies
            assert isinstance(reply, ResultEnvelope) and reply.outcome is Outcome.ANSWERED
        else:
            feedback = host.agent_port.take_feedback()
            assert feedback is not None and feedback.refs == (ref,)
        assert host.agent_port.take_feedback() is None
        lines = [
            line
            for line in resolved_lines(rig)
            if any(r["ref"]["id"] == ref.id for r in line["resolutions"])  # type: ignore[attr-defined]
        ]
        assert len(lines) == 1, lines
        winner = "web" if statuses[-1] == 303 else "panel"
        assert statuses[-1] in (303, 409)
        assert lines[0]["source"] == winner
    assert len(statuses) == rounds
    assert 303 in statuses and 409 in statuses  # both sides won some rounds
    assert len(rig.saved_units()) == rounds
    assert_exactly_once(rig)
    assert host.surface_port.projection.duplicate_receipts == 0


async def test_host_answer_from_refuses_bad_answers_without_saving(rig: Rig) -> None:
    host = rig.host
    ref = rig.async_question("c1", "Which database?")
    bad = [
        Answer(AnswerKind.OPTION, (3,)),
        Answer(AnswerKind.OPTION, (0, 1)),
        Answer(AnswerKind.MULTI, (0,)),
        Answer(AnswerKind.CUSTOM, (), "  "),
        Answer(AnswerKind.CUSTOM, (), "x" * (MAX_CUSTOM_TEXT + 1)),
    ]
    for answer in bad:
        assert host.surface_port.answer_from(ref.id, ref.incarnation, answer) is (
            Refusal.INVALID_ANSWER
        )
    assert host.surface_port.answer_from("q-nope", 1, None) is Refusal.UNKNOWN_QUESTION
    assert resolved_lines(rig) == []
    assert host.surface_port.answer_from(ref.id, ref.incarnation, None) is None
    assert host.surface_port.answer_from(ref.id, ref.incarnation, None) is Refusal.ALREADY_ANSWERED


# =========================================================================== live updates


async def next_event(lines: AsyncIterator[str]) -> str:
    """The data of the next ``change`` event (keep-alive comments are skipped)."""
    event = None
    with trio.fail_after(5):
        async for line in lines:
            if line.startswith("event: "):
                event = line.removeprefix("event: ")
            elif line.startswith("data: ") and event == "change":
                return line.removeprefix("data: ")
    raise AssertionError("the event stream ended")


async def test_events_announce_new_answered_and_withdrawn_questions(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    host = rig.host
    async with client.stream("GET", ok(bridge, "/events")) as stream:
        assert stream.status_code == 200
        assert stream.headers["content-type"] == "text/event-stream"
        assert stream.headers["content-security-policy"] == CSP
        lines = stream.aiter_lines()
        first = int(await next_event(lines))
        assert bridge.statistics().event_clients == 1

        ref = rig.async_question("c1", "Which database?")  # arrives
        assert int(await next_event(lines)) == first + 1
        fragment = (await client.get(ok(bridge, "/fragment"))).text
        assert f'data-version="{first + 1}"' in fragment and ref.id in fragment

        host.panel_port.set_custom_text("typing…", tab=ref)  # a keystroke: no event
        other = rig.async_question("c2", "Which cache?")
        assert int(await next_event(lines)) == first + 2  # the next event is the new question

        assert (await post(client, bridge, form(bridge, ref, choice="0"))).status_code == 303
        assert int(await next_event(lines)) == first + 3  # answered: gone
        assert ref.id not in (await client.get(ok(bridge, "/fragment"))).text

        host.agent_port.withdraw([other.id], "no longer needed")
        assert int(await next_event(lines)) == first + 4
        fragment = (await client.get(ok(bridge, "/fragment"))).text
        assert "withdrawn by the agent" in fragment and other.id in fragment
        assert '<article class="question' not in fragment

        wait = rig.start_call("c3", wait_on(ref.id))  # already answered: nothing new pending
        assert wait is not None
        blocker = rig.blocker("c4", q("Now?"))
        assert int(await next_event(lines)) == first + 5
        assert blocker.refs[0].id in (await client.get(ok(bridge, "/fragment"))).text


async def test_closing_the_bridge_ends_event_streams_and_the_server(
    rig: Rig, client: httpx.AsyncClient, bridge: WebBridge
) -> None:
    async with client.stream("GET", ok(bridge, "/events")) as stream:
        lines = stream.aiter_lines()
        await next_event(lines)
        bridge.close()
        with trio.fail_after(5):
            async for _ in lines:
                pass  # the stream ends
    with trio.fail_after(5):
        while bridge.url is not None:
            await trio.sleep(0.01)
    assert bridge.statistics().event_clients == 0


async def test_a_bridge_started_by_the_caller_in_its_nursery_reports_its_url(rig: Rig) -> None:
    bridge = WebBridge(rig.host.surface_port)
    async with trio.open_nursery() as nursery:
        url = await nursery.start(bridge.run)
        assert url == bridge.url
        assert re.fullmatch(rf"http://127\.0\.0\.1:\d+/\?token={re.escape(bridge.token)}", url)
        assert len(bridge.token) >= 40
        assert bridge.warning is None
        async with httpx.AsyncClient() as plain:
            assert (await plain.get(url)).status_code == 200
        bridge.close()
    assert bridge.url is None
    with pytest.raises(RuntimeError):
        await bridge.run()


async def test_a_port_in_use_raises_oserror_before_started(rig: Rig) -> None:
    first = WebBridge(rig.host.surface_port)
    async with trio.open_nursery() as nursery:
        await nursery.start(first.run)
        port = urlsplit(first.url or "").port
        assert port is not None
        second = WebBridge(rig.host.surface_port, port=port)
        with pytest.raises(OSError):
            await nursery.start(second.run)
        with pytest.raises(RuntimeError):
            await nursery.start(first.run)  # already running
        first.close()


def test_binding_beyond_loopback_warns() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert binding_warning("127.0.0.1") is None
    for host in ("0.0.0.0", "::", "192.168.1.10", "example.org"):
        warning = binding_warning(host)
        assert warning is not None and host in warning and "token" in warning


# =========================================================================== the group's note


async def test_a_section_of_several_questions_has_one_note_field_bound_to_its_last_form(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    rig.async_question("c1", "Which database?", header="DB")
    rig.blocker("c2", q("Which cache?", header="Cache"), q("Why?", options=None))
    last = rig.ref("c2", 1)
    group = rig.host.surface_port.question(last).group_id
    page = (await client.get(ok(bridge))).text
    assert page.count('name="group_note"') == 1  # the single async question has none
    assert (
        f'<textarea name="group_note" id="note-{group}" form="form-{last.id}-{last.incarnation}"'
    ) in page
    assert f'" id="form-{last.id}-{last.incarnation}">' in page
    assert "Note for the agent about all these questions" in page


async def test_the_group_note_posted_with_an_answer_reaches_the_wait_result(
    rig: Rig, bridge: WebBridge, client: httpx.AsyncClient
) -> None:
    wait = rig.blocker("c1", q("Which cache?"), q("Why?", options=None))
    first, second = rig.ref("c1", 0), rig.ref("c1", 1)
    note = "for the \x1b[31mstaging\x1b[0m box"
    without_csrf = {
        k: v for k, v in form(bridge, first, choice="0", group_note=note).items() if k != "csrf"
    }
    assert (await post(client, bridge, without_csrf)).status_code == 403
    too_long = form(bridge, first, choice="0", group_note="n" * (MAX_CUSTOM_TEXT + 1))
    assert (await post(client, bridge, too_long)).status_code == 400
    assert resolved_lines(rig) == []  # nothing saved by either

    response = await post(client, bridge, form(bridge, first, choice="0", group_note=note))
    assert response.status_code == 303
    assert not wait.done
    response = await post(client, bridge, form(bridge, second, custom="it is cheap"))
    assert response.status_code == 303
    reply = wait.reply
    assert isinstance(reply, ResultEnvelope) and reply.outcome is Outcome.ANSWERED
    assert reply.details["groupNote"] == "for the staging box"  # sanitised before saving
    assert "User note for all questions: for the staging box." in reply.text
    assert [line.get("group_note") for line in resolved_lines(rig)] == ["for the staging box", None]
    assert_exactly_once(rig)
