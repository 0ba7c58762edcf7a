"""Bagaji videos lay the concealed hands face up after the round ends (the reveal).

A fully known playout settles a Bagaji round at its ending event (stop, win, winning call,
exhausted), so it has no ``show`` events; a camera sees hands only as counts and needs the hands
shown. Here, from the timeline's per-frame truth only (no frame is rendered): after the ending
event every seat's concealed cards lie face up in its seat zone, by its own arm, one seat after the
other, for at least 2.5 s with nothing moving; they are exactly the seat's hand at the round's end;
they lie inside the zone, spread apart and clear of the melds; and an observer engine (hands as
counts, draws unseen) fed the truth events and then ``show`` events made of the revealed cards
settles the round exactly as the truth did. Both decks Bagaji supports at three seats are covered
(``VideoSpec`` has no deck choice: the seed ruleset uses ``playing-2x``, so ``hanafuda-1x`` is
played out here with the deck option and handed to ``GameVideo`` in place of its playout).
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import replace

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

import vision.synth.video as video_mod  # noqa: E402
from scorer.bagaji.events import Deal, Draw, Show  # noqa: E402
from scorer.games import game as find_game  # noqa: E402
from scorer.places import Places  # noqa: E402
from vision.synth.choreography import REVEAL_MIN_STEP  # noqa: E402
from vision.synth.playout import Playout, play  # noqa: E402
from vision.synth.video import GameVideo, VideoSpec  # noqa: E402

FPS = 15.0
HOLD_S = 2.5
PLAYERS = 3

# (deck, seed, option overrides): short rounds ending in each way, with and without melds.
CASES = [
    ("playing-2x", 245, {}),  # stop, no meld
    ("playing-2x", 101, {}),  # stop with a called triplet
    ("playing-2x", 191, {}),  # win by drawing (six concealed cards)
    ("playing-2x", 189, {}),  # win by drawing with a meld
    ("playing-2x", 44, {}),  # winning call
    ("playing-2x", 58, {"stock_exhausted": "no-winner"}),  # the stock runs out
    ("hanafuda-1x", 118, {}),
    ("hanafuda-1x", 101, {}),
    ("hanafuda-1x", 238, {}),
    ("hanafuda-1x", 34, {}),
    ("hanafuda-1x", 194, {}),
    ("hanafuda-1x", 3, {"stock_exhausted": "no-winner"}),
]


def _play_with(deck: str, overrides: dict[str, str]):
    """:func:`vision.synth.playout.play` with Bagaji option overrides (the deck among them)."""

    def _play(game: str, ruleset: str | None, players: int, rounds: int, seed: int,
              options: dict[str, str] | None = None) -> Playout:
        spec = find_game(game)
        name = ruleset or spec.default_ruleset
        chosen = {**(options or {}), "deck": deck, **overrides}
        match = spec.match([f"Seat {i + 1}" for i in range(players)], spec.options(name, chosen))
        rng = random.Random(seed)
        events, places = [], []
        for _ in range(max(1, rounds)):
            done = len(match.results)
            while not match.is_over and len(match.results) == done:
                ev = match.random_event(rng)
                match.apply(ev)
                events.append(ev)
                p = getattr(match.state, "places", None)
                places.append(p if isinstance(p, Places) else None)
            if match.is_over:
                break
        return Playout(spec.name, name, players, match, tuple(events), tuple(places))

    return _play


def _video(deck: str, seed: int, overrides: dict[str, str], monkeypatch, rounds: int = 1) -> GameVideo:
    spec = VideoSpec(game="bagaji", players=PLAYERS, seed=seed, rounds=rounds, fps=FPS)
    if deck != "playing-2x" or overrides:
        monkeypatch.setattr(video_mod, "play", _play_with(deck, overrides))
    video = GameVideo(spec)
    assert video.playout.match.options.deck == deck
    return video


def _ends_round(ev) -> bool:
    return ev.TYPE in ("stop", "win", "exhausted") or (ev.TYPE == "call" and ev.win)


def _corners(pose, card_mm) -> np.ndarray:
    w, h = card_mm
    a = math.radians(pose.angle_deg)
    ca, sa = math.cos(a), math.sin(a)
    pts = [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]
    return np.array([(pose.center_mm[0] + x * ca - y * sa, pose.center_mm[1] + x * sa + y * ca) for x, y in pts],
                    dtype=np.float32)


def _overlap(a, b, card_mm) -> float:
    area, _ = cv2.intersectConvexConvex(_corners(a, card_mm), _corners(b, card_mm))
    return float(area)


def _reveal_run(video: GameVideo, end: int) -> tuple[list[int], dict[int, tuple[str, ...]], dict[int, tuple[str, ...]]]:
    """The frames after event ``end`` in which every seat shows its melds and its whole concealed
    hand face up and no arm is over the table (the longest such stretch), the hands and melds."""
    places = video.playout.places[end]
    hands = {k: tuple(sorted(places[f"hand:{k}"].known)) for k in range(1, PLAYERS + 1)}
    melds = {k: tuple(sorted(places[f"meld:{k}"].known)) for k in range(1, PLAYERS + 1)}
    t_end = video.timeline.event_times[end]
    best: list[int] = []
    run: list[int] = []
    for f in range(int(math.ceil(t_end * FPS)), video.frame_count):
        zones = video.zones(f)
        ok = video.timeline.leg_at(video.time(f)).seat is None and all(
            Counter(zones.get(f"seat:{k}", {}).get("up", [])) == Counter(hands[k] + melds[k])
            and zones.get(f"seat:{k}", {}).get("down", 0) == 0
            for k in hands
        )
        run = run + [f] if ok else []
        if len(run) > len(best):
            best = run
    return best, hands, melds


@pytest.mark.parametrize("deck,seed,overrides", CASES, ids=lambda v: str(v) if not isinstance(v, dict) else "-".join(v.values()) or "seed")
def test_hands_revealed_after_the_round_end(deck, seed, overrides, monkeypatch):
    video = _video(deck, seed, overrides, monkeypatch)
    events = video.playout.events
    end = len(events) - 1
    assert _ends_round(events[end]) and video.playout.match.results
    t_end = video.timeline.event_times[end]
    run, hands, melds = _reveal_run(video, end)
    # (a) Everything revealed, still, with no arm over the table, for at least 2.5 s.
    assert run and (run[-1] - run[0]) / FPS >= HOLD_S, f"revealed for {(len(run) - 1) / FPS:.2f} s"
    # Not before the ending event's action is complete: then only the melds lie in the seat zones.
    at_end = video.zones(int(math.ceil(t_end * FPS)))
    for k in hands:
        assert Counter(at_end.get(f"seat:{k}", {}).get("up", [])) == Counter(melds[k])
    # (b) What appeared in each seat zone is exactly that seat's concealed hand at the round's end.
    during = video.zones(run[len(run) // 2])
    for k in hands:
        shown = Counter(during.get(f"seat:{k}", {}).get("up", [])) - Counter(at_end.get(f"seat:{k}", {}).get("up", []))
        assert tuple(sorted(shown.elements())) == hands[k]
    # One seat after the other, each by its own arm; nothing else moves in between.
    legs = [leg for leg in video.timeline.legs if t_end < leg.t0 < video.time(run[0])]
    order = []
    for leg in legs:
        if not leg.carries:
            continue
        zones = {c.zone for c in leg.carries}
        assert zones == {f"seat:{leg.seat}"}, "a seat's cards are laid by its own arm, into its own zone"
        assert all(c.end.face_up for c in leg.carries)
        order.append(leg.seat)
    assert order == [k for k in dict.fromkeys(order)], "each seat lays its hand down in one go"
    assert sorted(order) == sorted(k for k in hands if hands[k])
    # Geometry: inside the seat zone, spread (each card mostly visible), clear of the melds.
    leg = video.timeline.leg_at(video.time(run[0]))
    card_mm = video.card_mm
    card_area = card_mm[0] * card_mm[1]
    for k in hands:
        zone = video.layout.zone(f"seat:{k}")
        lying = [s for s in leg.settled if s.zone == f"seat:{k}"]
        meld_cards = [s for s in lying if s.card_id in melds[k]][: len(melds[k])]
        shown_cards = [s for s in lying if s not in meld_cards]
        assert len(shown_cards) == len(hands[k])
        for s in shown_cards:
            assert s.pose.face_up
            assert all(zone.contains((float(x), float(y))) for x, y in _corners(s.pose, card_mm)), (k, s)
            assert sum(_overlap(s.pose, m.pose, card_mm) for m in meld_cards) < 0.02 * card_area
        for i, s in enumerate(shown_cards):
            covered = sum(_overlap(s.pose, o.pose, card_mm) for o in shown_cards[i + 1:])
            assert covered <= (1 - REVEAL_MIN_STEP) * card_area + 1.0


@pytest.mark.parametrize("deck,seed,overrides", CASES, ids=lambda v: str(v) if not isinstance(v, dict) else "-".join(v.values()) or "seed")
def test_observer_settles_from_the_revealed_hands(deck, seed, overrides, monkeypatch):
    """(c) An observer match (hands and stock as counts, draws unseen) cannot settle at the ending
    event, and settles exactly as the truth once each seat's revealed cards are shown."""
    video = _video(deck, seed, overrides, monkeypatch)
    truth = video.playout
    events = truth.events
    end = len(events) - 1
    spec = find_game("bagaji")
    observer = spec.match([f"Seat {i + 1}" for i in range(PLAYERS)], truth.match.options)
    for ev in events[: end + 1]:
        if isinstance(ev, Deal):
            ev = replace(ev, hands=(5,) * PLAYERS, stock=len(ev.stock))
        elif isinstance(ev, Draw):
            ev = replace(ev, card=None)
        observer.apply(ev)
    assert not observer.results, "the observer cannot settle before the hands are shown"
    # The shows, in the order the seats lay their cards down, made of what appeared in their zones.
    t_end = video.timeline.event_times[end]
    run, _, _ = _reveal_run(video, end)
    before = video.zones(int(math.ceil(t_end * FPS)))
    after = video.zones(run[0])
    seats = [leg.seat for leg in video.timeline.legs if t_end < leg.t0 < video.time(run[0]) and leg.carries]
    for k in dict.fromkeys(seats):
        shown = Counter(after[f"seat:{k}"]["up"]) - Counter(before.get(f"seat:{k}", {}).get("up", []))
        observer.apply(Show(k, tuple(sorted(shown.elements()))))
    assert [r.to_json() for r in observer.results] == [r.to_json() for r in truth.match.results]


