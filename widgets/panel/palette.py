"""The panel's urwid palette: one entry per display attribute the panel's widgets use.

Every attribute name starts with ``panel.``; an app passes :data:`PALETTE` (with its own
entries) to :class:`urwid.MainLoop`. Each entry gives 16-colour, monochrome and 256-colour
renderings, so the panel reads on any terminal.
"""

from __future__ import annotations

from typing import Final, TypeAlias

# urwid's (name, foreground, background[, mono[, foreground high, background high]])
PaletteEntry: TypeAlias = (
    tuple[str, str, str] | tuple[str, str, str, str] | tuple[str, str, str, str, str, str]
)


class Palette(tuple[PaletteEntry, ...]):
    """urwid palette entries, immutable: pass the palette to :class:`urwid.MainLoop`.

    Each entry is urwid's ``(name, foreground, background, mono, foreground_high,
    background_high)`` (the last three may be left out): 16-colour, monochrome and 256-colour
    renderings of one display attribute. The panel's names all start with ``panel.``. A
    program adds its own entries with :meth:`with_entries`, e.g.
    ``LAYER_PALETTE.with_entries(("header", "white", "dark blue"))``; an entry of its own
    named like one of these replaces it (urwid registers entries in order, the last wins).
    """

    __slots__ = ()

    def with_entries(self, *entries: PaletteEntry) -> Palette:
        """This palette followed by ``entries`` (a new palette; this one is unchanged)."""
        return Palette((*self, *entries))

    @property
    def names(self) -> tuple[str, ...]:
        """The display attribute names, in order."""
        return tuple(entry[0] for entry in self)


# (name, foreground, background, mono, foreground high, background high)
PALETTE: Final = Palette(
    (
        ("panel.border", "light gray", "default", "default", "#aaa", "default"),
        ("panel.border.focus", "light cyan", "default", "bold", "#5af", "default"),
        (
            "panel.border.warning",
            "yellow,bold",
            "default",
            "bold,underline",
            "#fa0,bold",
            "default",
        ),
        ("panel.title", "white,bold", "default", "bold", "#fff,bold", "default"),
        ("panel.warning", "yellow,bold", "default", "bold,standout", "#fa0,bold", "default"),
        ("panel.tab", "light gray", "default", "default", "#bbb", "default"),
        ("panel.tab.required", "yellow", "default", "underline", "#fc6", "default"),
        ("panel.tab.selected", "black", "light gray", "standout", "#000", "#ccc"),
        ("panel.tab.staged", "light green", "default", "default", "#8d8", "default"),
        ("panel.tab.more", "dark gray", "default", "default", "#777", "default"),
        ("panel.question", "white,bold", "default", "bold", "#fff,bold", "default"),
        ("panel.context", "dark gray", "default", "default", "#999", "default"),
        ("panel.option", "light gray", "default", "default", "#ddd", "default"),
        ("panel.option.focus", "white,bold", "default", "standout", "#fff,bold", "#335"),
        ("panel.cursor", "light cyan,bold", "default", "bold", "#5af,bold", "default"),
        ("panel.description", "dark gray", "default", "default", "#888", "default"),
        ("panel.check", "light green", "default", "bold", "#8d8", "default"),
        ("panel.placeholder", "dark gray", "default", "default", "#777", "default"),
        ("panel.editor", "white", "default", "underline", "#fff", "default"),
        ("panel.next", "light cyan", "default", "bold", "#5af", "default"),
        ("panel.notes", "brown", "default", "underline", "#ca8", "default"),
        ("panel.preview", "light gray", "dark gray", "standout", "#ddd", "#333"),
        ("panel.preview.title", "dark gray", "default", "bold", "#999", "default"),
        ("panel.answer", "light green", "default", "bold", "#8d8", "default"),
        ("panel.unanswered", "dark gray", "default", "underline", "#888", "default"),
        ("panel.notice", "light magenta", "default", "bold", "#d8f", "default"),
        ("panel.hint", "dark gray", "default", "default", "#888", "default"),
        ("panel.scroll", "light cyan,bold", "default", "bold", "#5af,bold", "default"),
        ("panel.dim", "dark gray", "default", "default", "#777", "default"),
        ("panel.card", "light gray", "default", "default", "#bbb", "default"),
    )
)
