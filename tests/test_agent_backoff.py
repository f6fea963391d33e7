"""A wake whose receipt cannot be written (disk full) must not spin.

The idle agent is woken by a saved answer, but the ``feedback_delivered`` receipt cannot be
appended: no turn starts (nothing was taken), the agent retries with a doubling back-off
instead of looping, the status shows the undelivered answer, and once the disk has room the
answer is delivered exactly once, in one turn.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio
from support.rig import Rig

from asks.agent.loop import WAKE_RETRY, Agent
from asks.agent.scripted import ScriptedModel, parse_script
from asks.agent.transcript import Transcript
from asks.core.model import Answer, AnswerKind

SCRIPT = """
[[step]]
on = "feedback"
[[step.reply]]
say = "Feedback: {answers}"
delay = 0
"""


async def no_confirm(text: str) -> bool:
    return False


async def test_a_failed_wake_receipt_backs_off_then_delivers_once(
    tmp_path: Path, autojump_clock: Any
) -> None:
    rig = Rig.create(tmp_path)
    ref = rig.async_question("c1", "Which database?")
    agent = Agent(
        rig.host.agent_port, ScriptedModel(parse_script(SCRIPT, "t")), [], Transcript(), no_confirm
    )
    rig.ops.fail_next_append("feedback_delivered")
    rig.ops.fail_writes = 3  # the disk stays full for three receipts
    async with trio.open_nursery() as nursery:
        nursery.start_soon(agent.run)
        await trio.sleep(0)
        started = trio.current_time()
        refusal = rig.host.surface_port.answer_from(
            ref.id, ref.incarnation, Answer(AnswerKind.OPTION, (0,)), source="web"
        )
        assert refusal is None
        with trio.fail_after(120):
            while not rig.lines_of("feedback_delivered"):
                stats = rig.host.statistics()
                assert stats.saved_undelivered == 1  # the status line says "1 saved feedback"
                await trio.sleep(0.5)
            while not [m for m in rig.lines_of("chat_message") if m["role"] == "assistant"]:
                await trio.sleep(0.5)
        waited = trio.current_time() - started
        nursery.cancel_scope.cancel()
    assert rig.ops.fail_writes == 0  # three receipts were tried and failed, then one worked
    assert waited >= WAKE_RETRY * (1 + 2 + 4)  # backed off, doubling (no busy loop)
    [receipt] = rig.lines_of("feedback_delivered")
    assert receipt["mode"] == "wake" and receipt["delivered"][0]["id"] == ref.id
    replies = [m for m in rig.lines_of("chat_message") if m["role"] == "assistant"]
    assert len(replies) == 1  # one turn, no empty ones
    assert "Feedback: Postgres" in replies[0]["content"]
    assert rig.host.statistics().saved_undelivered == 0
