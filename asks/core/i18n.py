"""Localization: the person's language for every person-facing string.

Catalogs are stdlib :mod:`gettext` ``.mo`` files shipped in the package
(``asks/locale/<lang>/LC_MESSAGES/asks.mo``, compiled from the ``.po`` files beside them).
What the *model* reads (tool description, schema, results, errors, the reserved labels
``Type something.`` / ``Next`` it may not use) never goes through here and stays English.

Which language (:func:`choose_language`): ``--locale``, then ``[ui] locale`` in the config,
then the first non-empty of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` (POSIX order; an unsupported
or ``C``/``POSIX`` value there means English), then English. Codes are normalized
(:func:`normalize`): ``de_DE.UTF-8`` → ``de``, ``pt-BR`` / ``pt_BR.UTF-8`` → ``pt_BR``,
``zh_CN`` → ``zh``. Both spellings are taken everywhere; the person is always shown the tag
with a hyphen (``pt-BR``, :func:`shown`), the catalogs' folder keeps the underscore.

A :class:`Translator` holds the language chosen now; :meth:`Translator.switch` changes it in
place (``/language zh``), so everything holding it follows. A message missing from a catalog
falls back to English (``gettext``'s fallback), never to a blank; plural forms use each
catalog's ``Plural-Forms`` rule via :meth:`Translator.ngettext`.

The scoped holder: the composition root builds one translator and enters :func:`use`, a
:class:`contextvars.ContextVar` scope (trio tasks and urwid callbacks started inside it see
the same translator). Widgets and surfaces call :func:`_` (alias :func:`translate`) and
:func:`ngettext`, which read that scope; outside any scope (an embedder that never enters
one, unit tests) they return the English text unchanged. :func:`N_` marks a constant for
extraction without translating it, for translation where it is shown. :func:`language` names
the language now in force, for caches whose keys must change when the language does.

English has no catalog: its messages are the source texts (:class:`English`, what
``gettext.NullTranslations`` answers), so :mod:`gettext` (~3.6 M instructions of the launch:
it compiles its plural-forms tokenizer at import) is imported only to load another language.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Final, Protocol

DOMAIN: Final = "asks"
CATALOGS: Final = Path(__file__).resolve().parent.parent / "locale"
ENGLISH: Final = "en"

LANGUAGE_NAMES: Final[Mapping[str, str]] = {
    "en": "English",
    "de": "Deutsch",
    "es": "Español",
    "fr": "Français",
    "ja": "日本語",
    "pt": "Português",
    "pt_BR": "Português (Brasil)",
    "ru": "Русский",
    "uk": "Українська",
    "zh": "中文",
}
LANGUAGES: Final = tuple(LANGUAGE_NAMES)
ENV_VARIABLES: Final = ("LC_ALL", "LC_MESSAGES", "LANG")


def normalize(code: str) -> str | None:
    """The supported language ``code`` names, or ``None`` (unsupported, ``C``, ``POSIX``)."""
    base = code.strip().split(".")[0].split("@")[0].replace("-", "_")
    if not base or base.upper() in ("C", "POSIX"):
        return None
    language, _sep, region = base.partition("_")
    language = language.lower()
    if f"{language}_{region.upper()}" in LANGUAGE_NAMES:
        return f"{language}_{region.upper()}"
    return language if language in LANGUAGE_NAMES else None


def shown(language: str) -> str:
    """How a supported ``language`` is written for the person: its BCP 47 tag (``pt_BR`` →
    ``pt-BR``, as the README writes it); :func:`normalize` takes either spelling back."""
    return language.replace("_", "-")


SHOWN_CODES: Final = tuple(shown(language) for language in LANGUAGES)


def locale(code: str) -> str:
    """The supported language ``code`` names (an argparse type: ``ValueError`` otherwise)."""
    language = normalize(code)
    if language is None:
        raise ValueError(code)
    return language


def choose_language(flag: str | None, configured: str | None, environ: Mapping[str, str]) -> str:
    """The language to use (module docstring); ``flag`` and ``configured`` must be supported
    codes or ``None`` (the callers report unsupported ones)."""
    for explicit in (flag, configured):
        if explicit:
            return normalize(explicit) or ENGLISH
    for name in ENV_VARIABLES:
        value = environ.get(name, "")
        if value:
            return normalize(value) or ENGLISH
    return ENGLISH


class Catalog(Protocol):
    """What a translator reads of a catalog (``gettext``'s translations)."""

    def gettext(self, message: str, /) -> str: ...

    def ngettext(self, singular: str, plural: str, n: int, /) -> str: ...


class English:
    """The source texts, as ``gettext.NullTranslations`` gives them (module docstring)."""

    def gettext(self, message: str, /) -> str:
        return message

    def ngettext(self, singular: str, plural: str, n: int, /) -> str:
        return singular if n == 1 else plural


def _load(language: str, catalogs: Path) -> Catalog:
    if language == ENGLISH:
        return English()
    import gettext  # noqa: PLC0415 (module docstring)

    return gettext.translation(DOMAIN, catalogs, [language], fallback=True)


class Translator:
    """The language in force and its catalog; :meth:`switch` changes both in place."""

    def __init__(self, language: str = ENGLISH, catalogs: Path = CATALOGS) -> None:
        self._catalogs = catalogs
        self._language = ENGLISH
        self._translations = _load(ENGLISH, catalogs)
        self.switch(language)

    @property
    def language(self) -> str:
        return self._language

    def switch(self, code: str) -> bool:
        """Use the language ``code`` names from now on; ``False`` (and no change) when it
        names no supported language."""
        language = normalize(code)
        if language is None:
            return False
        self._translations = _load(language, self._catalogs)
        self._language = language
        return True

    def gettext(self, message: str) -> str:
        if not message:  # gettext("") is the catalog's header
            return message
        return self._translations.gettext(message) or message

    def ngettext(self, singular: str, plural: str, count: int) -> str:
        return self._translations.ngettext(singular, plural, count) or (
            singular if count == 1 else plural
        )


_ACTIVE: Final[contextvars.ContextVar[Translator]] = contextvars.ContextVar("asks_translator")


@contextlib.contextmanager
def use(translator: Translator) -> Iterator[Translator]:
    """Make ``translator`` the one :func:`_` and :func:`ngettext` read inside the block."""
    token = _ACTIVE.set(translator)
    try:
        yield translator
    finally:
        _ACTIVE.reset(token)


def active() -> Translator | None:
    """The translator of the current scope, if one was entered."""
    return _ACTIVE.get(None)


def language() -> str:
    """The language in force (English outside any scope)."""
    translator = _ACTIVE.get(None)
    return ENGLISH if translator is None else translator.language


def translate(message: str) -> str:
    """``message`` in the language in force (English when it has no translation)."""
    translator = _ACTIVE.get(None)
    return message if translator is None else translator.gettext(message)


_ = translate  # the conventional name, which extraction looks for


def ngettext(singular: str, plural: str, count: int) -> str:
    """The form of ``singular``/``plural`` for ``count`` in the language in force."""
    translator = _ACTIVE.get(None)
    if translator is None:
        return singular if count == 1 else plural
    return translator.ngettext(singular, plural, count)


def N_(message: str) -> str:  # noqa: N802 (the gettext convention)
    """Mark ``message`` for extraction; translate it with :func:`_` where it is shown."""
    return message
