"""HTML, CSS and JavaScript of the web bridge (no I/O; :mod:`asks.surfaces.web` serves them).

Every piece of text that came from the model or the person is first made safe as text
(:func:`asks.sanitize.sanitize_text` / ``sanitize_line``) and then HTML-escaped (quotes too),
so question text can never become markup. The pages carry no inline script or style (the
Content-Security-Policy forbids both); behaviour lives in :data:`APP_JS`, served as
``/app.js``, and works as progressive enhancement: every question is a plain POST form.

Who asks: when some pending question was asked by another agent (it has a source label: an
agent asking through the hub), the heading says how many agents ask ("Questions from 3
agents") and the questions are grouped by agent first, in the panel's order (the views come
in that order: :meth:`asks.host.port.Port.pending_by_agent`): a ``section.agent`` per agent,
its ``h2`` the agent's label (the session's own agent: "This session's agent"), the tool
calls' sections inside it with ``h3`` titles. With only the session's own agent the page is as
it always was.

Page shape (the live script relies on it): ``<div id="live" data-version=N>`` holds the
pending questions grouped by tool call (``section.group``), each an ``article.question`` whose
``id`` is ``<question id>-<incarnation>`` and whose ``data-state`` is ``blocking`` or
``async``, its form ``form-<that id>``; then the recent "withdrawn by the agent" notices.

A section of several questions ends with a note field for all of them (``textarea.group-note``
named ``group_note``, ``id`` ``note-<group id>``). It belongs to the last question's form, so
without JavaScript it is posted with that answer; the script also copies it into whichever
question's form of the section is submitted first, so it goes with the next answer given.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Final
from urllib.parse import quote

import attrs

from asks.core import i18n
from asks.core.drafts import offers_custom
from asks.core.i18n import N_, _, ngettext
from asks.core.model import MAX_CUSTOM_TEXT, Question
from asks.sanitize import sanitize_line, sanitize_text


@attrs.frozen
class QuestionView:
    """One pending question as the page shows it."""

    question: Question
    blocking: bool  # a live blocking tool call waits on it


@attrs.frozen
class Withdrawal:
    """A question the agent took back while the page was open (shown as a notice)."""

    question_id: str
    header: str
    text: str


FLASHES: Final = {"saved": N_("Saved. The agent gets your answer."), "declined": N_("Declined.")}


def _t(s: str) -> str:
    """Multi-line untrusted text → escaped HTML text."""
    return html.escape(sanitize_text(s), quote=True)


def _line(s: str) -> str:
    """One-line untrusted text → escaped HTML text."""
    return html.escape(sanitize_line(s), quote=True)


def _h(message: str) -> str:
    """Our ``message`` in the language in force, escaped (a translation is text, not HTML)."""
    return html.escape(_(message), quote=True)


def page(
    views: Sequence[QuestionView],
    withdrawn: Sequence[Withdrawal],
    *,
    version: int,
    token: str,
    csrf: str,
    flash: str | None = None,
) -> str:
    """The whole page: header, flash message, the live list."""
    note = _(FLASHES.get(flash or "", ""))
    heading = html.escape(_heading(views))
    flash_html = f'<p class="flash" role="status">{html.escape(note)}</p>' if note else ""
    return _document(
        _("Questions — asks"),
        token,
        f"<header><h1>{heading}</h1></header>{flash_html}"
        + live(views, withdrawn, version=version, token=token, csrf=csrf)
        + '<p class="hint">'
        + html.escape(_("This page updates by itself; without JavaScript, reload it."))
        + "</p>",
    )


def live(
    views: Sequence[QuestionView],
    withdrawn: Sequence[Withdrawal],
    *,
    version: int,
    token: str,
    csrf: str,
) -> str:
    """The live fragment (also served alone at ``/fragment``)."""
    by_agent = _by_agent(views)
    if any(agent is not None for agent in by_agent):
        body = "".join(_agent(agent, group, token, csrf) for agent, group in by_agent.items())
    else:
        body = _groups(views, token, csrf, "h2")
    if not views:
        body = '<p class="empty">' + _h("No pending questions.") + "</p>"
    withdrawn_text = html.escape(_("{header}: “{text}” ({id}) was withdrawn by the agent."))
    notices = "".join(
        '<li class="withdrawn">'
        + withdrawn_text.format(header=_line(w.header), text=_line(w.text), id=_line(w.question_id))
        + "</li>"
        for w in withdrawn
    )
    notices_html = f'<ul class="notices">{notices}</ul>' if notices else ""
    return f'<div id="live" data-version="{version}">{body}{notices_html}</div>'


def _heading(views: Sequence[QuestionView]) -> str:
    """ "Questions from the agent", or "Questions from 3 agents" when another agent asks."""
    agents = _by_agent(views)
    if not any(agent is not None for agent in agents):
        return _("Questions from the agent")
    count = len(agents)  # the plural is the status line's ("Asks: 3 pending from 2 agents")
    agents_text = ngettext("from {count} agent", "from {count} agents", count).format(count=count)
    questions = _("Questions")
    return f"{questions} {agents_text}"


def _by_agent(views: Sequence[QuestionView]) -> dict[str | None, list[QuestionView]]:
    agents: dict[str | None, list[QuestionView]] = {}
    for view in views:
        agents.setdefault(view.question.source, []).append(view)
    return agents


def _agent(agent: str | None, views: Sequence[QuestionView], token: str, csrf: str) -> str:
    """One agent's section: its label, then its tool calls' sections."""
    name = _line(agent) if agent is not None else _h("This session's agent")
    return (
        f'<section class="agent"><h2 class="agent">{name}</h2>'
        f"{_groups(views, token, csrf, 'h3')}</section>"
    )


def _groups(views: Sequence[QuestionView], token: str, csrf: str, title: str) -> str:
    groups: dict[str, list[QuestionView]] = {}
    for view in views:
        groups.setdefault(view.question.group_id, []).append(view)
    return "".join(_group(group, token, csrf, title) for group in groups.values())


def _group(views: Sequence[QuestionView], token: str, csrf: str, heading: str = "h2") -> str:
    blocking = any(v.blocking for v in views)
    title = _("The agent is waiting for this") if blocking else _("Asked in the background")
    if len(views) > 1:
        together = ngettext(
            "({count} question asked together)", "({count} questions asked together)", len(views)
        )
        title += " " + together.format(count=len(views))
    articles = "".join(_question(v, token, csrf) for v in views)
    kind = "blocking" if blocking else "async"
    note = _group_note(views) if len(views) > 1 else ""
    title_html = f"<{heading}>{html.escape(title)}</{heading}>"
    return f'<section class="group {kind}">{title_html}{articles}{note}</section>'


def _dom_id(question: Question) -> str:
    return _line(f"{question.id}-{question.ref.incarnation}")


def _group_note(views: Sequence[QuestionView]) -> str:
    """The note field for all the questions of a section (module docstring)."""
    last = views[-1].question
    label = _h(
        "Note for the agent about all these questions (optional; it is sent with your next answer)"
    )
    return (
        f'<label class="group-note">{label}<textarea name="group_note"'
        f' id="note-{_line(last.group_id)}" form="form-{_dom_id(last)}"'
        f' maxlength="{MAX_CUSTOM_TEXT}" rows="2"></textarea></label>'
    )


def _question(view: QuestionView, token: str, csrf: str) -> str:
    q = view.question
    spec = q.spec
    state = "blocking" if view.blocking else "async"
    badge = html.escape(_("blocking — the agent waits") if view.blocking else _("async"))
    context = f'<pre class="context">{_t(spec.context)}</pre>' if spec.context else ""
    if spec.multi_select:
        kind, name = "checkbox", "option"
    else:
        kind, name = "radio", "choice"
    rows = []
    for i, option in enumerate(spec.options):
        description = (
            f' <span class="description">{_t(option.description)}</span>'
            if option.description
            else ""
        )
        preview = f'<pre class="preview">{_t(option.preview)}</pre>' if option.preview else ""
        rows.append(
            f'<li><label><input type="{kind}" name="{name}" value="{i}"> '
            f'<span class="label">{_line(option.label)}</span>{description}</label>{preview}</li>'
        )
    custom = offers_custom(spec)
    if spec.options and not spec.multi_select and custom:
        rows.append(
            '<li><label><input type="radio" name="choice" value="custom"> '
            '<span class="label">' + _h("Type something.") + "</span></label></li>"
        )
    options = f'<ul class="options">{"".join(rows)}</ul>' if rows else ""
    dom_id = _dom_id(q)
    your, placeholder, notes = _h("Your answer"), _h("Type something."), _h("Notes (optional)")
    submit, decline = _h("Submit"), _h("Decline")
    action = f"/answer?token={quote(token, safe='')}"
    return (
        f'<article class="question {state}" id="{dom_id}" data-state="{state}">'
        f'<header><span class="chip">{_line(spec.header)}</span>{_source(q.source)} '
        f'<span class="badge">{badge}</span> <code>{_line(q.id)}</code></header>'
        f'<p class="text">{_t(spec.question)}</p>{context}'
        f'<form method="post" action="{html.escape(action, quote=True)}" id="form-{dom_id}">'
        f'<input type="hidden" name="csrf" value="{html.escape(csrf, quote=True)}">'
        f'<input type="hidden" name="question" value="{_line(q.id)}">'
        f'<input type="hidden" name="incarnation" value="{q.ref.incarnation}">'
        f"{options}"
        + (
            f'<label class="custom">{your}<textarea name="custom"'
            f' maxlength="{MAX_CUSTOM_TEXT}" rows="2" placeholder="{placeholder}">'
            "</textarea></label>"
            if custom
            else ""
        )
        + f'<label class="notes">{notes}<textarea name="notes"'
        f' maxlength="{MAX_CUSTOM_TEXT}" rows="1"></textarea></label>'
        '<p class="actions"><button type="submit" name="action" value="answer">'
        f'{submit}</button> <button type="submit" name="action" value="decline"'
        f' class="decline">{decline}</button></p>'
        "</form></article>"
    )


def message(title: str, text: str, *, token: str | None) -> str:
    """A short page for an error or a conflict, with a link back to the list if allowed."""
    label = _h("Back to the questions")
    back = (
        f'<p><a href="/?token={html.escape(quote(token, safe=""), quote=True)}">{label}</a></p>'
        if token
        else ""
    )
    body = f'<h1>{html.escape(title)}</h1><p class="message">{html.escape(text)}</p>{back}'
    return _document(title, token, body)


def _document(title: str, token: str | None, body: str) -> str:
    """A page; its style and script (which need the token too) only if ``token`` is given."""
    assets = ""
    if token:
        query = html.escape(quote(token, safe=""), quote=True)
        assets = (
            f'<link rel="stylesheet" href="/app.css?token={query}">'
            f'<script src="/app.js?token={query}" defer></script>'
        )
    return (
        f'<!doctype html><html lang="{i18n.language().replace("_", "-")}"><head>'
        '<meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title>{assets}</head><body>{body}</body></html>"
    )


APP_CSS: Final = """\
body { font: 16px/1.4 system-ui, sans-serif; max-width: 48rem; margin: 1rem auto; padding: 0 1rem; }
.group { border-left: 4px solid #999; padding-left: .75rem; margin: 1.5rem 0; }
.group.blocking { border-color: #c60; }
h2 { font-size: 1rem; color: #555; }
h2.agent { font-size: 1.1rem; color: #222; border-bottom: 1px solid #ccc; }
h3 { font-size: 1rem; color: #555; }
.question { margin: 1rem 0; }
.chip { font-weight: bold; background: #eee; padding: 0 .4rem; border-radius: .3rem; }
.question.blocking .badge { color: #c60; font-weight: bold; }
.text { white-space: pre-wrap; font-size: 1.1rem; }
pre { white-space: pre-wrap; background: #f6f6f6; padding: .5rem; margin: .25rem 0 .25rem 1.5rem; }
.options { list-style: none; padding: 0; }
.description { color: #555; }
textarea { display: block; width: 100%; box-sizing: border-box; margin: .25rem 0 .5rem; }
.flash { background: #e6f4e6; padding: .5rem; }
.withdrawn { color: #a00; }
.hint, .empty { color: #666; }
"""

APP_JS: Final = """\
"use strict";
// Live updates: the server sends an SSE "change" event (data: the list version) whenever the
// pending questions change; the list is fetched again and merged, keeping what was typed in
// questions that are still pending.
(function () {
  // Typing an answer selects the "Type something." row of a single-select question.
  document.addEventListener("input", function (event) {
    const field = event.target;
    if (field.name !== "custom" || !field.form || !field.value.trim()) { return; }
    const row = field.form.querySelector("input[name=choice][value=custom]");
    if (row) { row.checked = true; }
  });

  // The note for all questions of a section goes with whichever of its answers is sent
  // first (without this script, with the last question's form it belongs to).
  document.addEventListener("submit", function (event) {
    const form = event.target;
    const section = form.closest && form.closest("section.group");
    const note = section && section.querySelector("textarea[name=group_note]");
    if (!note || note.form === form) { return; }
    const old = form.querySelector("input[name=group_note]");
    if (old) { old.remove(); }
    if (!note.value.trim()) { return; }
    const copy = document.createElement("input");
    copy.type = "hidden";
    copy.name = "group_note";
    copy.value = note.value;
    form.appendChild(copy);
  });

  const token = new URLSearchParams(window.location.search).get("token");
  if (!token || !window.EventSource || !window.fetch) { return; }
  const query = "?token=" + encodeURIComponent(token);
  let running = false;
  let again = false;

  function merge(html) {
    const fresh = new DOMParser().parseFromString(html, "text/html").getElementById("live");
    const current = document.getElementById("live");
    if (!fresh || !current) { return; }
    for (const article of Array.from(fresh.querySelectorAll("article.question"))) {
      const old = document.getElementById(article.id);
      if (!old) { continue; }
      old.className = article.className;
      old.dataset.state = article.dataset.state;
      old.querySelector(".badge").replaceWith(article.querySelector(".badge"));
      article.replaceWith(old);
    }
    for (const note of Array.from(fresh.querySelectorAll("textarea[name=group_note]"))) {
      const old = document.getElementById(note.id);  // keep what was typed in it
      if (!old) { continue; }
      old.setAttribute("form", note.getAttribute("form"));
      note.replaceWith(old);
    }
    current.replaceWith(fresh);
  }

  async function refresh() {
    if (running) { again = true; return; }
    running = true;
    try {
      const response = await fetch("/fragment" + query, { cache: "no-store" });
      if (response.ok) { merge(await response.text()); }
    } catch (error) {
      // the next event (or a reload) tries again
    } finally {
      running = false;
      if (again) { again = false; refresh(); }
    }
  }

  const events = new EventSource("/events" + query);
  events.addEventListener("open", function () { document.body.dataset.live = "on"; });
  events.addEventListener("change", function (event) {
    const current = document.getElementById("live");
    if (!current || current.dataset.version !== event.data) { refresh(); }
  });
})();
"""


def _source(source: str | None) -> str:
    """Who asked (several agents on one host), escaped; nothing for the only agent."""
    asked_by = html.escape(_("asked by {source}")).format(source=_line(source or ""))
    return f' <span class="source">{asked_by}</span>' if source else ""
