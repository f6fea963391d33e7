"""Late answers with the real clients: answer saved → the agent's next model request (ms).

``python -m bench.late_bench claude-tasks|claude-background|claude-rewake|codex-queue
[--answer-after S]``

Each run drives the **real** interactive TUI (Claude Code 2.1.332 or Codex 0.171.0) under tmux
against a fake model on 127.0.0.1, with the interactive harness of
``../shared/mcp-clients/interactive/interactive.py`` (``$ASKS_INTERACTIVE`` to point elsewhere;
``bash ../shared/mcp-clients/setup.sh`` installs the binaries), and asks' hub as the MCP server
(bench/late_hub.py: a real host and journal; its "person" answers ``--answer-after`` seconds
after each question arrived). The agent asks one blocking question, its turn ends (the call
became a task, moved to the background, or timed out), and the session sits idle; the person's
answer is saved; the figure is the time from that save to the first model request the client
then starts by itself, both on ``CLOCK_MONOTONIC``. The run also says which receipt the hub
wrote (channel) and whether the request carried the answer.

* ``claude-tasks`` — the client declares MCP Tasks: the call is answered as a task and polled.
* ``claude-background`` — the same client with ``--answer-after 150``: the hub's tasks are
  off (``ASKS_LATE_NO_TASKS=1`` in the hub), the blocking call is moved to the background at
  120 s and its result starts a turn.
* ``claude-rewake`` — the agent asks without blocking (its turn ends at once); the
  asyncRewake hook ``asks mcp config claude --agent builder`` prints (docs/rewake-hook.md)
  waits on the hub, prints the answer and exits 2, which starts a turn.
* ``codex-queue`` — Codex: the call times out (``tool_timeout_sec``), the hub runs
  ``codex queue`` with the call's thread.

Nothing here asserts on time; one run is one sample.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from bench._common import PROJECT_ROOT

TOKEN = "late-bench-token"
ASK = {
    "questions": [
        {
            "question": "Which database?",
            "header": "DB",
            "options": [{"label": "PostgreSQL"}, {"label": "SQLite"}],
        }
    ]
}


def interactive() -> ModuleType:
    """The shared interactive harness, loaded from its file."""
    default = PROJECT_ROOT.parent / "shared/mcp-clients/interactive/interactive.py"
    path = Path(os.environ.get("ASKS_INTERACTIVE", default))
    spec = importlib.util.spec_from_file_location("interactive", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def start_hub(ia: ModuleType, run: Any, after: float, env: dict[str, str], port: int = 0) -> str:
    """bench/late_hub.py as a child of the run; its URL."""
    port_file = Path(run.d) / "hub.url"
    argv = [sys.executable, "-m", "bench.late_hub", "--data-dir", str(Path(run.d) / "asks")]
    argv += ["--port-file", str(port_file), "--log", str(Path(run.d) / "hub.jsonl")]
    argv += ["--answer-after", str(after), "--port", str(port)]
    process = subprocess.Popen(
        argv,
        cwd=PROJECT_ROOT,
        env={**os.environ, **env},
        stdout=(Path(run.d) / "hub.out").open("w"),
        stderr=subprocess.STDOUT,
    )
    ia.STARTED[process.pid] = ia._starttime(process.pid)
    run.procs.append(process)
    for _ in range(600):
        if port_file.exists() and port_file.read_text().strip():
            return port_file.read_text().strip()
        time.sleep(0.05)
    raise RuntimeError("the hub did not start: " + (Path(run.d) / "hub.out").read_text())


def hub_log(run: Any) -> list[dict[str, Any]]:
    path = Path(run.d) / "hub.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def wake(ia: ModuleType, run: Any, timeout: float) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The answer's log line and the first model request after it (``None``: none came)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        run.tmux.screen()
        answered = [e for e in hub_log(run) if e["ev"] == "answered"]
        if answered:
            after = [e for e in run.model() if e.get("t_recv_ns", 0) > answered[0]["t_ns"]]
            if after:
                return answered[0], after[0]
        time.sleep(0.5)
    return None


def claude(ia: ModuleType, run: Any, after: float, tasks: bool) -> None:
    url = start_hub(ia, run, after, {} if tasks else {"ASKS_LATE_NO_TASKS": "1"})
    headers = {"Authorization": f"Bearer {TOKEN}", "X-Asks-Agent": "builder"}
    servers = {"asks": {"type": "http", "url": url, "headers": headers}}
    settings = {"permissions": {"allow": ["mcp__asks"]}}
    ia.start_claude(run, servers, settings)
    prompt = "IA-CALL mcp__asks__ask_user_question " + json.dumps(ASK)
    t0, _ = ia.prompt_until(run, prompt, lambda e: e.get("kind") == "tool_call", 60)
    report(ia, run, wake(ia, run, after + 200), t0)


def asks_cli(*words: str) -> str:
    """``asks WORDS``'s standard output."""
    argv = [sys.executable, "-m", "asks", *words]
    return subprocess.run(argv, capture_output=True, text=True, check=True, cwd=PROJECT_ROOT).stdout


