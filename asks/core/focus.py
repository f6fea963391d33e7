"""Who has the keyboard: focus owner, loans, claims, foreign prompts and the arrival guard.

Pure state, no I/O, no knowledge of tabs beyond opaque keys handed in by the host.

It is one explicit machine (docs/focus-machine.md): :meth:`Focus.state` names the state of
the keys (:class:`FocusState`) from the bookkeeping below, and :func:`decide` maps (state,
:class:`KeyEvent`) to the :class:`Action` the layer performs, by named :class:`Rule` s
(:data:`RULES`). Where keys go (:meth:`Focus.where`) and what waits for a pause
(:meth:`Focus.guard_deadline`) are functions of the state.

* ``owner`` is exactly one :class:`FocusTarget`: the chat editor, the panel, a foreign prompt
  (a modal such as a tool-permission confirm), or another editor the embedding app mounted.
* When the panel takes focus it records the **loan origin**: the target it borrowed from.
* A **claim** exists while blocking waits hold the panel; it remembers the tab the panel showed
  before (``prior_tab``, if the panel already had focus) and when it claimed (``claimed_at``).
* Foreign prompts stack; each remembers its own origin. The panel never takes focus from a
  foreign prompt: a claim requested meanwhile waits until the stack is empty.
* The **typing guard**: a claim starts *unengaged*. Until the person pauses — no key
  for ``guard`` seconds, measured from the later of the claim and the last key — every key
  read (:meth:`Focus.key`) goes where the person was typing (the loan origin, or the panel's
  prior tab), and extends the wait. The first key after such a pause, or :meth:`Focus.settle`
  called at :meth:`Focus.guard_deadline`, engages the claim: from then on keys go to the panel.
  Every key passes through :meth:`Focus.key`, so no key is lost or reordered at the hand-over.
  While held back with a prior tab, the panel keeps showing that tab (the host keeps it
  selected); if it goes away, or the selection moves, held keys go to the loan origin
  (``to_origin``).
* **Stray keys**: a printable key the focused panel cannot use (no binding on an
  option row, the ``Next`` row, the Review tab) is evidence the person is not looking at the
  panel. :meth:`Focus.stray` re-arms the typing guard of a live claim with the keys going to
  the loan origin (``to_origin``) and sets the **stray mark** (the host then refuses the
  first Enter until a deliberate panel command clears it); without a claim the panel lets go
  of the keyboard to the loan origin. Either way the key is delivered there.
* **Handed keys**: when the panel gets the keys without a deliberate key — a claim
  engages after the pause, or the end of the last claim returns to the tab the person was on
  — they are ``handed``: a text editor under the cursor there is not the person's choice yet,
  and the host asks for Enter twice before it sends what was typed into it. Any deliberate
  panel command (:meth:`Focus.deliberate`) clears both this and the stray mark.
* **Unchosen** questions: when the question under the keys goes away by someone else's doing
  (an agent withdrew it, it was answered on another surface, its wait ended),
  :meth:`Focus.went_away` gives the keys back: with no claim the panel lets go of them (to
  the loan origin); with a claim the typing guard is re-armed from that moment with the keys
  at the loan origin. Either way whatever question the keys reach next without the person
  moving there is ``unchosen``: the host refuses its first Enter, on any row. A deliberate
  panel command, or entering the panel, clears it.
* **A foreign prompt's keys** (the typing guard and stray keys at a prompt,
  docs/architecture.md, "The permission prompt's keys"): the top prompt starts *held*
  (``prompt_engaged`` false): keys go where the person was typing (:meth:`Focus.where`: the prompt's
  origin if it is an editor, else the panel's loan origin or the chat — never the panel) until the
  quiet interval after the later of its opening (``prompt_since``) and the last key; then it takes
  the keys. A printable key it cannot use is a stray (:meth:`Focus.stray`): delivered to that
  editor, the prompt held again. A printable **decision key** is held (:meth:`Focus.hold_decision`,
  the ``doubt``) until the pause after it (:meth:`Focus.due_decision`) or a confirm key
  (:meth:`Focus.confirm_decision`) delivers it to the prompt; a printable key before that makes it a
  stray too (delivered first, ``Route.first``). The same holds at an agent's permission request in
  the panel while the panel has the keys (docs/permission-prompts.md): its ``y``/``n`` are held the
  same way, and a stray there lets go of the panel with the held key first.
* **Where the keys go**: :meth:`Focus.keyboard` is the one answer; routing
  (:meth:`Focus.key`), the cursor and border (``keys_to_panel``) and the status line all read
  it, so they cannot disagree.

The host decides *when* to call these methods; this module guarantees the bookkeeping.
"""

