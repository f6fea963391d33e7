"""The chat editor: submit, newlines, slash-command completion, history, unhandled keys."""

from __future__ import annotations

import pytest

from asks.widgets.chat import ChatEditor

COLS = 20
SIZE = (COLS,)


def rows(editor: ChatEditor) -> list[str]:
    return [row.decode() for row in editor.render(SIZE, focus=True).text]


def press(editor: ChatEditor, *keys: str) -> list[str | None]:
    return [editor.keypress(SIZE, key) for key in keys]


def typed(editor: ChatEditor, text: str) -> None:
    for ch in text:
        assert editor.keypress(SIZE, ch) is None


@pytest.fixture
def sent() -> list[str]:
    return []


@pytest.fixture
def editor(sent: list[str]) -> ChatEditor:
    return ChatEditor(sent.append)


def test_renders_caption_and_text(editor: ChatEditor) -> None:
    assert rows(editor) == ["› ".ljust(COLS)]
    typed(editor, "hello")
    assert rows(editor) == ["› hello".ljust(COLS)]
    assert editor.text == "hello"


def test_enter_submits_and_clears(editor: ChatEditor, sent: list[str]) -> None:
    typed(editor, "hi there")
    assert press(editor, "enter") == [None]
    assert sent == ["hi there"]
    assert editor.text == ""
    assert editor.edit.edit_pos == 0


def test_blank_text_is_not_submitted_but_cleared(editor: ChatEditor, sent: list[str]) -> None:
    editor.set_text("  \n ")
    assert press(editor, "enter") == [None]
    assert sent == []
    assert editor.text == ""


@pytest.mark.parametrize("key", ["meta enter", "shift enter"])
def test_newline_keys_insert_a_newline(editor: ChatEditor, sent: list[str], key: str) -> None:
    typed(editor, "one")
    assert press(editor, key) == [None]
    typed(editor, "two")
    assert editor.text == "one\ntwo"
    assert rows(editor) == ["› one".ljust(COLS), "two".ljust(COLS)]
    assert editor.edit.get_cursor_coords(SIZE) == (3, 1)
    press(editor, "enter")
    assert sent == ["one\ntwo"]


def test_newline_in_the_middle_splits_at_the_cursor(editor: ChatEditor) -> None:
    editor.set_text("ab")
    press(editor, "left", "meta enter")
    assert editor.text == "a\nb"
    assert editor.edit.edit_pos == 2


def test_set_text_puts_the_cursor_at_the_end(editor: ChatEditor) -> None:
    editor.set_text("draft")
    assert editor.edit.edit_pos == 5
    assert editor.edit.get_cursor_coords(SIZE) == (7, 0)


# -- completion ------------------------------------------------------------------------------


def test_tab_completes_a_unique_command_with_a_space(editor: ChatEditor) -> None:
    typed(editor, "/a")
    assert press(editor, "tab") == [None]
    assert editor.text == "/asks "
    assert editor.edit.edit_pos == len("/asks ")


def test_tab_completes_the_common_prefix_of_several() -> None:
    editor = ChatEditor(lambda _: None, commands=("/asks", "/ask-all", "/help"))
    typed(editor, "/a")
    assert press(editor, "tab") == [None]
    assert editor.text == "/ask"


def test_tab_with_many_matches_and_nothing_to_add_keeps_text(editor: ChatEditor) -> None:
    typed(editor, "/")
    assert press(editor, "tab") == [None]
    assert editor.text == "/"


def test_tab_without_a_match_leaves_text_and_returns_key(editor: ChatEditor) -> None:
    typed(editor, "/zz")
    assert press(editor, "tab") == ["tab"]
    assert editor.text == "/zz"


@pytest.mark.parametrize("text", ["hello", "/asks q-1", "", "x /a"])
def test_tab_is_not_completion_outside_a_command_word(editor: ChatEditor, text: str) -> None:
    editor.set_text(text)
    assert press(editor, "tab") == ["tab"]
    assert editor.text == text


def test_completed_command_is_submitted_as_typed(editor: ChatEditor, sent: list[str]) -> None:
    typed(editor, "/q")
    press(editor, "tab", "enter")
    assert sent == ["/quit "]


# -- history ---------------------------------------------------------------------------------


