"""SIGKILL of ``asks --mcp`` with three agents asking: nothing lost, doubled or crossed.

Each round runs the real command — ``asks --mcp --web --line`` (line mode: no terminal is
needed; stdin stays open and silent) — on one session (``--resume`` after the first round),
and, in the test's trio loop, three outside agents on the official MCP SDK's client (two on
2026-07-28, one on an ``initialize`` session as Codex speaks it) and a person answering every
pending question from the web bridge (real HTTP: the page, its CSRF token, a form post). The
agents ask the *same* question text, async and blocking, and call ``check_answers``; every
response text they receive is kept. A round kills the process with SIGKILL right after the
n-th completed step (an agent's call or a saved answer; n drawn per round from a seeded
generator), while the others' calls are in flight: the kill lands wherever they are — between
a question's save and its response, an answer's save and its delivery, an offer and its
receipt. The last round is not killed: the person answers what is left and each agent calls
until it is owed nothing, then stdin closes and asks exits 0.

Then, per agent (docs/architecture.md, "The hub"): every answer the journal saved for its question
was received by it at least once; a second copy only ever came in a response that said it may
repeat one (:data:`~asks.host.hub.REPEATED_NOTE`: the crash fell between offer and receipt);
it never received an answer to another agent's question; and every answer the web bridge
acknowledged to the person is in the journal.
"""

from __future__ import annotations

import functools
import json
import os
import random
import re
import signal
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import attrs
import httpx
import httpx2
import pytest
import trio
from mcp.client.client import Client
from mcp.client.streamable_http import streamable_http_client
from support.pty_harness import ROOT

from asks.host.hub import REPEATED_NOTE

pytestmark = pytest.mark.slow

SEED = 20261201
KILLS = 4
STEPS = (4, 24)  # a round is killed right after its n-th step, n in this range
AGENTS = {"alpha": "auto", "beta": "legacy", "gamma": "auto"}  # label → the client's protocol
FINAL_CALLS = 200  # check_answers calls an agent may need in the last round
HANG = 120  # seconds: only ever reached if something hangs
SCRIPT = Path(__file__).resolve().parent / "scripts" / "hub_quiet.toml"
NAME = {"question": "Which name?", "header": "Name"}  # free text: the answer names its question
ANSWERED = re.compile(r'Question (q-[0-9a-f]{10}) "Which name\?": answer "ans-(q-[0-9a-f]{10})"')
IN_RESULT = re.compile(r'"Which name\?"="ans-(q-[0-9a-f]{10})"')


@attrs.define
class Received:
    """Every response text one agent read, in order."""

    texts: list[str] = attrs.Factory(list)

    def answers(self) -> list[tuple[str, bool]]:
        """Each answer (its question id) in each text, with whether that text said it may
        repeat; an answer that names another question than its own fails here."""
        found: list[tuple[str, bool]] = []
        for text in self.texts:
            repeated = REPEATED_NOTE in text
            for asked, answer in ANSWERED.findall(text):
                assert asked == answer, f"{asked} was given the answer to {answer}"
                found.append((asked, repeated))
            found += [(qid, repeated) for qid in IN_RESULT.findall(text)]
        return found


@attrs.define
class Round:
    """One run of ``asks`` and what the test saw of it."""

    process: trio.Process
    hub: str = ""
    web: str = ""
    token: str = ""
    lines: list[str] = attrs.Factory(list)
    ready: trio.Event = attrs.Factory(trio.Event)
    steps: int = 0
    kill_at: int | None = None
    at_offer: bool = False  # kill at the first offer once due, not right after a step
    killed: bool = False

    def step(self) -> None:
        self.steps += 1
        if not self.at_offer and self.due():
            self.kill()

    def due(self) -> bool:
        return self.kill_at is not None and self.steps >= self.kill_at and not self.killed

    def kill(self) -> None:
        self.killed = True
        self.process.send_signal(signal.SIGKILL)  # now: the other calls are in flight

    async def kill_at_an_offer(self, journal: Path) -> None:
        """Once due, kill as soon as the journal shows an offer (its receipt may be next)."""
        with journal.open("rb") as file:
            file.seek(0, os.SEEK_END)
            while not self.killed:
                fresh = file.read()
                if self.due() and b'"type":"feedback_offered"' in fresh:
                    self.kill()
                await trio.sleep(0.0002)

    async def read_output(self) -> None:
        assert self.process.stdout is not None
        pending = b""
        async for chunk in self.process.stdout:  # drained to the end: asks never blocks on it
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for raw in complete:
                line = raw.decode(errors="replace")
                self.lines.append(line)
                if found := re.search(r"Hub on (http://\S+/mcp)", line):
                    self.hub = found.group(1)
                if found := re.search(r"Answer in a browser: (http://\S+)", line):
                    self.web = found.group(1)
                if self.hub and self.web:
                    self.ready.set()


