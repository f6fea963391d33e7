"""A resumed session reads who asked each pending question and its chip's header from the
checkpoint (asks/store/checkpoint.py: the pending questions' briefs), without decoding them
(docs/fleet-scale.md, "Memory per pending question and the resume"). Pinned here: a brief
read from the checkpoint equals the decoded question's (the brief of a question no longer
pending is read from the question); a resumed hub's tabs, agents' order and
statistics are those of a full replay; and building them decodes no pending question's group
(the number of records built does not grow with the questions pending)."""

from __future__ import annotations

import random
from pathlib import Path

from support.journals import SID, NoFsync

from asks.core.model import Option, Question, QuestionRef, QuestionSpec
from asks.core.permission import recipient_of
from asks.host.host import QuestionHost
from asks.store.checkpoint import checkpoint_path
from asks.store.entries import GroupAsked, Withdrawn
from asks.store.journal import Journal
from asks.store.lazymap import LazyMap
from asks.store.projection import Projection
from asks.store.records import Records
from asks.store.replay import replay_lines

AGENTS = ("team-b", "team-a", "solo", None)


def hub_session(data_dir: Path, groups: int, seed: int = 3) -> Path:
    """A closed session of ``groups`` groups asked by a few agents (now and then a permission
    request, a withdrawal), its checkpoint current."""
    rng = random.Random(seed)
    journal = Journal.create(data_dir=data_dir, session_id=SID, file_ops=NoFsync())
    projection = Projection()
    projection.apply_all(journal.first_records)
    journal.keep_checkpoint(projection)
    for n in range(groups):
        agent = rng.choice(AGENTS)
        permission = agent is not None and n % 9 == 4
        recipient = (recipient_of(agent) if permission else f"mcp:{agent}") if agent else None
        spec = QuestionSpec(f"Question {n}?", f"H{n % 7}\x1b[31m", (Option("A"), Option("B")))
        questions = tuple(
            Question(QuestionRef(f"q-{n}-{i}", 1), f"g-{n}", i, spec, agent, recipient)
            for i in range(1 + n % 2)
        )
        projection.apply(journal.append(GroupAsked(f"call-{n}", f"g-{n}", questions, False)))
        if n % 5 == 2:
            projection.apply(journal.append(Withdrawn((questions[0].ref,), "gone")))
    journal.close()
    assert checkpoint_path(journal.path).exists()
    return journal.path


def built(records: Records) -> int:
    return sum(record is not None for record in records._made)


def opened(data_dir: Path) -> tuple[Journal, Records]:
    journal, records = Journal.open(SID, data_dir=data_dir, file_ops=NoFsync())
    assert records.checkpoint is not None
    return journal, records


def test_a_brief_read_from_the_checkpoint_is_the_decoded_question_s(tmp_path: Path) -> None:
    path = hub_session(tmp_path, 60)
    cold = Projection()
    cold.apply_all(replay_lines(path.read_bytes()).records)
    journal, records = opened(tmp_path)
    projection = Projection(session_id=journal.session_id)
    projection.apply_all(records)
    before = built(records)
    assert isinstance(projection.by_ref, LazyMap)
    briefs = {ref: projection.brief(ref) for ref in projection.pending}
    assert built(records) == before and not projection.by_ref.made  # nothing decoded
    assert briefs == {ref: cold.question(ref).brief for ref in cold.pending}
    assert any(brief.recipient and brief.recipient.startswith("perm:") for brief in briefs.values())
    assert len(briefs) < len(projection.by_ref)  # some were withdrawn: not kept, decoded
    for ref in projection.by_ref:  # decoded, the question says the same
        assert projection.brief(ref) == cold.question(ref).brief
        assert projection.question(ref).brief == projection.brief(ref)
    journal.close()


def test_a_resumed_hub_s_tabs_and_order_decode_no_pending_question(tmp_path: Path) -> None:
    counts = []
    for groups in (40, 400):
        data_dir = tmp_path / str(groups)
        path = hub_session(data_dir, groups)
        cold_journal, _ = Journal.open(SID, data_dir=data_dir, file_ops=NoFsync())
        checkpoint_path(path).unlink()  # the reference: a full replay, every record decoded
        cold = QuestionHost(cold_journal, replay_lines(path.read_bytes()).records)
        expected = (cold.panel_port.tabs, cold.panel_port.pending_by_agent())
        expected_stats = cold.statistics()
        cold_journal.close()
        journal, records = opened(data_dir)
        host = QuestionHost(journal, records)
        port = host.panel_port
        assert (port.tabs, port.pending_by_agent()) == expected
        assert host.statistics() == expected_stats
        chips = [port.brief(tab) for tab in port.tabs if isinstance(tab, QuestionRef)]
        assert len(chips) == len(port.projection.pending) > groups // 2
        counts.append(built(records))
        journal.close()
    small, large = counts
    assert large <= small + 4  # the records built do not grow with the pending questions
