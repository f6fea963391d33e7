"""A client's private home, configuration and environment: Claude Code or Codex against a fake
model and (optionally) an asks hub, as ``asks mcp config json --agent NAME`` prints it.

No token is written to a file: header values travel in the client's environment (Claude Code
expands ``${VAR}`` in ``--mcp-config`` headers; Codex reads ``bearer_token_env_var`` and
``env_http_headers``).
"""

from __future__ import annotations

import enum
import json
import os
import subprocess
import sys
import tomllib
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

from support.realclients.install import CLAUDE_VERSION, Binaries

Json = dict[str, Any]
CLAUDE_KEY = "sk-ant-api03-fake-offline-key-0000000000000000AA"
CODEX_KEY = "sk-fake-offline-codex-key"
CLAUDE_MODEL = "claude-sonnet-4-5"
ASKS_TOOLS = ("ask_user_question", "check_answers", "withdraw_question")
LOOPBACK = ("127.0.0.1", "localhost", "::1")
CODEX_TOOL_TIMEOUT = 600.0  # s: Codex's own default is 60, shorter than a person answering


class Client(enum.StrEnum):
    """The real clients the harness drives."""

    CLAUDE = "claude"
    CODEX = "codex"


def codex_table_settings(printed: str) -> dict[str, str]:
    """The settings of the ``[mcp_servers.asks]`` table ``asks mcp config codex`` prints, but
    the URL and the token's variable (the harness writes those itself): what asks tells a
    person to put there, so the harness's Codex runs with it."""
    table = printed.split("\n\n", 1)[0]
    server = tomllib.loads(table)["mcp_servers"]["asks"]
    return {k: str(v) for k, v in server.items() if k not in {"url", "bearer_token_env_var"}}


@attrs.frozen
class HubConfig:
    """Where an MCP server is and the headers a client sends it (``name``: the server's name in
    the client's config, so its tools are ``mcp__<name>__…``)."""

    url: str
    headers: Mapping[str, str] = attrs.field(factory=dict)
    name: str = "asks"
    codex_settings: Mapping[str, str] = attrs.field(factory=dict)

    def __attrs_post_init__(self) -> None:
        parts = urllib.parse.urlsplit(self.url)
        assert parts.scheme == "http" and parts.hostname in LOOPBACK, f"not loopback: {self.url}"

    @classmethod
    def parse(cls, text: str, name: str = "asks") -> HubConfig:
        """From ``{"url": …, "headers": {…}}`` (what ``asks mcp config json`` prints) or Claude
        Code's ``{"mcpServers": {name: {…}}}`` with one entry."""
        found = json.loads(text)
        if isinstance(found.get("mcpServers"), dict) and len(found["mcpServers"]) == 1:
            found = next(iter(found["mcpServers"].values()))
        headers = {str(k): str(v) for k, v in (found.get("headers") or {}).items()}
        return cls(url=str(found["url"]), headers=headers, name=name)

    @classmethod
    def from_asks(cls, data_dir: Path, port: int, agent: str | None = None) -> HubConfig:
        """What ``asks mcp config json [--agent NAME]`` prints for the hub of ``data_dir`` on
        ``port`` (per-agent tokens: each agent its own credential)."""
        argv = [sys.executable, "-m", "asks", "mcp", "config", "json"]
        argv += ["--mcp-port", str(port), "--data-dir", str(data_dir)]
        if agent is not None:
            argv += ["--agent", agent]
        printed = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
        codex = subprocess.run(
            [*argv[:5], "codex", *argv[6:]], capture_output=True, text=True, check=True
        ).stdout
        return attrs.evolve(cls.parse(printed), codex_settings=codex_table_settings(codex))

    def header_env(self) -> dict[str, str]:
        """Each header's value in an environment variable ``ASKS_MCP_HEADER_<i>``."""
        return {f"ASKS_MCP_HEADER_{i}": v for i, v in enumerate(self.headers.values())}


