"""Provider benchmarks: launch with a model configured, and what the agent loop adds per call.

Run: ``.venv/bin/python -m bench.provider_bench [--quick]`` (or all benchmarks: ``-m bench.run``).

1. **Launch.** ``asks --model test --base-url <fake server>`` against the scripted launch
   (``asks --script bench/repl_launch.toml``, the launch figure of repl_bench), measured the
   same way: spawn → chat editor drawn, on a real pty read by pyte; runs alternate between the
   two, median of each. Goal: within 10 % (httpx is imported lazily, after launch).
2. **Per model call.** In process, against tests/support/fake_openai.py on 127.0.0.1 answering
   at once (one short streamed reply): the time of ``OpenAIModel.stream`` read to its end and
   of a whole agent turn with one model call (``Agent.run_turn``: the user and assistant
   messages journaled with fsync, the context mapped, the reply streamed into the transcript),
   each minus the server's own handling time as the server measured it. Their difference is
   what the agent loop adds per model call. Contexts of 2 and 200 messages. For comparison,
   when the ``openai`` SDK is installed, its bare call (``create(stream=True)``, the context in
   ``extra_body`` as asks sent it while it used the SDK) and with the context as ``messages=``
   (walked by the SDK's typed transform).
3. **Memory and import cost.** ``import openai`` / ``anthropic`` (the SDKs asks used before its own
   httpx client, when installed) and ``import httpx`` in a fresh interpreter, alone and after
   ``import asks.cli``: RSS added and CPU time, median of a few. ``asks -p`` against the fake
   servers (OpenAI, Anthropic): the peak RSS of the process after one streamed turn (``wait4``). The
   REPL (``--model``, real pty) with one question open: its VmRSS, and "the server wrote the last
   byte of the tool-call reply → the question is on screen".
4. **Provider CPU.** In process, ``OpenAIModel.stream`` read to its end against the
   fake server: CPU time of the trio thread (``time.thread_time``; the server runs in other
   threads) per streamed turn (a short and a long text reply: the difference per chunk) and
   per tool-call reply, and the wall time from the server's last byte to the tool call handed
   to the caller (median; the machine may be shared, so read it next to the CPU figures).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

import trio

from asks import contract
from asks.agent.events import ToolCall
from asks.agent.loop import Agent, Message
from asks.agent.openai_model import OpenAIModel, Settings
from asks.agent.prompts import PromptBroker
from asks.agent.tools import CommandTool, WorkTool
from asks.agent.transcript import Transcript
from asks.host.host import QuestionHost
from asks.store.journal import Journal
from bench._common import (
    PROJECT_ROOT,
    Row,
    disk_tempdir,
    header,
    median,
    python_argv_quick,
    report,
)
from bench.repl_bench import (
    CTRL_C,
    LAUNCH_SCRIPT,
    asks_argv,
    child_env,
    editor_drawn,
    panel_shows,
    running,
    settled_with,
)

sys.path.insert(0, str(PROJECT_ROOT / "tests"))
from support.fake_anthropic import FakeAnthropic  # type: ignore[import-not-found, unused-ignore]
from support.fake_openai import Call, FakeOpenAI, Reply  # type: ignore[import-not-found, unused-ignore]

NAME = "provider"
LAUNCH_RATIO_GOAL = 1.10
REPLY = "The answer is forty-two."
RSS_GOAL_MIB = 51.0
QUESTION = "Bench provider question: which option?"


# ---------------------------------------------------------------------------- launch
def launch_ms(argv: list[str], env: dict[str, str]) -> float:
    """Spawn → chat editor drawn (ms); then quit (Ctrl+C twice while idle)."""
    with running(argv, env) as term:
        term.watch({"editor": editor_drawn})
        hits = term.wait()
        term.until(settled_with(0))
        term.end([CTRL_C, CTRL_C])
    return (hits["editor"] - term.spawn_ns) / 1e6


def bench_launch(rows: list[Row], work: Path, runs: int) -> None:
    env = child_env(work)
    with FakeOpenAI() as server:
        scripted = asks_argv(LAUNCH_SCRIPT, work / "data")
        model = [
            sys.executable,
            "-m",
            "asks",
            "--data-dir",
            str(work / "data"),
            "--model",
            "test",
            "--base-url",
            server.url,
        ]
        launch_ms(scripted, env)  # warm-up: page cache, .pyc files; not counted
        launch_ms(model, env)
        a: list[float] = []
        b: list[float] = []
        for _ in range(runs):
            a.append(launch_ms(scripted, env))
            b.append(launch_ms(model, env))
        if server.seen:
            print("  NOTE: the model launch sent a request (it should not)")
    ratio = median(b) / median(a)
    report(rows, Row(NAME, "launch, scripted (--script) → editor", f"{median(a):.0f} ms"))
    report(rows, Row(NAME, "  runs (ms)", " ".join(f"{x:.0f}" for x in a)))
    report(rows, Row(NAME, "launch, --model (fake server) → editor", f"{median(b):.0f} ms"))
    report(rows, Row(NAME, "  runs (ms)", " ".join(f"{x:.0f}" for x in b)))
    report(
        rows,
        Row(
            NAME,
            "launch with --model / scripted",
            f"{ratio:.2f}x",
            f"≤ {LAUNCH_RATIO_GOAL:.2f}x",
            ratio <= LAUNCH_RATIO_GOAL,
        ),
    )


# ---------------------------------------------------------------------------- per call
def filler(count: int) -> list[Message]:
    words = "lorem ipsum dolor sit amet " * 12
    return [Message("user" if i % 2 == 0 else "assistant", f"{i}: {words}") for i in range(count)]


def sdk_client(server: FakeOpenAI) -> Any:
    """The official SDK's client for the comparison figures, or None if it is not installed."""
    try:
        import openai  # type: ignore[import-not-found, unused-ignore]  # noqa: PLC0415 — optional here
    except ImportError:
        return None
    return openai.AsyncOpenAI(api_key="no-key", base_url=server.url, max_retries=0)


