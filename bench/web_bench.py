"""Web bridge benchmark: an answer submitted in the browser → feedback in the agent's next
model request.

Run: ``.venv/bin/python -m bench.web_bench [--quick]`` (or all benchmarks: ``-m bench.run``).

One process, one trio loop, a real journal on disk (fsync included): a
the `QuestionHost`, the :class:`~asks.surfaces.web.WebBridge` on 127.0.0.1, and an idle
agent task that awaits ``wait_for_feedback()`` and then calls ``take_feedback()`` —
the moment the answer is in the context of its next model request. For each answer the agent
first asks a new async question (untimed); then the clock starts when the answer is submitted
and stops when ``take_feedback()`` returns it.

* **httpx** (100 answers; 30 with ``--quick``): the submission is an ``httpx`` POST of the
  page's form to ``/answer`` from the same process (the client shares the loop with the
  server, as a browser on the same machine shares its CPUs). Also the POST → 303 time.
* **chromium** (20 answers; 10 with ``--quick``): the system chromium, headless, driven by
  Playwright from a worker thread: the clock starts right before ``click()`` on Submit (so it
  includes Playwright's actionability checks and round trip to the browser), and from the
  form's ``submit`` event as stamped by the page's own clock (``performance.timeOrigin +
  now()``, compared with the agent's ``time.time_ns()``). p99 of 20 samples is their maximum.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import trio
from playwright.sync_api import sync_playwright

from asks.core.model import QuestionRef
from asks.host.host import QuestionHost
from asks.store.journal import Journal
from asks.surfaces.web import WebBridge
from bench._common import (
    Row,
    disk_tempdir,
    header,
    median,
    ms,
    percentile,
    python_argv_quick,
    report,
)

NAME = "web"
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
QUESTION = {
    "question": "Which database?",
    "header": "DB",
    "options": [{"label": "Postgres"}, {"label": "SQLite"}, {"label": "MySQL"}],
}

# Run in the page by Playwright (not subject to the page's CSP): stamp the submit event.
STAMP_SUBMIT = """form => form.addEventListener("submit", () => sessionStorage.setItem(
    "submitted", String(performance.timeOrigin + performance.now())), { once: true })"""


class TimedSaves:
    """The surface port, recording when ``answer_from`` is called (ns) per question."""

    def __init__(self, port: Any, saving: dict[QuestionRef, int]) -> None:
        self._port, self._saving = port, saving

    def __getattr__(self, name: str) -> Any:
        return getattr(self._port, name)

    def answer_from(self, question_id: str, incarnation: int, *args: Any, **kw: Any) -> Any:
        self._saving[QuestionRef(question_id, incarnation)] = time.perf_counter_ns()
        return self._port.answer_from(question_id, incarnation, *args, **kw)


class Session:
    """Host + bridge + an idle agent that records when each answer reaches it (ns)."""

    def __init__(self, data_dir: Path, tag: str) -> None:
        self.journal = Journal.create(data_dir=data_dir, session_id=f"web-{tag}")
        self.host = QuestionHost(self.journal)
        self.received: dict[QuestionRef, int] = {}
        self.received_wall: dict[QuestionRef, int] = {}  # time.time_ns(), to compare with
        # the browser's own clock (performance.timeOrigin + now(): Unix ms)
        self.arrived: dict[QuestionRef, trio.Event] = {}
        self.calls = 0
        self.saving: dict[QuestionRef, int] = {}  # when the bridge called the host to save
        # The bridge's port, with the moment it asks the host to save an answer recorded.
        self.bridge = WebBridge(TimedSaves(self.host.surface_port, self.saving))  # type: ignore[arg-type]

    def ask(self) -> QuestionRef:
        call_id = f"c{self.calls}"
        self.calls += 1
        self.host.agent_port.start_call(call_id, {"blocking": False, "questions": [QUESTION]})
        ref = self.host.surface_port.projection.calls[call_id].refs[0]
        self.arrived[ref] = trio.Event()
        return ref

    async def agent(self) -> None:
        while True:
            await self.host.agent_port.wait_for_feedback()
            feedback = self.host.agent_port.take_feedback()  # the next model request's addition
            now, wall = time.perf_counter_ns(), time.time_ns()
            if feedback is not None:
                for ref in feedback.refs:
                    self.received[ref] = now
                    self.received_wall[ref] = wall
                    self.arrived[ref].set()


def summarise(rows: list[Row], label: str, values: list[int], what: str) -> None:
    report(rows, Row(NAME, f"{label}: median", ms(median(values))))
    report(rows, Row(NAME, f"{label}: p99", ms(percentile(values, 99))))
    print(f"  ({what}; n={len(values)}, min {ms(min(values))}, max {ms(max(values))})")


async def bench_httpx(rows: list[Row], data_dir: Path, count: int) -> None:
    s = Session(data_dir, "httpx")
    latencies, responses = [], []
    async with trio.open_nursery() as nursery:
        url = await nursery.start(s.bridge.run)
        nursery.start_soon(s.agent)
        base = f"http://{urlsplit(url).netloc}"
        async with httpx.AsyncClient(base_url=base, follow_redirects=False) as client:
            for _ in range(count + 5):  # 5 warm-up answers, not counted
                ref = s.ask()
                form = {
                    "csrf": s.bridge.csrf_token,
                    "question": ref.id,
                    "incarnation": str(ref.incarnation),
                    "choice": "1",
                }
                t0 = time.perf_counter_ns()
                response = await client.post(f"/answer?token={s.bridge.token}", data=form)
                t1 = time.perf_counter_ns()
                assert response.status_code == 303, response.text
                await s.arrived[ref].wait()
                latencies.append(s.received[ref] - t0)
                responses.append(t1 - t0)
        s.bridge.close()
        nursery.cancel_scope.cancel()
    s.journal.close()
    summarise(
        rows,
        f"httpx POST → agent feedback, n={count}",
        latencies[5:],
        "submit → take_feedback() returned it",
    )
    summarise(
        rows,
        f"  httpx POST → 303 response, n={count}",
        responses[5:],
        "includes the journal append + fsync",
    )


async def bench_chromium(rows: list[Row], data_dir: Path, count: int) -> None:
    if not CHROMIUM.exists():
        print(f"  chromium: skipped ({CHROMIUM} is missing; apt-get install chromium)")
        return
    s = Session(data_dir, "chromium")
    started: dict[QuestionRef, int] = {}
    submitted: dict[QuestionRef, float] = {}  # the form's submit event, browser clock (ms)

    def on_trio(fn: Callable[[], Any]) -> Any:
        return trio.from_thread.run_sync(fn)

    def browse(url: str) -> None:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            page = browser.new_page()
            page.set_default_timeout(10_000)
            page.goto(url)
            for _ in range(count + 2):  # 2 warm-up answers, not counted
                ref: QuestionRef = on_trio(s.ask)
                card = page.locator(f"[id='{ref.id}-{ref.incarnation}']")
                card.wait_for()  # arrives live (SSE) or with the page after the last submit
                card.get_by_label("SQLite").check()
                card.locator("form").evaluate(STAMP_SUBMIT)
                with page.expect_navigation():
                    started[ref] = time.perf_counter_ns()
                    card.get_by_role("button", name="Submit").click()
                trio.from_thread.run(s.arrived[ref].wait)
                submitted[ref] = float(page.evaluate("sessionStorage.getItem('submitted')"))
            browser.close()

    async with trio.open_nursery() as nursery:
        url = await nursery.start(s.bridge.run)
        nursery.start_soon(s.agent)
        await trio.to_thread.run_sync(browse, url)
        s.bridge.close()
        nursery.cancel_scope.cancel()
    s.journal.close()
    from_submit = [round(s.received_wall[ref] - ms_ * 1e6) for ref, ms_ in submitted.items()][2:]
    summarise(
        rows,
        f"chromium submit → agent feedback, n={count}",
        from_submit,
        "the form's submit event (browser clock) → take_feedback() returned it",
    )
    server = [s.received[ref] - s.saving[ref] for ref in started][2:]
    summarise(
        rows,
        f"  chromium: host save → agent feedback, n={count}",
        server,
        "the server's part: the rest is chromium sending the request",
    )
    from_click = [s.received[ref] - t0 for ref, t0 in started.items()][2:]
    summarise(
        rows,
        f"  chromium click() → agent feedback, n={count}",
        from_click,
        "Playwright's click() call, with its actionability checks, → feedback",
    )


def main(quick: bool = False) -> list[Row]:
    header(
        "web_bench" + (" (quick)" if quick else ""),
        "answer submitted in the browser → feedback in the agent's next model request "
        "(httpx form POST, and the system chromium via Playwright)",
    )
    rows: list[Row] = []
    with disk_tempdir() as (data_dir, where):
        print(f"filesystem: {where}")

        async def run() -> None:
            await bench_httpx(rows, data_dir, 30 if quick else 100)
            await bench_chromium(rows, data_dir, 10 if quick else 20)

        trio.run(run)
    return rows


if __name__ == "__main__":
    main(python_argv_quick())
