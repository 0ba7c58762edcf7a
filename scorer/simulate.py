"""Random legal play for simulations, property tests and benchmarks.

A playout asks the engine for ``random_event(rng)`` (which draws chance — deals, stock draws —
as well as players' choices) and applies it, until the round or the match ends. A match whose
options set no end (Bagaji with neither a time nor a round limit) never ends: :func:`play_match`
stops it at ``max_rounds`` with :class:`NoEndError`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scorer.errors import ScorerError
from scorer.events import Event
from scorer.match import Match


class NoEndError(ScorerError):
    """A simulated match had not ended after the most rounds the caller allowed."""


def play_round(match: Match, rng: random.Random, max_events: int = 10_000) -> list[Event]:
    """Play random legal events until one more round has been settled (or the match ends)."""
    done = len(match.results)
    played: list[Event] = []
    while not match.is_over and len(match.results) == done:
        if len(played) >= max_events:
            raise RuntimeError(f"{match.GAME}: round did not end within {max_events} events")
        event = match.random_event(rng)
        match.apply(event)
        played.append(event)
    return played


def play_match(match: Match, rng: random.Random, max_rounds: int | None = 1_000) -> list[Event]:
    """Play random legal events until the match is over.

    Raise :class:`NoEndError` when it has not ended after ``max_rounds`` rounds (None: no limit,
    for matches known to end).
    """
    played: list[Event] = []
    rounds = 0
    while not match.is_over:
        if max_rounds is not None and rounds >= max_rounds:
            raise NoEndError(f"{match.GAME}: the match did not end within {max_rounds} rounds")
        played.extend(play_round(match, rng))
        rounds += 1
    return played


@dataclass(frozen=True, slots=True)
class EntryStep:
    """One thing a player enters at a table (the dashboard's manual mode): a deal by its dealer and
    face-up cards, or an event as its JSON object (no ``at``)."""

    kind: str
    """``deal`` or ``event``."""
    dealer: int | None = None
    """For a deal: who dealt (None where the game's deal names nobody)."""
    face_up: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """For a deal: the face-up cards by deal field (``{"field": (...)}``, ``{"table": (id,)}``)."""
    event: Mapping[str, Any] = field(default_factory=dict)
    """For an event: its JSON object."""


def entered_rounds(game_name: str, seats: int, seed: int,
                   rounds: int = 1) -> tuple[list[EntryStep], list[tuple[int, ...]]]:
    """The first ``rounds`` rounds of a simulated match (a random legal playout of ``seed``; fewer
    if the match ends) as players at a table enter them, and each settlement's changes. Hands and the stock stay unseen (observer form: deals by their face-up
    cards, Bagaji's draws unnamed); Bagaji's hands are shown card by card at the showdown. Bagaji's
    choice of the first player comes first."""
    from scorer.deals import FACE_UP_FIELDS, observer_deal
    from scorer.games import game

    spec = game(game_name)
    names = [f"Player {i + 1}" for i in range(seats)]
    full = spec.match(names, spec.options())
    rng = random.Random(seed)
    for _ in range(rounds):
        if not full.is_over:
            play_round(full, rng)
    obs = spec.match(names, spec.options())
    steps: list[EntryStep] = []

    def enter(ev: Event) -> None:
        obj = {k: v for k, v in ev.to_json().items() if k != "at"}
        steps.append(EntryStep("event", event=obj))
        obs.apply(obs.EVENTS.from_json(obj))

    for ev in full.events:
        if ev.TYPE == "deal":
            face = {f: v if isinstance(v, tuple) else (v,) for f in FACE_UP_FIELDS
                    if (v := getattr(ev, f, None)) is not None}
            dealer = getattr(ev, "dealer", None)
            steps.append(EntryStep("deal", dealer=dealer, face_up=face))
            obs.apply(observer_deal(obs, face, dealer))
            continue
        if ev.TYPE == "draw" and spec.description.hidden_draws:
            ev = type(ev)(seat=ev.seat, card=None)  # type: ignore[attr-defined, call-arg]
        enter(ev)
        if obs.phase() == "showdown":
            hands = full.table_places()
            assert hands is not None
            for k in range(1, seats + 1):
                for c in hands[f"hand:{k}"].known:
                    if obs.state.places[f"hand:{k}"].hidden:
                        enter(obs.EVENTS.from_json({"type": "show", "seat": k, "cards": [c]}))
    if [r.changes for r in obs.results] != [r.changes for r in full.results]:
        raise RuntimeError(f"{game_name} seed {seed}: the entered rounds settle unlike the playout")
    return steps, [r.changes for r in full.results]


def long_record(lines: int, seed: int = 1, start: str | None = None) -> str:
    """A record file's text (header, then ``lines`` events) of a simulated 3-seated Bagaji match
    that never ends (no time limit), played at random from ``seed``: a record as long as wanted,
    for imports (bench/imports.py, tests). ``start``: the header's start (default: now)."""
    import json

    from scorer import record as records
    from scorer.games import game
    from scorer.match import Player

    spec = game("bagaji")
    match = spec.match([Player(1, "Aki"), Player(2, "Ben"), Player(3, "Chie")],
                       spec.options("seed", {"end-after-minutes": 0}))
    rng = random.Random(seed)
    events: list[Event] = []
    while len(events) < lines:
        events += play_round(match, rng)
    header = records.Header.for_match(match, "seed", **({"start": start} if start else {}))
    out = [json.dumps(header.to_json(), ensure_ascii=False)]
    out += [json.dumps(e.to_json(), ensure_ascii=False) for e in events[:lines]]
    return "\n".join(out) + "\n"
