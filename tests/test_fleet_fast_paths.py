"""The fleet's fast paths give the state the plain ones give (issue 30).

With thousands of questions pending, the per-change work is kept proportional to what changed:
:meth:`~asks.core.agents.AgentOrder.arrange` keeps its groups between calls, and the tab bar
reads only the chips it shows. Each is checked here against the plain computation of the same
state, on random histories (hypothesis): agents asking, questions answered or withdrawn in any
order.
"""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from asks.core.agents import Agent, AgentOrder
from asks.core.model import QuestionRef

AGENTS: tuple[Agent, ...] = (None, "builder", "planner", "reviewer")

# one step: (questions asked: their agents' indexes, questions closed: indexes into pending)
steps = st.lists(
    st.tuples(
        st.lists(st.integers(0, len(AGENTS) - 1), max_size=4),
        st.lists(st.integers(0, 40), max_size=4),
    ),
    max_size=25,
)


def plain(
    pending: dict[QuestionRef, None], agents: dict[QuestionRef, Agent], first: list[Agent]
) -> list[QuestionRef]:
    """Grouped by agent in the order they first asked, each agent's in arrival order."""
    return sorted(pending, key=lambda ref: first.index(agents[ref]))


@given(steps)
@settings(max_examples=300, deadline=None)
def test_incremental_arrange_is_the_plain_grouping(
    history: list[tuple[list[int], list[int]]],
) -> None:
    order = AgentOrder()
    serial = itertools.count()
    pending: dict[QuestionRef, None] = {}
    agents: dict[QuestionRef, Agent] = {}
    first: list[Agent] = []
    reads: list[QuestionRef] = []

    def agent_of(ref: QuestionRef) -> Agent:
        reads.append(ref)
        return agents[ref]

    for asked, closed in history:
        for index in closed:
            if pending:
                del pending[list(pending)[index % len(pending)]]
        for who in asked:
            ref = QuestionRef(f"q-{next(serial)}", 1)
            pending[ref] = None
            agents[ref] = AGENTS[who]
        for ref in pending:
            if agents[ref] not in first:
                first.append(agents[ref])
        assert order.arrange(pending, agent_of) == plain(pending, agents, first)
        assert len(reads) == len(set(reads))  # each ref's agent read once while pending


def test_a_ref_out_of_arrival_order_is_arranged_afresh() -> None:
    order = AgentOrder()
    a, b, c = (QuestionRef(name, 1) for name in "abc")
    who = {a: "x", b: "y", c: "x"}
    assert order.arrange([a, b], who.__getitem__) == [a, b]
    # c is new but comes before b, a known ref: not a pending dict's order
    assert order.arrange([a, c, b], who.__getitem__) == [a, c, b]