@attrs.frozen
class Options:
    """How a client runs, beyond its hub.

    ``hooks``: the clients' shared hooks shape, ``{"PermissionRequest": [{"matcher": "Bash",
    "hooks": [{"type": "http", "url": …}]}]}`` (Claude: ``settings.json``; Codex:
    ``$CODEX_HOME/hooks.json``, trusted at start-up by the TUI driver). ``settings``: merged
    into Claude's ``settings.json``. ``allow``: Claude's ``permissions.allow`` (default: the
    hub's tools, ``mcp__<name>``). ``tool_timeout``: seconds before the client gives up on a
    tool call (Claude ``MCP_TOOL_TIMEOUT``, unset ≈ 28 h; Codex ``tool_timeout_sec``, default
    :data:`CODEX_TOOL_TIMEOUT`). ``tool_search``: Claude defers MCP tools behind ToolSearch, as
    it does by default (off here: the tools are offered directly). ``approval``/``sandbox``:
    Codex's policies. ``codex_toml``: appended to Codex's ``config.toml``. ``env``: added to
    the client's environment. ``args``: added to its command line.
    """

    hooks: Json | None = None
    settings: Json = attrs.field(factory=dict)
    allow: tuple[str, ...] | None = None
    tool_timeout: float | None = None
    tool_search: bool = False
    approval: str = "never"
    sandbox: str = "danger-full-access"
    codex_toml: str = ""
    env: Mapping[str, str] = attrs.field(factory=dict)
    args: tuple[str, ...] = ()


@attrs.frozen
class Prepared:
    """A client ready to start: its program and arguments (without the mode's own), its
    environment (complete: the client starts with nothing else), its work and home folders."""

    argv: tuple[str, ...]
    env: Mapping[str, str]
    work: Path
    home: Path


def base_env(folder: Path, home: Path) -> dict[str, str]:
    """What every client gets: a private HOME and temp folder, the test's Python first on PATH
    (so a hook command can run ``python`` and ``asks``)."""
    return {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
        "TMPDIR": str(folder),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }


def prepare(
    client: Client,
    folder: Path,
    *,
    found: Binaries,
    model_url: str,
    hub: HubConfig | None,
    options: Options,
) -> Prepared:
    """Write ``client``'s home under ``folder``; what to start it with."""
    home, work = folder / "home", folder / "work"
    home.mkdir(parents=True, exist_ok=True)
    work.mkdir(exist_ok=True)
    build = _claude if client is Client.CLAUDE else _codex
    return build(folder, home, work, found=found, model_url=model_url, hub=hub, options=options)


# ---------------------------------------------------------------------------- Claude Code
def _claude_state(work: Path) -> Json:
    """``.claude.json``: onboarding done, the fake key approved, the work folder trusted."""
    project = {
        "allowedTools": [],
        "hasTrustDialogAccepted": True,
        "hasCompletedProjectOnboarding": True,
        "projectOnboardingSeenCount": 1,
    }
    return {
        "numStartups": 1,
        "hasCompletedOnboarding": True,
        "lastOnboardingVersion": CLAUDE_VERSION,
        "theme": "dark",
        "autoUpdates": False,
        "bypassPermissionsModeAccepted": False,
        "customApiKeyResponses": {"approved": [CLAUDE_KEY[-20:]], "rejected": []},
        "projects": {str(work): project},
    }


