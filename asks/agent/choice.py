"""Which model a run talks to: the flags, then the session's record, then the config file.

:func:`choose` returns the :class:`~asks.agent.scripted.Script` to play or the provider
:class:`~asks.agent.provider.Settings`:

1. ``--script FILE`` → that script (not with ``--model``/``--provider``: a usage error).
2. Any of ``--model``/``--provider``/``--base-url`` → a real model. Each flag wins; what a flag
   leaves open comes from the session's record (when resuming a real-model session of the same
   provider), else from ``[model]`` (when its ``provider``, default ``openai``, is that
   provider). No model name anywhere → a usage error.
3. No model flag, resuming a session that recorded its model (:class:`ModelChosen`) → that
   model again: the same provider, model and base URL, or the same script (``--script`` file
   or the built-in tour). This is what makes ``asks --resume ID`` resume the same way.
4. Else ``[model] name`` → a real model; else the built-in tour.

The key is read from the environment variable named by ``[model] api_key_env`` when ``[model]``
describes the chosen provider, else the provider's default (``OPENAI_API_KEY``,
``ANTHROPIC_API_KEY``); it is never recorded. An unknown provider name is a usage error that
names the choices. A real model without the ``providers`` extra (httpx) installed is a usage
error naming the pip command, raised before any session is written (asks/core/extras.py).
:func:`record_of` is the journal entry describing a choice;
:func:`last_choice` finds the latest one in a session's records; :func:`build_model` makes the
model (a provider's module and httpx are imported only then); :func:`resume_command` is the
command that resumes a session the same way, starting asks as it was started
(:func:`program_words`).
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import attrs

from asks import contract
from asks.agent.hints import LINE_HINTS, AnswerHints
from asks.agent.loop import Model
from asks.agent.provider import Provider, Settings, resolve_settings
from asks.agent.scripted import Script, ScriptedModel, builtin_tour, load_script
from asks.core.extras import Extra, MissingExtraError, require
from asks.core.i18n import _
from asks.store.entries import ModelChosen, Record
from asks.store.records import Records

SCRIPTED = "scripted"  # the provider name recorded for scripted models
ASKS_MAIN = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "__main__.py"
)  # sys.argv[0] under ``python -m asks``


class ChoiceError(ValueError):
    """The flags or settings do not name a usable model; one line for the person."""


@attrs.frozen
class Wanted:
    """What the command-line flags ask for (``None``: not said)."""

    script: Path | None = None
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None

    @property
    def real(self) -> bool:
        return any(v is not None for v in (self.provider, self.model, self.base_url))


@attrs.frozen
class Configured:
    """The config file's ``[model]`` table (``None``: not set)."""

    name: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    timeout: float = 60.0
    stream: bool = True
    provider: str | None = None
    temperature: float | None = None


def provider_named(name: str, where: str) -> Provider:
    try:
        return Provider(name)
    except ValueError:
        choices = ", ".join(p.value for p in Provider)
        raise ChoiceError(
            f"unknown provider {name!r} ({where}); choose one of: {choices}"
        ) from None


def last_choice(records: Sequence[Record]) -> ModelChosen | None:
    """The session's latest :class:`ModelChosen` (``None`` for journals written before it),
    looked for from the end (a resumed session's is near it; a replay's records find it
    without building the others)."""
    if isinstance(records, Records):
        found = records.last_of(ModelChosen)
        return None if found is None else found.entry  # type: ignore[return-value]
    for record in reversed(records):
        if isinstance(record.entry, ModelChosen):
            return record.entry
    return None


def record_of(source: Script | Settings) -> ModelChosen:
    """The journal entry describing ``source`` (never the key)."""
    if isinstance(source, Script):
        return ModelChosen(SCRIPTED, source.name, script=source.path)
    return ModelChosen(source.provider.value, source.model, source.base_url)


def choose(
    wanted: Wanted, configured: Configured, recorded: ModelChosen | None, env: Mapping[str, str]
) -> Script | Settings:
    """The model of this run (module docstring). Raises :class:`ChoiceError`,
    :class:`~asks.agent.scripted.ScriptError` or
    :class:`~asks.agent.provider.SettingsError`."""
    if wanted.script is not None:
        for flag, value in (("--model", wanted.model), ("--provider", wanted.provider)):
            if value is not None:
                raise ChoiceError(f"--script and {flag} cannot be combined")
        return load_script(wanted.script)
    if not wanted.real and recorded is not None:
        if recorded.provider == SCRIPTED:
            return load_script(Path(recorded.script)) if recorded.script else builtin_tour()
        return _real(wanted, configured, recorded, env)
    if wanted.real or configured.name:
        return _real(wanted, configured, recorded, env)
    return builtin_tour()


