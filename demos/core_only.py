"""The question host without any UI: an agent asks, another surface answers, feedback flows.

Run it: ``python demos/core_only.py``. No urwid: the host, the journal and a trio nursery are
all it takes; answers given anywhere (a web page, a chat bot, a test) go through the surface
port, are journaled before anyone hears of them, and reach the agent exactly once.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import trio

from asks import Answer, AnswerKind, AnswerSaved, HostEvent, Journal, QuestionHost, ToolError


async def main(data_dir: Path) -> None:
    journal = Journal.create(data_dir=data_dir)
    host = QuestionHost(journal)
    agent, surface = host.agent_port, host.surface_port

    def notify(event: HostEvent) -> None:  # e.g. a desktop notification or a chat message
        if isinstance(event, AnswerSaved):
            print(f"event: answer saved from {event.source}")

    surface.subscribe_events(notify)
    spec = {
        "question": "Which database?",
        "header": "DB",
        "options": [{"label": "Postgres"}, {"label": "SQLite"}],
    }
    reply = await agent.ask("call-1", {"blocking": False, "questions": [spec]}, source="planner")
    assert not isinstance(reply, ToolError), reply.text
    [qid] = reply.result.question_ids  # typed: reply.result is a CallResult (outcome QUEUED)
    print(f"asked {qid} without blocking ({reply.result.outcome})")

    async def person_answers_later() -> None:
        await trio.sleep(0.1)
        ref = surface.projection.current[qid]
        refusal = surface.answer_from(
            qid, ref.incarnation, Answer(AnswerKind.OPTION, (1,)), source="chatbot"
        )
        print("answered" if refusal is None else f"refused: {refusal.text}")

    async with trio.open_nursery() as nursery:
        nursery.start_soon(person_answers_later)
        await agent.wait_for_feedback()  # an idle agent is woken by the saved answer
        feedback = agent.take_feedback()
        assert feedback is not None
        print(f"agent woken ({feedback.mode.value}): {feedback.text}")  # for a model
        for answer in agent.results_of(feedback):  # the same, typed, for a program
            print(f"typed: {answer.question_id} {answer.outcome} labels={answer.labels}")
    journal.close()


if __name__ == "__main__":
    trio.run(main, Path(tempfile.mkdtemp(prefix="asks-core-")))