async def sdk_calls(
    server: FakeOpenAI, context: list[Message], count: int, *, typed: bool = False
) -> list[float]:
    """Bare SDK: create(stream=True) and read the stream; seconds minus the server's time.
    The context goes in ``extra_body`` as asks sent it with the SDK, or (``typed``) as
    ``messages=``, which the SDK walks with its typed transform. Empty without the SDK."""
    client = sdk_client(server)
    out: list[float] = []
    if client is None:
        return out
    messages = [{"role": m.role, "content": m.content} for m in context]
    messages.append({"role": "user", "content": "hi"})
    args: dict[str, Any] = {"messages": messages}
    if not typed:
        args = {"messages": [], "extra_body": {"messages": messages}}
    try:
        for _ in range(count):
            before = len(server.seen)
            t0 = time.perf_counter()
            stream = await client.chat.completions.create(model="test", stream=True, **args)
            async with stream:
                async for _chunk in stream:
                    pass
            elapsed = time.perf_counter() - t0
            out.append(elapsed - server.seen[before].handled_s)
    finally:
        await client.close()
    return out


async def agent_turns(
    server: FakeOpenAI, context: list[Message], count: int, data_dir: Path
) -> list[float]:
    """Whole turns with one model call each; seconds minus the server's time."""
    model = OpenAIModel(Settings("test", server.url))
    out: list[float] = []
    with Journal.create(data_dir=data_dir) as journal:
        host = QuestionHost(journal, clock=trio.current_time)
        agent = Agent(
            host.agent_port,
            model,
            [WorkTool(), CommandTool()],
            Transcript(),
            PromptBroker(host.panel_port).confirm,
        )
        try:
            await model.warm_up()
            for _ in range(count):
                agent.messages[:] = context
                agent.transcript.entries.clear()
                before = len(server.seen)
                t0 = time.perf_counter()
                await agent.run_turn("hi")
                elapsed = time.perf_counter() - t0
                out.append(elapsed - server.seen[before].handled_s)
        finally:
            await model.aclose()
    return out


