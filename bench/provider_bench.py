"""Provider benchmarks: launch with a model configured, and what the agent loop adds per call.

Run: ``.venv/bin/python -m bench.provider_bench [--quick]`` (or all benchmarks: ``-m bench.run``).

1. **Launch.** ``asks --model test --base-url <fake server>`` against the scripted launch
   (``asks --script bench/repl_launch.toml``, the launch figure of repl_bench), measured the
   same way: spawn → chat editor drawn, on a real pty read by pyte; runs alternate between the
   two, median of each. Goal: within 10 % (the SDK is imported lazily, after launch).
2. **Per model call.** In process, against tests/fake_openai_server.py on 127.0.0.1 answering
   at once (one short streamed reply): the time of a bare SDK call (``create(stream=True)`` and
   reading the stream) and of a whole agent turn with one model call (``Agent.run_turn``: the
   user and assistant messages journaled with fsync, the context mapped, the reply streamed
   into the transcript), each minus the server's own handling time as the server measured it.
   Their difference is what the agent loop adds per model call. Contexts of 2 and 200 messages.
   For comparison, the SDK call with the context passed as ``messages=`` (walked by the SDK's
   typed transform, which asks avoids by sending it through ``extra_body``).
"""

from __future__ import annotations

import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

import trio

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
    running,
    settled_with,
)

sys.path.insert(0, str(PROJECT_ROOT / "tests"))
from fake_openai_server import FakeOpenAI, Reply

NAME = "provider"
LAUNCH_RATIO_GOAL = 1.10
REPLY = "The answer is forty-two."


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
        model = [sys.executable, "-m", "asks", "--data-dir", str(work / "data"),
                 "--model", "test", "--base-url", server.url]
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
    report(rows, Row(NAME, "launch with --model / scripted", f"{ratio:.2f}x",
                     f"≤ {LAUNCH_RATIO_GOAL:.2f}x", ratio <= LAUNCH_RATIO_GOAL))


# ---------------------------------------------------------------------------- per call
def filler(count: int) -> list[Message]:
    words = "lorem ipsum dolor sit amet " * 12
    return [Message("user" if i % 2 == 0 else "assistant", f"{i}: {words}") for i in range(count)]


async def sdk_calls(
    server: FakeOpenAI, context: list[Message], count: int, *, typed: bool = False
) -> list[float]:
    """Bare SDK: create(stream=True) and read the stream; seconds minus the server's time.
    The context goes in ``extra_body`` as asks sends it, or (``typed``) as ``messages=``,
    which the SDK walks with its typed transform."""
    model = OpenAIModel(Settings("test", server.url))
    out: list[float] = []
    try:
        await model.warm_up()
        client: Any = model._client
        messages = [{"role": m.role, "content": m.content} for m in context]
        messages.append({"role": "user", "content": "hi"})
        args: dict[str, Any] = {"messages": messages}
        if not typed:
            args = {"messages": [], "extra_body": {"messages": messages}}
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
        await model.aclose()
    return out


async def agent_turns(
    server: FakeOpenAI, context: list[Message], count: int, data_dir: Path
) -> list[float]:
    """Whole turns with one model call each; seconds minus the server's time."""
    model = OpenAIModel(Settings("test", server.url))
    out: list[float] = []
    with Journal.create(data_dir=data_dir) as journal:
        host = QuestionHost(journal, clock=trio.current_time)
        agent = Agent(host, model, [WorkTool(), CommandTool()], Transcript(),
                      PromptBroker(host).confirm)
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


def bench_calls(rows: list[Row], work: Path, count: int) -> None:
    with FakeOpenAI(lambda body: Reply(REPLY)) as server:
        for size in (0, 198):
            context = filler(size)
            trio.run(sdk_calls, server, context, 20)  # warm-up: connection, caches
            sdk = trio.run(sdk_calls, server, context, count)
            turns = trio.run(agent_turns, server, context, count, work / f"data-{size}")
            handled = median([s.handled_s for s in server.seen[-count:]])
            typed = trio.run(partial(sdk_calls, typed=True), server, context, count)
            added = median(turns) - median(sdk)
            label = f"{size + 2}-message context"
            report(rows, Row(NAME, f"per call, {label}: agent loop adds", f"{added * 1e3:.2f} ms"))
            report(rows, Row(NAME, "  whole turn minus server time",
                             f"{median(turns) * 1e3:.2f} ms"))
            report(rows, Row(NAME, "  bare SDK call minus server time",
                             f"{median(sdk) * 1e3:.2f} ms"))
            report(rows, Row(NAME, "  server's own handling time", f"{handled * 1e3:.2f} ms"))
            report(rows, Row(NAME, "  (SDK call with messages=, typed transform)",
                             f"{median(typed) * 1e3:.2f} ms"))


def main(quick: bool = False) -> list[Row]:
    runs, count = (5, 30) if quick else (9, 100)
    header(
        "provider_bench" + (" (quick)" if quick else ""),
        f"launch with --model vs the scripted launch ({runs} runs each, alternating); per "
        f"model call against a local fake server answering at once ({count} calls), the "
        "agent loop's cost beyond the bare SDK call, server time excluded",
    )
    rows: list[Row] = []
    with disk_tempdir() as (work, where):
        print(f"filesystem: {where}")
        bench_launch(rows, work, runs)
        bench_calls(rows, work, count)
    return rows


if __name__ == "__main__":
    main(python_argv_quick())
