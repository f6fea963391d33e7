"""Child process for the host-level crash test (``test_crash.py``).

Opens (or creates) a session with a :class:`QuestionHost` and loops forever: drain feedback
(as a running agent would before a model call), ask an async question, answer it through the
panel. It prints ``answered ID:INC`` only after the answer's save returned, and
``delivered ID:INC …`` only after the feedback receipt was written: every printed line is an
acknowledgement the parent may hold the journal to.
"""

from __future__ import annotations

import sys
from pathlib import Path

from asks.core.model import QuestionRef
from asks.host.commands import PanelCommand
from asks.host.host import QuestionHost
from asks.store.journal import Journal, SessionNotFound


def label(ref: QuestionRef) -> str:
    return f"{ref.id}:{ref.incarnation}"


def main(data_dir: Path, session_id: str) -> None:
    try:
        journal, records = Journal.open(session_id, data_dir=data_dir)
    except SessionNotFound:
        journal, records = Journal.create(data_dir=data_dir, session_id=session_id), []
    host = QuestionHost(journal, records)
    host.agent_port.turn_started()
    out = sys.stdout
    out.write("ready\n")
    out.flush()
    while True:
        feedback = host.agent_port.take_feedback()
        if feedback is not None:
            out.write("delivered " + " ".join(label(r) for r in feedback.refs) + "\n")
            out.flush()
        call_id = f"call-{journal.next_seq}"
        question = {
            "question": f"Ship {call_id}?",
            "header": "Ship",
            "options": [{"label": "Yes"}, {"label": "No"}],
        }
        host.agent_port.start_call(call_id, {"blocking": False, "questions": [question]})
        ref = host.panel_port.tabs[-1]
        assert isinstance(ref, QuestionRef)
        host.panel_port.enter_panel(ref.id)
        host.panel_port.command(PanelCommand.CONFIRM)
        assert ref not in host.surface_port.projection.pending, host.surface_port.notice
        out.write(f"answered {label(ref)}\n")
        out.flush()


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2])
