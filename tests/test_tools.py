"""The agent's tools run for real: ``run_command`` (a real /bin/sh, real process groups),
``read_file`` (real files, symlinks and directories under tmp_path), ``withdraw_question``
(a real host and journal), and the scripted ``work`` tool's argument checks.

Nothing here bounds wall-clock time: a command that would hang is ended by the tool's own
timeout (short in these tests), and the hang guards (``trio.fail_after``) are far above it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest
import trio

from asks import contract
from asks.agent.loop import ToolCall
from asks.agent.read_file import MAX_BYTES, ReadFileTool
from asks.agent.shell import HEAD_BYTES, TAIL_BYTES, ShellTool
from asks.agent.tools import WorkTool, real_tools, scripted_tools
from asks.agent.transcript import EntryKind, Transcript
from asks.agent.withdraw import WithdrawTool
from asks.core.model import Answer, AnswerKind
from asks.host.agentport import AgentPort
from asks.host.host import QuestionHost
from asks.store.journal import Journal

GUARD = 60  # seconds: only against a hang, never asserted


@attrs.define(eq=False)
class Context:
    """A ToolContext with a scripted answer to the permission prompt."""

    host: AgentPort
    transcript: Transcript = attrs.Factory(Transcript)
    allow: bool = True
    asked: list[str] = attrs.Factory(list)

    async def confirm(self, text: str) -> bool:
        self.asked.append(text)
        return self.allow


@pytest.fixture
def host(tmp_path: Path) -> Iterator[QuestionHost]:
    journal = Journal.create(data_dir=tmp_path / "data")
    with journal:
        yield QuestionHost(journal, clock=trio.current_time)


def tool_call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall("c1", name, json.dumps(arguments))


async def run(tool: Any, context: Context, **arguments: Any) -> str:
    with trio.fail_after(GUARD):
        text: str = await tool.run(tool_call(tool.name, **arguments), context)
    return text


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except (ProcessLookupError, FileNotFoundError):
        return False
    return state != "Z"


async def dies(pid: int) -> bool:
    """The process ends (SIGKILL is sent; the kernel takes a moment to finish it)."""
    with trio.fail_after(GUARD):
        while alive(pid):
            await trio.sleep(0.01)
    return True


# ---------------------------------------------------------------------------- run_command
async def test_an_allowed_command_runs_for_real_in_the_start_directory(
    tmp_path: Path, host: QuestionHost
) -> None:
    context = Context(host.agent_port)
    text = await run(ShellTool(tmp_path), context, command="pwd; echo out; echo err >&2; exit 3")
    assert context.asked == ["Allow the agent to run: pwd; echo out; echo err >&2; exit 3"]
    assert text == f"Exit status 3. Output:\n{tmp_path}\nout\nerr\n"
    (shown,) = [e.text for e in context.transcript.entries if e.kind is EntryKind.TOOL]
    assert shown == f"Exit status 3.\n{tmp_path}\nout\nerr"


async def test_a_denied_command_does_not_run(tmp_path: Path, host: QuestionHost) -> None:
    context = Context(host.agent_port, allow=False)
    text = await run(ShellTool(tmp_path), context, command="touch ran")
    assert text.startswith(
        'Error [permission_denied]: The user denied permission to run "touch ran"; it did not run.'
    )
    assert not (tmp_path / "ran").exists()


async def test_bad_arguments_are_coded_and_ask_nothing(tmp_path: Path, host: QuestionHost) -> None:
    context = Context(host.agent_port)
    for arguments in ({}, {"command": "  "}, {"command": 3}):
        text = await run(ShellTool(tmp_path), context, **arguments)
        assert text.startswith("Error [invalid_arguments]"), text
    with trio.fail_after(GUARD):
        text = await ShellTool(tmp_path).run(ToolCall("c", "run_command", "[1]"), context)
    assert text.startswith("Error [invalid_arguments]")
    assert context.asked == []


async def test_a_missing_command_and_no_output(tmp_path: Path, host: QuestionHost) -> None:
    context = Context(host.agent_port)
    text = await run(ShellTool(tmp_path), context, command="no-such-command-xyz")
    assert text.startswith("Exit status 127. Output:\n") and "not found" in text
    assert await run(ShellTool(tmp_path), context, command="true") == "Exit status 0. No output."
    # stdin is /dev/null: a command that reads input ends instead of waiting for it
    assert await run(ShellTool(tmp_path), context, command="cat") == "Exit status 0. No output."


async def test_megabytes_of_output_are_bounded(tmp_path: Path, host: QuestionHost) -> None:
    context = Context(host.agent_port)
    text = await run(
        ShellTool(tmp_path),
        context,
        command="head -c 5000000 /dev/zero | tr '\\0' x; echo; echo THE-END",
    )
    assert len(text) < HEAD_BYTES + TAIL_BYTES + 200
    assert "bytes of output left out" in text and text.rstrip().endswith("THE-END")
    left_out = int(text.split("[… ")[1].split(" bytes")[0].replace(",", ""))
    assert left_out == 5_000_000 + 9 - HEAD_BYTES - TAIL_BYTES


async def test_a_command_that_never_ends_is_killed_with_its_group(
    tmp_path: Path, host: QuestionHost
) -> None:
    context = Context(host.agent_port)
    pids = tmp_path / "pids"
    command = f"sleep 1000 & echo $! > {pids}; echo started; wait"
    text = await run(ShellTool(tmp_path, timeout=0.5), context, command=command)
    assert text.startswith(
        "The command did not finish within 0.5 s ([tools] command_timeout) "
        "and was stopped (its process group was killed). Output:\nstarted"
    )
    assert await dies(int(pids.read_text()))


async def test_a_background_child_cannot_keep_the_call_open(
    tmp_path: Path, host: QuestionHost
) -> None:
    """The shell exits; what it left running in its group holds the pipe: it is killed."""
    context = Context(host.agent_port)
    pids = tmp_path / "pids"
    text = await run(
        ShellTool(tmp_path, timeout=GUARD * 2),
        context,
        command=f"sleep 1000 & echo $! > {pids}; echo left",
    )
    assert text == "Exit status 0. Output:\nleft\n"
    assert await dies(int(pids.read_text()))


async def test_ctrl_c_kills_the_whole_process_group(tmp_path: Path, host: QuestionHost) -> None:
    context = Context(host.agent_port)
    pids = tmp_path / "pids"
    tool = ShellTool(tmp_path, timeout=GUARD * 2)
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(
                tool.run,
                tool_call("run_command", command=(f"sleep 1000 & echo $! > {pids}; sleep 1000")),
                context,
            )
            while not pids.exists() or not pids.read_text().strip():
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()  # what Ctrl+C does to the turn
    assert await dies(int(pids.read_text()))


# ---------------------------------------------------------------------------- read_file
async def test_read_file_reads_text_under_the_working_directory(
    tmp_path: Path, host: QuestionHost
) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "notes.txt").write_text("one\ntwo\n")
    context = Context(host.agent_port)
    tool = ReadFileTool(tmp_path)
    text = await run(tool, context, path="sub/notes.txt")
    assert text == '"sub/notes.txt": 8 bytes, 2 lines.\none\ntwo\n'
    assert (await run(tool, context, path=str(tmp_path / "sub" / "notes.txt"))).endswith("two\n")
    assert (await run(tool, context, path="sub/../sub/notes.txt")).endswith("two\n")
    assert context.asked == []  # no permission needed


@pytest.mark.parametrize(
    ("path", "code"),
    [
        ("../outside.txt", "outside_workdir"),
        ("/etc/passwd", "outside_workdir"),
        ("link-out", "outside_workdir"),  # a symlink that leaves the directory
        ("missing.txt", "not_found"),
        ("sub", "not_a_file"),
        ("binary.bin", "binary_file"),
        ("latin1.txt", "binary_file"),
        ("huge.txt", "file_too_large"),
        ("bad\x00name", "invalid_arguments"),
    ],
)
async def test_read_file_refusals_are_coded(
    tmp_path: Path, host: QuestionHost, path: str, code: str
) -> None:
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (tmp_path / "outside.txt").write_text("secret")
    (work / "link-out").symlink_to(tmp_path / "outside.txt")
    (work / "binary.bin").write_bytes(b"PK\x03\x04\x00\x00data")
    (work / "latin1.txt").write_bytes("café".encode("latin-1"))
    (work / "huge.txt").write_text("x" * (MAX_BYTES + 1))
    text = await run(ReadFileTool(work), Context(host.agent_port), path=path)
    assert text.startswith(f"Error [{code}]"), text
    assert "secret" not in text


# ---------------------------------------------------------------------------- withdraw
COLOUR = {
    "question": "Colour?",
    "header": "Colour",
    "options": [{"label": "Red"}, {"label": "Blue"}],
}
SIZE = {"question": "Size?", "header": "Size", "options": [{"label": "S"}, {"label": "L"}]}


def ids(host: QuestionHost, call_id: str) -> list[str]:
    return [r.id for r in host.surface_port.projection.calls[call_id].refs]


async def test_withdraw_takes_pending_questions_back(host: QuestionHost) -> None:
    host.agent_port.start_call("a1", {"questions": [COLOUR, SIZE], "blocking": False})
    colour, size = ids(host, "a1")
    context = Context(host.agent_port)
    text = await run(WithdrawTool(), context, questionIds=[colour], reason="found it")
    assert text == (
        f'Withdrawn: "Colour?" (id {colour}). The user no longer sees them and no '
        "answer will arrive for them. Reason shown to the user: found it."
    )
    assert [r.id for r in host.surface_port.projection.pending] == [size]
    assert [getattr(tab, "id", None) for tab in host.panel_port.tabs] == [size]  # its tab closed
    notices = [e.text for e in context.transcript.entries if e.kind is EntryKind.NOTICE]
    assert notices == ['The agent withdrew "Colour?" (found it).']


async def test_withdraw_is_per_id_the_answered_and_unknown_ones_are_reported(
    host: QuestionHost,
) -> None:
    host.agent_port.start_call("a1", {"questions": [COLOUR, SIZE], "blocking": False})
    colour, size = ids(host, "a1")
    ref = host.surface_port.projection.current[colour]
    assert (
        host.surface_port.answer_from(colour, ref.incarnation, Answer(AnswerKind.OPTION, (1,)))
        is None
    )
    context = Context(host.agent_port)
    text = await run(WithdrawTool(), context, questionIds=[colour, size, "q-nope"])
    assert text == (
        f'Withdrawn: "Size?" (id {size}). The user no longer sees them and no answer will '
        f'arrive for them. Not withdrawn: "{colour}" — the user already answered (or declined) '
        "it; an answer cannot be taken back, it reaches you once, as a tool result or a "
        'feedback message. Not withdrawn: "q-nope" — no pending question of yours has this id '
        "(never asked, or already withdrawn)."
    )
    assert list(host.surface_port.projection.pending) == []  # the pending one was withdrawn
    notices = [e.text for e in context.transcript.entries if e.kind is EntryKind.NOTICE]
    assert notices == ['The agent withdrew "Size?".']  # only what was withdrawn
    assert len(host._state.outbox) == 1  # the saved answer is still delivered, once, as feedback
    feedback = host.agent_port.take_feedback()
    assert feedback is not None and 'answer "Blue"' in feedback.text
    again = await run(WithdrawTool(), context, questionIds=[size])
    assert again.startswith(f'Nothing was withdrawn. Not withdrawn: "{size}"')  # already gone


async def test_withdraw_ends_a_blocking_wait_as_withdrawn(host: QuestionHost) -> None:
    context = Context(host.agent_port)
    results: list[Any] = []
    with trio.fail_after(GUARD):
        async with trio.open_nursery() as nursery:

            async def blocking() -> None:
                results.append(await host.agent_port.ask("b1", {"questions": [COLOUR]}))

            nursery.start_soon(blocking)
            while not host.surface_port.live_waits:
                await trio.sleep(0.001)
            (qid,) = ids(host, "b1")
            await run(WithdrawTool(), context, questionIds=[qid])
    (result,) = results
    assert isinstance(result, contract.ResultEnvelope)
    assert result.outcome.value == "withdrawn" and not host.panel_port.tabs


async def test_withdraw_argument_errors(host: QuestionHost) -> None:
    context = Context(host.agent_port)
    assert (await run(WithdrawTool(), context)).startswith("Error [invalid_arguments]")
    with trio.fail_after(GUARD):
        bad = await WithdrawTool().run(ToolCall("c", "withdraw_question", "{"), context)
    assert bad.startswith("Error [invalid_arguments]: The arguments are not valid JSON")


# ---------------------------------------------------------------------------- work, sets
@pytest.mark.parametrize(
    "raw", ['{"seconds": NaN}', '{"seconds": Infinity}', '{"seconds": -Infinity}']
)
async def test_work_rejects_non_finite_seconds(host: QuestionHost, raw: str) -> None:
    with trio.fail_after(GUARD):
        text = await WorkTool().run(ToolCall("w", "work", raw), Context(host.agent_port))
    assert text.startswith('Error [invalid_arguments]: "seconds" must be a finite number')


def test_which_model_gets_which_tools(tmp_path: Path) -> None:
    scripted = [t.name for t in scripted_tools()]
    real = [t.name for t in real_tools(tmp_path)]
    assert scripted == ["work", "run_command", "withdraw_question"]
    assert real == ["run_command", "read_file", "withdraw_question"]
    assert "simulated" in scripted_tools()[1].schema()["function"]["description"]
    assert "simulated" not in real_tools(tmp_path)[0].schema()["function"]["description"]


# ---------------------------------------------------------------------------- the REPL
def repl_replies(body: dict[str, Any]) -> Any:
    """A fake model driving the real tools from the REPL (tests/support/fake_openai.py)."""
    from support.fake_openai import Call, Reply  # noqa: PLC0415 — the pty test only

    last = body["messages"][-1]
    if last["role"] == "tool":
        tag = {"c_run": "CMD", "c_deny": "DENY", "c_ask": "ASKED", "c_wd": "WD"}
        return Reply(f"{tag[last['tool_call_id']]}-RESULT: {last['content']}")
    text = last["content"]
    if text == "run":
        command = "echo $((6*7)) > answer.txt; cat answer.txt"
        return Reply("", [Call("run_command", json.dumps({"command": command}), "c_run")])
    if text == "deny":
        return Reply("", [Call("run_command", json.dumps({"command": "touch nope.txt"}), "c_deny")])
    if text == "ask":
        arguments = {"blocking": False, "questions": [COLOUR]}
        return Reply("", [Call("ask_user_question", json.dumps(arguments), "c_ask")])
    asked = next(m["content"] for m in body["messages"] if m.get("tool_call_id") == "c_ask")
    qid = asked.split("(id ")[1].split(")")[0]
    arguments = {"questionIds": [qid], "reason": "not needed"}
    return Reply("", [Call("withdraw_question", json.dumps(arguments), "c_wd")])


def test_the_repl_runs_allowed_commands_for_real_and_the_model_withdraws(
    tmp_path: Path,
) -> None:
    from support.fake_openai import FakeOpenAI  # noqa: PLC0415
    from support.pty_harness import PtyApp  # noqa: PLC0415
    from support.typist import wait_prompt_has_keys  # noqa: PLC0415

    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "OPENAI_API_KEY": "sk-x"}
    with FakeOpenAI(repl_replies) as server:
        app = PtyApp(
            ["--data-dir", str(tmp_path / "data"), "--model", "m", "--base-url", server.url],
            env=env,
            cwd=tmp_path,
            cols=120,
        )
        try:
            app.wait_for(r"idle$")
            for text, made in (("run", "answer.txt"), ("deny", "nope.txt")):
                app.type(text)
                app.press("enter")
                app.wait_for("Permission: Allow the agent to run:")
                assert not (tmp_path / made).exists()  # nothing runs before "yes"
                wait_prompt_has_keys(app)
                app.press("y" if text == "run" else "n")
                app.wait_for(f"{'CMD' if text == 'run' else 'DENY'}-RESULT:")
                app.wait_for(r"idle$")
            screen = " ".join(app.text().split())
            assert "CMD-RESULT: Exit status 0. Output: 42" in screen
            assert "DENY-RESULT: Error [permission_denied]" in screen
            assert (tmp_path / "answer.txt").read_text() == "42\n"  # in the start directory
            assert not (tmp_path / "nope.txt").exists()

            app.type("ask")
            app.press("enter")
            app.wait_for(r"╎ Colour\?")
            app.wait_for(r"idle$")
            app.type("withdraw")
            app.press("enter")
            app.wait_for('The agent withdrew "Colour\\?" \\(not needed\\)')
            app.wait_for("WD-RESULT: Withdrawn:")
            app.wait_gone(r"Questions \(")
            app.type("/quit")
            app.press("enter")
            assert app.wait_exit() == 0
        finally:
            app.close()
        tools = server.seen[0].tool_names
        assert tools == ["run_command", "read_file", "ask_user_question", "withdraw_question"]
