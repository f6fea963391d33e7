"""The embedding contract (docs/design.md): the public API, typed events, and a wrong embedding
getting a clear error — plus the minimal embedding demo, run under a real pty."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
from pathlib import Path

import pytest
import urwid
from support.embed_demo import journal_kinds, play_the_demo
from support.embedder_mypy import embedder_mypy
from support.pty_harness import PtyApp
from support.rig import Rig, call, q

import asks
from asks.core import events as ev
from asks.core.model import Answer, AnswerKind, Outcome
from asks.host.hub import HubPort

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "demos" / "embed_minimal.py"
SECOND = ROOT / "demos" / "embed_taskrunner.py"  # written from docs/embedding.md alone


def test_every_public_name_resolves() -> None:
    for name in asks.__all__:
        assert getattr(asks, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = asks.nothing  # type: ignore[attr-defined]


def test_the_stub_is_the_one_list_of_public_names() -> None:
    """``asks/__init__.pyi`` declares each public name once; the module serves exactly those,
    each the very object of the module the stub names, and ``__all__``/``dir()`` list them."""
    declared = {
        alias.name: node.module
        for node in ast.parse(Path(asks.__file__).with_suffix(".pyi").read_text()).body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
        if alias.asname == alias.name  # the explicit re-export, which type checkers honour
    }
    assert len(declared) > 30
    assert asks.__all__ == sorted(declared)
    assert set(declared) <= set(dir(asks))
    for name, module in declared.items():
        assert getattr(asks, name) is getattr(importlib.import_module(module), name), name


def test_the_core_and_the_facade_import_no_ui() -> None:
    code = (
        "import sys, asks, asks.core.model, asks.core.focus, asks.core.events; "
        "print(sorted(m for m in ('urwid', 'trio', 'asks.widgets') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def private_uses(path: Path) -> list[str]:
    """``x._name`` on anything but ``self``, and imports of ``_names`` from asks."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            private = not node.attr.startswith("__")
            if private and not (isinstance(node.value, ast.Name) and node.value.id == "self"):
                found.append(f"{path.name}:{node.lineno} .{node.attr}")
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("asks"):
            found += [
                f"{path.name}:{node.lineno} {a.name}"
                for a in node.names
                if a.name.startswith("_") and not a.name.startswith("__")
            ]
    return found


@pytest.mark.parametrize("path", [ROOT / "widgets" / "app.py", DEMO, SECOND], ids=lambda p: p.name)
def test_our_repl_and_the_demos_use_no_private_name(path: Path) -> None:
    assert private_uses(path) == []


@pytest.mark.parametrize("demo", [DEMO, SECOND], ids=lambda p: p.name)
def test_the_demos_import_only_the_public_facade(demo: Path) -> None:
    tree = ast.parse(demo.read_text(encoding="utf-8"))
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert {m for m in modules if m and m.startswith("asks")} == {"asks"}


# ---------------------------------------------------------------------------- the facade
FACADE = {
    "agent_port",
    "panel_port",
    "surface_port",
    "hub_port",
    "session_id",
    "subscribe",
    "subscribe_events",
    "subscribe_status",
    "statistics",
    "detach_ui",
}
# What only the host's own collaborators do (asks/host/state.py): journal an entry, save,
# emit an event, open, settle or finish a wait, re-derive the tabs, reach the journal. (A
# notice is public: ``PanelPort.say`` shows one the way the host's own ``say`` does.)
INTERNALS = {
    "append",
    "save",
    "emit",
    "open_wait",
    "settle_waits",
    "finish_wait",
    "recompute_tabs",
    "changed",
    "notify",
    "asked",
    "item",
    "journal",
    "outbox",
    "waits",
    "keys",
    "announcer",
}
FACES = [asks.QuestionHost, asks.AgentPort, asks.SurfacePort, asks.PanelPort, HubPort]


def public(cls: type) -> set[str]:
    """The public names of ``cls``, not counting the old names kept by ``renamed``."""
    return {
        name
        for name in dir(cls)
        if not name.startswith("_") and not hasattr(getattr(cls, name), "__wrapped__")
    }


def test_the_host_is_a_small_facade() -> None:
    assert public(asks.QuestionHost) == FACADE


@pytest.mark.parametrize("face", FACES, ids=lambda c: c.__name__)
def test_no_public_name_journals_emits_or_opens_a_wait(face: type) -> None:
    assert public(face) & INTERNALS == set()