from __future__ import annotations

import enum
from collections.abc import Hashable, Mapping
from types import MappingProxyType
from typing import Protocol

import attrs

TYPING_GUARD = 0.6  # seconds of no typing before a claim or a prompt takes the keys
TYPING_GUARD_RANGE = (0.3, 5.0)  # the guards a person may configure ([ui] typing_guard)


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


class FocusState(enum.StrEnum):
    """Who has the person's keys, named (docs/focus-machine.md). :meth:`Focus.state` derives
    it from the bookkeeping; every key rule (:func:`decide`) is a function of it."""

    CHAT = "chat"  # the chat editor has the keys
    EDITOR = "editor"  # an editor of the embedding app has them
    PANEL = "panel"  # the panel has them; no blocker claims it
    CLAIMED = "claimed"  # a blocker's claim took them after a pause
    CLAIM_HELD_ON_TAB = "claim held on tab"  # a claim waits for a pause; keys: the tab shown
    CLAIM_HELD_AT_ORIGIN = "claim held at origin"  # ... keys: where the person was typing
    DECISION_HELD_IN_PANEL = "decision held in panel"  # a permission request's y/n waits
    PROMPT_HELD = "prompt held"  # a foreign prompt is drawn; keys: where the person was typing
    PROMPT = "prompt"  # the foreign prompt has the keys
    DECISION_HELD_AT_PROMPT = "decision held at prompt"  # its y/n waits for the pause after it


# The members under module names: the key path compares states many times per key, and an
# enum member read through its class costs about as much as the comparison's whole method.
_CHAT = FocusState.CHAT
_EDITOR = FocusState.EDITOR
_PANEL = FocusState.PANEL
_CLAIMED = FocusState.CLAIMED
_CLAIM_HELD_ON_TAB = FocusState.CLAIM_HELD_ON_TAB
_CLAIM_HELD_AT_ORIGIN = FocusState.CLAIM_HELD_AT_ORIGIN
_DECISION_HELD_IN_PANEL = FocusState.DECISION_HELD_IN_PANEL
_PROMPT_HELD = FocusState.PROMPT_HELD
_PROMPT = FocusState.PROMPT
_DECISION_HELD_AT_PROMPT = FocusState.DECISION_HELD_AT_PROMPT


class KeyEvent(enum.StrEnum):
    """What the layer saw of one key, for :func:`decide`."""

    PRINTABLE = "printable"  # a printable key (a character)
    CONFIRM = "confirm"  # the confirm key (Enter) of the panel or of the prompt
    OTHER = "other"  # any other key (arrows, Esc, Tab, Backspace, …)
    UNUSED_PRINTABLE = "unused printable"  # a printable the panel's rows or the prompt left


_PRINTABLE, _CONFIRM, _OTHER = KeyEvent.PRINTABLE, KeyEvent.CONFIRM, KeyEvent.OTHER  # as above


class Action(enum.StrEnum):
    """What the layer does with a key (:func:`decide`)."""

    TYPING = "typing"  # to where the person was typing: the chat editor, else the app's editor
    PANEL = "panel"  # to the panel, in its context for the tab routed
    PROMPT = "prompt"  # to the foreign prompt
    STRAY = "stray"  # typing meant for elsewhere: to the host's stray route, held keys first
    DELIVER_HELD = "deliver held"  # the held decision key counts now
    DROP_HELD = "drop held"  # the held decision key no longer counts; the key goes to the panel


