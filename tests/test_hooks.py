"""Hooks (asks/surfaces/hooks.py, ``[hooks]`` in asks/config.py), with a real hook command.

The hook is ``tests/support/hook_append.py``: it appends its stdin (the event JSON) and
``ASKS_EVENT`` to a file and writes noise on stdout and stderr. In process, a real journal and host
(tests/support/rig.py) publish events and :func:`asks.surfaces.hooks.running` runs the hooks in the
test's nursery; as commands, ``asks`` runs in line mode (piped) and as the REPL (pty) with a
config file. Tests wait for the file to grow, never for a fixed time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
from support.hook_append import NOISE
from support.hooks import WAIT, hook, hook_lines, write_config
from support.pty_harness import ROOT, PtyApp
from support.rig import SESSION, Rig, call, q

from asks.config import HooksConfig, load_config
from asks.core.events import EventKind, QuestionAsked, StorageFailed
from asks.core.model import Answer, AnswerKind
from asks.surfaces import hooks

SCRIPTS = Path(__file__).resolve().parent / "scripts"


def pick(rig: Rig, call_id: str, option: int) -> None:
    ref = rig.ref(call_id)
    answer = Answer(AnswerKind.OPTION, (option,))
    assert rig.host.surface_port.answer_from(ref.id, ref.incarnation, answer, "line") is None


# ---------------------------------------------------------------------------- in process
async def test_each_event_runs_its_hook_once_with_the_event_as_json_on_stdin(
    rig: Rig, tmp_path: Path
) -> None:
    out = tmp_path / "hook.jsonl"
    kinds = [
        EventKind.QUESTION_ASKED,
        EventKind.WAIT_OPENED,
        EventKind.ANSWER_SAVED,
        EventKind.WAIT_ENDED,
        EventKind.DELIVERED,
    ]
    reports: list[str] = []
    port = rig.host.surface_port
    async with hooks.running(port, SESSION, {k: hook(out) for k in kinds}, WAIT, reports.append):
        rig.blocker("c1", q("Pick a \x1b]0;pwned\x07database?"))
        await hook_lines(out, 2)
        pick(rig, "c1", 1)
    records = await hook_lines(out, 5)  # leaving the block let the queue finish
    assert [r["env"] for r in records] == [k.value for k in kinds]  # in order, once each
    assert all(r["payload"]["kind"] == r["env"] and r["session"] == SESSION for r in records)
    asked, opened, saved, ended, delivered = (r["payload"] for r in records)
    ref = {"id": rig.ref("c1").id, "incarnation": rig.ref("c1").incarnation}
    assert asked["refs"] == [ref] and asked["blocking"] is True and asked["call_id"] == "c1"
    assert opened["questions"] == [
        {
            **ref,
            "header": "Choice",
            "question": "Pick a database?",
            "options": ["Postgres", "SQLite", "MySQL"],
            "source": None,
        }
    ]
    assert saved["source"] == "line" and saved["resolutions"] == ["answered"]
    assert ended["outcome"] == "answered" and delivered["channel"] == "tool_result"
    assert reports == []
    assert len(out.read_text().splitlines()) == 5


async def test_a_payload_names_the_agent_that_asked(rig: Rig, tmp_path: Path) -> None:
    """Every event about another agent's questions names that agent once (a
    notifier says "builder asks: …"); the session's own agent is ``null``."""
    out = tmp_path / "hook.jsonl"
    kinds = [EventKind.QUESTION_ASKED, EventKind.ANSWER_SAVED, EventKind.WITHDRAWN]
    port = rig.host.surface_port
    async with hooks.running(port, SESSION, {k: hook(out) for k in kinds}, WAIT, print):
        start = rig.host.agent_port.start_call
        start("b1", call(q("Deploy to canary now?"), blocking=False), source="builder")
        start("p1", call(q("Which port?"), blocking=False), source="planner")
        start("o1", call(q("Lint?"), blocking=False))
        pick(rig, "b1", 1)
        assert rig.host.agent_port.withdraw([rig.ref("p1").id]).all_withdrawn
        records = await hook_lines(out, 5)
    by_kind = [(r["env"], r["payload"]["agent"]) for r in records]
    assert by_kind == [
        ("question_asked", "builder"),
        ("question_asked", "planner"),
        ("question_asked", None),
        ("answer_saved", "builder"),
        ("withdrawn", "planner"),
    ]