async def provider_calls(server: FakeOpenAI, context: list[Message], count: int) -> list[float]:
    """``OpenAIModel.stream`` read to its end (what asks does per model call, without the
    agent loop); seconds minus the server's time."""
    model = OpenAIModel(Settings("test", server.url))
    out: list[float] = []
    messages = [*context, Message("user", "hi")]
    try:
        await model.warm_up()
        for _ in range(count):
            before = len(server.seen)
            t0 = time.perf_counter()
            async for _event in model.stream(messages, ()):
                pass
            out.append(time.perf_counter() - t0 - server.seen[before].handled_s)
    finally:
        await model.aclose()
    return out


def bench_calls(rows: list[Row], work: Path, count: int) -> None:
    with FakeOpenAI(lambda body: Reply(REPLY)) as server:
        for size in (0, 198):
            context = filler(size)
            trio.run(provider_calls, server, context, 20)  # warm-up: connection, caches
            bare = trio.run(provider_calls, server, context, count)
            turns = trio.run(agent_turns, server, context, count, work / f"data-{size}")
            handled = median([s.handled_s for s in server.seen[-count:]])
            sdk = trio.run(sdk_calls, server, context, count)
            typed = trio.run(partial(sdk_calls, typed=True), server, context, count)
            added = median(turns) - median(bare)
            label = f"{size + 2}-message context"
            report(rows, Row(NAME, f"per call, {label}: agent loop adds", f"{added * 1e3:.2f} ms"))
            report(
                rows, Row(NAME, "  whole turn minus server time", f"{median(turns) * 1e3:.2f} ms")
            )
            report(
                rows,
                Row(NAME, "  OpenAIModel.stream minus server time", f"{median(bare) * 1e3:.2f} ms"),
            )
            report(rows, Row(NAME, "  server's own handling time", f"{handled * 1e3:.2f} ms"))
            if sdk:
                report(
                    rows,
                    Row(
                        NAME, "  (bare openai SDK call, extra_body)", f"{median(sdk) * 1e3:.2f} ms"
                    ),
                )
                report(
                    rows,
                    Row(
                        NAME,
                        "  (openai SDK call with messages=, typed transform)",
                        f"{median(typed) * 1e3:.2f} ms",
                    ),
                )


# ---------------------------------------------------------------------------- memory
IMPORT_PROBE = """
import sys, time
def rss():
    for line in open('/proc/self/status'):
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) / 1024
if sys.argv[1]:
    __import__(sys.argv[1])
r0, c0 = rss(), time.process_time()
__import__(sys.argv[2])
print(rss() - r0, time.process_time() - c0, rss())
"""


def import_figures(rows: list[Row], env: dict[str, str], repeats: int) -> None:
    """RSS added and CPU time of importing an HTTP stack, fresh interpreter, median."""
    print("\n-- import cost in a fresh interpreter (RSS added, CPU), alone / after asks.cli")
    for module in ("openai", "anthropic", "httpx"):
        for before in ("", "asks.cli"):
            runs = []
            for _ in range(repeats):
                done = subprocess.run(
                    [sys.executable, "-c", IMPORT_PROBE, before, module],
                    capture_output=True,
                    text=True,
                    env=env,
                    check=False,
                    cwd=PROJECT_ROOT,
                )
                if done.returncode:
                    break
                runs.append([float(x) for x in done.stdout.split()])
            if not runs:
                print(f"  import {module}: not installed here")
                break
            added, cpu, total = (median([r[i] for r in runs]) for i in range(3))
            where = f"after {before}" if before else "alone"
            report(
                rows,
                Row(
                    NAME,
                    f"import {module}, {where}",
                    f"+{added:.1f} MiB, {cpu * 1e3:.0f} ms CPU (→ {total:.1f} MiB)",
                ),
            )