def _claude(
    folder: Path,
    home: Path,
    work: Path,
    *,
    found: Binaries,
    model_url: str,
    hub: HubConfig | None,
    options: Options,
) -> Prepared:
    config = home / ".claude"
    config.mkdir(exist_ok=True)
    (config / ".claude.json").write_text(json.dumps(_claude_state(work), indent=1))
    servers: Json = {}
    env = base_env(folder, home)
    settings: Json = {}
    if hub is not None:
        variables = list(hub.header_env())
        headers = {k: f"${{{var}}}" for k, var in zip(hub.headers, variables, strict=True)}
        servers[hub.name] = {"type": "http", "url": hub.url, "headers": headers}
        env.update(hub.header_env())
        settings["permissions"] = {"allow": list(options.allow or (f"mcp__{hub.name}",))}
    elif options.allow:
        settings["permissions"] = {"allow": list(options.allow)}
    if options.hooks is not None:
        settings["hooks"] = options.hooks
    settings.update(options.settings)
    (config / "settings.json").write_text(json.dumps(settings, indent=1))
    mcp = folder / "mcp.json"
    mcp.write_text(json.dumps({"mcpServers": servers}, indent=1))
    env.update(
        {
            "CLAUDE_CONFIG_DIR": str(config),
            "ANTHROPIC_BASE_URL": model_url,
            "ANTHROPIC_API_KEY": CLAUDE_KEY,
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        }
    )
    if not options.tool_search:
        env["ENABLE_TOOL_SEARCH"] = "false"
    if options.tool_timeout is not None:
        env["MCP_TOOL_TIMEOUT"] = str(int(options.tool_timeout * 1000))
    env.update(options.env)
    argv: tuple[str, ...] = (str(found.claude), "--mcp-config", str(mcp), "--strict-mcp-config")
    argv = (*argv, "--model", CLAUDE_MODEL, *options.args)
    return Prepared(argv=argv, env=env, work=work, home=home)


# ---------------------------------------------------------------------------- Codex
def _toml(value: str) -> str:
    return json.dumps(value)  # a TOML basic string, for the names and URLs written here


def _codex_server(hub: HubConfig, timeout: float) -> tuple[str, dict[str, str]]:
    """The ``[mcp_servers.<name>]`` table and the environment its headers come from."""
    lines = [f"[mcp_servers.{_toml(hub.name)}]", f"url = {_toml(hub.url)}"]
    env: dict[str, str] = {}
    others: dict[str, str] = {}
    for (header, value), var in zip(hub.headers.items(), hub.header_env(), strict=True):
        if header.lower() == "authorization" and value.lower().startswith("bearer "):
            env["ASKS_MCP_TOKEN"] = value[7:].strip()
            lines.append('bearer_token_env_var = "ASKS_MCP_TOKEN"')
        else:
            env[var] = value
            others[header] = var
    if others:
        pairs = ", ".join(f"{_toml(k)} = {_toml(v)}" for k, v in others.items())
        lines.append(f"env_http_headers = {{ {pairs} }}")
    lines += [f"{key} = {_toml(value)}" for key, value in hub.codex_settings.items()]
    lines += ["startup_timeout_sec = 20", f"tool_timeout_sec = {timeout:g}"]
    return "\n".join(lines) + "\n", env


def _codex_config(model_url: str, work: Path, options: Options) -> str:
    return f"""model = "fake-model"
model_provider = "fake"
approval_policy = {_toml(options.approval)}
sandbox_mode = {_toml(options.sandbox)}
check_for_update_on_startup = false
suppress_unstable_features_warning = true

[model_providers.fake]
name = "Fake Responses"
base_url = {_toml(model_url + "/v1")}
wire_api = "responses"
env_key = "FAKE_OPENAI_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[analytics]
enabled = false

[otel]
exporter = "none"

[features]
daemon_auto_start = false
plugins = false
remote_plugin = false
apps = false
tool_suggest = false

[projects.{_toml(str(work))}]
trust_level = "trusted"
"""


def _codex(
    folder: Path,
    home: Path,
    work: Path,
    *,
    found: Binaries,
    model_url: str,
    hub: HubConfig | None,
    options: Options,
) -> Prepared:
    config = _codex_config(model_url, work, options)
    env = base_env(folder, home)
    if hub is not None:
        table, header_env = _codex_server(hub, options.tool_timeout or CODEX_TOOL_TIMEOUT)
        config += "\n" + table
        env.update(header_env)
    (home / "config.toml").write_text(config + options.codex_toml)
    if options.hooks is not None:
        (home / "hooks.json").write_text(json.dumps({"hooks": options.hooks}, indent=1))
    env.update(
        {
            "CODEX_HOME": str(home),
            "FAKE_OPENAI_API_KEY": CODEX_KEY,
            "CODEX_MANAGED_BY_NPM": "1",
            "CODEX_MANAGED_PACKAGE_ROOT": str(found.codex_package),
        }
    )
    env.update(options.env)
    return Prepared(argv=(str(found.codex), *options.args), env=env, work=work, home=home)