def asks_command(data_dir: Path, session_id: str | None) -> list[str]:
    resume = ["--resume", session_id] if session_id is not None else []
    return [
        sys.executable,
        "-m",
        "asks",
        "--data-dir",
        str(data_dir),
        *resume,
        "--mcp",
        "--mcp-port",
        "0",
        "--web",
        "--web-port",
        "0",
        "--line",
        "--script",
        str(SCRIPT),
    ]


def child_env(tmp_path: Path) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {
        **os.environ,
        "PYTHONPATH": path,
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "LANG": "C.UTF-8",
    }


def token_of(data_dir: Path, env: dict[str, str]) -> str:
    return subprocess.run(
        [sys.executable, "-m", "asks", "mcp", "token", "--data-dir", str(data_dir)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout.strip()


def agent(url: str, token: str, label: str, mode: str) -> Client:
    headers = {"Authorization": f"Bearer {token}", "X-Asks-Agent": label}
    http = httpx2.AsyncClient(headers=headers, timeout=HANG)
    return Client(streamable_http_client(url, http_client=http), mode=mode)  # type: ignore[arg-type]


def text_of(result: Any) -> str:
    return "".join(part.text for part in result.content)


async def run_agent(run: Round, label: str, received: Received, *, final: bool) -> None:
    """Ask (every third call blocking) and check, until the process dies under it; in the
    last round only check, until nothing is owed or pending."""
    try:
        async with agent(run.hub, run.token, label, AGENTS[label]) as session:
            # As Claude Code and Codex do on connecting. (Otherwise the SDK's client fetches
            # the list after its first call's result to check the result against it: a kill
            # in between loses a result the client had read, and the server's receipt.)
            await session.list_tools()
            if final:
                for _ in range(FINAL_CALLS):
                    text = text_of(await session.call_tool("check_answers", {}))
                    received.texts.append(text)
                    if text == "No new answers.\nPending: none.":
                        return
                    await trio.sleep(0.05)
                raise AssertionError(f"{label} is still owed answers after {FINAL_CALLS} calls")
            for n in range(10_000):
                ask = {"questions": [NAME], "blocking": n % 3 == 2}
                received.texts.append(text_of(await session.call_tool("ask_user_question", ask)))
                run.step()
                received.texts.append(text_of(await session.call_tool("check_answers", {})))
                run.step()
    except Exception:
        if final or not run.killed:
            raise


def forms(page: str) -> list[tuple[str, dict[str, str]]]:
    found = []
    for form in re.findall(r'<form method="post".*?</form>', page, re.S):
        fields = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)"', form))
        action = re.search(r'action="([^"]+)"', form)
        if action is not None and "question" in fields:
            found.append((action.group(1).replace("&amp;", "&"), fields))
    return found


async def run_person(run: Round, acknowledged: set[str], stop: trio.Event) -> None:
    """Answer every pending question from the browser, "ans-<its id>", until ``stop``."""
    origin = run.web.split("/?", 1)[0]
    try:
        async with httpx.AsyncClient(timeout=HANG) as browser:
            while not stop.is_set():
                page = (await browser.get(run.web)).text
                for action, fields in forms(page):
                    qid = fields["question"]
                    answer = {**fields, "custom": f"ans-{qid}", "action": "answer"}
                    response = await browser.post(
                        origin + action, data=answer, headers={"Origin": origin}
                    )
                    if response.status_code == 303:
                        acknowledged.add(qid)
                        run.step()
                await trio.sleep(0.02)
    except httpx.TransportError:
        if not run.killed:
            raise


async def one_round(
    tmp_path: Path,
    session_id: str | None,
    kill_at: int | None,
    received: dict[str, Received],
    acknowledged: set[str],
    *,
    at_offer: bool = False,
) -> Round:
    data_dir, env = tmp_path / "data", child_env(tmp_path)
    process = await trio.lowlevel.open_process(
        asks_command(data_dir, session_id),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    run = Round(process, kill_at=kill_at, at_offer=at_offer)
    try:
        with trio.fail_after(HANG):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(run.read_output)
                await run.ready.wait()
                run.token = token_of(data_dir, env)
                if at_offer:
                    nursery.start_soon(run.kill_at_an_offer, next(data_dir.glob("*.jsonl")))
                stop = trio.Event()
                async with trio.open_nursery() as people:
                    people.start_soon(run_person, run, acknowledged, stop)
                    async with trio.open_nursery() as agents:
                        for label in AGENTS:
                            agents.start_soon(
                                functools.partial(
                                    run_agent, run, label, received[label], final=kill_at is None
                                )
                            )
                    stop.set()
                if kill_at is None:
                    assert process.stdin is not None
                    await process.stdin.aclose()  # end of input: asks ends the session cleanly
                status = await process.wait()
    finally:
        if process.returncode is None:  # the round failed: never leave asks running
            process.kill()
            await process.wait()
    if kill_at is None:
        assert status == 0, "\n".join(run.lines)
    else:
        assert status == -signal.SIGKILL, "\n".join(run.lines)
    return run


def journal_lines(data_dir: Path) -> list[dict[str, Any]]:
    (path,) = data_dir.glob("*.jsonl")
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def unreceipted_offers(records: list[dict[str, Any]]) -> dict[str, set[str]]:
    """Offers (feedback, or a blocking call's own answers) with neither receipt nor release:
    offer id → the question ids it carried."""
    offered = {
        r["offer_id"]: {ref["id"] for ref in r["refs"]}
        for r in records
        if r["type"] == "feedback_offered"
    }
    closed = {r["offer_id"] for r in records if r["type"] in ("offer_delivered", "offer_released")}
    return {offer: refs for offer, refs in offered.items() if offer not in closed}


async def test_sigkill_of_the_hub_with_three_agents_loses_doubles_and_crosses_nothing(
    tmp_path: Path,
) -> None:
    rng = random.Random(SEED)
    received = {label: Received() for label in AGENTS}
    acknowledged: set[str] = set()
    session_id: str | None = None
    steps = []
    left_open: dict[str, set[str]] = {}  # offers a kill left without receipt or release
    for round_ in range(KILLS):  # every other round is killed at an offer, once due
        run = await one_round(
            tmp_path,
            session_id,
            rng.randint(*STEPS),
            received,
            acknowledged,
            at_offer=round_ % 2 == 1,
        )
        steps.append(run.steps)
        left_open.update(unreceipted_offers(journal_lines(tmp_path / "data")))
        session_id = session_id or next((tmp_path / "data").glob("*.jsonl")).stem
    await one_round(tmp_path, session_id, None, received, acknowledged)

    records = journal_lines(tmp_path / "data")
    (tmp_path / "received.json").write_text(json.dumps({k: v.texts for k, v in received.items()}))
    recipient = {
        q["ref"]["id"]: q["recipient"]
        for r in records
        if r["type"] == "group_asked"
        for q in r["questions"]
    }
    saved = {
        res["ref"]["id"]: res["answer"]["custom_text"]
        for r in records
        if r["type"] == "resolved"
        for res in r["resolutions"]
        if res["kind"] == "answered"
    }
    assert acknowledged <= set(saved), "an answer the person was told was saved is lost"
    assert all(text == f"ans-{qid}" for qid, text in saved.items())

    repeats = 0
    unsure = set().union(*left_open.values())  # may have reached their agent, or not
    for label, log in received.items():
        answers = log.answers()
        mine = {qid for qid, who in recipient.items() if who == f"mcp:{label}"}
        got = Counter(qid for qid, _ in answers)
        assert set(got) <= mine, f"{label} received another agent's answer"
        owed = {qid for qid in saved if qid in mine}
        assert owed <= set(got), f"{label} never received {sorted(owed - set(got))}"
        seen: defaultdict[str, int] = defaultdict(int)
        for qid, flagged in answers:
            seen[qid] += 1
            if seen[qid] > 1:
                assert flagged, f"{label} received {qid} twice without being told it may repeat"
                repeats += 1
        flagged_copies = {qid for qid, flagged in answers if flagged}
        assert unsure & mine <= flagged_copies, (
            "an answer whose receipt a kill prevented came again without saying it may repeat"
        )
    assert len(saved) >= KILLS and len(set(recipient.values())) == len(AGENTS)
    print(
        f"{KILLS} kills after {steps} steps: {len(recipient)} questions from "
        f"{len(AGENTS)} agents, {len(saved)} answers saved, each received by its agent "
        f"({len(left_open)} offers left open by a kill, carrying {len(unsure)} answers, "
        f"each given again saying it may repeat; {repeats} second copies received)"
    )