def test_an_embedder_cannot_reach_the_journal_through_the_host(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    for name in INTERNALS:
        for face in (rig.host, rig.host.agent_port, rig.host.panel_port, rig.host.surface_port):
            assert not hasattr(face, name), f"{type(face).__name__}.{name}"


@pytest.mark.parametrize("face", FACES, ids=lambda c: c.__name__)
def test_every_public_name_of_the_facade_and_the_ports_is_documented(face: type) -> None:
    assert inspect.getdoc(face)
    missing = sorted(name for name in public(face) if not inspect.getdoc(getattr(face, name)))
    assert missing == []


# ---------------------------------------------------------------------------- bad embedding
def test_a_layer_outside_trio_says_how_to_run_it(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    layer = asks.AsksLayer(rig.host.panel_port, urwid.Edit())
    with pytest.raises(RuntimeError, match="needs a running trio loop"):
        layer.keypress((40,), "a")


def test_two_hosts_on_one_journal_are_refused(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    with pytest.raises(ValueError, match="already has a QuestionHost"):
        asks.QuestionHost(rig.journal)


@pytest.mark.parametrize(
    ("source", "message"),
    [("x" * 65, "longer than 64"), ("bad\x1b[2J", "control characters"), ("  ", "non-empty")],
)
def test_a_bad_source_label_names_the_fix(tmp_path: Path, source: str, message: str) -> None:
    rig = Rig.create(tmp_path)
    with pytest.raises(ValueError, match=message):
        rig.host.agent_port.start_call("c1", call(q("Which?")), source=source)
    assert rig.host.surface_port.projection.calls == {}


# ---------------------------------------------------------------------------- typed events
def test_typed_events_follow_the_journal(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    seen: list[tuple[ev.HostEvent, int]] = []
    rig.host.subscribe_events(lambda e: seen.append((e, len(rig.lines()))))
    rig.host.agent_port.start_call("c1", call(q("Async?"), blocking=False), source="planner")
    rig.host.agent_port.start_call("c2", call(q("Blocking?")), source="reviewer")
    rig.clock.past_guard()
    ref = rig.ref("c2")
    rig.answer_option(ref, 1)
    rig.host.surface_port.answer_from(
        rig.ref("c1").id, rig.ref("c1").incarnation, Answer(AnswerKind.OPTION, (0,)), source="web"
    )
    rig.host.agent_port.turn_ended()
    assert rig.host.agent_port.take_feedback() is not None

    kinds = [type(e).__name__ for e, _ in seen]
    assert kinds == [
        "QuestionAsked",
        "QuestionAsked",
        "WaitOpened",
        "AnswerSaved",
        "WaitEnded",
        "Delivered",
        "AnswerSaved",
        "Delivered",
    ]
    asked = [e for e, _ in seen if isinstance(e, ev.QuestionAsked)]
    assert [(a.blocking, a.source) for a in asked] == [(False, "planner"), (True, "reviewer")]
    ended = next(e for e, _ in seen if isinstance(e, ev.WaitEnded))
    assert ended.outcome is Outcome.ANSWERED and ended.call_id == "c2"
    channels = [e.channel for e, _ in seen if isinstance(e, ev.Delivered)]
    assert channels == [ev.DeliveryChannel.TOOL_RESULT, ev.DeliveryChannel.WAKE]
    assert [e.source for e, _ in seen if isinstance(e, ev.AnswerSaved)] == ["panel", "web"]
    for event, lines_then in seen:  # save before notify: the line was on disk already
        if isinstance(event, ev.AnswerSaved):
            resolved = [r for r in rig.lines()[:lines_then] if r["type"] == "resolved"]
            assert any(r["resolutions"][0]["ref"]["id"] == event.refs[0].id for r in resolved)
    questions = [q for q in rig.host.surface_port.projection.by_ref.values()]
    assert {s.question.source for s in questions} == {"planner", "reviewer"}


def test_source_labels_survive_a_resume(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    rig.host.agent_port.start_call("c1", call(q("Async?"), blocking=False), source="planner")
    host = rig.crash_and_reopen()
    [state] = host.surface_port.projection.by_ref.values()
    assert state.question.source == "planner"


def test_withdraw_and_storage_failure_events(tmp_path: Path) -> None:
    rig = Rig.create(tmp_path)
    seen: list[ev.HostEvent] = []
    rig.host.subscribe_events(seen.append)
    ref = rig.async_question("c1", "Which?")
    assert rig.host.agent_port.withdraw([ref.id], "not needed").all_withdrawn
    rig.ops.fail_next_append()
    rig.host.agent_port.start_call("c2", call(q("Another?"), blocking=False))
    withdrawn = next(e for e in seen if isinstance(e, ev.QuestionsWithdrawn))
    assert withdrawn.refs == (ref,) and withdrawn.reason == "not needed"
    assert isinstance(seen[-1], ev.StorageFailed) and "Not saved" in seen[-1].message


# ---------------------------------------------------------------------------- the demo
def test_the_minimal_embedding_runs_under_a_pty(tmp_path: Path) -> None:
    app = PtyApp([str(tmp_path)], program=[str(DEMO)], rows=30, cols=100)
    try:
        play_the_demo(app)
    finally:
        app.close()
    kinds = journal_kinds(tmp_path)  # the demo's session is an ordinary journal: it replays
    assert kinds.count("Resolved") == 1 and kinds.count("Withdrawn") == 1


def test_the_core_only_demo_runs_without_urwid() -> None:
    code = (
        "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__'); "
        "print('urwid' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "demos" / "core_only.py")],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert "event: answer saved from chatbot" in out.stdout
    assert 'answer "SQLite"' in out.stdout and "agent woken (wake)" in out.stdout
    assert "without blocking (queued)" in out.stdout
    assert "answered labels=('SQLite',)" in out.stdout  # the typed result of the feedback
    assert out.stdout.strip().endswith("False")  # the core never needed urwid


# What the reference launch (``asks``: the tour, full screen) never needs, so ``import asks.cli``
# must not load it: other surfaces, the real model's tools and providers, hooks (only when
# configured), the resume replay, importlib.resources (the tour is read with pkgutil), the hub's
# server and the MCP SDK with pydantic and starlette (whole sessions: tests/test_hub_lazy.py).
NOT_AT_LAUNCH = (
    "asks.surfaces.line",
    "asks.surfaces.listing",
    "asks.surfaces.web",
    "hypercorn",
    "asks.agent.shell",
    "asks.agent.read_file",
    "asks.agent.openai_model",
    "asks.agent.anthropic_model",
    "openai",
    "anthropic",
    "asks.surfaces.hooks",
    "asks.agent.replay",
    "importlib.resources",
    "asks.cli.hub",
    "asks.hub.server",
    "asks.hub.tools",
    "mcp",
    "pydantic",
    "starlette",
)


def test_starting_the_repl_imports_no_other_surface() -> None:
    """Launch cost: ``import asks.cli`` leaves out what the tour's full screen does not use, and
    the GC paused during the import is on again with nothing left frozen."""
    code = (
        "import gc, sys, asks.cli; "
        f"print(sorted(m for m in {NOT_AT_LAUNCH!r} if m in sys.modules), "
        "gc.isenabled(), gc.get_freeze_count())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] True 0"


def test_the_tour_and_a_real_model_load_their_tools_when_built(tmp_path: Path) -> None:
    """The deferred modules still load where they are needed: the tour's first frame needs no
    shell tool; a real model's session gets ``run_command`` and ``read_file``."""
    code = (
        "import sys; from pathlib import Path; from asks.agent.tools import real_tools, "
        "scripted_tools; from asks.agent.scripted import builtin_tour; "
        "print(builtin_tour().name, [t.name for t in scripted_tools()], "
        "'asks.agent.shell' in sys.modules, [t.name for t in real_tools(Path.cwd())][:2])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert out.stdout.strip() == (
        "tour ['work', 'run_command', 'withdraw_question'] False ['run_command', 'read_file']"
    )


MUTATES_THE_VIEWS = """\
from asks import QuestionHost


def meddle(host: QuestionHost) -> None:
    host.panel_port.focus.guard = 9.0
    host.panel_port.projection.pending.clear()
    for state in host.panel_port.projection.by_ref.values():
        state.delivered = True
    for call in host.agent_port.projection.calls.values():
        call.result = None
    for note in host.surface_port.projection.notes.values():
        note.sent_in = 0
"""


def test_the_ports_hand_out_read_only_views_an_embedders_mypy_enforces(tmp_path: Path) -> None:
    """``PanelPort.focus`` and a port's ``projection`` were the live objects "read-only by
    convention"; typed as ``FocusView`` / ``ProjectionView`` (whose states are
    ``QuestionStateView``, ``CallStateView``, ``NoteStateView``) a change through them is an error
    in the embedder's own type check (what the host does stays the host's)."""
    done = embedder_mypy(tmp_path, "meddle.py", MUTATES_THE_VIEWS)
    assert done.returncode == 1, done.stdout + done.stderr
    assert 'Property "guard" defined in "FocusView" is read-only' in done.stdout, done.stdout
    assert '"Mapping[QuestionRef, None]" has no attribute "clear"' in done.stdout, done.stdout
    # and the states inside it: read-only too
    for prop, view in [
        ("delivered", "QuestionStateView"),
        ("result", "CallStateView"),
        ("sent_in", "NoteStateView"),
    ]:
        assert f'Property "{prop}" defined in "{view}" is read-only' in done.stdout, done.stdout
