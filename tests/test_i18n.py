"""Localization (asks/core/i18n.py, asks/locale): language choice, catalogs, plurals, fallback,
the model's text staying English, and the panel in German and Chinese (golden screens).

The catalog tests read the ``.po`` sources with Babel (the ``dev`` extra) and re-extract the
messages from the sources (``tools/i18n.py``): every catalog translates every message, keeps
every ``{placeholder}``, and its committed ``.mo`` is the compiled ``.po``. Regenerate with
``.venv/bin/python tools/i18n.py all`` after changing a marked string.
"""

from __future__ import annotations

import gettext
import importlib.util
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from types import ModuleType, SimpleNamespace
from urllib.parse import urlsplit

import httpx
import pytest
import trio
import urwid
from hypothesis import given
from hypothesis import strategies as st
from support.panel import (
    ask_async,
    check_golden,
    database_question,
    focused,
    make_panel,
    press,
    screen,
)
from support.rig import Rig, q

from asks.core import i18n
from asks.core.i18n import Translator, choose_language, normalize
from asks.core.model import RESERVED_LABELS
from asks.surfaces.web import WebBridge

ROOT = Path(__file__).resolve().parent.parent
TRANSLATED = ("de", "es", "fr", "ja", "pt", "pt_BR", "ru", "uk", "zh")
FIELD = re.compile(r"\{[a-z_]*\}")


