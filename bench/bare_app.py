"""The smallest trio + urwid chat screen, the floor of asks' own stack (see bench.floor_bench).

A transcript list of 2,000 lines, a one-line ``›`` editor and an ``Asks:`` status line, in a
``Pile``, on urwid's raw screen and ``TrioEventLoop``: what any urwid chat REPL on trio does
per key, with no asks code at all. Ctrl+C quits.
"""

from __future__ import annotations

import trio
import urwid


def main() -> None:
    lines = [urwid.Text(f"line {i} of a long transcript") for i in range(2000)]
    walker = urwid.SimpleFocusListWalker(lines)
    listbox = urwid.ListBox(walker)
    listbox.set_focus(len(walker) - 1)
    editor = urwid.Edit("› ")
    status = urwid.Text("Asks: idle")
    pile = urwid.Pile([("weight", 1, listbox), ("pack", editor), ("pack", status)], focus_item=1)

    def unhandled(key: str | tuple[str, int, int, int]) -> None:
        if key == "ctrl c":
            raise urwid.ExitMainLoop()

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
