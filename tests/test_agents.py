"""Who asks: agents in a stable order, tabs grouped by them, the keys naming whose question.

Pure tests of :mod:`asks.core.agents`, then the host over a real journal (``Rig``): the tab
strip follows :class:`~asks.core.agents.AgentOrder`, a resume keeps the order, and the keys'
status names the agent of the question they go to.
"""

from __future__ import annotations

from support.rig import Rig, call, q

from asks.core.agents import AgentOrder, named_agent
from asks.core.model import QuestionRef
from asks.core.refusal import Refusal
from asks.core.tabs import ReviewKey
from asks.host.commands import PanelCommand
from asks.store.journal import Journal


def _refs(*names: str) -> list[QuestionRef]:
    return [QuestionRef(name, 1) for name in names]


def test_arrange_groups_by_agent_in_the_order_they_first_asked() -> None:
    order = AgentOrder()
    agents = {"b1": "builder", "p1": "planner", "b2": "builder", "o1": None, "p2": "planner"}
    arranged = order.arrange(_refs("b1", "p1", "b2", "o1", "p2"), lambda r: agents[r.id])
    assert [r.id for r in arranged] == ["b1", "b2", "p1", "p2", "o1"]
    assert order.agents == ("builder", "planner", None)


def test_an_agent_keeps_its_rank_while_none_of_its_questions_is_pending() -> None:
    order = AgentOrder()
    agents = {"b1": "builder", "p1": "planner", "b2": "builder"}
    order.arrange(_refs("b1", "p1"), lambda r: agents[r.id])
    order.arrange(_refs("p1"), lambda r: agents[r.id])  # builder's question was answered
    arranged = order.arrange(_refs("p1", "b2"), lambda r: agents[r.id])
    assert [r.id for r in arranged] == ["b2", "p1"]  # builder asked first in this session


def test_a_new_question_never_moves_a_tab_past_another() -> None:
    order = AgentOrder()
    agents = {"p1": "planner", "b1": "builder", "r1": "reviewer", "b2": "builder", "p2": "planner"}
    shown: list[str] = []
    pending: list[str] = []
    for name in agents:
        pending.append(name)
        now = [r.id for r in order.arrange(_refs(*pending), lambda r: agents[r.id])]
        assert [n for n in now if n in shown] == shown  # the tabs there keep their order
        shown = now


def test_arrange_reads_each_agent_once_while_pending() -> None:
    order, reads = AgentOrder(), []

    def agent_of(ref: QuestionRef) -> str:
        reads.append(ref.id)
        return "builder"

    order.arrange(_refs("b1"), agent_of)
    order.arrange(_refs("b1", "b2"), agent_of)
    assert reads == ["b1", "b2"]


def test_seed_ranks_before_anything_seen() -> None:
    order = AgentOrder()
    order.seed(["planner", "builder"])
    agents = {"b1": "builder", "p1": "planner"}
    assert [r.id for r in order.arrange(_refs("b1", "p1"), lambda r: agents[r.id])] == [
        "p1",
        "b1",
    ]


def test_named_agent() -> None:
    assert named_agent("@builder") == "builder"
    assert named_agent("@") is None
    assert named_agent("q-1234") is None


# -- the host ------------------------------------------------------------------------------
def _ask(
    rig: Rig, call_id: str, header: str, source: str | None, *, blocking: bool = False
) -> None:
    args = call(q(f"{header}?", header=header, options=("Yes", "No")), blocking=blocking)
    rig.host.agent_port.start_call(call_id, args, source=source)


def _headers(rig: Rig) -> list[str]:
    port = rig.host.panel_port
    return [
        "Review" if isinstance(t, ReviewKey) else port.question(t).spec.header for t in port.tabs
    ]


def test_the_host_groups_tabs_by_agent(rig: Rig) -> None:
    _ask(rig, "b1", "Canary", "builder")
    _ask(rig, "p1", "Port", "planner")
    _ask(rig, "b2", "Tests", "builder")
    assert _headers(rig) == ["Canary", "Tests", "Port"]


def test_the_order_is_the_order_agents_first_asked_and_survives_a_resume(rig: Rig) -> None:
    """builder asked first; its first question was answered before it asked again, after
    planner: builder's group still comes first, in this run and after a resume."""
    _ask(rig, "b1", "Canary", "builder")
    _ask(rig, "p1", "Port", "planner")
    rig.answer_option(rig.ref("b1"), 0)
    _ask(rig, "b2", "Tests", "builder")
    assert _headers(rig) == ["Tests", "Port"]
    rig.crash_and_reopen()
    assert _headers(rig) == ["Tests", "Port"]


def test_a_clean_close_and_reopen_keeps_the_order(rig: Rig) -> None:
    _ask(rig, "b1", "Canary", "builder")
    _ask(rig, "p1", "Port", "planner")
    rig.answer_option(rig.ref("b1"), 0)
    _ask(rig, "b2", "Tests", "builder")
    rig.journal.close()
    journal, records = Journal.open(rig.journal.session_id, data_dir=rig.directory)
    from asks.host.host import QuestionHost  # noqa: PLC0415

    host = QuestionHost(journal, records, clock=rig.clock)
    try:
        port = host.panel_port
        assert [port.question(t).spec.header for t in port.tabs] == ["Tests", "Port"]  # type: ignore[arg-type]
    finally:
        journal.close()
        rig.journal, rig.host = journal, host


def test_the_keys_status_names_the_agent_of_the_question(rig: Rig) -> None:
    _ask(rig, "b1", "Canary", "builder")
    _ask(rig, "p1", "Port", "planner")
    port = rig.host.panel_port
    assert port.enter_panel() is None
    keys = rig.host.statistics().keys
    assert keys is not None and (keys.question, keys.agent) == ("Canary", "builder")
    rig.press(PanelCommand.NEXT_TAB)
    keys = rig.host.statistics().keys
    assert keys is not None and (keys.question, keys.agent) == ("Port", "planner")


def test_the_sessions_own_agent_is_not_named(rig: Rig) -> None:
    _ask(rig, "o1", "Lint", None)
    assert rig.host.panel_port.enter_panel() is None
    keys = rig.host.statistics().keys
    assert keys is not None and (keys.question, keys.agent) == ("Lint", None)


def test_a_waiting_claim_names_its_agent(rig: Rig) -> None:
    _ask(rig, "p1", "Port", "planner")
    _ask(rig, "b1", "Canary", "builder", blocking=True)
    keys = rig.host.statistics().keys
    assert keys is not None and (keys.waiting, keys.waiting_agent) == ("Canary", "builder")


def test_asks_at_name_puts_the_keys_on_that_agents_first_question(rig: Rig) -> None:
    _ask(rig, "b1", "Canary", "builder")
    _ask(rig, "p1", "Port", "planner")
    _ask(rig, "p2", "Host", "planner")
    port = rig.host.panel_port
    assert port.enter_agent("planner") is None
    assert port.focus.panel_focused and port.selected == rig.ref("p1")


def test_asks_at_an_unknown_name_is_one_line_and_changes_nothing(rig: Rig) -> None:
    _ask(rig, "b1", "Canary", "builder")
    _ask(rig, "p1", "Port", "planner")
    _ask(rig, "o1", "Lint", None)
    port = rig.host.panel_port
    before = (port.selected, port.mode, port.focus.owner)
    assert port.enter_agent("bob\x1b[2J") is Refusal.UNKNOWN_AGENT
    assert (port.selected, port.mode, port.focus.owner) == before
    assert port.notice == (
        "No pending questions from @bob. Agents asking now: @builder, @planner."
    ), port.notice
