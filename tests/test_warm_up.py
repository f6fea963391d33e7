"""The REPL's background warm-up leaves the first question nothing to load or compile.

The first frame loads neither the panel's drawing parts nor the journal's converter and
compiles no sanitizer pattern (tests/test_launch_lazy.py); a second after it, the REPL warms
them up (asks/cli/run.py: ``warm_up_encoders``, ``warm_up_first_question``), so the first
question — between the model's tool call and the panel, the peer harness's "tool call →
question" — pays for neither. A fresh interpreter draws an empty layer, warms up, then draws a
question whose text needs sanitizing: no module is imported and no pattern compiled then. The
same probe without the warm-up finds both, so it sees what it looks for.
"""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import json, sys, tempfile
from pathlib import Path
import urwid
import asks
from asks import sanitize
from asks.cli.run import warm_up_first_question
from asks.store.entries import warm_up_encoders

layer_host = asks.QuestionHost(asks.Journal.create(data_dir=Path(tempfile.mkdtemp())))
layer = asks.AsksLayer(layer_host.panel_port, urwid.Edit())
layer.render((80,), focus=True)
if sys.argv[1] == "warm":
    warm_up_encoders()
    warm_up_first_question()
modules, compiled = set(sys.modules), sanitize._compiled.cache_info().misses
options = [{"label": "A", "description": "d"}, {"label": "B"}]
question = {"question": "Q?\\x1b[2J", "header": "H", "options": options}
layer_host.agent_port.start_call("c1", {"questions": [question], "blocking": False})
layer.render((80,), focus=True)
print(json.dumps({
    "loaded": sorted(set(sys.modules) - modules),
    "compiled": sanitize._compiled.cache_info().misses - compiled,
}))
"""


def probe(mode: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True, timeout=60
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_after_the_warm_up_the_first_question_loads_and_compiles_nothing() -> None:
    assert probe("warm") == {"loaded": [], "compiled": 0}


def test_without_it_the_first_question_would_pay_for_both() -> None:
    cold = probe("cold")
    loaded = cold["loaded"]
    assert isinstance(loaded, list)
    assert "asks.widgets.panel.frame" in loaded and "orjson" in loaded
    assert cold["compiled"] != 0