async def test_storage_failed_runs_its_hook(rig: Rig, tmp_path: Path) -> None:
    out = tmp_path / "hook.jsonl"
    commands = {EventKind.STORAGE_FAILED: hook(out)}
    async with hooks.running(rig.host.surface_port, SESSION, commands, WAIT, print):
        rig.blocker("c1", q("Pick a database?"))
        rig.ops.fail_next_append("resolved")
        ref = rig.ref("c1")
        refused = rig.host.surface_port.answer_from(
            ref.id, ref.incarnation, Answer(AnswerKind.OPTION, (0,)), "line"
        )
        assert refused is not None
        (record,) = await hook_lines(out, 1)
    assert record["env"] == "storage_failed"
    assert "No space left on device" in record["payload"]["message"]


@pytest.mark.parametrize(
    ("command", "reported"),
    [
        (["--exit", "3"], "exited with status 3"),
        (None, "could not be started (No such file or directory)"),
        (["--sleep", "300"], "did not finish within 2 s and was stopped"),
    ],
)
async def test_a_failing_hook_is_reported_once_and_the_session_goes_on(
    rig: Rig, tmp_path: Path, command: list[str] | None, reported: str
) -> None:
    out, seen = tmp_path / "hook.jsonl", tmp_path / "seen.jsonl"
    failing = [str(tmp_path / "no-such-hook")] if command is None else hook(out, *command)
    commands = {EventKind.WAIT_OPENED: failing, EventKind.WAIT_ENDED: hook(seen)}
    reports: list[str] = []
    async with hooks.running(
        rig.host.surface_port, SESSION, commands, 2.0, reports.append
    ) as runner:
        assert runner is not None
        for call_id in ("c1", "c2"):
            rig.blocker(call_id, q(f"Question {call_id}?"))
            pick(rig, call_id, 0)
        await hook_lines(seen, 2)  # the other hook still ran, after the failing ones
        assert runner.statistics().failures == 2
    name = failing[0]
    assert reports == [
        f"Hook wait_opened failed: {name} {reported}. Later failures of this hook are not reported."
    ]


def test_payload_serialises_every_event_kind(rig: Rig) -> None:
    rig.host.agent_port.start_call("c1", call(q("Fine?"), blocking=False))
    ref = rig.ref("c1")
    port = rig.host.surface_port
    asked = hooks.payload(QuestionAsked("c1", (ref,), False, "planner"), SESSION, port)
    assert json.loads(json.dumps(asked)) == {
        "call_id": "c1",
        "refs": [{"id": ref.id, "incarnation": ref.incarnation}],
        "blocking": False,
        "source": "planner",
        "kind": "question_asked",
        "session_id": SESSION,
        "questions": [
            {
                "id": ref.id,
                "incarnation": ref.incarnation,
                "header": "Choice",
                "question": "Fine?",
                "options": ["Postgres", "SQLite", "MySQL"],
                "source": None,
            }
        ],
        "agent": None,
    }
    failed = hooks.payload(StorageFailed("disk full"), SESSION, port)
    assert failed == {"message": "disk full", "kind": "storage_failed", "session_id": SESSION}


# ---------------------------------------------------------------------------- config
def test_hooks_config_takes_argv_lists_per_event_and_warns_once_per_bad_key(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[hooks]\nwait_opened = ["notify-send", "asks", "waiting"]\nanswer_saved = "not a list"\n'
        'question_asked = []\nstorage_failed = ["x", 1]\nsometimes = ["x"]\ntimeout = 2.5\n'
    )
    config, warnings = load_config(path)
    assert config.hooks.commands() == {EventKind.WAIT_OPENED: ("notify-send", "asks", "waiting")}
    assert config.hooks.timeout == 2.5
    assert len(warnings) == 4
    assert all(w.startswith(f"asks: {path}: ") for w in warnings)
    assert any("unknown key [hooks] sometimes; ignored" in w for w in warnings)
    assert any("[hooks] answer_saved must be a command as a list of strings" in w for w in warnings)


