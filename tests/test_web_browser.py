"""The web bridge in a real browser: Debian's chromium, headless, driven by Playwright.

No browser is downloaded: Playwright launches the system ``/usr/bin/chromium``
(``.ci/run`` installs it with apt when it is missing). The server and the host run on the
test's trio loop; the browser script runs in one worker thread (Playwright's sync API) and
reaches the host only through ``trio.from_thread.run_sync``, as a second surface would.

These tests are marked ``browser`` and always run (CI included): a missing chromium fails
them, it never skips them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
import trio
import trio.testing
from playwright.sync_api import Browser, Page, sync_playwright
from support.rig import Rig, call, q

from asks.contract import ResultEnvelope
from asks.core.model import Outcome, QuestionRef
from asks.surfaces.web import WebBridge

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CACHES = ("Redis", "Memcached", "Varnish")
T = TypeVar("T")


def on_trio(fn: Callable[[], T]) -> T:
    """Run ``fn`` on the trio thread (where the host lives) and return its result."""
    return trio.from_thread.run_sync(fn)


def launch(playwright: Any) -> Browser:
    assert CHROMIUM.exists(), "chromium is missing: apt-get install -y chromium (.ci/run does)"
    browser: Browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    return browser


def watch_errors(page: Page) -> list[str]:
    """Console errors (CSP violations show up here) and uncaught page errors."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.set_default_timeout(10_000)
    return errors


def article(page: Page, ref: QuestionRef) -> Any:
    return page.locator(f"[id='{ref.id}-{ref.incarnation}']")


async def serve(rig: Rig, nursery: trio.Nursery) -> tuple[WebBridge, str]:
    bridge = WebBridge(rig.host.surface_port)
    url: str = await nursery.start(bridge.run)
    return bridge, url


async def test_browser_answers_multi_select_and_free_text_and_sees_live_updates(
    rig: Rig,
) -> None:
    host = rig.host
    host.agent_port.turn_started()
    multi = rig.async_question("c1", "Which caches?", header="Caches", options=CACHES, multi=True)
    free = rig.async_question("c2", "Why that <b>choice</b>?", header="Why", options=None)
    keep = rig.async_question("c3", "Which region?", header="Region")
    assert host.panel_port.tabs == (multi, free, keep)

    def browse(url: str) -> None:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page()
            errors = watch_errors(page)
            page.goto(url)
            page.wait_for_selector("body[data-live='on']")  # the event stream is open
            assert page.locator("article.question").count() == 3
            assert "<b>choice</b>" in article(page, free).locator(".text").inner_text()

            card = article(page, multi)
            card.get_by_label("Redis").check()
            card.get_by_label("Varnish").check()
            card.locator("textarea[name=notes]").fill("both, please")
            with page.expect_navigation():
                card.get_by_role("button", name="Submit").click()
            assert "flash=saved" in page.url
            assert "Saved." in page.locator(".flash").inner_text()
            assert on_trio(lambda: multi not in host.panel_port.tabs)  # the panel's tab is gone

            card = article(page, free)
            card.locator("textarea[name=custom]").fill("Because it\nis fast")
            with page.expect_navigation():
                card.get_by_role("button", name="Submit").click()
            assert article(page, free).count() == 0
            assert on_trio(lambda: host.panel_port.tabs) == (keep,)

            # Live: type a draft, then the agent asks and withdraws; no reload happens.
            article(page, keep).locator("textarea[name=notes]").fill("draft in the browser")
            page.evaluate("window.__sameDocument = true")
            arrived = on_trio(lambda: rig.async_question("c4", "Deploy now?", header="Deploy"))
            article(page, arrived).wait_for()
            assert page.evaluate("window.__sameDocument") is True
            notes = article(page, keep).locator("textarea[name=notes]").input_value()
            assert notes == "draft in the browser"
            article(page, keep).locator("textarea[name=custom]").fill("eu-west")
            assert article(page, keep).locator("input[value=custom]").is_checked()  # app.js
            on_trio(lambda: host.agent_port.withdraw([arrived.id], "not needed"))
            page.locator("li.withdrawn").wait_for()
            assert "withdrawn by the agent" in page.locator("li.withdrawn").inner_text()
            assert article(page, arrived).count() == 0
            assert page.evaluate("window.__sameDocument") is True
            assert errors == []
            browser.close()

    async with trio.open_nursery() as nursery:
        bridge, url = await serve(rig, nursery)
        await trio.to_thread.run_sync(browse, url)
        bridge.close()

    feedback = host.agent_port.take_feedback()  # what the agent's next model request carries
    assert feedback is not None
    assert feedback.refs == (multi, free)
    assert 'answer "Redis, Varnish"' in feedback.text
    assert "both, please" in feedback.text
    assert "Because it\nis fast" in feedback.text
    assert host.agent_port.take_feedback() is None
    assert host.panel_port.tabs == (keep,)
    assert host.panel_port.draft(keep).notes == ""  # the browser's typing is not a terminal draft
    assert {line["source"] for line in rig.lines_of("resolved")} == {"web"}


