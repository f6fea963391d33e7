"""What an HTML error page says, without its markup: its ``<title>``, else its visible text.

A server that is not a chat-completions API (a web server, a proxy, a wrong port) answers a
POST with an HTML page (``python -m http.server``: 501 "Error response"; nginx: "502 Bad
Gateway"). The model error shows the person that page's gist in one line
(:func:`asks.agent.chat_client.summary`), never the markup. Loaded only for such a page.
"""

from __future__ import annotations

from html.parser import HTMLParser

HIDDEN = frozenset({"head", "script", "style", "template"})  # text a browser does not show


class _Page(HTMLParser):
    """Collects the title's text and the visible text of the body."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title: list[str] = []
        self.text: list[str] = []
        self._open: list[str] = []  # the tags open at this point (void ones too: harmless)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._open:  # close it and whatever was left open inside it
            del self._open[len(self._open) - 1 - self._open[::-1].index(tag) :]

    def handle_data(self, data: str) -> None:
        if "title" in self._open:
            self.title.append(data)
        elif not HIDDEN.intersection(self._open):
            self.text.append(data)


def page_text(html: str) -> str:
    """The page's title, else its visible text (whitespace as it came)."""
    page = _Page()
    page.feed(html)
    page.close()
    return " ".join(page.title).strip() or " ".join(page.text)
