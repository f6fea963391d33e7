"""``run_command`` for real models: a shell command, run only after the person allows it.

Semantics of :class:`ShellTool`:

* **Permission first.** Each call raises the permission prompt (``context.confirm``, the
  :class:`~asks.agent.prompts.PromptBroker` in the REPL; ``asks -p`` denies unless
  ``--allow-commands``). A denial runs nothing and returns ``Error [permission_denied]``.
* **How it runs.** ``/bin/sh -c COMMAND`` in the directory asks was started in, stdin from
  ``/dev/null`` (a command that reads input gets end-of-file, it cannot wait for it), stdout
  and stderr into one pipe, in a new session: the command and everything it starts form one
  process group.
* **Bounded in size.** The first :data:`HEAD_BYTES` and the last :data:`TAIL_BYTES` of the
  output are kept (decoded as UTF-8, bad bytes replaced); the rest is drained and counted, so
  a command writing megabytes never blocks on a full pipe nor fills the context.
* **Bounded in time.** After ``timeout`` seconds (``[tools] command_timeout``) the whole process
  group is killed (SIGKILL) and the result says so, with the output so far. Ctrl+C (the turn's
  cancel scope) kills the group the same way. When the shell exits, what it left running in
  its group is killed too, so a background child holding the pipe cannot keep the call open.
* **The result** names the exit status (or the signal, or the timeout) and carries the output;
  the transcript gets the last lines of the output.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path
from typing import Any, Final

import attrs
import trio

from asks import contract
from asks.agent.loop import ToolCall, ToolContext
from asks.agent.toolkit import arguments_of, function_schema, invalid
from asks.agent.transcript import EntryKind
from asks.contract.errors import quote
from asks.core.i18n import _

DEFAULT_TIMEOUT: Final = 120.0
HEAD_BYTES: Final = 12_000
TAIL_BYTES: Final = 4_000
MAX_COMMAND: Final = 10_000
SHOWN_LINES: Final = 12  # of the output, in the transcript
_READ: Final = 65_536


@attrs.define
class Output:
    """The bounded capture of a byte stream: its head, its tail and how much was left out."""

    head: bytearray = attrs.Factory(bytearray)
    tail: bytearray = attrs.Factory(bytearray)
    total: int = 0

    def add(self, data: bytes | bytearray) -> None:
        self.total += len(data)
        room = HEAD_BYTES - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            del self.tail[:-TAIL_BYTES]

    @property
    def omitted(self) -> int:
        return self.total - len(self.head) - len(self.tail)

    def text(self) -> str:
        head = self.head.decode("utf-8", "replace")
        if not self.tail:
            return head
        tail = self.tail.decode("utf-8", "replace")
        if self.omitted:
            return f"{head}\n[… {self.omitted:,} bytes of output left out …]\n{tail}"
        return head + tail


@attrs.frozen
class Finished:
    """How a command ended: ``status`` (exit status, or ``-N`` for signal N) or a timeout."""

    status: int | None
    timed_out: bool
    output: str

    def summary(self, timeout: float) -> str:
        if self.timed_out:
            return (
                f"The command did not finish within {timeout:g} s ([tools] command_timeout) "
                "and was stopped (its process group was killed)."
            )
        assert self.status is not None
        if self.status < 0:
            return f"The command was ended by signal {-self.status}."
        return f"Exit status {self.status}."

    def text(self, timeout: float) -> str:
        if not self.output.strip():
            return f"{self.summary(timeout)} No output."
        return f"{self.summary(timeout)} Output:\n{self.output}"


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone
        os.killpg(pid, signal.SIGKILL)


async def _drain(stream: trio.abc.ReceiveStream, output: Output) -> None:
    while data := await stream.receive_some(_READ):
        output.add(data)


async def run_command(command: str, cwd: Path, timeout: float) -> Finished:
    """Run ``command`` bounded in size and time (module docstring); cancellation kills it."""
    output = Output()
    process = await trio.lowlevel.open_process(
        ["/bin/sh", "-c", command],
        cwd=str(cwd),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    assert process.stdout is not None
    try:
        with trio.move_on_after(timeout) as deadline:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(_drain, process.stdout, output)
                await process.wait()
                _kill_group(process.pid)  # leftovers would hold the pipe open
    finally:
        _kill_group(process.pid)  # timeout, Ctrl+C, or an error: end the whole group
        with trio.CancelScope(shield=True):
            await process.wait()
            await process.stdout.aclose()
    return Finished(
        None if deadline.cancelled_caught else process.returncode,
        deadline.cancelled_caught,
        output.text(),
    )


@attrs.frozen
class ShellTool:
    """The real ``run_command`` (module docstring)."""

    cwd: Path
    timeout: float = DEFAULT_TIMEOUT
    name: str = "run_command"

    def schema(self) -> dict[str, Any]:
        return function_schema(
            self.name,
            f"Run a shell command with /bin/sh -c in the working directory {self.cwd}. The "
            "user must allow each command first. Returns the exit status and the output "
            f"(stdout and stderr together, at most about {(HEAD_BYTES + TAIL_BYTES) // 1000} "
            f"kB: the start and the end). Stopped after {self.timeout:g} s; no input can be "
            "typed into it.",
            {"command": {"type": "string", "description": "The shell command line."}},
            ("command",),
        )

    async def run(self, call: ToolCall, context: ToolContext) -> str:
        args = arguments_of(call)
        if isinstance(args, contract.ToolError):
            return args.text
        command = args.get("command")
        if not isinstance(command, str) or not command.strip():
            return invalid('"command" must be a non-empty string: the shell command line.')
        if len(command) > MAX_COMMAND:
            return invalid(f'"command" is longer than {MAX_COMMAND} characters.')
        ask = _("Allow the agent to run: {command}").format(command=command)  # shown, not sent
        if not await context.confirm(ask):
            return contract.ToolError(
                contract.ErrorCode.PERMISSION_DENIED,
                f"The user denied permission to run {quote(command)}; it did "
                "not run. Do not run it again unless the user asks you to; continue without "
                "it, or ask the user how to proceed.",
            ).text
        finished = await run_command(command, self.cwd, self.timeout)
        shown = finished.output.rstrip("\n").splitlines()[-SHOWN_LINES:]
        context.transcript.add(
            EntryKind.TOOL, "\n".join([finished.summary(self.timeout), *shown]), self.name
        )
        return finished.text(self.timeout)