class Rule(enum.StrEnum):
    """The key rules by name (docs/focus-machine.md): why :func:`decide` acts as it does."""

    WHERE_TYPING = "keys go where the person is typing"
    TYPING_GUARD = "a held claim or prompt lets keys pass until a pause"
    PANEL_KEYS = "the panel's keys act on the panel"
    PROMPT_KEYS = "the prompt's keys act on the prompt"
    STRAY = "a printable the panel or the prompt cannot use is typing"
    TYPED_OVER_DECISION = "a printable after a held decision key makes both typing"
    CONFIRM_DECIDES = "the confirm key makes a held decision count now"
    OTHER_KEY_DROPS = "another key in the panel drops a held decision"
    HELD_AT_PROMPT = "a non-printable key at the prompt leaves a held decision"


_HELD_STATES = (FocusState.CLAIM_HELD_AT_ORIGIN, FocusState.PROMPT_HELD)
_PANEL_STATES = (FocusState.PANEL, FocusState.CLAIMED, FocusState.CLAIM_HELD_ON_TAB)
_CLAIM_HELD = frozenset((FocusState.CLAIM_HELD_ON_TAB, FocusState.CLAIM_HELD_AT_ORIGIN))
_DECISION_HELD = frozenset((FocusState.DECISION_HELD_IN_PANEL, FocusState.DECISION_HELD_AT_PROMPT))
_TO_PANEL = frozenset((*_PANEL_STATES, FocusState.DECISION_HELD_IN_PANEL))  # keys reach the panel
_AT_PROMPT = frozenset(
    (FocusState.PROMPT_HELD, FocusState.PROMPT, FocusState.DECISION_HELD_AT_PROMPT)
)


def _rules() -> dict[tuple[FocusState, KeyEvent], tuple[Rule, Action]]:
    """The key machine's table: every (state, event) has one rule and one action."""
    table: dict[tuple[FocusState, KeyEvent], tuple[Rule, Action]] = {}
    every = tuple(KeyEvent)
    for event in every:
        table[FocusState.CHAT, event] = (Rule.WHERE_TYPING, Action.TYPING)
        table[FocusState.EDITOR, event] = (Rule.WHERE_TYPING, Action.TYPING)
        for state in _HELD_STATES:
            table[state, event] = (Rule.TYPING_GUARD, Action.TYPING)
    for state in _PANEL_STATES:
        for event in every:
            table[state, event] = (Rule.PANEL_KEYS, Action.PANEL)
        table[state, KeyEvent.UNUSED_PRINTABLE] = (Rule.STRAY, Action.STRAY)
    for event in every:
        table[FocusState.PROMPT, event] = (Rule.PROMPT_KEYS, Action.PROMPT)
    table[FocusState.PROMPT, KeyEvent.UNUSED_PRINTABLE] = (Rule.STRAY, Action.STRAY)
    held = {
        FocusState.DECISION_HELD_IN_PANEL: (Rule.OTHER_KEY_DROPS, Action.DROP_HELD),
        FocusState.DECISION_HELD_AT_PROMPT: (Rule.HELD_AT_PROMPT, Action.PROMPT),
    }
    for state, other in held.items():
        table[state, KeyEvent.PRINTABLE] = (Rule.TYPED_OVER_DECISION, Action.STRAY)
        table[state, KeyEvent.UNUSED_PRINTABLE] = (Rule.STRAY, Action.STRAY)
        table[state, KeyEvent.CONFIRM] = (Rule.CONFIRM_DECIDES, Action.DELIVER_HELD)
        table[state, KeyEvent.OTHER] = other
    return table


RULES: Mapping[tuple[FocusState, KeyEvent], tuple[Rule, Action]] = MappingProxyType(_rules())


def decide(state: FocusState, event: KeyEvent) -> Action:
    """What the layer does with a key seen as ``event`` while the keys are in ``state``."""
    return RULES[state, event][1]


@attrs.frozen
class KeySeen:
    """One key as the layer saw it before routing: printable, and whether it is the panel's
    or the prompt's confirm key (the keymap says; the layer resolves it once per key name)."""

    printable: bool
    confirms_in_panel: bool = False
    confirms_at_prompt: bool = False

    def event(self, state: FocusState) -> KeyEvent:
        """What this key is in ``state``, for :func:`decide`."""
        if self.printable:
            return _PRINTABLE
        if self.confirms_in_panel if state in _TO_PANEL else self.confirms_at_prompt:
            return _CONFIRM
        return _OTHER


