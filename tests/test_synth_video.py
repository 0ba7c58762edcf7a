"""Game videos: the per-frame truth agrees with the record at every event, the record replays
(also through ``fudaba score``) to the playout's results, the video reads back, the same seed gives
the same video, and labelled outlines hold the labelled art. Small frames and fps keep it fast."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

cv2 = pytest.importorskip("cv2")

from scorer.record import loads  # noqa: E402
from scorer.table import place_zone  # noqa: E402
from tests.synth_truth import correlations, references  # noqa: E402
from vision.synth.choreography import build_timeline  # noqa: E402
from vision.synth.playout import play  # noqa: E402
from vision.synth.video import GameVideo, VideoSpec, write_video  # noqa: E402
from vision.zones import CARD_MM, SEAT_EDGES, zone_layout  # noqa: E402

# (game, players, seed): short rounds; hachi-hachi seed 10 has a teyaku claim.
VIDEOS = [("hachi-hachi", 3, 10), ("poka", 2, 2), ("bagaji", 3, 2)]
SIZE, FPS = (192, 108), 4.0


@pytest.fixture(scope="module")
def videos(tmp_path_factory) -> dict[tuple[str, int, int], tuple[GameVideo, Path, dict]]:
    out = {}
    for game, players, seed in VIDEOS:
        spec = VideoSpec(game=game, players=players, seed=seed, fps=FPS, size=SIZE)
        folder = tmp_path_factory.mktemp(f"{game}-{seed}")
        summary = write_video(spec, folder)
        out[(game, players, seed)] = (GameVideo(spec), folder, summary)
    return out


def _expected(video: GameVideo, i: int, sitout: int | None) -> dict[str, tuple[list[str], int]]:
    """Per zone, the face-up cards that show and the face-down count, from the scorer's places
    after event ``i`` (piles: the top only), plus the cards a claim lays in the seat zone."""
    places = video.playout.places[i]
    ev = video.playout.events[i]
    out: dict[str, tuple[list[str], int]] = {}
    for name in places.names():
        zone = place_zone(name, sitout)
        place = places[name]
        if zone is None or not place.size:
            continue
        up, down = out.get(zone, ([], 0))
        if name == "stock":
            down += place.size
        elif name in ("pile", "discard"):
            up = up + [place.known[-1]]
        else:
            up = up + list(place.known)
        out[zone] = (up, down)
    if ev.TYPE == "claim":
        up, down = out.get(f"seat:{ev.seat}", ([], 0))
        out[f"seat:{ev.seat}"] = (up + list(ev.cards), down)
    return {z: (sorted(u), d) for z, (u, d) in out.items()}


def _truth_lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "truth.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("key", VIDEOS, ids=lambda k: f"{k[0]}-{k[1]}p-seed{k[2]}")
def test_truth_agrees_with_record_at_every_event(videos, key):
    video, folder, _ = videos[key]
    truth = _truth_lines(folder)
    record = loads((folder / "record.jsonl").read_text())
    ats = [obj["at"] for _, obj in record.entries]
    assert ats == sorted(ats) and len(ats) == len(video.playout.events)
    checked = 0
    sitout = None
    for i, (ev, at) in enumerate(zip(video.playout.events, ats, strict=True)):
        if ev.TYPE == "sit-out":
            sitout = ev.seat
        if video.playout.places[i] is None:
            continue  # the round was settled by this event: the engine keeps no places
        frame = int(np.ceil(at * FPS - 1e-9))
        line = truth[frame]
        assert line["frame"] == frame and line["t"] >= at - 1e-9
        assert line["event"] >= i
        got = {z: (sorted(v["up"]), v["down"]) for z, v in line["zones"].items() if v["up"] or v["down"]}
        assert got == _expected(video, i, sitout), f"event {i} {ev.to_json()} at {at}"
        checked += 1
    assert checked >= len(ats) - 1
    # No card ever shows face up in two places, and carried cards are named.
    for line in truth[:: max(1, len(truth) // 40)]:
        ids = [c["card_id"] for c in line["cards"] if c["face_up"]]
        dup = [k for k, n in Counter(ids).items() if n > 1]
        assert not dup or video.playout.match.deck.endswith("2x")
        assert len(line["cards"]) >= len(line["transit"])


@pytest.mark.parametrize("key", VIDEOS, ids=lambda k: f"{k[0]}-{k[1]}p-seed{k[2]}")
def test_record_replays_to_the_playout_results(videos, key, capsys):
    video, folder, summary = videos[key]
    results = [r.to_json() for r in video.playout.match.results]
    assert summary["results"] == results
    replayed = loads((folder / "record.jsonl").read_text()).replay()
    assert [r.to_json() for r in replayed.results] == results
    from fudaba.cli import main

    capsys.readouterr()
    assert main(["score", str(folder / "record.jsonl"), "--json"]) == 0
    scored = json.loads(capsys.readouterr().out)
    assert scored["rounds"] == results
    assert scored["totals"] == list(video.playout.match.totals)


@pytest.mark.parametrize("key", VIDEOS[:2], ids=lambda k: f"{k[0]}-{k[1]}p-seed{k[2]}")
def test_video_reads_back(videos, key):
    video, folder, summary = videos[key]
    cap = cv2.VideoCapture(summary["video"])
    n = 0
    shape = None
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        shape = frame.shape
        n += 1
    cap.release()
    assert n == video.frame_count == summary["frames"] == len(_truth_lines(folder))
    assert shape == (SIZE[1], SIZE[0], 3)


def test_same_seed_same_video_different_seed_differs(videos, tmp_path):
    key = VIDEOS[1]
    _, folder, _ = videos[key]
    spec = VideoSpec(game=key[0], players=key[1], seed=key[2], fps=FPS, size=SIZE)
    again = tmp_path / "again"
    write_video(spec, again)
    assert (again / "record.jsonl").read_bytes() == (folder / "record.jsonl").read_bytes()
    assert (again / "truth.jsonl").read_bytes() == (folder / "truth.jsonl").read_bytes()
    a, b = GameVideo(spec), GameVideo(spec)
    for i in (3, a.frame_count // 2):
        assert np.array_equal(a.render(i)[0], b.render(i)[0])
    other = GameVideo(VideoSpec(game=key[0], players=key[1], seed=key[2] + 1, fps=FPS, size=SIZE))
    assert other.record().dumps() != a.record().dumps()
    assert not np.array_equal(other.render(3)[0], a.render(3)[0])


@pytest.mark.parametrize("game,players,seed,style", [("hachi-hachi", 3, 10, "mantia"), ("bagaji", 3, 2, "knoll")])
def test_labelled_outlines_hold_the_labelled_art(game, players, seed, style):
    video = GameVideo(VideoSpec(game=game, players=players, seed=seed, fps=FPS, size=(960, 540), style=style,
                                difficulty="easy"))
    refs = references(video.style, sorted({c for ev in video.playout.places if ev for n in ev.names() for c in ev[n].known}))
    checked = 0
    for i in np.linspace(0, video.frame_count - 1, 7).astype(int):
        image, truth = video.render(int(i))
        for card in truth["cards"]:
            if not card["face_up"] or card["visible"] < 0.97 or card["zone"] is None:
                continue
            scores = correlations(image, card["polygon"], refs)
            best = max(scores, key=scores.get)
            assert scores[card["card_id"]] > 0.5, (i, card["card_id"], scores[card["card_id"]])
            assert best == card["card_id"] or scores[best] - scores[card["card_id"]] < 0.05
            checked += 1
    assert checked >= 5


@pytest.mark.parametrize("game,players,seed", [("hachi-hachi", 7, 2), ("hachi-hachi", 4, 5), ("hachi-hachi", 3, 10),
                                               ("poka", 2, 3), ("bagaji", 4, 7), ("bagaji", 8, 2)])
def test_timeline_agrees_with_places_and_zones(game, players, seed):
    """Without rendering: after every event the settled cards match the scorer's places, and every
    settled card lies in the zone it is said to be in."""
    po = play(game, None, players, 1, seed)
    deck = "playing" if game == "bagaji" else "hanafuda"
    layout = zone_layout(game, players, deck)
    tl = build_timeline(layout, CARD_MM[deck], po.events, po.places, seed)
    sitout = None
    for i, ev in enumerate(po.events):
        if ev.TYPE == "sit-out":
            sitout = ev.seat
        if po.places[i] is None:
            continue
        got: dict[str, list[str]] = {}
        down: Counter[str] = Counter()
        for s in tl.leg_at(tl.event_times[i]).settled:
            if s.pose.face_up:
                got.setdefault(s.zone, []).append(s.card_id)
            else:
                down[s.zone] += 1
        want: dict[str, list[str]] = {}
        for name in po.places[i].names():
            zone = place_zone(name, sitout)
            if zone and name != "stock" and po.places[i][name].known:
                want.setdefault(zone, []).extend(po.places[i][name].known)
        if ev.TYPE == "claim":
            want.setdefault(f"seat:{ev.seat}", []).extend(ev.cards)
        assert {z: sorted(v) for z, v in got.items()} == {z: sorted(v) for z, v in want.items()}, (i, ev.to_json())
        assert down["stock"] == po.places[i]["stock"].size
    outside = [(leg.t0, s.card_id, s.zone) for leg in tl.legs for s in leg.settled
               if layout.zone_of(s.pose.center_mm) != s.zone]
    assert not outside[:5]
    assert all(b.t0 == a.t1 for a, b in zip(tl.legs, tl.legs[1:], strict=False))


@pytest.mark.parametrize("players", sorted(SEAT_EDGES))
def test_zone_layout(players):
    layout = zone_layout("bagaji" if players == 8 else "hachi-hachi", players)
    aw, ah = layout.area_mm
    names = [z.name for z in layout.zones]
    assert len(set(names)) == len(names) and f"seat:{players}" in names and "stock" in names
    for z in layout.zones:
        assert layout.zone_of(z.center_mm) == z.name
        for x, y in z.polygon_mm:
            assert -1e-6 <= x <= aw + 1e-6 and -1e-6 <= y <= ah + 1e-6
    for s in layout.seats:
        ex, ey = s.arm_entry_mm
        assert not (0 <= ex <= aw and 0 <= ey <= ah)
    # Counter-clockwise seen from above (y down): the angle of the seat centres about the table
    # centre decreases from seat to seat (mod 360).
    cx, cy = aw / 2, ah / 2
    angles = [np.degrees(np.arctan2(layout.zone(s.zone).center_mm[1] - cy, layout.zone(s.zone).center_mm[0] - cx))
              for s in layout.seats]
    steps = [(a - b) % 360 for a, b in zip(angles, angles[1:], strict=False)]
    assert all(0 < d <= 180 for d in steps) and sum(steps) < 360
    assert layout.zone_of((cx, cy)) in ("field", "discard")
