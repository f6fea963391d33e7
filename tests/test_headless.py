"""``asks -p``: one turn without UI, run as the real command (scripted model and the
OpenAI-compatible provider against tests/support/fake_openai.py), plus the provider's config
keys and flags as the command line sees them."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.fake_openai import Call, FakeOpenAI, Reply

ROOT = Path(__file__).resolve().parents[1]
KEY = "sk-headless-SECRET-91ab"

SCRIPT = """
[[step]]
on = "message"
match = "ask"
[[step.reply]]
say = "Asking."
delay = 0
[[step.reply.call]]
tool = "ask_user_question"
args = { questions = [ { question = "Name?", header = "Name" } ] }
[[step.reply]]
say = "Tool said: {result}"
delay = 0

[[step]]
on = "message"
[[step.reply]]
say = "You said: {user}"
delay = 0
"""


class Cli:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.data_dir = tmp / "data"
        self.script = tmp / "script.toml"
        self.script.write_text(SCRIPT)
        (tmp / "config").mkdir()
        self.env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
        self.env.update(XDG_CONFIG_HOME=str(tmp / "config"), PYTHONPATH=str(ROOT))

    def argv(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "asks", "--data-dir", str(self.data_dir), *args]

    def run(self, *args: str, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(*args),
            input=stdin,
            capture_output=True,
            text=True,
            env={**self.env, **env},
            cwd=ROOT,
            timeout=60,
            check=False,
        )

    def journal_bytes(self) -> bytes:
        return b"".join(p.read_bytes() for p in self.data_dir.glob("*.jsonl"))

    def records(self) -> list[dict[str, object]]:
        return [json.loads(line) for line in self.journal_bytes().splitlines() if line]


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    return Cli(tmp_path)


# ---------------------------------------------------------------------------- scripted
def test_scripted_prompt_prints_the_final_text_and_journals(cli: Cli) -> None:
    done = cli.run("-p", "hello there", "--script", str(cli.script))
    assert (done.returncode, done.stdout) == (0, "You said: hello there\n"), done.stderr
    (journal,) = cli.data_dir.glob("*.jsonl")
    assert done.stderr.startswith(f"asks: session {journal.stem} saved (")
    assert done.stderr.endswith(f" -m asks --resume {journal.stem} --data-dir {cli.data_dir})\n")
    chat = [(r["role"], r["content"]) for r in cli.records() if r["type"] == "chat_message"]
    assert chat == [("user", "hello there"), ("assistant", "You said: hello there")]


def test_the_resume_hint_works_as_typed(cli: Cli) -> None:
    """The README's set-up runs ``.venv/bin/asks`` and ``asks`` is not on PATH: the hint names
    the program as it was typed, and typing the hint (same shell, same directory) resumes."""
    console = Path(sys.executable).with_name("asks")  # installed by `pip install -e .`
    assert console.is_file(), "the test needs the asks console script next to python"
    where = console.parent.parent  # typed from here as bin/asks
    env = {**cli.env, "PATH": os.defpath}

    def typed(argv: list[str]) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv, capture_output=True, text=True, env=env, cwd=where, timeout=60, check=False
        )

    first = typed(
        ["bin/asks", "--data-dir", str(cli.data_dir), "--script", str(cli.script), "-p", "one"]
    )
    assert first.returncode == 0, first.stderr
    hint = first.stderr.split("(", 1)[1].rstrip(")\n")
    assert hint.startswith("bin/asks --resume "), hint
    again = typed([*shlex.split(hint), "-p", "two"])
    assert (again.returncode, again.stdout) == (0, "You said: two\n"), again.stderr
    assert len(list(cli.data_dir.glob("*.jsonl"))) == 1  # the same session


def test_scripted_ask_gets_the_no_ui_error(cli: Cli) -> None:
    done = cli.run("-p", "please ask", "--script", str(cli.script))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Tool said: Error [no_ui]: Nobody can answer questions")
    assert "asks: ask_user_question: Error [no_ui]" in done.stderr
    assert not any(r["type"] == "group_asked" for r in cli.records())


@pytest.mark.parametrize("flag", [["-p", "-"], ["-p"]])
def test_the_prompt_can_come_from_stdin(cli: Cli, flag: list[str]) -> None:
    done = cli.run(*flag, "--script", str(cli.script), stdin="from stdin\n")
    assert (done.returncode, done.stdout) == (0, "You said: from stdin\n"), done.stderr


def test_an_empty_prompt_is_refused_and_writes_nothing(cli: Cli) -> None:
    done = cli.run("-p", "-", "--script", str(cli.script), stdin="  \n")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == "asks: the prompt is empty\n"
    assert not cli.data_dir.exists()


# ---------------------------------------------------------------------------- provider
def test_provider_prompt_offers_no_ask_tool_and_prints_the_answer(
    cli: Cli, server: FakeOpenAI
) -> None:
    args = json.dumps({"questions": [{"question": "Name?", "header": "Name"}]})
    server.queue(
        Reply("Let me ask.", [Call("ask_user_question", args, "c1")]),
        Reply("I will assume a name: Ada."),
    )
    done = cli.run(
        "-p", "name something", "--model", "test", "--base-url", server.url, OPENAI_API_KEY=KEY
    )
    assert (done.returncode, done.stdout) == (0, "I will assume a name: Ada.\n"), done.stderr
    first, second = server.seen
    assert first.tool_names == ["run_command", "read_file"]  # the real tools; no ask tool
    assert first.messages[-1] == {"role": "user", "content": "name something"}
    assert second.messages[-1]["content"].startswith("Error [no_ui]")
    assert first.headers["authorization"] == f"Bearer {KEY}"
    for output in (cli.journal_bytes(), done.stdout.encode(), done.stderr.encode()):
        assert KEY.encode() not in output


def test_a_model_error_exits_non_zero(cli: Cli, server: FakeOpenAI) -> None:
    server.queue(Reply(status=401, error="Incorrect API key provided"))
    done = cli.run("-p", "hi", "--model", "test", "--base-url", server.url, OPENAI_API_KEY=KEY)
    assert done.returncode == 1 and done.stdout == ""
    first, *rest = done.stderr.splitlines()
    assert first.startswith(f"asks: model error: {server.url} refused the request (HTTP 401")
    assert len(rest) == 1 and rest[0].startswith("asks: session ")


def test_ctrl_c_interrupts_the_turn_and_closes_the_request(cli: Cli, server: FakeOpenAI) -> None:
    server.queue(Reply("never finishing", hang="after"))
    proc = subprocess.Popen(
        cli.argv("-p", "hi", "--model", "test", "--base-url", server.url),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=cli.env,
        cwd=ROOT,
    )
    try:
        (seen,) = server.wait_requests(1, timeout=30)
        assert seen.hanging.wait(30)  # the first word was sent, the reply goes on no further
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    finally:
        proc.kill()
    assert seen.disconnected.wait(5)
    assert proc.returncode == 130 and out == "", err
    assert "asks: interrupted" in err


def test_a_remote_url_without_a_key_is_one_line_and_writes_nothing(cli: Cli) -> None:
    done = cli.run("-p", "hi", "--model", "gpt-4o-mini")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "asks: no API key for https://api.openai.com/v1: set the environment variable "
        "OPENAI_API_KEY (or name another one with [model] api_key_env)\n"
    )
    assert not cli.data_dir.exists()
    config = cli.tmp / "config" / "asks" / "config.toml"
    config.parent.mkdir()
    config.write_text(
        '[model]\nname = "m"\nbase_url = "https://example.invalid/v1"\napi_key_env = "MY_KEY"\n'
    )
    done = cli.run("-p", "hi", OPENAI_API_KEY=KEY)  # the wrong variable
    assert done.returncode == 2
    assert "set the environment variable MY_KEY" in done.stderr
    assert len(done.stderr.splitlines()) == 1 and not cli.data_dir.exists()


def test_config_model_keys_and_flags_that_override_them(cli: Cli, server: FakeOpenAI) -> None:
    config = cli.tmp / "asks.toml"
    config.write_text(
        f'[model]\nname = "from-config"\nbase_url = "{server.url}"\n'
        'api_key_env = "MY_KEY"\ntimeout = 5\nstream = false\n'
    )
    server.queue(Reply("one"), Reply("two"), Reply("three"))
    done = cli.run("-p", "hi", "--config", str(config), MY_KEY="my-secret-key")
    assert (done.returncode, done.stdout) == (0, "one\n"), done.stderr
    seen = server.seen[-1]
    assert seen.body["model"] == "from-config" and "stream" not in seen.body
    assert seen.headers["authorization"] == "Bearer my-secret-key"

    done = cli.run(
        "-p", "hi", "--config", str(config), "--model", "flagged", MY_KEY="my-secret-key"
    )
    assert (done.returncode, done.stdout) == (0, "two\n"), done.stderr
    assert server.seen[-1].body["model"] == "flagged"

    with FakeOpenAI() as stopped:
        dead = stopped.url
    config.write_text(f'[model]\nname = "from-config"\nbase_url = "{dead}"\n')
    done = cli.run("-p", "hi", "--config", str(config), "--base-url", server.url)
    assert (done.returncode, done.stdout) == (0, "three\n"), done.stderr
    assert server.seen[-1].headers["authorization"] == "Bearer no-key"  # loopback, no key


def test_script_and_model_flags_conflict(cli: Cli) -> None:
    done = cli.run("-p", "hi", "--script", str(cli.script), "--model", "m")
    assert (done.returncode, done.stderr) == (2, "asks: --script and --model cannot be combined\n")
    done = cli.run("-p", "hi", "--base-url", "http://127.0.0.1:1/v1")
    assert done.returncode == 2 and "--base-url needs a model name" in done.stderr
