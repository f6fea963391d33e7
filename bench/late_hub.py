"""A hub for the real clients' late-answer runs (bench/late_bench.py): asks' MCP server on a
real host and journal, whose "person" answers each question a set time after it arrived.

``python -m bench.late_hub --data-dir D --port-file F --log L --answer-after S``

Writes the URL to ``F`` once listening (the token is ``D``'s shared token,
``asks mcp token --data-dir D``). For each question that arrives: waits ``S`` seconds, saves
the answer (the first option, as the panel's Enter would), and logs one JSON line to ``L``
with ``CLOCK_MONOTONIC`` nanoseconds (the fake models of the interactive harness stamp their
requests on the same clock): ``{"ev": "answered", "id", "t_ns"}``; each receipt the hub
writes: ``{"ev": "delivered", "channel", "ids", "t_ns"}``. Runs until killed. With
``ASKS_LATE_NO_TASKS`` set, the hub answers no call as a task; ``ASKS_LATE_CODEX`` names the
codex binary for ``codex queue`` (run in this process's environment: its ``CODEX_HOME``).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import trio

from asks.core import events as ev
from asks.core.model import Answer, AnswerKind, QuestionRef
from asks.host.host import QuestionHost
from asks.hub.credentials import Keyring
from asks.hub.listen import bind_listener
from asks.hub.server import HubServer
from asks.hub.token import token_path, write_private
from asks.store.journal import Journal


def _log(path: Path, entry: dict[str, object]) -> None:
    entry["t_ns"] = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    with path.open("a") as out:
        out.write(json.dumps(entry) + "\n")


async def serve(data_dir: Path, port_file: Path, log: Path, after: float, port: int) -> None:
    def heard(event: ev.HostEvent) -> None:
        if isinstance(event, ev.Delivered):
            ids = [ref.id for ref in (*event.refs, *event.notes)]
            _log(log, {"ev": "delivered", "channel": str(event.channel), "ids": ids})

    data_dir.mkdir(parents=True, exist_ok=True)
    if not token_path(data_dir).exists():
        write_private(token_path(data_dir), "late-bench-token\n")
    journal = Journal.create(data_dir=data_dir, session_id=f"late-{time.time_ns()}")
    host = QuestionHost(journal, clock=trio.current_time)
    host.subscribe_events(heard)
    tasks = not os.environ.get("ASKS_LATE_NO_TASKS")
    codex = os.environ.get("ASKS_LATE_CODEX") or None
    listener = bind_listener(port=port)
    server = HubServer(host.hub_port, Keyring(data_dir), listener, offer_tasks=tasks, codex=codex)
    answered: set[QuestionRef] = set()
    async with trio.open_nursery() as nursery:
        url = await nursery.start(server.run)
        port_file.write_text(f"{url}\n")
        while True:
            for tab in host.panel_port.tabs:
                if isinstance(tab, QuestionRef) and tab not in answered:
                    answered.add(tab)
                    nursery.start_soon(_answer_later, host, tab, after, log)
            await trio.sleep(0.05)


async def _answer_later(host: QuestionHost, ref: QuestionRef, after: float, log: Path) -> None:
    await trio.sleep(after)
    given = Answer(AnswerKind.OPTION, (0,))
    refused = host.surface_port.answer_from(ref.id, ref.incarnation, given, "bench")
    _log(log, {"ev": "answered", "id": ref.id, "refused": str(refused)})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--port-file", type=Path, required=True)
    parser.add_argument("--log", type=Path, required=True)
    parser.add_argument("--answer-after", type=float, default=10.0)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    trio.run(serve, args.data_dir, args.port_file, args.log, args.answer_after, args.port)


if __name__ == "__main__":
    main()