async def test_browser_answers_a_blocking_group_and_the_tool_call_returns(rig: Rig) -> None:
    host = rig.host
    replies: list[object] = []

    async def agent() -> None:
        replies.append(
            await host.agent_port.ask(
                "c1",
                call(
                    q("Which caches?", header="Caches", options=CACHES, multi=True),
                    q("Anything else?", header="Else", options=None),
                ),
            )
        )

    def browse(url: str, refs: tuple[QuestionRef, ...]) -> None:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page()
            errors = watch_errors(page)
            page.goto(url)
            assert page.locator(".question.blocking .badge").count() == 2
            card = article(page, refs[0])
            card.get_by_label("Memcached").check()
            with page.expect_navigation():
                card.get_by_role("button", name="Submit").click()
            assert on_trio(lambda: host.panel_port.wait_of_call("c1")) is not None  # one still open
            card = article(page, refs[1])
            card.locator("textarea[name=custom]").fill("no")
            with page.expect_navigation():
                card.get_by_role("button", name="Submit").click()
            assert "No pending questions." in page.content()
            assert errors == []
            browser.close()

    async with trio.open_nursery() as nursery:
        bridge, url = await serve(rig, nursery)
        nursery.start_soon(agent)
        await trio.testing.wait_all_tasks_blocked()
        refs = host.surface_port.projection.calls["c1"].refs
        await trio.to_thread.run_sync(browse, url, refs)
        bridge.close()

    [reply] = replies
    assert isinstance(reply, ResultEnvelope)
    assert reply.outcome is Outcome.ANSWERED
    assert [a["answer"] for a in reply.details["answers"]] == ["Memcached", "no"]
    assert host.agent_port.take_feedback() is None  # delivered once, in the tool result
    assert host.panel_port.tabs == ()


async def test_without_javascript_plain_forms_work_and_a_second_tab_gets_409(rig: Rig) -> None:
    ref = rig.async_question("c1", "Which database?", header="DB")

    def browse(url: str) -> None:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            context = browser.new_context(java_script_enabled=False)
            first, second = context.new_page(), context.new_page()
            for page in (first, second):
                page.set_default_timeout(10_000)
                page.goto(url)
            card = article(first, ref)
            card.get_by_label("SQLite").check()
            with first.expect_navigation():
                card.get_by_role("button", name="Submit").click()
            assert "Saved." in first.content()
            card = article(second, ref)  # a stale tab still shows the question
            card.get_by_label("MySQL").check()
            with second.expect_navigation():
                card.get_by_role("button", name="Submit").click()
            assert "already answered" in second.content()
            browser.close()

    async with trio.open_nursery() as nursery:
        bridge, url = await serve(rig, nursery)
        await trio.to_thread.run_sync(browse, url)
        bridge.close()

    feedback = rig.host.agent_port.take_feedback()
    assert feedback is not None and 'answer "SQLite"' in feedback.text
    assert rig.host.agent_port.take_feedback() is None
    assert len(rig.lines_of("resolved")) == 1


