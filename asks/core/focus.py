"""Who has the keyboard: focus owner, loans, claims, foreign prompts and the arrival guard.

Pure state, no I/O, no knowledge of tabs beyond opaque keys handed in by the host.

* ``owner`` is exactly one :class:`FocusTarget`: the chat editor, the panel, a foreign prompt
  (a modal such as a tool-permission confirm), or another editor the embedding app mounted.
* When the panel takes focus it records the **loan origin**: the target it borrowed from.
* A **claim** exists while blocking waits hold the panel; it remembers the tab the panel showed
  before (``prior_tab``, if the panel already had focus) and when it claimed (``claimed_at``).
* Foreign prompts stack; each remembers its own origin. The panel never takes focus from a
  foreign prompt: a claim requested meanwhile waits until the stack is empty.
* The **typing guard** (rule 7): a claim starts *unengaged*. Until the person pauses — no key
  for ``guard`` seconds, measured from the later of the claim and the last key — every key
  read (:meth:`Focus.key`) goes where the person was typing (the loan origin, or the panel's
  prior tab), and extends the wait. The first key after such a pause, or :meth:`Focus.settle`
  called at :meth:`Focus.guard_deadline`, engages the claim: from then on keys go to the panel.
  Every key passes through :meth:`Focus.key`, so no key is lost or reordered at the hand-over.
  While held back with a prior tab, the panel keeps showing that tab (the host keeps it
  selected); if it goes away, or the selection moves, held keys go to the loan origin
  (``to_origin``).
* **Stray keys** (rule 9a): a printable key the focused panel cannot use (no binding on an
  option row, the ``Next`` row, the Review tab) is evidence the person is not looking at the
  panel. :meth:`Focus.stray` re-arms the typing guard of a live claim with the keys going to
  the loan origin (``to_origin``) and sets the **stray mark** (the host then refuses the
  first Enter until a deliberate panel command clears it); without a claim the panel lets go
  of the keyboard to the loan origin. Either way the key is delivered there.
* **Handed keys** (rule 9): when the panel gets the keys without a deliberate key — a claim
  engages after the pause, or the end of the last claim returns to the tab the person was on
  — they are ``handed``: a text editor under the cursor there is not the person's choice yet,
  and the host asks for Enter twice before it sends what was typed into it. Any deliberate
  panel command (:meth:`Focus.deliberate`) clears both this and the stray mark.
* **Where the keys go** (rule 9c): :meth:`Focus.keyboard` is the one answer; routing
  (:meth:`Focus.key`), the cursor and border (``keys_to_panel``) and the status line all read
  it, so they cannot disagree.

The host decides *when* to call these methods; this module guarantees the bookkeeping.
"""

from __future__ import annotations

import enum
from collections.abc import Hashable

import attrs

TYPING_GUARD = 0.6  # seconds of no typing before a claim takes the keys (NOTES.md, rule 7)


@attrs.define(eq=False, repr=False)
class FocusTarget:
    """Something that can own the keyboard. Compared by identity."""

    name: str

    def __repr__(self) -> str:
        return f"<FocusTarget {self.name}>"


@attrs.frozen
class Claim:
    """The panel holds focus because blocking waits are live."""

    prior_tab: Hashable | None
    claimed_at: float
    engaged: bool = False  # the typing guard has handed the keys to the panel
    to_origin: bool = False  # held-back keys go to the loan origin, not to ``prior_tab``


@attrs.frozen
class Route:
    """Where one key goes: a target, and for the panel maybe the tab it was aimed at."""

    target: FocusTarget
    tab: Hashable | None = None


class KeysTo(enum.StrEnum):
    """Where keys go: the chat editor, another editor of the app, the panel or a prompt."""

    CHAT = "chat"
    EDITOR = "editor"
    PANEL = "panel"
    PROMPT = "prompt"


@attrs.frozen
class Keyboard:
    """Where the next key goes (:meth:`Focus.keyboard`); ``held``: a claim waits for a pause
    (the panel shows a required question, but the keys still go to ``target``)."""

    to: KeysTo
    target: FocusTarget
    held: bool = False


