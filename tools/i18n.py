"""Development tool for the gettext catalogs (needs the ``dev`` extra: Babel).

``python tools/i18n.py extract`` writes ``asks/locale/asks.pot`` from the sources (``_``,
``N_``, ``ngettext`` calls in ``asks/`` and ``widgets/``) plus the keymap's help labels (they
are translated where the hints are drawn) and the built-in tour's texts
(``asks/agent/tour.py``, the ones asks/agent/localize.py translates when it is played);
``update`` merges the template into every ``asks/locale/<lang>/LC_MESSAGES/asks.po``;
``compile`` writes the ``.mo`` files beside them (committed, so an install needs no Babel;
``tests/test_i18n.py`` checks they are up to date); ``all`` does the three in order.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "asks" / "locale"
TEMPLATE = LOCALE / "asks.pot"
SOURCES = (ROOT / "asks", ROOT / "widgets")  # asks/widgets is a symlink os.walk skips
KEYWORDS = {"_": None, "_h": None, "N_": None, "ngettext": (1, 2)}  # _h: web_page.py


def keymap_labels() -> list[str]:
    """Every help label of the default keymap (no ``_()`` in the table: translated at render)."""
    sys.path.insert(0, str(ROOT))
    from asks.widgets.keymap import build_keymap  # noqa: PLC0415 (after the path is set)

    return list(dict.fromkeys(binding.help for binding in build_keymap().bindings))


def tour_texts() -> list[str]:
    """Every text of the built-in tour that is played in the person's language."""
    sys.path.insert(0, str(ROOT))
    from asks.agent.localize import texts  # noqa: PLC0415 (after the path is set)
    from asks.agent.scripted import builtin_tour  # noqa: PLC0415

    return list(dict.fromkeys(texts(builtin_tour())))


def extract() -> Catalog:
    """The template: every marked message of the sources, the keymap labels, the tour."""
    catalog = Catalog(project="asks", fuzzy=False)
    for source in SOURCES:
        found = extract_from_dir(str(source), keywords=KEYWORDS, comment_tags=("TRANSLATORS:",))
        for filename, lineno, message, comments, context in found:
            where = (f"{source.name}/{filename}", lineno)
            catalog.add(message, None, [where], auto_comments=comments, context=context)
    for label in keymap_labels():
        catalog.add(label, None, [("widgets/keymap.py", 0)])
    for text in tour_texts():
        catalog.add(text, None, [("asks/agent/tour.py", 0)])
    return catalog


def po_files() -> Iterator[tuple[str, Path]]:
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/asks.po")):
        yield po.parent.parent.name, po


def read(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as stream:
        return read_po(stream, locale=locale)


def write(path: Path, catalog: Catalog) -> None:
    with path.open("wb") as stream:
        write_po(stream, catalog, width=100, sort_output=True, include_lineno=False)


def mo_bytes(catalog: Catalog) -> bytes:
    """The compiled catalog (untranslated and fuzzy entries are left out: they fall back)."""
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def update() -> None:
    template = extract()
    for lang, po in po_files():
        catalog = read(po, lang)
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        write(po, catalog)


def compile_all() -> None:
    for lang, po in po_files():
        po.with_suffix(".mo").write_bytes(mo_bytes(read(po, lang)))


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "all"
    if command in ("extract", "all"):
        write(TEMPLATE, extract())
    if command in ("update", "all"):
        update()
    if command in ("compile", "all"):
        compile_all()
    if command not in ("extract", "update", "compile", "all"):
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
