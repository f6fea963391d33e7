"""When the question under the person's keys goes away: the keys go back, and say so.

The **tab at the keys** is the tab the person's next key would act on: the selected tab while
the panel has the keys (engaged, or held for the tab the person was on), or the selected tab
a foreign prompt returns to when the panel is its origin. :class:`KeysWatch` records it after
every host change (:meth:`KeysWatch.record`, from ``HostState.changed``) and, at the next
change, looks whether it is still shown (:meth:`KeysWatch.check`).

If it went away by **someone else's doing** — its agent withdrew it, it was answered or
declined on another surface, its wait ended — the keys never stay on whatever tab the strip
selected in its place (another agent's question, maybe, whose first row Enter would choose):

* with no claim the panel lets go of the keys, to the loan origin (the chat, usually);
* with a claim (a blocker waits) the typing guard is re-armed from now with the keys at the
  loan origin; the tab the claim shows after the pause is **unchosen**: its first Enter is
  refused, on any row (:class:`~asks.host.commands.Confirm`);
* if the last claim ended with it, the claim's own return already put the keys back (on the
  tab the person was on before it, that tab is unchosen: the Enter meant for the question
  that went away must not answer it).

Either way the person is told, in a notice and a :class:`~asks.core.events.KeysReturned`
event (the REPL writes it into the transcript): which agent's question, why, where the keys
are, and the draft typed there that was not sent.

If it went away by the person's own panel command (they answered it) and the keys land on a
question of **another agent**, that question is unchosen too: one Enter never answers two
agents.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import attrs

from asks.core import events as ev
from asks.core.drafts import Draft, DraftBook
from asks.core.focus import Focus, KeysTo
from asks.core.i18n import _
from asks.core.model import QuestionRef, QuestionStatus
from asks.core.tabs import ReviewKey, TabKey, TabStrip
from asks.sanitize import sanitize_line
from asks.store.projection import Projection


class WatchCore(Protocol):
    """What the watch needs from the orchestrator."""

    focus: Focus
    projection: Projection
    drafts: DraftBook
    strip: TabStrip

    def emit(self, event: ev.HostEvent) -> None: ...
    def say(self, notice: str, *, sticky: bool = False) -> str: ...


@attrs.frozen
class AtKeys:
    """The tab at the keys as of the last change (its questions stay in the projection after
    they close, so what names it is looked up only if it goes away)."""

    tab: TabKey
    refs: tuple[QuestionRef, ...]  # the tab's question, or a Review tab's (its wait may end)
    claimed: bool  # a claim held the panel then


@attrs.define(eq=False)
class KeysWatch:
    """Watches the tab at the keys across host changes (module docstring)."""

    core: WatchCore
    clock: Callable[[], float]
    review_refs: Callable[[str], tuple[QuestionRef, ...]]  # a Review tab's questions
    at_keys: AtKeys | None = None
    dropped: Draft | None = None  # the draft of the tab at the keys, dropped since

    def dropping(self, ref: QuestionRef, draft: Draft) -> None:
        """The draft of ``ref`` is about to be dropped (its question closed): keep it if the
        keys are on it, to tell the person what was not sent."""
        if self.at_keys is not None and self.at_keys.tab == ref:
            self.dropped = draft

    def check(self, by_panel: bool) -> None:
        """The tabs were rebuilt after a change (``by_panel``: the person's own panel
        command): if the tab at the keys went away, react (module docstring)."""
        was = self.at_keys
        if was is not None and was.tab not in self.core.strip:
            if by_panel:
                self._after_own(was)
            else:
                self._went_away(was)
        self.dropped = None

    def record(self) -> None:
        """Focus and tabs are consistent again: remember the tab at the keys now."""
        self.at_keys = self._at_keys()

    def _at_keys(self) -> AtKeys | None:
        core = self.core
        focus = core.focus
        tab = focus.shown(core.strip.selected)
        if not isinstance(tab, (QuestionRef, ReviewKey)):
            return None
        refs = self.review_refs(tab.call_id) if isinstance(tab, ReviewKey) else (tab,)
        return AtKeys(tab, refs, focus.claim is not None)

    def _named(self, was: AtKeys) -> tuple[str | None, str]:
        """The agent and the header of the tab at the keys (a Review tab: "Review")."""
        first = self.core.projection.brief(was.refs[0]) if was.refs else None
        source = None if first is None else first.source
        if isinstance(was.tab, ReviewKey) or first is None:
            return source, _("Review")
        return source, first.header

    def _after_own(self, was: AtKeys) -> None:
        """The person answered the tab at the keys: another agent's question is unchosen."""
        core = self.core
        tab = core.strip.selected
        if not isinstance(tab, QuestionRef) or not core.focus.keys_to_panel:
            return
        if core.projection.asker(tab) != self._named(was)[0]:
            core.focus.arrived_unchosen()

    def _went_away(self, was: AtKeys) -> None:
        """Someone else closed the tab at the keys: give the keys back and say so."""
        focus = self.core.focus
        if not (was.claimed and focus.claim is None):
            focus.went_away(self.clock())
        elif focus.panel_focused:  # the claim's return put the keys on the tab before it
            focus.arrived_unchosen()
        source, header = self._named(was)
        why = self._why(was)
        draft = self._unsent(was)
        notice = self._notice(source, header, why, draft)
        self.core.say(notice)
        self.core.emit(ev.KeysReturned(was.refs, source, header, why, draft, notice))

    def _why(self, was: AtKeys) -> ev.Gone:
        if isinstance(was.tab, ReviewKey):
            return ev.Gone.CLOSED
        state = self.core.projection.by_ref.get(was.tab)
        status = None if state is None else state.status
        if status is QuestionStatus.WITHDRAWN:
            return ev.Gone.WITHDRAWN
        if status in (QuestionStatus.ANSWERED, QuestionStatus.DECLINED):
            return ev.Gone.ANSWERED
        return ev.Gone.CLOSED

    def _unsent(self, was: AtKeys) -> str:
        """What the person had typed at the tab and did not send ('' if nothing)."""
        if isinstance(was.tab, ReviewKey):
            return self.core.drafts.group_note(was.tab.call_id)
        draft = self.dropped if self.dropped is not None else self.core.drafts.get(was.tab)
        return draft.custom_text or draft.notes

    def _notice(self, source: str | None, header: str, why: ev.Gone, draft: str) -> str:
        agent = sanitize_line(source) if source else _("the agent")
        header = sanitize_line(header)
        what = {
            ev.Gone.WITHDRAWN: _("{agent} withdrew “{header}”"),
            ev.Gone.ANSWERED: _("“{header}” from {agent} was answered elsewhere"),
            ev.Gone.CLOSED: _("“{header}” from {agent} was closed"),
        }[why].format(agent=agent, header=header)
        where = self._where_now()
        line = f"{what} — {where}"
        if draft.strip():
            unsent = _("not sent: “{draft}”").format(draft=sanitize_line(draft))
            line = f"{line} · {unsent}"
        return line

    def _where_now(self) -> str:
        focus = self.core.focus
        to = focus.where()[0]
        if focus.prompt_owns:
            return _("your keys return to where you were typing after the prompt")
        if to is KeysTo.CHAT:
            return _("your keys are back in the chat")
        if to is KeysTo.EDITOR:
            return _("your keys are back where you were typing")
        return _("your keys are back on the question you were on")
