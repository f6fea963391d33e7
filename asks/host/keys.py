"""The key desk: where the person's keys go, and what the person is told.

:class:`KeyDesk` is the host's collaborator for the keyboard seam. It keeps no focus state of
its own — :class:`~asks.core.focus.Focus` does — but it keeps the host's side consistent with it:

* **Routing.** Every key read goes through :meth:`KeyDesk.route`: a claim whose quiet interval
  is over engages first (and the panel shows a required tab), then :meth:`Focus.key` says
  where the key goes. A printable the panel could not use comes back through
  :meth:`KeyDesk.stray`.
* **A held claim stays honest.** While a claim holds keys back for the tab the person was on,
  that tab stays selected (the person sees what they type into); if it goes away or the
  selection moves, held keys go to the loan origin instead
  (:meth:`KeyDesk.keep_claim_consistent`, run after every host change). When the claim takes
  the keys, a required tab is shown.
* **The notice** (the one-line refusal or hint under the panel and in the status line) is
  transient: it goes on the next key routed (before the key acts, so the key's own refusal
  stays), or at :meth:`KeyDesk.notice_deadline`, ``NOTICE_SECONDS`` after it was said (the
  layer's timer calls :meth:`KeyDesk.expire`). A storage failure's notice is sticky: it stays
  until the next panel command or notice.
* **A foreign prompt's keys** (docs/architecture.md, "The permission prompt's keys"): a held prompt
  takes the keys at the pause like a claim (:meth:`KeyDesk.route`, :meth:`KeyDesk.settle`); a
  decision key the layer holds (:meth:`KeyDesk.hold_decision`, drawn by the prompt's view)
  waits until the pause after it (:meth:`KeyDesk.due_decision`), the confirm key
  (:meth:`KeyDesk.confirm_decision`) or a stray decides where it goes.
* **Printable panel keys that turn out to be typing**: a digit (a row jump) or a
  Space (a toggle) acts at once, but the layer announces it first
  (:meth:`KeyDesk.printable_command`: the tab's draft before it is kept). If the very
  next key, within the guard, is a stray, the run of such keys was typing too: the draft is
  put back as it was before the first of them and they go to the chat first, in order
  (``Route.first``). So ``2 more tests`` typed at an option row is a chat line whole, with
  the cursor where it was.
* **Where the keys are**, for the status line (:class:`~asks.host.stats.KeysStatus`), from
  :meth:`Focus.keyboard` — the same answer the cursor and the border are drawn from.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import TYPE_CHECKING, Protocol

import attrs

from asks.core.drafts import Draft
from asks.core.focus import Focus, FocusState, KeyDecision, KeySeen, KeysTo, Route, decide
from asks.core.i18n import _
from asks.core.model import Question, QuestionRef
from asks.core.tabs import TabKey
from asks.host.commands import PanelCommand, PanelCommands
from asks.host.stats import KeysStatus

if TYPE_CHECKING:
    from asks.store.projection import ProjectionView

NOTICE_SECONDS = 5.0  # a refusal or hint stays this long unless a key comes first


@attrs.frozen
class Undoable:
    """A printable key that ran a panel command: the draft of ``tab`` before it."""

    tab: QuestionRef
    before: Draft
    handed: bool  # the keys had come to the panel without a deliberate key (Focus.handed)
    unchosen: bool  # ... on a question the person did not move to (Focus.unchosen)
    key: str
    index: int  # KeyDesk.routed when it was routed
    at: float


class KeyCore(Protocol):
    """What the key desk needs from the orchestrator."""

    focus: Focus

    @property
    def tabs(self) -> tuple[TabKey, ...]: ...
    @property
    def selected(self) -> TabKey | None: ...
    def question(self, ref: QuestionRef) -> Question: ...
    @property
    def projection(self) -> ProjectionView: ...
    def is_required(self, tab: TabKey) -> bool: ...
    def tab_agent(self, tab: TabKey) -> str | None: ...


@attrs.define(eq=False)
class KeyDesk:
    """The keyboard seam of the host (see module docstring)."""

    core: KeyCore
    panel: PanelCommands
    clock: Callable[[], float]
    notify: Callable[[], None]  # tell the host's listeners (what is shown changed)
    changed: Callable[[], None]  # the host re-derives tabs and focus, then notifies
    notice: str | None = None
    notice_until: float | None = None  # None with a notice: sticky
    routed: int = 0  # keys routed so far (a printable command's place in the stream)
    undoable: list[Undoable] = attrs.Factory(list)  # the run of printable panel commands

    # -- routing ----------------------------------------------------------------------------
    def route(self, now: float) -> Route:
        """Where a key read at ``now`` goes (the notice goes first; the key may say another)."""
        self.routed += 1
        focus = self.core.focus
        before = focus.where()
        changed = self._settle(now)
        if self.notice is not None and self.notice_until is not None:
            self.clear_notice()
            changed = True
        route = focus.key(now, self.core.selected if focus.panel_focused else None)
        if changed or focus.where() != before:
            self.notify()
        return route

    def decide(self, now: float, key: KeySeen) -> KeyDecision:
        """Route a key read at ``now`` (:meth:`route`), then the key machine's action for it
        in the state it was routed in (:func:`~asks.core.focus.decide`)."""
        route = self.route(now)
        return KeyDecision(decide(route.state, key.event(route.state)), route)

    def settle(self, now: float) -> bool:
        """The guard's quiet interval may be over: engage the claim (True if it did)."""
        if self._settle(now):
            self.notify()
            return True
        return False

    def _settle(self, now: float) -> bool:
        """Engage a claim whose quiet interval is over and show a required tab, or give a
        held prompt the keys (True if either happened now)."""
        focus = self.core.focus
        if focus.settle_prompt(now):
            return True
        if not focus.settle(now):
            return False
        self.panel.show_required()
        return True

    def stray(self, now: float) -> Route:
        """The panel or the prompt could not use the printable key routed to it at ``now``
        (a stray): where to deliver it instead (the loan origin; at a prompt, the editor the
        person types in, a held decision key first). Nothing is answered."""
        focus = self.core.focus
        route = focus.stray(now)
        typed = self._typing_after_all(now)
        if typed and route.target is focus.chat:  # an app's own editor takes one key at a time
            self._undo(typed[0])
            route = attrs.evolve(route, first="".join(u.key for u in typed))
        self.changed()  # keeps the held claim consistent, then notifies
        return route

    def printable_command(self, key: str, tab: Hashable | None, now: float) -> None:
        """A printable key is about to run a panel command on ``tab`` (a digit's row jump, a
        Space's toggle): keep the draft before it, in case it turns out to be typing."""
        tab = self.core.selected if tab is None else tab
        if not isinstance(tab, QuestionRef):
            return
        run = self.undoable
        if not self._continued(run, now):
            run.clear()  # not the same run of keys
        focus = self.core.focus
        before = self.panel.drafts.get(tab)
        run.append(Undoable(tab, before, focus.handed, focus.unchosen, key, self.routed, now))

    def _typing_after_all(self, now: float) -> list[Undoable]:
        """The run of printable panel commands right before this stray key ([] if none); the
        run is forgotten either way."""
        run = [u for u in self.undoable if u.index < self.routed]  # not this key's own mark
        self.undoable = []
        return run if run and self._continued(run, now) else []

    def _continued(self, run: list[Undoable], now: float) -> bool:
        """Does the key routed last, at ``now``, follow ``run`` at once (the key right after
        its last one, within the guard)? An empty run is continued by anything."""
        if not run:
            return True
        last = run[-1]
        return last.index == self.routed - 1 and now - last.at < self.core.focus.guard

    def _undo(self, first: Undoable) -> None:
        """Put the draft (and whether the keys were handed) back as before ``first``."""
        if first.tab in self.core.tabs:
            self.panel.drafts.edit(first.tab, lambda _draft: first.before)
        if self.core.focus.panel_focused:
            focus = self.core.focus  # the keys were not deliberate after all
            focus.handed, focus.unchosen = first.handed, first.unchosen

    def hold_decision(self, key: str, now: float) -> bool:
        """The prompt's printable decision ``key`` waits for the pause after it (True; the
        prompt's view shows it, from ``Focus.doubt``); False: the prompt cannot hold it."""
        if not self.core.focus.hold_decision(key, now):
            return False
        self.notify()
        return True

    def due_decision(self, now: float) -> str | None:
        """The held decision key whose pause is over (deliver it to the prompt), or None."""
        return self._decided(self.core.focus.due_decision(now))

    def confirm_decision(self) -> str | None:
        """The confirm key: the held decision key, to deliver to the prompt now, or None."""
        return self._decided(self.core.focus.confirm_decision())

    def drop_decision(self) -> None:
        """A non-printable decision was made at the prompt: a held key no longer counts (it
        is taken, as the confirm key takes it, and not delivered)."""
        self._decided(self.core.focus.confirm_decision())

    def _decided(self, key: str | None) -> str | None:
        if key is not None:
            self.notify()
        return key

    def name_keys(self, names: Mapping[PanelCommand, str]) -> None:
        """How the panel's keymap names its keys, for refusals that say what works."""
        self.panel.key_names = dict(names)

    def keep_claim_consistent(self) -> None:
        """A held claim's keys go to the tab shown, or to the loan origin (module docstring)."""
        focus = self.core.focus
        if focus.state() is not FocusState.CLAIM_HELD_ON_TAB:
            return
        claim = focus.claim
        if claim is not None and self.core.selected != claim.prior_tab:
            focus.hold_at_origin()

    # -- the notice -------------------------------------------------------------------------
    def say(self, notice: str, *, sticky: bool = False) -> None:
        self.notice = notice
        self.notice_until = None if sticky else self.clock() + NOTICE_SECONDS

    def clear_notice(self) -> None:
        self.notice = self.notice_until = None

    def notice_deadline(self) -> float | None:
        """When the notice goes if no key comes first; ``None`` if none is due."""
        return self.notice_until if self.notice is not None else None

    def expire(self, now: float) -> bool:
        """Clear a notice whose time is over (True if it went now)."""
        deadline = self.notice_deadline()
        if deadline is None or now < deadline:
            return False
        self.clear_notice()
        self.notify()
        return True

    # -- where the keys are -----------------------------------------------------------------
    def status(self) -> KeysStatus | None:
        """Where the keys go, named for the status line; ``None`` while there is nothing
        but the chat (no questions, no prompt)."""
        core = self.core
        focus = core.focus
        state = focus.state()
        to, _target, held = focus.where()
        if not core.tabs and not focus.foreign_active:
            return None
        if state is FocusState.PROMPT_HELD:
            return KeysStatus(to, prompt_waiting=True)
        selected = core.selected
        question = agent = None
        if to is KeysTo.PANEL and selected is not None:
            question = self._name(selected) if isinstance(selected, QuestionRef) else None
            agent = core.tab_agent(selected)
        waiting = waiting_agent = None
        if held:  # the tab that takes the keys at the pause: the shown one if it is required
            required = (
                selected
                if selected is not None and core.is_required(selected)
                else next((t for t in core.tabs if core.is_required(t)), None)
            )
            if required is not None:
                waiting, waiting_agent = self._name(required), core.tab_agent(required)
        return KeysStatus(to, question, waiting, agent=agent, waiting_agent=waiting_agent)

    def _name(self, tab: TabKey) -> str:
        if isinstance(tab, QuestionRef):
            return self.core.projection.brief(tab).header or "?"
        return _("Review")