def test_every_event_kind_can_have_a_hook() -> None:
    assert set(HooksConfig().commands()) == set()
    fields = {kind.value: ("x",) for kind in EventKind}
    assert set(HooksConfig(**fields).commands()) == set(EventKind)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- the command
def asks_env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(tmp_path / "config")}


def test_line_mode_runs_each_hook_once_and_its_output_never_shows(tmp_path: Path) -> None:
    out = tmp_path / "hook.jsonl"
    kinds = ("question_asked", "wait_opened", "answer_saved", "wait_ended", "delivered")
    write_config(tmp_path / "config", {kind: hook(out) for kind in kinds})
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "asks",
            "--data-dir",
            str(tmp_path / "data"),
            "--script",
            str(SCRIPTS / "line_block.toml"),
        ],
        input=b"2\n",
        capture_output=True,
        env=asks_env(tmp_path),
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert NOISE.encode() not in done.stdout + done.stderr
    assert done.stderr == b""
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["env"] for r in records] == list(kinds)  # the queue ran out before the exit


def test_line_mode_reports_a_failing_hook_once_on_stderr(tmp_path: Path) -> None:
    write_config(tmp_path / "config", {"wait_opened": hook(tmp_path / "x", "--exit", "7")})
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "asks",
            "--data-dir",
            str(tmp_path / "data"),
            "--script",
            str(SCRIPTS / "line_group.toml"),
        ],
        input=b"1\n2\n\nagain\nmain\n",
        capture_output=True,
        env=asks_env(tmp_path),
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    assert "agent> BRANCH: main" in done.stdout.decode()  # two blockers, two failures
    assert done.stderr.decode().splitlines() == [
        f"asks: Hook wait_opened failed: {sys.executable} exited with status 7. "
        "Later failures of this hook are not reported."
    ]


def test_repl_runs_hooks_and_shows_a_failure_as_a_notice(tmp_path: Path) -> None:
    out = tmp_path / "hook.jsonl"
    write_config(
        tmp_path / "config",
        {"wait_opened": hook(out), "question_asked": ["asks-test-missing-hook"]},
    )
    app = PtyApp(
        ["--data-dir", str(tmp_path / "data"), "--script", str(SCRIPTS / "line_block.toml")],
        cols=120,
        rows=40,
        env={"XDG_CONFIG_HOME": str(tmp_path / "config")},
    )
    try:
        app.wait_for(r"Pick a colour\?")
        trio.run(hook_lines, out, 1)
        notice = "· Hook question_asked failed: asks-test-missing-hook could not be started"
        app.wait_for(r"\s+".join(notice.split()))  # a transcript notice, wrapped to the screen
        assert NOISE not in app.text()
    finally:
        app.close()
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["env"] == "wait_opened"
    assert record["payload"]["questions"][0]["question"] == "Pick a colour?"


def test_an_osc_9_hook_reaches_the_terminal_through_asks_tty(tmp_path: Path) -> None:
    osc9 = ["sh", "-c", 'printf "\\033]9;%s\\007" "asks is waiting" > "$ASKS_TTY"']
    write_config(tmp_path / "config", {"wait_opened": osc9})
    app = PtyApp(
        [
            "--line",
            "--data-dir",
            str(tmp_path / "data"),
            "--script",
            str(SCRIPTS / "line_block.toml"),
        ],
        cols=120,
        rows=40,
        env={"XDG_CONFIG_HOME": str(tmp_path / "config")},
    )
    try:
        app.wait_for(r"^answer>")
        for _ in range(int(WAIT / 0.02)):
            if b"\x1b]9;asks is waiting\x07" in app.raw_bytes():
                break
            time.sleep(0.02)
        assert b"\x1b]9;asks is waiting\x07" in app.raw_bytes()
    finally:
        app.close()
