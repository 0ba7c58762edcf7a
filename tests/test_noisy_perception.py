"""The noisy camera (vision/evaluate/noisy.py): perfect table states with a recogniser's mistakes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scorer.table import sight_name
from vision.evaluate.noisy import ARM_MISS, Confusions, Noise, NoisyCamera
from vision.synth.oracle import perfect_states
from vision.synth.video import GameVideo, VideoSpec


def _video(seed: int = 3001) -> GameVideo:
    return GameVideo(VideoSpec(game="poka", players=2, seed=seed, fps=15.0))


def _measured(tmp_path: Path, **over: object) -> Confusions:
    from scorer.cards import deck

    names = sorted({sight_name(c) for c in deck("hanafuda").cards})
    raw = {"deck": "hanafuda", "names": names, "cards": 1000, "correct": 980,
           "confusions": {"01-crane": {"01-plain": 10}, "08-moon": {"01-plain": 5}},
           "assessed": dict.fromkeys(names, 20), "missed": {"02-plain": 5},
           "wrong_p": [0.6, 0.7, 0.55], "true_p_when_wrong": [0.3, 0.0, 0.4],
           "frames": 100, "phantoms": 10, "phantom_p": [0.2, 0.4]}
    raw.update(over)
    (tmp_path / "confusions-hanafuda.json").write_text(json.dumps(raw))
    return Confusions.load("hanafuda", tmp_path)


def _names(states) -> list[tuple]:
    return [(s.frame, tuple((z, tuple(c.probs for c in zs.up), zs.down) for z, zs in sorted(s.table.zones.items())),
             s.table.actors, tuple(sorted(s.table.reached))) for s in states]


def test_a_missing_or_malformed_confusions_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"confusions-playing.json: no measured confusions.*bench/confusions.py"):
        Confusions.load("playing", tmp_path)
    (tmp_path / "confusions-hanafuda.json").write_text('{"deck": "hanafuda"}')
    with pytest.raises(ValueError, match="not a confusions file"):
        Confusions.load("hanafuda", tmp_path)


def test_misses_and_phantoms_are_the_measured_ones_unless_set(tmp_path: Path) -> None:
    m = _measured(tmp_path)
    assert m.error_rate == pytest.approx(0.015) and m.miss_rate == pytest.approx(0.005)
    miss, phantom, arm = Noise(confusion=0.03).rates(m)
    assert miss == pytest.approx(0.005) and phantom == pytest.approx(0.1) and arm == ARM_MISS
    assert Noise(confusion=0.03, miss=0.1, phantom=0.0, arm_miss=0.5).rates(m) == (0.1, 0.0, 0.5)
    # the cards confused most are misread most, and into the names they were confused with
    assert m.weight("01-crane") > m.weight("02-plain") > 0
    names, p = m.wrong_names("01-crane")
    assert names[int(p.argmax())] == "01-plain" and p.sum() == pytest.approx(1.0)


def test_without_noise_the_states_are_the_perfect_ones(tmp_path: Path) -> None:
    video = _video()
    cam = NoisyCamera(video, Noise(confusion=0.0, miss=0.0, phantom=0.0, arm_miss=0.0), 1, _measured(tmp_path))
    assert _names(cam.states()) == _names(perfect_states(video))
    assert cam.stats["placements"] > 0 and not cam.stats["misreads"]


def test_noise_is_seeded_and_a_misread_stays_while_the_card_lies_still(tmp_path: Path) -> None:
    video = _video()
    m = _measured(tmp_path)
    a = _names(NoisyCamera(video, Noise(confusion=0.4), 7, m).states())
    assert a == _names(NoisyCamera(video, Noise(confusion=0.4), 7, m).states())
    assert a != _names(NoisyCamera(video, Noise(confusion=0.4), 8, m).states())
    cam = NoisyCamera(video, Noise(confusion=0.4, miss=0.0, phantom=0.0, arm_miss=0.0), 7, m)
    truth = {s.frame: s.table for s in perfect_states(video)}
    stretches: list[tuple[str, set[str]]] = []  # (true top, names seen) while one card lies on the pile
    for s in cam.states():
        true_top = truth[s.frame].zones.get("pile")
        seen_top = s.table.zones.get("pile")
        if true_top and true_top.up and seen_top and seen_top.up:
            if not stretches or stretches[-1][0] != true_top.up[0].name:
                stretches.append((true_top.up[0].name, set()))
            stretches[-1][1].add(seen_top.up[0].name)
        else:
            stretches.append(("", set()))
    assert cam.stats["misreads"] > 0
    # one reading per card lying on the pile: a misread card is misread the same way every state
    assert all(len(seen) <= 1 for _true, seen in stretches)
    assert any(true and seen != {true} for true, seen in stretches)


def test_a_reread_can_put_a_misread_right(tmp_path: Path) -> None:
    video = _video()
    m = _measured(tmp_path)
    cam = NoisyCamera(video, Noise(confusion=0.9, miss=0.0, phantom=0.0, arm_miss=0.0, reread_right=1.0), 3, m)
    truth = {s.frame: s.table for s in perfect_states(video)}
    fixed = False
    wrong_before = None
    for s in cam.states():
        differs = s.table.zones != truth[s.frame].zones
        if wrong_before is not None and differs:
            continue
        if wrong_before is not None:
            fixed = True
            break
        if differs:
            wrong_before = s.frame
            cam.reread(s.table.zones)
    assert fixed and cam.stats["rereads_right"] > 0


def test_arms_not_seen_drop_their_seats(tmp_path: Path) -> None:
    video = _video()
    cam = NoisyCamera(video, Noise(confusion=0.0, miss=0.0, phantom=0.0, arm_miss=1.0), 1, _measured(tmp_path))
    states = list(cam.states())
    assert states and all(not s.table.actors and not s.table.reached for s in states)
    assert cam.stats["arms"] == cam.stats["arms_missed"] > 0
