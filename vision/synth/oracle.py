"""The table states a perfect camera would report for a game video, read from its timeline.

For every frame of a :class:`~vision.synth.video.GameVideo` the settled cards per zone are known
without rendering (:meth:`GameVideo.zones`). :func:`perfect_states` turns them into the
:class:`~scorer.table.TableState` s a stabiliser would hand the tracker: one per frame in which no
arm is over the table, with the seats whose arms were seen since the previous one (``actors``),
the pile tops seen meanwhile (``history``) and the zones the arms' hands went into (``reached``). With ``misread`` > 0 a card's most likely name is
sometimes another card of the deck (probability 0.6 against 0.4 for the true one), each card's
misreading drawn once per state: what a recogniser's single-frame errors look like to the tracker.

This isolates the tracker from recognition: ``bench/tracking.py --perception perfect`` measures it
alone. Times are video seconds (frame index / fps).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from scorer.table import PILE_ZONES, SeenCard, TableState, ZoneState, sight_name
from vision.synth.choreography import Leg
from vision.synth.video import GameVideo


@dataclass(frozen=True, slots=True)
class TimedState:
    """A table state and the frame it was seen in."""

    frame: int
    t: float
    table: TableState


def zones_to_table(zones: dict[str, dict[str, object]], t: float, actors: tuple[int, ...] = (),
                   history: dict[str, tuple[str, ...]] | None = None) -> TableState:
    """A certain :class:`TableState` from :meth:`GameVideo.zones` (a pile shows its top only; a
    face-down stack counts once)."""
    out: dict[str, ZoneState] = {}
    for z, d in zones.items():
        ups = [sight_name(str(c)) for c in d["up"]]  # type: ignore[union-attr]
        down = int(d["down"])  # type: ignore[arg-type]
        if z in PILE_ZONES:
            down = 1 if down and not ups else 0
        state = ZoneState(tuple(SeenCard.certain(n) for n in sorted(ups)), down)
        if not state.empty:
            out[z] = state
    return TableState(out, t, actors, history or {})


def _misread(table: TableState, names: list[str], rate: float, rng: np.random.Generator) -> TableState:
    zones = {}
    for z, s in table.zones.items():
        cards = []
        for c in s.up:
            if rng.random() < rate:
                wrong = str(rng.choice([n for n in names if n != c.name]))
                cards.append(SeenCard(((wrong, 0.6), (c.name, 0.4))))
            else:
                cards.append(c)
        zones[z] = ZoneState(tuple(cards), s.down)
    return TableState(zones, table.t, table.actors, table.history)


@dataclass(frozen=True, slots=True)
class SettledFrame:
    """A frame with no arm over the table and what was seen since the previous such frame."""

    frame: int
    t: float
    zones: dict[str, dict[str, object]]
    """:meth:`GameVideo.zones` of the frame."""
    actors: tuple[int, ...]
    history: dict[str, tuple[str, ...]]
    reached: frozenset[str]


def settled_frames(video: GameVideo, arm_seen: Callable[[Leg], bool] | None = None) -> Iterator[SettledFrame]:
    """Every frame with no arm over the table, with the seats whose arms were seen since the
    previous one (``actors``, a seat repeated in a row once), the pile tops seen meanwhile
    (``history``) and the zones the arms' hands went into (``reached``). ``arm_seen(leg)``: whether
    an arm's action is seen at all (default: every one); one not seen adds nothing."""
    actors: list[int] = []
    history: dict[str, list[str]] = {}
    reached: set[str] = set()
    for f in range(video.frame_count):
        t = video.time(f)
        leg = video.timeline.leg_at(t)
        zones = video.zones(f)
        for pz in ("pile", "discard"):
            ups = zones.get(pz, {}).get("up") if pz in zones else None
            if ups:
                n = sight_name(str(ups[0]))  # type: ignore[index]
                seen = history.setdefault(pz, [])
                if not seen or seen[-1] != n:
                    seen.append(n)
        if leg.seat is not None:
            if arm_seen is not None and not arm_seen(leg):
                continue
            if not actors or actors[-1] != leg.seat:
                actors.append(leg.seat)
            for point in (leg.hand_from, leg.hand_to):
                zone = video.layout.zone_of(point)
                if zone is not None:
                    reached.add(zone)
            continue
        yield SettledFrame(f, t, zones, tuple(actors), {z: tuple(v) for z, v in history.items()}, frozenset(reached))
        actors, history, reached = [], {}, set()


def perfect_states(video: GameVideo, misread: float = 0.0, seed: int = 0) -> Iterator[TimedState]:
    """The states a perfect stabiliser reports: every frame with no arm over the table."""
    rng = np.random.Generator(np.random.PCG64(seed))
    names = sorted({sight_name(c) for c in _deck_ids(video)})
    for sf in settled_frames(video):
        table = zones_to_table(sf.zones, sf.t, sf.actors, sf.history)
        table = TableState(table.zones, table.t, table.actors, table.history, sf.reached)
        if misread > 0:
            table = _misread(table, names, misread, rng)
        yield TimedState(sf.frame, sf.t, table)


def _deck_ids(video: GameVideo) -> list[str]:
    from scorer.cards import deck

    return list(deck(video.playout.match.deck).cards)