def claude_rewake(ia: ModuleType, run: Any, after: float) -> None:
    """A non-blocking ask; the rewake hook, as asks prints it, wakes the idle session."""
    url = start_hub(ia, run, after, {})
    data = str(Path(run.d) / "asks")
    token = asks_cli("mcp", "token", "--agent", "builder", "--data-dir", data).strip()
    port = url.rsplit(":", 1)[1].split("/", 1)[0]
    words = ["mcp", "config", "claude", "--agent", "builder", "--data-dir", data]
    printed = asks_cli(*words, "--mcp-port", port)
    hooks = json.loads(printed[printed.index("{\n") :])["hooks"]
    servers = {
        "asks": {"type": "http", "url": url, "headers": {"Authorization": f"Bearer {token}"}}
    }
    settings = {
        "permissions": {"allow": ["mcp__asks"]},
        "hooks": {"PostToolUse": hooks["PostToolUse"]},
    }
    ia.start_claude(run, servers, settings)
    prompt = "IA-CALL mcp__asks__ask_user_question " + json.dumps({**ASK, "blocking": False})
    t0, _ = ia.prompt_until(run, prompt, lambda e: e.get("kind") == "after_tool", 60)
    report(ia, run, wake(ia, run, after + 60), t0)


CODEX_TABLE = """
[mcp_servers.asks]
url = "{url}"
bearer_token_env_var = "ASKS_MCP_TOKEN"
http_headers = {{ "X-Asks-Agent" = "coder" }}
startup_timeout_sec = 20
tool_timeout_sec = {timeout}
"""


def codex(ia: ModuleType, run: Any, after: float, timeout: float) -> None:
    """Codex whose blocking call times out after ``timeout`` s; the answer comes later."""
    model_port, hub_port = run.fake_model("responses"), ia.free_port()
    url = f"http://127.0.0.1:{hub_port}/mcp"
    table = CODEX_TABLE.format(url=url, timeout=timeout)
    env, work = ia.codex_home(run.d, model_port, table)
    hub_env = {**env, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "ASKS_LATE_CODEX": ia.CODEX}
    start_hub(ia, run, after, hub_env, hub_port)
    env["ASKS_MCP_TOKEN"] = TOKEN
    run.codex_env = env
    run.tmux.start(ia.launcher(run.d, [ia.CODEX], env, work))
    if run.tmux.wait(r"(?i)(ask codex|send|context left|›)", 60) is None:
        raise RuntimeError("Codex TUI did not come up:\n" + run.tmux.screen())
    time.sleep(5)  # the start-up animation
    prompt = "IA-CALL ask_user_question " + json.dumps(ASK)
    t0, _ = ia.prompt_until(run, prompt, lambda e: e.get("kind") == "after_tool", 90)
    report(ia, run, wake(ia, run, after + 120), t0)


def claude_quit(ia: ModuleType, run: Any, after: float) -> None:
    """The person quits Claude Code while its task runs: the hub must see the client gone
    (no poll for 30 s) and keep the answer for the next call, receipting nothing."""
    url = start_hub(ia, run, after, {})
    headers = {"Authorization": f"Bearer {TOKEN}", "X-Asks-Agent": "builder"}
    ia.start_claude(
        run,
        {"asks": {"type": "http", "url": url, "headers": headers}},
        {"permissions": {"allow": ["mcp__asks"]}},
    )
    prompt = "IA-CALL mcp__asks__ask_user_question " + json.dumps(ASK)
    t0, _ = ia.prompt_until(run, prompt, lambda e: e.get("kind") == "after_tool", 60)
    time.sleep(3)
    run.tmux.type("/exit")
    time.sleep(3)
    run.say("screen after /exit:", "\n" + ia.tidy(run.tmux.screen(), 6))
    time.sleep(after + 10)
    journal = next((Path(run.d) / "asks").glob("**/*.jsonl"))
    for line in journal.read_text().splitlines():
        entry = json.loads(line)
        if entry["type"] in ("tool_result", "resolved", "feedback_offered", "offer_delivered"):
            run.say("journal", entry["type"], json.dumps(entry)[:220])
    report(ia, run, None, t0)


def report(ia: ModuleType, run: Any, found: Any, t0: int) -> None:
    for entry in run.model():
        reply = entry.get("reply", {})
        text = json.dumps(reply.get("text") or reply.get("name"))[:200]
        run.say("model req", entry["n"], entry["kind"], ia._since(t0, entry), text)
    for entry in hub_log(run):
        run.say("hub", entry["ev"], f"{(entry['t_ns'] - t0) / 1e9:.1f}s", json.dumps(entry)[:200])
    if found is None:
        run.say("VERDICT: no model request after the answer")
    else:
        answered, request = found
        carried = "PostgreSQL" in json.dumps(request)
        waited = (request["t_recv_ns"] - answered["t_ns"]) / 1e6
        run.say(
            f"VERDICT: answer saved → model request {waited:.0f} ms",
            f"(request kind {request['kind']}, carries the answer: {carried})",
        )
    run.say("screen:", "\n" + ia.tidy(run.tmux.screen(), 30))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    paths = ["claude-tasks", "claude-background", "claude-rewake", "claude-quit", "codex-queue"]
    parser.add_argument("path", choices=paths)
    parser.add_argument("--answer-after", type=float, default=None)
    parser.add_argument("--out", default=None)
    parser.add_argument("--tool-timeout", type=float, default=5.0, help="Codex tool_timeout_sec")
    args = parser.parse_args()
    ia = interactive()
    options = argparse.Namespace(out=args.out, tmux_socket="late")
    run = ia.Run(args.path, options)
    try:
        match args.path:
            case "claude-tasks":
                claude(ia, run, args.answer_after or 20.0, tasks=True)
            case "claude-background":
                claude(ia, run, args.answer_after or 150.0, tasks=False)
            case "claude-rewake":
                claude_rewake(ia, run, args.answer_after or 20.0)
            case "claude-quit":
                claude_quit(ia, run, args.answer_after or 45.0)
            case "codex-queue":
                codex(ia, run, args.answer_after or 20.0, args.tool_timeout)
    finally:
        run.close()


if __name__ == "__main__":
    main()