def test_two_rounds_gather_the_revealed_hands(monkeypatch):
    """Between rounds the revealed hands are gathered with the rest by the next deal: at every
    event's time the seat zones show the engine's places (melds, no hands), as before the reveal."""
    spec = VideoSpec(game="bagaji", players=PLAYERS, seed=245, rounds=2, fps=FPS)
    video = GameVideo(spec)
    events = video.playout.events
    ends = [i for i, ev in enumerate(events) if _ends_round(ev)]
    assert len(ends) == 2 and len(video.playout.match.results) == 2
    for i, at in enumerate(video.timeline.event_times):
        places = video.playout.places[i]
        if places is None:
            continue  # before the first deal
        zones = video.zones(int(math.ceil(at * FPS - 1e-9)))
        for k in range(1, PLAYERS + 1):
            assert Counter(zones.get(f"seat:{k}", {}).get("up", [])) == Counter(places[f"meld:{k}"].known), (i, events[i])
    for end in ends:
        run, _, _ = _reveal_run(video, end)
        assert run and (run[-1] - run[0]) / FPS >= HOLD_S


def test_same_events_and_times_as_the_playout():
    """The reveal is choreography only: the record's events are the playout's, in time order."""
    video = GameVideo(VideoSpec(game="bagaji", players=PLAYERS, seed=101, rounds=1, fps=FPS))
    again = play("bagaji", None, PLAYERS, 1, 101)
    assert video.playout.events == again.events
    assert [e.TYPE for e in video.playout.events].count("show") == 0
    times = video.timeline.event_times
    assert list(times) == sorted(times) and video.timeline.duration >= times[-1] + HOLD_S
