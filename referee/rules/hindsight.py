"""Judging an event found late in its place: the engine's recent states, kept to go back to.

A camera sees a card only while it lies on top. A spit card covered by a play 60 ms later is
seen only when that play is taken back (game 5336: B's KC under A's 3S; the 3S was judged on
the 2S beneath, legal, and its take-back a false F_TAKE_BACK, while the 3S on the KC was an
F_ILLEGAL_RANK). When the vision pipeline finds such a card beneath events already judged,
:class:`Hindsight` judges it in its place: from the engine's state before the first of those
events it judges the late event, then each of those events again, and gives a verdict anew
(``Verdict.revised``) for each whose outcome or code changes. The late event keeps the next
event number; the revised verdicts keep the numbers of the events they answer.

Pure: no I/O.
"""

from __future__ import annotations

import copy
import math
from collections import deque
from dataclasses import dataclass, replace

from referee.events import TableEvent, Verdict
from referee.rules.game import Game, Judgement

#: The evidence key of a table event found beneath events already judged (seen only when the
#: cards on it were taken back): it is to be judged in its place (:meth:`Hindsight.judge_in_place`).
FOUND_BENEATH = "found_beneath"

#: The evidence key of a table event the engine refused, judged again after an event found
#: beneath changed what it had been judged against (its value: that event's kind and card): it
#: too is judged in its place (``referee.live.pipeline.Referee._judge_refused_again``).
REFUSED_UNTIL = "refused_until"

#: How far back (seconds of table time before the newest judged event) the states are kept.
#: The cards found beneath judged events in the evaluation games were found 1.4-2.5 s later.
HINDSIGHT_S = 10.0


def judged_in_place(event: TableEvent) -> bool:
    """Whether ``event`` is to be judged in its place (:meth:`Hindsight.judge_in_place`)."""
    evidence = event.evidence or {}
    return bool(evidence.get(FOUND_BENEATH) or evidence.get(REFUSED_UNTIL))


@dataclass(frozen=True)
class _Judged:
    event: TableEvent
    verdict: Verdict
    before: Game  # the engine's state just before the event (a copy no one changes)


@dataclass(frozen=True)
class Rejudged:
    """A late event judged in its place: the engine's state after every event judged since,
    the late event's judgement, and the verdicts given anew."""

    game: Game
    judgement: Judgement
    revised: tuple[Verdict, ...]


class Hindsight:
    """The events judged in the last ``keep_s`` seconds, each with the engine's state before it."""

    def __init__(self, keep_s: float = HINDSIGHT_S) -> None:
        self.keep_s = keep_s
        self._judged: deque[_Judged] = deque()
        self._forgotten_t = -math.inf  # the latest time of an event no longer remembered

    def apply(self, game: Game, event: TableEvent) -> Judgement:
        """``game.apply(event)``, remembering the state before it. Raises what the engine raises
        (the state unchanged, nothing remembered)."""
        before = copy.deepcopy(game)
        judgement = game.apply(event)
        self._remember(_Judged(event, judgement.verdict, before))
        return judgement

    def clear(self) -> None:
        self._judged.clear()
        self._forgotten_t = -math.inf

    def covers(self, event: TableEvent) -> bool:
        """Whether events judged with a time later than ``event``'s are remembered, and no such
        event has been forgotten (the state before them is known)."""
        return event.t >= self._forgotten_t and any(j.event.t > event.t for j in self._judged)

    def judge_in_place(self, game: Game, event: TableEvent) -> Rejudged | None:
        """``event`` judged before the remembered events whose time is later than its own (and
        every event judged after the first of them), and those judged again after it. None when
        no remembered event is later, or one later was forgotten. Raises
        :class:`~referee.rules.game.InconsistentEvent` when the late event, or one judged again,
        cannot be judged there (``game`` and what is remembered are unchanged). ``game`` itself
        is not changed: the caller takes the new state."""
        first = next((i for i, j in enumerate(self._judged) if j.event.t > event.t), None)
        if first is None or not self.covers(event):
            return None
        later = list(self._judged)[first:]
        state = copy.deepcopy(later[0].before)
        number = game.events_judged  # the late event is the next one in the log
        state.events_judged = number
        before = copy.deepcopy(state)
        judgement = state.apply(event)
        kept = [_Judged(event, judgement.verdict, before)]
        revised = []
        for old in later:
            before = copy.deepcopy(state)
            state.events_judged = old.verdict.event
            again = state.apply(old.event).verdict
            state.events_judged = number + 1
            if (again.outcome, again.code) == (old.verdict.outcome, old.verdict.code):
                again = old.verdict
            else:
                again = replace(again, revised=True,
                                message=f"{again.message} (judged again: {_what(event)} found beneath)")
                revised.append(again)
            kept.append(_Judged(old.event, again, before))
        for _ in later:
            self._judged.pop()
        for judged in kept:
            self._remember(judged)
        return Rejudged(state, judgement, tuple(revised))

    def _remember(self, judged: _Judged) -> None:
        self._judged.append(judged)
        newest = max(j.event.t for j in self._judged)
        while self._judged and self._judged[0].event.t < newest - self.keep_s:
            self._forgotten_t = max(self._forgotten_t, self._judged.popleft().event.t)


def _what(event: TableEvent) -> str:
    card = getattr(event, "card", None)
    what = event.kind if card is None else f"{event.kind} of {card}"
    return f"{event.player}'s {what}"
