"""The smallest trio + urwid chat screen with a question box, the floor of asks' own stack
(see bench.floor_bench and bench.key_bench).

A transcript list of 2,000 lines, a boxed question (title, tab, question, three options with
descriptions, ``Type something.``, a hint line: the rows asks' panel draws for one question),
a one-line ``›`` editor and an ``Asks:`` status line, in a ``Pile``, on urwid's raw screen
and ``TrioEventLoop``: what any urwid chat REPL on trio does per key, with no asks code at
all. Keys: typing goes to the editor; Shift+Tab moves the keyboard to the box and back;
Up/Down in the box move the ``›`` marker between the options (the two rows' texts change,
as in any urwid list drawn by hand); Ctrl+C quits.
"""

from __future__ import annotations

import trio
import urwid

OPTIONS = ("Alpha", "Beta", "Gamma", "Type something.")
HINT = "↑↓ choose · Enter confirm · Alt+D decline (twice) · Esc pause · Alt+N notes"


class BareBox(urwid.WidgetWrap[urwid.LineBox[urwid.Pile]]):
    """A boxed question whose ``›`` marker Up/Down move (the bare equivalent of a panel)."""

    def __init__(self, pending: int = 1) -> None:
        self.cursor = 0
        self.option_rows = [urwid.Text(self._row(i)) for i in range(len(OPTIONS))]
        body: list[urwid.Widget] = [urwid.Text(" [Q0]"), urwid.Text(" Bench question: which?")]
        for i, row in enumerate(self.option_rows):
            body.append(row)
            if i < 3:
                body.append(urwid.Text(f"      option {OPTIONS[i].lower()}"))
        body.append(urwid.Text(" " + HINT))
        title = f"Questions ({pending})"
        super().__init__(urwid.LineBox(urwid.Pile(body), title=title, title_align="left"))

    def _row(self, i: int) -> str:
        return f" {'›' if i == self.cursor else ' '} {i + 1}. {OPTIONS[i]}"

    def selectable(self) -> bool:
        return True

    def keypress(self, size: tuple[int], key: str) -> str | None:  # type: ignore[override]
        step = {"up": -1, "down": 1}.get(key)
        if step is None:
            return key
        before, self.cursor = self.cursor, max(0, min(len(OPTIONS) - 1, self.cursor + step))
        for i in (before, self.cursor):
            self.option_rows[i].set_text(self._row(i))
        return None


def build(pending: int = 1, lines: int = 2000) -> urwid.Pile:
    """The bare screen's widget tree (the keyboard in the editor)."""
    rows = [urwid.Text(f"line {i} of a long transcript") for i in range(lines)]
    walker = urwid.SimpleFocusListWalker(rows)
    listbox = urwid.ListBox(walker)
    listbox.set_focus(len(walker) - 1)
    editor = urwid.Edit("› ")
    status = urwid.Text("Asks: idle")
    box = BareBox(pending)
    return urwid.Pile(
        [("weight", 1, listbox), ("pack", box), ("pack", editor), ("pack", status)],
        focus_item=2,
    )


def toggle(pile: urwid.Pile) -> None:
    """Shift+Tab: the keyboard to the box, or back to the editor."""
    pile.focus_position = 1 if pile.focus_position == 2 else 2


def main() -> None:
    pile = build()

    def unhandled(key: str | tuple[str, int, int, int]) -> None:
        if key == "ctrl c":
            raise urwid.ExitMainLoop()
        if key == "shift tab":
            toggle(pile)

    event_loop = urwid.TrioEventLoop()
    screen = urwid.display.raw.Screen()
    screen.tty_signal_keys("undefined", "undefined", "undefined", "undefined", "undefined")
    loop = urwid.MainLoop(
        pile, screen=screen, event_loop=event_loop, unhandled_input=unhandled, handle_mouse=False
    )

    async def run() -> None:
        with loop.start():
            await event_loop.run_async()

    trio.run(run)


if __name__ == "__main__":
    main()
