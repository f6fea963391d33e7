"""What the tests share and are not tests themselves (tests/support/; docs/testing.md).

Imported as ``support.NAME`` (pytest puts ``tests/`` on ``sys.path``; ``tests/`` is no
package). Fixtures are in ``tests/conftest.py``; these modules hold the code behind them:

* :mod:`support.paths` — where the repo, the scripts, the goldens and these programs are.
* :mod:`support.pty_harness` — the real ``asks`` under a pty, its screen through pyte.
* :mod:`support.screen` — reading that screen (chat editor, panel rows, status line) and
  waiting on it; :mod:`support.launcher` — starting apps with private folders, reading their
  journal; :mod:`support.typist` — typing like a person, and the pauses that are the
  behaviour under test (the typing guard).
* :mod:`support.rig` — a real host on a real journal in a temporary folder, in process;
  :mod:`support.panel` — the panel of a real layer on it, rendered to text (golden screens);
  :mod:`support.layer_screen` — the real layer on it, keys pressed at its clock;
  :mod:`support.agent_rig` — the agent loop on the scripted model, headless;
  :mod:`support.twin_host` — two hosts in lockstep (listeners change nothing);
  :mod:`support.focus_states` — the focus machine's named state read from its bookkeeping.
* :mod:`support.fake_http` — a real HTTP/1.1 server on 127.0.0.1 standing in for a model
  provider (recording, reply queue, faults); :mod:`support.fake_openai` and
  :mod:`support.fake_anthropic` — what each provider's wire says on it.
* :mod:`support.hub` — the hub's clients and asks; :mod:`support.hooks` — hook commands;
  :mod:`support.permission_bodies` — the permission-hook bodies the real clients send.
* :mod:`support.attrs_classes` — attrs classes built at call time (the method cache).
* :mod:`support.pinned` — the oldest release of a dependency's pinned range, in a cached folder.
* :mod:`support.embedder_mypy` — an embedder's own ``mypy --strict`` over one program.
* :mod:`support.journals` — journal bytes of question cycles for the replay tests, and what
  they compare (a projection's state, laziness, an indexed journal).
* :mod:`support.piped` — reading a piped child's output; :mod:`support.building` — pip's
  wheel build; :mod:`support.static_server`, :mod:`support.realmodel_server` (llama-server),
  :mod:`support.embed_demo` (the embedding demo played under a pty).

Programs the tests run as processes (by path, :data:`support.paths.SUPPORT`), which import
only ``asks``: ``crash_child.py``, ``crash_host_child.py``, ``repl_crash_child.py``,
``in_turn_child.py``, ``fake_editor.py``, ``failing_editor.py``, ``hook_append.py``.
"""
