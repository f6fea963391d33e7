"""Agents' permission requests, the pure state model and the host's side
(docs/permission-prompts.md): the request as a question, the verdict (never allow but by
Allow), the replies, and the lifetime on a real host and journal (open → answered | handed
back; resume hands back, never re-asks)."""

from __future__ import annotations

import json

import pytest
import trio
import trio.testing
from support.permission_bodies import CLAUDE, CODEX
from support.rig import Rig

from asks.core.model import Answer, AnswerKind, QuestionRef, Resolution, ResolutionKind
from asks.core.permission import (
    Behavior,
    HandBack,
    HookProblem,
    PermissionRequest,
    Verdict,
    parse_request,
    permission_spec,
    reply_body,
    verdict_of,
)
from asks.host.commands import PanelCommand
from asks.host.permissions import OpenRequest

REF = QuestionRef("q-0000000000", 1)


def body(value: object) -> bytes:
    return json.dumps(value).encode()


# ---------------------------------------------------------------------------- pure
def test_both_clients_bodies_are_requests_with_the_exact_command() -> None:
    claude = parse_request(body(CLAUDE))
    codex = parse_request(body(CODEX))
    assert claude == PermissionRequest("Bash", "npm test", "run the tests", "/work/app", "5b7c")
    assert isinstance(codex, PermissionRequest)
    assert codex.command == "touch /tmp/outside-x"
    assert claude.chip() == "Bash: npm test"


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        (b"not json", 400),
        (body([1, 2]), 400),
        (body({**CLAUDE, "hook_event_name": "PreToolUse"}), 400),
        (body({**CLAUDE, "tool_name": ""}), 400),
        (body({**CLAUDE, "tool_name": "x" * 201}), 400),
        (body({**CLAUDE, "tool_input": "rm -rf /"}), 400),
    ],
)
def test_bodies_that_are_not_a_hook_input_are_refused_with_a_sentence(
    raw: bytes, status: int
) -> None:
    refused = parse_request(raw)
    assert isinstance(refused, HookProblem)
    assert refused.status == status and refused.message.endswith(".")


def test_an_unknown_tool_is_shown_as_it_is() -> None:
    found = parse_request(body({**CLAUDE, "tool_name": "Frob", "tool_input": {"x": [1]}}))
    assert isinstance(found, PermissionRequest)
    assert (found.tool, found.command) == ("Frob", '{"x":[1]}')
    spec = permission_spec(found)
    assert spec.question == '{"x":[1]}' and spec.header == 'Frob: {"x":[1]}'


def test_the_question_is_the_command_with_allow_and_deny() -> None:
    found = parse_request(body(CLAUDE))
    assert isinstance(found, PermissionRequest)
    spec = permission_spec(found)
    assert spec.question == "npm test"
    assert [o.label for o in spec.options] == ["Allow", "Deny"]
    assert spec.context == "run the tests\nin /work/app"


def resolution(answer: Answer | None) -> Resolution:
    kind = ResolutionKind.DECLINED if answer is None else ResolutionKind.ANSWERED
    return Resolution(REF, kind, answer)


def test_only_the_allow_option_allows() -> None:
    allow = Answer(AnswerKind.OPTION, (0,))
    assert verdict_of(resolution(allow)) == Verdict(Behavior.ALLOW)
    deny = verdict_of(resolution(Answer(AnswerKind.OPTION, (1,), notes="not on main")))
    assert deny == Verdict(Behavior.DENY, "not on main")
    typed = verdict_of(resolution(Answer(AnswerKind.CUSTOM, custom_text="yes, run it")))
    assert typed == Verdict(Behavior.DENY, "yes, run it")  # typed text is a reason, never allow
    assert verdict_of(resolution(None)).behavior is Behavior.DENY


def test_the_replies_are_the_shapes_the_clients_read() -> None:
    assert reply_body(Verdict(Behavior.ALLOW)) == {
        "hookSpecificOutput": {
            "hookEventName": "PermissionRequest",
            "decision": {"behavior": "allow"},
        }
    }
    denied = reply_body(Verdict(Behavior.DENY, "why"))
    assert denied["hookSpecificOutput"]["decision"] == {"behavior": "deny", "message": "why"}
    assert reply_body(Verdict(Behavior.HAND_BACK)) == {}


# ---------------------------------------------------------------------------- on a host
def open_request(rig: Rig, label: str = "builder") -> OpenRequest:
    found = parse_request(body(CLAUDE))
    assert isinstance(found, PermissionRequest)
    opened = rig.host.hub_port.permissions.open(label, found)
    assert opened is not None
    return opened