async def test_the_note_for_a_group_goes_with_the_next_answer_and_survives_live_updates(
    rig: Rig,
) -> None:
    """On the web page: one note field under a group of several questions."""
    host = rig.host
    replies: list[object] = []

    async def agent() -> None:
        replies.append(
            await host.agent_port.ask(
                "c1",
                call(
                    q("Which caches?", header="Caches", options=CACHES, multi=True),
                    q("Anything else?", header="Else", options=None),
                    q("Which region?", header="Region", options=("eu", "us")),
                ),
            )
        )

    def browse(url: str, refs: tuple[QuestionRef, ...]) -> None:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page()
            errors = watch_errors(page)
            page.goto(url)
            page.wait_for_selector("body[data-live='on']")
            page.locator("textarea[name=group_note]").fill("all for the staging box")
            page.evaluate("window.__sameDocument = true")
            arrived = on_trio(lambda: rig.async_question("c2", "Deploy now?", header="Deploy"))
            article(page, arrived).wait_for()  # a live update merged the list
            assert page.evaluate("window.__sameDocument") is True
            note = page.locator("textarea[name=group_note]").input_value()
            assert note == "all for the staging box"  # what was typed is kept
            card = article(page, refs[0])  # not the form the field belongs to
            card.get_by_label("Redis").check()
            with page.expect_navigation():
                card.get_by_role("button", name="Submit").click()
            assert page.locator("textarea[name=group_note]").input_value() == ""  # it was sent
            card = article(page, refs[1])
            card.locator("textarea[name=custom]").fill("no")
            with page.expect_navigation():
                card.get_by_role("button", name="Submit").click()
            assert page.locator("textarea[name=group_note]").count() == 0  # one question left
            card = article(page, refs[2])
            card.get_by_label("eu").check()
            with page.expect_navigation():
                card.get_by_role("button", name="Submit").click()
            assert errors == []
            browser.close()

    async with trio.open_nursery() as nursery:
        bridge, url = await serve(rig, nursery)
        nursery.start_soon(agent)
        await trio.testing.wait_all_tasks_blocked()
        refs = host.surface_port.projection.calls["c1"].refs
        await trio.to_thread.run_sync(browse, url, refs)
        bridge.close()

    [reply] = replies
    assert isinstance(reply, ResultEnvelope) and reply.outcome is Outcome.ANSWERED
    assert reply.details["groupNote"] == "all for the staging box"
    assert reply.text.count("User note for all questions: all for the staging box.") == 1
    notes = [line.get("group_note") for line in rig.lines_of("resolved")]
    assert notes == ["all for the staging box", None, None]  # with the first answer sent


async def test_without_javascript_the_group_note_goes_with_the_last_questions_form(
    rig: Rig,
) -> None:
    rig.blocker("c1", q("Which cache?", header="Cache"), q("Why?", options=None))
    last = rig.ref("c1", 1)

    def browse(url: str) -> None:
        with sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_context(java_script_enabled=False).new_page()
            page.set_default_timeout(10_000)
            page.goto(url)
            page.locator("textarea[name=group_note]").fill("plain form note")
            card = article(page, last)
            card.locator("textarea[name=custom]").fill("cheap")
            with page.expect_navigation():
                card.get_by_role("button", name="Submit").click()
            assert "Saved." in page.content()
            browser.close()

    async with trio.open_nursery() as nursery:
        bridge, url = await serve(rig, nursery)
        await trio.to_thread.run_sync(browse, url)
        bridge.close()

    [saved] = rig.lines_of("resolved")
    assert saved["group_note"] == "plain form note"