@attrs.frozen
class KeyDecision:
    """What :meth:`~asks.host.panelport.PanelPort.decide` answers for one key: the
    action the layer performs and the route it performs it on."""

    action: Action
    route: Route


@attrs.frozen
class Route:
    """Where one key goes: a target, and for the panel maybe the tab it was aimed at;
    ``first``: printable keys that turned out to be typing (held at a prompt, or undone on the
    panel), to deliver to ``target`` before this one, one character each, in order;
    ``state``: the keys' state :meth:`Focus.key` routed it in (for :func:`decide`; a stray
    key's route, which is delivered and not decided, leaves it at its default)."""

    target: FocusTarget
    tab: Hashable | None = None
    first: str | None = None
    state: FocusState = attrs.field(default=FocusState.CHAT, eq=False)  # not where it goes


@attrs.frozen
class Doubt:
    """A decision key held at the prompt until the pause after it (module docstring)."""

    key: str
    at: float


class KeysTo(enum.StrEnum):
    """Where keys go: the chat editor, another editor of the app, the panel or a prompt."""

    CHAT = "chat"
    EDITOR = "editor"
    PANEL = "panel"
    PROMPT = "prompt"


_KEYS_CHAT, _KEYS_EDITOR = KeysTo.CHAT, KeysTo.EDITOR  # module names, as the states'
_KEYS_PANEL, _KEYS_PROMPT = KeysTo.PANEL, KeysTo.PROMPT


@attrs.frozen
class Keyboard:
    """Where the next key goes (:meth:`Focus.keyboard`); ``held``: a claim or a prompt waits
    for a pause (the panel shows a required question or the prompt is drawn, but the keys
    still go to ``target``)."""

    to: KeysTo
    target: FocusTarget
    held: bool = False