@attrs.define(eq=False)
class Focus:
    """Focus bookkeeping for one screen (see module docstring)."""

    chat: FocusTarget
    panel: FocusTarget
    guard: float = TYPING_GUARD
    owner: FocusTarget = attrs.field(init=False)
    loan_origin: FocusTarget | None = attrs.field(init=False, default=None)
    claim: Claim | None = attrs.field(init=False, default=None)
    claim_waiting: bool = attrs.field(init=False, default=False)
    foreign: list[tuple[FocusTarget, FocusTarget]] = attrs.field(init=False, factory=list)
    mounted: set[FocusTarget] = attrs.field(init=False, factory=set)
    last_key_at: float = attrs.field(init=False, default=float("-inf"))
    stray_mark: bool = attrs.field(init=False, default=False)  # rule 9a: Enter is refused once
    handed: bool = attrs.field(init=False, default=False)  # the keys came without a deliberate key

    def __attrs_post_init__(self) -> None:
        self.owner = self.chat
        self.mounted = {self.chat, self.panel}

    # -- queries ---------------------------------------------------------------------------
    @property
    def panel_focused(self) -> bool:
        return self.owner is self.panel

    @property
    def foreign_active(self) -> bool:
        return bool(self.foreign)

    @property
    def keys_to_panel(self) -> bool:
        """Do keys go to the panel now (the cursor and the solid border are there)?"""
        return self.where()[0] is KeysTo.PANEL

    def keyboard(self) -> Keyboard:
        """Where the next key goes (see module docstring): the one answer for the routing,
        the cursor, the border and the status line."""
        return Keyboard(*self.where())

    def where(self) -> tuple[KeysTo, FocusTarget, bool]:
        """:meth:`keyboard` as a plain tuple (cheap: it is read several times per key)."""
        owner = self.owner
        if self.foreign and owner is not self.chat and owner is not self.panel:
            return KeysTo.PROMPT, owner, False
        held = False
        if owner is self.panel:
            claim = self.claim
            if claim is None or claim.engaged:
                return KeysTo.PANEL, owner, False
            if claim.prior_tab is not None and not claim.to_origin:
                return KeysTo.PANEL, owner, True
            owner, held = self._origin_or_chat(), True
        return (KeysTo.CHAT if owner is self.chat else KeysTo.EDITOR), owner, held

    def guard_deadline(self) -> float | None:
        """When an unengaged claim engages if no key comes first; ``None`` if none is pending."""
        claim = self.claim
        if claim is None or claim.engaged or not self.panel_focused:
            return None
        return max(claim.claimed_at, self.last_key_at) + self.guard

    def settle(self, now: float) -> bool:
        """Engage a pending claim whose quiet interval has passed; True if it engaged now."""
        deadline = self.guard_deadline()
        if deadline is None or now < deadline or self.claim is None:
            return False
        self.claim = attrs.evolve(self.claim, engaged=True, to_origin=False)
        self.handed = True
        return True

    def key(self, now: float, prior_owner_tab: Hashable | None = None) -> Route:
        """A key was read at ``now``: where it goes (the typing guard, rule 7).
        ``prior_owner_tab`` is the tab the panel shows (the host's selection)."""
        self.settle(now)
        self.last_key_at = now
        to, target, held = self.where()
        if to is KeysTo.PANEL:
            claim = self.claim
            tab = claim.prior_tab if held and claim is not None else prior_owner_tab
            return Route(self.panel, tab)
        return Route(target)

    def stray(self, now: float) -> Route:
        """The panel could not use a printable key read at ``now`` (rule 9a): where it goes.

        With a live claim the typing guard is re-armed, held keys go to the loan origin and
        the stray mark is set; without one the panel lets go of the keyboard (to the origin).
        """
        if not self.panel_focused:
            return Route(self.keyboard().target)
        claim = self.claim
        if claim is None:
            self.leave_panel()
            return Route(self.owner)
        self.claim = attrs.evolve(claim, engaged=False, to_origin=True)
        self.last_key_at = max(self.last_key_at, now)
        self.stray_mark = True
        return Route(self._origin_or_chat())

    def hold_at_origin(self) -> None:
        """Held-back keys go to the loan origin from now on (the prior tab went away)."""
        claim = self.claim
        if claim is not None and not claim.engaged:
            self.claim = attrs.evolve(claim, to_origin=True)

    def clear_stray_mark(self) -> None:
        """The Enter after stray typing was refused: the next one is the person's."""
        self.stray_mark = False

    def deliberate(self) -> None:
        """A deliberate panel command: the keys are where the person put them."""
        self.stray_mark = self.handed = False

    def hand_back(self) -> None:
        """The last claim ended and the panel shows the tab the person was on (rule 5): the
        keys are back there without a key of theirs."""
        if self.panel_focused:
            self.handed = True

    # -- mounting --------------------------------------------------------------------------
    def mount(self, target: FocusTarget) -> None:
        self.mounted.add(target)

    def unmount(self, target: FocusTarget) -> None:
        """Forget ``target``; if it owned focus, focus falls back to the chat editor."""
        if target is self.chat or target is self.panel:
            raise ValueError("the chat editor and the panel cannot be unmounted")
        self.mounted.discard(target)
        self.foreign = [(p, o) for p, o in self.foreign if p is not target]
        if self.owner is target:
            self.owner = self.foreign[-1][0] if self.foreign else self.chat

    def _origin_or_chat(self) -> FocusTarget:
        origin = self.loan_origin
        return origin if origin is not None and origin in self.mounted else self.chat

    def give(self, target: FocusTarget) -> None:
        """Move focus to a mounted non-panel target (the panel is entered with enter_panel)."""
        if target is self.panel or target not in self.mounted:
            raise ValueError(f"{target!r} is not a mounted editor")
        if self.panel_focused:
            self.leave_panel()
        self.owner = target

    # -- the panel -------------------------------------------------------------------------
    def enter_panel(self) -> bool:
        """Give the panel focus, remembering the origin. Refused while a foreign prompt is up."""
        if self.foreign:
            return False
        if not self.panel_focused:  # the marks are about keys already in the panel
            self.loan_origin = self.owner
            self.owner = self.panel
            self.stray_mark = self.handed = False
        return True

    def leave_panel(self) -> None:
        """Return focus to the loan origin if still mounted, else to the chat editor."""
        if self.panel_focused:
            self.owner = self._origin_or_chat()
        self.loan_origin = None
        self.claim = None
        self.stray_mark = self.handed = False

    def request_claim(self, now: float, current_tab: Hashable | None) -> None:
        """A blocking wait went live: claim focus now, or wait for foreign prompts to end."""
        if self.claim is not None:
            return
        if self.foreign:
            self.claim_waiting = True
            return
        prior = current_tab if self.panel_focused else None
        self.enter_panel()
        self.claim = Claim(prior_tab=prior, claimed_at=now)
        self.claim_waiting = False

    def end_claim(self) -> Claim | None:
        """The last wait ended: drop the claim and return it (the host decides where to go)."""
        claim, self.claim = self.claim, None
        self.claim_waiting = False
        self.stray_mark = self.handed = False
        return claim

    def return_foreign_to_origin(self) -> None:
        """The panel lost its reason to hold focus while a foreign prompt covers it: prompts
        that would return to the panel return to the loan origin instead."""
        origin = self._origin_or_chat()
        self.foreign = [(p, origin if o is self.panel else o) for p, o in self.foreign]
        self.loan_origin = None

    # -- foreign prompts -------------------------------------------------------------------
    def begin_foreign(self, prompt: FocusTarget) -> None:
        """A modal prompt takes the keyboard; it remembers where focus was."""
        self.mounted.add(prompt)
        self.foreign.append((prompt, self.owner))
        self.owner = prompt

    def end_foreign(self, prompt: FocusTarget) -> None:
        """The prompt ended: focus returns to its origin if still mounted, else chat."""
        index = next((i for i, (p, _) in enumerate(self.foreign) if p is prompt), None)
        if index is None:
            return
        _, origin = self.foreign.pop(index)
        self.mounted.discard(prompt)
        if self.owner is not prompt:
            return
        if self.foreign:
            self.owner = self.foreign[-1][0]
        elif origin in self.mounted:
            self.owner = origin
        else:
            self.owner = self.chat