def load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("i18n_tool", ROOT / "tools" / "i18n.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TOOL = load_tool()


# ---------------------------------------------------------------- choosing the language


def test_codes_normalize_to_the_shipped_catalogs() -> None:
    assert normalize("de_DE.UTF-8") == "de"
    assert normalize("pt-BR") == normalize("pt_BR.utf8") == normalize("pt_br") == "pt_BR"
    assert normalize("pt_PT.UTF-8") == "pt"
    assert normalize("zh_CN.UTF-8") == normalize("zh") == "zh"
    assert normalize("ja_JP.eucJP") == "ja"
    assert normalize("sr_RS@latin") is None
    assert normalize("C") is normalize("POSIX") is normalize("C.UTF-8") is normalize("") is None


def test_flag_then_config_then_lc_all_lc_messages_lang_then_english() -> None:
    env = {"LC_ALL": "fr_FR.UTF-8", "LC_MESSAGES": "ru_RU.UTF-8", "LANG": "de_DE.UTF-8"}
    assert choose_language("ja", "es", env) == "ja"
    assert choose_language(None, "es", env) == "es"
    assert choose_language(None, None, env) == "fr"
    assert choose_language(None, None, {**env, "LC_ALL": ""}) == "ru"
    assert choose_language(None, None, {"LANG": "de_DE.UTF-8"}) == "de"
    assert choose_language(None, None, {}) == "en"
    # POSIX: the first non-empty variable decides, even when it names no catalog
    assert choose_language(None, None, {"LC_ALL": "C", "LANG": "de_DE.UTF-8"}) == "en"
    assert choose_language(None, None, {"LC_ALL": "sv_SE.UTF-8", "LANG": "de"}) == "en"


def test_switch_changes_the_language_in_place_and_refuses_unknown_codes() -> None:
    translator = Translator("de")
    with i18n.use(translator):
        assert i18n._("Review") == "Übersicht" and i18n.language() == "de"
        assert translator.switch("zh_CN.UTF-8")
        assert i18n._("Review") == "总览" and i18n.language() == "zh"
        assert not translator.switch("xx")
        assert translator.language == "zh"
        assert translator.switch("en") and i18n._("Review") == "Review"
    assert i18n.active() is None and i18n._("Review") == "Review" and i18n.language() == "en"


# ---------------------------------------------------------------- the catalogs


@given(st.text(), st.text(), st.integers(min_value=-3, max_value=10**6))
def test_english_answers_as_gettexts_null_translations(
    message: str, plural: str, count: int
) -> None:
    null, english = gettext.NullTranslations(), i18n.English()
    assert english.gettext(message) == null.gettext(message)
    assert english.ngettext(message, plural, count) == null.ngettext(message, plural, count)
    translator = Translator("en")
    assert translator.gettext(message) == message
    assert translator.ngettext(message, plural, count) == (message if count == 1 else plural)


def test_every_catalog_translates_every_message_keeping_placeholders() -> None:
    template = TOOL.extract()
    wanted = {message.id for message in template if message.id}
    assert len(wanted) > 50
    langs = {lang for lang, _po in TOOL.po_files()}
    assert langs == set(TRANSLATED)
    problems = []
    for lang, po in TOOL.po_files():
        catalog = TOOL.read(po, lang)
        have = {message.id for message in catalog if message.id}
        problems += [f"{lang}: missing {m!r}" for m in sorted(map(str, wanted - have))]
        problems += [f"{lang}: obsolete {m!r}" for m in sorted(map(str, have - wanted))]
        for message in catalog:
            if not message.id:
                continue
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            if message.fuzzy or not all(strings):
                problems.append(f"{lang}: untranslated {ids[0]!r}")
                continue
            fields = set(FIELD.findall(ids[-1]))
            for string in strings:
                if set(FIELD.findall(string)) != fields:
                    problems.append(f"{lang}: placeholders of {ids[0]!r} in {string!r}")
    assert not problems, "\n".join(problems)  # nothing falls back to English


def test_the_committed_mo_files_are_the_compiled_po_files() -> None:
    for lang, po in TOOL.po_files():
        mo = po.with_suffix(".mo")
        assert mo.exists(), f"{mo} missing: run tools/i18n.py compile"
        assert mo.read_bytes() == TOOL.mo_bytes(TOOL.read(po, lang)), f"{mo} is stale"


def test_plural_forms_follow_each_language() -> None:
    one, many = "{count} question pending", "{count} questions pending"

    def forms(lang: str, *counts: int) -> list[str]:
        translator = Translator(lang)
        return [translator.ngettext(one, many, n).format(count=n) for n in counts]

    assert forms("en", 1, 2, 0) == [
        "1 question pending",
        "2 questions pending",
        "0 questions pending",
    ]
    assert forms("de", 1, 2) == ["1 Frage offen", "2 Fragen offen"]
    assert forms("ru", 1, 3, 5, 11, 21, 22, 25) == [
        "1 вопрос ожидает",
        "3 вопроса ожидают",
        "5 вопросов ожидают",
        "11 вопросов ожидают",
        "21 вопрос ожидает",
        "22 вопроса ожидают",
        "25 вопросов ожидают",
    ]
    assert forms("uk", 1, 2, 5) == ["1 питання очікує", "2 питання очікують", "5 питань очікують"]
    assert forms("fr", 0, 1, 2) == [
        "0 question en attente",
        "1 question en attente",
        "2 questions en attente",
    ]  # French: 0 is singular
    assert forms("pt_BR", 0, 2)[0] == "0 pergunta pendente"
    assert forms("pt", 0, 1)[0] == "0 perguntas pendentes"
    assert forms("zh", 1, 7) == ["1 个问题待答", "7 个问题待答"]
    assert forms("ja", 1, 7) == ["1 件の質問が保留中", "7 件の質問が保留中"]


def test_a_message_missing_from_a_catalog_falls_back_to_english(tmp_path: Path) -> None:
    folder = tmp_path / "de" / "LC_MESSAGES"
    folder.mkdir(parents=True)
    catalog = TOOL.read(ROOT / "asks/locale/de/LC_MESSAGES/asks.po", "de")
    del catalog["Review"]
    (folder / "asks.mo").write_bytes(TOOL.mo_bytes(catalog))
    translator = Translator("de", catalogs=tmp_path)
    assert translator.gettext("Review") == "Review"
    assert translator.gettext("Preview") == "Vorschau"
    assert translator.gettext("never marked") == "never marked"
    assert translator.ngettext("{n} x", "{n} xs", 2) == "{n} xs"
    shutil.rmtree(folder)
    assert Translator("de", catalogs=tmp_path).gettext("Preview") == "Preview"  # no catalog


def test_every_shipped_catalog_loads_with_gettext() -> None:
    for lang in TRANSLATED:
        translation = gettext.translation("asks", i18n.CATALOGS, [lang])
        assert translation.gettext("Review") != "Review", lang


def test_what_the_model_reads_stays_english_in_every_locale() -> None:
    from asks.contract import DEFAULT_GUIDANCE  # noqa: PLC0415

    for lang in TRANSLATED:
        with i18n.use(Translator(lang)):
            assert RESERVED_LABELS == ("Other", "Type something.", "Next")
            assert DEFAULT_GUIDANCE.description.startswith(DEFAULT_GUIDANCE.description[:20])
    template = TOOL.extract()
    marked_in = {path for message in template for path, _line in message.locations}
    assert not any(path.startswith(("asks/contract/", "asks/agent/prompts")) for path in marked_in)


# ---------------------------------------------------------------- the panel in other languages


def test_golden_panel_in_german(rig: Rig) -> None:
    ask_async(rig, "c1", database_question())
    rig.async_question("c2", "Ship the release today?", header="Release")
    with i18n.use(Translator("de")):
        panel = make_panel(rig)
        focused(rig)
        lines = screen(panel)
        text = "\n".join(lines)
        assert "Fragen (2)" in lines[0] and "4. Etwas eingeben." in text
        assert "Enter bestätigen" in text and "Esc pausieren" in text and "↑↓ wählen" in text
        check_golden("de_single_focused", lines)
        press(panel, "meta d")
        assert "Alt+D erneut drücken: ablehnen" in "\n".join(screen(panel))


def test_golden_review_in_german(rig: Rig) -> None:
    with i18n.use(Translator("de")):
        panel = make_panel(rig)
        rig.blocker(
            "c1",
            q("Which region?", header="Region", options=("eu-west", "us-east")),
            q("Which instance size?", header="Size", options=("small", "large")),
        )
        rig.clock.past_guard()
        press(panel, "enter", "tab")
        lines = screen(panel)
        text = "\n".join(lines)
        assert "[● Übersicht]" in text and "⚠ erforderlich" in lines[0]
        assert "Enter sendet jetzt 1 Antwort ab; 1 bleibt offen." in text
        check_golden("de_review", lines)


def chinese_question() -> dict[str, object]:
    return {
        "question": "服务应该使用哪个数据库？请考虑备份和运维成本，以及团队对每个系统的熟悉程度。",
        "header": "数据库",
        "options": [
            {"label": "Postgres", "description": "可靠且广为人知；需要一台服务器。"},
            {"label": "SQLite", "description": "一个文件，不需要服务器。"},
            {"label": "Café ñandú", "description": "Combining: e\u0301 n\u0303 — one column each."},
        ],
    }


def test_golden_panel_in_chinese_lays_out_wide_text(rig: Rig) -> None:
    ask_async(rig, "c1", chinese_question())
    rig.async_question("c2", "今天发布吗？", header="发布")
    with i18n.use(Translator("zh")):
        panel = make_panel(rig, max_rows=30)
        focused(rig)
        for cols in (80, 41, 30):
            canvas = panel.render((cols,), focus=True)
            rows = [line.decode("utf-8") for line in canvas.text]
            widths = {urwid.calc_width(row, 0, len(row)) for row in rows}
            assert widths == {cols}, (cols, rows)  # every row exactly fills the width
            framed = [row for row in rows if row.startswith(("│", "╎"))]
            assert framed and all(row.rstrip().endswith(("│", "╎", "↓")) for row in framed)
        lines = screen(panel, 41)
        assert "问题 (2)" in lines[0] and "4. 输入内容。" in "\n".join(lines)
        assert any("Alt+N 备注" in line for line in lines)  # a hint is never split
        assert any("Alt+D 拒绝 (按两次)" in line for line in lines)
        check_golden("zh_single_focused_41", lines)
        check_golden("zh_single_focused_80", screen(panel))


# ---------------------------------------------------------------- the CLI and the transcript


def test_cli_messages_follow_lang_and_locale_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from asks.cli import main  # noqa: PLC0415

    for name in ("LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "de_DE.UTF-8")
    assert main(["--data-dir", str(tmp_path), "sessions"]) == 0
    assert capsys.readouterr().out == f"Keine Sitzungen in {tmp_path}.\n"
    assert main(["--locale", "ja", "--data-dir", str(tmp_path), "sessions"]) == 0
    assert capsys.readouterr().out == f"{tmp_path} にセッションはありません。\n"
    assert i18n.active() is None  # the scope ends with main
    with pytest.raises(SystemExit) as exit_info:
        main(["--locale", "xx", "sessions"])
    assert exit_info.value.code == 2
    assert "argument --locale: invalid locale value: 'xx'" in capsys.readouterr().err


def test_cli_takes_ui_locale_from_the_config_unless_the_flag_says(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from asks.cli import main  # noqa: PLC0415

    monkeypatch.setenv("LC_ALL", "ru_RU.UTF-8")
    config = tmp_path / "config.toml"
    config.write_text('[ui]\nlocale = "pt-BR"\n', encoding="utf-8")
    assert main(["--config", str(config), "--allow-commands"]) == 2
    assert capsys.readouterr().err == (
        "asks: --allow-commands é só para -p (a REPL pergunta antes de cada comando)\n"
    )
    assert main(["--config", str(config), "--locale", "uk", "--allow-commands"]) == 2
    assert "лише для -p" in capsys.readouterr().err
    config.write_text('[ui]\nlocale = "klingon"\n', encoding="utf-8")
    assert main(["--config", str(config), "--allow-commands"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert "[ui] locale должно быть одним из: en, de, es" in err[0]  # in Russian (LC_ALL)
    assert err[1] == "asks: --allow-commands только для -p (REPL спрашивает перед каждой командой)"


def test_help_transcript_prompt_and_resume_notice_in_german() -> None:
    from asks.agent.replay import resumed_notice  # noqa: PLC0415
    from asks.agent.transcript import Entry, EntryKind  # noqa: PLC0415
    from asks.widgets.app import help_text  # noqa: PLC0415
    from asks.widgets.keymap import build_keymap  # noqa: PLC0415
    from asks.widgets.prompt import prompt_markup  # noqa: PLC0415
    from asks.widgets.transcript import entry_prefix  # noqa: PLC0415

    english = help_text(build_keymap())
    with i18n.use(Translator("de")):
        german = help_text(build_keymap())
        assert german.splitlines()[0].startswith("Befehle: /asks [ID] offene Fragen öffnen")
        assert "Panel: ↑↓ wählen · Space umschalten · Enter bestätigen" in german
        assert "Chat: Shift+Tab antworten · Enter senden" in german
        assert entry_prefix(Entry(EntryKind.USER, "hi")) == "du › "
        assert entry_prefix(Entry(EntryKind.RESULT, "x", title="answered")) == (
            "✔ Ergebnis (beantwortet): "
        )
        assert entry_prefix(Entry(EntryKind.ERROR, "x", title="ask_user_question")) == (
            "✖ ask_user_question: "  # a tool's name is not translated
        )
        prompt = SimpleNamespace(text="run `ls`?", answer=None)  # what prompt_markup reads
        markup = str(prompt_markup(prompt))  # type: ignore[arg-type]
        assert "⚠ Berechtigung: " in markup and "y erlauben · n verweigern" in markup
        prompt.answer = False
        assert "→ verweigert" in str(prompt_markup(prompt))  # type: ignore[arg-type]
        assert resumed_notice("s1", 2, 1) == (
            "Sitzung s1 fortgesetzt: 2 offen, 1 gespeicherte Antwort zuzustellen."
        )
    with i18n.use(Translator("ru")):
        assert resumed_notice("s1", 0, 5).endswith("к доставке 5 сохранённых ответов.")
    assert english.splitlines()[0].startswith("Commands: /asks [ID] open pending questions")
    assert len(english.splitlines()) == len(german.splitlines())


# ---------------------------------------------------------------- the web page


async def test_the_web_page_is_served_in_the_language_in_force(
    rig: Rig, nursery: trio.Nursery
) -> None:
    rig.async_question("c1", "Which database?", header="DB")
    rig.blocker("c2", q("Which caches?", header="Cache", multi=True), q("Why?", options=None))
    translator = Translator("fr")
    with i18n.use(translator):  # as the REPL runs it: the bridge's tasks start in the scope
        bridge = WebBridge(rig.host.surface_port)
        await nursery.start(bridge.run)
    assert bridge.url is not None
    parts = urlsplit(bridge.url)
    async with httpx.AsyncClient(base_url=f"http://{parts.netloc}", timeout=10) as client:
        page = (await client.get(f"/?token={bridge.token}")).text
        assert '<html lang="fr">' in page and "<title>Questions — asks</title>" in page
        assert "<h1>Questions de l&#x27;agent</h1>" in page
        assert "L&#x27;agent attend ceci (2 questions posées ensemble)" in page
        assert "Posée en arrière-plan" in page
        assert page.count('placeholder="Saisissez quelque chose."') == 3
        assert ">Valider</button>" in page and ">Refuser</button>" in page
        assert "Which caches?" in page  # the model's text stays as it was asked
        translator.switch("zh")  # /language zh: the next page follows
        page = (await client.get(f"/?token={bridge.token}")).text
        assert '<html lang="zh">' in page and ">提交</button>" in page
    bridge.close()


def test_refusals_and_notices_reach_the_person_in_german(rig: Rig) -> None:
    """The host's refusals and notices (what the panel and /asks show) follow the language in
    force; outside a scope, and in what the model reads, they stay English."""
    from asks.core.refusal import Refusal  # noqa: PLC0415

    port = rig.host.panel_port
    with i18n.use(Translator("de")):
        assert port.enter_panel() is Refusal.NO_QUESTIONS
        assert rig.host.surface_port.notice == "Keine offenen Fragen."
        rig.blocker("c1", q("Which region?", header="Region"))
        assert port.toggle_collapse() is Refusal.BLOCKER_WAITING
        assert rig.host.surface_port.notice == (
            "Eine erforderliche Frage wartet; das Panel lässt sich nicht einklappen."
        )
        assert port.enter_panel("q-nope") is Refusal.UNKNOWN_QUESTION
        assert rig.host.surface_port.notice == "Keine offene Frage mit der ID q-nope."
        assert Refusal.NOT_SAVED.text == (
            "Nicht gespeichert: das Speichern ist fehlgeschlagen. Dein Entwurf bleibt erhalten."
        )
        rig.ops.fail_next_append("resolved")
        rig.answer_option(rig.ref("c1"), 0)
        notice = rig.host.surface_port.notice or ""
        assert notice.startswith("Nicht gespeichert: ") and notice.endswith(
            " Dein Entwurf bleibt erhalten."
        )
    assert port.toggle_collapse() is Refusal.BLOCKER_WAITING
    assert rig.host.surface_port.notice == "A required question is waiting; it cannot be collapsed."
    assert Refusal.NOT_SAVED.text == "Not saved: storage failed. Your draft is kept."
    assert (
        rig.ref("c1") in rig.host.surface_port.projection.pending
    )  # the failed save kept it pending


async def test_web_error_pages_in_german(rig: Rig, nursery: trio.Nursery) -> None:
    ref = rig.async_question("c1", "Which database?", header="DB")
    with i18n.use(Translator("de")):
        bridge = WebBridge(rig.host.surface_port)
        await nursery.start(bridge.run)
    assert bridge.url is not None
    parts = urlsplit(bridge.url)
    async with httpx.AsyncClient(base_url=f"http://{parts.netloc}", timeout=10) as client:
        data = {
            "csrf": bridge.csrf_token,
            "question": ref.id,
            "incarnation": str(ref.incarnation),
            "choice": "0",
            "custom": "both",
        }
        both = await client.post(f"/answer?token={bridge.token}", data=data)
        assert both.status_code == 400 and "<h1>Zwei Antworten</h1>" in both.text
        assert "wähle „Etwas eingeben.“, um den Text zu senden" in both.text
        missing = await client.get(f"/nowhere?token={bridge.token}")
        assert missing.status_code == 404 and "Diese Seite gibt es nicht." in missing.text
    bridge.close()
    assert rig.host.surface_port.projection.pending  # the refused form saved nothing


def test_extraction_sees_every_marked_literal() -> None:
    """Babel reads no calls inside f-strings: every ``_("…")`` literal in the sources must be
    in the template, or it would silently stay English."""
    marked = re.compile(r"""(?<![\w.])(?:_|_h|N_)\(\s*(["'])((?:(?!\1).)+)\1\s*\)""")
    wanted = {message.id for message in TOOL.extract() if message.id}
    found = set()
    for source in TOOL.SOURCES:
        for path in source.rglob("*.py"):
            found |= {m.group(2) for m in marked.finditer(path.read_text(encoding="utf-8"))}
    missed = {text for text in found if text not in wanted and "\\" not in text}
    assert len(found) > 100 and not missed, sorted(missed)


def test_line_mode_prompts_and_refusals_in_german() -> None:
    from asks.agent.transcript import Entry, EntryKind  # noqa: PLC0415
    from asks.core.model import Option, QuestionSpec  # noqa: PLC0415
    from asks.surfaces import line_prompts  # noqa: PLC0415

    three = QuestionSpec("Pick?", "H", (Option("Red"), Option("Green"), Option("Blue")))
    multi = QuestionSpec("Pick some?", "H", three.options, multi_select=True)
    english = line_prompts.how_to_answer(three, required=True)
    assert (
        english == "  Type an option number (1-3) or your own answer · notes after // · "
        "/decline · /later defers it"
    )
    with i18n.use(Translator("de")):
        assert line_prompts.how_to_answer(three, required=True) == (
            "  Gib eine Optionsnummer ein (1-3) oder eine eigene Antwort · Notizen nach // · "
            "/decline · /later stellt sie zurück"
        )
        assert "Optionsnummern ein (etwa 1,3; 1-3)" in line_prompts.how_to_answer(
            multi, required=False
        )
        assert line_prompts.parse_answer(three, "7") == "Es gibt keine Option 7: wähle 1-3."
        assert line_prompts.parse_answer(three, "1,2") == (
            "Diese Frage nimmt eine Antwort: gib eine Nummer ein."
        )
        assert line_prompts.pending_lines([]) == ["-- Keine offenen Fragen."]
        entry = Entry(EntryKind.RESULT, "x", title="declined")
        assert line_prompts.entry_prefix(entry) == "Ergebnis (abgelehnt): "
        assert line_prompts.entry_prefix(Entry(EntryKind.USER, "hi")) == "du> "
    with i18n.use(Translator("ja")):
        assert line_prompts.parse_answer(three, " // x") == "メモの前に回答を入力してください。"


def test_an_open_panel_follows_a_language_switch(rig: Rig) -> None:
    translator = Translator("en")
    with i18n.use(translator):
        panel = make_panel(rig, max_rows=30)
        rig.blocker(
            "c1",
            q("Which region?", header="Region", options=("eu-west", "us-east")),
            q("Which instance size?", header="Size", options=("small", "large")),
        )
        rig.clock.past_guard()
        before = "\n".join(screen(panel))
        assert "Questions (2) ⚠ required" in before and "3. Type something." in before
        assert "Review]" not in before and " ● Review " in before
        press(panel, "down", "down")  # onto Type something.: the reply editor's placeholder
        editing = screen(panel)
        assert "3. Type something." in "\n".join(editing)
        translator.switch("zh")
        panel.refresh()  # what /language does (the host did not change)
        after = "\n".join(screen(panel))
        assert "问题 (2) ⚠ 必答" in after and " ● 总览 " in after
        assert "3. 输入内容。" in after and "Type something." not in after  # the placeholder
        assert "Enter 提交 · Alt+Enter 换行" in after and "submit" not in after
        translator.switch("en")
        panel.refresh()
        assert screen(panel) == editing
        press(panel, "up", "up")  # off the editor: the row itself draws Type something.
        assert "3. Type something." in "\n".join(screen(panel))
        translator.switch("de")
        panel.refresh()
        assert "3. Etwas eingeben." in "\n".join(screen(panel))


def test_the_wheel_ships_the_compiled_catalogs(tmp_path: Path) -> None:
    from support.building import build_wheel, the_wheel  # noqa: PLC0415
    from support.paths import ROOT  # noqa: PLC0415

    build_wheel(ROOT, tmp_path)
    wheel = the_wheel(tmp_path)
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {f"asks/locale/{lang}/LC_MESSAGES/asks.mo" for lang in TRANSLATED}
    assert shipped <= names, sorted(shipped - names)
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    probe = (
        "from asks.core.i18n import CATALOGS, Translator; "
        "print(CATALOGS); print(Translator('uk').gettext('Review'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(unpacked)!r}); {probe}"],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    catalogs, review = done.stdout.splitlines()
    assert Path(catalogs).is_relative_to(unpacked) and review == "Огляд"


def test_a_startup_failure_is_one_line_in_the_persons_language(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from asks.cli import main  # noqa: PLC0415

    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x", encoding="utf-8")
    assert main(["--locale", "de", "--data-dir", str(not_a_dir), "sessions"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"asks: Sitzungen in {not_a_dir} auflisten nicht möglich: ")
    assert err.count("\n") == 1