def test_up_and_down_walk_the_history(editor: ChatEditor, sent: list[str]) -> None:
    for message in ("first", "second"):
        typed(editor, message)
        press(editor, "enter")
    typed(editor, "draft")
    assert press(editor, "up") == [None]
    assert editor.text == "second"
    assert press(editor, "up") == [None]
    assert editor.text == "first"
    assert press(editor, "up") == ["up"]  # nothing older
    assert editor.text == "first"
    assert press(editor, "down", "down") == [None, None]
    assert editor.text == "draft"
    assert press(editor, "down") == ["down"]
    assert editor.history == ("first", "second")


def test_up_without_history_is_returned(editor: ChatEditor) -> None:
    assert press(editor, "up", "down") == ["up", "down"]


def test_up_moves_inside_multiline_text_first(editor: ChatEditor) -> None:
    typed(editor, "old")
    press(editor, "enter")
    editor.set_text("a\nb")
    assert press(editor, "up") == [None]
    assert editor.text == "a\nb"  # the cursor went to the first line
    assert press(editor, "up") == [None]
    assert editor.text == "old"


def test_repeated_message_is_kept_once(editor: ChatEditor) -> None:
    for _ in range(2):
        typed(editor, "same")
        press(editor, "enter")
    assert editor.history == ("same",)


# -- unhandled keys --------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["shift tab", "ctrl c", "page up", "page down", "esc", "f5"])
def test_other_keys_are_returned(editor: ChatEditor, key: str) -> None:
    typed(editor, "text")
    assert press(editor, key) == [key]
    assert editor.text == "text"


def test_editing_keys_are_handled_by_the_edit(editor: ChatEditor) -> None:
    typed(editor, "abc")
    assert press(editor, "backspace", "left", "home") == [None, None, None]
    assert editor.text == "ab"
    assert editor.edit.edit_pos == 0


def test_tab_lists_commands_and_completes_an_argument(sent: list[str]) -> None:
    hints: list[str] = []
    ids = ("q-0a1b2c3d4e", "q-0a9f000000", "q-7777777777")
    editor = ChatEditor(
        sent.append,
        ("/asks", "/help", "/quit"),
        arguments=lambda command: ids if command == "/asks" else (),
        on_hint=hints.append,
    )
    typed(editor, "/")
    assert press(editor, "tab") == [None]
    assert hints == ["/asks /help /quit"]  # several matches are listed
    editor.set_text("/asks q-0a")
    assert press(editor, "tab") == [None]
    assert editor.text == "/asks q-0a"  # common prefix of two ids, both listed
    assert hints[-1] == "q-0a1b2c3d4e q-0a9f000000"
    typed(editor, "1")
    press(editor, "tab")
    assert editor.text == "/asks q-0a1b2c3d4e "
    editor.set_text("/help x")
    assert press(editor, "tab") == ["tab"]  # nothing to complete there


def test_tab_completes_an_at_name_from_the_names_the_app_gives(sent: list[str]) -> None:
    hints: list[str] = []
    names = ("planner", "planner-2", "reviewer")
    editor = ChatEditor(
        sent.append, arguments=lambda word: names if word == "@" else (), on_hint=hints.append
    )
    typed(editor, "@re")
    assert press(editor, "tab") == [None]
    assert editor.text == "@reviewer "
    editor.set_text("@pl")
    press(editor, "tab")
    assert editor.text == "@planner" and hints[-1] == "planner planner-2"
    editor.set_text("@zed")
    assert press(editor, "tab") == ["tab"]  # nobody by that name
    editor.set_text("@reviewer hi")
    assert press(editor, "tab") == ["tab"]  # past the name: nothing to complete
    assert ChatEditor(sent.append).keypress((40,), "@") is None  # no names: "@" is typed
    assert sent == []


def test_readline_keys(editor: ChatEditor) -> None:
    typed(editor, "one two three")
    press(editor, "ctrl a")
    assert editor.edit.edit_pos == 0
    press(editor, "meta f")
    assert editor.edit.edit_pos == 3
    press(editor, "ctrl k")
    assert editor.text == "one"
    press(editor, "ctrl e")
    typed(editor, " four five")
    press(editor, "ctrl w")
    assert editor.text == "one four "
    press(editor, "meta b")
    assert editor.edit.edit_pos == 4
    press(editor, "ctrl u")
    assert editor.text == "four " and editor.edit.edit_pos == 0