class FocusView(Protocol):
    """The keys' state as a reader sees it (the layer, the panel's footer, the status line):
    queries only. :class:`Focus` is one; the host hands it out typed as this view, so only the
    host's own commands change where the keys are."""

    @property
    def chat(self) -> FocusTarget:
        """The chat editor's target."""

    @property
    def panel(self) -> FocusTarget:
        """The panel's target."""

    @property
    def guard(self) -> float:
        """Seconds without a key before a claim or a prompt takes the keys."""

    @property
    def doubt(self) -> Doubt | None:
        """A decision key held until the pause after it, if any."""

    @property
    def claim_waiting(self) -> bool:
        """A claim waits behind another (its blocker comes next)."""

    @property
    def panel_focused(self) -> bool:
        """Does the panel own the keys (held or not)?"""

    @property
    def foreign_active(self) -> bool:
        """Is a prompt mounted over the screen?"""

    @property
    def keys_to_panel(self) -> bool:
        """Do keys go to the panel now?"""

    @property
    def prompt_owns(self) -> bool:
        """Is a prompt the focus owner (held or not)?"""

    def keyboard(self) -> Keyboard:
        """Where the next key goes."""

    def state(self) -> FocusState:
        """The keys' named state."""

    def where(self) -> tuple[KeysTo, FocusTarget, bool]:
        """:meth:`keyboard` as a plain tuple."""

    def shown(self, tab: Hashable | None) -> Hashable | None:
        """The tab at the keys, given the tab the panel shows."""


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
    stray_mark: bool = attrs.field(init=False, default=False)  # a stray: Enter is refused once
    handed: bool = attrs.field(init=False, default=False)  # the keys came without a deliberate key
    unchosen: bool = attrs.field(init=False, default=False)  # the tab shown came on its own
    prompt_engaged: bool = attrs.field(init=False, default=False)  # the top prompt has the keys
    prompt_since: float = attrs.field(init=False, default=float("-inf"))  # it opened or re-armed
    doubt: Doubt | None = attrs.field(init=False, default=None)  # a decision key held

    @classmethod
    def of_screen(cls, guard: float = TYPING_GUARD) -> Focus:
        """The focus of one screen whose keys the chat editor and the panel share, with a
        typing guard of ``guard`` seconds (what a host makes when it is given none)."""
        return cls(FocusTarget("chat"), FocusTarget("panel"), guard)

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
        return self.where()[0] is _KEYS_PANEL

    def keyboard(self) -> Keyboard:
        """Where the next key goes (see module docstring): the one answer for the routing,
        the cursor, the border and the status line."""
        return Keyboard(*self.where())

    def state(self) -> FocusState:
        """The keys' named state, from the bookkeeping (docs/focus-machine.md)."""
        owner = self.owner
        if owner is self.chat:
            return _CHAT
        if owner is self.panel:
            claim = self.claim
            if claim is not None and not claim.engaged:
                if claim.prior_tab is None or claim.to_origin:
                    return _CLAIM_HELD_AT_ORIGIN
                return _CLAIM_HELD_ON_TAB
            if self.doubt is not None:
                return _DECISION_HELD_IN_PANEL
            return _PANEL if claim is None else _CLAIMED
        if not self.foreign:
            return _EDITOR
        if not self.prompt_engaged:
            return _PROMPT_HELD
        return _PROMPT if self.doubt is None else _DECISION_HELD_AT_PROMPT

    def where(self) -> tuple[KeysTo, FocusTarget, bool]:
        """:meth:`keyboard` as a plain tuple (cheap: it is read several times per key)."""
        return self._where(self.state())

    def _where(self, state: FocusState) -> tuple[KeysTo, FocusTarget, bool]:
        """Where keys go in ``state``: the panel's and the prompt's states keep them; the held
        states pass them to where the person was typing."""
        if state is _CHAT:
            return _KEYS_CHAT, self.chat, False
        if state in _TO_PANEL:
            return _KEYS_PANEL, self.panel, state is _CLAIM_HELD_ON_TAB
        if state is _PROMPT or state is _DECISION_HELD_AT_PROMPT:
            return _KEYS_PROMPT, self.owner, False
        if state is _EDITOR:
            return _KEYS_EDITOR, self.owner, False
        typing = (
            self._origin_or_chat()
            if state is _CLAIM_HELD_AT_ORIGIN
            else self._typing_under_prompt()
        )
        return (_KEYS_CHAT if typing is self.chat else _KEYS_EDITOR), typing, True

    def shown(self, tab: Hashable | None) -> Hashable | None:
        """The tab at the keys, given the tab the panel shows: ``tab`` while the panel has
        the keys (or holds them for it), or while a prompt covers a panel that had them;
        else ``None``."""
        state = self.state()
        if state in _TO_PANEL:
            return tab
        if state in _AT_PROMPT and self.foreign[0][1] is self.panel:
            return tab
        return None

    @property
    def prompt_owns(self) -> bool:
        """Is a foreign prompt the focus owner (held or not)?"""
        return self.state() in _AT_PROMPT

    def _typing_under_prompt(self) -> FocusTarget:
        """Where keys go while the prompt is held: the editor the person was typing in."""
        base = self.foreign[0][1]
        if base is self.panel or base not in self.mounted:
            return self._origin_or_chat()
        return base

    def guard_deadline(self) -> float | None:
        """When an unengaged claim or a held prompt engages, or a held decision key is due,
        if no key comes first; ``None`` if nothing is pending."""
        state = self.state()
        if state is _PROMPT_HELD:
            return max(self.prompt_since, self.last_key_at) + self.guard
        if state in _CLAIM_HELD:
            assert self.claim is not None
            return max(self.claim.claimed_at, self.last_key_at) + self.guard
        if state in _DECISION_HELD:
            assert self.doubt is not None
            return self.doubt.at + self.guard
        return None

    def settle_prompt(self, now: float) -> bool:
        """Give a held prompt the keys once its quiet interval passed; True if it did now."""
        if self.state() is not _PROMPT_HELD:
            return False
        if now < max(self.prompt_since, self.last_key_at) + self.guard:
            return False
        self.prompt_engaged = True
        return True

    def settle(self, now: float) -> bool:
        """Engage a pending claim whose quiet interval has passed; True if it engaged now."""
        claim = self.claim
        if self.state() not in _CLAIM_HELD or claim is None:
            return False
        if now < max(claim.claimed_at, self.last_key_at) + self.guard:
            return False
        self.claim = attrs.evolve(claim, engaged=True, to_origin=False)
        self.handed = True
        return True

    def key(self, now: float, prior_owner_tab: Hashable | None = None) -> Route:
        """A key was read at ``now``: where it goes (the typing guard).
        ``prior_owner_tab`` is the tab the panel shows (the host's selection)."""
        self.settle(now)
        self.settle_prompt(now)
        self.last_key_at = now
        state = self.state()
        if state in _TO_PANEL:
            claim = self.claim
            on_tab = state is _CLAIM_HELD_ON_TAB and claim is not None
            tab = claim.prior_tab if on_tab and claim is not None else prior_owner_tab
            return Route(self.panel, tab, state=state)
        return Route(self._where(state)[1], state=state)

    def stray(self, now: float) -> Route:
        """The panel could not use a printable key read at ``now`` (a stray): where it goes.

        With a live claim the typing guard is re-armed, held keys go to the loan origin and
        the stray mark is set; without one the panel lets go of the keyboard (to the origin).
        """
        state = self.state()
        if state in _AT_PROMPT:
            return self._stray_at_prompt(now)
        if self.owner is not self.panel:
            return Route(self._where(state)[1], state=state)
        first = None if self.doubt is None else self.doubt.key  # a held decision: typing too
        self.doubt = None
        claim = self.claim
        if claim is None:
            self.leave_panel()
            return Route(self.owner, first=first)
        self.claim = attrs.evolve(claim, engaged=False, to_origin=True)
        self.last_key_at = max(self.last_key_at, now)
        self.stray_mark = True
        return Route(self._origin_or_chat(), first=first)

    def _stray_at_prompt(self, now: float) -> Route:
        """A printable the prompt does not use: the person is typing elsewhere. The prompt is
        held again; a held decision key goes first, to the same editor."""
        first = None if self.doubt is None else self.doubt.key
        self.doubt = None
        self.prompt_engaged = False
        self.last_key_at = max(self.last_key_at, now)
        return Route(self._typing_under_prompt(), first=first)

    def hold_decision(self, key: str, now: float) -> bool:
        """A printable decision key at the engaged prompt, or at an agent's permission
        request in the panel while the panel has the keys (the host says which tab is one):
        hold it until the pause after it (True), or refuse (False: neither has the keys, or
        one is held)."""
        state = self.state()
        if state is _PROMPT:  # an embedder's editor gets one key at a time
            typing = self._typing_under_prompt()
        elif state is _PANEL or state is _CLAIMED:
            typing = self._origin_or_chat()
        else:
            return False  # neither has the keys, or a decision is held already
        if typing is not self.chat:
            return False
        self.doubt = Doubt(key, now)
        return True

    def due_decision(self, now: float) -> str | None:
        """The held decision key, if the pause after it is over (it is no longer held)."""
        doubt = self.doubt
        if doubt is None or now < doubt.at + self.guard:
            return None
        self.doubt = None
        return doubt.key

    def confirm_decision(self) -> str | None:
        """The confirm key: the held decision key at once (``None``: none is held)."""
        doubt, self.doubt = self.doubt, None
        return None if doubt is None else doubt.key

    def hold_at_origin(self) -> None:
        """Held-back keys go to the loan origin from now on (the prior tab went away)."""
        claim = self.claim
        if claim is not None and not claim.engaged:
            self.claim = attrs.evolve(claim, to_origin=True)

    def clear_stray_mark(self) -> None:
        """The Enter after stray typing, or on an unchosen question, was refused: the next
        one is the person's."""
        self.stray_mark = self.unchosen = False

    def deliberate(self) -> None:
        """A deliberate panel command: the keys are where the person put them."""
        self.stray_mark = self.handed = self.unchosen = False

    def went_away(self, now: float) -> None:
        """The question under the keys went away at ``now``, not by a panel command of the
        person's (module docstring): with no claim the panel lets go of the keys (a prompt
        over it returns to the loan origin); with a claim the typing guard is re-armed from
        ``now`` with the keys at the loan origin. The question the keys reach next is
        unchosen."""
        if self.state() is _DECISION_HELD_IN_PANEL:
            self.doubt = None  # a decision held at the request that went away was aimed at it
        claim = self.claim
        if claim is None:
            self.leave_panel()
            return
        self.claim = attrs.evolve(claim, engaged=False, to_origin=True, claimed_at=now)
        self.unchosen = True

    def arrived_unchosen(self) -> None:
        """The keys moved to another agent's question after the person's own answer: its
        first Enter is refused (module docstring)."""
        self.unchosen = True

    def hand_back(self) -> None:
        """The last claim ended and the panel shows the tab the person was on: the
        keys are back there without a key of theirs."""
        if self.panel_focused:
            self.handed = True

    # -- mounting --------------------------------------------------------------------------
    def mount(self, target: FocusTarget) -> None:
        self.mounted.add(target)

    def unmount(self, target: FocusTarget, now: float) -> None:
        """Forget ``target`` at ``now``. A prompt ends as if it closed (:meth:`end_foreign`:
        the keys go back where it borrowed them); an editor that had the keys gives them to
        the chat editor."""
        if target is self.chat or target is self.panel:
            raise ValueError("the chat editor and the panel cannot be unmounted")
        if any(p is target for p, _ in self.foreign):
            self.end_foreign(target, now)
            return
        self.mounted.discard(target)
        if self.owner is target:
            self.owner = self.chat

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
            self.stray_mark = self.handed = self.unchosen = False
        return True

    def leave_panel(self) -> None:
        """Return focus to the loan origin if still mounted, else to the chat editor; under a
        prompt, the prompts that would return the keys to the panel return them there."""
        if self.panel_focused:
            self.owner = self._origin_or_chat()
            self.doubt = None  # a decision held in the panel goes with it
        elif self.foreign:
            self.return_foreign_to_origin()
        self.loan_origin = None
        self.claim = None
        self.stray_mark = self.handed = self.unchosen = False

    def request_claim(self, now: float, current_tab: Hashable | None) -> None:
        """A blocking wait went live: claim focus now, or wait for foreign prompts to end."""
        if self.claim is not None:
            return
        if self.foreign:
            self.claim_waiting = True
            return
        prior = current_tab if self.panel_focused else None
        self.doubt = None  # a decision held in the panel: the screen changed under it
        self.enter_panel()
        self.claim = Claim(prior_tab=prior, claimed_at=now)
        self.claim_waiting = False

    def end_claim(self) -> Claim | None:
        """The last wait ended: drop the claim and return it (the host decides where to go)."""
        claim, self.claim = self.claim, None
        self.claim_waiting = False
        self.stray_mark = self.handed = self.unchosen = False
        return claim

    def return_foreign_to_origin(self) -> None:
        """The panel lost its reason to hold focus while a foreign prompt covers it: prompts
        that would return to the panel return to the loan origin instead."""
        origin = self._origin_or_chat()
        self.foreign = [(p, origin if o is self.panel else o) for p, o in self.foreign]
        self.loan_origin = None

    # -- foreign prompts -------------------------------------------------------------------
    def begin_foreign(self, prompt: FocusTarget, now: float) -> None:
        """A modal prompt opened at ``now``: it owns the keyboard (held until a pause, module
        docstring); it remembers where focus was."""
        self.mounted.add(prompt)
        self.foreign.append((prompt, self.owner))
        self.owner = prompt
        self._rearm_prompt(now)

    def _rearm_prompt(self, now: float) -> None:
        """The top prompt (a new one, or one uncovered) waits for a pause from ``now``."""
        self.prompt_engaged = False
        self.prompt_since = now
        self.doubt = None

    def end_foreign(self, prompt: FocusTarget, now: float) -> None:
        """The prompt ended at ``now``: focus returns to its origin if still mounted, else chat
        (a prompt under it takes the keys after a pause)."""
        index = next((i for i, (p, _) in enumerate(self.foreign) if p is prompt), None)
        if index is None:
            return
        _, origin = self.foreign.pop(index)
        self.mounted.discard(prompt)
        if index < len(self.foreign) and self.foreign[index][1] is prompt:
            above = self.foreign[index][0]  # it borrowed the keys from this one: from its origin
            self.foreign[index] = (above, origin)
        if self.owner is not prompt:
            return
        if self.foreign:
            self.owner = self.foreign[-1][0]
            self._rearm_prompt(now)
        elif origin in self.mounted:
            self.owner = origin
        else:
            self.owner = self.chat
        self.doubt = None