# Runs argv[1:] and prints its exit code and peak RSS (KiB): its child is forked from it, small.
WAIT4 = (
    "import os, subprocess, sys\n"
    "child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "_, status, usage = os.wait4(child.pid, 0)\n"
    "print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)\n"
)


def model_argv(data: Path, url: str, *extra: str) -> list[str]:
    """``asks`` on the fake server's model ``test``, with its own data dir."""
    return [sys.executable, "-m", "asks", "--data-dir", str(data), "--model", "test",
            "--base-url", url, *extra]  # fmt: skip


def headless_rss_mib(url: str, env: dict[str, str], data: Path, provider: str = "openai") -> float:
    """Peak RSS (wait4) of ``asks -p`` for one streamed turn, started by a small Python process
    (:data:`WAIT4`): a child forked from this bench process would carry its RSS (hundreds of MiB
    after the journal benchmarks) into its ``ru_maxrss``, which Linux keeps across ``exec``."""
    argv = model_argv(data, url, "--provider", provider, "-p", "hi")
    done = subprocess.run(
        [sys.executable, "-c", WAIT4, *argv],
        env=env,
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    returncode, maxrss_kib = (int(word) for word in done.stdout.split())
    if returncode:
        print(f"  NOTE: asks -p exited {returncode}")
    return maxrss_kib / 1024


def question_open(server: FakeOpenAI, env: dict[str, str], data: Path) -> tuple[float, float]:
    """REPL with --model: type a message, the reply asks a question; (ms from the server's last
    byte of that reply to the question on screen, VmRSS MiB with the question open)."""
    with running(model_argv(data, server.url), env) as term:
        term.watch({"editor": editor_drawn})
        term.wait()
        term.write(b"go")
        term.settle(0.3)
        before = len(server.seen)
        term.watch({"panel": panel_shows(QUESTION)})
        term.write(b"\r")
        hits = term.wait()
        seen = server.wait_requests(before + 1)[before]
        while not seen.handled_s:
            time.sleep(0.001)
        sent = seen.received_at + seen.handled_s
        term.until(settled_with(1))
        term.settle(0.2)
        rss = term.rss_kib() / 1024
        term.end([CTRL_C, CTRL_C])
    return hits["panel"] / 1e6 - sent * 1e3, rss


def asking(body: dict[str, Any]) -> Reply:
    """A reply asking one async question when the ask tool is offered, else plain text."""
    names = [t["function"]["name"] for t in body.get("tools", ())]
    if contract.TOOL_NAME not in names or body["messages"][-1]["role"] == "tool":
        return Reply(REPLY)
    args = {
        "blocking": False,
        "questions": [
            {
                "question": QUESTION,
                "header": "Bench",
                "options": [{"label": "Alpha"}, {"label": "Beta"}],
            }
        ],
    }
    return Reply("Asking now.", [Call("ask_user_question", json.dumps(args), "call_q")])


def bench_memory(rows: list[Row], work: Path, runs: int) -> None:
    env = child_env(work)
    import_figures(rows, env, 3)
    print("\n-- asks with --model against the fake server")
    with FakeOpenAI(asking) as server:
        headless_rss_mib(server.url, env, work / "data-p")  # warm-up
        rss_p = [headless_rss_mib(server.url, env, work / "data-p") for _ in range(runs)]
        question_open(server, env, work / "data-q")  # warm-up
        opened = [question_open(server, env, work / "data-q") for _ in range(runs)]
    with FakeAnthropic() as claude:
        rss_a = [
            headless_rss_mib(claude.url, env, work / "data-a", "anthropic") for _ in range(runs)
        ]
    visible, rss_q = [o[0] for o in opened], [o[1] for o in opened]
    report(
        rows,
        Row(
            NAME,
            "asks -p, peak RSS after one streamed turn",
            f"{median(rss_p):.1f} MiB",
            f"≤ {RSS_GOAL_MIB:.0f} MiB",
            median(rss_p) <= RSS_GOAL_MIB,
        ),
    )
    report(rows, Row(NAME, "asks -p --provider anthropic, peak RSS", f"{median(rss_a):.1f} MiB"))
    report(
        rows,
        Row(
            NAME,
            "REPL --model, RSS with a question open",
            f"{median(rss_q):.1f} MiB",
            f"≤ {RSS_GOAL_MIB:.0f} MiB",
            median(rss_q) <= RSS_GOAL_MIB,
        ),
    )
    report(
        rows, Row(NAME, "REPL: tool-call reply sent → question shown", f"{median(visible):.1f} ms")
    )
    report(rows, Row(NAME, "  runs (ms)", " ".join(f"{x:.1f}" for x in visible)))


# ---------------------------------------------------------------------------- provider CPU
def long_text(words: int) -> str:
    return " ".join(f"word{i}" for i in range(words))


async def provider_streams(server: FakeOpenAI, count: int) -> dict[str, list[float]]:
    """CPU (trio thread) per ``stream`` read to its end, per reply kind; and the wall time from
    the server's last byte to the tool call handed over (module docstring)."""
    model = OpenAIModel(Settings("test", server.url))
    tools = [contract.openai_tool(contract.DEFAULT_GUIDANCE)]
    context = [Message("user", "hi")]
    out: dict[str, list[float]] = {"short": [], "long": [], "call": [], "handed": []}
    replies = {
        "short": Reply("ok"),
        "long": Reply(long_text(200)),
        "call": asking({"tools": tools, "messages": [{"role": "user"}]}),
    }
    try:
        await model.warm_up()
        for _ in range(count):
            for kind, reply in replies.items():
                server.queue(reply)
                before = len(server.seen)
                c0 = time.thread_time()
                async for event in model.stream(context, tools):
                    if isinstance(event, ToolCall):
                        handed = time.perf_counter()
                out[kind].append(time.thread_time() - c0)
                if kind == "call":
                    seen = server.seen[before]
                    out["handed"].append(handed - seen.received_at - seen.handled_s)
    finally:
        await model.aclose()
    return out


def bench_provider_cpu(rows: list[Row], count: int) -> None:
    print("\n-- OpenAIModel.stream, CPU of the trio thread")
    with FakeOpenAI() as server:
        trio.run(provider_streams, server, 10)  # warm-up
        got = trio.run(provider_streams, server, count)
    per_chunk = (median(got["long"]) - median(got["short"])) / 199  # 200 word chunks vs 1
    report(
        rows,
        Row(
            NAME,
            "per streamed turn (short text reply), CPU",
            f"{median(got['short']) * 1e3:.2f} ms",
        ),
    )
    report(rows, Row(NAME, "per text chunk, CPU", f"{per_chunk * 1e6:.1f} µs"))
    report(
        rows,
        Row(
            NAME,
            "per tool-call reply (stream to its end), CPU",
            f"{median(got['call']) * 1e3:.2f} ms",
        ),
    )
    report(
        rows,
        Row(
            NAME,
            "server's last byte → tool call handed (wall)",
            f"{median(got['handed']) * 1e3:.2f} ms",
        ),
    )


def main(quick: bool = False) -> list[Row]:
    runs, count = (5, 30) if quick else (9, 100)
    header(
        "provider_bench" + (" (quick)" if quick else ""),
        f"launch with --model vs the scripted launch ({runs} runs each, alternating); per "
        f"model call against a local fake server answering at once ({count} calls), the "
        "agent loop's cost beyond the bare SDK call, server time excluded; memory and import "
        "cost; the provider's CPU per streamed turn and tool-call reply",
    )
    rows: list[Row] = []
    with disk_tempdir() as (work, where):
        print(f"filesystem: {where}")
        bench_launch(rows, work, runs)
        bench_calls(rows, work, count)
        bench_memory(rows, work, runs)
        bench_provider_cpu(rows, count)
    return rows


if __name__ == "__main__":
    main(python_argv_quick())