def test_a_request_is_a_tab_that_never_takes_the_keys(rig: Rig) -> None:
    opened = open_request(rig)
    port = rig.host.panel_port
    assert port.tabs == (opened.ref,)
    assert not port.focus.panel_focused and port.focus.claim is None  # not a blocker
    question = rig.host.surface_port.question(opened.ref)
    assert (question.source, question.spec.question) == ("builder", "npm test")
    assert rig.lines_of("group_asked")[0]["call_id"] == opened.call_id
    assert rig.host.statistics().saved_undelivered == 0


async def test_the_persons_allow_is_the_verdict_and_the_reply_is_the_receipt(rig: Rig) -> None:
    desk = rig.host.hub_port.permissions
    opened = open_request(rig)
    assert desk.verdict(opened) is None
    async with trio.open_nursery() as nursery:
        got: list[Verdict] = []

        async def wait() -> None:
            got.append(await desk.decided(opened))

        nursery.start_soon(wait)
        await trio.testing.wait_all_tasks_blocked()
        rig.answer_option(opened.ref, 0)
    assert got == [Verdict(Behavior.ALLOW)]
    desk.replied(opened, got[0])
    (result,) = rig.tool_results(opened.call_id)
    assert result["outcome"] == "answered" and result["delivered"] == [
        {"id": opened.ref.id, "incarnation": opened.ref.incarnation}
    ]
    (decided,) = rig.lines_of("permission_decided")
    assert decided["allowed"] is True and decided["prompt"] == "builder · Bash: npm test"
    assert rig.host.statistics().saved_undelivered == 0  # never feedback for an agent


def test_a_hand_back_closes_the_tab_with_a_notice_and_says_why(rig: Rig) -> None:
    desk = rig.host.hub_port.permissions
    opened = open_request(rig)
    desk.hand_back(opened, HandBack.LIMIT)
    assert rig.host.panel_port.tabs == ()
    (withdrawn,) = rig.lines_of("withdrawn")
    assert withdrawn["reason"] == "permission handed back: the hook's time limit was reached"
    (result,) = rig.tool_results(opened.call_id)
    assert result["outcome"] == "interrupted" and result["delivered"] == []
    assert "handed back" in (rig.host.statistics().notice or "")


def test_a_decline_denies(rig: Rig) -> None:
    desk = rig.host.hub_port.permissions
    opened = open_request(rig)
    assert rig.host.panel_port.enter_panel() is None
    rig.host.panel_port.command(PanelCommand.DECLINE, opened.ref)
    rig.host.panel_port.command(PanelCommand.DECLINE, opened.ref)  # confirmed
    found = desk.verdict(opened)
    assert found is not None and found.behavior is Behavior.DENY


def test_resume_hands_back_open_requests_and_never_re_asks_them(rig: Rig) -> None:
    opened = open_request(rig)
    answered = open_request(rig, "reviewer")
    rig.answer_option(answered.ref, 0)  # answered, the reply never written (a crash)
    host = rig.crash_and_reopen()
    assert host.panel_port.tabs == ()
    (withdrawn,) = rig.lines_of("withdrawn")
    assert withdrawn["reason"] == "permission handed back: asks was restarted"
    assert [r["id"] for r in withdrawn["refs"]] == [opened.ref.id]
    for call in (opened, answered):
        (result,) = rig.tool_results(call.call_id)
        assert result["outcome"] == "interrupted"
    assert host.statistics().saved_undelivered == 0
    host2 = rig.crash_and_reopen()  # a second resume writes nothing more
    assert len(rig.lines_of("withdrawn")) == 1 and host2.panel_port.tabs == ()


def test_quitting_refuses_new_requests_and_hands_back_open_ones(rig: Rig) -> None:
    desk = rig.host.hub_port.permissions
    opened = open_request(rig)
    desk.quit()
    assert desk.verdict(opened) == Verdict(Behavior.HAND_BACK)
    found = parse_request(body(CODEX))
    assert isinstance(found, PermissionRequest)
    assert desk.open("builder", found) is None


def test_the_transcript_says_who_asked_what_and_what_came_of_it(rig: Rig) -> None:
    from asks.hub.narration import narrate  # noqa: PLC0415 (the hub's module)

    lines: list[str] = []
    projection = rig.host.surface_port.projection
    rig.host.subscribe_events(lambda event: lines.extend(narrate(event, projection)))
    desk = rig.host.hub_port.permissions
    allowed = open_request(rig)
    rig.answer_option(allowed.ref, 0)
    desk.replied(allowed, Verdict(Behavior.ALLOW))
    handed = open_request(rig, "reviewer")
    desk.hand_back(handed, HandBack.GONE)
    assert lines == [
        "builder asks permission: Bash: npm test",
        "You allowed builder: Bash: npm test",
        "reviewer asks permission: Bash: npm test",
        "reviewer · Bash: npm test: handed back to the agent's own dialog (answered in the "
        "agent's own dialog, or the agent gave up)",
    ]