def _real(
    wanted: Wanted, configured: Configured, recorded: ModelChosen | None, env: Mapping[str, str]
) -> Settings:
    config_provider = provider_named(configured.provider or Provider.OPENAI, "[model] provider")
    if wanted.provider is not None:
        provider = provider_named(wanted.provider, "--provider")
    elif recorded is not None and recorded.provider != SCRIPTED:
        provider = provider_named(recorded.provider, "the session's record")
    else:
        provider = config_provider
    record = recorded if recorded is not None and recorded.provider == provider else None
    provider_extra(provider)  # before any session is written
    config = configured if config_provider is provider else Configured()
    name = wanted.model or (record.model if record else None) or config.name
    if not name:
        raise ChoiceError(
            f"--{'provider' if wanted.provider else 'base-url'} needs a model "
            "name: --model NAME or [model] name"
        )
    base_url = wanted.base_url or (record.base_url if record else None) or config.base_url
    return resolve_settings(
        name,
        base_url,
        config.api_key_env,
        configured.timeout,
        env,
        stream=configured.stream,
        provider=provider,
        temperature=configured.temperature,
    )


def build_model(
    source: Script | Settings,
    guidance: contract.Guidance,
    *,
    seen: int | Callable[[], int] = 0,
    hints: AnswerHints = LINE_HINTS,
) -> Model:
    """The scripted model (its placeholders say ``hints``), or the provider's (its module
    imported only now; httpx later, when its client is built)."""
    if isinstance(source, Script):
        return ScriptedModel(source, seen=seen, hints=hints)
    if source.provider is Provider.ANTHROPIC:
        from asks.agent.anthropic_model import AnthropicModel  # noqa: PLC0415 — only for it

        return AnthropicModel(source, guidance)
    from asks.agent.openai_model import OpenAIModel  # noqa: PLC0415 — only with a model

    return OpenAIModel(source, guidance)


def provider_extra(provider: Provider) -> None:
    """Raise :class:`ChoiceError` (one line: what to install) if ``provider``'s client, the
    ``providers`` extra, is not installed (asks/core/extras.py)."""
    try:
        require(Extra.PROVIDERS, _("the {provider} provider").format(provider=provider.value))
    except MissingExtraError as exc:
        raise ChoiceError(str(exc)) from None


async def allow_all(text: str) -> bool:
    """``-p --allow-commands``: every permission prompt is answered "yes"."""
    return True


def resume_command(
    session_id: str,
    data_dir: Path | None,
    config: Path | None,
    program: Sequence[str] = ("asks",),
) -> str:
    """``asks --resume ID`` plus the ``--data-dir``/``--config`` that were given (absolute):
    the model is in the session's record, so nothing else is needed. ``program``: how to
    start asks as typed (:func:`program_words`)."""
    words = [*program, "--resume", session_id]
    if data_dir is not None:
        words += ["--data-dir", os.path.abspath(data_dir)]
    if config is not None:
        words += ["--config", os.path.abspath(config)]
    return shlex.join(words)


def program_words(
    argv0: str, executable: str, which: Callable[[str], str | None] = shutil.which
) -> list[str]:
    """The command that starts this asks again when typed in the same shell: the program as
    it was invoked (``argv0``; ``.venv/bin/asks`` when ``asks`` is not on ``PATH``), or its bare
    name when ``PATH`` finds that very file; ``python -m asks`` (``argv0`` is the package's
    ``__main__.py``) becomes ``executable -m asks``, by the same rule. Paths are compared as
    written, not resolved: a venv's ``python`` is a symlink to an interpreter without asks."""
    if os.path.abspath(argv0) == ASKS_MAIN:
        return [_as_typed(executable, which), "-m", "asks"]
    return [_as_typed(argv0, which)]


def _as_typed(path: str, which: Callable[[str], str | None]) -> str:
    name = os.path.basename(path)
    if name == path:
        return path  # the shell found it on PATH
    found = which(name)
    if found is not None and os.path.abspath(found) == os.path.abspath(path):
        return name
    return path
